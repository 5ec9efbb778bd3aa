// Helpers for the process-layer tests: bounded waits and looking at processes through /proc.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process/bot_process.h"

namespace allfives::referee::testing {

// Starts `sh -c script` as the referee starts a sandboxed bot (its own user, a clean
// environment, `limits`, its cgroups unless `cgroups` is false); null and why on failure.
inline std::unique_ptr<BotProcess> start_sandboxed(const std::string& script, ResourceLimits limits,
                                                   bool cgroups = true,
                                                   std::string* error = nullptr) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.sandbox = true;
  spec.clean_environment = true;
  spec.own_user = true;
  spec.limits = limits;
  spec.cgroups = cgroups;
  std::string why;
  auto p = BotProcess::start(spec, &why);
  if (error) *error = why;
  return p;
}

// Polls `done` every few milliseconds until it is true or `timeout` has passed. Every wait in
// these tests goes through here, so no test can hang.
template <class Pred>
bool wait_until(Pred done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The state letter and process group of a process from /proc/<pid>/stat ('\0' if none).
struct ProcStat {
  char state = '\0';
  pid_t pgid = -1;
};
inline ProcStat proc_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  const size_t close = line.rfind(')');  // the command name may contain spaces and parentheses
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 1));
  ProcStat stat;
  pid_t ppid = 0;
  rest >> stat.state >> ppid >> stat.pgid;
  return stat;
}

// A process counts as gone once it no longer exists or is a zombie (dead, waiting for whichever
// process it was reparented to to reap it; that is not up to the code under test).
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const char state = proc_stat(pid).state;
  return state == '\0' || state == 'Z' || state == 'X';
}

// Live (non-zombie) processes whose process group is `pgid`.
inline std::vector<pid_t> live_group_members(pid_t pgid) {
  std::vector<pid_t> members;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    const ProcStat stat = proc_stat(pid);
    if (stat.pgid == pgid && stat.state != 'Z' && stat.state != 'X' && stat.state != '\0') {
      members.push_back(pid);
    }
  }
  return members;
}

inline bool group_gone(pid_t pgid) {
  return ::kill(-pgid, 0) != 0 && errno == ESRCH;
}

// Whether this machine offers cgroup v1 memory (and pids) hierarchies to a referee run as
// root, seen independently of the referee's own detection: then a test that expects the
// referee to use them fails if it falls back to setrlimit instead of silently testing that.
// (On cgroup v2 it depends on delegation, which these tests leave to the referee to find.)
inline bool machine_offers_v1_cgroups() {
  if (::getuid() != 0 || !std::filesystem::exists("/sys/fs/cgroup/memory/memory.limit_in_bytes") ||
      !std::filesystem::exists("/sys/fs/cgroup/pids"))
    return false;
  // Our own memory cgroup must be writable: a container may mount the hierarchy read-only.
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::istringstream controllers(line.substr(a + 1, b - a - 1));
    bool memory = false;
    for (std::string c; std::getline(controllers, c, ',');) memory = memory || c == "memory";
    if (!memory) continue;
    const std::string dir = "/sys/fs/cgroup/memory" + line.substr(b + 1);
    return ::access(dir.c_str(), W_OK) == 0;
  }
  return false;
}

}  // namespace allfives::referee::testing
