#include "allfives/engine/policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "allfives/core/greedy.h"

namespace allfives::engine {

// ---------------------------------------------------------------------------------------------
// Rollouts

Play rollout_pick(const State& state, SplitMix64& rng, int epsilon_permille) {
  const PlayList legal = state.legal_plays();
  const int n = legal.size();
  if (n == 1) return legal[0];
  if (epsilon_permille > 0 && static_cast<int>(rng.below(1000)) < epsilon_permille)
    return legal[static_cast<int>(rng.below(static_cast<uint32_t>(n)))];
  const Line& line = state.line();
  int best = 0, best_value = -1, ties = 0;
  for (int i = 0; i < n; ++i) {
    const int value = greedy_rank(line, legal[i]);
    if (value > best_value) {
      best = i;
      best_value = value;
      ties = 1;
    } else if (value == best_value && rng.below(static_cast<uint32_t>(++ties)) == 0) {
      best = i;  // reservoir sampling: a uniform pick among equals
    }
  }
  return legal[best];
}

// ---------------------------------------------------------------------------------------------
// Win table

WinTable::WinTable(const Config& config) : target_(config.target) {
  cells_ = (target_ + 4) / 5;
  // Targets far beyond the rules' (a tournament may set one) would make the table slow to
  // build; p_win then uses a logistic curve of the score difference instead.
  if (num_sides(config.format) != 2 || cells_ > kMaxCells) return;
  p_.assign(static_cast<size_t>(cells_) * cells_, 0.5);

  // Hand outcomes (points per side, in fives) from greedy-ish self-play with no target in
  // reach, symmetrised so neither side is favoured.
  std::map<std::pair<int, int>, double> outcomes;
  Config sim = config;
  sim.target = 30000;
  sim.max_hands = 100;
  SplitMix64 rng(0x5747524f4e47ull);  // a fixed seed: the table is the same in every run
  for (int match = 0; match < 60; ++match) {
    State s = State::new_match(sim, rng.next());
    int hand = s.hand_index();
    int before0 = 0, before1 = 0;
    while (!s.is_terminal()) {
      s.apply(rollout_pick(s, rng, 50));
      if (s.is_terminal() || s.hand_index() != hand) {
        const int g0 = (s.score(0) - before0) / 5, g1 = (s.score(1) - before1) / 5;
        outcomes[{g0, g1}] += 1;
        outcomes[{g1, g0}] += 1;
        before0 = s.score(0);
        before1 = s.score(1);
        hand = s.hand_index();
      }
    }
  }
  double total = 0, still = 0;
  for (const auto& [g, w] : outcomes) {
    total += w;
    if (g.first == 0 && g.second == 0) still += w;
  }
  const auto value = [&](int a, int b) {
    const bool a_done = a * 5 >= target_, b_done = b * 5 >= target_;
    if (a_done && b_done) return 0.5;
    if (a_done) return 1.0;
    if (b_done) return 0.0;
    return p_[static_cast<size_t>(a) * cells_ + b];
  };
  // Every outcome but (0, 0) moves the scores forward, so fill from the highest sum down.
  for (int sum = 2 * (cells_ - 1); sum >= 0; --sum) {
    for (int a = std::min(sum, cells_ - 1); a >= 0 && sum - a < cells_; --a) {
      const int b = sum - a;
      double acc = 0;
      for (const auto& [g, w] : outcomes)
        if (g.first != 0 || g.second != 0) acc += w * value(a + g.first, b + g.second);
      p_[static_cast<size_t>(a) * cells_ + b] = acc / (total - still);
    }
  }
}

double WinTable::p_win(int mine, int theirs) const {
  const bool a_done = mine >= target_, b_done = theirs >= target_;
  if (a_done && b_done) return 0.5;
  if (a_done) return 1.0;
  if (b_done) return 0.0;
  if (p_.empty()) return 1.0 / (1.0 + std::exp((theirs - mine) / 60.0));
  return p_[static_cast<size_t>(std::max(mine, 0) / 5) * cells_ + std::max(theirs, 0) / 5];
}

const WinTable& WinTable::for_config(const Config& config) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<WinTable>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = tables[{static_cast<int>(config.format), config.target}];
  if (!slot) slot = std::make_unique<WinTable>(config);
  return *slot;
}

}  // namespace allfives::engine
