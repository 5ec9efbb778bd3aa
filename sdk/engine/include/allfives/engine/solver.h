// Exact perfect-information solving of the rest of the current hand.
//
// Given a full State (every hand and the boneyard's order known), the rest of the hand is a
// finite game of perfect information between two sides: alpha-beta (minimax by side) over
// copies of the core's state, with a transposition table, values every legal play of the seat
// to move. Draws are part of the State: with cards still in the boneyard the State is one
// determinized world, so a solve is exact for that world; it is exact for the seat itself only
// when the seat knows everything (two players and an empty boneyard, or any format once the
// seat's WorldSampler::count() is 1 and the boneyard is empty).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "allfives/core/state.h"
#include "allfives/core/types.h"
#include "allfives/engine/policy.h"

namespace allfives::engine {

// What a play is worth to the deciding seat's side.
enum class Utility : uint8_t {
  // Its side's points minus the other side's over the rest of the hand, the hand-end points
  // (domino or block) included.
  kPoints,
  // Its side's match-win probability once the hand is over: WinTable::p_win of the scores at
  // the hand's end, or 1, 0 or 0.5 when the match ends inside the hand.
  kWin,
};

struct PlayValue {
  Play play;
  double value = 0;
  friend bool operator==(const PlayValue&, const PlayValue&) = default;
};

class HandSolver {
 public:
  // 2^17 entries of 24 bytes (3 MiB), allocated once here and never again.
  static constexpr int kTableBits = 17;

  HandSolver();

  // The exact value of every legal play of state.seat_to_move() under `utility`, in legal
  // order, or nullopt when more than `node_budget` positions would be searched, the match is
  // over, or the format has more than two sides.
  std::optional<std::vector<PlayValue>> solve(const State& state, Utility utility,
                                              int64_t node_budget);
  // The same into `out` (its capacity reused, so solving many worlds allocates nothing);
  // false, with `out` unspecified, where the other returns nullopt.
  bool solve(const State& state, Utility utility, int64_t node_budget, std::vector<PlayValue>& out);

  // Positions searched by the last solve (each play applied counts one).
  int64_t nodes() const { return nodes_; }

 private:
  struct Entry {
    uint64_t key = 0;
    double value = 0;
    uint32_t generation = 0;
    uint8_t bound = 0;    // a Bound
    uint8_t best = 0xff;  // the best play as best_code() writes it, 0xff: none
  };
  enum Bound : uint8_t { kExact, kLower, kUpper };

  // The value of the rest of the hand from `state` (not a leaf) for the root's side, within
  // (alpha, beta) as alpha-beta defines it.
  double search(const State& state, double alpha, double beta);
  // What one step adds to the value: with kPoints the points the play and the draws, passes
  // and hand end after it moved; with kWin the leaf's worth if the step ended the hand, else 0.
  double step_value(const State& before, const State& after) const;
  bool ends_hand(const State& after) const;
  // The position's 64-bit hash, which an entry must match in full. The two ends are ordered
  // (mirror images have the same future), so a play is remembered by its tile and whether it
  // went on the first end of that order.
  uint64_t key_of(const State& state) const;
  static uint8_t best_code(const State& state, Play play);
  static int best_index(const State& state, const PlayList& legal, uint8_t code);

  std::vector<Entry> table_;
  uint32_t generation_ = 0;
  Utility utility_ = Utility::kPoints;
  int root_side_ = 0;
  int hand_ = 0;
  bool keyed_scores_ = true;  // whether the scores can change the value (key them)
  const WinTable* win_table_ = nullptr;
  int64_t nodes_ = 0;
  int64_t budget_ = 0;
  bool aborted_ = false;
};

}  // namespace allfives::engine
