// A cgroup per started bot, where the machine lets the referee make one: the bot's memory is
// then limited as the resident memory of all its processes together (memory.max on cgroup v2,
// memory.limit_in_bytes on v1, swap included where the kernel counts it), and the number of its
// processes and threads by pids.max, whoever the referee runs as.
//
// Where that is not possible the limits fall back to setrlimit (bot_launch.cpp): RLIMIT_AS,
// which counts each process's virtual address space on its own (reserved, not only used:
// runtimes that reserve large areas fail under it long before they use that much), and
// RLIMIT_NPROC, which the kernel counts per user, so only applied to a bot with a user id of
// its own (the referee run as root). Which one a bot got is in its log header (LogConfinement).
//
// Where the cgroups are made: on v1, in the `memory` and `pids` hierarchies, under the
// referee's own cgroup of each (as /proc/self/cgroup names it); on v2, under the referee's own
// cgroup, which must offer the memory (and pids) controllers and be writable to the referee
// (root, or a cgroup delegated to its user). v2 allows no process in a cgroup whose children
// get controllers, so there the referee first moves itself into a leaf of its own cgroup if
// needed. The folders are named allfives-<pid of the referee process>-<n>; each is removed,
// with anything left in it killed, when its bot is stopped, or by the bot's guardian
// (spawn.cpp) when the referee dies; remove_stale_cgroups() catches what both missed. On v1 a
// referee process also keeps one empty freezer cgroup of its own frozen while it runs,
// allfives-<pid>-frozen (CgroupPlaces::kept_frozen), so that freezing bots stays cheap.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "process/resource_limits.h"

namespace allfives::referee {

// Where per-bot cgroups can be made on this machine, found once per process (see top).
struct CgroupPlaces {
  int version = 0;            // 1 or 2; 0: none can be made
  std::string memory_parent;  // folder in which per-bot memory cgroups are made, "" if none
  std::string pids_parent;    // the same for pids (on v2 the same folder, if it has pids)
  // Where a bot's CPU time is counted and its processes frozen (the CPU guard, cpu_guard.h):
  // on v1 the cpuacct and freezer hierarchies; on v2 memory_parent, whose cgroups all have
  // cpu.stat and cgroup.freeze. "" if none.
  std::string cpuacct_parent;
  std::string freezer_parent;
  // v1: an empty cgroup in freezer_parent that this process keeps frozen while it runs, so that
  // freezing and thawing bots stays cheap (cgroup.cpp, FrozenKeeper, says why). "" if none.
  std::string kept_frozen;
  // Where CPU quotas are set: v1's cpu hierarchy, or on v2 memory_parent if it offers the cpu
  // controller. "" if none.
  std::string cpu_parent;
  std::string why_not;  // why memory (or pids) cgroups cannot be made, in words
};
const CgroupPlaces& cgroup_places();

// Removes the empty folders allfives-<pid>-... in `parent` whose referee process is gone and
// that are a minute old (left by a referee killed with SIGKILL). cgroup_places() does it once
// for each folder it makes cgroups in.
void remove_stale_cgroups(const std::string& parent);

// --- Reading what the kernel says (pure, for tests) -----------------------------------------

// /proc/self/cgroup: controller -> path ("memory" -> "/a/b"); v2's "0::/path" under key "".
// A v1 line naming several controllers ("4:cpu,cpuacct:/x") gives each.
std::map<std::string, std::string> parse_proc_cgroup(const std::string& text);

// A cgroup file system as /proc/self/mountinfo lists it.
struct CgroupMount {
  std::string root;                      // the part of the hierarchy mounted ("/" usually)
  std::string mount_point;               // where
  bool v2 = false;                       // cgroup2
  std::vector<std::string> controllers;  // v1: from the super options ("memory"), v2: none
};
std::vector<CgroupMount> parse_cgroup_mounts(const std::string& mountinfo);

// The folder of cgroup `path` (from /proc/self/cgroup) under `mount`, "" if outside it.
std::string cgroup_folder(const CgroupMount& mount, const std::string& path);

// The number after `key` in a "key value" per line file (memory.events, memory.oom_control,
// pids.events); 0 if absent.
uint64_t counter_in(const std::string& text, const std::string& key);

// --- One bot's cgroups ----------------------------------------------------------------------

// What a bot's cgroups do besides its memory and process limits.
struct CpuCgroupOptions {
  bool watch = false;        // count its CPU time and be able to freeze it
  uint32_t cpu_percent = 0;  // a CPU quota (100: one CPU), 0: none
};

class BotCgroup {
 public:
  // Makes the bot's cgroups in `places` with its limits (0 = that one is not made). nullptr
  // and *error if one cannot be made or set up (then nothing is left behind).
  static std::unique_ptr<BotCgroup> create(const CgroupPlaces& places, uint64_t memory_mib,
                                           uint32_t processes, const CpuCgroupOptions& cpu,
                                           std::string* error);
  BotCgroup(const BotCgroup&) = delete;
  BotCgroup& operator=(const BotCgroup&) = delete;
  ~BotCgroup();  // remove()

