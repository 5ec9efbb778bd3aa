// docs/RULES.md §9 "Going out" and §10 "Blocked hands": going out (domino) and blocked hands, as
// free functions and through State::apply with its events.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
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

using Hands = std::array<TileSet, kMaxPlayers>;

// ---- Going out: domino_points -----------------------------------------------------------------

TEST(DominoPoints, TwoPlayersScoreTheOpponentsRoundedPips) {
  const Hands hands = {TileSet{}, S({T(6, 6), T(0, 1)}), {}, {}};  // 13 -> 15
  EXPECT_EQ(domino_points(Format::kTwoPlayers, 0, hands), 15);
  const Hands hands2 = {S({T(1, 1)}), TileSet{}, {}, {}};  // 2 -> 0
  EXPECT_EQ(domino_points(Format::kTwoPlayers, 1, hands2), 0);
}

TEST(DominoPoints, EachOpponentIsRoundedSeparately) {
  // Opponents hold 12 and 12: 10 + 10 = 20, not round5(24) = 25.
  const Hands hands = {TileSet{}, S({T(6, 6)}), S({T(6, 5), T(0, 1)}), {}};
  ASSERT_EQ(hands[1].pips(), 12);
  ASSERT_EQ(hands[2].pips(), 12);
  EXPECT_EQ(domino_points(Format::kThreePlayers, 0, hands), 20);
  const Hands four = {TileSet{}, S({T(6, 6)}), S({T(6, 5), T(0, 1)}), S({T(4, 4), T(2, 2)})};
  EXPECT_EQ(domino_points(Format::kFourPlayers, 0, four), 10 + 10 + 10);
}

TEST(DominoPoints, PartnersHandNeverCounts) {
  // Seat 0 goes out; partner seat 2 holds 30 pips, opponents 7 and 8: 5 + 10 = 15.
  const Hands hands = {TileSet{}, S({T(3, 4)}), S({T(6, 6), T(5, 5), T(4, 4)}), S({T(2, 6)})};
  EXPECT_EQ(domino_points(Format::kPartnerships, 0, hands), 15);
  // Seat 3 goes out; partner seat 1 is skipped, opponents seats 0 and 2.
  const Hands hands2 = {S({T(0, 3)}), S({T(6, 6)}), S({T(1, 3)}), TileSet{}};
  EXPECT_EQ(domino_points(Format::kPartnerships, 3, hands2), 5 + 5);
}

// ---- Going out through apply ------------------------------------------------------------------

TEST(RulesExamples, Example23_DominoTwoPlayersPlayScoresFirst) {
  // Line 1-2; seat 0 plays its last tile 2-4 on the 2: ends 1 and 4 = 5. Seat 1 holds 12.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(1, 2))
                .hand(0, {T(2, 4)})
                .hand(1, {T(6, 6)})
                .rest_to_boneyard()
                .score(0, 100)
                .score(1, 50)
                .to_move(0)
                .build(7);
  EventList ev;
  ASSERT_EQ(s.apply(R(T(2, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kHandStart}));
  EXPECT_EQ(ev[0].points, 5);
  EXPECT_EQ(ev[1].reason, static_cast<uint8_t>(HandEndKind::kDomino));
  EXPECT_EQ(ev[1].seat, 0);
  EXPECT_EQ(ev[1].side, 0);
  EXPECT_EQ(ev[1].points, 10);
  EXPECT_EQ(ev[1].values[1], 12);
  EXPECT_EQ(ev[1].hands[1], S({T(6, 6)}));
  EXPECT_TRUE(ev[1].hands[0].empty());
  EXPECT_EQ(s.score(0), 115);
  EXPECT_EQ(s.score(1), 50);
  EXPECT_EQ(s.hand_index(), 1);
}

TEST(RulesExamples, Example24_DominoThreePlayersEachOpponentRounded) {
  State s = PositionBuilder(Format::kThreePlayers)
                .play(2, T(3, 4))
                .hand(0, {T(4, 0)})
                .hand(1, {T(6, 6)})
                .hand(2, {T(6, 5), T(0, 1)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(4, 0)), &ev), PlayError::kNone);
  ASSERT_GE(ev.size(), 2);
  EXPECT_EQ(ev[0].points, 0);  // 3 + 0
  EXPECT_EQ(ev[1].kind, EventKind::kHandEnd);
  EXPECT_EQ(ev[1].points, 20);
  EXPECT_EQ(s.score(0), 20);
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.score(2), 0);
}

