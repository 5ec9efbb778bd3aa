// Starting and containing bot processes. The design is summarised in bot_process.h; the
// reasons for the less obvious choices are here.
//
// Why plain _Fork + execve and not Boost.Process (1.74): we need setpgid and PR_SET_PDEATHSIG in
// the child, a start-up handshake with the child, a second forked process (the guardian) that
// never execs, and exact control over which descriptors survive. Boost.Process v1 can do the
// first through on_exec_setup handlers but none of the rest, so it would add a layer without
// removing any of the code below. _Fork (glibc >= 2.34) rather than fork: it runs no
// pthread_atfork handlers (gRPC installs some), and the children only make async-signal-safe
// calls anyway, on data prepared before the fork, as required after forking a multi-threaded
// process.
//
// Why a guardian process per bot (forked, no exec) rather than re-executing the referee with a
// hidden argument: it needs no cooperation from whichever main() links this library (the
// referee, the tests, a future tournament runner), and it is ~25 lines of async-signal-safe
// code. Its cost is one small copy-on-write process per bot. Why one per bot rather than one per
// referee: it needs no protocol (the pipe's EOF is the only message), and a guardian that is
// killed takes only one bot's cover away.
//
// Why the guardian reads a pipe: the kernel closes a dead process's descriptors whatever killed
// it, so EOF on a pipe whose only write end is in the referee is a reliable "the referee is
// gone", independent of which thread forked. Every descriptor is O_CLOEXEC and every child
// closes all descriptors it does not need, so no bot, grandchild or other guardian holds a
// write end that would keep a guardian from seeing that EOF.
#include "process/bot_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <system_error>
#include <thread>

#include "process/capped_output.h"

extern char** environ;

namespace allfives::referee {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a guardian waits between SIGTERM and SIGKILL once the referee is gone.
constexpr int kGuardianGraceMs = 1000;
constexpr int kGuardianPollMs = 10;
// Bounds on waits that should be instantaneous: the child's exec, reaping a SIGKILLed process,
// the reader seeing EOF after the group is dead.
constexpr milliseconds kExecTimeout{10000};
constexpr milliseconds kReapTimeout{2000};
constexpr milliseconds kReaderDrainTimeout{500};
// When the reader is told to stop (someone outside the group still holds the pipe), it reads at
// most this much more.
constexpr size_t kFinalDrainBytes = 1 << 20;

std::string errno_text(int err) {
  const char* text = strerrordesc_np(err);
  return text != nullptr ? text : "error " + std::to_string(err);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "unknown signal";
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void sleep_for_at_most(milliseconds step, Clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  if (left > Clock::duration::zero())
    std::this_thread::sleep_for(std::min<Clock::duration>(step, left));
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
    sleep_for_at_most(milliseconds(2), deadline);
  }
  std::thread([pid] {
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED) != 0 && errno == EINTR) {
    }
  }).detach();
  return std::nullopt;
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
  std::string own_dir;                 // handed to that user before exec (the bot's socket folder)
  std::vector<std::string> read_only;  // the sandbox's read-only folders, for the record
};

// What a bot child reports on its status pipe when it fails before exec.
enum class Stage : int { kSetpgid = 1, kPdeathsig, kFds, kChdir, kExec, kLimits, kUser };
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

