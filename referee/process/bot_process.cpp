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
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "process/capped_output.h"
#include "process/seccomp.h"
#include "process/spawn.h"

extern char** environ;

namespace allfives::referee {

namespace {

using Clock = std::chrono::steady_clock;
using spawn::close_fd;
using spawn::errno_text;
using spawn::Prepared;
using spawn::reap_bounded;
using spawn::sleep_for_at_most;
using spawn::Spawned;
using std::chrono::milliseconds;

// A bound on a wait that should be instantaneous: the reader seeing EOF after the group is dead.
constexpr milliseconds kReaderDrainTimeout{500};
// When the reader is told to stop (someone outside the group still holds the pipe), it reads at
// most this much more.
constexpr size_t kFinalDrainBytes = 1 << 20;

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

// The folders of a sandbox's layout for `argv` started in `working_dir`: the system's, those
// bound read-only, and the masks over the referee's own paths; the one place they are decided
// (prepare() and hidden_paths_refusal()). Why a mask cannot be made, or nullopt.
std::optional<std::string> lay_out_folders(SandboxLayout& layout,
                                           const std::vector<std::string>& argv,
                                           const std::string& working_dir, const LaunchSpec& spec) {
  // A bot runs as root only when the referee does and gives it no user id of its own.
  add_system_paths(layout, ::getuid() == 0 && !spec.own_user);
  layout.read_only = read_only_folders(argv, working_dir, spec.read_only_dirs);
  return mask_hidden_paths(layout, needed_folders(argv, working_dir, spec.read_only_dirs),
                           spec.hidden);
}

// The environment: ours (or, with clean_environment, the short list of bot_environment()),
// with extra_env added or replacing same-named variables. Returns the PATH it holds.
std::string set_environment(const LaunchSpec& spec, Prepared& p) {
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
  return path_env;
}

// bwrap's options go in a memory file (--args): its own command line, which is the sandbox's
// /proc/1/cmdline, then shows the bot's command (the bot's own anyway) and none of the host's
// paths it binds or covers (bwrap takes the command from its real argv). The seccomp filter goes
// in another. p's command becomes bwrap's.
bool pass_bwrap_options(SandboxLayout& layout, Prepared& p, std::string* error) {
  const std::string filter = sandbox_seccomp_filter();
  if (!filter.empty()) {
    p.passed.push_back(spawn::memory_file("allfives-seccomp", filter, error));
    if (p.passed.back().get() < 0) return false;
    layout.seccomp_fd = spawn::kSandboxSeccompFd;
  } else {
    p.passed.emplace_back();  // keeps the arguments at kSandboxArgsFd
  }
  layout.copied_fd = spawn::kSandboxCopiedFd;
  const std::vector<std::string> full = bwrap_argv(layout, p.argv_storage);
  const auto command = std::find(full.begin(), full.end(), std::string("--"));
  std::string options;
  for (auto it = full.begin() + 1; it != command; ++it) options.append(*it).push_back('\0');
  p.passed.push_back(spawn::memory_file("allfives-bwrap-args", options, error));
  if (p.passed.back().get() < 0) return false;
  for (const std::string& file : layout.copied_files) {
    p.passed.emplace_back(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (p.passed.back().get() < 0 || ::fstat(p.passed.back().get(), &st) != 0) {
      *error = "cannot open " + file + " to copy it into the sandbox: " + errno_text(errno);
      return false;
    }
    if (!copied_into_sandbox(st)) {  // changed since the layout was made
      *error = file + " changed while the bot's sandbox was being made: start it again";
      return false;
    }
  }
  std::vector<std::string> argv = {layout.bwrap, "--args", std::to_string(spawn::kSandboxArgsFd)};
  argv.insert(argv.end(), command, full.end());
  p.argv_storage = std::move(argv);
  p.exec_path = layout.bwrap;
  p.working_dir.clear();  // bwrap changes into it inside the sandbox
  return true;
}

// The command `p` holds run inside a sandbox of its own (sandbox.h), bwrap's command in its
// place.
bool prepare_sandbox(const LaunchSpec& spec, Prepared& p, std::string* error) {
  SandboxLayout layout;
  layout.bwrap = find_bwrap();
  if (layout.bwrap.empty()) {
    *error = "the bwrap program (bubblewrap) is not installed (not found in PATH)";
    return false;
  }
  std::error_code ec;
  const std::string working_dir =
      p.working_dir.empty() ? std::filesystem::current_path(ec).string() : p.working_dir;
  layout.working_dir = working_dir;
  // The program by its absolute path: PATH inside the sandbox may not lead to it.
  p.argv_storage[0] = p.exec_path;
  if (const std::optional<std::string> refusal =
          link_refusal(p.argv_storage, working_dir, spec.read_only_dirs, spec.hidden)) {
    *error = "the sandbox would not be what it looks like: " + *refusal;
    return false;
  }
  if (const std::optional<std::string> refusal =
          lay_out_folders(layout, p.argv_storage, working_dir, spec)) {
    *error = "the sandbox would show it the referee's own files: " + *refusal;
    return false;
  }
  p.read_only = layout.read_only;
  // Bound from their real paths, resolved here once: bwrap binds what was checked.
  for (const std::string& dir : layout.read_only) {
    std::error_code real_ec;
    const std::filesystem::path real = std::filesystem::canonical(dir, real_ec);
    layout.read_only_sources.push_back(real_ec ? dir : real.string());
  }
  // A mask needs something to cover: a folder made after the bot started would show through.
  for (const HiddenPath& m : layout.masks) {
    if (!std::filesystem::exists(m.path, ec)) {
      *error = m.what + " " + m.path + " does not exist yet, so it cannot be hidden from the bot";
      return false;
    }
  }
  layout.writable = spec.writable_dir;
  layout.info_fd = spawn::kSandboxInfoFd;
  p.info_pipe = true;
  layout.disable_userns = bwrap_disables_userns();
  return pass_bwrap_options(layout, p, error);
}

// Memory and processes: by cgroups of the bot's own where they can be made. RLIMIT_AS is then
// not set as well: it would count virtual memory again, per process, and fail runtimes that
// reserve more address space than they use. Where a cgroup cannot be made after all, the
// limits fall back to setrlimit; the log header says which applied. The rest by setrlimit.
void apply_limits(const LaunchSpec& spec, Prepared& p) {
  const ResourceLimits& l = spec.limits;
  constexpr rlim_t kMiB = 1024 * 1024;
  if (spec.cgroups) {
    const CgroupPlaces& places = cgroup_places();
    const CpuCgroupOptions cpu{spec.watch_cpu, l.cpu_percent};
    if ((l.memory_mib != 0 && !places.memory_parent.empty()) ||
        (l.processes != 0 && !places.pids_parent.empty()) ||
        (cpu.watch && !places.freezer_parent.empty()) ||
        (cpu.cpu_percent != 0 && !places.cpu_parent.empty())) {
      std::string why;
      p.cgroup = BotCgroup::create(places, l.memory_mib, l.processes, cpu, &why);
    }
  }
  if (p.cgroup) {
    p.memory_by = p.cgroup->memory_by();
    p.processes_by = p.cgroup->processes_by();
    p.cgroup_folders = p.cgroup->folders();
    p.cgroup_procs = p.cgroup->procs_files();
    p.cgroup_join = p.cgroup->join_files();
    p.cgroup_thaw_file = p.cgroup->thaw_file();
    p.cgroup_thaw_text = p.cgroup->thaw_text();
  }
  if (l.memory_mib != 0 && p.memory_by == LimitMechanism::kNone) {
    p.rlimits.emplace_back(RLIMIT_AS, l.memory_mib * kMiB);
    p.memory_by = LimitMechanism::kRlimit;
  }
  if (l.open_files != 0) p.rlimits.emplace_back(RLIMIT_NOFILE, l.open_files);
  if (l.file_size_mib != 0) p.rlimits.emplace_back(RLIMIT_FSIZE, l.file_size_mib * kMiB);
  if (l.no_core_dumps) p.rlimits.emplace_back(RLIMIT_CORE, 0);
  if (spec.own_user) {
    p.uid_base = bot_uid_base();
    // Only a per-bot count under a user id of the bot's own (see ResourceLimits::processes).
    if (p.uid_base != 0 && l.processes != 0 && p.processes_by == LimitMechanism::kNone) {
      p.rlimits.emplace_back(RLIMIT_NPROC, l.processes);
      p.processes_by = LimitMechanism::kRlimit;
    }
  }
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
  const std::string path_env = set_environment(spec, p);
  auto exec_path = resolve_program(spec.argv[0], path_env, p.working_dir, error);
  if (!exec_path) return std::nullopt;
  p.exec_path = std::move(*exec_path);
  p.argv_storage = spec.argv;
  if (spec.sandbox && !prepare_sandbox(spec, p, error)) return std::nullopt;
  apply_limits(spec, p);

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
  // Left uninitialized: only the pages a read fills become resident, usually one (a bot that
  // writes little), where zeroing would make all 16 resident in each bot's reader thread.
  constexpr size_t kBufferBytes = 64 * 1024;
  const auto buffer = std::make_unique_for_overwrite<char[]>(kBufferBytes);
  auto keep = [&](ssize_t n) {
    std::lock_guard lock(out_mu);
    output.append(std::string_view(buffer.get(), static_cast<size_t>(n)));
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
        const ssize_t n = ::read(out_r, buffer.get(), kBufferBytes);
        if (n <= 0) break;
        keep(n);
        total += static_cast<size_t>(n);
      }
      break;
    }
    if (fds[0].revents != 0) {
      // Read and keep under out_mu, so that take_output()'s own drain cannot reorder output.
      ssize_t n;
      int err = 0;
      {
        std::lock_guard lock(out_mu);
        n = ::read(out_r, buffer.get(), kBufferBytes);
        if (n > 0) {
          output.append(std::string_view(buffer.get(), static_cast<size_t>(n)));
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
    spawned = spawn::spawn_bot(*prepared);
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
  impl.cgroup = prepared->cgroup;
  if (impl.cgroup) impl.cgroup_folders = impl.cgroup->folders();
  impl.memory_by = prepared->memory_by;
  impl.processes_by = prepared->processes_by;
  if (impl.processes_by == LimitMechanism::kNone) impl.limits.processes = 0;  // not applied
  impl.sandboxed = spec.sandbox;
  impl.read_only = prepared->read_only;
  impl.guard_w = spawned.guard_w;
  impl.info_r = spawned.info_r;
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

int BotProcess::sandbox_pid(Clock::time_point deadline) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.info_mu);
  if (impl.info_r < 0) return impl.sandbox_pid;
  // bwrap writes {"child-pid": N, ...} once it has made the sandbox's first process, then
  // closes the pipe; if it fails before, the pipe just closes (EOF).
  std::string text;
  char buffer[512];
  while (text.size() < 4096) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd pfd{impl.info_r, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(impl.info_r, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.find('}') != std::string::npos) break;
  }
  close_fd(impl.info_r);
  const size_t key = text.find("\"child-pid\"");
  const size_t digits = key == std::string::npos ? key : text.find_first_of("0123456789", key);
  if (digits != std::string::npos) {
    const int pid = std::atoi(text.c_str() + digits);
    if (pid > 0) impl.sandbox_pid = pid;
  }
  return impl.sandbox_pid;
}

const std::vector<std::string>& BotProcess::read_only_dirs() const {
  return impl_->read_only;
}

const ResourceLimits& BotProcess::limits() const {
  return impl_->limits;
}

LimitMechanism BotProcess::memory_limit_by() const {
  return impl_->memory_by;
}

LimitMechanism BotProcess::processes_limit_by() const {
  return impl_->processes_by;
}

const std::vector<std::string>& BotProcess::cgroups() const {
  return impl_->cgroup_folders;
}

LimitMechanism BotProcess::freezer_by() const {
  return impl_->cgroup ? impl_->cgroup->freezer_by() : LimitMechanism::kNone;
}

LimitMechanism BotProcess::cpu_limit_by() const {
  return impl_->cgroup ? impl_->cgroup->cpu_by() : LimitMechanism::kNone;
}

std::optional<uint64_t> BotProcess::cpu_time_us() const {
  return impl_->cgroup ? impl_->cgroup->cpu_time_us() : std::nullopt;
}

bool BotProcess::set_frozen(bool frozen) {
  std::lock_guard lock(impl_->mu);
  if (impl_->stopped || !impl_->cgroup) return false;
  return impl_->cgroup->set_frozen(frozen);
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

LimitEvidence BotProcess::limit_evidence() const {
  LimitEvidence evidence;
  if (impl_->cgroup) {
    evidence.oom_kills = impl_->cgroup->oom_kills();
    evidence.process_limit_hits = impl_->cgroup->process_limit_hits();
  }
  return evidence;
}

std::string BotProcess::limit_reached_since(const LimitEvidence& before) const {
  LimitEvidence now = limit_evidence();
  now.oom_kills -= std::min(now.oom_kills, before.oom_kills);
  now.process_limit_hits -= std::min(now.process_limit_hits, before.process_limit_hits);
  return limit_reached(impl_->limits, now);
}

CappedOutput::Taken BotProcess::take_output() {
  return take_output(std::numeric_limits<size_t>::max());
}

CappedOutput::Taken BotProcess::take_output(size_t cap) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.out_mu);
  // What the pipe holds now, before the reader thread gets to it: on a busy machine that
  // thread may lag behind a match (or a decision) that has just ended, and its output belongs
  // there. The pipe holds at most its capacity (64 KiB) while the bot waits on it, so this
  // bound is only reached by a bot that keeps writing from another thread.
  char buffer[16 * 1024];
  size_t total = 0;
  while (impl.out_r >= 0 && total < kFinalDrainBytes) {
    const ssize_t n = ::read(impl.out_r, buffer, sizeof buffer);
    if (n <= 0) break;  // empty (EAGAIN: the descriptor is non-blocking), EOF or error
    impl.output.append(std::string_view(buffer, static_cast<size_t>(n)));
    total += static_cast<size_t>(n);
  }
  return impl.output.take(cap);
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

namespace {

// The bot's argv with its program's absolute path, and its working folder, as start() sees
// them; nullopt if the program cannot be found (start() will say why).
std::optional<std::pair<std::vector<std::string>, std::string>> resolved_command(
    const LaunchSpec& spec) {
  if (spec.argv.empty()) return std::nullopt;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base =
      spec.working_dir.empty() ? fs::current_path(ec) : fs::path(spec.working_dir);
  std::string working_dir = fs::absolute(base, ec).string();
  std::string why;
  const std::optional<std::string> program = find_program(spec.argv[0], working_dir, &why);
  if (!program) return std::nullopt;
  std::vector<std::string> argv = spec.argv;
  argv[0] = *program;
  return std::make_pair(std::move(argv), std::move(working_dir));
}

}  // namespace

std::optional<std::string> given_paths_refusal(const LaunchSpec& spec) {
  if (!spec.sandbox) return std::nullopt;
  const auto command = resolved_command(spec);
  if (!command) return std::nullopt;
  return link_refusal(command->first, command->second, spec.read_only_dirs, spec.hidden);
}

std::optional<std::string> hidden_paths_refusal(const LaunchSpec& spec) {
  if (!spec.sandbox || spec.hidden.empty()) return std::nullopt;
  const auto command = resolved_command(spec);
  if (!command) return std::nullopt;
  const std::vector<std::string>& argv = command->first;
  const std::string& working_dir = command->second;
  SandboxLayout layout;
  return lay_out_folders(layout, argv, working_dir, spec);
}

std::optional<std::string> find_program(const std::string& name, const std::string& base_dir,
                                        std::string* error) {
  const char* path_env = std::getenv("PATH");
  return resolve_program(name, path_env ? path_env : "/usr/local/bin:/usr/bin:/bin", base_dir,
                         error);
}

}  // namespace allfives::referee
