#!/bin/bash
# A tournament as a Slurm job array: array task I plays shard I/N into RESULTS/shard-I
# (docs/CLUSTER.md). From the repository's folder, for 8 shards:
#
#   sbatch --array=0-7 scripts/cluster/slurm_array.sh tournaments/demo.txtpb results
#   build/referee/referee standings results/shard-* --out results    # once all tasks ended
#
# N is the number of tasks of the array, whose ids must be 0..N-1; SHARDS=N says it when only
# some tasks are submitted again (SHARDS=8 sbatch --array=5 ...). Every task runs with
# --resume: a task that Slurm requeues, or that is submitted again, keeps the matches its
# folder holds and plays the others. Arguments after RESULTS go to `referee tournament`
# (e.g. --no-affinity where Slurm does not bind tasks to their CPUs). REFEREE names the
# referee program (default: build/referee/referee in the folder sbatch was run from).
# Options given to sbatch override the defaults below.
#SBATCH --job-name=allfives
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

if (($# < 2)); then
  echo "usage: sbatch --array=0-<N-1> slurm_array.sh TOURNAMENT RESULTS [referee tournament flags...]" >&2
  exit 2
fi
tournament=$1
results=$2
shift 2
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  echo "slurm_array.sh: not a Slurm array task; submit it with sbatch --array=0-<N-1>" >&2
  exit 2
fi
task=$SLURM_ARRAY_TASK_ID
shards=${SHARDS:-}
if [ -z "$shards" ]; then
  if [ "${SLURM_ARRAY_TASK_MIN:?}" -ne 0 ] ||
    [ $((${SLURM_ARRAY_TASK_MAX:?} + 1)) -ne "${SLURM_ARRAY_TASK_COUNT:?}" ]; then
    echo "slurm_array.sh: the array's ids are $SLURM_ARRAY_TASK_MIN..$SLURM_ARRAY_TASK_MAX" \
      "($SLURM_ARRAY_TASK_COUNT tasks), not 0..N-1: set SHARDS=N" >&2
    exit 2
  fi
  shards=$SLURM_ARRAY_TASK_COUNT
fi
referee=${REFEREE:-${SLURM_SUBMIT_DIR:-.}/build/referee/referee}

echo "allfives: job ${SLURM_ARRAY_JOB_ID:-?} task $task on $(hostname -s): shard $task/$shards" \
  "of $tournament -> $results/shard-$task"
exec "$referee" tournament "$tournament" -j "${SLURM_CPUS_PER_TASK:-1}" --resume \
  --shard "$task/$shards" --out "$results/shard-$task" "$@"
