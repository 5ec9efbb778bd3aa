#!/usr/bin/env bash
# Two referee builds on the demo tournament, run alternately: matches per second of each run,
# the medians, and B's median over A's. Made to price one change (e.g. the fsync of every log
# and index line: A without it, B with it) on a busy machine, where only alternating runs and
# medians are fair. The output folders are on the disk of BUILD_DIR (fsync costs what that disk
# costs). Usage, from the repository root:
#   bash bench/referee_ab.sh REFEREE_A REFEREE_B [TRIALS] [CONCURRENCY] [BUILD_DIR] [FACTOR]
# TRIALS defaults to 9, CONCURRENCY to 2; the bots are BUILD_DIR's (default build); FACTOR
# multiplies the demo's matches (default 1: 120 matches).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
a=$1
b=$2
trials=${3:-9}
jobs=${4:-2}
build=${5:-build}
factor=${6:-1}
work=$(mktemp -d "$root/$build/ab-XXXXXX")
trap 'rm -rf "$work"' EXIT
per=$(sed -n 's/^matches_per_pairing: *\([0-9]*\).*/\1/p' tournaments/demo.txtpb)
sed -e "s|\.\./build/|$root/$build/|" \
  -e "s/^matches_per_pairing: *[0-9]*/matches_per_pairing: $((per * factor))/" \
  tournaments/demo.txtpb > "$work/demo.txtpb"

# One run: prints matches per second.
run() {
  local out="$work/out-$RANDOM$RANDOM" start end
  start=$(date +%s.%N)
  "$1" tournament "$work/demo.txtpb" --out "$out" -j "$jobs" -q > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  awk -v m="$(wc -l < "$out/index.jsonl")" -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", m / (b - a)}'
  rm -rf "$out" "$out.err"
}
source bench/median.sh

echo "demo tournament x$factor, concurrency $jobs, $trials alternating trials; A=$a B=$b"
ra=() rb=()
for ((i = 1; i <= trials; i++)); do
  if ((i % 2)); then ra+=("$(run "$a")"); rb+=("$(run "$b")"); else rb+=("$(run "$b")"); ra+=("$(run "$a")"); fi
  printf 'trial %d: A %8.2f matches/s   B %8.2f matches/s\n' "$i" "${ra[-1]}" "${rb[-1]}"
done
ma=$(printf '%s\n' "${ra[@]}" | median)
mb=$(printf '%s\n' "${rb[@]}" | median)
printf 'median matches/s: A %.2f, B %.2f; B / A = %.3f\n' "$ma" "$mb" "$(awk -v x="$mb" -v y="$ma" 'BEGIN{printf "%.4f", x / y}')"
