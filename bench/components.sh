#!/usr/bin/env bash
# What each of the referee's guarantees costs per decision: the random-mover tournament of
# bench/per_decision.sh at concurrency 1, pinned, with the defaults and with one component
# switched off at a time (the sandbox, which also gives each bot a user id of its own when the
# referee runs as root; the per-bot cgroups; the grouping of fsyncs, by syncing each match at
# once instead). The variants take turns in an order that rotates each trial; printed: each
# trial, then the medians of µs and of CPU µs per decision (the referee and every process
# reaped below it: sandboxed bots' CPU is not in it, see bench/per_decision.sh, so the CPU of
# --no-sandbox, which includes the bots', is not comparable), and each median's ratio to the
# defaults'. The outstanding read of protocol 2 is
# compared by `bench_referee --bot raw2` against `--bot raw` (bench/README.md). Usage:
#   bash bench/components.sh [BUILD_DIR] [TRIALS] [MATCHES]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-5}
matches=${3:-40}
referee="$root/$build/referee/referee"
bot="$root/$build/sample_bots/random_bot"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/random.txtpb" << EOF
name: "random-movers"
format: FORMAT_TWO_PLAYERS
bots { name: "random-a" command: "$bot" args: "--seed" args: "1" }
bots { name: "random-b" command: "$bot" args: "--seed" args: "2" }
matches_per_pairing: $matches
seed: 2026
EOF

names=("defaults" "--no-sandbox" "--no-cgroups" "--sync-interval-ms 0")
flags=("" "--no-sandbox" "--no-cgroups" "--sync-interval-ms 0")

# Runs the tournament once with flags $1; prints "µs_per_decision cpu_µs_per_decision".
run() {
  local out="$work/out-$RANDOM"
  local -a f
  read -ra f <<< "$1"
  /usr/bin/time -o "$out.time" -f '%e %U %S' "$referee" tournament "$work/random.txtpb" \
    --out "$out" -j 1 -q "${f[@]}" > /dev/null 2> "$out.err" || { cat "$out.err" >&2; exit 1; }
  local decisions
  decisions=$(cat "$out"/matches/*.jsonl | grep -o '"play":{"hand' | wc -l)
  read -r wall user sys < <(tail -1 "$out.time")
  awk -v w="$wall" -v u="$user" -v s="$sys" -v d="$decisions" \
    'BEGIN{printf "%.2f %.2f\n", w * 1e6 / d, (u + s) * 1e6 / d}'
  rm -rf "$out" "$out.time" "$out.err"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

declare -A wall cpu
n=${#names[@]}
echo "components, concurrency 1 pinned, $matches matches a run, $trials trials, commit" \
  "$(git rev-parse --short HEAD 2> /dev/null || echo '?'), $(date -u '+%F %H:%M UTC'), load average" \
  "at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((t = 0; t < trials; t++)); do
  line="trial $((t + 1)):"
  for ((k = 0; k < n; k++)); do
    v=$(((t + k) % n))
    read -r us cpu_us < <(run "${flags[$v]}")
    wall[$v]+="$us "
    cpu[$v]+="$cpu_us "
    line+=" ${names[$v]} $us µs (CPU $cpu_us);"
  done
  echo "$line"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %12s %8s %12s %8s\n' variant "µs/decision" ratio "CPU µs" ratio
w0=$(tr ' ' '\n' <<< "${wall[0]}" | grep . | median)
c0=$(tr ' ' '\n' <<< "${cpu[0]}" | grep . | median)
for ((v = 0; v < n; v++)); do
  w=$(tr ' ' '\n' <<< "${wall[$v]}" | grep . | median)
  c=$(tr ' ' '\n' <<< "${cpu[$v]}" | grep . | median)
  printf '%-22s %12s %8.3f %12s %8.3f\n' "${names[$v]}" "$w" "$(awk -v a="$w" -v b="$w0" 'BEGIN{print a / b}')" \
    "$c" "$(awk -v a="$c" -v b="$c0" 'BEGIN{print a / b}')"
done
