// The referee's process layer: start a bot program, capture what it prints, and make sure that
// neither it nor anything it started outlives the referee -- not even a SIGKILLed referee.
//
// How each bot is contained (details in bot_process.cpp):
//   * The bot runs in its own new process group (pgid == bot pid); stop() signals the whole
//     group: SIGTERM, up to `grace`, then SIGKILL.
//   * The bot gets PR_SET_PDEATHSIG(SIGKILL). The kernel ties that signal to the *thread* that
//     forked, so every fork happens on one process-wide launcher thread that never exits: start()
//     may be called from any thread, including short-lived ones.
//   * PDEATHSIG only reaches the direct child. For grandchildren (a shell script that starts the
//     real bot, `sleep 1000 &`, ...) each bot has a guardian: a tiny forked process (no exec) that
//     blocks reading a pipe whose only write end the referee holds. When the referee dies for any
//     reason the kernel closes that end, the guardian reads EOF and kills the bot's group
//     (SIGTERM, 1 s, SIGKILL). On an orderly stop() the referee kills the group itself and then
//     SIGKILLs and reaps the guardian.
//   * The bot's pid is pinned: once the bot exits it stays an unreaped zombie until stop() (or the
//     destructor), so its pgid cannot be recycled for an unrelated process group before stop()
//     sends the group its final SIGKILL. stop() always reaps it: no zombies are left behind.
//   * stdin is /dev/null; stdout and stderr go into one pipe that a reader thread drains all the
//     time (a bot flooding its output never blocks), into one capped buffer.
//   * With LaunchSpec::sandbox the program runs inside bubblewrap (sandbox.h): a PID namespace
//     that dies with the bwrap process we started, so even processes that leave the group on
//     purpose (setsid/setpgid daemons) end with it. Without the sandbox only the bot's cgroups
//     (where it has them) still hold such processes, to be killed when they are removed.
//   * LaunchSpec::limits: memory and processes by cgroups of the bot's own where the machine
//     allows (cgroup.h; the bot's pid is written into them before it may exec, and they are
//     removed, with anything left in them killed, by stop(), or by the guardian when the
//     referee dies), else by setrlimit, as are the
//     other limits, before exec. With LaunchSpec::own_user and the referee running as root, the
//     bot runs under a user id of its own (bot_uid_base() + pid), which keeps it from
//     signalling anyone and, without a pids cgroup, makes RLIMIT_NPROC a per-bot count.
// The rest of the referee must not reap children it did not start itself (no waitpid(-1), no
// SIGCHLD set to SIG_IGN): that would take the bots' exit statuses and unpin their pgids.
// (SIGPIPE ignored, or any handlers installed, are fine: bots start with default dispositions.)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "process/capped_output.h"
#include "process/cgroup.h"
#include "process/sandbox.h"
#include "process/stop_grace.h"