// The bot, between fork and exec. Async-signal-safe calls only.
[[noreturn]] void bot_child(const Prepared& p, pid_t parent, int out_w, int status_w, int go_r,
                            int go_w) {
  ::close(go_w);
  if (setpgid(0, 0) != 0) child_fail(status_w, Stage::kSetpgid, errno);
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
  if (getppid() != parent) _exit(127);  // the referee died before prctl took effect
  // Wait until the referee has started our guardian: if it dies before that, we read EOF and
  // never exec, so no grandchild can exist without a guardian watching over it.
  char go = 0;
  ssize_t n;
  do {
    n = ::read(go_r, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) _exit(127);
  ::close(go_r);

  // Default dispositions (an ignored signal would stay ignored across exec; the referee ignores
  // SIGPIPE, for one) and an empty mask (the launcher thread blocks everything).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // KILL/STOP: EINVAL, fine
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // Move our pipe ends above 2 so the dup2 calls below cannot clobber them (the referee may have
  // closed its own stdin/stdout).
  const int out_hi = ::fcntl(out_w, F_DUPFD_CLOEXEC, 3);
  const int status_hi = ::fcntl(status_w, F_DUPFD_CLOEXEC, 3);
  if (out_hi < 0 || status_hi < 0) child_fail(status_w, Stage::kFds, errno);
  status_w = status_hi;

  if (!p.working_dir.empty() && ::chdir(p.working_dir.c_str()) != 0) {
    child_fail(status_w, Stage::kChdir, errno);
  }
  // stdin: /dev/null. stdout and stderr: the one capture pipe.
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) child_fail(status_w, Stage::kFds, errno);
  if (null_fd != 0) {
    if (::dup2(null_fd, 0) < 0) child_fail(status_w, Stage::kFds, errno);
  }
  if (::dup2(out_hi, 1) < 0 || ::dup2(out_hi, 2) < 0) child_fail(status_w, Stage::kFds, errno);
  // Nothing else crosses the exec: not the referee's sockets, nor other bots' or guardians' pipe
  // ends (which would keep those guardians from ever seeing EOF).
  close_from(3, -1, /*cloexec=*/true, p.max_fd);

  ::execve(p.exec_path.c_str(), p.argv.data(), p.envp.data());
  child_fail(status_w, Stage::kExec, errno);
}

// The guardian, forked and never exec'd. Async-signal-safe calls only. Every signal stays
// blocked (inherited from the launcher thread), so a Ctrl-C or a stray SIGTERM cannot take it
// down before it has done its job; only SIGKILL can.
[[noreturn]] void guardian_child(int guard_r, pid_t pgid, int max_fd) {
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

  ::kill(-pgid, SIGTERM);
  for (int waited = 0; waited < kGuardianGraceMs; waited += kGuardianPollMs) {
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) _exit(0);
    const timespec step{0, kGuardianPollMs * 1000000L};
    nanosleep(&step, nullptr);
  }
  ::kill(-pgid, SIGKILL);
  _exit(0);
}

struct Spawned {
  pid_t pid = -1;
  pid_t guardian = -1;
  int out_r = -1;    // read end of the bot's stdout/stderr
  int guard_w = -1;  // write end of the guardian's pipe; closing it (by dying) fires the guardian
  uint32_t uid = 0;  // the bot's own user id, 0 if it kept ours
  std::string error;
};

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
    case Stage::kExec: {
      std::string text = "cannot execute '" + p.exec_path + "': " + errno_text(f.err);
      if (f.err == ENOENT) text += " (if it is a script, check the interpreter in its #! line)";
      if (f.err == ENOEXEC) text += " (not a binary; a script needs a #! line)";
      return text;
    }
  }
  return "the bot failed before exec: " + errno_text(f.err);
}

// Runs on the launcher thread: forks the bot and its guardian and waits for the bot's exec.
Spawned spawn(const Prepared& p) {
  Spawned result;
  int out[2] = {-1, -1};
  int status[2] = {-1, -1};
  int go[2] = {-1, -1};
  int guard[2] = {-1, -1};
  auto close_all = [&] {
    for (int* pair : {out, status, go, guard}) {
      close_fd(pair[0]);
      close_fd(pair[1]);
    }
  };
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(status, O_CLOEXEC) != 0 ||
      ::pipe2(go, O_CLOEXEC) != 0) {
    result.error = "cannot create pipes: " + errno_text(errno);
    close_all();
    return result;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = _Fork();
  if (pid == 0) bot_child(p, parent, out[1], status[1], go[0], go[1]);
  if (pid < 0) {
    result.error = "cannot fork: " + errno_text(errno);
    close_all();
    return result;
  }
  close_fd(out[1]);
  close_fd(status[1]);
  close_fd(go[0]);
  // Also from here, so the group exists before anyone signals it (the child does the same; one
  // of the two calls wins, both have the same effect).
  ::setpgid(pid, pid);
  if (p.uid_base != 0) {
    result.uid = p.uid_base + static_cast<uint32_t>(pid);
    // The bot's own socket folder becomes its user's (the child waits for `go` before exec).
    if (!p.own_dir.empty() && ::chown(p.own_dir.c_str(), result.uid, result.uid) != 0) {
      const int err = errno;
      close_fd(go[1]);
      ::kill(pid, SIGKILL);
      reap_bounded(pid);
      close_all();
      result = Spawned{};
      result.error = "cannot give the folder '" + p.own_dir + "' to the bot: " + errno_text(err);
      return result;
    }
  }

  auto abandon = [&](std::string error) {
    close_fd(go[1]);  // the child reads EOF (if it still waits) and exits without exec
    ::kill(pid, SIGKILL);
    reap_bounded(pid);
    close_all();
    result = Spawned{};
    result.error = std::move(error);
    return result;
  };

  if (::pipe2(guard, O_CLOEXEC) != 0) return abandon("cannot create pipes: " + errno_text(errno));
  const pid_t guardian = _Fork();
  if (guardian == 0) guardian_child(guard[0], pid, p.max_fd);
  if (guardian < 0) return abandon("cannot fork the guardian: " + errno_text(errno));
  close_fd(guard[0]);
  result.guardian = guardian;

  auto abandon_both = [&](std::string error) {
    ::kill(guardian, SIGKILL);
    reap_bounded(guardian);
    return abandon(std::move(error));
  };

  // Release the bot. (If it already died, write fails with EPIPE; SIGPIPE stays blocked and
  // pending on this thread, and the status pipe below tells us what happened.)
  const char go_byte = 1;
  if (::write(go[1], &go_byte, 1) != 1) {
    return abandon_both("the bot process died before exec: " + errno_text(errno));
  }
  close_fd(go[1]);

  // EOF on the status pipe means the exec succeeded (the pipe is O_CLOEXEC); a ChildFailure
  // record means it did not.
  ChildFailure failure{};
  size_t got = 0;
  const auto deadline = Clock::now() + kExecTimeout;
  while (got < sizeof failure) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return abandon_both("the bot process did not exec within 10 s");
    pollfd pfd{status[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return abandon_both("poll: " + errno_text(errno));
    if (ready <= 0) continue;
    const ssize_t n =
        ::read(status[0], reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got == sizeof failure) return abandon_both(describe_failure(failure, p));
  if (got != 0) return abandon_both("the bot process failed before exec");

  result.pid = pid;
  result.out_r = out[0];
  out[0] = -1;
  result.guard_w = guard[1];
  guard[1] = -1;
  close_all();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Preparing a launch (on the caller's thread).

bool is_executable_file(const std::string& path, std::string* why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *why = errno_text(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *why = "it is a directory";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = "it is not a regular file";
    return false;
  }
  if (::access(path.c_str(), X_OK) != 0) {
    *why = "it is not executable (" + errno_text(errno) + ")";
    return false;
  }
  return true;
}

std::optional<std::string> resolve_program(const std::string& name, const std::string& path_env,
                                           const std::string& working_dir, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.find('/') != std::string::npos) {
    fs::path path(name);
    if (path.is_relative() && !working_dir.empty()) path = fs::path(working_dir) / path;
    path = fs::absolute(path, ec);
    if (ec) {
      *error = "cannot resolve '" + name + "': " + ec.message();
      return std::nullopt;
    }
    std::string why;
    if (!is_executable_file(path.string(), &why)) {
      *error = "cannot run '" + path.string() + "': " + why;
      return std::nullopt;
    }
    return path.string();
  }
  std::string not_executable;  // the first match that exists but cannot be run
  size_t begin = 0;
  while (begin <= path_env.size()) {
    size_t end = path_env.find(':', begin);
    if (end == std::string::npos) end = path_env.size();
    const std::string dir = path_env.substr(begin, end - begin);
    begin = end + 1;
    if (dir.empty()) continue;  // an empty PATH entry ("current directory") is not honoured
    const fs::path candidate = fs::absolute(fs::path(dir) / name, ec);
    if (ec) continue;
    std::string why;
    if (is_executable_file(candidate.string(), &why)) return candidate.string();
    if (not_executable.empty() && ::access(candidate.c_str(), F_OK) == 0) {
      not_executable = candidate.string() + ": " + why;
    }
  }
  if (!not_executable.empty()) {
    *error = "cannot run '" + name + "': found " + not_executable;
  } else {
    *error = "program '" + name + "' not found in PATH (" + path_env + ")";
  }
  return std::nullopt;
}

std::optional<Prepared> prepare(const LaunchSpec& spec, std::string* error) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    *error = "no program to run (empty argv)";
    return std::nullopt;
  }
  Prepared p;
  if (!spec.working_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.working_dir, ec)) {
      *error = "working directory '" + spec.working_dir + "' is not a directory" +
               (ec ? " (" + ec.message() + ")" : "");
      return std::nullopt;
    }
    p.working_dir = std::filesystem::absolute(spec.working_dir, ec).string();
  }

  // The environment: ours (or, with clean_environment, the short list of bot_environment()),
  // with extra_env added or replacing same-named variables.
  std::string path_env = "/usr/local/bin:/usr/bin:/bin";
  if (const char* ours = std::getenv("PATH"); ours != nullptr && *ours != '\0') path_env = ours;
  if (spec.clean_environment) {
    p.env_storage = bot_environment(path_env, spec.extra_env);
  } else {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      p.env_storage.emplace_back(*entry);
    }
    for (const auto& [key, value] : spec.extra_env) {
      const std::string prefix = key + "=";
      std::erase_if(p.env_storage, [&](const std::string& e) { return e.starts_with(prefix); });
      p.env_storage.push_back(prefix + value);
    }
  }
  for (const std::string& entry : p.env_storage) {
    if (entry.starts_with("PATH=")) path_env = entry.substr(5);
  }

  auto exec_path = resolve_program(spec.argv[0], path_env, p.working_dir, error);
  if (!exec_path) return std::nullopt;
  p.exec_path = std::move(*exec_path);
  p.argv_storage = spec.argv;

  if (spec.sandbox) {
    SandboxLayout layout;
    layout.bwrap = find_bwrap();
    if (layout.bwrap.empty()) {
      *error = "the bwrap program (bubblewrap) is not installed (not found in PATH)";
      return std::nullopt;
    }
    add_system_paths(layout);
    std::error_code ec;
    layout.working_dir =
        p.working_dir.empty() ? std::filesystem::current_path(ec).string() : p.working_dir;
    // The program by its absolute path: PATH inside the sandbox may not lead to it.
    p.argv_storage[0] = p.exec_path;
    layout.read_only = read_only_folders(p.argv_storage, layout.working_dir, spec.read_only_dirs);
    p.read_only = layout.read_only;
    layout.writable = spec.writable_dir;
    p.argv_storage = bwrap_argv(layout, p.argv_storage);
    p.exec_path = layout.bwrap;
    p.working_dir.clear();  // bwrap changes into it inside the sandbox
  }
  const ResourceLimits& l = spec.limits;
  constexpr rlim_t kMiB = 1024 * 1024;
  if (l.memory_mib != 0) p.rlimits.emplace_back(RLIMIT_AS, l.memory_mib * kMiB);
  if (l.open_files != 0) p.rlimits.emplace_back(RLIMIT_NOFILE, l.open_files);
  if (l.file_size_mib != 0) p.rlimits.emplace_back(RLIMIT_FSIZE, l.file_size_mib * kMiB);
  if (l.no_core_dumps) p.rlimits.emplace_back(RLIMIT_CORE, 0);
  if (spec.own_user) {
    p.uid_base = bot_uid_base();
    p.own_dir = spec.writable_dir;
    // Only a per-bot count under a user id of the bot's own (see ResourceLimits::processes).
    if (p.uid_base != 0 && l.processes != 0) p.rlimits.emplace_back(RLIMIT_NPROC, l.processes);
  }

  for (std::string& arg : p.argv_storage) p.argv.push_back(arg.data());
  p.argv.push_back(nullptr);
  for (std::string& entry : p.env_storage) p.envp.push_back(entry.data());
  p.envp.push_back(nullptr);

  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    p.max_fd = static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536));
  }
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

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

std::string describe_exit_with_limits(const ExitStatus& status, const ResourceLimits& limits,
                                      const std::string& output_tail) {
  const std::string how = status.describe();
  if (status.signaled && status.signal == SIGXFSZ && limits.file_size_mib != 0) {
    return "exceeded its file size limit of " + std::to_string(limits.file_size_mib) + " MiB (" +
           how + ")";
  }
  if (!status.signaled && status.code == 0) return how;  // a clean exit is not a limit's doing
  auto said = [&](const char* text) { return output_tail.find(text) != std::string::npos; };
  if (limits.memory_mib != 0 && (said("std::bad_alloc") || said("MemoryError") ||
                                 said("Cannot allocate memory") || said("out of memory"))) {
    return "exceeded its memory limit of " + std::to_string(limits.memory_mib) + " MiB (" + how +
           ")";
  }
  if (limits.processes != 0 && said("Resource temporarily unavailable") &&
      (said("fork") || said("thread") || said("clone") || said("system_error"))) {
    return "reached its limit of " + std::to_string(limits.processes) + " processes and threads (" +
           how + ")";
  }
  return how;
}

struct BotProcess::Impl {
  explicit Impl(size_t cap) : output(cap) {}
  ~Impl() {
    close_fd(guard_w);
    close_fd(out_r);
    close_fd(wake_r);
    close_fd(wake_w);
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

void BotProcess::Impl::read_output() {
  std::vector<char> buffer(64 * 1024);
  auto keep = [&](ssize_t n) {
    std::lock_guard lock(out_mu);
    output.append(std::string_view(buffer.data(), static_cast<size_t>(n)));
  };
  for (;;) {
    pollfd fds[2] = {{out_r, POLLIN, 0}, {wake_r, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) {
      // Told to stop: the group is dead, but someone outside it still holds the pipe. Take
      // what is there now (bounded, in case that someone keeps writing) and quit.
      size_t total = 0;
      while (total < kFinalDrainBytes) {
        const ssize_t n = ::read(out_r, buffer.data(), buffer.size());
        if (n <= 0) break;
        keep(n);
        total += static_cast<size_t>(n);
      }
      break;
    }
    if (fds[0].revents != 0) {
      // Read and keep under out_mu, so that take_stderr()'s own drain cannot reorder output.
      ssize_t n;
      int err = 0;
      {
        std::lock_guard lock(out_mu);
        n = ::read(out_r, buffer.data(), buffer.size());
        if (n > 0) {
          output.append(std::string_view(buffer.data(), static_cast<size_t>(n)));
        } else {
          err = errno;
        }
      }
      if (n == 0 || (n < 0 && err != EINTR && err != EAGAIN)) {
        break;  // EOF: every process that had the pipe is gone
      }
    }
  }
  std::lock_guard lock(reader_mu);
  reader_done = true;
  reader_cv.notify_all();
}

void BotProcess::Impl::finish_reader() {
  if (!reader.joinable()) return;
  bool done;
  {
    std::unique_lock lock(reader_mu);
    done = reader_cv.wait_for(lock, kReaderDrainTimeout, [this] { return reader_done; });
  }
  if (!done) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_w, &byte, 1);
  }
  reader.join();
}

BotProcess::BotProcess() = default;

BotProcess::~BotProcess() {
  if (impl_) stop();
}

std::unique_ptr<BotProcess> BotProcess::start(const LaunchSpec& spec, std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  error->clear();

  std::optional<Prepared> prepared = prepare(spec, error);
  if (!prepared) return nullptr;

  Spawned spawned;
  try {
    Launcher::instance().run([&] { spawned = spawn(*prepared); });
  } catch (const std::system_error& e) {  // the launcher thread could not be created
    *error = std::string("cannot start the launcher thread: ") + e.what();
    return nullptr;
  }
  if (spawned.pid < 0) {
    *error = spawned.error;
    return nullptr;
  }

  std::unique_ptr<BotProcess> bot(new BotProcess());
  bot->pid_ = spawned.pid;
  bot->guardian_pid_ = spawned.guardian;
  bot->uid_ = spawned.uid != 0 ? spawned.uid : static_cast<uint32_t>(::getuid());
  bot->impl_ = std::make_unique<Impl>(spec.stderr_cap_bytes);
  Impl& impl = *bot->impl_;
  impl.limits = spec.limits;
  if (spawned.uid == 0) impl.limits.processes = 0;  // not applied (see ResourceLimits)
  impl.sandboxed = spec.sandbox;
  impl.read_only = prepared->read_only;
  impl.guard_w = spawned.guard_w;
  impl.out_r = spawned.out_r;
  // Non-blocking on our side only (the bot holds the other end, a separate open file).
  ::fcntl(impl.out_r, F_SETFL, ::fcntl(impl.out_r, F_GETFL) | O_NONBLOCK);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    *error = "cannot create pipes: " + errno_text(errno);
    bot->stop(milliseconds(0));  // kills and reaps everything started so far
    return nullptr;
  }
  impl.wake_r = wake[0];
  impl.wake_w = wake[1];
  try {
    impl.reader = std::thread([&impl] { impl.read_output(); });
  } catch (const std::system_error& e) {
    *error = std::string("cannot start the output reader thread: ") + e.what();
    bot->stop(milliseconds(0));
    return nullptr;
  }
  return bot;
}

