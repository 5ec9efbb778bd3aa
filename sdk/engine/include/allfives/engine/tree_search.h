// Information-set Monte Carlo tree search (single-observer ISMCTS): a search that plans the
// seat's own follow-ups and the other side's replies, where the flat evaluation (evaluate.h)
// leaves every later play to the rollout policy.
//
// Each iteration draws one world as evaluate() does (uniform among those the seat's view and
// knowledge allow, kept among `candidates` by the opponent model), then walks one tree shared by
// every world: at each node only the plays legal in this world are eligible, each chosen by
// UCB1 over its mean for the side that makes it with the count of iterations in which it was
// available (so a play that is rarely possible is not starved), until a play not yet in the tree
// is added; the rollout policy then finishes the hand, and the match-win estimate at its end is
// backed up along the path. Draws and passes happen inside the core's apply, so the tree's
// edges are plays only. Two sides only (partnerships included): with more the values are not
// zero-sum.
#pragma once

#include <cstdint>
#include <vector>

#include "allfives/core/knowledge.h"
#include "allfives/core/state.h"
#include "allfives/engine/evaluate.h"
#include "allfives/engine/opponent_model.h"

namespace allfives::engine {

struct TreeConfig {
  int iterations = 4000;  // at most this many (a StopAt may end the search sooner)
  uint64_t seed = 0;      // iteration i draws from derive_seed(seed, i)
  double exploration = 0.3;
  int epsilon_permille = 100;  // the rollout's random plays
  int candidates = 8;          // the opponent model's draws per world (1: none)
  OpponentModel model;
  int max_nodes = 1 << 20;  // the tree stops growing here (about 24 MiB)
};

struct TreeResult {
  bool ok = false;          // false: not at the seat's decision, unsampleable, or > 2 sides
  int iterations = 0;
  std::vector<int> visits;  // per legal play, in legal order
  std::vector<double> means;  // its mean match-win estimate for the seat's side
  int best = 0;               // the most visited play's index
};

TreeResult tree_search(const View& view, const Knowledge* knowledge, const TreeConfig& config,
                       const StopAt& stop = {});

}  // namespace allfives::engine
