// Legal plays and the refusal of illegal ones (docs/RULES.md §5 "Plays and the line" and §8
// "Drawing and passing"): every refused play leaves the state exactly as it was and appends no
// event.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::for_each_format_match;
using test::L;
using test::PositionBuilder;
using test::R;
using test::S;
using test::T;

// Line 2-4 (ends 2 and 4); seat 0 holds 2-5 and 1-4, which fit, and 6-6 and 0-0, which do not.
State mid_hand() {
  return PositionBuilder(Format::kTwoPlayers)
      .play(1, T(2, 4))
      .hand(0, {T(2, 5), T(1, 4), T(6, 6), T(0, 0)})
      .hand(1, {T(3, 3), T(5, 5), T(1, 1)})
      .rest_to_boneyard()
      .to_move(0)
      .build();
}

// Applies `p`, expecting `error`, no event and no change.
void expect_refused(State& s, Play p, PlayError error) {
  const State before = s;
  EXPECT_EQ(s.check(p), error) << to_string(p);
  EventList ev;
  EXPECT_EQ(s.apply(p, &ev), error) << to_string(p);
  EXPECT_EQ(ev.size(), 0);
  EXPECT_EQ(s, before) << to_string(p);
}

TEST(LegalPlays, OrderedByTileThenLeftBeforeRight) {
  const State s = mid_hand();
  const PlayList legal = s.legal_plays();
  ASSERT_EQ(legal.size(), 2);
  // 1-4 (index 10) comes before 2-5 (index 16).
  EXPECT_EQ(legal[0], R(T(1, 4)));
  EXPECT_EQ(legal[1], L(T(2, 5)));
}

TEST(LegalPlays, TileFittingBothEndsIsOfferedOnEach) {
  // A double opener leaves 3 on both ends: 3-6 is offered on the left and on the right.
  const State s = PositionBuilder(Format::kTwoPlayers)
                      .play(1, T(3, 3))
                      .hand(0, {T(3, 6), T(0, 0)})
                      .hand(1, {T(1, 1)})
                      .rest_to_boneyard()
                      .to_move(0)
                      .build();
  const PlayList legal = s.legal_plays();
  ASSERT_EQ(legal.size(), 2);
  EXPECT_EQ(legal[0], L(T(3, 6)));
  EXPECT_EQ(legal[1], R(T(3, 6)));
  // Ends 2 and 5 (2-3, then 3-5 on the 3): 2-5 fits both.
  const State s2 = PositionBuilder(Format::kTwoPlayers)
                       .play(1, T(2, 3))
                       .play(0, T(3, 5), End::kRight)
                       .hand(0, {T(2, 5), T(0, 0)})
                       .hand(1, {T(1, 1)})
                       .rest_to_boneyard()
                       .to_move(0)
                       .build();
  const PlayList legal2 = s2.legal_plays();
  ASSERT_EQ(legal2.size(), 2);
  EXPECT_EQ(legal2[0], L(T(2, 5)));
  EXPECT_EQ(legal2[1], R(T(2, 5)));
}

TEST(LegalPlays, ChoosingTheEndChangesTheLine) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(2, 3))
                .play(0, T(3, 5), End::kRight)
                .hand(0, {T(2, 5), T(0, 0)})
                .rest_to_hand(1)
                .to_move(0)
                .build();
  State left = s, right = s;
  ASSERT_EQ(left.apply(L(T(2, 5))), PlayError::kNone);
  ASSERT_EQ(right.apply(R(T(2, 5))), PlayError::kNone);
  EXPECT_EQ(left.line().end(End::kLeft).value, 5);
  EXPECT_EQ(left.line().end(End::kRight).value, 5);
  EXPECT_EQ(right.line().end(End::kLeft).value, 2);
  EXPECT_EQ(right.line().end(End::kRight).value, 2);
  EXPECT_NE(left, right);
}

