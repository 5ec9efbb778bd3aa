// What the engine's searches share (evaluate.cpp, tree_search.cpp): the value of a state at the
// end of a rollout for the deciding seat's side, and the drawing of one world.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
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


// Draws the worlds of one decision: uniform samples, or with the opponent model each the pick
// among `candidates` samples in proportion to their weight (sampling-importance-resampling).
class WorldDraw {
 public:
  // The model is used when candidates > 1, the knowledge binds every sample and it can tell
  // worlds apart (a judged play, or deals that differ).
  WorldDraw(const View& view, const Knowledge* knowledge, const WorldSampler& sampler,
            int candidates, const OpponentModel& model, const State& blank)
      : sampler_(sampler) {
    if (candidates < 2 || knowledge == nullptr || !sampler.exact()) return;
    model_.emplace(view, *knowledge, model);
    if (model_->plays() == 0 && !model_->deals_vary()) return;
    pool_.assign(static_cast<size_t>(candidates), blank);
    weights_.resize(pool_.size());
  }

  // One world into `world`; false if the sampler fails.
  bool draw(SplitMix64& rng, State& world) {
    if (pool_.empty()) return sampler_.sample(rng, world);
    double total = 0;
    for (size_t j = 0; j < pool_.size(); ++j) {
      if (!sampler_.sample(rng, pool_[j])) return false;
      weights_[j] = model_->weight(pool_[j]);
      total += weights_[j];
    }
    double r = static_cast<double>(rng.next() >> 11) * 0x1p-53 * total;
    size_t pick = 0;
    while (pick + 1 < pool_.size() && r >= weights_[pick]) r -= weights_[pick++];
    world = pool_[pick];
    return true;
  }

 private:
  const WorldSampler& sampler_;
  std::optional<PlayLikelihood> model_;
  std::vector<State> pool_;  // empty: uniform samples
  std::vector<double> weights_;
};

}  // namespace allfives::engine
