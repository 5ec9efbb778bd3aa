#!/usr/bin/env bash
# Many bots, bounded processes: a 2-player tournament of the random bot under BOTS names (default
# 200; 19 900 pairings, so almost every match needs bots the worker has not used lately) played
# for SECONDS (default 30) at concurrency 2, then stopped with Ctrl-C. Every 2 s it prints how
# many processes the referee has under it (workers, bots, their guardians) and the resident
# memory of the referee and of its workers: both must stay flat, not grow with the bots met.
# Usage, from the repository root after scripts/setup.sh:
#   bash bench/many_bots.sh [BUILD_DIR] [BOTS] [SECONDS] [REFEREE_FLAGS...]
# e.g. `bash bench/many_bots.sh build 200 30 --idle-bots 400` keeps every bot warm instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bots=${2:-200}
seconds=${3:-30}
extra=("${@:4}")
referee="$(pwd)/$build/referee/referee"
random_bot="$(pwd)/$build/sample_bots/random_bot"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  echo 'name: "many_bots"'
  echo 'format: FORMAT_TWO_PLAYERS'
  for ((i = 0; i < bots; i++)); do
    printf 'bots { name: "r%03d" command: "%s" args: "--seed" args: "%d" }\n' "$i" "$random_bot" "$i"
  done
  echo 'matches_per_pairing: 2'
  echo 'seed: 1'
} > "$work/t.txtpb"

"$referee" tournament "$work/t.txtpb" --out "$work/out" -j 2 -q "${extra[@]}" > /dev/null 2> "$work/err" &
ref=$!

# Every process under $ref (children, grandchildren...), one pid per line.
descendants() {
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END { for (p in parent) { q = p; while (q in parent && q != root && q > 1) q = parent[q]; if (q == root) print p } }'
}
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

echo "$bots bots, concurrency 2, sampled every 2 s for ${seconds} s${extra[*]:+, flags: ${extra[*]}}"
printf '%6s %9s %10s %14s %16s %11s\n' seconds matches processes referee_KiB workers_KiB_max bots_alive
for ((t = 2; t <= seconds; t += 2)); do
  sleep 2
  kill -0 "$ref" 2>/dev/null || break
  mapfile -t under < <(descendants "$ref")
  workers=$(ps -o pid= --ppid "$ref" | tr -d ' ')
  wmax=0
  for w in $workers; do r=$(rss "$w"); ((r > wmax)) && wmax=$r; done
  alive=$(for p in "${under[@]}"; do { tr "\0" " " < "/proc/$p/cmdline"; } 2>/dev/null; echo; done | grep -c "^$random_bot" || true)
  matches=$(wc -l < "$work/out/index.jsonl" 2>/dev/null || echo 0)
  printf '%6d %9d %10d %14d %16d %11d\n' "$t" "$matches" "${#under[@]}" "$(rss "$ref")" "$wmax" "$alive"
done
kill -INT "$ref" 2>/dev/null || true
wait "$ref" || true
tail -n 3 "$work/err"
