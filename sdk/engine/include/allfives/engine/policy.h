// The policy that continues a sampled world to the end of its hand, and the estimate of the
// match-win probability at a hand's end that turns a hand's outcome into a match's.
//
// The strong sample bot searches with these and the engine's evaluation (evaluate.h) and solver
// (solver.h) score with them, so a bot and a review of its play measure the same thing.
#pragma once

#include <vector>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"

namespace allfives::engine {

// The rollout policy: with probability epsilon_permille/1000 a uniformly random legal play,
// else the greedy play (allfives/core/greedy.h: the most points now, the heavier tile between
// equals), ties broken at random.
Play rollout_pick(const State& state, SplitMix64& rng, int epsilon_permille);

// P(win) for two sides from (my score, their score) at a hand's start, for one config: a
// dynamic programme over the hand outcomes of greedy self-play (sampled once per config with
// a fixed seed), where a hand that would take both sides past the target is a coin flip.
class WinTable {
 public:
  explicit WinTable(const Config& config);
  // Scores at or past the target give 1 or 0.
  double p_win(int mine, int theirs) const;
  // The table of a config, built on first use (thread-safe) and kept.
  static const WinTable& for_config(const Config& config);

 private:
  static constexpr int kMaxCells = 400;  // targets up to 2000
  int target_ = 250;
  int cells_ = 50;         // scores 0, 5, ..., below the target
  std::vector<double> p_;  // empty: no table (more than two sides, or a huge target)
};

}  // namespace allfives::engine
