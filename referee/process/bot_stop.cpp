// How a bot process ends: its exit status in words (with the limit it ran into), whether its
// main process has exited, waiting for that, and stopping it (SIGTERM, then SIGKILL to its
// group, its guardian ended, everything reaped and its cgroups removed).
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>

#include "process/bot_process_impl.h"

namespace allfives::referee {

namespace {

using Clock = std::chrono::steady_clock;
using spawn::close_fd;
using spawn::reap_bounded;
using spawn::sleep_for_at_most;
using std::chrono::milliseconds;

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "unknown signal";
}

// bwrap exits with 128 + N when the program it runs was killed by signal N. (A program that
// exits with such a code by itself is then described as killed: bwrap tells them apart to no
// one.)
ExitStatus unwrap_sandbox_status(ExitStatus status) {
  if (!status.signaled && status.code > 128 && status.code < 128 + NSIG) {
    status.signaled = true;
    status.signal = status.code - 128;
    status.code = 0;
  }
  return status;
}

ExitStatus status_from(const siginfo_t& info) {
  ExitStatus status;
  if (info.si_code == CLD_EXITED) {
    status.code = info.si_status;
  } else {
    status.signaled = true;
    status.signal = info.si_status;
    status.core_dumped = info.si_code == CLD_DUMPED;
  }
  return status;
}

}  // namespace

ExitStatus exit_status_of(int wait_status) {
  ExitStatus status;
  if (WIFSIGNALED(wait_status)) {
    status.signaled = true;
    status.signal = WTERMSIG(wait_status);
    status.core_dumped = WCOREDUMP(wait_status);
  } else {
    status.code = WEXITSTATUS(wait_status);
  }
  return status;
}

std::string ExitStatus::describe() const {
  if (!signaled) return "exited with code " + std::to_string(code);
  std::string text =
      "killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")";
  if (core_dumped) text += ", core dumped";
  return text;
}

std::string limit_reached(const ResourceLimits& limits, const LimitEvidence& evidence) {
  if (limits.memory_mib != 0 && evidence.oom_kills != 0)
    return "exceeded its memory limit of " + std::to_string(limits.memory_mib) + " MiB";
  if (limits.processes != 0 && evidence.process_limit_hits != 0)
    return "reached its limit of " + std::to_string(limits.processes) + " processes and threads";
  return "";
}

std::string describe_exit_with_limits(const ExitStatus& status, const ResourceLimits& limits,
                                      const LimitEvidence& evidence) {
  const std::string how = status.describe();
  if (status.signaled && status.signal == SIGXFSZ && limits.file_size_mib != 0) {
    return "exceeded its file size limit of " + std::to_string(limits.file_size_mib) + " MiB (" +
           how + ")";
  }
  if (!status.signaled && status.code == 0) return how;  // a clean exit is not a limit's doing
  const std::string limit = limit_reached(limits, evidence);
  return limit.empty() ? how : limit + " (" + how + ")";
}

// With `mu` held: has the main process exited? Uses WNOWAIT so the process stays an unreaped
// zombie, which keeps its pid, and so the group's pgid, from being recycled before stop().
bool BotProcess::Impl::check_exited(pid_t pid) {
  if (exited) return true;
  siginfo_t info{};
  const int rc = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  if (rc == 0 && info.si_pid == pid) {
    status = status_from(info);
    if (sandboxed) status = unwrap_sandbox_status(status);
    exited = true;
  } else if (rc != 0 && errno == ECHILD) {
    exited = true;
    lost = true;
  }
  return exited;
}

bool BotProcess::running() {
  std::lock_guard lock(impl_->mu);
  return !impl_->stopped && !impl_->check_exited(pid_);
}

std::optional<ExitStatus> BotProcess::exit_status() {
  std::lock_guard lock(impl_->mu);
  if (!impl_->check_exited(pid_) || impl_->lost) return std::nullopt;
  return impl_->status;
}

std::string BotProcess::describe_exit() {
  std::lock_guard lock(impl_->mu);
  if (!impl_->check_exited(pid_)) return "running";
  if (impl_->lost) return "exited (status unknown: reaped outside BotProcess)";
  return describe_exit_with_limits(impl_->status, impl_->limits, limit_evidence());
}

bool BotProcess::wait_for_exit(Clock::time_point deadline) {
  int fd = -1;
  {
    // The pidfd is taken while stop() cannot reap the process (and free its pid for reuse).
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped || impl_->check_exited(pid_)) return true;
    fd = spawn::open_pidfd(pid_);
  }
  if (fd >= 0) {
    spawn::wait_readable(fd, deadline);
    ::close(fd);
  } else {
    while (running() && Clock::now() < deadline) sleep_for_at_most(milliseconds(1), deadline);
  }
  return !running();
}

void BotProcess::request_stop() {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.mu);
  if (impl.stopped || impl.term_sent || impl.check_exited(pid_)) return;
  if (impl.cgroup) impl.cgroup->set_frozen(false);  // a frozen bot could not wind down
  ::kill(-pid_, SIGTERM);
  impl.term_sent = true;
}

void BotProcess::stop(milliseconds grace) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.mu);
  if (impl.stopped) return;

  // A frozen bot could neither wind down nor (cgroup v1) die.
  if (impl.cgroup) impl.cgroup->set_frozen(false);
  if (!impl.check_exited(pid_)) {
    if (!impl.term_sent) ::kill(-pid_, SIGTERM);
    impl.term_sent = true;
    // The main process is unreaped until below (WNOWAIT), so its pid is still ours to wait on.
    spawn::wait_ended(pid_, Clock::now() + grace);
    impl.check_exited(pid_);
  }
  // The main process is alive or an unreaped zombie, so the pgid is still this group's: kill
  // whatever is left in it (children that ignored SIGTERM or outlived the main process).
  ::kill(-pid_, SIGKILL);

  // The guardian's job is done; end it before it could ever act on a recycled pgid.
  if (guardian_pid_ > 0) {
    ::kill(guardian_pid_, SIGKILL);
    reap_bounded(guardian_pid_);
  }
  close_fd(impl.guard_w);

  if (!impl.lost) {
    std::optional<siginfo_t> info = reap_bounded(pid_);
    if (info && !impl.exited) {
      impl.status = status_from(*info);
      if (impl.sandboxed) impl.status = unwrap_sandbox_status(impl.status);
      impl.exited = true;
    } else if (!info && !impl.exited) {
      impl.exited = true;
      impl.lost = true;  // stuck or reaped elsewhere; a background thread keeps waiting
    }
  }
  // Everything in the sandbox died with it; what else is left in the cgroups is killed.
  if (impl.cgroup) impl.cgroup->remove();
  {
    std::lock_guard info_lock(impl.info_mu);  // bwrap is dead: a reader there has seen EOF
    close_fd(impl.info_r);
  }
  impl.stopped = true;
  impl.finish_reader();
}

}  // namespace allfives::referee
