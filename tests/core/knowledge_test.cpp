// What a seat knows of the other hands (allfives/core/knowledge.h): the groups never rule out
// the true hands, and a hand-made sequence of draws and passes gives the expected groups.
#include "allfives/core/knowledge.h"

#include <gtest/gtest.h>

#include "hidden_util.h"
#include "test_util.h"

namespace allfives::test {
namespace {

// Whether `hand` can be split into the groups of `s`, each group avoiding its forbidden
// tiles, by trying every split (independent of the Hall reduction resample.cpp relies on).
bool fits_groups(const Knowledge& k, int s, TileSet hand) {
  const int n = k.num_groups(s);
  std::array<int, Knowledge::kMaxGroups> room{};
  int total = 0;
  for (int i = 0; i < n; ++i) total += room[i] = k.group(s, i).count;
  if (total != hand.size()) return false;
  std::vector<Tile> tiles;
  for (Tile t : hand) tiles.push_back(t);
  const auto place = [&](auto&& self, size_t i) -> bool {
    if (i == tiles.size()) return true;
    for (int g = 0; g < n; ++g) {
      if (room[g] == 0 || k.group(s, g).forbidden.contains(tiles[i])) continue;
      --room[g];
      if (self(self, i + 1)) return true;
      ++room[g];
    }
    return false;
  };
  return place(place, 0);
}

TEST(Knowledge, NeverRulesOutTheTrueHands) {
  int draws_seen = 0;
  for (Format format : kAllFormats) {
    for (uint64_t seed = 1; seed <= 25; ++seed) {
      for (const Snapshot& snap : play_and_record(format, seed, 0, 400)) {
        for (int s = 1; s < num_players(format); ++s) {
          ASSERT_EQ(snap.knowledge.tracked_size(s), snap.truth.hand(s).size());
          ASSERT_TRUE(fits_groups(snap.knowledge, s, snap.truth.hand(s)))
              << "format " << to_string(format) << " seed " << seed << " seat " << s << " hand "
              << to_string(snap.truth.hand(s));
          for (int g = 1; g < snap.knowledge.num_groups(s); ++g)
            ASSERT_TRUE(
                (snap.knowledge.group(s, g).forbidden - snap.knowledge.group(s, g - 1).forbidden)
                    .empty())
                << "the forbidden sets are not nested";
          if (snap.knowledge.num_groups(s) > 1) ++draws_seen;
        }
      }
    }
  }
  EXPECT_GT(draws_seen, 100);  // the check above was not vacuous
}

// Between decisions too (a seat that just drew and is about to play holds a tile that shows
// an open end's suit): what every seat's knowledge rules out is never held.
TEST(Knowledge, WhatItRulesOutIsNeverHeldAtAnyStep) {
  int pending_seen = 0;
  for (Format format : kAllFormats) {
    for (uint64_t seed = 1; seed <= 15; ++seed) {
      const int n = num_players(format);
      std::array<Knowledge, kMaxPlayers> k{};
      for (int s = 0; s < n; ++s) k[s] = Knowledge(format, s);
      EventList events;
      State state = State::new_match(Config::standard(format), seed, &events);
      SplitMix64 rng(seed);
      while (true) {
        for (const Event& e : events)
          for (int s = 0; s < n; ++s) k[s].observe(seen_by(e, s));
        events.clear();
        if (state.is_terminal()) break;
        for (int viewer = 0; viewer < n; ++viewer) {
          for (int s = 0; s < n; ++s) {
            if (s == viewer) continue;
            ASSERT_EQ(k[viewer].tracked_size(s), state.hand(s).size());
            ASSERT_TRUE((k[viewer].forbidden_for_all(s) & state.hand(s)).empty())
                << to_string(format) << " seed " << seed << " seat " << s << " holds "
                << to_string(state.hand(s)) << ", ruled out "
                << to_string(k[viewer].forbidden_for_all(s));
            if (k[viewer].pending(s)) ++pending_seen;
          }
        }
        state.apply(epsilon_greedy(state, rng, 300), &events);
      }
    }
  }
  EXPECT_GT(pending_seen, 50);  // draws were seen before their tile was played
}

TEST(Knowledge, TheOpenRuleRulesOutHigherDoublesOrHeavierTiles) {
  EXPECT_EQ(not_dealt_to_anyone(OpenRule::kHighestDouble, T(4, 4)), S({T(5, 5), T(6, 6)}));
  EXPECT_TRUE(not_dealt_to_anyone(OpenRule::kWinnerChooses, T(4, 4)).empty());
  const TileSet heavy = not_dealt_to_anyone(OpenRule::kHeaviestTile, T(5, 4));
  for (int v = 0; v <= 6; ++v) EXPECT_TRUE(heavy.contains(T(v, v)));
  EXPECT_TRUE(heavy.contains(T(6, 5)) && heavy.contains(T(6, 4)) && heavy.contains(T(6, 3)));
  EXPECT_FALSE(heavy.contains(T(5, 4)) || heavy.contains(T(6, 2)) || heavy.contains(T(5, 3)));
  EXPECT_EQ(heavy.size(), 10);
}

Event event(EventKind kind, int seat) {
  Event e{};
  e.kind = kind;
  e.seat = static_cast<int8_t>(seat);
  return e;
}

TEST(Knowledge, DrawAndPassMakeVoidsAndLaterDrawsMayHoldThem) {
  Knowledge k(Format::kTwoPlayers, 0);
  Event start = event(EventKind::kHandStart, 0);
  start.reason = static_cast<uint8_t>(OpenRule::kHighestDouble);
  start.open_with = T(5, 5);
  k.observe(start);
  // Nobody held 6-6 at the deal.
  EXPECT_TRUE(k.group(1, 0).forbidden.contains(T(6, 6)));
  EXPECT_FALSE(k.group(1, 0).forbidden.contains(T(4, 4)));
  const auto play = [&](int seat, int a, int b, End end) {
    Event e = event(EventKind::kPlay, seat);
    e.play = Play{T(a, b), end};
    k.observe(e);
  };
  const auto draw = [&](int seat, int count) {
    Event e = event(EventKind::kDraw, seat);
    e.count = static_cast<int16_t>(count);
    k.observe(e);
  };
  play(0, 5, 5, End::kLeft);  // ends 5 and 5-5
  draw(1, 3);
  play(1, 5, 2, End::kLeft);  // the third drawn tile; ends 2 and 5-5
  ASSERT_EQ(k.num_groups(1), 2);
  EXPECT_EQ(k.group(1, 0).count, 7);
  EXPECT_EQ(k.group(1, 1).count, 2);  // two drawn tiles kept, both without a 5
  EXPECT_TRUE(k.group(1, 0).forbidden.contains(T(5, 1)));
  EXPECT_TRUE(k.group(1, 1).forbidden.contains(T(5, 1)));
  EXPECT_EQ(k.tracked_size(1), 9);
  play(0, 5, 3, End::kRight);  // ends 2 and 3
  draw(1, 2);
  play(1, 2, 4, End::kLeft);  // ends 4 and 3
  ASSERT_EQ(k.num_groups(1), 3);
  // The newest tile was drawn after the 5s were known missing: it may be a 5.
  EXPECT_FALSE(k.group(1, 2).forbidden.contains(T(5, 1)));
  EXPECT_TRUE(k.group(1, 2).forbidden.contains(T(3, 1)));
  EXPECT_TRUE(k.group(1, 0).forbidden.contains(T(2, 1)));
  EXPECT_TRUE(k.forbidden_for_all(1).contains(T(2, 6)));
  EXPECT_FALSE(k.forbidden_for_all(1).contains(T(5, 6)));
  play(0, 3, 1, End::kRight);             // ends 4 and 1
  k.observe(event(EventKind::kPass, 1));  // every tile seat 1 holds lacks 4 and 1
  EXPECT_TRUE(k.forbidden_for_all(1).contains(T(4, 6)));
  EXPECT_TRUE(k.forbidden_for_all(1).contains(T(1, 6)));
  play(0, 4, 6, End::kLeft);  // ends 6 and 1
  // 6-5 can only be the tile drawn last; 6-0 comes off the oldest group that may hold it.
  play(1, 6, 5, End::kLeft);
  ASSERT_EQ(k.num_groups(1), 2);
  EXPECT_EQ(k.group(1, 0).count, 7);
  EXPECT_EQ(k.group(1, 1).count, 2);
  play(0, 5, 0, End::kLeft);  // ends 0 and 1 (not checked)
  play(1, 0, 6, End::kLeft);
  EXPECT_EQ(k.group(1, 0).count, 6);
  EXPECT_EQ(k.group(1, 1).count, 2);
  // A new hand forgets it all.
  start.hand_index = 1;
  start.reason = static_cast<uint8_t>(OpenRule::kWinnerChooses);
  k.observe(start);
  EXPECT_EQ(k.hand_index(), 1);
  EXPECT_EQ(k.num_groups(1), 1);
  EXPECT_TRUE(k.group(1, 0).forbidden.empty());
  EXPECT_TRUE(k.line().empty());
}

}  // namespace
}  // namespace allfives::test
