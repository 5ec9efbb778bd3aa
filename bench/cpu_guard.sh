#!/usr/bin/env bash
# What the CPU guard (referee/match/cpu_guard.h) buys and costs. First, strong_bot (--simulations
# SIMS) plays MATCHES full matches three ways, each a 2-player tournament at -j 1 (the worker and
# its bots on one CPU, the hog's best case), against tests/bots/hostile_bot, which plays the
# first legal play: alone (--mode none, nothing else), against the hog (--mode hog, four
# threads spinning from its first match on) with the guard (the default), and against the hog
# with --think-on-opponent-time --cpu-percent 0 (no guard, no quota). The deals and plays are
# the same in all three. The three are interleaved: ROUNDS rounds, each playing all three in a
# rotating order, so that the machine's other load falls on all of them alike. For each it
# prints strong's decisions over all rounds: count, median, 99th percentile and maximum
# decision time, and forfeits; then the median over the rounds of each round's
# median(guarded) / median(alone) (target: within 10%, no forfeit).
# Then the demo tournament with the guard (the default) and with --think-on-opponent-time
# --cpu-percent 0 (the same bots, no quota on either side: only the guard differs), TRIALS times
# each, interleaved: median matches/s and CPU seconds of both and the median of the trial
# ratios (target: the guard costs at most 5%). With BASE_REFEREE set (a build without the
# guard), the demo is compared with it instead. Usage, from the repository root after
# scripts/setup.sh (as root for the CPU figures: bench/cgroup_cpu.sh):
#   bash bench/cpu_guard.sh [BUILD_DIR] [SIMS] [MATCHES] [TRIALS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
sims=${2:-3000}
matches=${3:-4}
trials=${4:-9}
rounds=${5:-5}
referee="$root/$build/referee/referee"
work=$(mktemp -d)
source bench/cgroup_cpu.sh
trap 'rm -rf "$work"; cpu_cgroup_done' EXIT

echo "cpu guard, $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
  "$(date -u '+%Y-%m-%d %H:%M UTC'), load $(load_average)"

# A tournament of strong against OPPONENT (a bots { } entry) into FOLDER; appends strong's
# decision times (ms, one a line) to $work/NAME.times and its forfeits to $work/NAME.forfeits.
victim() {
  local name=$1 opponent=$2 round=$3
  shift 3
  local folder="$work/$name-$round"
  cat > "$folder.txtpb" << EOF
name: "$name"
format: FORMAT_TWO_PLAYERS
bots { name: "strong" command: "$root/$build/sample_bots/strong_bot" args: "--simulations" args: "$sims" }
$opponent
matches_per_pairing: $matches
seed: 11
move_time_ms: 1000
time_bank_ms: 5000
EOF
  "$referee" tournament "$folder.txtpb" --out "$folder" -j 1 -q "$@" > /dev/null 2>&1
  /usr/bin/python3 - "$folder" "$work/$name" << 'PY'
import json, os, sys
folder, out = sys.argv[1], sys.argv[2]
times, forfeits = [], 0
for f in sorted(os.listdir(folder + "/matches")):
    seat = None
    for line in open(folder + "/matches/" + f):
        r = json.loads(line)
        if "header" in r:
            seat = [b["seat"] for b in r["header"]["bots"] if b["display_name"] == "strong"][0]
        elif "play" in r and r["play"]["seat"] == seat:
            times.append(int(r["play"]["decision_time_us"]) / 1000)
        elif "fault" in r and r["fault"]["seat"] == seat:
            forfeits += 1
with open(out + ".times", "a") as t:
    t.write("".join(f"{x}\n" for x in times))
with open(out + ".rounds", "a") as t:
    times.sort()
    t.write(f"{times[len(times) // 2] if times else float('nan')}\n")
with open(out + ".forfeits", "a") as t:
    t.write(f"{forfeits}\n")
PY
  rm -rf "$folder"
}

honest="bots { name: \"hog\" command: \"$root/$build/tests/hostile_bot\" args: \"--mode\" args: \"none\" }"
hog="bots { name: \"hog\" command: \"$root/$build/tests/hostile_bot\" args: \"--mode\" args: \"hog\" args: \"--threads\" args: \"4\" }"
echo "strong_bot --simulations $sims, $matches matches a run, $rounds interleaved rounds, -j 1:"
order=(alone guarded unguarded)
for ((r = 1; r <= rounds; r++)); do
  for ((k = 0; k < 3; k++)); do
    case ${order[(k + r) % 3]} in
      alone) victim alone "$honest" "$r" ;;
      guarded) victim guarded "$hog" "$r" ;;
      unguarded) victim unguarded "$hog" "$r" --think-on-opponent-time --cpu-percent 0 ;;
    esac
  done
