// RULES.md "The deal": SplitMix64 and Fisher-Yates written out, reproducible everywhere; hand
// sizes per format; golden deals pinned so any change to the shuffle fails loudly.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "allfives/core/deal.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

// "2-0 3-0 4-1" -> tiles in that order.
std::vector<Tile> tiles(const std::string& text) {
  std::vector<Tile> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    Tile t;
    EXPECT_TRUE(parse_tile(word, t)) << word;
    out.push_back(t);
  }
  return out;
}

TileSet set_of(const std::string& text) {
  TileSet s;
  for (Tile t : tiles(text)) s.add(t);
  return s;
}

std::vector<Tile> boneyard_of(const Deal& d) {
  return std::vector<Tile>(d.boneyard.begin(), d.boneyard.begin() + d.boneyard_size);
}

// ---- SplitMix64 ------------------------------------------------------------------------------

TEST(SplitMix64, SeedZeroMatchesTheReferenceOutputs) {
  // Published reference values of SplitMix64 (Vigna's splitmix64.c) for seed 0.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.next(), 0x06C45D188009454Full);
}

TEST(SplitMix64, IsUsableAtCompileTime) {
  constexpr uint64_t first = [] {
    SplitMix64 r(0);
    return r.next();
  }();
  static_assert(first == 0xE220A8397B1DCDAFull);
  SUCCEED();
}

TEST(SplitMix64, BelowStaysInRangeAndReachesEveryValue) {
  SplitMix64 rng(3);
  for (uint32_t bound : {1u, 2u, 3u, 7u, 28u}) {
    std::set<uint32_t> seen;
    for (int i = 0; i < 2000; ++i) {
      const uint32_t v = rng.below(bound);
      ASSERT_LT(v, bound);
      seen.insert(v);
    }
    EXPECT_EQ(seen.size(), bound);
  }
}

TEST(SplitMix64, BelowIsRoughlyUniform) {
  SplitMix64 rng(99);
  int counts[28] = {};
  const int n = 28 * 10000;
  for (int i = 0; i < n; ++i) ++counts[rng.below(28)];
  for (int c : counts) {
    EXPECT_GT(c, 9500);
    EXPECT_LT(c, 10500);
  }
}

TEST(Shuffle, GoldenFisherYatesForSeedZero) {
  int items[28];
  for (int i = 0; i < 28; ++i) items[i] = i;
  SplitMix64 rng(0);
  shuffle(items, 28, rng);
  const int expected[28] = {23, 1, 3,  22, 0,  13, 19, 9,  27, 16, 11, 18, 4,  6,
                            12, 8, 25, 5,  20, 26, 15, 24, 2,  14, 7,  10, 17, 21};
  for (int i = 0; i < 28; ++i) EXPECT_EQ(items[i], expected[i]) << "position " << i;
}

TEST(Shuffle, IsAPermutation) {
  SplitMix64 rng(5);
  for (int round = 0; round < 100; ++round) {
    int items[28];
    for (int i = 0; i < 28; ++i) items[i] = i;
    shuffle(items, 28, rng);
    std::set<int> seen(items, items + 28);
    EXPECT_EQ(seen.size(), 28u);
  }
}

TEST(DeriveSeed, GoldenValuesAndIndependence) {
  EXPECT_EQ(derive_seed(42, 0), 0x57E1FABA65107204ull);
  EXPECT_EQ(derive_seed(42, 1), 0x79C32CD79CCD877Eull);
  std::set<uint64_t> seen;
  for (uint64_t i = 0; i < 1000; ++i) seen.insert(derive_seed(42, i));
  EXPECT_EQ(seen.size(), 1000u);
}

// The reference values of FNV-1a 64 (the same in the Python SDK's rng.py).
TEST(Fnv1a64, MatchesTheReferenceValues) {
  EXPECT_EQ(fnv1a64(""), 0xCBF29CE484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8Cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171F73967E8ull);
  static_assert(fnv1a64("a") == 0xAF63DC4C8601EC8Cull);  // usable at compile time
}

// ---- deal_hand
// -----------------------------------------------------------------------------------

