// The referee's own commands run as child processes of a ladder or a tune (`referee check-bot`
// for a ladder's gate, `referee tournament` for a round or an iteration): each in a process of
// its own, so the caller never touches gRPC or bots itself and its memory stays flat, and each
// dies with its parent (PR_SET_PDEATHSIG), as a tournament's workers do.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace allfives::referee {

class ChildProcess {
 public:
  // Starts argv (argv[0] a path, or a program looked up in PATH) in `working_dir` (empty: this
  // process's), with stdin from /dev/null and stdout and stderr appended to `output`
  // (created). Nothing and *error if it cannot start.
  static std::optional<ChildProcess> start(const std::vector<std::string>& argv,
                                           const std::string& output, std::string* error,
                                           const std::string& working_dir = "");
  // Its exit code once it ended (128 + N for a signal N), without waiting; nothing while it runs.
  std::optional<int> poll();
  // Waits for its end.
  int wait();
  void signal(int sig) const;
  pid_t pid() const { return pid_; }

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> status_;
};

// The path of the running program (/proc/self/exe), for starting its own commands.
std::string own_program();

}  // namespace allfives::referee
