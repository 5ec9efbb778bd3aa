#include "bots/bot_endpoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "bots/startup_failure.h"
#include "log/log_records.h"
#include "process/seccomp.h"
#include "transport/bot_channel.h"

namespace allfives::referee {

std::unique_ptr<BotEndpoint> BotEndpoint::start(const BotSpec& spec, const std::string& socket_dir,
                                                const std::string& socket_name,
                                                std::chrono::milliseconds startup_timeout,
                                                std::string* error) {
  const auto deadline = Clock::now() + startup_timeout;
  std::unique_ptr<BotEndpoint> e = launch(spec, socket_dir, socket_name, error);
  if (!e || !e->wait_ready(deadline, error)) return nullptr;
  return e;
}

std::unique_ptr<BotEndpoint> BotEndpoint::launch(const BotSpec& spec, const std::string& socket_dir,
                                                 const std::string& socket_name,
                                                 std::string* error) {
  std::unique_ptr<BotEndpoint> e(new BotEndpoint());
  e->spec_ = spec;
  e->launched_at_ = Clock::now();
  if (spec.started() && spec.confinement.sandbox) {
    // Its socket folder is a small tmpfs inside its sandbox, the same path for every bot (no
    // bot sees another's): what it writes there never reaches the host's disk. The referee
    // reaches the socket through the sandbox's root once the sandbox exists (wait_ready()).
    e->listen_path_ = std::string(kSandboxSocketDir) + "/" + socket_name;
  } else if (spec.started()) {
    // Unsandboxed: a real folder per bot, so that each has a place of its own to listen in.
    std::string own_dir = socket_dir + "/" + socket_name.substr(0, socket_name.rfind(".sock"));
    if (::mkdir(own_dir.c_str(), S_IRWXU) != 0) {
      if (error) *error = "cannot create the folder '" + own_dir + "': " + strerrordesc_np(errno);
      return nullptr;
    }
    e->listen_path_ = own_dir + "/" + socket_name;
    e->address_ = "unix:" + e->listen_path_;
  }
  if (spec.started()) {
    LaunchSpec launch;
    launch.argv = spec.command;
    launch.argv.push_back("--listen");
    launch.argv.push_back("unix:" + e->listen_path_);
    launch.clean_environment = true;
    // A user id of its own goes with the sandbox: unsandboxed, a bot runs as the referee's
    // user, as the user asked, and so without the (per-user) process limit.
    launch.own_user = spec.confinement.sandbox;
    launch.limits = spec.confinement.limits;
    launch.cgroups = spec.confinement.cgroups;
    launch.watch_cpu = true;
    launch.sandbox = spec.confinement.sandbox;
    launch.read_only_dirs = spec.confinement.read_only_dirs;
    if (launch.sandbox) launch.writable_dir = kSandboxSocketDir;
    launch.hidden = spec.confinement.hidden;
    // The unsandboxed bots' socket folders are in it (it may lie in a folder the bot reads when
    // the bot's program sits in $TMPDIR).
    launch.hidden.push_back({socket_dir, "the bots' socket folder", HiddenPath::Kind::kFolder});
    std::string why;
    e->process_ = BotProcess::start(launch, &why);
    if (!e->process_) {
      if (error) *error = "cannot start '" + spec.describe() + "': " + why;
      return nullptr;
    }
  } else {
    e->address_ = spec.address;
  }
  return e;
}

bool BotEndpoint::wait_ready(Clock::time_point deadline, std::string* error,
                             const std::function<bool()>& give_up) {
  const auto going = [&] { return alive() && !(give_up && give_up()); };
  // On failure: stops the bot and says why, with how it ended, what to do and its output.
  auto fail = [&](const std::string& why) {
    if (!process_) {
      if (error) *error = why;
      return false;
    }
    StartupFailure f;
    f.why = why;
    f.timeout = spec_.startup_timeout;
    if (process_->running()) {
      f.timed_out = Clock::now() >= deadline;
      f.listening = listening_addresses(process_->pid());  // while it still runs
    } else {
      f.exit = process_->describe_exit();
    }
    f.command = spec_.command;
    f.listen = "unix:" + listen_path_;
    f.sandboxed = spec_.confinement.sandbox;
    f.visible_dirs = process_->read_only_dirs();
    f.socket_found = socket_fd_ >= 0;
    process_->stop(kFailedStartGrace);
    f.output = process_->take_stderr();
    if (error) *error = describe_startup_failure(f);
    return false;
  };
  std::string why;
  bool inside_sandbox = false;
  if (address_.empty() && process_) {
    // A sandboxed bot's socket, seen from outside: through the root of its sandbox's first
    // process (bwrap's), which the referee may enter (its own user, or root; the bot's user
    // owns the sandbox's namespaces, created by the referee's child).
    const int pid = process_->sandbox_pid(deadline);
    if (pid < 0) return fail("its sandbox did not start");
    address_ = "unix:/proc/" + std::to_string(pid) + "/root" + listen_path_;
    inside_sandbox = true;
  }
  if (process_ && socket_fd_ < 0) {
    // The bot owns its socket's folder: the referee connects to the socket it found there,
    // never through a link the bot put in its place.
    socket_fd_ = open_unix_socket(address_.substr(5),
                                  listen_path_ + (inside_sandbox ? " (inside its sandbox)" : ""),
                                  deadline, going, &why);
    if (socket_fd_ < 0) return fail(why);
  }
  const std::string connect_to =
      socket_fd_ < 0 ? address_ : "unix:/proc/self/fd/" + std::to_string(socket_fd_);
  channel_ = wait_until_serving(connect_to, deadline, going, &why);
  if (channel_) return true;
  return fail(why);
}

v1::LogConfinement planned_confinement(const BotSpec& spec) {
  if (!spec.started()) return v1::LogConfinement();
  const Confinement& planned = spec.confinement;
  LogConfinementFacts f;
  f.sandboxed = planned.sandbox;
  if (f.sandboxed) {
    f.sandbox_version = bwrap_version();
    f.read_only_dirs = planned.read_only_dirs;
  }
  f.limits = planned.limits;
  f.think_on_opponent_time = planned.think_on_opponent_time;
  return log_confinement(f);
}

v1::LogConfinement BotEndpoint::confinement_record() const {
  if (!process_) return v1::LogConfinement();
  LogConfinementFacts f;
  f.sandboxed = spec_.confinement.sandbox;
  if (f.sandboxed) {
    f.sandbox_version = bwrap_version();
    f.read_only_dirs = process_->read_only_dirs();
    f.socket_dir_tmpfs_mib = kSocketDirSizeMib;
    f.user_namespaces_disabled = bwrap_disables_userns();
    f.connect_refused = !sandbox_seccomp_filter().empty();
  }
  f.socket_path = listen_path_;
  f.uid = process_->uid();
  f.limits = process_->limits();
  // A CPU share nothing enforces is not one: the record says 0.
  if (process_->cpu_limit_by() == LimitMechanism::kNone) f.limits.cpu_percent = 0;
  f.memory_limit_by = process_->memory_limit_by();
  f.processes_limit_by = process_->processes_limit_by();
  f.cpu_limit_by = process_->cpu_limit_by();
  f.cpu_watched_by = process_->freezer_by();
  f.think_on_opponent_time = spec_.confinement.think_on_opponent_time;
  f.cgroups = process_->cgroups();
  return log_confinement(f);
}

BotEndpoint::~BotEndpoint() {
  stop(kPromptStopGrace);
  channel_.reset();
  if (socket_fd_ >= 0) ::close(socket_fd_);
}

bool BotEndpoint::alive() {
  return !process_ || process_->running();
}

void BotEndpoint::stop(std::chrono::milliseconds grace) {
  request_stop();
  if (process_) process_->stop(grace);
}

void BotEndpoint::request_stop() {
  if (!process_) return;
  // Close our connection first: a gRPC server shutting down waits for open connections.
  channel_.reset();
  process_->request_stop();
}

void stop_all(const std::vector<std::unique_ptr<BotEndpoint>>& bots,
              std::chrono::milliseconds grace) {
  for (const auto& b : bots)
    if (b) b->request_stop();
  for (const auto& b : bots)
    if (b) b->stop(grace);
}

bool wait_all_ready(std::vector<std::unique_ptr<BotEndpoint>>& bots,
                    const std::vector<bool>& waiting, std::chrono::milliseconds timeout,
                    std::vector<std::string>& errors, const std::atomic<bool>* stop,
                    std::vector<v1::LogConfinement>* confinements) {
  errors.resize(bots.size());
  if (confinements) confinements->resize(bots.size());
  std::atomic<bool> failed{false};
  for (const auto& b : bots) failed = failed || !b;
  const auto give_up = [&] { return failed.load() || (stop && stop->load()); };
  std::vector<char> ready(bots.size(), 0);  // not vector<bool>: written from several threads
  // One thread per bot to wait for, so that each is judged by its own deadline alone.
  const auto await = [&](size_t i) {
    if (give_up()) return;
    std::string why;
    ready[i] = bots[i]->wait_ready(bots[i]->launched_at() + timeout, &why, give_up);
    // A bot that failed by itself is to blame; one given up on (another failed) is not.
    if (!ready[i] && !give_up()) {
      errors[i] = why;
      failed = true;
    }
  };
  std::vector<size_t> todo;
  for (size_t i = 0; i < bots.size(); ++i)
    if (bots[i] && waiting[i]) todo.push_back(i);
  std::vector<std::thread> threads;
  for (size_t k = 1; k < todo.size(); ++k) threads.emplace_back(await, todo[k]);
  if (!todo.empty()) await(todo[0]);
  for (std::thread& t : threads) t.join();
  bool all = true;
  for (size_t i : todo) {
    if (ready[i] && !failed.load()) continue;
    if (stop && stop->load() && errors[i].empty()) errors[i] = "the referee was stopped";
    if (ready[i]) continue;  // ready before another failed: left as it is, unharmed
    bots[i]->stop(kFailedStartGrace);
    if (confinements) (*confinements)[i] = bots[i]->confinement_record();
    bots[i].reset();
  }
  for (const auto& b : bots) all &= b != nullptr;
  return all;
}

}  // namespace allfives::referee
