// The greedy policy (allfives/core/greedy.h) that the greedy sample bot, the strong bot's
// rollouts and arena, and `referee demo` share: points now first, then the heavier tile, then
// legal order; and points_after, its arithmetic, agrees with laying the tile and with the score.
#include <gtest/gtest.h>

#include "allfives/core/greedy.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::L;
using test::R;
using test::T;

Line line_of(std::initializer_list<Play> plays) {
  Line line;
  for (Play p : plays) line.place(p.tile, p.end, 0);
  return line;
}

PlayList plays_of(std::initializer_list<Play> plays) {
  PlayList list;
  for (Play p : plays) list.push(p);
  return list;
}

// The opener 1-4 leaves ends 1 and 4: 1-6 on the left makes 6 + 4 = 10, 4-6 on the right
// makes 1 + 6 = 7, so the lighter tile wins on points.
TEST(GreedyPlay, PointsNowComeFirst) {
  const Line line = line_of({L(T(1, 4))});
  EXPECT_EQ(points_after(line, L(T(1, 6))), 10);
  EXPECT_EQ(points_after(line, R(T(4, 6))), 0);
  EXPECT_EQ(greedy_play(line, plays_of({R(T(4, 6)), L(T(1, 6))})), L(T(1, 6)));
}

// No play scores: 0-1 on the left (0 + 4) and 4-6 on the right (1 + 6); the heavier tile
// goes, though it comes later in legal order.
TEST(GreedyPlay, HeavierTileBetweenEqualPoints) {
  const Line line = line_of({L(T(1, 4))});
  EXPECT_EQ(greedy_play(line, plays_of({L(T(0, 1)), R(T(4, 6))})), R(T(4, 6)));
}

// 0-5 on either end of the opener 5-5 scores 0 + 10: equal in everything, so the first
// play in legal order (left before right) goes.
TEST(GreedyPlay, FirstInLegalOrderBetweenEquals) {
  const Line line = line_of({L(T(5, 5))});
  EXPECT_EQ(points_after(line, L(T(0, 5))), 10);
  EXPECT_EQ(points_after(line, R(T(0, 5))), 10);
  EXPECT_EQ(greedy_play(line, plays_of({L(T(0, 5)), R(T(0, 5))})), L(T(0, 5)));
  EXPECT_EQ(greedy_play(line, plays_of({R(T(0, 5)), L(T(0, 5))})), R(T(0, 5)));
}

// An empty line: the opening tile scores its own pips.
TEST(GreedyPlay, OpeningTileScoresItsPips) {
  const Line empty;
  EXPECT_EQ(points_after(empty, L(T(5, 5))), 10);
  EXPECT_EQ(points_after(empty, L(T(6, 4))), 10);
  EXPECT_EQ(points_after(empty, L(T(6, 6))), 0);
  EXPECT_EQ(greedy_play(empty, plays_of({L(T(6, 6)), L(T(6, 4))})), L(T(6, 4)));
}

// Over whole random matches: every legal play's points_after is what laying it on a copy of
// the line scores, and the score moves by exactly that for plays that do not end the hand.
TEST(PointsAfter, AgreesWithPlacingTheTileAndWithTheScore) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    for (Format format : {Format::kTwoPlayers, Format::kFourPlayers}) {
      State s = State::new_match(Config::standard(format), seed);
      SplitMix64 rng(seed);
      while (!s.is_terminal()) {
        const PlayList legal = s.legal_plays();
        for (Play p : legal) {
          Line copy = s.line();
          copy.place(p.tile, p.end, s.seat_to_move());
          ASSERT_EQ(points_after(s.line(), p), points_for_count(copy.count())) << to_string(p);
        }
        const Play p = legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))];
        const int side = side_of(format, s.seat_to_move());
        const int hand = s.hand_index(), before = s.score(side);
        const int expected = points_after(s.line(), p);
        s.apply(p);
        // A play that ends the hand adds the hand's points too; check only plays within it.
        if (!s.is_terminal() && s.hand_index() == hand) {
          EXPECT_EQ(s.score(side) - before, expected);
        }
      }
    }
  }
}

}  // namespace
}  // namespace allfives
