// The greedy policy: the play that scores the most points now. It is the baseline every
// stronger bot is measured against, so the greedy sample bot, the strong bot's rollouts and
// arena, and the referee's demo all play this one definition.
#pragma once

#include "allfives/core/line.h"
#include "allfives/core/state.h"

namespace allfives {

// How much greedy likes `play`, higher is better: the points it scores now, then the heavier
// tile (pips left in hand count for the opponents at a hand's end). Two plays rank equal only
// if both their points and their pips are equal.
constexpr int greedy_rank(const Line& line, Play play) {
  return points_after(line, play) * 16 + play.tile.pips();  // pips <= 12 < 16
}

// The greedy play among `legal` (not empty): the best greedy_rank, the first in legal order
// (the order the referee sends) among equals, so it is deterministic.
inline Play greedy_play(const Line& line, const PlayList& legal) {
  Play best = legal[0];
  int best_rank = greedy_rank(line, best);
  for (int i = 1; i < legal.size(); ++i) {
    const int rank = greedy_rank(line, legal[i]);
    if (rank > best_rank) {
      best = legal[i];
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace allfives
