#!/bin/bash
# The referee's start time and peak memory against the size of the schedule: tournaments of
# 10^3, 10^4, 10^5 and 10^6 scheduled matches (2 bots, or 5 bots for 10^6) and the full round
# robin of 1,000 bots (999,000 matches), each started with -j 1, stopped by SIGINT once a few
# matches are indexed (or after 20 s). Prints, per size and referee, the time from launch to
# the referee's first line ("tournament NAME: N matches ...", printed once the schedule is
# ready) and the peak RSS of the referee and its worker (the referee prints it at its end).
# A figure, not a test: it asserts nothing.
#
#   bash bench/schedule_memory.sh [BUILD_DIR] [REFEREE...]
#
# REFEREE... (default BUILD_DIR/referee/referee) are the referee programs to compare, each run
# in turn for every size.
set -euo pipefail
build=${1:-build}
shift || true
referees=("$@")
((${#referees[@]})) || referees=("$build/referee/referee")
bot=$(realpath "$build/sample_bots/greedy_bot")
work=$(mktemp -d "${TMPDIR:-/tmp}/allfives-schedule-mem-XXXXXX")
trap 'rm -rf "$work"' EXIT

# file BOTS MATCHES_PER_PAIRING
make_file() {
  local path=$work/t-$1-$2.txtpb
  {
    echo 'name: "schedule-memory"'
    echo 'format: FORMAT_TWO_PLAYERS'
    for ((i = 0; i < $1; i++)); do echo "bots { name: \"b$i\" command: \"$bot\" }"; done
    echo "matches_per_pairing: $2"
    echo 'seed: 1'
  } >"$path"
  echo "$path"
}

now_ms() { date +%s%3N; }

# run REFEREE FILE: prints "START_MS PEAK_KIB"
run_one() {
  local out=$work/out-$RANDOM$RANDOM err=$work/err-$RANDOM$RANDOM
  local t0 t1=""
  t0=$(now_ms)
  "$1" tournament "$2" --out "$out" -j 1 -q --no-sandbox --no-affinity 2>"$err" >/dev/null &
  local pid=$!
  local until=$((t0 + 20000))
  while (($(now_ms) < until)); do
    if [ -z "$t1" ] && grep -q '^tournament ' "$err" 2>/dev/null; then t1=$(now_ms); fi
    if [ -n "$t1" ] && [ -f "$out/index.jsonl" ] && (($(wc -l <"$out/index.jsonl") >= 4)); then break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  # The parent's own peak, read before it is stopped (a referee that prints no peak on a stop).
  local hwm
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "?")
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local peak
  peak=$(sed -n 's/^referee peak memory: \([0-9]*\) KiB.*/\1/p' "$err" | tail -1)
  echo "$((${t1:-$(now_ms)} - t0)) ${peak:-$hwm}"
  rm -rf "$out" "$err"
}

printf '%-10s %-7s %-9s %-40s %10s %14s\n' matches bots per-pair referee start_ms peak_rss_kib
for size in "2 1000" "2 10000" "2 100000" "5 100000" "1000 2"; do
  read -r bots per <<<"$size"
  file=$(make_file "$bots" "$per")
  matches=$((bots * (bots - 1) / 2 * per))
  for referee in "${referees[@]}"; do
    read -r start peak <<<"$(run_one "$referee" "$file")"
    printf '%-10s %-7s %-9s %-40s %10s %14s\n' "$matches" "$bots" "$per" "$referee" "$start" "$peak"
  done
done