TEST(Deal, SevenEachWithTwoPlayersFiveEachOtherwise) {
  for (Format f : kAllFormats) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      const Deal d = deal_hand(f, seed, static_cast<int>(seed % 5));
      const int k = f == Format::kTwoPlayers ? 7 : 5;
      for (int seat = 0; seat < kMaxPlayers; ++seat)
        EXPECT_EQ(d.hands[seat].size(), seat < num_players(f) ? k : 0);
      EXPECT_EQ(d.boneyard_size, 28 - k * num_players(f));
    }
  }
  EXPECT_EQ(hand_size(Format::kTwoPlayers), 7);
  EXPECT_EQ(hand_size(Format::kThreePlayers), 5);
  EXPECT_EQ(hand_size(Format::kFourPlayers), 5);
  EXPECT_EQ(hand_size(Format::kPartnerships), 5);
}

TEST(Deal, EveryTileExactlyOnce) {
  for (Format f : kAllFormats) {
    for (uint64_t seed = 0; seed < 200; ++seed) {
      const Deal d = deal_hand(f, seed, 3);
      TileSet all;
      int count = 0;
      for (int seat = 0; seat < num_players(f); ++seat) {
        EXPECT_TRUE((all & d.hands[seat]).empty());
        all |= d.hands[seat];
        count += d.hands[seat].size();
      }
      for (Tile t : boneyard_of(d)) {
        EXPECT_FALSE(all.contains(t));
        all.add(t);
        ++count;
      }
      EXPECT_EQ(all, TileSet::all());
      EXPECT_EQ(count, 28);
    }
  }
}

TEST(Deal, ReproducibleAndDependsOnSeedAndHand) {
  for (Format f : kAllFormats) {
    EXPECT_EQ(deal_hand(f, 42, 0), deal_hand(f, 42, 0));
    EXPECT_EQ(deal_hand(f, 42, 17), deal_hand(f, 42, 17));
    EXPECT_NE(deal_hand(f, 42, 0), deal_hand(f, 42, 1));
    EXPECT_NE(deal_hand(f, 42, 0), deal_hand(f, 43, 0));
  }
}

TEST(Deal, NewMatchDealsHandZeroOfTheSeed) {
  for (Format f : kAllFormats) {
    EventList ev;
    const State s = State::new_match(Config::standard(f), 42, &ev);
    const Deal d = deal_hand(f, 42, 0);
    for (int seat = 0; seat < num_players(f); ++seat) EXPECT_EQ(s.hand(seat), d.hands[seat]);
    EXPECT_EQ(s.boneyard_size(), d.boneyard_size);
    ASSERT_EQ(ev.size(), 1);
    EXPECT_EQ(ev[0].deal, d);
    EXPECT_EQ(ev[0].hand_index, 0);
    for (int seat = 0; seat < num_players(f); ++seat) EXPECT_EQ(ev[0].hands[seat], d.hands[seat]);
  }
}

// Golden deals: seed 42, hands 0 and 1. The 28 tiles are shuffled once per hand independently
// of the format; seats take consecutive runs, the rest is the boneyard in drawing order.
TEST(Deal, GoldenSeed42TwoPlayers) {
  const Deal d0 = deal_hand(Format::kTwoPlayers, 42, 0);
  EXPECT_EQ(d0.hands[0], set_of("2-0 3-0 4-1 5-1 4-2 6-3 5-5"));
  EXPECT_EQ(d0.hands[1], set_of("0-0 5-0 1-1 6-1 2-2 5-2 6-5"));
  EXPECT_EQ(boneyard_of(d0), tiles("2-1 5-4 6-6 6-2 1-0 6-4 4-3 3-2 3-3 4-4 5-3 6-0 3-1 4-0"));
  const Deal d1 = deal_hand(Format::kTwoPlayers, 42, 1);
  EXPECT_EQ(d1.hands[0], set_of("2-0 5-0 2-2 3-2 3-3 4-4 6-4"));
  EXPECT_EQ(d1.hands[1], set_of("3-0 2-1 5-2 4-3 5-3 5-5 6-6"));
  EXPECT_EQ(boneyard_of(d1), tiles("4-2 6-3 5-4 1-0 5-1 0-0 4-0 3-1 6-0 4-1 6-1 6-5 1-1 6-2"));
}

