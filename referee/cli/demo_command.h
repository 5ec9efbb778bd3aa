// `referee demo`: one seeded match between two in-process strategies, printed hand by hand.
// It needs no bot processes, so it shows the rules core at work on any machine.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "allfives/core/types.h"

namespace CLI {
class App;
}

namespace allfives::referee {

struct DemoOptions {
  Format format = Format::kTwoPlayers;
  std::optional<uint64_t> seed;  // none: draw_seed() (match/match_terms.h), printed
  bool verbose = false;          // every play, not just each hand's summary
};

// Plays the match and prints it; returns the winning side, or -1 for a draw.
int run_demo(const DemoOptions& options, std::ostream& out);

// Adds the subcommand to `app`; its callback plays the demo and sets the exit code.
void add_demo_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
