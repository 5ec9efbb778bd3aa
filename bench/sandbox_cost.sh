#!/usr/bin/env bash
# What the sandbox costs: the demo tournament sandboxed (the default) and with --no-sandbox,
# TRIALS times each, interleaved (the order alternates), at the default concurrency; prints every
# trial (wall, CPU of everything the run started, bot processes started), the median matches per
# second of both, the median of the trial ratios (target >= 0.97) and the median CPU seconds of
# both, with the load average before and after; then each bot's extra start-up
# (bench_sandbox_startup; target <= 20 ms) and bubblewrap's own start by namespace; and the floor
# of any bubblewrap sandbox on this machine (the CPU its smallest start adds). Usage, from
# the repository root after scripts/setup.sh (as root for the CPU figures: bench/cgroup_cpu.sh):
#   bash bench/sandbox_cost.sh [BUILD_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
trials=${2:-7}
referee=${REFEREE:-$build/referee/referee}  # REFEREE: another build's referee, same bots
work=$(mktemp -d)
source bench/cgroup_cpu.sh
trap 'rm -rf "$work"; cpu_cgroup_done' EXIT
sed "s|\.\./build/|$root/$build/|" tournaments/demo.txtpb > "$work/demo.txtpb"

# Runs the demo; prints "wall_seconds matches cpu_seconds started".
run() {
  local out="$work/out-$RANDOM$RANDOM" cpu
  cpu_timed cpu "$referee" tournament "$work/demo.txtpb" --out "$out" -q "$@" > /dev/null 2> "$out.err"
  echo "$CPU_WALL $(wc -l < "$out/index.jsonl") $cpu $(sed -n 's/^bot processes started: \([0-9]*\).*/\1/p' "$out.err")"
  rm -rf "$out" "$out.err"
}
source bench/median.sh
rate() { awk -v m="$1" -v t="$2" 'BEGIN{printf "%.3f", m / t}'; }

echo "demo tournament, $(nproc) cores, $trials trials each (interleaved), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(load_average)"
cpu_cgroup_init
boxed=() bare=() ratios=() cpu_boxed=() cpu_bare=() started_boxed=()
for ((i = 1; i <= trials; i++)); do
  if ((i % 2)); then
    read -r ts ms cs ps < <(run)
    read -r tn mn cn pn < <(run --no-sandbox)
  else
    read -r tn mn cn pn < <(run --no-sandbox)
    read -r ts ms cs ps < <(run)
  fi
  boxed+=("$(rate "$ms" "$ts")")
  bare+=("$(rate "$mn" "$tn")")
  cpu_boxed+=("$cs")
  started_boxed+=("$ps")
  cpu_bare+=("$cn")
  ratios+=("$(awk -v a="${boxed[-1]}" -v b="${bare[-1]}" 'BEGIN{printf "%.3f", a / b}')")
  printf 'trial %d: sandboxed %d matches in %.2f s = %.2f/s (CPU %.2f s, %s bots started); --no-sandbox %d in %.2f s = %.2f/s (CPU %.2f s, %s started); ratio %.3f\n' \
    "$i" "$ms" "$ts" "${boxed[-1]}" "$cs" "$ps" "$mn" "$tn" "${bare[-1]}" "$cn" "$pn" "${ratios[-1]}"
done
b=$(printf '%s\n' "${boxed[@]}" | median)
n=$(printf '%s\n' "${bare[@]}" | median)
printf 'median matches/s: sandboxed %.2f, --no-sandbox %.2f; ratio of the medians %.3f, median of the trial ratios %.3f (target >= 0.97)\n' \
  "$b" "$n" "$(awk -v a="$b" -v c="$n" 'BEGIN{printf "%.3f", a / c}')" "$(printf '%s\n' "${ratios[@]}" | median)"
cb=$(printf '%s\n' "${cpu_boxed[@]}" | median)
cn=$(printf '%s\n' "${cpu_bare[@]}" | median)
printf 'median CPU seconds a run: sandboxed %.2f, --no-sandbox %.2f (%.3fx); load %s\n' \
  "$cb" "$cn" "$(awk -v a="$cb" -v c="$cn" 'BEGIN{printf "%.3f", a / c}')" "$(load_average)"

# The floor of any bubblewrap sandbox: the CPU a start of the smallest one (`--ro-bind / /`: a
# user and a mount namespace, one bind, bwrap's own exec) adds to the program alone, 100 starts
# of each, interleaved; and what that floor alone costs the demo, with the runs' median of bot
# starts and CPU: the best ratio any bwrap sandbox could reach on this machine while the demo
# keeps its CPUs busy.
starts=(bash -c 'for ((k = 0; k < 100; k++)); do "$@" > /dev/null 2>&1; done' starts)
bare_true=() boxed_true=()
for ((i = 1; i <= 3; i++)); do
  cpu_timed c "${starts[@]}" /bin/true
  bare_true+=("$c")
  cpu_timed c "${starts[@]}" bwrap --ro-bind / / /bin/true
  boxed_true+=("$c")
done
bt=$(printf '%s\n' "${bare_true[@]}" | median)
xt=$(printf '%s\n' "${boxed_true[@]}" | median)
started=$(printf '%s\n' "${started_boxed[@]}" | median)
awk -v b="$bt" -v x="$xt" -v n="$started" -v c="$cn" 'BEGIN{
  f = (x - b) * 10
  printf "the floor of a bwrap sandbox: /bin/true %.2f ms of CPU a start, in `bwrap --ro-bind / /` %.2f ms: %.2f ms more;\n", b * 10, x * 10, f
  printf "  at %d starts a run that alone is %.1f%% more than the demo'"'"'s unsandboxed CPU (%.2f s): %.3f of its speed where the demo keeps the CPUs busy\n", n, n * f / 10 / c, c, 1 / (1 + n * f / 1000 / c)}'

if [ ! -x "$build/bench/bench_sandbox_startup" ]; then
  echo "($build/bench/bench_sandbox_startup not built: no start-up figures)"
  exit 0
fi
bots=("$root/$build/sample_bots/greedy_bot")
[ -x "$build/sample_bots/greedy_py" ] && bots+=("$root/$build/sample_bots/greedy_py")
"$build/bench/bench_sandbox_startup" --reps 21 --options "${bots[@]}"
