#!/usr/bin/env bash
# Installs the Python SDK from the source tree into a fresh virtual environment in a temporary
# folder (outside the source tree; Debian's grpcio and protobuf through --system-site-packages,
# nothing downloaded), writes a bot into a folder of its own there, and plays it with the real
# referee: one match, then a tournament whose file sits next to the bot, as sdk/docs/running.md says.
#   run.sh PYTHON3 SDK_DIR REFEREE OPPONENT_BOT
set -euo pipefail
python=$1 sdk=$2 referee=$3 opponent=$4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-python-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A referee run as root starts each sandboxed bot under a user id of its own, which must be able
# to read the bot and its environment (mktemp makes the folder 0700).
chmod 755 "$tmp"
fail() { echo "python_install: $*" >&2; exit 1; }

"$python" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1 ||
  { cat "$tmp/venv.log"; fail "cannot make a virtual environment with $python"; }
find "$sdk" | sort >"$tmp/sources-before"
"$tmp/venv/bin/pip" install --no-deps --no-build-isolation --no-index "$sdk" \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "pip install $sdk failed"; }
find "$sdk" | sort >"$tmp/sources-after"
diff "$tmp/sources-before" "$tmp/sources-after" || fail "pip install changed the source tree"

# The bot lives in a folder of its own and imports only the installed package.
mkdir "$tmp/mybot"
cat >"$tmp/mybot/first.py" <<'PY'
"""first: plays the play that scores the most right now, else the first legal play; and turns
each view into a full state of the installed rules core, which must show it that very view."""
import sys

from allfives_bot import Bot, core, run


class First(Bot):
    def choose_play(self, view, clock):
        world = view.sample_state(core.SplitMix64(len(view.line)))
        if world.view(view.seat) != view or not view.sampler().exact:
            raise RuntimeError("the sampled world does not show this view")
        points = [view.points_after(play) for play in view.legal_plays]
        return points.index(max(points))


if __name__ == "__main__":
    sys.exit(run(First, "first", "1.0"))
PY
cd "$tmp"  # nothing of the repository on any path from here on
"$tmp/venv/bin/python3" -c "import allfives_bot, allfives_bot.protocol.bot_pb2_grpc" ||
  fail "the installed package does not import"
# The rules core was compiled into the package (not taken from a build folder): the referee's
# deal for seed 7, played out.
"$tmp/venv/bin/python3" - "$tmp" <<'PY' || fail "the installed rules core does not work"
import sys
from allfives_bot import Format, _core, core
assert _core.__file__.startswith(sys.argv[1] + "/venv/"), _core.__file__
s = core.State.new_match(Format.TWO_PLAYERS, 7)
assert s.legal_plays()[0].tile == (3, 3), s.legal_plays()
s.play_out("greedy", core.SplitMix64(1), whole_match=True)
assert s.is_terminal() and max(s.scores) >= 250, s.scores
PY

# One match, the bot run by the venv's python3 without a name: its Hello names it. The
# referee's sandbox shows a bot its program's folder and its arguments' folders: the whole
# environment is given read-only, as sdk/docs/python.md says.
"$referee" match "$tmp/venv/bin/python3 $tmp/mybot/first.py" "$opponent" --read-only "$tmp/venv" --seed 7 \
  --log "$tmp/match.jsonl" >"$tmp/match.out" 2>"$tmp/match.err" ||
  { cat "$tmp/match.out" "$tmp/match.err"; fail "referee match failed"; }
grep -q "^Winner: side\|^Draw" "$tmp/match.out" || { cat "$tmp/match.out"; fail "no result"; }
! grep -q "^Fault" "$tmp/match.out" || { cat "$tmp/match.out"; fail "the match ended by a fault"; }
grep -q "side 0 (first)" "$tmp/match.out" ||
  { cat "$tmp/match.out"; fail "seat 0 is not named by its Hello ('first')"; }

# A tournament file next to the bot: the runner and the bot file are found relative to it.
cat >"$tmp/mybot/league.txtpb" <<TXT
name: "league"
format: FORMAT_TWO_PLAYERS
bots { name: "first" command: "../venv/bin/allfives-bot" args: "./first.py" read_only_dirs: "../venv" }
bots { name: "opponent" command: "$opponent" }
matches_per_pairing: 2
seed: 2026
TXT
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere"
"$referee" tournament "$tmp/mybot/league.txtpb" -j 1 --out "$tmp/out" >"$tmp/tournament.out" 2>&1 ||
  { cat "$tmp/tournament.out"; fail "referee tournament failed"; }
[ "$(wc -l <"$tmp/out/index.jsonl")" -eq 2 ] || { cat "$tmp/tournament.out"; fail "not 2 matches"; }
[ "$(grep -c '"fault_kind": *"FAULT_KIND_UNSPECIFIED"' "$tmp/out/index.jsonl")" -eq 2 ] ||
  { cat "$tmp/out/index.jsonl"; fail "a match of the tournament ended by a fault"; }
echo "python_install: installed into $tmp/venv; the bot in its own folder played a match and a tournament"
