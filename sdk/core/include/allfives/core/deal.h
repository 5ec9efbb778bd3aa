// A hand's deal: every seat's tiles and the boneyard in drawing order.
#pragma once

#include <array>
#include <cstdint>

#include "allfives/core/types.h"

namespace allfives {

struct Deal {
  std::array<TileSet, kMaxPlayers> hands{};  // unused seats are empty
  std::array<Tile, kNumTiles> boneyard{};    // boneyard[0] is drawn first
  uint8_t boneyard_size = 0;

  friend bool operator==(const Deal&, const Deal&) = default;
};

// The deal of hand `hand_index` (0-based) of the match played with `seed`. It depends on
// nothing else, so replays and mirrored tournament deals can jump straight to any hand:
// the 28 tiles are shuffled with Fisher–Yates from derive_seed(seed, hand_index), seat s
// takes shuffled tiles [s*k, (s+1)*k) for the hand size k, and the rest, in order, is the
// boneyard.
Deal deal_hand(Format format, uint64_t seed, int hand_index);

}  // namespace allfives
