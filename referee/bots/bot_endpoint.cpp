#include "bots/bot_endpoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "bots/startup_failure.h"
#include "process/seccomp.h"
#include "transport/bot_channel.h"

namespace allfives::referee {

std::string BotSpec::describe() const {
  if (!started()) return address;
  std::string out;
  for (const std::string& a : command) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t\"'") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

namespace {

bool looks_like_address(const std::string& s) {
  if (s.rfind("unix:", 0) == 0) return s.size() > 5;
  if (s.find_first_of(" \t/") != std::string::npos) return false;
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  return s.find_first_not_of("0123456789", colon + 1) == std::string::npos;
}

bool split_command(const std::string& s, std::vector<std::string>& out, std::string* error) {
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) {
    if (error) *error = std::string("unclosed ") + quote + " in '" + s + "'";
    return false;
  }
  if (in_word) out.push_back(cur);
  return true;
}

}  // namespace

bool parse_bot_spec(const std::string& text, BotSpec& out, std::string* error) {
  BotSpec spec;
  std::string rest = text;
  const auto eq = text.find('=');
  const auto space = text.find_first_of(" \t");
  if (eq != std::string::npos && (space == std::string::npos || eq < space) && eq > 0) {
    spec.display_name = text.substr(0, eq);
    spec.named = true;
    rest = text.substr(eq + 1);
  }
  if (rest.find_first_not_of(" \t") == std::string::npos) {
    if (error) *error = "empty bot: expected [NAME=]COMMAND or [NAME=]ADDRESS, got '" + text + "'";
    return false;
  }
  if (looks_like_address(rest)) {
    // host:port: the port must be one (unix:PATH has none).
    if (rest.rfind("unix:", 0) != 0) {
      const std::string port = rest.substr(rest.rfind(':') + 1);
      if (port.size() > 5 || std::stoi(port) < 1 || std::stoi(port) > 65535) {
        if (error) *error = "the port of address '" + rest + "' must be 1..65535";
        return false;
      }
    }
    spec.address = rest;
    if (spec.display_name.empty()) spec.display_name = rest;
  } else {
    if (!split_command(rest, spec.command, error)) return false;
    if (spec.display_name.empty()) {
      const std::string& prog = spec.command[0];
      spec.display_name = prog.substr(prog.find_last_of('/') + 1);
    }
  }
  out = spec;
  return true;
}

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
    process_->stop(std::chrono::milliseconds(200));
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

namespace {

v1::LimitMechanism log_mechanism(LimitMechanism m) {
  switch (m) {
    case LimitMechanism::kNone:
      return v1::LIMIT_MECHANISM_NONE;
    case LimitMechanism::kRlimit:
      return v1::LIMIT_MECHANISM_RLIMIT;
    case LimitMechanism::kCgroupV1:
      return v1::LIMIT_MECHANISM_CGROUP_V1;
    case LimitMechanism::kCgroupV2:
      return v1::LIMIT_MECHANISM_CGROUP_V2;
  }
  return v1::LIMIT_MECHANISM_NONE;
}

}  // namespace

v1::LogConfinement planned_confinement(const BotSpec& spec) {
  v1::LogConfinement c;
  if (!spec.started()) return c;
  const Confinement& planned = spec.confinement;
  c.set_sandboxed(planned.sandbox);
  if (planned.sandbox) {
    c.set_sandbox(bwrap_version().empty() ? "bubblewrap" : bwrap_version());
    for (const std::string& dir : planned.read_only_dirs) c.add_read_only_dirs(dir);
  }
  c.set_memory_mib(planned.limits.memory_mib);
  c.set_processes(planned.limits.processes);
  c.set_open_files(planned.limits.open_files);
  c.set_file_size_mib(planned.limits.file_size_mib);
  c.set_core_dumps(!planned.limits.no_core_dumps);
  c.set_cpu_percent(planned.limits.cpu_percent);
  c.set_think_on_opponent_time(planned.think_on_opponent_time);
  return c;
}

v1::LogConfinement BotEndpoint::confinement_record() const {
  v1::LogConfinement c;
  if (!process_) return c;
  c.set_sandboxed(spec_.confinement.sandbox);
  if (spec_.confinement.sandbox) {
    c.set_sandbox(bwrap_version().empty() ? "bubblewrap" : bwrap_version());
    for (const std::string& dir : process_->read_only_dirs()) c.add_read_only_dirs(dir);
    c.set_user_namespaces_disabled(bwrap_disables_userns());
    c.set_connect_refused(!sandbox_seccomp_filter().empty());
  }
  c.set_writable_dir(listen_path_.substr(0, listen_path_.rfind('/')));
  if (spec_.confinement.sandbox) c.set_writable_dir_tmpfs_mib(kSocketDirSizeMib);
  c.set_uid(process_->uid());
  const ResourceLimits& l = process_->limits();
  c.set_memory_mib(l.memory_mib);
  c.set_processes(l.processes);
  c.set_open_files(l.open_files);
  c.set_file_size_mib(l.file_size_mib);
  c.set_core_dumps(!l.no_core_dumps);
  c.set_memory_limit_by(log_mechanism(process_->memory_limit_by()));
  c.set_processes_limit_by(log_mechanism(process_->processes_limit_by()));
  c.set_cpu_percent(process_->cpu_limit_by() == LimitMechanism::kNone ? 0 : l.cpu_percent);
  c.set_cpu_limit_by(log_mechanism(process_->cpu_limit_by()));
  c.set_think_on_opponent_time(spec_.confinement.think_on_opponent_time);
  c.set_cpu_watched_by(log_mechanism(process_->freezer_by()));
  for (const std::string& folder : process_->cgroups()) c.add_cgroups(folder);
  return c;
}

BotEndpoint::~BotEndpoint() {
  stop(std::chrono::milliseconds(1000));
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
    bots[i]->stop(std::chrono::milliseconds(200));
    if (confinements) (*confinements)[i] = bots[i]->confinement_record();
    bots[i].reset();
  }
  for (const auto& b : bots) all &= b != nullptr;
  return all;
}

}  // namespace allfives::referee