TEST(RulesExamples, Example26_DominoPartnershipsPartnerNeverCounts) {
  State s = PositionBuilder(Format::kPartnerships)
                .play(3, T(3, 4))
                .hand(0, {T(4, 0)})
                .hand(1, {T(3, 0)})
                .hand(2, {T(6, 6), T(5, 5), T(4, 4)})
                .hand(3, {T(2, 6)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(4, 0)), &ev), PlayError::kNone);
  ASSERT_GE(ev.size(), 2);
  EXPECT_EQ(ev[1].kind, EventKind::kHandEnd);
  EXPECT_EQ(ev[1].side, 0);
  EXPECT_EQ(ev[1].points, 5 + 10);  // 3 -> 5 and 8 -> 10; the partner's 30 never counts
  EXPECT_EQ(s.score(0), 15);
  EXPECT_EQ(s.score(1), 0);
}

// Line 1-2; seat 0 lays its last tile 2-0 on the 2 (ends 1 and 0, count 1, no points) and
// scores seat 1's remaining tiles, rounded: the hand end's points.
int two_player_domino_against(std::initializer_list<Tile> opponent) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(1, 2))
                .hand(0, {T(2, 0)})
                .hand(1, opponent)
                .rest_to_boneyard()
                .to_move(0)
                .build();
  EventList ev;
  EXPECT_EQ(s.apply(R(T(2, 0)), &ev), PlayError::kNone);
  EXPECT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kHandStart}));
  if (ev.size() < 2) return -1;
  EXPECT_EQ(ev[0].count, 1);
  EXPECT_EQ(ev[0].points, 0);
  EXPECT_EQ(ev[1].reason, static_cast<uint8_t>(HandEndKind::kDomino));
  EXPECT_EQ(ev[1].side, 0);
  EXPECT_EQ(s.score(0), ev[1].points);
  EXPECT_EQ(s.score(1), 0);
  return ev[1].points;
}

TEST(RulesExamples, Example19_TwoPipsRoundToZero) {
  EXPECT_EQ(two_player_domino_against({T(1, 1)}), 0);
}

TEST(RulesExamples, Example20_ThreePipsRoundToFive) {
  EXPECT_EQ(two_player_domino_against({T(0, 3)}), 5);
}

TEST(RulesExamples, Example21_SevenPipsRoundToFive) {
  EXPECT_EQ(two_player_domino_against({T(3, 4)}), 5);
}

TEST(RulesExamples, Example22_EightPipsRoundToTen) {
  EXPECT_EQ(two_player_domino_against({T(2, 6)}), 10);
}

TEST(RulesExamples, Example25_DominoFourPlayers) {
  // Line 3-4; seat 0 lays its last tile 4-0 on the 4 (ends 3 and 0, count 3). The opponents
  // hold 3, 8 and 13 pips: 5 + 10 + 15 = 30 (their 24 rounded together would be 25).
  State s = PositionBuilder(Format::kFourPlayers)
                .play(3, T(3, 4))
                .hand(0, {T(4, 0)})
                .hand(1, {T(1, 2)})
                .hand(2, {T(2, 6)})
                .hand(3, {T(6, 6), T(0, 1)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(4, 0)), &ev), PlayError::kNone);
  ASSERT_GE(ev.size(), 2);
  EXPECT_EQ(ev[0].count, 3);
  EXPECT_EQ(ev[0].points, 0);
  ASSERT_EQ(ev[1].kind, EventKind::kHandEnd);
  EXPECT_EQ(ev[1].reason, static_cast<uint8_t>(HandEndKind::kDomino));
  EXPECT_EQ(ev[1].points, 30);
  EXPECT_EQ(s.score(0), 30);
  for (int side = 1; side < 4; ++side) EXPECT_EQ(s.score(side), 0);
}

TEST(RulesExamples, Example34_LastTileReachingTheTargetGetsNoDominoPoints) {
  // Side 0 has 245; the last tile scores 5 and reaches 250 at once.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(1, 2))
                .hand(0, {T(2, 4)})
                .hand(1, {T(6, 6)})
                .rest_to_boneyard()
                .score(0, 245)
                .score(1, 200)
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(2, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kMatchEnd}));
  EXPECT_EQ(ev[0].points, 5);
  EXPECT_EQ(s.score(0), 250);  // not 260: the domino bonus is never scored
  EXPECT_EQ(s.score(1), 200);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kTarget);
  EXPECT_EQ(s.outcome().winner_side, 0);
  EXPECT_EQ(ev[1].side, 0);
  EXPECT_EQ(ev[1].values[0], 250);
}

