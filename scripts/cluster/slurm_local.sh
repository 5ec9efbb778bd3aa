#!/usr/bin/env bash
# A private single-node Slurm cluster on this machine, for tests and for trying
# scripts/cluster/slurm_array.sh without a real cluster (docs/CLUSTER.md).
#
#   scripts/cluster/slurm_local.sh start DIR [--owner PID]
#   scripts/cluster/slurm_local.sh stop DIR
#
# start, as root: in DIR (made if missing; nothing outside it is written) makes a munge key,
# runs munged on its own socket, writes DIR/slurm.conf (this host as the only node, ports
# found free now, a cluster name of its own, no accounting, no cgroups), runs slurmctld and
# slurmd on that file, and returns once the node is idle (at most 60 s). Then:
#   SLURM_CONF=DIR/slurm.conf sbatch ... / squeue / scontrol
# Every daemon's PID is kept in DIR/pids/. With --owner PID, a watcher stops the cluster when
# process PID ends (a test killed before its own clean-up).
#
# stop cancels the cluster's jobs, waits for their steps to end, then stops the daemons start
# started, by their PIDs (SIGTERM, SIGKILL after 10 s). A failed start stops what it started.
# Two clusters in two folders run side by side: nothing (port, socket, file, name) is shared.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [--owner PID] | stop DIR" >&2
  exit 2
}
(($# >= 2)) || usage
cmd=$1
dir=$2
shift 2
owner=""
while (($#)); do
  case $1 in
    --owner) owner=${2:?--owner needs a PID}; shift 2 ;;
    *) usage ;;
  esac
done
[ "$cmd" = start ] || [ "$cmd" = stop ] || usage

say() { echo "slurm_local: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# --- PIDs ---------------------------------------------------------------------------------

# Whether process PID is alive and still the one started for this folder (its command line
# names the folder), so that a PID the system has reused is never signalled.
ours() {
  local pid=$1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
  case " $(tr '\0' ' ' <"/proc/$pid/cmdline") " in
    *" $dir "* | *" $dir/"* | *"=$dir/"*) return 0 ;;
  esac
  return 1
}

# Polls `condition` (a command) every 0.2 s for at most `seconds`.
wait_for() {
  local seconds=$1
  shift
  local tries=$((seconds * 5))
  while ((tries-- > 0)); do
    "$@" && return 0
    sleep 0.2
  done
  return 1
}

gone() { ! ours "$1"; }

# Stops the process whose PID is in DIR/pids/NAME, if it is still ours.
stop_daemon() {
  local name=$1 pid
  pid=$(cat "$dir/pids/$name" 2>/dev/null) || return 0
  if ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for 10 gone "$pid"; then
      say "$name (pid $pid) did not stop in 10 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      wait_for 5 gone "$pid" || say "$name (pid $pid) is still there"
    fi
  fi
  rm -f "$dir/pids/$name"
}

# slurmstepd processes of this cluster still running (a step leaves slurmd's process tree, so
# it is found by the files it holds open in DIR: its log and the job's spool folder).
steps_left() {
  local p f
  for p in /proc/[0-9]*; do
    [ "$(head -c 10 "$p/cmdline" 2>/dev/null | tr '\0' ' ')" = "slurmstepd" ] || continue
    for f in "$p"/fd/*; do
      case $(readlink "$f" 2>/dev/null) in
        "$dir"/*) echo "${p#/proc/}"; break ;;
      esac
    done
  done
}
no_steps_left() { [ -z "$(steps_left)" ]; }

queue_empty() { [ -z "$(SLURM_CONF=$dir/slurm.conf squeue -h -o %i 2>/dev/null)" ]; }

stop_cluster() {
  local ctld pid
  ctld=$(cat "$dir/pids/slurmctld" 2>/dev/null || true)
  if ours "$ctld"; then
    SLURM_CONF=$dir/slurm.conf scancel --user="$(id -un)" 2>/dev/null || true
    wait_for 30 queue_empty || say "jobs still queued after 30 s: $(SLURM_CONF=$dir/slurm.conf squeue -h 2>&1 | tr '\n' ' ')"
  fi
  if ! wait_for 20 no_steps_left; then
    for pid in $(steps_left); do
      say "job step (slurmstepd pid $pid) still running after 20 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    done
  fi
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
}

stop_watcher() {
  local pid
  pid=$(cat "$dir/pids/watcher" 2>/dev/null) || return 0
  if [ "$pid" != "$BASHPID" ] && ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_for 5 gone "$pid" || say "the watcher (pid $pid) did not stop"
  fi
  rm -f "$dir/pids/watcher"
}

if [ "$cmd" = stop ]; then
  [ -d "$dir/pids" ] || die "$dir: no cluster was started there (no $dir/pids)"
  dir=$(cd "$dir" && pwd)
  stop_watcher
  stop_cluster
  say "stopped the cluster in $dir"
  exit 0
fi

# --- start ------------------------------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs jobs as their users; munged and slurmd are started as root)"
for program in munged mungekey munge slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
  command -v "$program" >/dev/null || die "$program not found (scripts/setup.sh installs munge and slurm-wlm)"
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ ! -e "$dir/pids" ] || die "$dir holds a cluster already (stop it with: $0 stop $dir); start one in a new folder"
mkdir -m 700 "$dir/pids" "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"

failed() {
  local status=$?
  trap - EXIT
  if ((status != 0)); then
    say "start failed; the logs are in $dir/log"
    stop_watcher
    stop_cluster
  fi
  exit "$status"
}
trap failed EXIT

# The watcher first: an owner killed while this script still runs leaves nothing behind either.
if [ -n "$owner" ]; then
  kill -0 "$owner" 2>/dev/null || die "--owner $owner: no such process"
  # shellcheck disable=SC2016 # expanded by the watcher's own shell
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" stop "$3"' \
    watcher "$owner" "$(realpath "$0")" "$dir" </dev/null >>"$dir/log/watcher.out" 2>&1 &
  echo $! >"$dir/pids/watcher"
fi

# Every daemon runs in the foreground, so that the PID kept is its own, and in a session of its
# own (setsid, which does not fork here: a background job is no group leader), so that a
# signal to the caller's process group does not reach it; stop (or the watcher) ends it.
# munged on a socket of its own. --force: munged wants every folder above its socket to be
# searchable by all users, which a private folder is not; all its clients here are root.
mungekey --create --keyfile="$dir/munge/munge.key" 2>"$dir/log/mungekey.log" ||
  die "mungekey failed: $(cat "$dir/log/mungekey.log")"
socket=$dir/munge/munge.socket
setsid munged --foreground --force --socket="$socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed" </dev/null >"$dir/log/munged.out" 2>&1 &
echo $! >"$dir/pids/munged"
munge_answers() { munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; }
wait_for 10 munge_answers || die "munged does not answer on $socket: $(tail -3 "$dir/log/munged.out")"

# Two ports no process listens on now, outside the kernel's range for outgoing connections.
free_ports() {
  python3 - <<'EOF'
import random, socket
ports = []
while len(ports) < 2:
    p = random.randrange(10000, 32000)
    s = socket.socket()
    try:
        s.bind(("", p))
        if p not in ports:
            ports.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(*ports)
EOF
}

host=$(hostname -s)
cluster=af$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
write_conf() {
  local ctld_port=$1 slurmd_port=$2
  : >"$dir/plugstack.conf"
  cat >"$dir/slurm.conf" <<EOF
# A private single-node cluster written by scripts/cluster/slurm_local.sh; every path is in
# $dir and the ports were free when it was written.
ClusterName=$cluster
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES:4
EOF
}

# slurmctld and slurmd as munged: in the foreground (-D). A port taken between the choice and
# the bind makes a daemon exit: then the ports are chosen again (3 tries).
ctld_up() { SLURM_CONF=$dir/slurm.conf scontrol ping 2>/dev/null | grep -q ' is UP'; }
node_idle() {
  [ "$(SLURM_CONF=$dir/slurm.conf sinfo -h -N -n "$host" -o %T 2>/dev/null)" = idle ]
}
alive_and() {
  local name=$1
  shift
  ours "$(cat "$dir/pids/$name")" || return 0  # dead: stop waiting
  "$@"
}
started=""
for attempt in 1 2 3; do
  read -r ctld_port slurmd_port < <(free_ports) || true
  [ -n "${slurmd_port:-}" ] || die "could not find two free ports (python3 failed)"
  write_conf "$ctld_port" "$slurmd_port"
  setsid slurmctld -D -f "$dir/slurm.conf" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/pids/slurmctld"
  wait_for 30 alive_and slurmctld ctld_up || die "slurmctld did not answer in 30 s"
  if ! ctld_up; then
    say "slurmctld exited (try $attempt): $(grep -m1 -i error "$dir/log/slurmctld.out" || true)"
    continue
  fi
  setsid slurmd -D -f "$dir/slurm.conf" </dev/null >"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/pids/slurmd"
  wait_for 60 alive_and slurmd node_idle || die "node $host not idle in 60 s: $(SLURM_CONF=$dir/slurm.conf sinfo -N 2>&1 | tail -1)"
  if node_idle; then
    started=yes
    break
  fi
  say "slurmd exited (try $attempt): $(grep -m1 -i 'error' "$dir/log/slurmd.out" || true)"
  stop_daemon slurmctld
done
[ -n "$started" ] || die "could not start slurmctld and slurmd (see $dir/log)"
[ -z "$owner" ] || kill -0 "$owner" 2>/dev/null || die "the owner, process $owner, has ended"

trap - EXIT
say "cluster $cluster up: node $host idle, slurmctld port $ctld_port, slurmd port $slurmd_port"
echo "SLURM_CONF=$dir/slurm.conf"
