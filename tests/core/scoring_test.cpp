// docs/RULES.md §7 "The count and the points it makes" and "Rounding": every worked example, on the
// bare Line and through State::apply (the points reach the player's side).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "allfives/core/line.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::L;
using test::PositionBuilder;
using test::R;
using test::T;

// A line built from (tile, end) pairs, the first being the opening tile.
Line make_line(const std::vector<std::pair<Tile, End>>& plays) {
  Line line;
  int seat = 0;
  for (auto [t, e] : plays) {
    EXPECT_TRUE(line.fits(t, e));
    line.place(t, e, seat);
    seat = 1 - seat;
  }
  return line;
}

// In a two-player hand whose line holds `prefix` (seats alternating from 0), the seat to move
// makes `play`; returns the play event after checking the points reached that seat's side and
// nothing else was scored. The mover keeps a spare tile, so the hand goes on.
Event play_after(const std::vector<std::pair<Tile, End>>& prefix, Play play,
                 Format format = Format::kTwoPlayers) {
  PositionBuilder b(format);
  const int n = num_players(format);
  int seat = 0;
  for (auto [t, e] : prefix) {
    b.play(seat, t, e);
    seat = (seat + 1) % n;
  }
  const int mover = seat;
  b.hand(mover, {play.tile}).to_move(mover);
  // A spare tile for the mover and for every other seat but the last, the rest to the last.
  for (int s = 0; s < n; ++s) {
    if (s == (mover + n - 1) % n) continue;
    b.hand(s, {*b.unplaced().begin()});
  }
  b.rest_to_hand((mover + n - 1) % n);
  State state = b.build();
  const int side = side_of(format, mover);
  std::array<int, kMaxPlayers> before{};
  for (int s = 0; s < num_sides(format); ++s) before[s] = state.score(s);

  EventList events;
  EXPECT_EQ(state.apply(play, &events), PlayError::kNone);
  const auto plays = test::of_kind(events, EventKind::kPlay);
  EXPECT_EQ(plays.size(), 1u);
  EXPECT_TRUE(test::of_kind(events, EventKind::kHandEnd).empty());
  const Event e = plays.empty() ? Event{} : plays[0];
  EXPECT_EQ(e.seat, mover);
  EXPECT_EQ(e.side, side);
  EXPECT_EQ(e.count, state.line().count());
  for (int s = 0; s < num_sides(format); ++s)
    EXPECT_EQ(state.score(s), before[s] + (s == side ? e.points : 0)) << "side " << s;
  return e;
}

// ---- Rounding -------------------------------------------------------------------------------

TEST(Rounding, RuleBookTable) {
  EXPECT_EQ(round5(12), 10);
  EXPECT_EQ(round5(13), 15);
  EXPECT_EQ(round5(27), 25);
  EXPECT_EQ(round5(28), 30);
  EXPECT_EQ(round5(2), 0);
}

TEST(Rounding, RemaindersOneAndTwoRoundDownThreeAndFourUp) {
  for (int base = 0; base <= 200; base += 5) {
    EXPECT_EQ(round5(base + 0), base) << base;
    EXPECT_EQ(round5(base + 1), base) << base + 1;
    EXPECT_EQ(round5(base + 2), base) << base + 2;
    EXPECT_EQ(round5(base + 3), base + 5) << base + 3;
    EXPECT_EQ(round5(base + 4), base + 5) << base + 4;
  }
}

TEST(Rounding, ZeroStaysZero) {
  EXPECT_EQ(round5(0), 0);
}

// ---- What a count scores ---------------------------------------------------------------------

TEST(PointsForCount, PositiveMultipleOfFiveScoresItself) {
  for (int c = 5; c <= 60; c += 5) EXPECT_EQ(points_for_count(c), c);
}

TEST(PointsForCount, CountOfZeroScoresNothing) {
  EXPECT_EQ(points_for_count(0), 0);
}

TEST(PointsForCount, NonMultipleScoresNothing) {
  for (int c = 1; c <= 60; ++c) {
    if (c % 5 != 0) {
      EXPECT_EQ(points_for_count(c), 0) << c;
    }
  }
}

// ---- The worked examples of docs/RULES.md, on the line
// -------------------------------------------

