#!/usr/bin/env bash
# The game review's speed at its default budget (1000 worlds a decision): one 2-player match's
# review of one seat (greedy against strong_bot), and the demo tournament's 120 matches
# reviewed for one bot (`--bot greedy`) with -j 1 and -j 2; each `--force`d so every decision
# is computed, runs interleaved, medians printed. Usage, from the repository root after
# scripts/setup.sh:
#   bash bench/review.sh [BUILD_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
trials=${2:-3}
referee="$build/referee/referee"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$referee" match "$build/sample_bots/greedy_bot" "$build/sample_bots/strong_bot" --seed 45 \
  --log "$work/m.jsonl" > /dev/null 2>&1
sed "s|\.\./build|$build|g" tournaments/demo.txtpb > "$work/demo.txtpb"
"$referee" tournament "$work/demo.txtpb" --out "$work/demo" -q > /dev/null 2>&1
decisions=$(grep -c '"play":{"hand_index"' "$work/m.jsonl" || true)
seat0=$(grep -c '"play":{"hand_index":[0-9]*,"seat":0' "$work/m.jsonl" || true)
echo "match: $decisions plays, $seat0 of seat 0; demo: $(ls "$work/demo/matches" | wc -l) logs"

source bench/median.sh

: > "$work/one" && : > "$work/j1" && : > "$work/j2"
for ((t = 0; t < trials; t++)); do
  seconds "$referee" review "$work/m.jsonl" --seat 0 --force >> "$work/one"
  seconds "$referee" review "$work/demo" --bot greedy -j 1 --force >> "$work/j1"
  seconds "$referee" review "$work/demo" --bot greedy -j 2 --force >> "$work/j2"
done
one=$(median < "$work/one")
j1=$(median < "$work/j1")
j2=$(median < "$work/j2")
echo "one match, seat 0: median $one s (trials: $(tr '\n' ' ' < "$work/one"))"
echo "demo, --bot greedy -j 1: median $j1 s (trials: $(tr '\n' ' ' < "$work/j1"))"
echo "demo, --bot greedy -j 2: median $j2 s (trials: $(tr '\n' ' ' < "$work/j2")); -j 2 / -j 1 speed-up $(echo "scale=2; $j1 / $j2" | bc)"
echo "date $(date -u '+%F %H:%M') commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
