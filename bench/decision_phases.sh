#!/usr/bin/env bash
# Where the wall time of a decision goes, phase by phase, in the referee and in the alternating
# echo of bench_referee (the same transport doing nothing but round trips). Builds this commit
# with bench/decision_phases.patch applied (a clock read at each phase boundary of
# referee/match/match_runner.cpp and MatchStream::exchange, summed per phase and printed at
# exit) in a temporary worktree, then runs `bench_referee --only referee` and `--only echo2`
# alternately and prints each phase's median over the runs, per decision and per match.
# Usage, from the repository root:
#   bash bench/decision_phases.sh [RUNS] [BENCH_REFEREE_FLAGS...]
# RUNS defaults to 5 (each about 2 s of play). The patched build is not this build: each clock
# read costs about 30 ns, 14 of them a decision, so the phases add up to a little more than the
# unpatched referee's figure. The worktree is removed at the end; ccache, if installed, makes
# the second build of a commit quick.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
work=$(mktemp -d "${TMPDIR:-/tmp}/decision-phases-XXXXXX")
cleanup() {
  git worktree remove --force "$work/src" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"  # the sandboxed bots run under their own user ids and start from here
git worktree add --detach "$work/src" HEAD > /dev/null 2>&1
git -C "$work/src" apply "$(pwd)/bench/decision_phases.patch" ||
  { echo "bench/decision_phases.patch no longer applies to this commit: update its marks" >&2; exit 1; }
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
echo "building the instrumented bench_referee in $work/build ..." >&2
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "${launcher[@]}" > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; exit 1; }
ninja -C "$work/build" bench_referee random_bot misbehaving_bot > "$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log" >&2; exit 1; }
source bench/median.sh
bench=$work/build/bench/bench_referee
for ((i = 1; i <= runs; i++)); do
  for which in referee echo2; do
    # The echo without the warm-up match, whose decisions would count in its exchange phases.
    extra=()
    [[ $which == echo2 ]] && extra=(--no-warm-up)
    out=$("$bench" --only "$which" --rounds 3 "${extra[@]}" "$@" 2>&1) || { echo "$out" >&2; exit 1; }
    awk -v w="$which" '/^phase /{print w, $2, $3, $4}
      /^  med/{print w, "whole(bench_referee_median)", (w == "referee" ? $2 : $8), 0}' \
      <<< "$out" >> "$work/phases.txt"
  done
  echo "run $i of $runs done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "phase medians over $runs runs, µs (decision.* and exchange.*: per decision or round trip;"
echo "match.*: per match; the referee's matches average $(awk '$1=="referee" && $2=="decision.exchange"{d=$4} $1=="referee" && $2=="match.result"{m=$4} END{if(m) printf "%.0f", d/m}' "$work/phases.txt") decisions, counted over the whole run)"
printf '%-8s %-34s %10s\n' side phase median
for side in referee echo2; do
  awk -v s="$side" '$1==s{print $2}' "$work/phases.txt" | awk '!seen[$0]++' | while read -r phase; do
    m=$(awk -v s="$side" -v p="$phase" '$1==s && $2==p{print $3}' "$work/phases.txt" | median)
    printf '%-8s %-34s %10.2f\n' "$side" "$phase" "$m"
  done
done
