# Sourced by the benchmarks: the CPU time of a command and of everything it starts, sandboxed
# bots included (no wait() reports theirs to the referee's parent), from a cgroup of its own
# (cgroup v1 cpuacct, or v2 cpu.stat; needs root or a delegated cgroup). Without one, the user
# and system time of the processes reaped below the command (sandboxed bots missing).
#   cpu_cgroup_init          makes the cgroup; says which way CPU is counted
#   cpu_cgroup_done          removes it (call it from the script's EXIT trap)
#   cpu_timed VAR CMD...     runs CMD; sets VAR to its CPU seconds and CPU_WALL to its wall seconds
#   load_average             the machine's 1, 5 and 15 minute load averages

cpu_cgroup_dir=""
cpu_cgroup_kind=""

cpu_cgroup_init() {
  local name="allfives-bench-$$-$RANDOM"
  if [ -w /sys/fs/cgroup/cpuacct ] && mkdir "/sys/fs/cgroup/cpuacct/$name" 2> /dev/null; then
    cpu_cgroup_dir="/sys/fs/cgroup/cpuacct/$name"
    cpu_cgroup_kind=v1
  elif [ -f /sys/fs/cgroup/cgroup.controllers ] && mkdir "/sys/fs/cgroup/$name" 2> /dev/null; then
    cpu_cgroup_dir="/sys/fs/cgroup/$name"
    cpu_cgroup_kind=v2
  fi
  if [ -n "$cpu_cgroup_dir" ]; then
    echo "CPU time: cgroup $cpu_cgroup_kind $cpu_cgroup_dir (every process the run starts)"
  else
    echo "CPU time: user + system of the processes reaped (sandboxed bots not included)"
  fi
}

cpu_cgroup_done() {
  if [ -n "$cpu_cgroup_dir" ]; then rmdir "$cpu_cgroup_dir" 2> /dev/null || true; fi
}

cpu_usage_ns() {
  if [ "$cpu_cgroup_kind" = v1 ]; then
    cat "$cpu_cgroup_dir/cpuacct.usage"
  else
    awk '$1 == "usage_usec" {print $2 * 1000}' "$cpu_cgroup_dir/cpu.stat"
  fi
}

cpu_timed() {
  local var=$1 start end before after times
  shift
  times=$(mktemp)
  start=$(date +%s.%N)
  if [ -n "$cpu_cgroup_dir" ]; then
    before=$(cpu_usage_ns)
    (echo "$BASHPID" > "$cpu_cgroup_dir/cgroup.procs" && exec "$@")
    after=$(cpu_usage_ns)
    printf -v "$var" '%s' "$(awk -v a="$before" -v b="$after" 'BEGIN{printf "%.3f", (b - a) / 1e9}')"
  else
    /usr/bin/time -f '%U %S' -o "$times" "$@"
    printf -v "$var" '%s' "$(awk '{printf "%.3f", $1 + $2}' "$times")"
  fi
  end=$(date +%s.%N)
  CPU_WALL=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b - a}')
  rm -f "$times"
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }
