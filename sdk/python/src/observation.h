// A seat's observation as a fixed-size vector of small integers, for learning code: a
// function of that seat's View and Knowledge only (what it may see, and what the public
// history told it), so it can never hold another seat's tile. Seats and sides are relative:
// slot 0 is always the observing seat (and its side), slot 1 the next seat in play order.
#pragma once

#include <array>
#include <cstdint>

#include "allfives/core/knowledge.h"
#include "allfives/core/state.h"

namespace allfives::python {

// The layout, one named range per fact (offsets into the vector).
struct ObservationLayout {
  static constexpr int kHand = 0;          // 28: 1 for each tile this seat holds
  static constexpr int kOnLine = 28;       // 28: 1 for each tile on the line
  static constexpr int kLeftEnd = 56;      // 7: one-hot value of the left end
  static constexpr int kLeftDouble = 63;   // 1: a double lies crosswise at the left end
  static constexpr int kRightEnd = 64;     // 7: one-hot value of the right end
  static constexpr int kRightDouble = 71;  // 1
  static constexpr int kLineEmpty = 72;    // 1: the hand's opening play is to be made
  static constexpr int kVoids = 73;        // 3 x 28: tiles the next seats (1, 2, 3) cannot hold
  static constexpr int kHandSizes = 157;   // 4: tiles held, by relative seat
  static constexpr int kBoneyard = 161;    // 1: tiles left to draw
  static constexpr int kScores = 162;      // 4: scores, by relative side
  static constexpr int kTarget = 166;      // 1
  static constexpr int kToMove = 167;      // 1: 1 if this seat is to play
  static constexpr int kSize = 168;
};

using Features = std::array<int16_t, ObservationLayout::kSize>;

// `knowledge` may be null: the voids are then left empty.
Features encode(const View& view, const Knowledge* knowledge);

}  // namespace allfives::python