TEST(GoingOut, DominoBonusReachingTheTargetEndsTheMatch) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(1, 2))
                .hand(0, {T(2, 0)})
                .hand(1, {T(6, 6)})
                .rest_to_boneyard()
                .score(0, 240)
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(2, 0)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kMatchEnd}));
  EXPECT_EQ(ev[0].points, 0);  // 1 + 0
  EXPECT_EQ(ev[1].points, 10);
  EXPECT_EQ(s.score(0), 250);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kTarget);
  EXPECT_EQ(s.outcome().winner_side, 0);
}

TEST(GoingOut, NextHandIsDealtAndTheWinnerOpens) {
  State s = PositionBuilder(Format::kThreePlayers)
                .play(2, T(3, 4))
                .hand(0, {T(4, 0)})
                .hand(1, {T(6, 6)})
                .hand(2, {T(6, 5)})
                .rest_to_boneyard()
                .to_move(0)
                .hand_index(4)
                .build(99);
  EventList ev;
  ASSERT_EQ(s.apply(R(T(4, 0)), &ev), PlayError::kNone);
  ASSERT_EQ(ev[ev.size() - 1].kind, EventKind::kHandStart);
  const Event& start = ev[ev.size() - 1];
  EXPECT_EQ(start.hand_index, 5);
  EXPECT_EQ(start.seat, 0);
  EXPECT_EQ(start.reason, static_cast<uint8_t>(OpenRule::kWinnerChooses));
  const Deal d = deal_hand(Format::kThreePlayers, 99, 5);
  EXPECT_EQ(start.deal, d);
  for (int seat = 0; seat < 3; ++seat) EXPECT_EQ(s.hand(seat), d.hands[seat]);
  EXPECT_EQ(s.hand_index(), 5);
  EXPECT_EQ(s.seat_to_move(), 0);
  EXPECT_EQ(s.open_rule(), OpenRule::kWinnerChooses);
  EXPECT_TRUE(s.line().empty());
  EXPECT_EQ(s.boneyard_size(), 28 - 15);
}

// ---- Blocked hands: block_result -------------------------------------------------------------

TEST(BlockResult, TwoPlayersFewestPipsScoresTheDifferenceOfRoundedPips) {
  // 10 against 23: 25 - 10 = 15.
  const Hands hands = {S({T(5, 5)}), S({T(6, 6), T(5, 6)}), {}, {}};
  const BlockResult r = block_result(Format::kTwoPlayers, hands);
  EXPECT_EQ(r.winner_side, 0);
  EXPECT_EQ(r.points, 15);
  EXPECT_EQ(r.side_pips[0], 10);
  EXPECT_EQ(r.side_pips[1], 23);
}

TEST(BlockResult, ThreePlayersSumOfOthersRoundedSeparatelyMinusOwn) {
  // 13 and 74 against 3: round5(13) + round5(74) - round5(3) = 15 + 75 - 5 = 85.
  const Hands hands = {
      S({T(0, 1), T(0, 2)}),
      S({T(1, 3), T(4, 5)}),
      S({T(6, 6), T(6, 5), T(6, 4), T(5, 5), T(4, 4), T(3, 3), T(2, 2), T(0, 6), T(3, 4)}),
      {}};
  ASSERT_EQ(hands[2].pips(), 74);
  const BlockResult r = block_result(Format::kThreePlayers, hands);
  EXPECT_EQ(r.winner_side, 0);
  EXPECT_EQ(r.points, 85);
}

TEST(BlockResult, FourPlayersFewestWins) {
  const Hands hands = {S({T(6, 6)}), S({T(3, 4)}), S({T(2, 2)}), S({T(5, 5)})};
  const BlockResult r = block_result(Format::kFourPlayers, hands);
  EXPECT_EQ(r.winner_side, 2);
  EXPECT_EQ(r.points, 10 + 5 + 10 - 5);  // 12, 7, 10 against 4
}

