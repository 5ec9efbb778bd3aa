// The strong sample bot's search: determinized Monte Carlo over the hidden tiles.
//
// On each decision the bot
//   1. samples the unseen tiles (the other hands and the boneyard's order) uniformly among
//      those consistent with what it has observed: the hand sizes, the boneyard size, the
//      tiles the open rule says nobody held, and the suits a seat could not have held when it
//      drew or passed (the core's Knowledge and WorldSampler, allfives/core/resample.h);
//   2. plays every candidate play in that world and finishes the hand with a fast greedy-ish
//      rollout (rollout_pick), the same world for every candidate (common random numbers);
//   3. scores the hand's end by the estimated probability of winning the match from the
//      resulting scores (WinTable), or 1/0 if the rollout reached the target;
//   4. repeats for a number of worlds (fixed, or until a deadline) and plays the candidate
//      with the best mean.
//
// Everything here uses only the public SDK headers (the rules core, the engine and bot.h), as an
// out-of-tree bot would. With a fixed number of worlds the result depends only on the view,
// the knowledge and the seed: world i draws its randomness from derive_seed(seed, i), and the
// utilities are summed as integers, so neither the thread count nor the machine's speed
// changes the choice.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "allfives/bot/bot.h"
#include "allfives/core/greedy.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/evaluate.h"
#include "allfives/engine/policy.h"
#include "allfives/engine/tree_search.h"

namespace allfives::strong {

// The rollout policy and the win table are the engine's (allfives/engine/policy.h), shared with
// the game review's evaluation.
using engine::rollout_pick;
using engine::WinTable;

enum class Utility : uint8_t {
  kWinProbability,  // WinTable at the hand's end (two sides), 1/0 at the match's end
  kPoints,          // my side's points in the rest of the hand minus the others' mean
};

// Which search decides: v1 the flat Monte Carlo search above (strong_v1, the baseline); v2 the
// engine's evaluation (allfives/engine/evaluate.h): the same flat search with worlds chosen by
// an opponent model and, late in a hand, each world solved exactly.
enum class Engine : uint8_t { kV1, kV2 };

struct SearchConfig {
  Engine engine = Engine::kV2;
  int candidates = 8;        // v2: uniform draws per world kept (1: no opponent model)
  double model_beta = 0.3;   // v2: the opponent model's sharpness per point
  bool count_deals = true;   // v2: weigh worlds by the deals behind each
  int exact_tiles = 8;       // v2: solve worlds with at most this many tiles in hands (0: never)
  bool tree = true;          // v2: information-set MCTS before the exact late worlds
  double exploration = 0.3;  // its UCB1 constant
  int simulations = 0;       // > 0: exactly this many worlds per decision (deterministic)
  std::chrono::milliseconds budget{200};  // else: search until this long after the request
  int threads = 1;
  int epsilon_permille = 100;  // rollout randomness
  bool use_knowledge = true;   // sample with the observed voids (false: only the view)
  Utility utility = Utility::kWinProbability;
};

// The parameters strong_bot reads from MatchStart.params (bot::MatchInfo::params: a tournament
// or tune file's TournamentBot.params), each overriding the command line's value for that
// match only. A value out of range is clamped into it, an integer one rounded:
//   epsilon      rollout randomness as a probability, 0..1 (0.1 is --epsilon 100 per mille;
//                kept to the nearest per mille)
//   exploration  the tree search's UCB1 constant, 0..10 (--exploration)
//   model_beta   the opponent model's sharpness per point, 0..10 (--model-beta)
//   candidates   uniform draws per world kept by the opponent model, 1..256 (--candidates)
//   exact_tiles  solve worlds once at most this many tiles are in hands, 0..28 (--exact-tiles)
//   simulations  worlds per decision, 0..10000000, 0: by time (--simulations)
//   budget_ms    time per decision in milliseconds without simulations, 1..600000 (--budget-ms)
// The names of `params` it does not read are added to `unknown` (when given).
SearchConfig with_params(SearchConfig config, const std::map<std::string, double>& params,
                         std::vector<std::string>* unknown = nullptr);

// What v2 reuses from one decision to the next: a solver (3 MiB of table) and an evaluation
// per thread.
struct Workspace {
  std::vector<engine::HandSolver> solvers;
  std::vector<engine::Evaluation> evaluations;
};

struct SearchResult {
  Play play;
  int worlds = 0;             // worlds searched
  int strict_worlds = 0;      // of which sampled with every fact of the knowledge kept
  std::vector<double> means;  // per legal play, in legal order
};

// Searches the view's legal plays and returns the best. Stops after config.simulations worlds,
// or (without a count) when `stop` passes; in every case it stops at `hard_stop` (a safety
// net: the answer must never be late). Searches at least one world unless hard_stop has
// passed, in which case it answers the greedy play.
// `workspace` (nullptr: a fresh one) keeps v2's buffers between calls.
SearchResult search(const View& view, const Knowledge* knowledge, const SearchConfig& config,
                    uint64_t seed, std::chrono::steady_clock::time_point stop,
                    std::chrono::steady_clock::time_point hard_stop,
                    Workspace* workspace = nullptr);

// The bot: the seat's Knowledge fed by the SDK's hooks and a search per decision, with
// `config` changed by the match's params (with_params; a name it does not read is named on
// stderr, so a misspelt parameter is not silently ignored).
class StrongBot final : public bot::Bot {
 public:
  StrongBot(const bot::MatchInfo& info, const SearchConfig& config);

  Play choose_play(const View& view, const bot::Clock& clock) override;
  void on_hand_start(const bot::HandStartInfo& info) override {
    knowledge_.start_hand(info.hand_index, info.open_rule, info.open_with);
  }
  void on_event(const Event& event) override { knowledge_.observe(event); }

  // The last decision's search (for tests and tools).
  const SearchResult& last_result() const { return last_; }
  // The configuration this match plays with: the command line's and the match's params.
  const SearchConfig& config() const { return config_; }

 private:
  SearchConfig config_;
  uint64_t seed_;
  uint64_t decisions_ = 0;
  Knowledge knowledge_;
  Workspace workspace_;
  SearchResult last_;
};

}  // namespace allfives::strong
