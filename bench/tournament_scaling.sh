#!/usr/bin/env bash
# Tournament throughput and memory: the demo tournament at concurrency 1 and 2, TRIALS times
# each, interleaved (matches per second: every trial, the medians and their ratio), then the
# same tournament with 10x the matches at both concurrencies (throughput, and the referee's
# peak RSS, which must stay flat; the referee's own process and its largest match worker
# apart), and the peak RSS of a C++ sample bot (random_bot) over one match. Usage, from the
# repository root after scripts/setup.sh:
#   bash bench/tournament_scaling.sh [BUILD_DIR] [TRIALS] [REFEREE_FLAGS...]
# TRIALS defaults to 5; REFEREE_FLAGS go to every `referee tournament` (e.g. --affinity).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-5}
extra=("${@:3}")
referee="$build/referee/referee"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The demo file with absolute bot paths, and a copy with 10x the matches.
sed "s|\.\./build/|$root/$build/|" tournaments/demo.txtpb > "$work/demo.txtpb"
per=$(sed -n 's/^matches_per_pairing: *\([0-9]*\).*/\1/p' tournaments/demo.txtpb)
sed "s/^matches_per_pairing: *[0-9]*/matches_per_pairing: $((per * 10))/" "$work/demo.txtpb" > "$work/demo10.txtpb"

# Runs a tournament; prints "seconds matches peak_kib own_kib worker_kib".
run() {
  local file=$1 jobs=$2 out="$work/out-$RANDOM"
  local start end
  start=$(date +%s.%N)
  "$referee" tournament "$file" --out "$out" -j "$jobs" -q "${extra[@]}" > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  local matches peak
  matches=$(wc -l < "$out/index.jsonl")
  peak=$(sed -n 's/^referee peak memory: \([0-9]*\) KiB.*/\1/p' "$out.err")
  own=$(sed -n 's/^referee peak memory: .*this process \([0-9]*\) KiB.*/\1/p' "$out.err")
  worker=$(sed -n 's/^referee peak memory: .*the largest worker \([0-9]*\) KiB.*/\1/p' "$out.err")
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') $matches $peak ${own:-0} ${worker:-0}"
}

source bench/median.sh
rate() { awk -v m="$1" -v t="$2" 'BEGIN{printf "%.3f", m / t}'; }

echo "demo tournament, $(nproc) cores, $trials trials per concurrency (interleaved)${extra[*]:+, flags: ${extra[*]}}"
rates1=() rates2=()
for ((i = 1; i <= trials; i++)); do
  read -r t1 m1 p1 o1 w1 < <(run "$work/demo.txtpb" 1)
  read -r t2 m2 p2 o2 w2 < <(run "$work/demo.txtpb" 2)
  rates1+=("$(rate "$m1" "$t1")")
  rates2+=("$(rate "$m2" "$t2")")
  printf 'trial %d: concurrency 1 %4d matches in %6.2f s = %7.2f/s; concurrency 2 %4d in %6.2f s = %7.2f/s\n' \
    "$i" "$m1" "$t1" "${rates1[-1]}" "$m2" "$t2" "${rates2[-1]}"
done
r1=$(printf '%s\n' "${rates1[@]}" | median)
r2=$(printf '%s\n' "${rates2[@]}" | median)
printf 'median matches/s: concurrency 1 %.2f, concurrency 2 %.2f\n' "$r1" "$r2"
printf 'speed-up 2 vs 1 (ratio of the medians): %.2fx (target >= 1.7x)\n' "$(awk -v a="$r2" -v b="$r1" 'BEGIN{printf "%.3f", a / b}')"

read -r t11 m11 p11 o11 w11 < <(run "$work/demo10.txtpb" 1)
read -r t10 m10 p10 o10 w10 < <(run "$work/demo10.txtpb" 2)
printf '10x the matches: concurrency 1 %.2f matches/s, concurrency 2 %.2f matches/s (%.2fx)\n' \
  "$(rate "$m11" "$t11")" "$(rate "$m10" "$t10")" \
  "$(awk -v a="$(rate "$m10" "$t10")" -v b="$(rate "$m11" "$t11")" 'BEGIN{printf "%.3f", a / b}')"
printf 'peak RSS of the referee: %d KiB for %d matches, %d KiB for %d matches (ratio %.3f, target <= 1.10)\n' \
  "$p2" "$m2" "$p10" "$m10" "$(awk -v a="$p10" -v b="$p2" 'BEGIN{printf "%.3f", a / b}')"
printf 'peak RSS on the demo at concurrency 2: the referee process %d KiB, its largest match worker %d KiB (target <= 10240 each)\n' \
  "$o2" "$w2"

# A C++ sample bot's peak RSS: two random_bots serving on Unix sockets (no sandbox, so their
# own /proc entries can be read), one whole match between them, then VmHWM of each.
bot="$build/sample_bots/random_bot"
bot_pids=()
trap 'kill "${bot_pids[@]}" 2> /dev/null; rm -rf "$work"' EXIT
for k in 0 1; do
  "$bot" --listen "unix:$work/bot$k.sock" > "$work/bot$k.log" 2>&1 &
  bot_pids+=($!)
done
for k in 0 1; do
  for ((i = 0; i < 100; i++)); do [[ -S "$work/bot$k.sock" ]] && break; sleep 0.1; done
done
"$referee" match --seed 1 --log "$work/bots-match.jsonl" "unix:$work/bot0.sock" "unix:$work/bot1.sock" > /dev/null 2> "$work/bots-match.err" || { cat "$work/bots-match.err" >&2; exit 1; }
hwm=() anon=() pss=()
for p in "${bot_pids[@]}"; do
  hwm+=("$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$p/status")")
  anon+=("$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$p/status")")
  pss+=("$(sed -n 's/^Pss:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$p/smaps_rollup" 2> /dev/null || echo 0)")
done
for p in "${bot_pids[@]}"; do kill -TERM "$p"; wait "$p" 2> /dev/null || true; done
printf 'peak RSS of a C++ sample bot (random_bot) over one match: %d KiB and %d KiB (target <= 8192)\n' "${hwm[0]}" "${hwm[1]}"
# Most of that RSS is pages of the program's file and of libc, resident once for every process
# that maps them: the anonymous part is what each more bot costs.
printf '  after the match: anonymous RSS %d and %d KiB; PSS (shared pages divided among their users) %d and %d KiB\n' \
  "${anon[0]}" "${anon[1]}" "${pss[0]}" "${pss[1]}"
