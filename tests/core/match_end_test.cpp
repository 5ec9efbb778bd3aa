// docs/RULES.md §12 "Targets, and the end in the middle of a hand": the target per format, the
// match ending mid-hand the instant a side reaches it, and the safety valve after max_hands hands
// (highest score wins, a tie draws).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::kBlockingPlay;
using test::kinds;
using test::L;
using test::PositionBuilder;
using test::R;
using test::S;
using test::six_block;
using test::T;

// Line 3-3; seat 0 plays 3-4 on the right for 10. Seat 1 cannot play and would have to draw.
PositionBuilder ten_point_play(Format f) {
  PositionBuilder b(f);
  b.play(1, T(3, 3)).hand(0, {T(3, 4), T(5, 5)}).hand(1, {T(0, 0)}).to_move(0);
  for (int seat = 2; seat < num_players(f); ++seat) b.hand(seat, {T(seat - 1, seat - 1)});
  return b;
}

TEST(Target, TwoHundredFiftyForTwoSidesTwoHundredForThreeOrFour) {
  EXPECT_EQ(standard_target(Format::kTwoPlayers), 250);
  EXPECT_EQ(standard_target(Format::kPartnerships), 250);
  EXPECT_EQ(standard_target(Format::kThreePlayers), 200);
  EXPECT_EQ(standard_target(Format::kFourPlayers), 200);
  for (Format f : kAllFormats) {
    EXPECT_EQ(Config::standard(f).target, standard_target(f));
    EXPECT_EQ(Config::standard(f).max_hands, 200);
    EXPECT_EQ(State::new_match(Config::standard(f), 1).config().target, standard_target(f));
  }
}

TEST(RulesExamples, Example33_TargetReachedMidHand) {
  State s =
      ten_point_play(Format::kTwoPlayers).rest_to_boneyard().score(0, 240).score(1, 100).build();
  const TileSet hand1 = s.hand(1);
  const int bone = s.boneyard_size();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  // Nothing after the scoring play happens: seat 1 does not draw, no hand end is scored.
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kMatchEnd}));
  EXPECT_EQ(ev[0].points, 10);
  EXPECT_EQ(s.hand(1), hand1);
  EXPECT_EQ(s.boneyard_size(), bone);
  EXPECT_EQ(s.score(0), 250);
  EXPECT_EQ(s.score(1), 100);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.seat_to_move(), -1);
  EXPECT_TRUE(s.legal_plays().empty());
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kTarget);
  EXPECT_EQ(s.outcome().winner_side, 0);
  EXPECT_EQ(s.hand_index(), 0);
  const Event& end = ev[1];
  EXPECT_EQ(end.side, 0);
  EXPECT_EQ(end.reason, static_cast<uint8_t>(MatchEndReason::kTarget));
  EXPECT_EQ(end.values[0], 250);
  EXPECT_EQ(end.values[1], 100);
  // Every hand is revealed when the match ends mid-hand.
  EXPECT_EQ(end.hands[0], s.hand(0));
  EXPECT_EQ(end.hands[1], s.hand(1));
}

TEST(MatchEnd, PassingTheTargetEndsItToo) {
  State s = ten_point_play(Format::kTwoPlayers).rest_to_boneyard().score(0, 245).build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  EXPECT_EQ(s.score(0), 255);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.outcome().winner_side, 0);
}

TEST(MatchEnd, JustBelowTheTargetPlayGoesOn) {
  State s = ten_point_play(Format::kTwoPlayers).rest_to_boneyard().score(0, 235).build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  EXPECT_EQ(s.score(0), 245);
  EXPECT_FALSE(s.is_terminal());
  EXPECT_EQ(s.seat_to_move(), 1);
  EXPECT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw}));
}

TEST(RulesExamples, Example35_ThreeOrFourPlayersWinAtTwoHundred) {
  for (Format f : {Format::kThreePlayers, Format::kFourPlayers}) {
    State s = ten_point_play(f).rest_to_boneyard().score(0, 190).score(2, 195).build();
    ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
    EXPECT_EQ(s.score(0), 200);
    EXPECT_TRUE(s.is_terminal());
    EXPECT_EQ(s.outcome().reason, MatchEndReason::kTarget);
    EXPECT_EQ(s.outcome().winner_side, 0);
  }
}

TEST(MatchEnd, PartnersPointsReachTheTargetForTheirSide) {
  // Seat 2 scores 10 for side 0, which had 240.
  State s = PositionBuilder(Format::kPartnerships)
                .play(1, T(3, 3))
                .hand(2, {T(3, 4), T(5, 5)})
                .hand(3, {T(0, 0)})
                .hand(0, {T(1, 1)})
                .hand(1, {T(2, 2)})
                .rest_to_boneyard()
                .score(0, 240)
                .score(1, 245)
                .to_move(2)
                .build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 250);
  EXPECT_EQ(s.outcome().winner_side, 0);
}

