// The fork side of the process layer: the launcher thread, the bot child between fork and exec,
// the guardian, and spawn_bot() that forks both. The reasons for this design are at the top of
// bot_process.cpp.
#include "process/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace allfives::referee::spawn {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a guardian waits between SIGTERM and SIGKILL once the referee is gone.
constexpr int kGuardianGraceMs = 1000;
constexpr int kGuardianPollMs = 10;
// Bounds on waits that should be instantaneous: the child's exec, reaping a SIGKILLed process.
constexpr milliseconds kExecTimeout{10000};
constexpr milliseconds kReapTimeout{2000};

// ---------------------------------------------------------------------------------------------
// The launcher thread. PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not
// the process. So all forks happen here, on a thread that lives until the process ends; start()
// may then be called from any thread, including ones that end long before their bots do. The
// thread blocks every signal, so no handler of the referee runs on it and the children start
// with every signal blocked until they have reset their dispositions.
class Launcher {
 public:
  static Launcher& instance() {
    // Deliberately never destroyed: its detached thread may still be waiting on mu_/cv_ while
    // static destructors run at exit. One per process: a process forked after the launcher
    // started (the tournament's workers, forked after the referee's sandbox trial) has the
    // object but not its thread, so it makes its own.
    static std::mutex mu;
    static Launcher* launcher = nullptr;
    static pid_t owner = -1;
    std::lock_guard lock(mu);
    if (launcher == nullptr || owner != ::getpid()) {
      launcher = new Launcher();
      owner = ::getpid();
    }
    return *launcher;
  }

  // Runs `job` on the launcher thread and waits for it.
  void run(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    {
      std::lock_guard lock(mu_);
      queue_.push_back(&task);
    }
    cv_.notify_one();
    done.get();
  }

 private:
  Launcher() {
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread thread([this] { loop(); });  // inherits the all-blocked mask
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    thread.detach();
  }

  [[noreturn]] void loop() {
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty(); });
      std::packaged_task<void()>* task = queue_.front();
      queue_.pop_front();
      lock.unlock();
      (*task)();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>*> queue_;
};

// ---------------------------------------------------------------------------------------------

// What a bot child reports on its status pipe when it fails before exec.
enum class Stage : int { kSetpgid = 1, kPdeathsig, kFds, kChdir, kExec, kLimits, kUser, kCgroup };
struct ChildFailure {
  Stage stage;
  int err;
};

[[noreturn]] void child_fail(int status_fd, Stage stage, int err) {
  const ChildFailure failure{stage, err};
  // A pipe write of a few bytes is atomic; if it fails there is no one left to tell.
  [[maybe_unused]] const ssize_t n = ::write(status_fd, &failure, sizeof failure);
  _exit(127);
}

// Closes (or, with cloexec, marks close-on-exec) every descriptor >= `from` except `keep`.
void close_from(int from, int keep, bool cloexec, int max_fd) {
  const unsigned flags = cloexec ? CLOSE_RANGE_CLOEXEC : 0;
  bool ok = true;
  if (keep >= from) {
    if (keep > from) ok = close_range(from, keep - 1, flags) == 0;
    ok = ok && close_range(keep + 1, ~0U, flags) == 0;
  } else {
    ok = close_range(from, ~0U, flags) == 0;
  }
  if (ok) return;
  for (int fd = from; fd < max_fd; ++fd) {  // kernels without close_range (< 5.9 / 5.11)
    if (fd == keep) continue;
    if (cloexec) {
      ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    } else {
      ::close(fd);
    }
  }
}

// The bot's child, first steps: into its cgroups (while still the referee's user, who may
// write there: all it starts after exec is counted there), onto its CPU, its rlimits, a user of its
// own, the parent-death signal, and out of the referee's terminal. Async-signal-safe calls only.
void child_confine(const Prepared& p, int status_w) {
  for (const std::string& file : p.cgroup_join) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) child_fail(status_w, Stage::kCgroup, errno);
    if (::write(fd, "0", 1) != 1) child_fail(status_w, Stage::kCgroup, errno);
    ::close(fd);
  }
  for (const auto& [resource, value] : p.rlimits) {
    const rlimit limit{value, value};
    if (::setrlimit(resource, &limit) != 0) {
      child_fail(status_w, Stage::kLimits, errno);
    }
  }
  // A user of our own, before PR_SET_PDEATHSIG (a change of credentials clears that). Raw
  // system calls: glibc's wrappers would try to reach the referee's other threads.
  if (p.uid_base != 0) {
    const long id = static_cast<long>(p.uid_base) + ::getpid();
    if (::syscall(SYS_setgroups, 0, nullptr) != 0 || ::syscall(SYS_setresgid, id, id, id) != 0 ||
        ::syscall(SYS_setresuid, id, id, id) != 0) {
      child_fail(status_w, Stage::kUser, errno);
    }
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(status_w, Stage::kPdeathsig, errno);
  // Leave the referee's controlling terminal (if it has one), so that neither the bot nor its
  // children can open /dev/tty to read the user's keys or push input into the shell. (Not
  // setsid(): the bot stays in the referee's session; see bwrap_argv.)
  if (const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC); tty >= 0) {
    ::ioctl(tty, TIOCNOTTY);
    ::close(tty);
  }
}