namespace allfives::referee {

struct LaunchSpec {
  // argv[0] is looked up in PATH (of the bot's environment) if it has no '/'; a relative path
  // with a '/' is taken relative to working_dir (if set).
  std::vector<std::string> argv;
  std::string working_dir;  // empty: the referee's current directory
  std::vector<std::pair<std::string, std::string>> extra_env;  // added to / overriding ours
  // True: the bot's environment is bot_environment() (PATH, HOME, TMPDIR, LANG) plus
  // extra_env, not the referee's.
  bool clean_environment = false;
  ResourceLimits limits = ResourceLimits::none();
  // Memory and processes limited by cgroups of the bot's own where this machine allows it
  // (cgroup.h); false, or where it does not: by setrlimit (RLIMIT_AS, RLIMIT_NPROC).
  bool cgroups = true;
  // With cgroups: count the bot's CPU time and be able to freeze it (cpu_time_us(),
  // set_frozen()), in a cpuacct and a freezer cgroup of its own (v1) or its one cgroup (v2).
  bool watch_cpu = false;
  // As root: run the bot under a user id of its own (see sandbox.h, bot_uid_base()).
  bool own_user = false;
  // Run the program inside a bubblewrap sandbox (sandbox.h). The caller should have checked
  // sandbox_problem() first; start() fails with bwrap's complaint otherwise.
  bool sandbox = false;
  std::vector<std::string> read_only_dirs;  // in the sandbox, besides the program's folders
  // In the sandbox: the bot's own socket folder, a tmpfs of kSocketDirSizeMib made at this
  // path inside it (kSandboxSocketDir for the referee's bots); nothing of it is on the host.
  std::string writable_dir;
  // In the sandbox: the referee's own paths the bot must not see even where they lie inside
  // a folder it may read (sandbox.h). They must exist when the bot starts.
  std::vector<HiddenPath> hidden;
  // At most this many bytes of output are kept between two take_output() calls: the first half
  // and the last half of what was written, with "[... N bytes dropped]" between them.
  size_t stderr_cap_bytes = 64 * 1024;
};

// Finds a program the way BotProcess::start() will: a name with a '/' is a path, a relative one
// taken from `base_dir` (the current folder if empty); a bare name is looked up in the
// referee's PATH. Returns the absolute path of an executable file, or nullopt and why.
std::optional<std::string> find_program(const std::string& name, const std::string& base_dir,
                                        std::string* error);

// For a sandboxed `spec`: why its bot cannot be started without seeing spec.hidden (a folder
// it may read is, or lies inside, one of the referee's own folders), or nullopt. start()
// checks the same; this lets the referee refuse before it starts any bot. A program that
// cannot be found is not this function's concern (nullopt: start() will say why).
std::optional<std::string> hidden_paths_refusal(const LaunchSpec& spec);
// For a sandboxed `spec`: why a path given to its bot is not what it looks like (link_refusal in
// sandbox.h: a symbolic link leading out of the folders it was given, or to the host's /proc,
// /sys, /dev, /run or the referee's own files), or nullopt. start() checks the same.
std::optional<std::string> given_paths_refusal(const LaunchSpec& spec);

// How a process ended.
struct ExitStatus {
  bool signaled = false;     // false: exited normally with `code`
  int code = 0;              // exit code if !signaled
  int signal = 0;            // terminating signal if signaled
  bool core_dumped = false;  // only if signaled

  // "exited with code 3", "killed by signal 11 (SIGSEGV)", "..., core dumped".
  std::string describe() const;
};

// What the bot's cgroups counted (cgroup.h), 0 without them.
struct LimitEvidence {
  uint64_t oom_kills = 0;           // processes the kernel killed at the memory limit
  uint64_t process_limit_hits = 0;  // forks and clones refused at the process limit
};

// A bot's exit in words, naming the resource limit it ran into when what the referee itself
// observed points to one: "exceeded its memory limit of 1024 MiB (killed by signal 9
// (SIGKILL))". A bot that did not exit cleanly is judged to have hit its memory limit when its
// memory cgroup counted an OOM kill, its process limit when its pids cgroup refused a fork
// (`evidence`), its file size limit when SIGXFSZ ended it. Never by what the bot wrote (its
// output, its status messages): a bot could write a runtime's words for a failed allocation
// to have a limit named that it never reached, or to hide the one it did. Under the rlimit
// fallback (RLIMIT_AS, RLIMIT_NPROC) a failed allocation or fork is counted nowhere, so such
// an end is described by the exit alone.
std::string describe_exit_with_limits(const ExitStatus& status, const ResourceLimits& limits,
                                      const LimitEvidence& evidence = {});

// The resource limit a bot ran into by `evidence` (its cgroups' counts), in words ("reached
// its limit of 64 processes and threads", "exceeded its memory limit of 1024 MiB"), or "".
std::string limit_reached(const ResourceLimits& limits, const LimitEvidence& evidence);

// The status waitpid() reported, as an ExitStatus.
ExitStatus exit_status_of(int wait_status);

// One running bot program. Not copyable or movable (hold it by unique_ptr). All methods may be
// called from any thread; stop() holds an internal lock while it waits.
class BotProcess {
 public:
  // Starts the program. Returns nullptr and sets *error (if not null) to a message a user can act
  // on when it cannot be started: empty argv, program not found in PATH, not executable, bad
  // working directory, exec failure (e.g. a script's #! interpreter is missing).
  static std::unique_ptr<BotProcess> start(const LaunchSpec& spec, std::string* error);

  BotProcess(const BotProcess&) = delete;
  BotProcess& operator=(const BotProcess&) = delete;
  ~BotProcess();  // stop()