TEST(LineCount, EmptyLineCountsNothing) {
  EXPECT_EQ(Line{}.count(), 0);
}

TEST(LineCount, LeadDoubleFiveCountsTen) {
  EXPECT_EQ(make_line({{T(5, 5), End::kLeft}}).count(), 10);
}

TEST(LineCount, OpeningSixFourCountsTen) {
  EXPECT_EQ(make_line({{T(6, 4), End::kLeft}}).count(), 10);
}

TEST(LineCount, OpeningDoubleSixCountsTwelve) {
  EXPECT_EQ(make_line({{T(6, 6), End::kLeft}}).count(), 12);
}

TEST(LineCount, LoneTileCountsAllItsPips) {
  for (Tile t : TileSet::all()) EXPECT_EQ(make_line({{t, End::kLeft}}).count(), t.pips());
}

TEST(LineCount, FiveBlankOnDoubleFiveCountsTen) {
  const Line line = make_line({{T(5, 5), End::kLeft}, {T(5, 0), End::kRight}});
  EXPECT_EQ(line.end(End::kLeft), (LineEnd{5, true}));
  EXPECT_EQ(line.end(End::kRight), (LineEnd{0, false}));
  EXPECT_EQ(line.count(), 10);
}

TEST(LineCount, DoubleBlankOnTheBlankCountsTen) {
  const Line line =
      make_line({{T(5, 5), End::kLeft}, {T(5, 0), End::kRight}, {T(0, 0), End::kRight}});
  EXPECT_EQ(line.end(End::kRight), (LineEnd{0, true}));
  EXPECT_EQ(line.count(), 10);
}

TEST(LineCount, FiveSixThenBlankFourCountsSixThenTen) {
  Line line = make_line({{T(5, 5), End::kLeft}, {T(5, 0), End::kRight}, {T(0, 0), End::kRight}});
  line.place(T(5, 6), End::kLeft, 1);
  EXPECT_EQ(line.count(), 6);  // 6 + double blank (0)
  line.place(T(0, 4), End::kRight, 0);
  EXPECT_EQ(line.count(), 10);  // 6 + 4
}

TEST(LineCount, DoubleFourOnEndsTwoAndFourCountsTen) {
  Line line = make_line({{T(2, 4), End::kLeft}});
  ASSERT_EQ(line.end(End::kLeft).value, 2);
  ASSERT_EQ(line.end(End::kRight).value, 4);
  line.place(T(4, 4), End::kRight, 1);
  EXPECT_EQ(line.count(), 10);  // 2 + 4 + 4
}

TEST(LineCount, FourThreeOnTheDoubleFourCountsFive) {
  Line line = make_line({{T(2, 4), End::kLeft}, {T(4, 4), End::kRight}});
  line.place(T(4, 3), End::kRight, 0);
  EXPECT_EQ(line.count(), 5);  // 2 + 3
}

TEST(LineCount, TwoBlankAgainstDoubleFiveCountsTen) {
  Line line = make_line({{T(5, 5), End::kLeft}, {T(5, 2), End::kRight}});
  ASSERT_EQ(line.end(End::kLeft), (LineEnd{5, true}));
  ASSERT_EQ(line.end(End::kRight), (LineEnd{2, false}));
  line.place(T(2, 0), End::kRight, 0);
  EXPECT_EQ(line.count(), 10);  // 5 + 5 + 0
}

TEST(LineCount, DoubleSixAndThreeCountFifteen) {
  const Line line = make_line({{T(6, 3), End::kLeft}, {T(6, 6), End::kRight}});
  EXPECT_EQ(line.end(End::kLeft), (LineEnd{3, false}));
  EXPECT_EQ(line.end(End::kRight), (LineEnd{6, true}));
  EXPECT_EQ(line.count(), 15);
}

TEST(LineCount, DoubleAtTheLeftEndCountsBothHalves) {
  // 3-1 opens as 1|3; 1-1 on the left lies crosswise: 1 + 1 + 3.
  const Line line = make_line({{T(3, 1), End::kLeft}, {T(1, 1), End::kLeft}});
  EXPECT_EQ(line.end(End::kLeft), (LineEnd{1, true}));
  EXPECT_EQ(line.count(), 1 + 1 + 3);
}

