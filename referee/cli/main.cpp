// The `referee` program: one binary, one subcommand per job.
#include <unistd.h>

#include <absl/synchronization/mutex.h>
#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>

#include "allfives/wire/convert.h"
#include "bots/startup_failure.h"
#include "cli/check_bot_command.h"
#include "cli/command_line_errors.h"
#include "cli/demo_command.h"
#include "cli/ladder_command.h"
#include "cli/match_command.h"
#include "cli/new_bot_command.h"
#include "cli/replay_command.h"
#include "cli/review_command.h"
#include "cli/serve_command.h"
#include "cli/standings_command.h"
#include "cli/tournament_command.h"
#include "cli/tune_command.h"
#include "cli/verify_command.h"
#include "ladder/ladder_store.h"

namespace {

using namespace allfives;

// CLI11 takes an empty value for a number as 0 and an empty path as unset, so `-j ''` or
// `--out ''` would silently mean the default: no value of this program may be empty.
// Returns 0, or 2 after naming the empty argument.
int refuse_empty_arguments(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || (arg.rfind("--", 0) == 0 && arg.back() == '=')) {
      std::cerr << "referee: argument " << i << (arg.empty() ? "" : " (" + arg + ")")
                << " is empty; every option and argument needs a value (see --help)\n";
      return 2;
    }
  }
  return 0;
}

// Parses the command line, running the chosen command's callback. Returns the exit code when
// the program ends here (help, a mistake on the command line), else nullopt.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the error and the usage
    return 2;     // every mistake on the command line exits 2, like the commands' own checks
  }
  return std::nullopt;
}

// Results printed to a full disk or a closed pipe are not results: that is an error too.
int checked_output(int exit_code) {
  std::cout.flush();
  if (std::cout) return exit_code;
  // The stream kept only that a write failed; one more byte, written directly, says why.
  const int err = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : 0;
  std::cerr << "referee: cannot write to standard output"
            << (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) << "\n";
  return exit_code != 0 ? exit_code : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef NDEBUG
  // Debian's absl is built without NDEBUG, so every lock gRPC takes would feed absl's deadlock
  // detector (a lock-order graph, measurable per decision); a release referee does without it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
  CLI::App app{"referee: runs and judges All Fives (Muggins) domino matches between bots"};
  app.set_version_flag(
      "--version",
      std::string("referee ") + ALLFIVES_VERSION + " (bot protocol version " +
          std::to_string(wire::kProtocolVersion) + ", match log version " +
          std::to_string(wire::kLogVersion) + ", ladder database schema " +
          std::to_string(referee::LadderStore::kSchemaVersion) + ")",
      "The referee's version, and the versions of the protocol, the log and the ladder database");
  app.require_subcommand(1);
  // An unknown flag or command is answered with the nearest one (inherited by the commands).
  app.failure_message(referee::explain_command_line_error);
  // A later flag overrides an earlier one, so wrappers can append overrides.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  int exit_code = 0;
  referee::add_demo_command(app, exit_code);
  referee::add_match_command(app, exit_code);
  referee::add_tournament_command(app, exit_code);
  referee::add_standings_command(app, exit_code);
  referee::add_verify_command(app, exit_code);
  referee::add_replay_command(app, exit_code);
  referee::add_review_command(app, exit_code);
  referee::add_serve_command(app, exit_code);
  referee::add_check_bot_command(app, exit_code);
  referee::add_ladder_command(app, exit_code);
  referee::add_new_bot_command(app, exit_code);
  referee::add_tune_command(app, exit_code);

  // A file-size limit (ulimit -f) then gives a write error (EFBIG) that is reported like a
  // full disk, instead of killing the referee. Bots get the default back (bot_process.cpp).
  std::signal(SIGXFSZ, SIG_IGN);
  if (const int code = refuse_empty_arguments(argc, argv)) return code;
  referee::set_invocation(std::vector<std::string>(argv, argv + argc));
  if (const std::optional<int> code = parse(app, argc, argv)) return *code;
  return checked_output(exit_code);
}
