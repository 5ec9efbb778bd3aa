#!/bin/bash
# `referee verify` and `referee serve` against the size of a tournament folder: a round robin
# of 50 greedy bots whose folder holds 10^3 and 1.5 x 10^5 finished matches, each with a real
# log that verifies and agrees with its index line. Prints verify's peak RSS (GNU time's
# maximum resident set size), wall and CPU seconds with -j 1 and -j 2, and serve's RSS after it
# answered the folder's tournament page (and its standings). A figure, not a test: it asserts
# nothing.
#
# The logs are real: one tournament of two greedy bots named b0 and b1 plays every deal
# sequence once per rotation (the same seeds as the 50-bot schedule; MAX_HANDS hands a match at
# most, 1 by default to keep a folder of 1.5 x 10^5 logs small), and the match of pairing
# (bi, bj) is that log with the header's names and match id rewritten: greedy bots are
# deterministic, so it is the match they would play. SIZES (default "1000 150000") are the
# folders' sizes; each verify is run REPEAT times (default 1), -j 1 and -j 2 interleaved.
#
#   bash bench/verify_serve_memory.sh [BUILD_DIR]
#   SIZES=1000 MAX_HANDS=200 REPEAT=5 bash bench/verify_serve_memory.sh build  # whole matches
set -euo pipefail
build=${1:-build}
referee=$build/referee/referee
greedy=$(realpath "$build/sample_bots/greedy_bot")
work=$(mktemp -d "${TMPDIR:-/tmp}/allfives-verify-mem-XXXXXX")
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bots=50
SIZES=${SIZES:-1000 150000}
max_hands=${MAX_HANDS:-1}
repeat=${REPEAT:-1}
per_pairing=124 # 62 deal sequences x 2 rotations: 1225 x 124 = 151,900 scheduled matches

definition() { # NAME BOTS
  echo "name: \"$1\""
  echo 'format: FORMAT_TWO_PLAYERS'
  for ((i = 0; i < $2; i++)); do echo "bots { name: \"b$i\" command: \"$greedy\" }"; done
  echo "matches_per_pairing: $per_pairing"
  echo 'seed: 1'
  echo "max_hands: $max_hands"
}
definition verify-memory 2 >"$work/two.txtpb"
definition verify-memory $bots >"$work/all.txtpb"
"$referee" tournament "$work/two.txtpb" --out "$work/two" -j 2 -q --no-sandbox >/dev/null 2>&1

# The 50-bot definition as a run records it (its hash), from a run stopped at once.
"$referee" tournament "$work/all.txtpb" --out "$work/hash" -j 1 -q --no-sandbox >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do [ -s "$work/hash/tournament.txtpb" ] && break; sleep 0.05; done
kill -INT "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true

for entries in $SIZES; do
  dir=$work/f-$entries
  mkdir -p "$dir/matches"
  cp "$work/hash/tournament.txtpb" "$dir/tournament.txtpb"
  /usr/bin/python3 - "$entries" "$bots" "$work/two" "$dir" <<'PY'
import json, sys
n, bots, two, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
hash_ = next(l for l in open(out + "/tournament.txtpb") if l.startswith("# As run; hash "))
hash_ = hash_.split()[-1]
template = {}  # (deal, rotation) -> (index entry, log lines)
for line in open(two + "/index.jsonl"):
    e = json.loads(line)
    m = e["match"]
    template[(m.get("deal", 0), m.get("rotation", 0))] = (e, open(two + "/" + e["log_file"]).read().split("\n", 1))
members = [(i, j) for j in range(bots) for i in range(j)]  # colexicographic, as scheduled
pairings = len(members)
with open(out + "/index.jsonl", "w") as index:
    for o in range(n):
        r, slot = o % 2, o // 2
        p, d = slot % pairings, slot // pairings
        i, j = members[p]
        e, (head, rest) = template[(d, r)]
        names = {"b0": f"b{i}", "b1": f"b{j}"}
        seats = [names[s] for s in e["match"]["seat_bots"]]
        mid = f"{seats[0]}-{seats[1]}-d{d}-r{r}"
        header = json.loads(head)
        h = header["header"]
        h["match_id"] = mid
        for b in h["bots"]:
            b["display_name"] = names[b["display_name"]]
        with open(f"{out}/matches/{mid}.jsonl", "w") as log:
            log.write(json.dumps(header, separators=(",", ":")) + "\n" + rest)
        e = json.loads(json.dumps(e))
        e["match"].update(ordinal=o, match_id=mid, pairing=p, seat_bots=seats)
        e.update(log_file=f"matches/{mid}.jsonl", tournament_hash=hash_)
        index.write(json.dumps(e, separators=(",", ":")) + "\n")
PY
done

load() { cut -d' ' -f1-3 /proc/loadavg; }
printf '%-8s %-6s %10s %10s %10s %14s  %s\n' entries jobs wall_s user_s sys_s peak_rss_kib load
for entries in $SIZES; do
  for jobs in $(for ((k = 0; k < repeat; k++)); do echo 1 2; done); do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$referee" verify -q -j "$jobs" \
      "$work/f-$entries" >"$work/out" 2>&1 || { echo "verify failed:"; tail -3 "$work/out"; }
    read -r wall user sys kib <"$work/time"
    printf '%-8s %-6s %10s %10s %10s %14s  %s\n' "$entries" "$jobs" "$wall" "$user" "$sys" "$kib" \
      "$(load)"
  done
done
tail -1 "$work/out"

# serve: the RSS after answering the folder's page (the index folded into the standings, then
# the page), its second page (from the index's page offsets) and its standings.
printf '%-8s %14s %14s %12s %12s\n' entries rss_kib_before rss_kib_after first_page_s page_2_s
for entries in $SIZES; do
  "$referee" serve "$work/f-$entries" --listen 127.0.0.1:0 >"$work/serve.out" 2>&1 &
  serve_pid=$!
  port=
  for _ in $(seq 200); do
    port=$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out" | head -1 | cut -d: -f2) || true
    [ -n "$port" ] && break
    sleep 0.05
  done
  before=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  first=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/t/0/")
  second=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/t/0/?page=2")
  curl -sf "http://127.0.0.1:$port/standings/0/" >/dev/null
  after=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  printf '%-8s %14s %14s %12s %12s\n' "$entries" "$before" "$after" "$first" "$second"
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
done
