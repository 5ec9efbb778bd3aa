// The timing test of `referee verify` (docs/STATISTICS.md, "Decision times and hidden tiles"):
// simulated bots whose times ignore the hand, encode tiles, or follow only the number of
// options, with fixed seeds.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "allfives/core/rng.h"
#include "allfives/core/types.h"
#include "replay/timing_signal.h"

namespace allfives::referee {
namespace {

// A decision's time from its index, its options, the seat's dealt hand and the noise source.
using TimeOf = std::function<uint32_t(int index, int options, TileSet hand, SplitMix64& rng)>;
// A decision's options from its index and the dealt hand.
using OptionsOf = std::function<int(int index, TileSet hand, SplitMix64& rng)>;

TileSet deal_seven(SplitMix64& rng) {
  int tiles[kNumTiles];
  for (int i = 0; i < kNumTiles; ++i) tiles[i] = i;
  shuffle(tiles, kNumTiles, rng);
  TileSet hand;
  for (int i = 0; i < 7; ++i) hand.add(Tile::from_index(tiles[i]));
  return hand;
}

int random_options(int, TileSet, SplitMix64& rng) {
  return 2 + static_cast<int>(rng.below(5));
}

// `hands` dealt hands of six decisions each (indexes 0..5), as a seat plays them.
std::vector<TimedDecision> simulate(uint64_t seed, int hands, const TimeOf& time_of,
                                    const OptionsOf& options_of = random_options) {
  SplitMix64 rng(seed);
  std::vector<TimedDecision> out;
  for (int h = 0; h < hands; ++h) {
    const TileSet hand = deal_seven(rng);
    for (int d = 0; d < 6; ++d) {
      const int options = options_of(d, hand, rng);
      out.push_back(TimedDecision{d, options, time_of(d, options, hand, rng), hand.bits()});
    }
  }
  return out;
}

bool holds(TileSet hand, int tile) {
  return hand.contains(Tile::from_index(tile));
}

TEST(TimingSignal, TimesIndependentOfTheHandAreFlaggedAtMostAtAlpha) {
  const TimeOf random_time = [](int, int, TileSet, SplitMix64& rng) {
    return 500 + rng.below(200000);
  };
  int flagged = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const TimingSignal s = timing_signal(simulate(seed, 50, random_time));
    EXPECT_EQ(s.decisions, 300);
    EXPECT_GT(s.p, 0.0);
    EXPECT_LE(s.p, 1.0);
    flagged += s.flagged;
  }
  // alpha = 0.001 (Bonferroni is conservative): 0.2 expected of 200.
  EXPECT_LE(flagged, 2);
}

TEST(TimingSignal, TimesThatEncodeTilesAreFlaggedWithTheIndexAndTile) {
  // Tile 4d in hand: 1 ms slower at decision d.
  const TimeOf talker = [](int d, int, TileSet hand, SplitMix64& rng) {
    return 20000 + (holds(hand, 4 * d) ? 1000u : 0u) + rng.below(1000);
  };
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const TimingSignal s = timing_signal(simulate(seed, 100, talker));
    EXPECT_TRUE(s.flagged) << "seed " << seed << ", p " << s.p;
    EXPECT_LT(s.p, kTimingAlpha);
    EXPECT_EQ(s.tile, 4 * s.index) << "seed " << seed;
    EXPECT_GT(s.z, 0.0);
  }
  // One tile at one decision, faster when held.
  const TimeOf one = [](int d, int, TileSet hand, SplitMix64& rng) {
    return 20000 - (d == 2 && holds(hand, 9) ? 1500u : 0u) + rng.below(1000);
  };
  const TimingSignal s = timing_signal(simulate(3, 100, one));
  EXPECT_TRUE(s.flagged) << s.p;
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.tile, 9);
  EXPECT_LT(s.z, 0.0);
}

TEST(TimingSignal, TimesThatFollowOnlyTheOptionsAreNotFlagged) {
  // An honest search: more options, more time; the options depend on the hand (the tiles of
  // one suit), so the tiles of that suit go with slow decisions unless options are a stratum
  // (without the strata about a third of these runs are flagged).
  const OptionsOf by_suit = [](int d, TileSet hand, SplitMix64&) {
    return 1 + std::min(5, (hand & TileSet::suit(d)).size());
  };
  const TimeOf searcher = [](int, int options, TileSet, SplitMix64& rng) {
    return static_cast<uint32_t>(options * options) * 20000 + rng.below(1000);
  };
  int flagged = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const TimingSignal s = timing_signal(simulate(seed, 100, searcher, by_suit));
    EXPECT_GE(s.decisions, 100);
    flagged += s.flagged;
  }
  EXPECT_LE(flagged, 1);
}

TEST(TimingSignal, FewerThanFiftyDecisionsAreNotFlagged) {
  const TimeOf talker = [](int d, int, TileSet hand, SplitMix64&) {
    return 20000 + (holds(hand, 4 * d) ? 1000u : 0u);
  };
  std::vector<TimedDecision> decisions = simulate(5, 9, talker);
  decisions.resize(kMinTimedDecisions - 1);
  const TimingSignal s = timing_signal(decisions);
  EXPECT_EQ(s.decisions, kMinTimedDecisions - 1);
  EXPECT_FALSE(s.flagged);
  EXPECT_FALSE(timing_signal({}).flagged);
  EXPECT_EQ(timing_signal({}).decisions, 0);
  EXPECT_EQ(timing_signal({}).p, 1.0);
}

TEST(TimingSignal, ForcedDecisionsAndTiesSayNothing) {
  // Forced plays (one option) are left out, however they are timed.
  const TimeOf talker = [](int d, int, TileSet hand, SplitMix64&) {
    return 20000 + (holds(hand, 4 * d) ? 1000u : 0u);
  };
  const OptionsOf forced = [](int, TileSet, SplitMix64&) { return 1; };
  const TimingSignal f = timing_signal(simulate(7, 100, talker, forced));
  EXPECT_EQ(f.decisions, 0);
  EXPECT_FALSE(f.flagged);
  // Equal times share one mid-rank: nothing varies, nothing is tested.
  const TimeOf constant = [](int, int, TileSet, SplitMix64&) { return 1000u; };
  const TimingSignal c = timing_signal(simulate(7, 100, constant));
  EXPECT_EQ(c.decisions, 600);
  EXPECT_EQ(c.p, 1.0);
  EXPECT_EQ(c.index, -1);
  EXPECT_FALSE(c.flagged);
}

}  // namespace
}  // namespace allfives::referee
