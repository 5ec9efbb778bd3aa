#!/usr/bin/env bash
# Microseconds per decision of a random-mover tournament, the figure to set beside another
# runner's microseconds per ply (bench/README.md, "Where a decision's cost went"): two SDK
# random_bots, a 2-player round robin of MATCHES matches, played by `referee tournament` with
# the defaults (sandboxed, logged, fsync grouping). The variants take turns, in an order that
# rotates each trial, TRIALS times; every trial is printed, then the medians and each median's
# ratio to the first variant's.
#   default variants: concurrency 1 and 2, each pinned (the default: each worker and its bots
#     on one CPU) and unpinned (--no-affinity);
#   --components: concurrency 1 pinned, with the defaults and with one guarantee switched off
#     at a time (the sandbox, which also gives each bot a user id of its own when the referee
#     runs as root; the per-bot cgroups; the grouping of fsyncs, by syncing each match at once);
#   --marginal: the default variants, each run at MATCHES and at 10 x MATCHES, per decision =
#     the difference of the two runs' times over the difference of their decisions: what a
#     decision costs once the start-up and the end are cancelled (set it beside a runner's
#     runs of two lengths measured the same way; bench/README.md, "Like for like").
# Per decision = wall time / decisions (the plays in the match logs), so at concurrency 2 it is
# the cost of a decision in throughput, as a ply is in a runner's concurrency-2 figure. The
# CPU column is user + system time of the referee and of every process reaped below it (its
# workers, and bots started with --no-sandbox), per decision. A sandboxed bot's CPU is not in
# it: the bot ends inside bubblewrap's PID namespace and no waiting parent adds its time (with
# --no-sandbox the column covers the bots too, so it is not comparable with the others). Usage,
# from the repository root after scripts/setup.sh, best on a machine with nothing else running:
#   bash bench/per_decision.sh [BUILD_DIR] [TRIALS] [MATCHES] [--components|--marginal]
# BUILD_DIR defaults to build, TRIALS to 9, MATCHES to 40.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-9}
matches=${3:-40}
mode=${4:-}
referee="$root/$build/referee/referee"
bot="$root/$build/sample_bots/random_bot"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tournament FILE MATCHES: the random movers' tournament of MATCHES matches.
tournament() {
  cat > "$1" << EOF
name: "random-movers"
format: FORMAT_TWO_PLAYERS
bots { name: "random-a" command: "$bot" args: "--seed" args: "1" }
bots { name: "random-b" command: "$bot" args: "--seed" args: "2" }
matches_per_pairing: $2
seed: 2026
move_time_ms: 1000
time_bank_ms: 5000
EOF
}
tournament "$work/random.txtpb" "$matches"
tournament "$work/random-long.txtpb" $((matches * 10))

# Each variant: a name, and the flags of `referee tournament` (-j first).
if [[ $mode == --components ]]; then
  names=("defaults" "--no-sandbox" "--no-cgroups" "--sync-interval-ms 0")
  flags=("-j 1" "-j 1 --no-sandbox" "-j 1 --no-cgroups" "-j 1 --sync-interval-ms 0")
elif [[ -z $mode || $mode == --marginal ]]; then
  names=("c1 pinned" "c1 unpinned" "c2 pinned" "c2 unpinned")
  flags=("-j 1" "-j 1 --no-affinity" "-j 2" "-j 2 --no-affinity")
else
  echo "per_decision.sh: the fourth argument may only be --components or --marginal, not '$mode'" >&2
  exit 2
fi

# Runs tournament file $2 once with flags $1; prints "wall_s cpu_s decisions".
run_once() {
  local out="$work/out-$RANDOM"
  local -a f
  read -ra f <<< "$1"
  /usr/bin/time -o "$out.time" -f '%e %U %S' "$referee" tournament "$2" \
    --out "$out" -q "${f[@]}" > /dev/null 2> "$out.err" || { cat "$out.err" >&2; exit 1; }
  local decisions
  decisions=$(cat "$out"/matches/*.jsonl | grep -o '"play":{"hand' | wc -l)
  read -r wall user sys < <(tail -1 "$out.time")
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN{print u + s}') $decisions"
  rm -rf "$out" "$out.time" "$out.err"
}

# Runs the variant with flags $1; prints "µs_per_decision cpu_µs_per_decision decisions" (with
# --marginal, those of the long run less the short one's).
run() {
  local w0=0 c0=0 d0=0 w c d
  if [[ $mode == --marginal ]]; then
    read -r w0 c0 d0 < <(run_once "$1" "$work/random.txtpb")
    read -r w c d < <(run_once "$1" "$work/random-long.txtpb")
  else
    read -r w c d < <(run_once "$1" "$work/random.txtpb")
  fi
  awk -v w="$w" -v c="$c" -v d="$d" -v w0="$w0" -v c0="$c0" -v d0="$d0" \
    'BEGIN{printf "%.2f %.2f %d\n", (w - w0) * 1e6 / (d - d0), (c - c0) * 1e6 / (d - d0), d - d0}'
}

source bench/median.sh
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", a / b}'; }

declare -A wall cpu
n=${#names[@]}
echo "per decision, random_bot vs random_bot, $matches matches a run${mode:+ ($mode)}, $trials trials, $(nproc) CPUs," \
  "commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'), $(date -u '+%F %H:%M UTC')," \
  "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((t = 0; t < trials; t++)); do
  line="trial $((t + 1)):"
  for ((k = 0; k < n; k++)); do
    v=$(((t + k) % n))
    read -r us cpu_us decisions < <(run "${flags[$v]}")
    wall[$v]+="$us "
    cpu[$v]+="$cpu_us "
    line+=" ${names[$v]} $us µs (CPU $cpu_us, $decisions decisions);"
  done
  echo "$line"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %20s %8s %18s %8s\n' variant "µs/decision (median)" ratio "CPU µs (median)" ratio
w0=$(tr ' ' '\n' <<< "${wall[0]}" | grep . | median)
c0=$(tr ' ' '\n' <<< "${cpu[0]}" | grep . | median)
for ((v = 0; v < n; v++)); do
  w=$(tr ' ' '\n' <<< "${wall[$v]}" | grep . | median)
  c=$(tr ' ' '\n' <<< "${cpu[$v]}" | grep . | median)
  printf '%-22s %20s %8s %18s %8s\n' "${names[$v]}" "$w" "$(ratio "$w" "$w0")" "$c" "$(ratio "$c" "$c0")"
done
