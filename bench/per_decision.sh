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
#   With FASTCHESS=PATH and UCI_ENGINE=PATH in the environment (--marginal only), each trial
#     also runs fastchess with the variant's concurrency and pinning (-use-affinity), the engine
#     against itself at 100 and 1000 games, just before the referee's runs: µs per ply = the
#     difference of the two runs' times to their last finished game over the difference of
#     their plies (fastchess waits for its engines after the last game; bench/README.md, "Like
#     for like"). fastchess is not a dependency: bench/random_uci.cpp is the random mover the
#     figures in bench/README.md used, built against fastchess's own move generator.
# Per decision = wall time / decisions (the plays in the match logs), so at concurrency 2 it is
# the cost of a decision in throughput, as a ply is in a runner's concurrency-2 figure. The
# CPU column is user + system time of the referee and of every process reaped below it (its
# workers, and bots started with --no-sandbox), per decision. A sandboxed bot's CPU is not in
# it: the bot ends inside bubblewrap's PID namespace and no waiting parent adds its time (with
# --no-sandbox the column covers the bots too, so it is not comparable with the others). Usage,
# from the repository root after scripts/setup.sh, best on a machine with nothing else running:
#   bash bench/per_decision.sh [BUILD_DIR] [TRIALS] [MATCHES] [--components|--marginal]
# BUILD_DIR defaults to build, TRIALS to 9, MATCHES to 40.
#   FASTCHESS=~/fastchess/fastchess UCI_ENGINE=~/random_uci bash bench/per_decision.sh build 8 40 --marginal
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
against=""
if [[ -n ${FASTCHESS:-} || -n ${UCI_ENGINE:-} ]]; then
  if [[ $mode != --marginal || ! -x ${FASTCHESS:-} || ! -x ${UCI_ENGINE:-} ]]; then
    echo "per_decision.sh: FASTCHESS and UCI_ENGINE must both name programs, with --marginal" >&2
    exit 2
  fi
  against=fastchess
fi

# fastchess's engine against itself: ROUNDS rounds of 2 games at concurrency C, more flags
# after; prints "µs_to_its_last_finished_game plies".
fastchess_once() {
  local c=$1 rounds=$2 dir
  shift 2
  dir=$(mktemp -d -p "$work")
  local start=$EPOCHREALTIME last=""
  while IFS= read -r line; do
    [[ $line == *"Finished game"* ]] && last=$EPOCHREALTIME
  done < <(cd "$dir" && "$FASTCHESS" -engine cmd="$UCI_ENGINE" name=a -engine cmd="$UCI_ENGINE" \
    name=b -each tc=10+1 -rounds "$rounds" -games 2 -concurrency "$c" "$@" \
    -pgnout file=g.pgn notation=uci 2>&1)
  local plies
  plies=$(grep -v '^\[' "$dir/g.pgn" | tr '\n' ' ' | sed 's/{[^}]*}//g' | tr -s ' ' '\n' |
    grep -cE '^[a-h][1-8][a-h][1-8][qrbn]?$' || true)
  [[ -n $last && $plies -gt 0 ]] || { echo "per_decision.sh: fastchess played nothing" >&2; exit 1; }
  awk -v s="$start" -v l="$last" -v p="$plies" 'BEGIN{printf "%.0f %d\n", (l - s) * 1e6, p}'
  rm -rf "$dir"
}

# fastchess at the referee's variant $1 (its -j and --no-affinity): µs per ply, 100 against
# 1000 games.
fastchess_per_ply() {
  local c=1 pin=(-use-affinity) t0 p0 t1 p1
  [[ $1 == *"-j 2"* ]] && c=2
  [[ $1 == *--no-affinity* ]] && pin=()
  read -r t0 p0 < <(fastchess_once "$c" 50 "${pin[@]}")
  read -r t1 p1 < <(fastchess_once "$c" 500 "${pin[@]}")
  awk -v a="$t0" -v b="$t1" -v p="$p0" -v q="$p1" 'BEGIN{printf "%.2f\n", (b - a) / (q - p)}'
}

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

declare -A wall cpu fast against_ratio
n=${#names[@]}
echo "per decision, random_bot vs random_bot, $matches matches a run${mode:+ ($mode)}, $trials trials, $(nproc) CPUs," \
  "commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'), $(date -u '+%F %H:%M UTC')," \
  "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((t = 0; t < trials; t++)); do
  line="trial $((t + 1)):"
  for ((k = 0; k < n; k++)); do
    v=$(((t + k) % n))
    fc=""
    [[ -n $against ]] && fc=$(fastchess_per_ply "${flags[$v]}")
    read -r us cpu_us decisions < <(run "${flags[$v]}")
    wall[$v]+="$us "
    cpu[$v]+="$cpu_us "
    line+=" ${names[$v]} $us µs (CPU $cpu_us, $decisions decisions"
    if [[ -n $fc ]]; then
      fast[$v]+="$fc "
      against_ratio[$v]+="$(ratio "$us" "$fc") "
      line+="; fastchess $fc µs a ply"
    fi
    line+=");"
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
if [[ -n $against ]]; then
  printf '%-22s %24s %36s\n' variant "fastchess µs/ply (median)" "referee / fastchess (median of trials)"
  for ((v = 0; v < n; v++)); do
    printf '%-22s %24s %36s\n' "${names[$v]}" "$(tr ' ' '\n' <<< "${fast[$v]}" | grep . | median)" \
      "$(tr ' ' '\n' <<< "${against_ratio[$v]}" | grep . | median)"
  done
fi