// Waits until the referee has started our guardian: if it dies before that, we read EOF and
// never exec, so no grandchild can exist without a guardian watching over it.
void child_wait_for_go(int go_r) {
  char go = 0;
  ssize_t n;
  do {
    n = ::read(go_r, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) _exit(127);
  ::close(go_r);
}

// Default dispositions (an ignored signal would stay ignored across exec; the referee ignores
// SIGPIPE, for one) and an empty mask (the launcher thread blocks everything).
void child_default_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // KILL/STOP: EINVAL, fine
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// The child's descriptors moved above the ones the bot gets (0-2, kSandboxInfoFd and the
// passed ones), so the dup2 calls that give the bot its own cannot clobber them (the referee
// may have closed its own stdin/stdout). All close on exec.
struct ChildFds {
  static constexpr size_t kMaxPassed = kSandboxCopiedFd - kSandboxSeccompFd + kMaxSandboxCopied;
  int out = -1;
  int status = -1;
  int info = -1;
  int passed[kMaxPassed];
  size_t passed_count = 0;
};

ChildFds child_lift_fds(const Prepared& p, int out_w, int status_w, int info_w) {
  const int above = kSandboxSeccompFd + static_cast<int>(ChildFds::kMaxPassed);
  ChildFds fds;
  for (int& fd : fds.passed) fd = -1;
  fds.out = ::fcntl(out_w, F_DUPFD_CLOEXEC, above);
  fds.status = ::fcntl(status_w, F_DUPFD_CLOEXEC, above);
  fds.info = info_w < 0 ? -1 : ::fcntl(info_w, F_DUPFD_CLOEXEC, above);
  if (fds.out < 0 || fds.status < 0 || (info_w >= 0 && fds.info < 0))
    child_fail(status_w, Stage::kFds, errno);
  fds.passed_count = std::min(p.passed.size(), ChildFds::kMaxPassed);
  for (size_t i = 0; i < fds.passed_count; ++i) {
    if (p.passed[i].get() < 0) continue;  // a place kept empty
    fds.passed[i] = ::fcntl(p.passed[i].get(), F_DUPFD_CLOEXEC, above);
    if (fds.passed[i] < 0) child_fail(status_w, Stage::kFds, errno);
  }
  return fds;
}

// The bot's own descriptors: stdin /dev/null, stdout and stderr the one capture pipe, bwrap's
// report pipe, filter and arguments at their places; nothing else crosses the exec.
void child_give_fds(const Prepared& p, const ChildFds& fds) {
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) child_fail(fds.status, Stage::kFds, errno);
  if (null_fd != 0) {
    if (::dup2(null_fd, 0) < 0) child_fail(fds.status, Stage::kFds, errno);
  }
  if (::dup2(fds.out, 1) < 0 || ::dup2(fds.out, 2) < 0) child_fail(fds.status, Stage::kFds, errno);
  // Not the referee's sockets, nor other bots' or guardians' pipe ends (which would keep those
  // guardians from ever seeing EOF).
  close_from(3, -1, /*cloexec=*/true, p.max_fd);
  // But for bwrap's report of the sandbox's pid, its filter, its arguments and the files it
  // copies (dup2 leaves the new descriptor open on exec).
  if (fds.info >= 0 && ::dup2(fds.info, kSandboxInfoFd) < 0)
    child_fail(fds.status, Stage::kFds, errno);
  for (size_t i = 0; i < fds.passed_count; ++i)
    if (fds.passed[i] >= 0 && ::dup2(fds.passed[i], kSandboxSeccompFd + static_cast<int>(i)) < 0)
      child_fail(fds.status, Stage::kFds, errno);
}

