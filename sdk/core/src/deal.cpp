#include "allfives/core/deal.h"

#include "allfives/core/rng.h"

namespace allfives {

Deal deal_hand(Format format, uint64_t seed, int hand_index) {
  std::array<Tile, kNumTiles> tiles;
  for (int i = 0; i < kNumTiles; ++i) tiles[i] = Tile::from_index(i);
  SplitMix64 rng(derive_seed(seed, static_cast<uint64_t>(hand_index)));
  shuffle(tiles.data(), kNumTiles, rng);

  Deal d;
  const int k = hand_size(format);
  int next = 0;
  for (int s = 0; s < num_players(format); ++s)
    for (int i = 0; i < k; ++i) d.hands[s].add(tiles[next++]);
  for (; next < kNumTiles; ++next) d.boneyard[d.boneyard_size++] = tiles[next];
  return d;
}

}  // namespace allfives
