// What a started bot is allowed, as plain values: its resource limits, how each was enforced,
// and the referee's own paths it must not see. The tournament file, a bot's spec and the log
// hold these; only the process layer (sandbox.h, cgroup.h, bot_process.h) applies them.
#pragma once

#include <cstdint>
#include <string>

namespace allfives::referee {

// Per-bot resource limits, applied in the bot's process before it starts (the bwrap process
// and everything in the sandbox inherit them). 0 means "no limit" for each. Memory and
// processes are limited by cgroups of the bot's own where the machine allows (cgroup.h), else
// by setrlimit; the rest always by setrlimit.
struct ResourceLimits {
  // With a memory cgroup: the resident memory (and page cache, /tmp included) of all the bot's
  // processes together, no swap; over it the kernel kills one of them. Without: RLIMIT_AS, the
  // address space each process may map on its own. That counts virtual memory (reserved, not
  // only used), so it is a ceiling, not a meter: runtimes that reserve large areas up front
  // fail under it, and several processes may each use that much.
  uint64_t memory_mib = 1024;
  // Processes and threads of the bot together, bwrap's two processes included. With a pids
  // cgroup: pids.max. Without: RLIMIT_NPROC, which the kernel counts per user, so it is only a
  // per-bot limit when the bot runs under a user id of its own, which the referee arranges for
  // sandboxed bots when it runs as root (see bot_uid_base()); otherwise it is not applied (it
  // would count every process of that user).
  uint32_t processes = 64;
  uint32_t open_files = 256;    // RLIMIT_NOFILE: descriptors open at once
  uint64_t file_size_mib = 64;  // RLIMIT_FSIZE: the largest file it may write (also in /tmp)
  // RLIMIT_CORE 0: a bot's core dump would be written outside the sandbox's control.
  bool no_core_dumps = true;
  // A CPU quota for all the bot's processes together, in percent of one CPU (100: one CPU's
  // worth per 100 ms, however many threads; a cpu cgroup of its own, cpu.max or
  // cpu.cfs_quota_us); 0: none.
  uint32_t cpu_percent = 0;

  // No limit at all (what a bare LaunchSpec gets).
  static ResourceLimits none() { return ResourceLimits{0, 0, 0, 0, false, 0}; }

  // "memory 1024 MiB, 64 processes, 256 open files, files up to 64 MiB, no core dumps".
  std::string describe() const;
};

// How a limit was enforced for one bot.
enum class LimitMechanism {
  kNone,      // not limited (limit 0, or no means to apply it)
  kRlimit,    // setrlimit: RLIMIT_AS for memory, RLIMIT_NPROC for processes
  kCgroupV1,  // a cgroup of its own in the v1 memory / pids hierarchy
  kCgroupV2,  // a cgroup of its own on cgroup v2
};

// A file or folder of the referee's own that no bot may see.
struct HiddenPath {
  enum class Kind {
    kFile,  // covered by /dev/null where a folder the bot may read holds it
    // A folder of the referee's alone (a tournament's matches/, the bots' socket folder):
    // covered by an empty read-only tmpfs where a folder the bot may read holds it. A folder
    // the bot may read that is this one or lies inside it is refused.
    kFolder,
    // A folder that may also hold the user's own files, bots included (the match log's
    // folder, a tournament's output folder): covered as kFolder where a folder the bot may read
    // holds it; where a folder the bot may read is this one or lies inside it, left open, the
    // referee's files in it being hidden one by one (each is a HiddenPath of its own).
    kSharedFolder,
  };
  std::string path;  // absolute
  std::string what;  // what it is, for messages: "the match log folder"
  Kind kind = Kind::kFolder;
};

}  // namespace allfives::referee