TEST(LineCount, DoubleAtTheRightEndCountsBothHalves) {
  const Line line = make_line({{T(3, 1), End::kLeft}, {T(3, 3), End::kRight}});
  EXPECT_EQ(line.end(End::kRight), (LineEnd{3, true}));
  EXPECT_EQ(line.count(), 1 + 3 + 3);
}

TEST(RulesExamples, Example11_OpeningDoubleCountsUntilCoveredOnBothSides) {
  Line line = make_line({{T(4, 4), End::kLeft}, {T(4, 1), End::kLeft}});
  EXPECT_EQ(line.count(), 1 + 8);  // the opener is still an end, crosswise
  line.place(T(4, 6), End::kRight, 0);
  EXPECT_EQ(line.count(), 1 + 6);  // now covered on both sides
}

TEST(LineCount, DoubleCoveredOnOneSideNoLongerCountsDouble) {
  Line line = make_line({{T(2, 4), End::kLeft}, {T(4, 4), End::kRight}});
  line.place(T(4, 5), End::kRight, 0);
  EXPECT_EQ(line.end(End::kRight), (LineEnd{5, false}));
  EXPECT_EQ(line.count(), 2 + 5);
}

TEST(LineCount, OpeningTileLiesLowHalfLeft) {
  const Line line = make_line({{T(6, 2), End::kRight}});
  EXPECT_EQ(line.end(End::kLeft), (LineEnd{2, false}));
  EXPECT_EQ(line.end(End::kRight), (LineEnd{6, false}));
  EXPECT_EQ(line[0].end, End::kLeft);
}

// ---- The worked examples, through State::apply ------------------------------------------------

// One play on a two-player line holding `prefix` (play_after): the count it makes and the
// points it scores.
struct PlayCase {
  const char* name;
  std::vector<std::pair<Tile, End>> prefix;
  Play play;
  int count;
  int points;
};

class OnePlay : public ::testing::TestWithParam<PlayCase> {};

TEST_P(OnePlay, CountsTheEndsAndScoresAPositiveMultipleOfFive) {
  const PlayCase& c = GetParam();
  const Event e = play_after(c.prefix, c.play);
  EXPECT_EQ(e.count, c.count);
  EXPECT_EQ(e.points, c.points);
}

std::string case_name(const ::testing::TestParamInfo<PlayCase>& info) {
  return info.param.name;
}

// docs/RULES.md §7's examples of one play.
INSTANTIATE_TEST_SUITE_P(
    RulesExamples, OnePlay,
    ::testing::Values(
        PlayCase{"Example01_OpeningDoubleFiveScoresTen", {}, L(T(5, 5)), 10, 10},
        PlayCase{"Example02_OpeningSixFourScoresTen", {}, L(T(6, 4)), 10, 10},
        PlayCase{"Example03_OpeningDoubleSixCountsTwelveScoresNothing", {}, L(T(6, 6)), 12, 0},
        PlayCase{"Example04_FiveBlankOnTheOpeningDoubleFive",
                 {{T(5, 5), End::kLeft}},
                 R(T(5, 0)),
                 10,
                 10},
        PlayCase{"Example05_DoubleBlankMakesDoublesAtBothEnds",
                 {{T(5, 5), End::kLeft}, {T(5, 0), End::kRight}},
                 R(T(0, 0)),
                 10,
                 10},
        PlayCase{"Example06_CoveringTheOpeningDoubleCountsSix",
                 {{T(5, 5), End::kLeft}, {T(5, 0), End::kRight}, {T(0, 0), End::kRight}},
                 L(T(5, 6)),
                 6,
                 0},
        PlayCase{"Example08_DoubleAtOneEnd", {{T(2, 4), End::kLeft}}, R(T(4, 4)), 10, 10},
        PlayCase{"Example09_PlayOnTheDoubleCountsItsOuterHalf",
                 {{T(2, 4), End::kLeft}, {T(4, 4), End::kRight}},
                 R(T(4, 3)),
                 5,
                 5},
        PlayCase{"Example12_DoubleFiveAgainstABlank",
                 {{T(5, 5), End::kLeft}, {T(5, 2), End::kRight}},
                 R(T(2, 0)),
                 10,
                 10},
        PlayCase{
            "Example13_DoubleSixAndThreeMakeFifteen", {{T(6, 3), End::kLeft}}, R(T(6, 6)), 15, 15}),
    case_name);