// The referee logs the ends after each play and the checker compares them from the event,
// since the state is already in the next hand after a play that ends one.
TEST(PlayEvent, CarriesTheLineEndsAfterThePlayEvenWhenTheHandEnds) {
  for_each_format_match(5, [](Format, const std::vector<EventList>& batches) {
    Line line;
    int hand_ending_plays = 0;
    for (size_t i = 1; i < batches.size(); ++i) {
      for (const Event& e : batches[i]) {
        if (e.kind == EventKind::kHandStart) line = Line{};
        if (e.kind == EventKind::kHandEnd) ++hand_ending_plays;
        if (e.kind != EventKind::kPlay) continue;
        line.place(e.play.tile, e.play.end, e.seat);
        EXPECT_EQ(e.ends[0], line.end(End::kLeft));
        EXPECT_EQ(e.ends[1], line.end(End::kRight));
      }
    }
    EXPECT_GT(hand_ending_plays, 0);
  });
}

TEST(IllegalPlay, TileNotInHandIsRefused) {
  State s = mid_hand();
  for (Tile t : TileSet::all() - s.hand(0)) {
    expect_refused(s, L(t), PlayError::kNotInHand);
    expect_refused(s, R(t), PlayError::kNotInHand);
  }
}

TEST(IllegalPlay, AnotherSeatsTileIsNotInHand) {
  State s = mid_hand();
  expect_refused(s, L(T(3, 3)), PlayError::kNotInHand);
}

TEST(IllegalPlay, TileThatDoesNotFitIsRefused) {
  State s = mid_hand();
  expect_refused(s, R(T(2, 5)), PlayError::kDoesNotFit);  // 2-5 on the 4
  expect_refused(s, L(T(1, 4)), PlayError::kDoesNotFit);  // 1-4 on the 2
  expect_refused(s, L(T(6, 6)), PlayError::kDoesNotFit);
  expect_refused(s, R(T(0, 0)), PlayError::kDoesNotFit);
}

TEST(IllegalPlay, OutOfRangeTileIsRefused) {
  State s = mid_hand();
  expect_refused(s, Play{Tile::from_index(28), End::kLeft}, PlayError::kNotInHand);
  expect_refused(s, Play{Tile::from_index(255), End::kRight}, PlayError::kNotInHand);
}

TEST(IllegalPlay, OutOfRangeEndIsRefused) {
  State s = mid_hand();
  expect_refused(s, Play{T(2, 5), static_cast<End>(2)}, PlayError::kDoesNotFit);
  expect_refused(s, Play{T(2, 5), static_cast<End>(255)}, PlayError::kDoesNotFit);
}

TEST(IllegalPlay, AfterTheMatchIsOverEverythingIsRefused) {
  // Ends 2 and 4: 4-4 on the 4 scores 10 and takes side 0 from 245 to the target.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(2, 4))
                .hand(0, {T(4, 4), T(1, 4)})
                .hand(1, {T(0, 0)})
                .rest_to_boneyard()
                .score(0, 245)
                .to_move(0)
                .build();
  ASSERT_EQ(s.apply(R(T(4, 4))), PlayError::kNone);
  ASSERT_TRUE(s.is_terminal());
  for (Tile tile : TileSet::all()) {
    expect_refused(s, L(tile), PlayError::kMatchOver);
    expect_refused(s, R(tile), PlayError::kMatchOver);
  }
}

TEST(IllegalPlay, RefusalLeavesTheStateUsable) {
  State s = mid_hand();
  expect_refused(s, L(T(6, 6)), PlayError::kDoesNotFit);
  EXPECT_EQ(s.apply(L(T(2, 5))), PlayError::kNone);
  EXPECT_EQ(s.line().size(), 2);
}

TEST(IllegalPlay, EveryErrorIsDescribed) {
  std::set<std::string> seen;
  for (PlayError e : {PlayError::kNone, PlayError::kMatchOver, PlayError::kNotInHand,
                      PlayError::kMustOpenWith, PlayError::kDoesNotFit}) {
    const std::string d(describe(e));
    EXPECT_FALSE(d.empty());
    seen.insert(d);
  }
  EXPECT_EQ(seen.size(), 5u);
}

}  // namespace
}  // namespace allfives