TEST(MatchEnd, NothingIsAcceptedOnceTheMatchIsOver) {
  State s = ten_point_play(Format::kTwoPlayers).rest_to_boneyard().score(0, 240).build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  ASSERT_TRUE(s.is_terminal());
  const State over = s;
  for (Tile t : TileSet::all()) {
    for (End e : {End::kLeft, End::kRight}) {
      EXPECT_EQ(s.check(Play{t, e}), PlayError::kMatchOver);
      EventList ev;
      EXPECT_EQ(s.apply(Play{t, e}, &ev), PlayError::kMatchOver);
      EXPECT_EQ(ev.size(), 0);
      EXPECT_EQ(s, over);
    }
  }
}

TEST(MatchEnd, RandomMatchesEndAtTheTargetWithTheWinnerAboveIt) {
  for (Format f : kAllFormats) {
    SplitMix64 rng(static_cast<uint64_t>(f) + 100);
    for (uint64_t seed = 0; seed < 50; ++seed) {
      State s = State::new_match(Config::standard(f), seed);
      while (!s.is_terminal()) {
        const PlayList legal = s.legal_plays();
        ASSERT_EQ(s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))]),
                  PlayError::kNone);
      }
      ASSERT_EQ(s.outcome().reason, MatchEndReason::kTarget);
      const int w = s.outcome().winner_side;
      ASSERT_GE(w, 0);
      EXPECT_GE(s.score(w), standard_target(f));
      for (int side = 0; side < num_sides(f); ++side) {
        if (side != w) {
          EXPECT_LT(s.score(side), standard_target(f));
        }
      }
    }
  }
}

// ---- The safety valve
// ----------------------------------------------------------------------------

TEST(HandLimit, MatchEndsAfterMaxHandsHands) {
  for (Format f : kAllFormats) {
    const Config config{f, standard_target(f), 3};
    SplitMix64 rng(7);
    int by_limit = 0;
    for (uint64_t seed = 0; seed < 20; ++seed) {
      EventList ev;
      State s = State::new_match(config, seed, &ev);
      int hand_starts = 1;
      while (!s.is_terminal()) {
        const PlayList legal = s.legal_plays();
        ev.clear();
        ASSERT_EQ(
            s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &ev),
            PlayError::kNone);
        hand_starts += static_cast<int>(test::of_kind(ev, EventKind::kHandStart).size());
      }
      ASSERT_LE(hand_starts, 3);
      if (s.outcome().reason != MatchEndReason::kHandLimit) continue;
      ++by_limit;
      EXPECT_EQ(hand_starts, 3);
      EXPECT_EQ(s.hand_index(), 2);
      ASSERT_EQ(ev[ev.size() - 1].kind, EventKind::kMatchEnd);
      EXPECT_EQ(ev[ev.size() - 2].kind, EventKind::kHandEnd);
      int best = -1, holders = 0;
      for (int side = 0; side < num_sides(f); ++side) {
        EXPECT_LT(s.score(side), config.target);
        if (s.score(side) > best) {
          best = s.score(side);
          holders = 1;
        } else if (s.score(side) == best) {
          ++holders;
        }
      }
      if (holders == 1) {
        ASSERT_GE(s.outcome().winner_side, 0);
        EXPECT_EQ(s.score(s.outcome().winner_side), best);
      } else {
        EXPECT_EQ(s.outcome().winner_side, -1);
      }
      EXPECT_EQ(ev[ev.size() - 1].side, s.outcome().winner_side);
    }
    EXPECT_GT(by_limit, 0) << to_string(f);
  }
}

// six_block's line in hand `hand_index` of a two-player match of `max_hands` hands, both seats
// left with 45 pips: the block ties, nobody scores.
PositionBuilder tied_block(int hand_index, int max_hands) {
  return six_block(Format::kTwoPlayers)
      .config(Config{Format::kTwoPlayers, 250, max_hands})
      .hand_index(hand_index)
      .hand(0, {T(5, 5), T(4, 5), T(4, 4), T(3, 5), T(2, 5), T(0, 3)})
      .rest_to_hand(1);
}

TEST(RulesExamples, Example36_SafetyValveTieIsADraw) {
  // The last allowed hand ends in a tied block (45 against 45) with the scores level.
  State s = tied_block(2, 3).score(0, 120).score(1, 120).build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kMatchEnd}));
  EXPECT_EQ(ev[1].side, -1);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kHandLimit);
  EXPECT_EQ(s.outcome().winner_side, -1);
  EXPECT_EQ(ev[2].side, -1);
  EXPECT_EQ(ev[2].reason, static_cast<uint8_t>(MatchEndReason::kHandLimit));
  EXPECT_EQ(ev[2].values[0], 120);
  EXPECT_EQ(ev[2].values[1], 120);
}

