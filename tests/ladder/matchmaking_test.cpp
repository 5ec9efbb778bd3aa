// The ladder's choice of rounds (ladder/matchmaking.h): placement first and spread over the
// ranking, then the version with the fewest matches, against the opponents its rating
// difference is most uncertain and closest to, never a pair of the last round again.
#include "ladder/matchmaking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace allfives::referee {
namespace {

MatchmakingInput placed_field(int n) {
  MatchmakingInput in;
  in.covariance.assign(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 0));
  for (int i = 0; i < n; ++i) {
    in.active.push_back({i + 1, 20, true, 100.0 * (n - i), i});
    in.covariance[static_cast<size_t>(i)][static_cast<size_t>(i)] = 50 * 50;
  }
  return in;
}

TEST(Matchmaking, NoRoundWithoutEnoughVersionsForAPairing) {
  MatchmakingInput in = placed_field(1);
  EXPECT_FALSE(choose_round(in));
  in = placed_field(3);
  in.seats = 4;
  EXPECT_FALSE(choose_round(in));
}

TEST(Matchmaking, ANewVersionIsPlacedAgainstOpponentsSpreadOverTheRanking) {
  MatchmakingInput in = placed_field(8);  // ratings 800, 700, ..., 100
  in.active.push_back({9, 0, false, 0, -1});
  in.placement_opponents = 4;
  const auto r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->placement);
  EXPECT_EQ(r->version, 9);
  // Ranks 1, 3, 5, 7 of 8 (evenly spaced from the top to the bottom half).
  EXPECT_EQ(r->opponents, (std::vector<int64_t>{2, 4, 6, 8}));
}

TEST(Matchmaking, TheVersionWithFewestMatchesGetsTheRound) {
  MatchmakingInput in = placed_field(4);
  in.active[2].matches = 3;
  const auto r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->placement);
  EXPECT_EQ(r->version, 3);
}

TEST(Matchmaking, OpponentsAreWhereTheDifferenceIsMostUncertainAndClose) {
  MatchmakingInput in = placed_field(5);  // ratings 500 .. 100
  in.active[2].matches = 0;               // version 3, rated 300
  in.round_opponents = 1;
  // Equal variances: the nearest rating wins (2 and 4 tie at 100 apart; fewer matches, older).
  auto r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->opponents, std::vector<int64_t>{2});
  // Version 5, 200 below, with a far less certain rating: it teaches more.
  in.covariance[4][4] = 400 * 400;
  r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->opponents, std::vector<int64_t>{5});
  EXPECT_GT(information_score(50 * 50 * 2, 0), information_score(50 * 50 * 2, 200));
}

TEST(Matchmaking, APairOfTheLastRoundIsNotPlayedAgainNext) {
  MatchmakingInput in = placed_field(4);
  in.active[1].matches = 0;  // version 2's round
  in.round_opponents = 1;
  in.last_pairs = {{1, 2}, {2, 3}};
  auto r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->opponents, std::vector<int64_t>{4});
  // With two versions only, the same pair is all there is.
  in = placed_field(2);
  in.last_pairs = {{1, 2}};
  r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->opponents.size(), 1u);
}

TEST(Matchmaking, EveryActiveVersionGetsAFairShare) {
  // Rounds simulated with their matches counted: after many rounds the counts stay close.
  MatchmakingInput in = placed_field(7);
  for (auto& e : in.active) e.matches = 0;
  in.round_opponents = 2;
  for (int round = 0; round < 300; ++round) {
    const auto r = choose_round(in);
    ASSERT_TRUE(r);
    auto add = [&](int64_t id, int n) {
      for (auto& e : in.active)
        if (e.id == id) e.matches += n;
    };
    add(r->version, 2 * static_cast<int>(r->opponents.size()));
    for (const int64_t o : r->opponents) add(o, 2);
    in.last_pairs.clear();
    for (const int64_t o : r->opponents)
      in.last_pairs.insert({std::min(o, r->version), std::max(o, r->version)});
  }
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& e : in.active) {
    lo = std::min(lo, e.matches);
    hi = std::max(hi, e.matches);
  }
  EXPECT_LE(hi - lo, (hi + lo) / 2 / 5) << lo << ".." << hi;  // within 20% of the mean
}

TEST(Matchmaking, ThreeOrFourSeatsGetAtLeastAPairingsWorthOfOpponents) {
  MatchmakingInput in = placed_field(5);
  in.seats = 4;
  in.round_opponents = 1;
  const auto r = choose_round(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->opponents.size(), 3u);
}

}  // namespace
}  // namespace allfives::referee
