// allfives::bot::run: the command line, the server and the signals.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <CLI/CLI.hpp>

#include "allfives/bot/bot.h"
#include "allfives/bot/server.h"
#include "allfives/wire/convert.h"
#include "session.h"

namespace allfives::bot {
namespace {

// How long running matches may go on after SIGTERM/SIGINT before their streams are cancelled.
constexpr std::chrono::milliseconds kShutdownGrace{1000};

// The self-pipe: the signal handler only writes a byte; the main thread waits for it.
int g_signal_pipe[2] = {-1, -1};
std::atomic<int> g_signals{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int) {
  const int saved_errno = errno;
  if (g_signals.fetch_add(1) > 0) {
    // A second signal while draining: the user means it.
    static const char kMsg[] = "second stop signal: exiting without waiting for matches\n";
    [[maybe_unused]] ssize_t r = ::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    ::_exit(1);
  }
  const char byte = 1;
  [[maybe_unused]] ssize_t r = ::write(g_signal_pipe[1], &byte, 1);
  errno = saved_errno;
}

// Installs the handlers for SIGTERM and SIGINT and restores the previous ones on destruction.
class StopSignals {
 public:
  bool install(std::string* error) {
    if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
      *error = std::string("pipe2: ") + std::strerror(errno);
      return false;
    }
    g_signals = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &sa, &old_term_);
    ::sigaction(SIGINT, &sa, &old_int_);
    installed_ = true;
    return true;
  }

  // Blocks until a stop signal arrives.
  void wait() const {
    pollfd p{g_signal_pipe[0], POLLIN, 0};
    while (true) {
      const int r = ::poll(&p, 1, -1);
      if (r > 0) return;
      if (r < 0 && errno != EINTR) return;  // cannot wait any more: stop serving
    }
  }

  ~StopSignals() {
    if (!installed_) return;
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::close(g_signal_pipe[0]);
    ::close(g_signal_pipe[1]);
    g_signal_pipe[0] = g_signal_pipe[1] = -1;
  }

 private:
  bool installed_ = false;
  struct sigaction old_term_ {};
  struct sigaction old_int_ {};
};

// "unix:/path" (or unix-abstract:name) or "host:port"; gRPC makes the final judgement.
std::string check_listen(const std::string& address) {
  if (address.rfind("unix:", 0) == 0 || address.rfind("unix-abstract:", 0) == 0)
    return address.size() > address.find(':') + 1 ? "" : "the unix socket path is empty";
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size())
    return "expected unix:/path/to.sock or host:port, got \"" + address + "\"";
  for (size_t i = colon + 1; i < address.size(); ++i)
    if (address[i] < '0' || address[i] > '9')
      return "the port of \"" + address + "\" is not a number";
  return "";
}

// CLI11 lists the words it did not expect last to first ("1 --foo"); a bot's author needs the
// flag by its name and the flags there are.
std::string explain_parse_error(const std::string& name, const CLI::App* app, const CLI::Error& e) {
  if (!dynamic_cast<const CLI::ExtrasError*>(&e) || app->remaining().empty())
    return CLI::FailureMessage::simple(app, e);
  std::vector<std::string> flags;
  for (const CLI::Option* o : app->get_options()) {
    for (const std::string& l : o->get_lnames()) flags.push_back("--" + l);
  }
  std::string known;
  for (const std::string& f : flags) known += (known.empty() ? "" : ", ") + f;
  std::string out;
  std::string strays;
  bool after_flag = false;  // a word after an unknown flag is taken for its value
  for (const std::string& word : app->remaining()) {
    const bool flag = word.size() >= 2 && word[0] == '-';
    if (flag) out += name + ": unknown flag " + word.substr(0, word.find('=')) + "\n";
    if (!flag && !after_flag) strays += (strays.empty() ? "'" : ", '") + word + "'";
    after_flag = flag && word.find('=') == std::string::npos;
  }
  if (!strays.empty()) out += name + ": unexpected argument " + strays + "\n";
  return out + "Its flags: " + known + " (--help says what each does).\n";
}

}  // namespace

int run(int argc, char** argv, const BotIdentity& identity, BotFactory factory,
        ExtraFlags extra_flags) {
  // gRPC's default polling engine (epoll1) watches the socket for room to write at all times,
  // and a Unix socket signals room each time the peer reads: every answer the referee reads
  // would wake the bot for nothing (bench/README.md, "Fewer wake-ups and writes a decision"). The
  // poll engine asks for room only while a write waits. Read when gRPC starts, so set before any
  // gRPC object exists; a GRPC_POLL_STRATEGY the bot's author set is kept.
  ::setenv("GRPC_POLL_STRATEGY", "poll", /*overwrite=*/0);
#ifdef NDEBUG
  // Debian's absl is built without NDEBUG, so every lock gRPC takes would feed absl's deadlock
  // detector (a lock-order graph, measurable per decision); a release bot does without it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
  CLI::App app(identity.name + " " + identity.version +
               ": an All Fives (Muggins) domino bot. It serves the allfives.v1.Bot gRPC "
               "protocol (version " +
               std::to_string(wire::kProtocolVersion) +
               ") and grpc.health.v1.Health on --listen until SIGTERM or SIGINT; the referee "
               "starts it and plays matches against it.");
  ServerOptions options;
  app.add_option("--listen", options.listen,
                 "Where to serve: unix:/path/to.sock or host:port (port 0 picks a free one)")
      ->required()
      ->type_name("ADDRESS")
      ->check(CLI::Validator([](std::string& value) { return check_listen(value); }, "",
                             "listen address"));
  app.add_option("--seed", options.seed,
                 "Base of the bot's per-match random seed (mixed with the match id and seat, so "
                 "runs with the same seed repeat)")
      ->check(CLI::NonNegativeNumber)  // CLI11 would wrap "-3" round to a huge seed
      ->capture_default_str();
  app.set_version_flag("--version", identity.name + " " + identity.version);
  app.footer(
      "Example: " + identity.name +
      " --listen unix:/tmp/bot.sock --seed 7\nSIGTERM or SIGINT stops it: matches in "
      "progress get a moment to finish, then the bot exits with status 0. Exit status 2: bad "
      "flags; 1: the server could not start.");
  if (extra_flags) extra_flags(app);
  app.failure_message([name = identity.name](const CLI::App* a, const CLI::Error& e) {
    return explain_parse_error(name, a, e);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  // What the bot prints reaches the referee's capture as it prints it (stdout to a pipe is
  // block-buffered): each line lands in the match, and the turn, that printed it. std::cout
  // goes through stdout (synced with stdio by default).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  StopSignals signals;
  std::string error;
  if (!signals.install(&error)) {
    detail::log_line(identity.name + ": " + error);
    return 1;
  }
  std::unique_ptr<BotServer> server =
      BotServer::start(options, identity, std::move(factory), &error);
  if (!server) {
    detail::log_line(identity.name + ": " + error);
    return 1;
  }
  detail::log_line(identity.name + " " + identity.version + " listening on " + options.listen);
  signals.wait();
  detail::log_line(identity.name + ": stop signal received; shutting down");
  server->shutdown(kShutdownGrace);
  return 0;
}

}  // namespace allfives::bot