done
/usr/bin/python3 - "$work" << 'PY'
import statistics, sys
work = sys.argv[1]
read = lambda name, ext: [float(x) for x in open(f"{work}/{name}.{ext}")]
for name in ("alone", "guarded", "unguarded"):
    t = sorted(read(name, "times"))
    pick = lambda q: t[min(len(t) - 1, int(q * len(t)))] if t else float("nan")
    print(f"{name:>10}: {len(t)} decisions of strong: median {pick(0.5):.1f} ms, "
          f"p99 {pick(0.99):.1f} ms, max {t[-1] if t else float('nan'):.1f} ms; "
          f"per-round medians {' '.join(f'{x:.1f}' for x in read(name, 'rounds'))}; "
          f"strong forfeited {int(sum(read(name, 'forfeits')))}")
alone = read("alone", "rounds")
for name in ("guarded", "unguarded"):
    ratios = [x / a for x, a in zip(read(name, "rounds"), alone)]
    print(f"{name} / alone, median of the rounds' median ratios: {statistics.median(ratios):.3f} "
          f"({' '.join(f'{x:.3f}' for x in ratios)}; target for guarded <= 1.10)")
PY

# The demo: matches/s and CPU, with the guard and without.
sed "s|\.\./build/|$root/$build/|" tournaments/demo.txtpb > "$work/demo.txtpb"
# Prints "matches_per_second cpu_seconds".
run() {
  local out="$work/out-$RANDOM$RANDOM" cpu
  cpu_timed cpu "$1" tournament "$work/demo.txtpb" --out "$out" -q "${@:2}" > /dev/null 2> "$out.err"
  awk -v m="$(wc -l < "$out/index.jsonl")" -v t="$CPU_WALL" -v c="$cpu" 'BEGIN{printf "%.2f %.3f\n", m / t, c}'
  rm -rf "$out" "$out.err"
}
source bench/median.sh
if [ -n "${BASE_REFEREE:-}" ]; then
  without=("$BASE_REFEREE")
  label="$BASE_REFEREE"
else
  without=("$referee" --think-on-opponent-time --cpu-percent 0)
  label="--think-on-opponent-time --cpu-percent 0"
fi
cpu_cgroup_init
echo "demo tournament, default concurrency, $trials interleaved trials; without the guard: $label"
on=() off=() ratios=() cpu_on=() cpu_off=()
for ((i = 1; i <= trials; i++)); do
  if ((i % 2)); then
    read -r a ca < <(run "$referee")
    read -r b cb < <(run "${without[@]}")
  else
    read -r b cb < <(run "${without[@]}")
    read -r a ca < <(run "$referee")
  fi
  on+=("$a") off+=("$b") cpu_on+=("$ca") cpu_off+=("$cb")
  ratios+=("$(awk -v x="$a" -v y="$b" 'BEGIN{printf "%.3f", x / y}')")
  printf 'trial %d: guard %8.2f matches/s (CPU %.2f s), without %8.2f (CPU %.2f s), ratio %.3f\n' \
    "$i" "$a" "$ca" "$b" "$cb" "${ratios[-1]}"
done
a=$(printf '%s\n' "${on[@]}" | median)
b=$(printf '%s\n' "${off[@]}" | median)
printf 'median matches/s: guard %.2f, without %.2f; ratio of the medians %.3f, median of the trial ratios %.3f (target >= 0.95)\n' \
  "$a" "$b" "$(awk -v x="$a" -v y="$b" 'BEGIN{printf "%.3f", x / y}')" "$(printf '%s\n' "${ratios[@]}" | median)"
ca=$(printf '%s\n' "${cpu_on[@]}" | median)
cb=$(printf '%s\n' "${cpu_off[@]}" | median)
printf 'median CPU seconds a run: guard %.2f, without %.2f (%.3fx); load %s\n' \
  "$ca" "$cb" "$(awk -v x="$ca" -v y="$cb" 'BEGIN{printf "%.3f", x / y}')" "$(load_average)"
