#!/usr/bin/env bash
# peak_bot through the real referee: a tournament file's params reach it through the C++ SDK
# (MatchInfo::param), it plays greedily with probability p(x) = exp(-((x - 0.3) / 0.25)^2)
# (each play's comment says x, p and the kind of play), the bot at the optimum beats the one
# far from it, and a match replays play for play.
#   peak_bot_test.sh REFEREE PEAK_BOT
set -euo pipefail
referee=$1 peak=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-peak-bot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # a referee run as root gives each sandboxed bot a user id of its own
fail() { echo "peak_bot_params: $*" >&2; exit 1; }

cat >"$tmp/peak.txtpb" <<TXT
name: "peak"
format: FORMAT_TWO_PLAYERS
bots { name: "optimum" command: "$peak" params { key: "x" value: 0.3 } }
bots { name: "far" command: "$peak" params { key: "x" value: -1.5 } }
bots { name: "default" command: "$peak" }
matches_per_pairing: 20
seed: 5
TXT
for run in 1 2; do
  "$referee" tournament "$tmp/peak.txtpb" -j 2 --out "$tmp/out$run" -q >"$tmp/run$run.out" 2>&1 ||
    { cat "$tmp/run$run.out"; fail "referee tournament failed"; }
done

# What each bot read: x = 0.3 (p 1, always greedy), x = -1.5 (p 0, always random), and no x
# (the default 0: p = exp(-1.44) = 0.237, greedy about a quarter of the time).
grep -ho '"comment": *"[^"]*"' "$tmp"/out1/matches/*.jsonl | sed 's/.*: *"//; s/"$//' |
  sort | uniq -c >"$tmp/comments.txt"
count() { awk -v c="$1" '{n = $1; $1 = ""; if (substr($0, 2) == c) print n}' "$tmp/comments.txt"; }
[ "$(wc -l <"$tmp/comments.txt")" -eq 4 ] || { cat "$tmp/comments.txt"; fail "not the four kinds of play expected"; }
optimum=$(count "x=0.3 p=1.000 greedy") far=$(count "x=-1.5 p=0.000 random")
greedy=$(count "x=0 p=0.237 greedy") random=$(count "x=0 p=0.237 random")
[ "${optimum:-0}" -gt 500 ] && [ "${far:-0}" -gt 500 ] || { cat "$tmp/comments.txt"; fail "the param x was not read"; }
# The default's greedy share: within 5 standard deviations of 0.237 (the matches are seeded,
# so this is one fixed outcome; the bound says the share is p's, not another).
awk -v g="${greedy:-0}" -v r="${random:-0}" 'BEGIN {
  n = g + r; p = 0.237; sd = sqrt(p * (1 - p) / n)
  if (n < 500 || g / n < p - 5 * sd || g / n > p + 5 * sd) exit 1 }' ||
  { cat "$tmp/comments.txt"; fail "the default x = 0 was not played with p = 0.237"; }

# Strength peaks at the optimum: of 40 matches each, the bot there wins more than 30, the one
# far from it (a random player) fewer than half as many.
wins() { awk -F, -v b="$1" '$2 == b {print $4}' "$tmp/out1/standings.csv"; }
[ "$(wins optimum)" -gt 30 ] && [ $((2 * $(wins far))) -lt "$(wins optimum)" ] ||
  { cat "$tmp/out1/standings.csv"; fail "the bot at the optimum is not the strongest"; }

# Seeded from the match id, the seat and the decision count: the second run plays the same.
plays() { grep -o '"play":{"hand_index[^}]*}[^}]*}' "$1"; }
for log in "$tmp"/out1/matches/*.jsonl; do
  diff <(plays "$log") <(plays "$tmp/out2/matches/$(basename "$log")") >/dev/null ||
    fail "$(basename "$log") did not replay play for play"
done
echo "peak_bot_params: x read as sent (0.3: $optimum greedy plays; -1.5: $far random plays; default 0: $greedy greedy, $random random), the optimum won $(wins optimum) of 40, every match replayed"