  int pid() const { return pid_; }  // also the pgid of the bot's process group
  int pgid() const { return pid_; }
  int guardian_pid() const { return guardian_pid_; }  // for diagnostics and tests
  // The user id the bot runs under (the referee's own unless LaunchSpec::own_user as root).
  uint32_t uid() const { return uid_; }
  // The limits in force: LaunchSpec::limits, with processes 0 when no means applied it.
  const ResourceLimits& limits() const;
  // How the memory and process limits are enforced (kNone for a limit of 0 or not applied).
  LimitMechanism memory_limit_by() const;
  LimitMechanism processes_limit_by() const;
  // The folders of the bot's cgroups (removed by stop()), empty without them.
  const std::vector<std::string>& cgroups() const;
  // With LaunchSpec::watch_cpu where the machine allows it (freezer_by() not kNone): the CPU
  // time of all the bot's processes together, in microseconds, and stopping or resuming them
  // all at once (set_frozen returns false where it cannot). stop() resumes them first. Cheap:
  // a read or a write of one cgroup file; may be called from one thread at a time.
  LimitMechanism freezer_by() const;
  std::optional<uint64_t> cpu_time_us() const;
  bool set_frozen(bool frozen);
  // How the CPU quota (ResourceLimits::cpu_percent) is enforced, kNone if it is not.
  LimitMechanism cpu_limit_by() const;
  // In the sandbox: the pid (in the referee's PID namespace) of the sandbox's first process,
  // as bwrap reported it, waiting for the report until `deadline`; -1 when not sandboxed or
  // bwrap did not report (it failed first). /proc/<it>/root is the sandbox's file system seen
  // from outside: the way to the bot's socket in its socket folder, which exists only there.
  // Valid while running(): once the sandbox has ended, the pid may be reused.
  int sandbox_pid(std::chrono::steady_clock::time_point deadline);
  // In the sandbox: the folders it may read besides the system folders (sandbox.h).
  const std::vector<std::string>& read_only_dirs() const;

  // Non-blocking. False once the bot's main process has exited (or after stop()). Other
  // processes of its group may still run until stop().
  bool running();
  // The exit status once the main process has exited, nullopt while it runs.
  std::optional<ExitStatus> exit_status();
  // "running", or the exit status in words, naming a resource limit it ran into
  // (describe_exit_with_limits).
  std::string describe_exit();
  // What the bot's cgroups have counted so far (zeros without them).
  LimitEvidence limit_evidence() const;
  // The limit the bot ran into since `before` (an earlier limit_evidence()), judged by its
  // cgroups' counts alone (limit_reached()), or "": for a fault of a bot that did not end (a
  // handler that failed, a turn never answered).
  std::string limit_reached_since(const LimitEvidence& before) const;

  // Everything the bot (and its group) wrote to stdout/stderr since the last call, capped (see
  // LaunchSpec::stderr_cap_bytes), with the count of bytes the cap dropped. Never blocks on the
  // bot; reads what the pipe holds first, so every byte written before the call began is in
  // it. Each call closes a window: the match runner takes when it sends a seat its turn
  // request, when the answer arrives (what came in between belongs to the decision) and at
  // the match's end. take_output(cap): keeping at most `cap` bytes of the window
  // (CappedOutput::take(cap)). take_stderr(): the text alone.
  CappedOutput::Taken take_output();
  CappedOutput::Taken take_output(size_t cap);
  std::string take_stderr() { return take_output().text; }

  // Blocks until the main process has exited or `deadline` has passed (true if it exited),
  // waking at the exit itself.
  bool wait_for_exit(std::chrono::steady_clock::time_point deadline);

  // SIGTERM to the whole group (unless request_stop() sent it); once the main process has
  // exited, or `grace` has passed, SIGKILL to the whole group (which kills any stragglers);
  // then reaps the bot and its guardian and collects the rest of the output. Idempotent.
  // Returns within about grace + 1 s.
  void stop(std::chrono::milliseconds grace = kStopGrace);
  // Sends stop()'s SIGTERM now and returns at once, so that several bots wind down together
  // before each is stop()ped.
  void request_stop();

 private:
  struct Impl;
  BotProcess();
  int pid_ = -1;
  int guardian_pid_ = -1;
  uint32_t uid_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace allfives::referee
