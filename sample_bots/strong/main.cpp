// strong: determinized Monte Carlo search (see search.h and README.md).
//
//   strong_bot --listen unix:/tmp/s.sock [--budget-ms 200] [--simulations N] [--threads T]
//              [--engine v2|v1]
//
// With --simulations it searches exactly N sampled worlds per decision and its choices depend
// only on --seed and the match (never on the clock), unless the machine is so slow that the
// referee's hard deadline comes first: then it answers in time rather than late.
//
// A tournament or tune file's params (MatchStart.params) override these flags for one match:
// epsilon (a probability, 0..1), exploration, model_beta, candidates, exact_tiles,
// simulations and budget_ms (search.h, with_params).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "allfives/bot/bot.h"
#include "search.h"

int main(int argc, char** argv) {
  allfives::strong::SearchConfig config;
  int budget_ms = 200;
  std::string utility = "win";
  std::string engine = "v2";
  const auto flags = [&](CLI::App& app) {
    app.add_option("--budget-ms", budget_ms,
                   "Time to search per decision, in milliseconds, when --simulations is not "
                   "given (never past the referee's move time)")
        ->check(CLI::Range(1, 600000));
    app.add_option("--simulations", config.simulations,
                   "Sampled worlds per decision: a fixed amount of work, so the bot is "
                   "deterministic for a given --seed (0: use --budget-ms)")
        ->check(CLI::Range(0, 10000000));
    app.add_option("--threads", config.threads, "Search threads (default 1)")
        ->check(CLI::Range(1, 64));
    app.add_option("--epsilon", config.epsilon_permille,
                   "Rollout randomness: per mille of rollout plays chosen at random")
        ->check(CLI::Range(0, 1000));
    app.add_option("--utility", utility,
                   "What a rollout is worth: win (estimated match win probability) or points "
                   "(points difference over the rest of the hand)")
        ->check(CLI::IsMember({"win", "points"}));
    app.add_option("--engine", engine,
                   "v2 (default): the engine's search with its opponent model and exact late "
                   "worlds; v1: the flat search alone (strong_v1, the baseline)")
        ->check(CLI::IsMember({"v1", "v2"}));
    app.add_option("--candidates", config.candidates,
                   "v2: uniform draws per world kept, picked by the opponent model (1: no model)")
        ->check(CLI::Range(1, 256));
    app.add_option("--model-beta", config.model_beta,
                   "v2: the opponent model's sharpness, per point a play scores")
        ->check(CLI::Range(0.0, 10.0));
    app.add_option("--exact-tiles", config.exact_tiles,
                   "v2: solve each world exactly once at most this many tiles are in hands "
                   "(0: never)")
        ->check(CLI::Range(0, 28));
    app.add_flag(
        "--no-tree", [&](int64_t) { config.tree = false; },
        "v2: value the plays by the flat evaluation alone, without the tree search");
    app.add_option("--exploration", config.exploration, "v2: the tree search's UCB1 constant")
        ->check(CLI::Range(0.0, 10.0));
    app.add_flag(
        "--no-voids", [&](int64_t) { config.use_knowledge = false; },
        "Sample hidden tiles from hand sizes only, ignoring what draws and passes "
        "showed (for comparison)");
  };
  return allfives::bot::run(
      argc, argv, {"strong", "2.0"},
      [&](const allfives::bot::MatchInfo& info) {
        allfives::strong::SearchConfig c = config;
        c.budget = std::chrono::milliseconds(budget_ms);
        c.engine = engine == "v1" ? allfives::strong::Engine::kV1 : allfives::strong::Engine::kV2;
        c.utility = utility == "points" ? allfives::strong::Utility::kPoints
                                        : allfives::strong::Utility::kWinProbability;
        return std::make_unique<allfives::strong::StrongBot>(info, c);
      },
      flags);
}
