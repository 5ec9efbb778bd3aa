#!/usr/bin/env bash
# Instructions per decision, counted by valgrind (callgrind): a figure other processes on the
# machine cannot move, unlike wall or CPU time. A seeded 2-player match between two SDK
# random_bots, the referee and both bots each under callgrind; the bots serve on Unix sockets
# and the referee plays them at those addresses (valgrind cannot run inside the sandbox, so the
# sandbox's own cost is not in these figures: bench/sandbox_cost.sh has it). Fixed costs
# (start-up, handshake, close) are taken out by playing the same seed twice, to the full
# target and to a lower one: instructions per decision = (Ir_full - Ir_short) / (decisions_full
# - decisions_short), for the referee (all its threads) and for the two bots together (per
# decision of either). Usage, from the repository root after scripts/setup.sh:
#   bash bench/decision_instructions.sh [BUILD_DIR] [SEED] [SHORT_TARGET] [BOT_COMMAND]
# BUILD_DIR defaults to build (it needs referee/referee and sample_bots/random_bot), SEED to 5,
# SHORT_TARGET to 60; BOT_COMMAND (default BUILD_DIR/sample_bots/random_bot) is the bot both
# seats run, given --listen ADDRESS, e.g. "build/tests/misbehaving_bot --protocol 2" for the
# referee's cost with a bot of protocol version 2. The count moves by a few percent from run
# to run (how often gRPC's threads poll depends on timing): compare medians of a few runs.
# With KEEP_DIR=DIR in the environment the callgrind files are kept there, for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seed=${2:-5}
short=${3:-60}
referee="$build/referee/referee"
read -ra bot <<< "${4:-$build/sample_bots/random_bot}"
command -v valgrind > /dev/null || { echo "decision_instructions.sh: needs valgrind" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  if [[ -n ${KEEP_DIR:-} ]]; then mkdir -p "$KEEP_DIR" && cp "$work"/*.out "$KEEP_DIR"/; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Instructions (Ir) in a callgrind output file.
ir() { sed -n 's/^summary: *\([0-9]*\).*/\1/p;s/^totals: *\([0-9]*\).*/\1/p' "$1" | head -1; }

# Plays one match to `target` (0: the rules' target); prints "referee_ir bots_ir decisions".
play() {
  local target=$1 tag=$2 k
  local -a bot_pids=()
  for k in 0 1; do
    valgrind --tool=callgrind --callgrind-out-file="$work/$tag-bot$k.out" \
      "${bot[@]}" --listen "unix:$work/$tag-$k.sock" > "$work/$tag-bot$k.log" 2>&1 &
    bot_pids+=($!)
    pids+=($!)
  done
  for k in 0 1; do
    for ((i = 0; i < 600; i++)); do [[ -S "$work/$tag-$k.sock" ]] && break; sleep 0.1; done
    [[ -S "$work/$tag-$k.sock" ]] || { echo "bot $k did not start: $(cat "$work/$tag-bot$k.log")" >&2; exit 1; }
  done
  local -a flags=(--seed "$seed" --match-id "instr-$seed" --move-time-ms 60000 --time-bank-ms 600000
    --startup-timeout-ms 60000 --log "$work/$tag.jsonl")
  [[ $target == 0 ]] || flags+=(--target "$target")
  valgrind --tool=callgrind --callgrind-out-file="$work/$tag-referee.out" \
    "$referee" match "${flags[@]}" "unix:$work/$tag-0.sock" "unix:$work/$tag-1.sock" \
    > "$work/$tag-referee.log" 2>&1 || { cat "$work/$tag-referee.log" >&2; exit 1; }
  for p in "${bot_pids[@]}"; do kill -TERM "$p"; wait "$p" 2> /dev/null || true; done
  local decisions
  decisions=$(grep -o '"play":{"hand' "$work/$tag.jsonl" | wc -l)
  echo "$(ir "$work/$tag-referee.out") $(($(ir "$work/$tag-bot0.out") + $(ir "$work/$tag-bot1.out"))) $decisions"
}

echo "instructions per decision (callgrind), seed $seed, $(git rev-parse --short HEAD 2> /dev/null || echo '?'), $(date -u +%F)"
read -r rf bf df < <(play 0 full)
read -r rs bs ds < <(play "$short" short)
printf 'full match: %d decisions, referee %d Ir, bots %d Ir\n' "$df" "$rf" "$bf"
printf 'to %d:      %d decisions, referee %d Ir, bots %d Ir\n' "$short" "$ds" "$rs" "$bs"
awk -v rf="$rf" -v rs="$rs" -v bf="$bf" -v bs="$bs" -v df="$df" -v ds="$ds" 'BEGIN {
  n = df - ds
  if (n <= 0) { print "the two matches have the same number of decisions: choose another SHORT_TARGET"; exit 1 }
  printf "per decision: referee %.0f instructions, bot %.0f instructions (both bots over all decisions)\n", (rf - rs) / n, (bf - bs) / n
}'
