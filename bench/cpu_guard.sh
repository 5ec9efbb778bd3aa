#!/usr/bin/env bash
# What the CPU guard (referee/match/cpu_guard.h) buys and costs. First, strong_bot (--simulations
# SIMS) plays MATCHES full matches three ways, each a 2-player tournament at -j 1 (the worker and
# its bots on one CPU, the hog's best case), against tests/bots/hostile_bot, which plays the
# first legal play: alone (--mode none, nothing else), against the hog (--mode hog, four
# threads spinning from its first match on) with the guard (the default), and against the hog
# with --think-on-opponent-time (no guard). The deals and plays are the same in all three. For each it prints
# strong's decisions: count, median, 99th percentile and maximum decision time, and forfeits.
# Then the demo tournament with the guard (the default) and with --think-on-opponent-time,
# TRIALS times each, interleaved: median matches/s of both and the median of the trial ratios
# (target: the guard costs at most 5%). With BASE_REFEREE set (a build without the guard), the
# demo is compared with it instead. Usage, from the repository root after scripts/setup.sh:
#   bash bench/cpu_guard.sh [BUILD_DIR] [SIMS] [MATCHES] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
sims=${2:-3000}
matches=${3:-10}
trials=${4:-9}
referee="$root/$build/referee/referee"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "cpu guard, $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
  "$(date -u +%Y-%m-%d)"

# A tournament of strong against OPPONENT (a bots { } entry); prints strong's decision times.
victim() {
  local name=$1 opponent=$2
  shift 2
  cat > "$work/$name.txtpb" <<EOF
name: "$name"
format: FORMAT_TWO_PLAYERS
bots { name: "strong" command: "$root/$build/sample_bots/strong_bot" args: "--simulations" args: "$sims" }
$opponent
matches_per_pairing: $matches
seed: 11
move_time_ms: 1000
time_bank_ms: 5000
EOF
  "$referee" tournament "$work/$name.txtpb" --out "$work/$name" -j 1 -q "$@" > /dev/null 2>&1
  /usr/bin/python3 - "$work/$name" "$name" <<'PY'
import json, os, sys
folder, name = sys.argv[1], sys.argv[2]
times, forfeits, matches = [], 0, 0
for f in sorted(os.listdir(folder + "/matches")):
    seat = None
    for line in open(folder + "/matches/" + f):
        r = json.loads(line)
        if "header" in r:
            matches += 1
            seat = [b["seat"] for b in r["header"]["bots"] if b["display_name"] == "strong"][0]
        elif "play" in r and r["play"]["seat"] == seat:
            times.append(int(r["play"]["decision_time_us"]) / 1000)
        elif "fault" in r and r["fault"]["seat"] == seat:
            forfeits += 1
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))] if times else float("nan")
print(f"{name:>10}: {matches} matches, {len(times)} decisions of strong: median {pick(0.5):.1f} ms, "
      f"p99 {pick(0.99):.1f} ms, max {times[-1] if times else float('nan'):.1f} ms; "
      f"strong forfeited {forfeits}")
PY
}

honest="bots { name: \"hog\" command: \"$root/$build/tests/hostile_bot\" args: \"--mode\" args: \"none\" }"
hog="bots { name: \"hog\" command: \"$root/$build/tests/hostile_bot\" args: \"--mode\" args: \"hog\" args: \"--threads\" args: \"4\" }"
echo "strong_bot --simulations $sims, $matches matches each, -j 1:"
victim alone "$honest"
victim guarded "$hog"
victim unguarded "$hog" --think-on-opponent-time

# The demo: matches/s, with the guard and without.
sed "s|\.\./build/|$root/$build/|" tournaments/demo.txtpb > "$work/demo.txtpb"
run() {
  local out="$work/out-$RANDOM$RANDOM" start end
  start=$(date +%s.%N)
  "$1" tournament "$work/demo.txtpb" --out "$out" -q "${@:2}" > /dev/null 2> "$out.err"
  end=$(date +%s.%N)
  awk -v m="$(wc -l < "$out/index.jsonl")" -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", m / (b - a)}'
  rm -rf "$out" "$out.err"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
if [ -n "${BASE_REFEREE:-}" ]; then
  without=("$BASE_REFEREE")
  label="$BASE_REFEREE"
else
  without=("$referee" --think-on-opponent-time)
  label="--think-on-opponent-time"
fi
echo "demo tournament, default concurrency, $trials interleaved trials; without the guard: $label"
on=() off=() ratios=()
for ((i = 1; i <= trials; i++)); do
  if ((i % 2)); then on+=("$(run "$referee")"); off+=("$(run "${without[@]}")")
  else off+=("$(run "${without[@]}")"); on+=("$(run "$referee")"); fi
  ratios+=("$(awk -v a="${on[-1]}" -v b="${off[-1]}" 'BEGIN{printf "%.3f", a / b}')")
  printf 'trial %d: guard %8.2f matches/s, without %8.2f, ratio %.3f\n' "$i" "${on[-1]}" "${off[-1]}" "${ratios[-1]}"
done
a=$(printf '%s\n' "${on[@]}" | median)
b=$(printf '%s\n' "${off[@]}" | median)
printf 'median matches/s: guard %.2f, without %.2f; ratio of the medians %.3f, median of the trial ratios %.3f (target >= 0.95)\n' \
  "$a" "$b" "$(awk -v x="$a" -v y="$b" 'BEGIN{printf "%.3f", x / y}')" "$(printf '%s\n' "${ratios[@]}" | median)"