TEST(BlockResult, PartnershipsAddPartnersPips) {
  // Seat 0 alone has the fewest (1), but side 0 = 1 + 14 = 15 against side 1 = 4 + 4 = 8.
  const Hands h = {S({T(0, 1)}), S({T(1, 3)}), S({T(6, 6), T(1, 1)}), S({T(2, 2)})};
  const BlockResult r = block_result(Format::kPartnerships, h);
  EXPECT_EQ(r.side_pips[0], 15);
  EXPECT_EQ(r.side_pips[1], 8);
  EXPECT_EQ(r.winner_side, 1);
  EXPECT_EQ(r.points, 15 - 10);
}

TEST(BlockResult, PartnershipSidePipsAreRoundedTogether) {
  // Side 0: 3 + 53 = 56 -> 55 (not 5 + 55 = 60); side 1: 12 + 22 = 34 -> 35 (not 10 + 20).
  const Hands h = {S({T(0, 1), T(0, 2)}), S({T(1, 5), T(2, 4)}),
                   S({T(5, 5), T(4, 5), T(4, 4), T(3, 5), T(2, 5), T(3, 3), T(1, 4)}),
                   S({T(0, 0), T(0, 3), T(0, 4), T(1, 1), T(1, 3), T(2, 2), T(2, 3)})};
  const BlockResult r = block_result(Format::kPartnerships, h);
  EXPECT_EQ(r.side_pips[0], 56);
  EXPECT_EQ(r.side_pips[1], 34);
  EXPECT_EQ(r.winner_side, 1);
  EXPECT_EQ(r.points, 20);
}

TEST(BlockResult, TieForFewestScoresNothing) {
  const Hands two = {S({T(3, 4)}), S({T(1, 6)}), {}, {}};
  EXPECT_EQ(block_result(Format::kTwoPlayers, two).winner_side, -1);
  EXPECT_EQ(block_result(Format::kTwoPlayers, two).points, 0);
  // Three players: seats 0 and 2 tie on 7 below seat 1's 12.
  const Hands three = {S({T(3, 4)}), S({T(6, 6)}), S({T(1, 6)}), {}};
  EXPECT_EQ(block_result(Format::kThreePlayers, three).winner_side, -1);
  EXPECT_EQ(block_result(Format::kThreePlayers, three).points, 0);
  // Seats 1 and 2 tie for the fewest after a higher seat 0.
  const Hands three_b = {S({T(6, 6)}), S({T(3, 4)}), S({T(1, 6)}), {}};
  EXPECT_EQ(block_result(Format::kThreePlayers, three_b).winner_side, -1);
  // Partnerships: 3 + 4 against 5 + 2.
  const Hands partners = {S({T(1, 2)}), S({T(0, 5)}), S({T(0, 4)}), S({T(1, 1)})};
  EXPECT_EQ(block_result(Format::kPartnerships, partners).winner_side, -1);
}

TEST(BlockResult, TieAboveTheFewestDoesNotMatter) {
  // Seat 2 has the fewest; seats 0 and 1 tie above it.
  const Hands h = {S({T(6, 6)}), S({T(5, 5), T(0, 2)}), S({T(1, 2)}), {}};
  const BlockResult r = block_result(Format::kThreePlayers, h);
  EXPECT_EQ(r.winner_side, 2);
  EXPECT_EQ(r.points, 10 + 10 - 5);
}

TEST(RulesExamples, Example32_BlockedWinWorthNothing) {
  // 11 against 12: round5(12) - round5(11) = 10 - 10 = 0, but side 0 still wins the hand.
  const Hands h = {S({T(5, 6)}), S({T(6, 6)}), {}, {}};
  const BlockResult r = block_result(Format::kTwoPlayers, h);
  EXPECT_EQ(r.winner_side, 0);
  EXPECT_EQ(r.points, 0);
}

