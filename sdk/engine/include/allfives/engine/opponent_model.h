// How likely a sampled world makes the plays the other seats chose this hand: the weight that
// turns worlds drawn uniformly from what the seat has seen into worlds drawn from what it can
// infer (a seat that did not score when it could have probably lacked the tile that would).
//
// The model of another seat's choice among its legal plays: with probability 1 - epsilon a
// softmax over the points each play scores now (sharpness beta per point), else a uniformly
// random play. Greedy play is its limit as beta grows; a searching player scores less
// predictably, which a small beta and the epsilon floor allow for.
//
// Only the plays a seat made since it last drew are judged: its hand then was the hand the world
// gives it now plus the tiles it played since. The opening play is not judged (the open rule
// constrains it).
#pragma once

#include <array>
#include <cstdint>

#include "allfives/core/knowledge.h"
#include "allfives/core/line.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"

namespace allfives::engine {

struct OpponentModel {
  double beta = 0.3;     // softmax sharpness, per point
  double epsilon = 0.1;  // share of uniformly random choices (keeps every world possible)
  bool count_deals = true;  // weigh worlds by the deals behind each too (deals())
};

// The other seats' judged plays of the hand so far, prepared once per decision.
class PlayLikelihood {
 public:
  // From the seat's view and knowledge (which tells when each seat last drew).
  PlayLikelihood(const View& view, const Knowledge& knowledge, const OpponentModel& model);

  // How many plays are judged (0: every world weighs the same).
  int plays() const { return count_; }
  // The probability of the judged plays had the other seats held the hands of `world` (a
  // state sampled for this decision): a product over the plays of the model's probability.
  double of(const State& world) const;
  // How many deals lead to `world`'s hands, up to a factor every world of this decision shares:
  // the ways to split each other seat's hand into its groups (the deal, then each draw; the
  // knowledge's groups) so that no group holds a tile it cannot. The sampler draws hands
  // uniformly, so a world that more deals lead to is weighed up by this.
  double deals(const State& world) const;
  // Whether deals() can differ between worlds (some seat drew this hand).
  bool deals_vary() const { return deals_vary_ && model_.count_deals; }
  // of(world) * deals(world): the weight of a world.
  double weight(const State& world) const {
    return model_.count_deals ? of(world) * deals(world) : of(world);
  }

 private:
  struct Judged {
    LineEnd left, right;  // the line's ends before the play
    Play play;
    uint8_t seat = 0;
    TileSet held;  // this play's tile and those the seat played after it
  };
  std::array<Judged, kNumTiles> judged_{};
  int count_ = 0;
  // Every other seat's groups, oldest first: how many tiles, and the tiles they may hold
  // (nested: an older group may hold fewer).
  struct Group {
    uint8_t seat = 0;
    uint8_t count = 0;
    TileSet allowed;
  };
  std::array<Group, kMaxPlayers * Knowledge::kMaxGroups> groups_{};
  int num_groups_ = 0;
  bool deals_vary_ = false;
  OpponentModel model_;
};

}  // namespace allfives::engine