  LimitMechanism memory_by() const;     // kCgroupV1/V2 if it limits memory, else kNone
  LimitMechanism processes_by() const;  // the same for processes
  LimitMechanism freezer_by() const;    // kCgroupV1/V2 if it counts CPU time and can freeze
  LimitMechanism cpu_by() const;        // kCgroupV1/V2 if it has a CPU quota

  // The CPU time of all its processes together, in microseconds; nullopt without a freezer_by.
  std::optional<uint64_t> cpu_time_us() const;
  // Stops (true) or resumes every process in it at once (v1 freezer.state, v2 cgroup.freeze);
  // false without a freezer_by. Cheap to repeat: nothing is written when already so.
  bool set_frozen(bool frozen);
  bool frozen() const { return frozen_; }
  // The file and the text that thaw it, for the guardian (which must not allocate); empty
  // without a freezer_by.
  std::string thaw_file() const;
  const char* thaw_text() const;
  // The cgroup.procs files a process is written to, to put it (and so what it starts) in.
  std::vector<std::string> procs_files() const;
  const std::vector<std::string>& folders() const { return folders_; }

  // What the kernel counted so far (the last values once removed): processes the memory limit
  // made the kernel kill; forks and clones refused at the process limit.
  uint64_t oom_kills() const;
  uint64_t process_limit_hits() const;

  // Kills every process still in the cgroups and removes them. Idempotent.
  void remove();

  // The files a process writes "0" to, to move itself into the cgroups (the bot does, between
  // fork and exec). On v1 the `tasks` file: moving one thread (the whole process, just after
  // fork) skips the kernel's global lock that writing a pid to cgroup.procs takes, whose RCU
  // grace period cost ~10 ms per bot start; v2 has only cgroup.procs.
  std::vector<std::string> join_files() const;

 private:
  BotCgroup() = default;
  int version_ = 0;
  std::string memory_;                // folder, "" if memory is not limited by it
  std::string pids_;                  // folder, "" if processes are not (the same as memory_ on v2)
  std::vector<std::string> folders_;  // distinct folders made, for removal
  std::string cpuacct_;  // folder counting its CPU time ("" if none; the v2 folder on v2)
  std::string freezer_;  // folder freezing it ("" if none)
  std::string cpu_;      // folder with its CPU quota ("" if none)
  int usage_fd_ = -1;    // cpuacct.usage (v1) or cpu.stat (v2), open for reading
  int freeze_fd_ = -1;   // freezer.state (v1) or cgroup.freeze (v2), open for writing
  bool frozen_ = false;
  bool removed_ = false;
  uint64_t final_oom_kills_ = 0;
  uint64_t final_limit_hits_ = 0;
};

}  // namespace allfives::referee