// The rule book's formula written independently, checked on many random splits of the set.
TEST(BlockResult, MatchesTheFormulaOnRandomHands) {
  SplitMix64 rng(2024);
  for (Format f : kAllFormats) {
    const int n = num_players(f), sides = num_sides(f);
    for (int iter = 0; iter < 5000; ++iter) {
      Hands h{};
      for (Tile t : TileSet::all()) {
        const uint32_t where = rng.below(static_cast<uint32_t>(n + 2));  // some tiles unused
        if (static_cast<int>(where) < n) h[where].add(t);
      }
      std::vector<int> pips(sides, 0);
      for (int s = 0; s < n; ++s) pips[side_of(f, s)] += h[s].pips();
      const int fewest = *std::min_element(pips.begin(), pips.end());
      const int holders = static_cast<int>(std::count(pips.begin(), pips.end(), fewest));
      const BlockResult r = block_result(f, h);
      for (int side = 0; side < sides; ++side) EXPECT_EQ(r.side_pips[side], pips[side]);
      if (holders > 1) {
        EXPECT_EQ(r.winner_side, -1);
        EXPECT_EQ(r.points, 0);
        continue;
      }
      const int w = static_cast<int>(std::find(pips.begin(), pips.end(), fewest) - pips.begin());
      int expected = -round5(pips[w]);
      for (int side = 0; side < sides; ++side)
        if (side != w) expected += round5(pips[side]);
      EXPECT_EQ(r.winner_side, w);
      EXPECT_EQ(r.points, expected);
      EXPECT_GE(r.points, 0);
    }
  }
}

// ---- Blocked hands through apply ----------------------------------------------------------------

// A blocked hand through apply: six_block's line, then the blocking play. `hands` are held by
// the seats from 0 on, the seat after them keeps the rest; the hand's end reveals each seat's
// pips, and `points` go to `side` (-1: a tie, nobody scores).
struct BlockedCase {
  const char* name;
  Format format;
  std::vector<TileSet> hands;
  std::vector<int> pips;  // per seat
  int side;
  int points;
};

class BlockedHand : public ::testing::TestWithParam<BlockedCase> {};

TEST_P(BlockedHand, ScoresTheRoundedPipsOfTheFewestAgainstTheOthers) {
  const BlockedCase& c = GetParam();
  PositionBuilder b = six_block(c.format);
  for (int seat = 0; seat < static_cast<int>(c.hands.size()); ++seat) b.hand(seat, c.hands[seat]);
  State s = b.rest_to_hand(static_cast<int>(c.hands.size())).build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  // Nobody passes or draws before the block, and the next hand is dealt at once.
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kHandStart}));
  EXPECT_EQ(ev[0].count, 18);
  EXPECT_EQ(ev[0].points, 0);
  const Event& end = ev[1];
  EXPECT_EQ(end.reason, static_cast<uint8_t>(HandEndKind::kBlocked));
  EXPECT_EQ(end.seat, -1);
  for (int seat = 0; seat < num_players(c.format); ++seat)
    EXPECT_EQ(end.values[seat], c.pips[seat]) << "seat " << seat;
  EXPECT_EQ(end.side, c.side);
  EXPECT_EQ(end.points, c.points);
  for (int side = 0; side < num_sides(c.format); ++side)
    EXPECT_EQ(s.score(side), side == c.side ? c.points : 0) << "side " << side;
}

std::string case_name(const ::testing::TestParamInfo<BlockedCase>& info) {
  return info.param.name;
}

// docs/RULES.md §10's examples 27 to 30.
INSTANTIATE_TEST_SUITE_P(
    RulesExamples, BlockedHand,
    ::testing::Values(
        // Seat 0 keeps 0-0 0-1 0-2 0-3 0-4 1-1 (12); seat 1 the other 78: 80 - 10.
        BlockedCase{"Example27_BlockedTwoPlayers",
                    Format::kTwoPlayers,
                    {S({T(0, 0), T(0, 1), T(0, 2), T(0, 3), T(0, 4), T(1, 1)})},
                    {12, 78},
                    0,
                    70},
        // Seat 0 keeps 3, seat 1 13, seat 2 74: 15 + 75 - 5 = 85.
        BlockedCase{"Example28_BlockedThreePlayers",
                    Format::kThreePlayers,
                    {S({T(0, 1), T(0, 2)}), S({T(1, 3), T(4, 5)})},
                    {3, 13, 74},
                    0,
                    85},
        // 5, 9, 9 and 67 pips: seat 0 scores 10 + 10 + 65 - 5 = 80.
        BlockedCase{"Example29_BlockedFourPlayers",
                    Format::kFourPlayers,
                    {S({T(0, 2), T(0, 3)}), S({T(1, 3), T(1, 4)}), S({T(2, 2), T(2, 3)})},
                    {5, 9, 9, 67},
                    0,
                    80},
        // round5(3 + 53) - round5(12 + 22) = 55 - 35: partners' pips are added first.
        BlockedCase{"Example30_BlockedPartnershipsAddPartnersFirst",
                    Format::kPartnerships,
                    {S({T(0, 1), T(0, 2)}), S({T(1, 5), T(2, 4)}),
                     S({T(5, 5), T(4, 5), T(4, 4), T(3, 5), T(2, 5), T(3, 3), T(1, 4)})},
                    {3, 12, 53, 22},
                    1,
                    20}),
    case_name);