// The bot, between fork and exec. Async-signal-safe calls only.
[[noreturn]] void bot_child(const Prepared& p, pid_t parent, int out_w, int status_w, int go_r,
                            int go_w, int info_w) {
  ::close(go_w);
  if (setpgid(0, 0) != 0) child_fail(status_w, Stage::kSetpgid, errno);
  child_confine(p, status_w);
  if (getppid() != parent) _exit(127);  // the referee died before prctl took effect
  child_wait_for_go(go_r);
  child_default_signals();
  const ChildFds fds = child_lift_fds(p, out_w, status_w, info_w);
  if (!p.working_dir.empty() && ::chdir(p.working_dir.c_str()) != 0) {
    child_fail(fds.status, Stage::kChdir, errno);
  }
  child_give_fds(p, fds);
  ::execve(p.exec_path.c_str(), p.argv.data(), p.envp.data());
  child_fail(fds.status, Stage::kExec, errno);
}

// The guardian, forked and never exec'd. Async-signal-safe calls only. Every signal stays
// blocked (inherited from the launcher thread), so a Ctrl-C or a stray SIGTERM cannot take it
// down before it has done its job; only SIGKILL can.
// The guardian's last step, once the bot's group is dead: its cgroups (the folders `folders`,
// their member lists `procs`) are removed, so a referee that died leaves none behind. What is
// still in them (an unsandboxed bot's setsid child, outside the group) is killed by its pid.
// Async-signal-safe: fixed buffers, the strings prepared before the fork.
void guardian_remove_cgroups(const std::vector<std::string>& folders,
                             const std::vector<std::string>& procs) {
  constexpr int kRemoveMs = 2000;
  for (int waited = 0; waited < kRemoveMs; waited += kGuardianPollMs) {
    bool all_gone = true;
    for (size_t i = 0; i < folders.size(); ++i) {
      if (::rmdir(folders[i].c_str()) == 0 || errno == ENOENT) continue;
      all_gone = false;
      const int fd = ::open(procs[i].c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      ::close(fd);
      long pid = 0;
      for (ssize_t k = 0; k < n; ++k) {
        if (buffer[k] >= '0' && buffer[k] <= '9') {
          pid = pid * 10 + (buffer[k] - '0');
        } else {
          if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
          pid = 0;
        }
      }
    }
    if (all_gone) return;
    const timespec step{0, kGuardianPollMs * 1000000L};
    nanosleep(&step, nullptr);
  }
}

[[noreturn]] void guardian_child(int guard_r, pid_t pgid, const Prepared& p) {
  const int max_fd = p.max_fd;
  // Out of the referee's process group: signals sent to that group (a terminal's Ctrl-C, a
  // supervisor killing the group) do not reach us.
  setpgid(0, 0);
  int guard = ::fcntl(guard_r, F_DUPFD, 3);
  if (guard < 0) guard = guard_r;
  const int null_fd = ::open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    for (int fd = 0; fd <= 2; ++fd) {
      if (fd != null_fd) ::dup2(null_fd, fd);
    }
  }
  // Close everything else: the referee's stdout (whoever reads it should see EOF when the
  // referee dies), its sockets, the bot's pipes, and other guardians' write ends.
  close_from(3, guard, /*cloexec=*/false, max_fd);

  char byte = 0;
  ssize_t n;
  do {
    n = ::read(guard, &byte, 1);  // nothing is ever written: this returns when the referee is gone
  } while (n < 0 && errno == EINTR);

  if (!p.cgroup_thaw_file.empty()) {
    const int fd = ::open(p.cgroup_thaw_file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      [[maybe_unused]] const ssize_t n =
          ::write(fd, p.cgroup_thaw_text, ::strlen(p.cgroup_thaw_text));
      ::close(fd);
    }
  }
  ::kill(-pgid, SIGTERM);
  for (int waited = 0; waited < kGuardianGraceMs; waited += kGuardianPollMs) {
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) break;
    const timespec step{0, kGuardianPollMs * 1000000L};
    nanosleep(&step, nullptr);
  }
  ::kill(-pgid, SIGKILL);
  guardian_remove_cgroups(p.cgroup_folders, p.cgroup_procs);
  _exit(0);
}