TEST(Deal, GoldenSeed42ThreePlayers) {
  const Deal d0 = deal_hand(Format::kThreePlayers, 42, 0);
  EXPECT_EQ(d0.hands[0], set_of("2-0 3-0 4-1 5-1 5-5"));
  EXPECT_EQ(d0.hands[1], set_of("0-0 1-1 4-2 5-2 6-3"));
  EXPECT_EQ(d0.hands[2], set_of("5-0 2-1 6-1 2-2 6-5"));
  EXPECT_EQ(boneyard_of(d0), tiles("5-4 6-6 6-2 1-0 6-4 4-3 3-2 3-3 4-4 5-3 6-0 3-1 4-0"));
  const Deal d1 = deal_hand(Format::kThreePlayers, 42, 1);
  EXPECT_EQ(d1.hands[0], set_of("2-0 3-2 3-3 4-4 6-4"));
  EXPECT_EQ(d1.hands[1], set_of("3-0 5-0 2-2 5-2 5-3"));
  EXPECT_EQ(d1.hands[2], set_of("2-1 4-2 4-3 5-5 6-6"));
  EXPECT_EQ(boneyard_of(d1), tiles("6-3 5-4 1-0 5-1 0-0 4-0 3-1 6-0 4-1 6-1 6-5 1-1 6-2"));
}

TEST(Deal, GoldenSeed42FourPlayersAndPartnerships) {
  for (Format f : {Format::kFourPlayers, Format::kPartnerships}) {
    const Deal d0 = deal_hand(f, 42, 0);
    EXPECT_EQ(d0.hands[0], set_of("2-0 3-0 4-1 5-1 5-5"));
    EXPECT_EQ(d0.hands[1], set_of("0-0 1-1 4-2 5-2 6-3"));
    EXPECT_EQ(d0.hands[2], set_of("5-0 2-1 6-1 2-2 6-5"));
    EXPECT_EQ(d0.hands[3], set_of("1-0 6-2 5-4 6-4 6-6"));
    EXPECT_EQ(boneyard_of(d0), tiles("4-3 3-2 3-3 4-4 5-3 6-0 3-1 4-0"));
    const Deal d1 = deal_hand(f, 42, 1);
    EXPECT_EQ(d1.hands[0], set_of("2-0 3-2 3-3 4-4 6-4"));
    EXPECT_EQ(d1.hands[1], set_of("3-0 5-0 2-2 5-2 5-3"));
    EXPECT_EQ(d1.hands[2], set_of("2-1 4-2 4-3 5-5 6-6"));
    EXPECT_EQ(d1.hands[3], set_of("0-0 1-0 5-1 6-3 5-4"));
    EXPECT_EQ(boneyard_of(d1), tiles("4-0 3-1 6-0 4-1 6-1 6-5 1-1 6-2"));
  }
}

TEST(Deal, GoldenSeed42FirstOpeners) {
  // 2p: 6-6 is in the boneyard, so seat 0's 5-5 opens. 3p: 5-5 (seat 0). 4p: 6-6 (seat 3).
  EXPECT_EQ(State::new_match(Config::standard(Format::kTwoPlayers), 42).seat_to_move(), 0);
  EXPECT_EQ(State::new_match(Config::standard(Format::kTwoPlayers), 42).legal_plays()[0].tile,
            Tile::of(5, 5));
  EXPECT_EQ(State::new_match(Config::standard(Format::kThreePlayers), 42).seat_to_move(), 0);
  EXPECT_EQ(State::new_match(Config::standard(Format::kFourPlayers), 42).seat_to_move(), 3);
  EXPECT_EQ(State::new_match(Config::standard(Format::kPartnerships), 42).legal_plays()[0].tile,
            Tile::of(6, 6));
}

}  // namespace
}  // namespace allfives
