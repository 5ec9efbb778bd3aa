#!/bin/bash
# `referee standings` peak memory and time against the size of the index: a folder of a round
# robin of 20 bots whose index holds 10^3, 10^4, 10^5 and 1.5 x 10^5 entries (each a scheduled
# match with a result and the timing of a real match), read by each referee given. Prints
# entries, referee, seconds and peak RSS (GNU time's maximum resident set size). A figure, not
# a test: it asserts nothing.
#
#   bash bench/standings_memory.sh [BUILD_DIR] [REFEREE...]
set -euo pipefail
build=${1:-build}
shift || true
referees=("$@")
((${#referees[@]})) || referees=("$build/referee/referee")
work=$(mktemp -d "${TMPDIR:-/tmp}/allfives-standings-mem-XXXXXX")
trap 'rm -rf "$work"' EXIT
bots=20
file=$work/t.txtpb
{
  echo 'name: "standings-memory"'
  echo 'format: FORMAT_TWO_PLAYERS'
  for ((i = 0; i < bots; i++)); do echo "bots { name: \"b$i\" command: \"/bin/true\" }"; done
  echo 'matches_per_pairing: 1000'
  echo 'seed: 1'
} >"$file"

for entries in 1000 10000 100000 150000; do
  dir=$work/f-$entries
  mkdir -p "$dir"
  # The definition as a run records it; its hash from `referee tournament` itself.
  "${referees[0]}" tournament "$file" --out "$work/hash" -j 1 -q --no-sandbox >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 200); do [ -s "$work/hash/tournament.txtpb" ] && break; sleep 0.05; done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  cp "$work/hash/tournament.txtpb" "$dir/tournament.txtpb"
  rm -rf "$work/hash"
  hash=$(sed -n 's/^# As run; hash //p' "$dir/tournament.txtpb")
  /usr/bin/python3 - "$entries" "$bots" "$hash" >"$dir/index.jsonl" <<'PY'
import json, sys
n, bots, h = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pairings = bots * (bots - 1) // 2
members = []
for j in range(bots):          # colexicographic, as the schedule orders pairings
    for i in range(j):
        members.append((i, j))
timing = {"decisions": 90, "total_us": "14366", "max_us": 1443, "near_deadline": 0,
          "bank_used_ms": 0, "bucket": list(range(51, 64)), "bucket_count": [1, 9, 13, 28, 13, 7, 11, 5, 3, 1, 1, 1, 1]}
for o in range(n):
    r, slot = o % 2, o // 2
    p, d = slot % pairings, slot // pairings
    i, j = members[p]
    seats = [f"b{i}", f"b{j}"] if r == 0 else [f"b{j}", f"b{i}"]
    mid = f"{seats[0]}-{seats[1]}-d{d}-r{r}"
    win = (o * 7919) % 3
    scores = [250, 120] if win == 0 else [120, 250] if win == 1 else [251, 180]
    e = {"match": {"ordinal": o, "match_id": mid, "pairing": p, "deal": d, "rotation": r,
                   "seed": "1", "seat_bots": seats},
         "reason": "MATCH_END_REASON_TARGET", "winner_side": 0 if scores[0] > scores[1] else 1,
         "scores": scores, "placements": [1, 2] if scores[0] > scores[1] else [2, 1],
         "fault_seat": -1, "log_file": f"matches/{mid}.jsonl", "duration_ms": "35",
         "hands_played": 9, "tournament_hash": h, "format": "FORMAT_TWO_PLAYERS",
         "tournament_name": "standings-memory", "timing": [timing, timing]}
    print(json.dumps(e, separators=(",", ":")))
PY
done

printf '%-8s %-40s %8s %14s\n' entries referee seconds peak_rss_kib
for entries in 1000 10000 100000 150000; do
  for referee in "${referees[@]}"; do
    /usr/bin/time -f '%e %M' -o "$work/time" "$referee" standings "$work/f-$entries" \
      >/dev/null 2>"$work/err" || { echo "failed:"; tail -3 "$work/err"; }
    read -r secs kib <"$work/time"
    printf '%-8s %-40s %8s %14s\n' "$entries" "$referee" "$secs" "$kib"
  done
done
