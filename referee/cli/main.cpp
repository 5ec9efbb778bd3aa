// The `referee` program: one binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/demo_command.h"
#include "cli/match_command.h"
#include "cli/replay_command.h"
#include "cli/serve_command.h"
#include "cli/standings_command.h"
#include "cli/tournament_command.h"
#include "cli/verify_command.h"

int main(int argc, char** argv) {
  using namespace allfives;
  CLI::App app{"referee: runs and judges All Fives (Muggins) domino matches between bots"};
  app.require_subcommand(1);
  // A later flag overrides an earlier one, so wrappers can append overrides.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  int exit_code = 0;

  referee::DemoOptions demo;
  std::string format = "2p";
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "Play one seeded match between two built-in strategies (greedy vs random) and "
      "print it hand by hand; needs no bot processes");
  demo_cmd->add_option("--format", format, "2p, 3p, 4p or partners")->capture_default_str();
  demo_cmd->add_option("--seed", demo.seed, "Seed of the deals and of the random strategy")
      ->capture_default_str();
  demo_cmd->add_flag("--verbose,-v", demo.verbose, "Print every play, draw and pass");
  demo_cmd->callback([&] {
    if (!parse_format(format, demo.format)) {
      std::cerr << "referee demo: --format must be 2p, 3p, 4p or partners, not '" << format
                << "'\n";
      exit_code = 2;
      return;
    }
    referee::run_demo(demo, std::cout);
  });

  referee::add_match_command(app, exit_code);
  referee::add_tournament_command(app, exit_code);
  referee::add_standings_command(app, exit_code);
  referee::add_verify_command(app, exit_code);
  referee::add_replay_command(app, exit_code);
  referee::add_serve_command(app, exit_code);

  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
