#!/usr/bin/env bash
# The JavaScript kit end to end: its sample bot (sample_bots/js/greedy.js, bundled by the build)
# plays a sandboxed tournament against the C++ bots; `referee verify` re-scores every log; the
# kit's count and points agree with the referee's on every logged play (points_test.js); it
# makes exactly the C++ greedy's choices on the same deals; its set_comment reaches the log; and
# a tournament file's params reach a bot's info.param (tests/js/params_bot.js).
#   kit_test.sh REFEREE GREEDY_BOT RANDOM_BOT GREEDY_JS RUN_JS_BOT
# Without node or the kit's npm packages the test says so and is skipped (exit 77), but not in
# CI (CI=true), where scripts/setup.sh installs them: there it fails.
set -euo pipefail
referee=$1 greedy=$2 random=$3 greedy_js=$4 run_js=$5
here=$(cd "$(dirname "$0")" && pwd)

missing=""
command -v node >/dev/null || missing="node is not installed"
[ -n "$missing" ] || [ -x "$greedy_js" ] || missing="$greedy_js was not built (the kit's npm packages are missing: run npm ci in sdk/js, as scripts/setup.sh does)"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "js_kit: FAILED: $missing; CI must run this test" >&2
    exit 1
  fi
  echo "js_kit: SKIPPED: $missing"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-js-kit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # a referee run as root gives each sandboxed bot a user id of its own
fail() { echo "js_kit: $*" >&2; exit 1; }

cat >"$tmp/league.txtpb" <<TXT
name: "js"
format: FORMAT_TWO_PLAYERS
bots { name: "greedy_js" command: "$greedy_js" }
bots { name: "greedy" command: "$greedy" }
bots { name: "random" command: "$random" args: "--seed" args: "1" }
matches_per_pairing: 6
seed: 2026
TXT
"$referee" tournament "$tmp/league.txtpb" -j 2 --out "$tmp/out" -q >"$tmp/tournament.out" 2>&1 ||
  { cat "$tmp/tournament.out"; fail "referee tournament failed"; }
[ "$(wc -l <"$tmp/out/index.jsonl")" -eq 18 ] || { cat "$tmp/tournament.out"; fail "not 18 matches"; }
[ "$(grep -c '"fault_kind": *"FAULT_KIND_UNSPECIFIED"' "$tmp/out/index.jsonl")" -eq 18 ] ||
  { cat "$tmp/out/index.jsonl"; fail "a match ended by a fault"; }
grep -q '"sandboxed": *true' "$tmp"/out/matches/*.jsonl || fail "the bots did not run sandboxed"
"$referee" verify "$tmp/out" >"$tmp/verify.out" 2>&1 || { cat "$tmp/verify.out"; fail "verify failed"; }
"$run_js" "$here/points_test.js" "$tmp"/out/matches/*.jsonl || fail "the kit scores plays otherwise"

# The same deals, greedy_js against greedy and greedy against greedy: the same plays.
plays() { grep -o '"play":{"hand_index[^}]*}[^}]*}' "$1"; }
"$referee" match "$greedy_js" "$greedy" --seed 11 --log "$tmp/js.jsonl" >/dev/null 2>&1 || fail "match failed"
"$referee" match "$greedy" "$greedy" --seed 11 --log "$tmp/cpp.jsonl" >/dev/null 2>&1 || fail "match failed"
[ "$(plays "$tmp/js.jsonl" | wc -l)" -gt 50 ] || fail "too few plays"
diff <(plays "$tmp/js.jsonl") <(plays "$tmp/cpp.jsonl") || fail "greedy_js chose otherwise than greedy"
# Its set_comment reaches the log: each of its plays carries "most points now: N", N the points
# that play scored.
node -e '
const records = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
let n = 0;
for (const { play } of records) {
  if (!play || play.seat !== 0) continue;
  const want = `most points now: ${play.points}`;
  if (play.comment !== want) {
    console.error(`play ${n + 1} of seat 0: comment ${JSON.stringify(play.comment)}, not ${JSON.stringify(want)}`);
    process.exit(1);
  }
  n++;
}
if (n < 25) { console.error(`only ${n} plays of seat 0`); process.exit(1); }
' "$tmp/js.jsonl" || fail "greedy_js's comments (set_comment) are not in the log"
# MatchStart.params through the kit: a bot given params in the tournament file reads them with
# info.param (tests/js/params_bot.js says what it read in its comments), one given none reads
# its defaults. Unsandboxed: the kit's node_modules lie outside the bot's folder.
cat >"$tmp/params.txtpb" <<TXT
name: "js-params"
format: FORMAT_TWO_PLAYERS
bots { name: "given" command: "$run_js" args: "$here/params_bot.js" sandbox: false
       params { key: "x" value: 0.5 } params { key: "y" value: -2 } }
bots { name: "none" command: "$run_js" args: "$here/params_bot.js" sandbox: false }
matches_per_pairing: 2
seed: 7
TXT
"$referee" tournament "$tmp/params.txtpb" --out "$tmp/params" -q >"$tmp/params.out" 2>&1 ||
  { cat "$tmp/params.out"; fail "the params tournament failed"; }
comments() { grep -ho '"comment": *"[^"]*"' "$tmp"/params/matches/*.jsonl | sed 's/.*: *"//; s/"$//' | sort | uniq -c; }
comments >"$tmp/comments.txt"
[ "$(wc -l <"$tmp/comments.txt")" -eq 2 ] || { cat "$tmp/comments.txt"; fail "params: not exactly two kinds of comment"; }
grep -q ' x=0.5 absent=7 names=x,y$' "$tmp/comments.txt" || { cat "$tmp/comments.txt"; fail "the given params were not read"; }
grep -q ' x=-1 absent=7 names=$' "$tmp/comments.txt" || { cat "$tmp/comments.txt"; fail "a bot given no params did not read its defaults"; }
echo "js_kit: the JavaScript bot played 12 sandboxed matches, verify re-scored them, the kit scored every play as the referee did and chose as the C++ greedy, its comments are in the log, and info.param reads the tournament file's params"