std::string describe_failure(const ChildFailure& f, const Prepared& p) {
  switch (f.stage) {
    case Stage::kSetpgid:
      return "cannot put the bot in its own process group: " + errno_text(f.err);
    case Stage::kPdeathsig:
      return "cannot set the bot's parent-death signal: " + errno_text(f.err);
    case Stage::kFds:
      return "cannot set up the bot's stdin/stdout/stderr: " + errno_text(f.err);
    case Stage::kChdir:
      return "cannot change to working directory '" + p.working_dir + "': " + errno_text(f.err);
    case Stage::kLimits:
      return "cannot set the bot's resource limits: " + errno_text(f.err);
    case Stage::kUser:
      return "cannot switch the bot to a user id of its own: " + errno_text(f.err);
    case Stage::kCgroup:
      return "cannot put the bot in its cgroups (" +
             (p.cgroup_join.empty() ? std::string() : p.cgroup_join.front()) +
             (p.cgroup_join.size() > 1 ? ", ..." : "") + "): " + errno_text(f.err);
    case Stage::kExec: {
      std::string text = "cannot execute '" + p.exec_path + "': " + errno_text(f.err);
      if (f.err == ENOENT) text += " (if it is a script, check the interpreter in its #! line)";
      if (f.err == ENOEXEC) text += " (not a binary; a script needs a #! line)";
      return text;
    }
  }
  return "the bot failed before exec: " + errno_text(f.err);
}

// The pipes between the referee and a bot it starts; whatever is still open when it goes out
// of scope is closed.
struct SpawnPipes {
  int out[2] = {-1, -1};     // the bot's stdout and stderr
  int status[2] = {-1, -1};  // a ChildFailure before exec, EOF at exec
  int go[2] = {-1, -1};      // releases the bot once its guardian runs
  int guard[2] = {-1, -1};   // the guardian's watch on the referee
  int info[2] = {-1, -1};    // bwrap's report of the sandbox's pid
  ~SpawnPipes() {
    for (int* pair : {out, status, go, guard, info}) {
      close_fd(pair[0]);
      close_fd(pair[1]);
    }
  }
};

// Reads the bot's status pipe until its exec: "" once it has exec'd (EOF: the pipe is
// O_CLOEXEC), else why it did not.
std::string wait_for_exec(int status_r, const Prepared& p) {
  ChildFailure failure{};
  size_t got = 0;
  const auto deadline = Clock::now() + kExecTimeout;
  while (got < sizeof failure) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return "the bot process did not exec within 10 s";
    pollfd pfd{status_r, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return "poll: " + errno_text(errno);
    if (ready <= 0) continue;
    const ssize_t n =
        ::read(status_r, reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got == sizeof failure) return describe_failure(failure, p);
  return got != 0 ? "the bot process failed before exec" : "";
}

// Forks the guardian of the bot `pid`: -1 with the reason in `error` when it cannot.
pid_t start_guardian(SpawnPipes& pipes, pid_t pid, const Prepared& p, std::string& error) {
  if (::pipe2(pipes.guard, O_CLOEXEC) != 0) {
    error = "cannot create pipes: " + errno_text(errno);
    return -1;
  }
  const pid_t guardian = _Fork();
  if (guardian == 0) guardian_child(pipes.guard[0], pid, p);
  if (guardian < 0) {
    error = "cannot fork the guardian: " + errno_text(errno);
    return -1;
  }
  // Out of the referee's group from here too, at once (the guardian does the same): a SIGKILL
  // to the referee's group must not catch it before it has, or nothing would end the bot.
  ::setpgid(guardian, guardian);
  close_fd(pipes.guard[0]);
  return guardian;
}

// A bot child (and its guardian, if > 0) that will not become the bot: killed and reaped.
Spawned abandon(SpawnPipes& pipes, pid_t pid, pid_t guardian, std::string error) {
  if (guardian > 0) {
    ::kill(guardian, SIGKILL);
    reap_bounded(guardian);
  }
  close_fd(pipes.go[1]);  // the child reads EOF (if it still waits) and exits without exec
  ::kill(pid, SIGKILL);
  reap_bounded(pid);
  Spawned result;
  result.error = std::move(error);
  return result;
}

// Runs on the launcher thread: forks the bot and its guardian and waits for the bot's exec.
Spawned spawn(const Prepared& p) {
  Spawned result;
  SpawnPipes pipes;
  if (::pipe2(pipes.out, O_CLOEXEC) != 0 || ::pipe2(pipes.status, O_CLOEXEC) != 0 ||
      ::pipe2(pipes.go, O_CLOEXEC) != 0 || (p.info_pipe && ::pipe2(pipes.info, O_CLOEXEC) != 0)) {
    result.error = "cannot create pipes: " + errno_text(errno);
    return result;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = _Fork();
  if (pid == 0)
    bot_child(p, parent, pipes.out[1], pipes.status[1], pipes.go[0], pipes.go[1], pipes.info[1]);
  if (pid < 0) {
    result.error = "cannot fork: " + errno_text(errno);
    return result;
  }
  close_fd(pipes.out[1]);
  close_fd(pipes.status[1]);
  close_fd(pipes.go[0]);
  close_fd(pipes.info[1]);
  // Also from here, so the group exists before anyone signals it (the child does the same; one
  // of the two calls wins, both have the same effect).
  ::setpgid(pid, pid);

  std::string error;
  const pid_t guardian = start_guardian(pipes, pid, p, error);
  if (guardian < 0) return abandon(pipes, pid, -1, std::move(error));
  // Release the bot. (If it already died, write fails with EPIPE; SIGPIPE stays blocked and
  // pending on this thread, and the status pipe below tells us what happened.)
  const char go_byte = 1;
  if (::write(pipes.go[1], &go_byte, 1) != 1)
    return abandon(pipes, pid, guardian, "the bot process died before exec: " + errno_text(errno));
  close_fd(pipes.go[1]);
  error = wait_for_exec(pipes.status[0], p);
  if (!error.empty()) return abandon(pipes, pid, guardian, std::move(error));

  result.pid = pid;
  result.guardian = guardian;
  // (Its socket folder needs no owner: in the sandbox it is a tmpfs bwrap makes as the bot.)
  if (p.uid_base != 0) result.uid = p.uid_base + static_cast<uint32_t>(pid);
  std::swap(result.out_r, pipes.out[0]);
  std::swap(result.guard_w, pipes.guard[1]);
  std::swap(result.info_r, pipes.info[0]);
  return result;
}

}  // namespace

OwnedFd& OwnedFd::operator=(OwnedFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) ::close(fd_);
}