INSTANTIATE_TEST_SUITE_P(Blocked, BlockedHand,
                         ::testing::Values(
                             // Seats 0 and 1 hold 20 each, seat 2 holds 50.
                             BlockedCase{
                                 "ThreePlayerTieForFewestScoresNothingThroughApply",
                                 Format::kThreePlayers,
                                 {S({T(5, 5), T(4, 5), T(0, 1)}), S({T(4, 4), T(3, 5), T(0, 4)})},
                                 {20, 20, 50},
                                 -1,
                                 0},
                             // 1 against 4, 4 and 81: 5 + 5 + 80 - 0.
                             BlockedCase{"NoPassIsRecordedBeforeTheBlock",
                                         Format::kFourPlayers,
                                         {S({T(0, 1)}), S({T(1, 3)}), S({T(2, 2)})},
                                         {1, 4, 4, 81},
                                         0,
                                         90}),
                         case_name);

TEST(RulesExamples, Example31_BlockedTieScoresNothing) {
  // 45 against 45.
  State s = six_block(Format::kTwoPlayers)
                .hand(0, {T(5, 5), T(4, 5), T(4, 4), T(3, 5), T(2, 5), T(0, 3)})
                .rest_to_hand(1)
                .score(0, 30)
                .score(1, 40)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_GE(ev.size(), 2);
  ASSERT_EQ(ev[1].kind, EventKind::kHandEnd);
  EXPECT_EQ(ev[1].values[0], 45);
  EXPECT_EQ(ev[1].values[1], 45);
  EXPECT_EQ(ev[1].side, -1);
  EXPECT_EQ(ev[1].points, 0);
  EXPECT_EQ(s.score(0), 30);
  EXPECT_EQ(s.score(1), 40);
  EXPECT_FALSE(s.is_terminal());
  EXPECT_EQ(s.hand_index(), 1);
  // Nobody went out: the next hand opens with the highest double (or the heaviest tile).
  const Opener o = find_opener(Format::kTwoPlayers, deal_hand(Format::kTwoPlayers, 1, 1).hands);
  EXPECT_NE(s.open_rule(), OpenRule::kWinnerChooses);
  EXPECT_EQ(s.open_rule(), o.rule);
  EXPECT_EQ(s.seat_to_move(), o.seat);
}

TEST(Blocked, AllHandsAreRevealedAtTheEnd) {
  State before = six_block(Format::kThreePlayers)
                     .hand(0, {T(0, 1), T(0, 2)})
                     .hand(1, {T(1, 3), T(4, 5)})
                     .rest_to_hand(2)
                     .build();
  State s = before;
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_EQ(ev[1].kind, EventKind::kHandEnd);
  EXPECT_EQ(ev[1].hands[0], S({T(0, 1), T(0, 2)}));
  EXPECT_EQ(ev[1].hands[1], before.hand(1));
  EXPECT_EQ(ev[1].hands[2], before.hand(2));
  for (int seat = 0; seat < 3; ++seat) EXPECT_EQ(ev[1].values[seat], ev[1].hands[seat].pips());
}

TEST(Blocked, BlockReachingTheTargetEndsTheMatch) {
  State s = six_block(Format::kTwoPlayers)
                .hand(0, {T(0, 0), T(0, 1), T(0, 2), T(0, 3), T(0, 4), T(1, 1)})
                .rest_to_hand(1)
                .score(0, 200)
                .score(1, 245)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kMatchEnd}));
  EXPECT_EQ(s.score(0), 270);
  EXPECT_EQ(s.score(1), 245);
  EXPECT_TRUE(s.is_terminal());
  EXPECT_EQ(s.outcome().reason, MatchEndReason::kTarget);
  EXPECT_EQ(s.outcome().winner_side, 0);
}

}  // namespace
}  // namespace allfives
