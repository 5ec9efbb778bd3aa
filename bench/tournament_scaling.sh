#!/usr/bin/env bash
# Tournament throughput and memory: the demo tournament at concurrency 1 and 2 (matches per
# second and their ratio), then the same tournament with 10x the matches (the referee's own
# peak RSS must stay flat). Usage, from the repository root after scripts/setup.sh:
#   bash bench/tournament_scaling.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
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
  "$referee" tournament "$file" --out "$out" -j "$jobs" -q > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  local matches peak
  matches=$(wc -l < "$out/index.jsonl")
  peak=$(sed -n 's/^referee peak memory: \([0-9]*\) KiB.*/\1/p' "$out.err")
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') $matches $peak"
}

echo "demo tournament, $(nproc) cores"
read -r t1 m1 p1 < <(run "$work/demo.txtpb" 1)
read -r t2 m2 p2 < <(run "$work/demo.txtpb" 2)
r1=$(awk -v m="$m1" -v t="$t1" 'BEGIN{printf "%.3f", m / t}')
r2=$(awk -v m="$m2" -v t="$t2" 'BEGIN{printf "%.3f", m / t}')
printf 'concurrency 1: %4d matches in %6.2f s = %6.2f matches/s\n' "$m1" "$t1" "$r1"
printf 'concurrency 2: %4d matches in %6.2f s = %6.2f matches/s\n' "$m2" "$t2" "$r2"
printf 'speed-up 2 vs 1: %.2fx (target >= 1.7x)\n' "$(awk -v a="$r2" -v b="$r1" 'BEGIN{printf "%.3f", a / b}')"

read -r t10 m10 p10 < <(run "$work/demo10.txtpb" 2)
printf 'peak RSS of the referee: %d KiB for %d matches, %d KiB for %d matches (ratio %.3f, target <= 1.10)\n' \
  "$p2" "$m2" "$p10" "$m10" "$(awk -v a="$p10" -v b="$p2" 'BEGIN{printf "%.3f", a / b}')"
