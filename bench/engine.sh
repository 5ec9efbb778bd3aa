#!/usr/bin/env bash
# The strong bot's engine: the wall time of a whole 2-player match against greedy at the
# default budget (200 ms a decision) and at 50 ms, one match at a time (the bot searches on one
# core), through the referee, sandboxed as a tournament plays it; interleaved trials, medians
# printed. Usage, from the repository root after scripts/setup.sh:
#   bash bench/engine.sh [BUILD_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
trials=${2:-3}
referee="$build/referee/referee"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source bench/median.sh

declare -A times
for t in $(seq "$trials"); do
  for ms in 200 50; do
    times[$ms]+="$(seconds "$referee" match --seed "$t" --log "$work/$ms-$t.jsonl" \
      "strong=$build/sample_bots/strong_bot --budget-ms $ms" "$build/sample_bots/greedy_bot") "
  done
done
for ms in 200 50; do
  decisions=$(cat "$work/$ms-"*.jsonl | grep -c '"play":{"hand_index"' || true)
  printf 'budget %s ms: median %.1f s a match (%s matches, %s plays in all)\n' "$ms" \
    "$(tr ' ' '\n' <<< "${times[$ms]}" | grep . | median)" "$trials" "$decisions"
done