INSTANTIATE_TEST_SUITE_P(PlayScoring, OnePlay,
                         ::testing::Values(PlayCase{"BlankFourOnDoubleBlankScoresTen",
                                                    {{T(5, 5), End::kLeft},
                                                     {T(5, 0), End::kRight},
                                                     {T(0, 0), End::kRight},
                                                     {T(5, 6), End::kLeft}},
                                                    R(T(0, 4)),
                                                    10,
                                                    10},
                                           // 3-3 opens (6, no score); 3-4 on one side: ends 3-3
                                           // crosswise (6) and 4 = 10.
                                           PlayCase{"DoubleOpenerStaysAnEndCountingBothHalves",
                                                    {{T(3, 3), End::kLeft}},
                                                    R(T(3, 4)),
                                                    10,
                                                    10}),
                         case_name);

TEST(RulesExamples, Example10_DoublesAtBothEnds) {
  // 2-3 opens (count 5); 3-3 on the 3: 2 + 6 = 8; 2-2 on the 2: 4 + 6 = 10.
  const Event open = play_after({}, L(T(2, 3)));
  EXPECT_EQ(open.count, 5);
  EXPECT_EQ(open.points, 5);
  const Event one = play_after({{T(2, 3), End::kLeft}}, R(T(3, 3)));
  EXPECT_EQ(one.count, 8);
  EXPECT_EQ(one.points, 0);
  const Event both = play_after({{T(2, 3), End::kLeft}, {T(3, 3), End::kRight}}, L(T(2, 2)));
  EXPECT_EQ(both.count, 10);
  EXPECT_EQ(both.points, 10);
}

TEST(PlayScoring, DoubleAtEitherEndCountsBothHalves) {
  // Ends 1 and 6; 1-1 on the left: 2 + 6 = 8. 6-6 on the right instead: 1 + 12 = 13.
  const std::vector<std::pair<Tile, End>> prefix = {{T(1, 6), End::kLeft}};
  EXPECT_EQ(play_after(prefix, L(T(1, 1))).count, 8);
  EXPECT_EQ(play_after(prefix, R(T(6, 6))).count, 13);
  // Ends 2 and 4 with 3-3 on neither; 2-2 on the left: 4 + 4 = 8; 4-4 on the right: 2 + 8 = 10.
  const std::vector<std::pair<Tile, End>> prefix2 = {{T(2, 4), End::kLeft}};
  EXPECT_EQ(play_after(prefix2, L(T(2, 2))).count, 8);
  EXPECT_EQ(play_after(prefix2, R(T(4, 4))).points, 10);
}

TEST(RulesExamples, Example15_TileFittingBothEndsIsTheMoversChoice) {
  // 3-6 opens (ends 3 and 6), 6-5 on the 6: ends 3 and 5; 3-5 fits both.
  const std::vector<std::pair<Tile, End>> prefix = {{T(3, 6), End::kLeft}, {T(6, 5), End::kRight}};
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(0, T(3, 6))
                .play(1, T(6, 5), End::kRight)
                .hand(0, {T(3, 5), T(0, 0)})
                .rest_to_hand(1)
                .to_move(0)
                .build();
  EXPECT_TRUE(s.legal_plays().contains(L(T(3, 5))));
  EXPECT_TRUE(s.legal_plays().contains(R(T(3, 5))));
  const Event left = play_after(prefix, L(T(3, 5)));  // ends 5 and 5
  EXPECT_EQ(left.count, 10);
  EXPECT_EQ(left.points, 10);
  const Event right = play_after(prefix, R(T(3, 5)));  // ends 3 and 3
  EXPECT_EQ(right.count, 6);
  EXPECT_EQ(right.points, 0);
}