const std::vector<std::string>& BotProcess::read_only_dirs() const {
  return impl_->read_only;
}

const ResourceLimits& BotProcess::limits() const {
  return impl_->limits;
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
  std::string tail;
  {
    std::lock_guard out_lock(impl_->out_mu);
    tail = impl_->output.last(4096);
  }
  return describe_exit_with_limits(impl_->status, impl_->limits, tail);
}

std::string BotProcess::take_stderr() {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.out_mu);
  // What the pipe holds now, before the reader thread gets to it: on a busy machine that
  // thread may lag behind a match that has just ended, and its output belongs to that match.
  char buffer[16 * 1024];
  size_t total = 0;
  while (impl.out_r >= 0 && total < kFinalDrainBytes) {
    const ssize_t n = ::read(impl.out_r, buffer, sizeof buffer);
    if (n <= 0) break;  // empty (EAGAIN: the descriptor is non-blocking), EOF or error
    impl.output.append(std::string_view(buffer, static_cast<size_t>(n)));
    total += static_cast<size_t>(n);
  }
  return impl.output.take();
}

void BotProcess::request_stop() {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.mu);
  if (impl.stopped || impl.term_sent || impl.check_exited(pid_)) return;
  ::kill(-pid_, SIGTERM);
  impl.term_sent = true;
}

void BotProcess::stop(milliseconds grace) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.mu);
  if (impl.stopped) return;

  if (!impl.check_exited(pid_)) {
    if (!impl.term_sent) ::kill(-pid_, SIGTERM);
    impl.term_sent = true;
    const auto deadline = Clock::now() + grace;
    auto step = milliseconds(1);
    while (!impl.check_exited(pid_) && Clock::now() < deadline) {
      sleep_for_at_most(step, deadline);
      step = std::min(step * 2, milliseconds(20));
    }
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
  impl.stopped = true;
  impl.finish_reader();
}

}  // namespace allfives::referee
