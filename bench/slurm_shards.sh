#!/bin/bash
# Throughput of a tournament as a Slurm job array of 1 shard and of 4 shards on this machine:
# a private single-node cluster (scripts/cluster/slurm_local.sh, as root) runs
# scripts/cluster/slurm_array.sh with one CPU a task, so 4 shards play as many at once as the
# node has CPUs. Trials alternate 1 and 4 shards; prints each trial's wall time from sbatch to
# the job's end (the queue polled every 100 ms) and matches/s, then the medians and their
# ratio. A figure, not a test: it asserts nothing. Needs root, slurm-wlm and munge (scripts/setup.sh).
#
#   sudo bash bench/slurm_shards.sh [BUILD_DIR] [TRIALS] [MATCHES_PER_PAIRING] [REFEREE_FLAGS...]
set -euo pipefail
build=$(realpath "${1:-build}")
trials=${2:-3}
per=${3:-100}
shift 3 || shift $#
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/allfives-slurm-bench-XXXXXX")
cleanup() {
  bash "$here/scripts/cluster/slurm_local.sh" stop "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash "$here/scripts/cluster/slurm_local.sh" start "$work/cluster" --owner $$ >/dev/null
export SLURM_CONF=$work/cluster/slurm.conf REFEREE=$build/referee/referee
file=$work/t.txtpb
cat >"$file" <<TXT
name: "slurm-bench"
format: FORMAT_TWO_PLAYERS
bots { name: "greedy" command: "$build/sample_bots/greedy_bot" }
bots { name: "heavy" command: "$build/sample_bots/heavy_bot" }
bots { name: "random" command: "$build/sample_bots/random_bot" args: "--seed" args: "5" }
matches_per_pairing: $per
seed: 3
TXT
matches=$((3 * per))
ones=() fours=()
for ((t = 1; t <= trials; t++)); do
  for shards in 1 4; do
    out=$work/results-$t-$shards
    start=$(date +%s%N)
    job=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 --chdir="$work" \
      --output="$work/task-%A_%a.out" "$here/scripts/cluster/slurm_array.sh" "$file" "$out" \
      --no-affinity -q "$@")
    # Polled every 100 ms: `sbatch --wait` looks only every 10 s, which would be the figure.
    while [ -n "$(squeue -h -j "${job%%;*}" -o %i 2>/dev/null)" ]; do sleep 0.1; done
    ms=$((($(date +%s%N) - start) / 1000000))
    got=$(cat "$out"/shard-*/index.jsonl | wc -l)
    rate=$(awk -v m="$got" -v ms="$ms" 'BEGIN { printf "%.1f", m * 1000 / ms }')
    echo "trial $t: $shards shard(s): $got of $matches matches in $ms ms: $rate matches/s"
    if ((shards == 1)); then ones+=("$rate"); else fours+=("$rate"); fi
  done
done
source "$here/bench/median.sh"
m1=$(printf '%s\n' "${ones[@]}" | median)
m4=$(printf '%s\n' "${fours[@]}" | median)
echo "median matches/s: 1 shard $m1, 4 shards $m4, ratio $(awk -v a="$m4" -v b="$m1" 'BEGIN { printf "%.2f", a / b }') ($(nproc) CPUs)"
