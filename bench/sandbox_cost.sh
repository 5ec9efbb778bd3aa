#!/usr/bin/env bash
# What the sandbox costs: the demo tournament sandboxed (the default) and with --no-sandbox,
# TRIALS times each, interleaved, at the default concurrency; prints every trial, the median
# matches per second of both and their ratio (target >= 0.95), then each bot's extra start-up
# (bench_sandbox_startup; target <= 20 ms) and bubblewrap's own start by namespace. Usage, from the repository root after
# scripts/setup.sh:
#   bash bench/sandbox_cost.sh [BUILD_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-7}
referee="$build/referee/referee"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|\.\./build/|$root/$build/|" tournaments/demo.txtpb > "$work/demo.txtpb"

# Runs the demo; prints "seconds matches".
run() {
  local out="$work/out-$RANDOM"
  local start end
  start=$(date +%s.%N)
  "$referee" tournament "$work/demo.txtpb" --out "$out" -q "$@" > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}') $(wc -l < "$out/index.jsonl")"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rate() { awk -v m="$1" -v t="$2" 'BEGIN{printf "%.3f", m / t}'; }

echo "demo tournament, $(nproc) cores, $trials trials each (interleaved), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
boxed=() bare=() ratios=()
for ((i = 1; i <= trials; i++)); do
  if ((i % 2)); then
    read -r ts ms < <(run)
    read -r tn mn < <(run --no-sandbox)
  else
    read -r tn mn < <(run --no-sandbox)
    read -r ts ms < <(run)
  fi
  boxed+=("$(rate "$ms" "$ts")")
  bare+=("$(rate "$mn" "$tn")")
  ratios+=("$(awk -v a="${boxed[-1]}" -v b="${bare[-1]}" 'BEGIN{printf "%.3f", a / b}')")
  printf 'trial %d: sandboxed %d matches in %.2f s = %.2f/s; --no-sandbox %d in %.2f s = %.2f/s; ratio %.3f\n' \
    "$i" "$ms" "$ts" "${boxed[-1]}" "$mn" "$tn" "${bare[-1]}" "${ratios[-1]}"
done
b=$(printf '%s\n' "${boxed[@]}" | median)
n=$(printf '%s\n' "${bare[@]}" | median)
printf 'median matches/s: sandboxed %.2f, --no-sandbox %.2f; ratio of the medians %.3f, median of the trial ratios %.3f (target >= 0.95)\n' \
  "$b" "$n" "$(awk -v a="$b" -v c="$n" 'BEGIN{printf "%.3f", a / c}')" "$(printf '%s\n' "${ratios[@]}" | median)"

bots=("$root/$build/sample_bots/greedy_bot")
[ -x "$build/sample_bots/greedy_py" ] && bots+=("$root/$build/sample_bots/greedy_py")
"$build/bench/bench_sandbox_startup" --reps 21 --options "${bots[@]}"