OwnedFd memory_file(const char* name, const std::string& data, std::string* error) {
  OwnedFd fd(::memfd_create(name, MFD_CLOEXEC));
  if (fd.get() < 0) {
    *error = std::string("cannot make a memory file for ") + name + ": " + errno_text(errno);
    return OwnedFd();
  }
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("cannot write the memory file for ") + name + ": " + errno_text(errno);
      return OwnedFd();
    }
    done += static_cast<size_t>(n);
  }
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
    *error = std::string("cannot rewind the memory file for ") + name + ": " + errno_text(errno);
    return OwnedFd();
  }
  return fd;
}

std::string errno_text(int err) {
  const char* text = strerrordesc_np(err);
  return text != nullptr ? text : "error " + std::to_string(err);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reaps `pid` (our child, already sent SIGKILL or about to exit) within kReapTimeout. If it does
// not go (a process stuck in uninterruptible sleep), a detached thread keeps waiting so that it
// is reaped whenever it finally dies rather than left a zombie.
std::optional<siginfo_t> reap_bounded(pid_t pid) {
  const auto deadline = Clock::now() + kReapTimeout;
  for (;;) {
    siginfo_t info{};
    const int rc = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG);
    if (rc == 0 && info.si_pid == pid) return info;
    if (rc != 0 && errno != EINTR) return std::nullopt;  // ECHILD: someone else reaped it
    if (Clock::now() >= deadline) break;
    wait_ended(pid, deadline);
  }
  std::thread([pid] {
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED) != 0 && errno == EINTR) {
    }
  }).detach();
  return std::nullopt;
}

bool wait_ended(pid_t pid, Clock::time_point deadline) {
  auto ended = [pid] {
    siginfo_t info{};
    const int rc = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    return (rc == 0 && info.si_pid == pid) || (rc != 0 && errno == ECHILD);
  };
  const int fd = open_pidfd(pid);
  if (fd < 0) {
    // No pidfd (an older kernel; or ESRCH: the process is already gone): check every millisecond.
    while (!ended() && Clock::now() < deadline) sleep_for_at_most(milliseconds(1), deadline);
    return ended();
  }
  wait_readable(fd, deadline);  // a pidfd becomes readable when its process ends, reaped or not
  ::close(fd);
  return ended();
}

int open_pidfd(pid_t pid) {
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return -1;
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);  // pidfd_open sets it; made sure
  return static_cast<int>(fd);
}

void wait_readable(int fd, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::clamp<long long>(left, 0, 1 << 30)));
    if (ready > 0 || (ready < 0 && errno != EINTR)) return;  // readable, or poll failed
    if (ready == 0 && Clock::now() >= deadline) return;
  }
}

void sleep_for_at_most(std::chrono::milliseconds step,
                       std::chrono::steady_clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  if (left > Clock::duration::zero())
    std::this_thread::sleep_for(std::min<Clock::duration>(step, left));
}

Spawned spawn_bot(const Prepared& p) {
  Spawned spawned;
  Launcher::instance().run([&] { spawned = spawn(p); });
  return spawned;
}

}  // namespace allfives::referee::spawn
