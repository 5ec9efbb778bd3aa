// What the files that make up BotProcess share, private to them: the launch prepared on the
// caller's thread (bot_launch.cpp) and the process's state (BotProcess::Impl), whose output
// capture is bot_output.cpp's and whose exit and stopping are bot_stop.cpp's.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "process/bot_process.h"
#include "process/capped_output.h"
#include "process/cgroup.h"
#include "process/spawn.h"

namespace allfives::referee {

// Everything start() needs to launch `spec` (its program found, its environment, sandbox and
// limits), made before anything is forked; nullopt with *error saying why it cannot be.
std::optional<spawn::Prepared> prepare_launch(const LaunchSpec& spec, std::string* error);

struct BotProcess::Impl {
  explicit Impl(size_t cap) : output(cap) {}
  ~Impl() {
    spawn::close_fd(guard_w);
    spawn::close_fd(out_r);
    spawn::close_fd(wake_r);
    spawn::close_fd(wake_w);
  }

  // Process state, guarded by mu.
  std::mutex mu;
  bool exited = false;  // the main process has exited (seen with WNOWAIT: not reaped yet)
  bool lost = false;    // someone else reaped it (SIGCHLD ignored, waitpid(-1) elsewhere)
  bool stopped = false;
  bool term_sent = false;  // the group got its SIGTERM (a second one may mean "exit at once")
  ExitStatus status;
  int guard_w = -1;
  ResourceLimits limits;
  std::vector<std::string> read_only;  // the sandbox's read-only folders
  // bwrap reports its program's death by signal N as exit code 128 + N: read it back as such.
  bool sandboxed = false;
  std::shared_ptr<BotCgroup> cgroup;  // null without one; removed by stop()
  // bwrap's --info-fd report (sandbox_pid()), guarded by info_mu: the pipe until read, then
  // the pid it gave (-1: none).
  std::mutex info_mu;
  int info_r = -1;
  int sandbox_pid = -1;
  std::vector<std::string> cgroup_folders;
  LimitMechanism memory_by = LimitMechanism::kNone;
  LimitMechanism processes_by = LimitMechanism::kNone;

  // Output, guarded by out_mu (never held while waiting for anything).
  std::mutex out_mu;
  CappedOutput output;

  // The reader thread and its shutdown.
  int out_r = -1;
  int wake_r = -1;
  int wake_w = -1;
  std::thread reader;
  std::mutex reader_mu;
  std::condition_variable reader_cv;
  bool reader_done = false;

  bool check_exited(pid_t pid);
  void read_output();
  void finish_reader();
};

}  // namespace allfives::referee
