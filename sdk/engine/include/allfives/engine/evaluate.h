// What each legal play of a decision is worth to the deciding seat, judged with that seat's
// information only.
//
// evaluate() draws worlds (the other hands and the boneyard's order) uniformly among those
// consistent with the seat's view and knowledge (the core's WorldSampler), the same worlds for
// every play (common random numbers), and continues each play in each world to the end of the
// hand:
//   - by the rollout policy (policy.h: greedy with epsilon random plays, for every seat);
//   - or, when few tiles remain (EvalConfig::exact_tiles), by solving that world exactly
//     (solver.h), the world's hidden tiles shown to every seat; a world over its node budget is
//     rolled out instead.
// With an opponent model (EvalConfig::candidates > 1, opponent_model.h) each world kept is
// picked among `candidates` uniform draws in proportion to how likely each makes the plays the
// other seats chose (sampling-importance-resampling): the worlds lean towards the hands the
// others' choices suggest, and every kept world still weighs the same.
// Each option gets two values with their standard errors over the worlds:
//   - points: its side's points minus the other sides' mean over the rest of the hand, the
//     hand-end points included;
//   - win: the match-win probability once the hand is over, modelled as WinTable::p_win of the
//     scores at the hand's end (a table from greedy self-play, policy.h), or 1, 0 or 0.5 if the
//     match ended inside the hand. With more than two sides there is no table: p_win's logistic
//     curve of the seat's score against the highest other side's, a rough guide only.
// When the seat knows every hidden tile (WorldSampler::count() is 1 and the boneyard is empty)
// and there are two sides, the one world is solved exactly and the evaluation is exact (standard
// errors 0).
//
// With a given seed the result depends only on the view, the knowledge and the config: world i
// draws all its randomness from derive_seed(seed, i).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "allfives/core/knowledge.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"
#include "allfives/engine/opponent_model.h"
#include "allfives/engine/solver.h"

namespace allfives::engine {

struct EvalConfig {
  int worlds = 400;  // worlds sampled (at least 1)
  uint64_t seed = 0;
  int first_world = 0;  // world i draws from derive_seed(seed, first_world + i): split runs
  int epsilon_permille = 100;  // the rollout's random plays, per mille
  // Solve each world exactly instead of rolling it out when the tiles left in all hands are at
  // most this many and the boneyard holds at most exact_boneyard (two sides only; 0: never).
  // Draws lengthen the rest of a hand, so a full boneyard makes even short hands slow to solve.
  int exact_tiles = 8;
  int exact_boneyard = 4;
  int64_t world_node_budget = 20000;    // per world and utility; over it the world is rolled out
  int64_t exact_node_budget = 2000000;  // the solve of a seat that knows everything
  // Sampled worlds are solved for this utility only, the other's values rolled out (a search
  // that decides by one utility halves its solving); unset: both solved.
  std::optional<Utility> solve_only;
  // Uniform draws per world kept, the likeliest-weighted one kept (1: no opponent model; the
  // model needs the knowledge).
  int candidates = 1;
  OpponentModel model;
};

// Asked before every world after the first with the worlds done so far: true stops the
// evaluation there (a time budget). Empty: config.worlds decides alone.
using StopAt = std::function<bool(int worlds)>;

struct OptionValue {
  Play play;
  double points = 0;  // mean points difference over the rest of the hand, for the seat's side
  double points_se = 0;
  double win = 0;  // mean match-win probability for the seat's side
  double win_se = 0;
};

struct Evaluation {
  std::vector<OptionValue> options;  // the seat's legal plays, in legal order
  bool exact = false;                // solved for the seat itself: every standard error is 0
  int worlds = 0;                    // worlds used (1 when exact)
  int solved_worlds = 0;             // of which solved exactly rather than rolled out
  bool knowledge_used = false;       // whether every fact of the knowledge bound the worlds
  // Each world's value of each option, world by world: [world * options.size() + option].
  std::vector<double> points_by_world;
  std::vector<double> win_by_world;

  double mean(int option, Utility utility) const;
  // The standard error of mean(option): 0 when exact, infinite with fewer than two worlds.
  double se(int option, Utility utility) const;
  // The standard error of mean(a) - mean(b), from the worlds' paired differences: the same
  // worlds for both options make it smaller than the two standard errors combined (a little
  // early in a hand, where rollouts soon part ways; much late in one, where worlds are solved).
  double difference_se(int a, int b, Utility utility) const;
};

// Values every legal play of `view`'s seat, which must be at its own decision (otherwise, or
// when the view cannot be sampled, no worlds are used). `knowledge` is the seat's knowledge of
// the hand (nullptr: the view's facts only). `solver` is reused for every exact solve.
Evaluation evaluate(const View& view, const Knowledge* knowledge, const EvalConfig& config,
                    HandSolver& solver);
// The same into `out`, its buffers reused: a caller evaluating many decisions allocates once.
void evaluate(const View& view, const Knowledge* knowledge, const EvalConfig& config,
              HandSolver& solver, Evaluation& out, const StopAt& stop = {});

}  // namespace allfives::engine
