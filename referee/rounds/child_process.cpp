#include "rounds/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace allfives::referee {
namespace {

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

std::optional<ChildProcess> ChildProcess::start(const std::vector<std::string>& argv,
                                                const std::string& output, std::string* error,
                                                const std::string& working_dir) {
  const int out = open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0) {
    if (error) *error = output + ": " + strerror(errno);
    if (out >= 0) close(out);
    if (in >= 0) close(in);
    return std::nullopt;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string failed = "cannot run " + argv[0] + " (not found, or not executable)\n";
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(args[0], args.data());
    if (write(2, failed.data(), failed.size()) < 0) _exit(127);
    _exit(127);
  }
  const int fork_errno = errno;
  close(out);
  close(in);
  if (pid < 0) {
    if (error) *error = std::string("cannot start ") + argv[0] + ": " + strerror(fork_errno);
    return std::nullopt;
  }
  return ChildProcess(pid);
}

std::optional<int> ChildProcess::poll() {
  if (status_) return status_;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = exit_code_of(status);
  return status_;
}

int ChildProcess::wait() {
  while (!status_) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, 0);
    if (r == pid_) status_ = exit_code_of(status);
    if (r < 0 && errno != EINTR) status_ = 1;
  }
  return *status_;
}

void ChildProcess::signal(int sig) const {
  if (!status_) kill(pid_, sig);
}

std::string own_program() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).string();
}

}  // namespace allfives::referee
