#include "cli/demo_command.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <iostream>
#include <memory>

#include "allfives/core/greedy.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "cli/seed_flag.h"
#include "match/match_terms.h"
#include "replay/frames.h"

namespace allfives::referee {
namespace {

std::string scores(const State& s) {
  std::string out;
  for (int side = 0; side < num_sides(s.format()); ++side)
    out += (side ? "  " : "") +
           ("side " + std::to_string(side) + ": " + std::to_string(s.score(side)));
  return out;
}

}  // namespace

int run_demo(const DemoOptions& o, std::ostream& out) {
  const Config config = Config::standard(o.format);
  const int n = num_players(o.format);
  // Even seats play greedy, odd seats random: in partnerships a greedy team meets a random one.
  auto strategy_name = [](int seat) { return seat % 2 == 0 ? "greedy" : "random"; };
  const uint64_t seed = o.seed ? *o.seed : draw_seed();
  out << "All Fives demo: " << to_string(o.format) << ", target " << config.target << ", seed "
      << seed
      << (o.seed ? "" : " (drawn at random; --seed " + std::to_string(seed) + " repeats it)")
      << "\n";
  for (int seat = 0; seat < n; ++seat)
    out << "  seat " << seat << ": " << strategy_name(seat) << " (side " << side_of(o.format, seat)
        << ")\n";

  SplitMix64 rng(derive_seed(seed, 0xB07));
  EventList events;
  State s = State::new_match(config, seed, &events);
  for (;;) {
    for (const Event& e : events) {
      switch (e.kind) {
        case EventKind::kHandStart:
          out << "\nHand " << e.hand_index + 1 << ": seat " << int(e.seat) << " opens ("
              << to_string(static_cast<OpenRule>(e.reason)) << ")\n";
          if (o.verbose)
            for (int seat = 0; seat < n; ++seat)
              out << "  seat " << seat << " holds " << to_string(e.hands[seat]) << "\n";
          break;
        case EventKind::kPlay:
          if (o.verbose || e.points > 0)
            out << "  seat " << int(e.seat) << " plays " << to_string(e.play) << ", count "
                << e.count << (e.points > 0 ? ", scores " + std::to_string(e.points) : "") << "\n";
          break;
        case EventKind::kDraw:
          if (o.verbose) out << "  seat " << int(e.seat) << " draws " << e.count << "\n";
          break;
        case EventKind::kPass:
          if (o.verbose) out << "  seat " << int(e.seat) << " passes\n";
          break;
        case EventKind::kHandEnd:
          if (static_cast<HandEndKind>(e.reason) == HandEndKind::kDomino)
            out << "  seat " << int(e.seat) << " goes out: side " << int(e.side) << " scores "
                << e.points << "\n";
          else if (e.side >= 0)
            out << "  blocked: side " << int(e.side) << " has the fewest pips, scores " << e.points
                << "\n";
          else
            out << "  blocked: tie for the fewest pips, nobody scores\n";
          out << "  " << scores(s) << "\n";
          break;
        case EventKind::kMatchEnd:
          out << "\nMatch over (" << to_string(static_cast<MatchEndReason>(e.reason)) << ") after "
              << plural(e.hand_index + 1, "hand", "hands") << ". " << scores(s) << "\n";
          if (e.side >= 0)
            out << "Winner: side " << int(e.side) << "\n";
          else
            out << "Draw\n";
          break;
      }
    }
    if (s.is_terminal()) return s.outcome().winner_side;
    events.clear();
    const int seat = s.seat_to_move();
    const PlayList legal = s.legal_plays();
    const Play p = seat % 2 == 0 ? greedy_play(s.line(), legal)
                                 : legal[rng.below(static_cast<uint32_t>(legal.size()))];
    s.apply(p, &events);
  }
}

void add_demo_command(CLI::App& app, int& exit_code) {
  auto demo = std::make_shared<DemoOptions>();
  auto format = std::make_shared<std::string>("2p");
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "Play one seeded match between two built-in strategies (greedy vs random) and "
      "print it hand by hand; needs no bot processes");
  cmd->add_option("--format", *format, "2p, 3p, 4p or partners")->capture_default_str();
  add_seed_flag(cmd, "--seed", demo->seed,
                "Seed of the deals and of the random strategy (default: drawn at random and "
                "printed, so --seed repeats the match)");
  cmd->add_flag("--verbose,-v", demo->verbose, "Print every play, draw and pass");
  cmd->callback([demo, format, &exit_code] {
    if (!parse_format(*format, demo->format)) {
      std::cerr << "referee demo: --format must be 2p, 3p, 4p or partners, not '" << *format
                << "'\n";
      exit_code = 2;
      return;
    }
    run_demo(*demo, std::cout);
  });
}

}  // namespace allfives::referee
