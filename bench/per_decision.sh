#!/usr/bin/env bash
# Microseconds per decision of a random-mover tournament, the figure to set beside another
# runner's microseconds per ply (bench/README.md, "Like for like"): two SDK random_bots, a
# 2-player round robin of MATCHES matches, played by `referee tournament` with the defaults
# (sandboxed, logged, fsync grouping) at concurrency 1 and 2, each pinned (the default: each
# worker and its bots on one CPU) and unpinned (--no-affinity). The four variants take turns,
# in an order that rotates each trial, TRIALS times; every trial is printed, then the medians.
# Per decision = wall time / decisions (the plays in the match logs), so at concurrency 2 it is
# the cost of a decision in throughput, as a ply is in a runner's concurrency-2 figure. The
# CPU column is user + system time of the referee and of every process reaped below it (its
# workers, and bots started with --no-sandbox), per decision. A sandboxed bot's CPU is not in
# it: the bot ends inside bubblewrap's PID namespace and no waiting parent adds its time (with
# --no-sandbox in REFEREE_FLAGS the column covers the bots too). Usage, from the repository root after
# scripts/setup.sh, best on a machine with nothing else running:
#   bash bench/per_decision.sh [BUILD_DIR] [TRIALS] [MATCHES] [REFEREE_FLAGS...]
# BUILD_DIR defaults to build, TRIALS to 9, MATCHES to 40.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-9}
matches=${3:-40}
extra=("${@:4}")
referee="$root/$build/referee/referee"
bot="$root/$build/sample_bots/random_bot"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/random.txtpb" << EOF
name: "random-movers"
format: FORMAT_TWO_PLAYERS
bots { name: "random-a" command: "$bot" args: "--seed" args: "1" }
bots { name: "random-b" command: "$bot" args: "--seed" args: "2" }
matches_per_pairing: $matches
seed: 2026
move_time_ms: 1000
time_bank_ms: 5000
EOF

# Runs the tournament once; prints "µs_per_decision cpu_µs_per_decision decisions".
run() {
  local jobs=$1 out="$work/out-$RANDOM"
  shift
  /usr/bin/time -o "$out.time" -f '%e %U %S' "$referee" tournament "$work/random.txtpb" \
    --out "$out" -j "$jobs" -q "$@" "${extra[@]}" > /dev/null 2> "$out.err"
  if ! grep -q . "$out/index.jsonl" 2> /dev/null; then
    cat "$out.err" >&2
    exit 1
  fi
  local decisions
  decisions=$(cat "$out"/matches/*.jsonl | grep -o '"play":{"hand' | wc -l)
  read -r wall user sys < <(tail -1 "$out.time")
  awk -v w="$wall" -v u="$user" -v s="$sys" -v d="$decisions" \
    'BEGIN{printf "%.2f %.2f %d\n", w * 1e6 / d, (u + s) * 1e6 / d, d}'
  rm -rf "$out"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

names=("c1 pinned" "c1 unpinned" "c2 pinned" "c2 unpinned")
variant() {
  case $1 in
    0) run 1 ;;
    1) run 1 --no-affinity ;;
    2) run 2 ;;
    3) run 2 --no-affinity ;;
  esac
}
declare -A wall cpu
echo "per decision, random_bot vs random_bot, $matches matches a run, $trials trials, $(nproc) CPUs," \
  "commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'), $(date -u '+%F %H:%M UTC')," \
  "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)${extra[*]:+, flags: ${extra[*]}}"
for ((t = 0; t < trials; t++)); do
  line="trial $((t + 1)):"
  for ((k = 0; k < 4; k++)); do
    v=$(((t + k) % 4))
    read -r us cpu_us decisions < <(variant "$v")
    wall[$v]+="$us "
    cpu[$v]+="$cpu_us "
    line+=" ${names[$v]} $us µs (CPU $cpu_us, $decisions decisions);"
  done
  echo "$line"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %18s %22s\n' variant "µs/decision (median)" "CPU µs/decision (median)"
for v in 0 1 2 3; do
  printf '%-12s %18s %22s\n' "${names[$v]}" "$(tr ' ' '\n' <<< "${wall[$v]}" | grep . | median)" \
    "$(tr ' ' '\n' <<< "${cpu[$v]}" | grep . | median)"
done