TEST(RulesExamples, Example14_CountOfZeroScoresNothing) {
  // 0-0 opens: a count of 0, which is not a positive multiple of five.
  const Event e = play_after({}, L(T(0, 0)));
  EXPECT_EQ(e.count, 0);
  EXPECT_EQ(e.points, 0);
  // 0-3, 3-2 on the 3, then 2-0 on the 2: ends 0 and 0.
  const Event e2 = play_after({{T(0, 3), End::kLeft}, {T(3, 2), End::kRight}}, R(T(2, 0)));
  EXPECT_EQ(e2.count, 0);
  EXPECT_EQ(e2.points, 0);
}

TEST(PlayScoring, NonMultipleOfFiveScoresNothing) {
  const Event e = play_after({{T(2, 4), End::kLeft}}, R(T(4, 1)));
  EXPECT_EQ(e.count, 3);
  EXPECT_EQ(e.points, 0);
  const Event e2 = play_after({}, L(T(6, 5)));
  EXPECT_EQ(e2.count, 11);
  EXPECT_EQ(e2.points, 0);
}

TEST(RulesExamples, Example07_BlankFourOnTheDoubleBlank) {
  // The whole chain of docs/RULES.md examples 1 and 4-7: 5-5 (10), 5-0 (10), 0-0 (10), 5-6 (6), 0-4
  // (10).
  State s = PositionBuilder(Format::kTwoPlayers)
                .hand(0, {T(5, 5), T(0, 0), T(0, 4), T(1, 1)})
                .hand(1, {T(5, 0), T(5, 6), T(1, 2)})
                .rest_to_boneyard()
                .open_rule(OpenRule::kWinnerChooses)
                .to_move(0)
                .build();
  const std::vector<std::pair<Play, int>> steps = {
      {L(T(5, 5)), 10}, {R(T(5, 0)), 10}, {R(T(0, 0)), 10}, {L(T(5, 6)), 0}, {R(T(0, 4)), 10}};
  int expected[2] = {0, 0};
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    const auto [play, points] = steps[i];
    ASSERT_EQ(s.seat_to_move(), i % 2) << "step " << i;
    EventList ev;
    ASSERT_EQ(s.apply(play, &ev), PlayError::kNone) << "step " << i;
    ASSERT_GE(ev.size(), 1);
    EXPECT_EQ(ev[0].kind, EventKind::kPlay);
    EXPECT_EQ(ev[0].points, points) << "step " << i;
    expected[i % 2] += points;
    EXPECT_EQ(s.score(0), expected[0]) << "step " << i;
    EXPECT_EQ(s.score(1), expected[1]) << "step " << i;
  }
  EXPECT_EQ(s.score(0), 30);
  EXPECT_EQ(s.score(1), 10);
}

TEST(PlayScoring, PointsGoToThePlayersSideInPartnerships) {
  // play_after checks that exactly the mover's side gained the points.
  const Event e1 = play_after({{T(3, 3), End::kLeft}}, R(T(3, 4)), Format::kPartnerships);
  EXPECT_EQ(e1.seat, 1);
  EXPECT_EQ(e1.side, 1);
  EXPECT_EQ(e1.points, 10);  // 3-3 crosswise (6) + 4
  const Event e2 = play_after({{T(1, 2), End::kLeft}, {T(2, 4), End::kRight}}, L(T(1, 6)),
                              Format::kPartnerships);
  EXPECT_EQ(e2.seat, 2);
  EXPECT_EQ(e2.side, 0);
  EXPECT_EQ(e2.points, 10);  // 6 + 4
  const Event e3 =
      play_after({{T(1, 2), End::kLeft}, {T(2, 4), End::kRight}, {T(1, 3), End::kLeft}}, L(T(3, 6)),
                 Format::kPartnerships);
  EXPECT_EQ(e3.seat, 3);
  EXPECT_EQ(e3.side, 1);
  EXPECT_EQ(e3.points, 10);  // 6 + 4
}

TEST(PlayScoring, PointsGoToThePlayerInThreeAndFourPlayerGames) {
  for (Format f : {Format::kThreePlayers, Format::kFourPlayers}) {
    const Event e = play_after({{T(1, 2), End::kLeft}, {T(2, 4), End::kRight}}, L(T(1, 6)), f);
    EXPECT_EQ(e.seat, 2);
    EXPECT_EQ(e.side, 2);
    EXPECT_EQ(e.points, 10);
  }
}

}  // namespace
}  // namespace allfives
