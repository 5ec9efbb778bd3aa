// What the engine's searches share (evaluate.cpp, tree_search.cpp): the value of a state at the
// end of a rollout for the deciding seat's side, and the drawing of one world.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/opponent_model.h"
#include "allfives/engine/policy.h"

namespace allfives::engine {

// The seat's side's two values of a state at the end of a rollout.
class Scorer {
 public:
  explicit Scorer(const View& view) : side_(view.side()), sides_(num_sides(view.config().format)) {
    for (int s = 0; s < sides_; ++s) root_scores_[s] = view.score(s);
    table_ = &WinTable::for_config(view.config());
  }

  // Its side's points since the root minus the other sides' mean.
  double points(const State& s) const {
    double others = 0;
    for (int side = 0; side < sides_; ++side)
      if (side != side_) others += s.score(side) - root_scores_[side];
    return (s.score(side_) - root_scores_[side_]) - others / (sides_ - 1);
  }

  double win(const State& s) const {
    if (s.is_terminal()) {
      const int w = s.outcome().winner_side;
      return w == side_ ? 1.0 : w < 0 ? 0.5 : 0.0;
    }
    int best_other = 0;
    for (int side = 0; side < sides_; ++side)
      if (side != side_) best_other = std::max(best_other, s.score(side));
    return table_->p_win(s.score(side_), best_other);
  }

 private:
  int side_;
  int sides_;
  std::array<int, kMaxPlayers> root_scores_{};
  const WinTable* table_;
};


// Draws one world into `world`: a uniform sample, or with a model the pick among `pool.size()`
// samples in proportion to their likelihood. False if the sampler fails.
inline bool draw_world(const WorldSampler& sampler, const PlayLikelihood* model, SplitMix64& rng,
                std::vector<State>& pool, std::vector<double>& weights, State& world) {
  if (model == nullptr || pool.size() < 2) return sampler.sample(rng, world);
  double total = 0;
  for (size_t j = 0; j < pool.size(); ++j) {
    if (!sampler.sample(rng, pool[j])) return false;
    weights[j] = model->weight(pool[j]);
    total += weights[j];
  }
  double r = static_cast<double>(rng.next() >> 11) * 0x1p-53 * total;
  size_t pick = 0;
  while (pick + 1 < pool.size() && r >= weights[pick]) r -= weights[pick++];
  world = pool[pick];
  return true;
}


}  // namespace allfives::engine
