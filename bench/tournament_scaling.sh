#!/usr/bin/env bash
# Tournament throughput and memory: the demo tournament at concurrency 1 and 2, TRIALS times
# each, interleaved (matches per second: every trial, the medians and their ratio), then the
# same tournament with 10x the matches at both concurrencies (throughput, and the referee's
# peak RSS, which must stay flat). Usage, from the repository root after scripts/setup.sh:
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

# Runs a tournament; prints "seconds matches peak_kib".
run() {
  local file=$1 jobs=$2 out="$work/out-$RANDOM"
  local start end
  start=$(date +%s.%N)
  "$referee" tournament "$file" --out "$out" -j "$jobs" -q "${extra[@]}" > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  local matches peak
  matches=$(wc -l < "$out/index.jsonl")
  peak=$(sed -n 's/^referee peak memory: \([0-9]*\) KiB.*/\1/p' "$out.err")
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') $matches $peak"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rate() { awk -v m="$1" -v t="$2" 'BEGIN{printf "%.3f", m / t}'; }

echo "demo tournament, $(nproc) cores, $trials trials per concurrency (interleaved)${extra[*]:+, flags: ${extra[*]}}"
rates1=() rates2=()
for ((i = 1; i <= trials; i++)); do
  read -r t1 m1 p1 < <(run "$work/demo.txtpb" 1)
  read -r t2 m2 p2 < <(run "$work/demo.txtpb" 2)
  rates1+=("$(rate "$m1" "$t1")")
  rates2+=("$(rate "$m2" "$t2")")
  printf 'trial %d: concurrency 1 %4d matches in %6.2f s = %7.2f/s; concurrency 2 %4d in %6.2f s = %7.2f/s\n' \
    "$i" "$m1" "$t1" "${rates1[-1]}" "$m2" "$t2" "${rates2[-1]}"
done
r1=$(printf '%s\n' "${rates1[@]}" | median)
r2=$(printf '%s\n' "${rates2[@]}" | median)
printf 'median matches/s: concurrency 1 %.2f, concurrency 2 %.2f\n' "$r1" "$r2"
printf 'speed-up 2 vs 1 (ratio of the medians): %.2fx (target >= 1.7x)\n' "$(awk -v a="$r2" -v b="$r1" 'BEGIN{printf "%.3f", a / b}')"

read -r t11 m11 p11 < <(run "$work/demo10.txtpb" 1)
read -r t10 m10 p10 < <(run "$work/demo10.txtpb" 2)
printf '10x the matches: concurrency 1 %.2f matches/s, concurrency 2 %.2f matches/s (%.2fx)\n' \
  "$(rate "$m11" "$t11")" "$(rate "$m10" "$t10")" \
  "$(awk -v a="$(rate "$m10" "$t10")" -v b="$(rate "$m11" "$t11")" 'BEGIN{printf "%.3f", a / b}')"
printf 'peak RSS of the referee: %d KiB for %d matches, %d KiB for %d matches (ratio %.3f, target <= 1.10)\n' \
  "$p2" "$m2" "$p10" "$m10" "$(awk -v a="$p10" -v b="$p2" 'BEGIN{printf "%.3f", a / b}')"
