// Forking a bot and its guardian (see bot_process.cpp for why it is done this way). Internal to
// the process layer: BotProcess prepares a launch on the caller's thread, spawn_bot() forks on
// the one launcher thread, and the helpers below are shared by both sides.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "process/cgroup.h"

namespace allfives::referee::spawn {

// The descriptor bwrap is told to write its --info-fd report to (Prepared::info_pipe).
constexpr int kSandboxInfoFd = 3;
// The descriptors bwrap reads its seccomp filter (--seccomp) and its arguments (--args) from,
// then the files it copies into the sandbox (--file), at most kMaxSandboxCopied of them
// (Prepared::passed, in this order).
constexpr int kSandboxSeccompFd = 4;
constexpr int kSandboxArgsFd = 5;
constexpr int kSandboxCopiedFd = 6;
constexpr int kMaxSandboxCopied = 8;

// A file descriptor owned by one object (closed with it).
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  OwnedFd& operator=(OwnedFd&& o) noexcept;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

// An anonymous in-memory file holding `data`, positioned at its start (for a child to read);
// an invalid OwnedFd and *error if it cannot be made.
OwnedFd memory_file(const char* name, const std::string& data, std::string* error);

// Everything the children need, prepared before the fork (they must not allocate).
struct Prepared {
  std::string exec_path;  // absolute
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  std::vector<std::string> env_storage;
  std::vector<char*> envp;
  std::string working_dir;  // empty: keep the referee's
  int max_fd = 1024;        // for the fallback if close_range is unavailable
  // setrlimit(resource, {value, value}) for each entry, before exec.
  std::vector<std::pair<int, rlim_t>> rlimits;
  uint32_t uid_base = 0;               // nonzero: run as uid_base + pid (see bot_uid_base())
  std::vector<std::string> read_only;  // the sandbox's read-only folders, for the record
  // A sandboxed bot: the write end of a pipe is its descriptor kSandboxInfoFd across exec, for
  // bwrap's --info-fd (the pid of the sandbox's first process: see BotProcess::sandbox_pid()).
  bool info_pipe = false;
  // Descriptors the bot gets across exec as kSandboxSeccompFd, kSandboxArgsFd,
  // kSandboxCopiedFd... in order (files bwrap reads from their start).
  std::vector<OwnedFd> passed;
  // The bot's own cgroups (cgroup.h), null if none: the bot is put in them before it may exec.
  std::shared_ptr<BotCgroup> cgroup;
  // Its folders and their cgroup.procs files, for the guardian (which must not allocate).
  std::vector<std::string> cgroup_folders;
  std::vector<std::string> cgroup_procs;
  // The files the child writes "0" to before anything else, to move itself in (join_files()).
  std::vector<std::string> cgroup_join;
  // The freezer file the guardian writes thaw_text to before it kills the bot ("" if none):
  // a frozen process does not die.
  std::string cgroup_thaw_file;
  const char* cgroup_thaw_text = "";
  LimitMechanism memory_by = LimitMechanism::kNone;     // how limits.memory_mib is enforced
  LimitMechanism processes_by = LimitMechanism::kNone;  // how limits.processes is
};

// What spawn_bot() made: the bot's process and its guardian, or an error.
struct Spawned {
  pid_t pid = -1;
  pid_t guardian = -1;
  int out_r = -1;    // read end of the bot's stdout/stderr
  int guard_w = -1;  // write end of the guardian's pipe; closing it (by dying) fires the guardian
  int info_r = -1;   // read end of the --info-fd pipe (Prepared::info_pipe), else -1
  uint32_t uid = 0;  // the bot's own user id, 0 if it kept ours
  std::string error;
};

// Forks the bot and its guardian on the launcher thread (whatever thread calls this) and waits
// for the bot's exec.
Spawned spawn_bot(const Prepared& p);

// strerror's words for `err`.
std::string errno_text(int err);
// Closes `fd` if open and marks it closed.
void close_fd(int& fd);
// Reaps `pid` (a child already sent SIGKILL or about to exit) within a bounded time; see
// spawn.cpp.
std::optional<siginfo_t> reap_bounded(pid_t pid);
// Waits until our child `pid` has ended (exited or killed; it is not reaped) or `deadline` has
// passed; true if it ended. The caller must keep `pid` unreaped meanwhile (so it cannot be
// recycled). It wakes at the exit itself through a pidfd (Linux 5.3 and later), not at the next
// of a series of checks: a stop or a trial sandbox then costs the exit and no more.
bool wait_ended(pid_t pid, std::chrono::steady_clock::time_point deadline);
// The parts of wait_ended(): a pidfd of `pid` (-1 if there is none: an older kernel, or the
// process is gone), and waiting until a descriptor is readable or `deadline` has passed.
int open_pidfd(pid_t pid);
void wait_readable(int fd, std::chrono::steady_clock::time_point deadline);
// Sleeps for `step`, or until `deadline` if that comes first.
void sleep_for_at_most(std::chrono::milliseconds step,
                       std::chrono::steady_clock::time_point deadline);

}  // namespace allfives::referee::spawn