// A hand that ends the match or not by the hand limit: the scores it starts with (side 0, 1), and
// how the match stands after it.
struct LastHandCase {
  const char* name;
  int hand_index;
  int max_hands;
  int score0, score1;
  bool over;
  MatchEndReason reason;  // when over
  int winner_side;        // when over
  int hand_after;
};

std::string case_name(const ::testing::TestParamInfo<LastHandCase>& info) {
  return info.param.name;
}

class TiedBlock : public ::testing::TestWithParam<LastHandCase> {};

TEST_P(TiedBlock, EndsTheMatchOnlyInTheLastHand) {
  const LastHandCase& c = GetParam();
  State s = tied_block(c.hand_index, c.max_hands).score(0, c.score0).score(1, c.score1).build();
  ASSERT_EQ(s.apply(kBlockingPlay), PlayError::kNone);
  EXPECT_EQ(s.is_terminal(), c.over);
  EXPECT_EQ(s.hand_index(), c.hand_after);
  if (!c.over) return;
  EXPECT_EQ(s.outcome().reason, c.reason);
  EXPECT_EQ(s.outcome().winner_side, c.winner_side);
}

INSTANTIATE_TEST_SUITE_P(
    HandLimit, TiedBlock,
    ::testing::Values(LastHandCase{"HighestScoreWins", 2, 3, 40, 60, true,
                                   MatchEndReason::kHandLimit, 1, 2},
                      // With the default 200 hands, hand 198 leads to hand 199, which is the last.
                      LastHandCase{"TheHandBeforeTheLastDealsAnother", 198, 200, 0, 0, false,
                                   MatchEndReason::kHandLimit, -1, 199},
                      LastHandCase{"TheLastHandEndsTheMatch", 199, 200, 0, 0, true,
                                   MatchEndReason::kHandLimit, -1, 199}),
    case_name);

// Line 1-2 in the last hand; seat 0 goes out with 2-0 (no points from the count) for the 10 of
// seat 1's 6-6.
class LastHandDomino : public ::testing::TestWithParam<LastHandCase> {};

TEST_P(LastHandDomino, EndsTheMatchByTheTargetOrTheLimit) {
  const LastHandCase& c = GetParam();
  State s = PositionBuilder(Format::kTwoPlayers)
                .config(Config{Format::kTwoPlayers, 250, c.max_hands})
                .hand_index(c.hand_index)
                .play(1, T(1, 2))
                .hand(0, {T(2, 0)})
                .hand(1, {T(6, 6)})
                .rest_to_boneyard()
                .score(0, c.score0)
                .score(1, c.score1)
                .to_move(0)
                .build();
  ASSERT_EQ(s.apply(R(T(2, 0))), PlayError::kNone);
  EXPECT_EQ(s.score(0), c.score0 + 10);
  EXPECT_EQ(s.is_terminal(), c.over);
  EXPECT_EQ(s.hand_index(), c.hand_after);
  EXPECT_EQ(s.outcome().reason, c.reason);
  EXPECT_EQ(s.outcome().winner_side, c.winner_side);
}

INSTANTIATE_TEST_SUITE_P(HandLimit, LastHandDomino,
                         ::testing::Values(
                             // 100 against 110 in the last hand: the domino levels the scores.
                             LastHandCase{"DominoThatLevelsTheScoresIsADraw", 4, 5, 100, 110, true,
                                          MatchEndReason::kHandLimit, -1, 4},
                             LastHandCase{"TargetReachedInTheLastHandStillWinsByTarget", 0, 1, 240,
                                          0, true, MatchEndReason::kTarget, 0, 0}),
                         case_name);
TEST(HandLimit, ThreePlayersTieForHighestIsADrawEvenWithALowerThird) {
  // Seats 0 and 1 tie on 20 pips (no score); scores 70, 70, 30.
  const auto build = [](int s0, int s1, int s2) {
    return six_block(Format::kThreePlayers)
        .config(Config{Format::kThreePlayers, 200, 1})
        .hand(0, {T(5, 5), T(4, 5), T(0, 1)})
        .hand(1, {T(4, 4), T(3, 5), T(0, 4)})
        .rest_to_hand(2)
        .score(0, s0)
        .score(1, s1)
        .score(2, s2)
        .build();
  };
  State s = build(70, 70, 30);
  ASSERT_EQ(s.apply(kBlockingPlay), PlayError::kNone);
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kHandLimit);
  EXPECT_EQ(s.outcome().winner_side, -1);
  // A tie below a unique leader does not matter.
  State s2 = build(30, 30, 70);
  ASSERT_EQ(s2.apply(kBlockingPlay), PlayError::kNone);
  EXPECT_EQ(s2.outcome().reason, MatchEndReason::kHandLimit);
  EXPECT_EQ(s2.outcome().winner_side, 2);
}

}  // namespace
}  // namespace allfives
