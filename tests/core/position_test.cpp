// State::from_position: it reproduces legal positions and refuses impossible ones with a reason.
#include <gtest/gtest.h>

#include <string>

#include "allfives/core/deal.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::L;
using test::PositionBuilder;
using test::R;
using test::S;
using test::T;

// A legal mid-hand two-player position: line 2-4, seat 0 to move.
PositionBuilder valid() {
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(2, 4)).hand(0, {T(2, 5), T(6, 6)}).hand(1, {T(3, 3), T(1, 1)});
  b.boneyard({T(0, 0)}).rest_to_boneyard().score(0, 30).score(1, 45).to_move(0).hand_index(3);
  return b;
}

// Expects from_position to refuse `p` and to say why.
void expect_refused(const Position& p) {
  State s = State::new_match(p.config, 0);
  std::string error;
  EXPECT_FALSE(State::from_position(p, 0, s, &error));
  EXPECT_FALSE(error.empty());
}

TEST(FromPosition, ReproducesTheGivenPosition) {
  const PositionBuilder b = valid();
  const State s = b.build(5);
  EXPECT_EQ(s.hand(0), S({T(2, 5), T(6, 6)}));
  EXPECT_EQ(s.hand(1), S({T(3, 3), T(1, 1)}));
  EXPECT_EQ(s.boneyard_size(), 28 - 5);
  EXPECT_EQ(s.boneyard(), TileSet::all() - S({T(2, 5), T(6, 6), T(3, 3), T(1, 1), T(2, 4)}));
  EXPECT_EQ(s.line().size(), 1);
  EXPECT_EQ(s.line()[0].seat, 1);
  EXPECT_EQ(s.score(0), 30);
  EXPECT_EQ(s.score(1), 45);
  EXPECT_EQ(s.hand_index(), 3);
  EXPECT_EQ(s.seat_to_move(), 0);
  EXPECT_FALSE(s.is_terminal());
}

TEST(FromPosition, StartOfAHandEqualsNewMatch) {
  for (Format f : kAllFormats) {
    for (uint64_t seed = 0; seed < 30; ++seed) {
      const Deal d = deal_hand(f, seed, 0);
      const Opener o = find_opener(f, d.hands);
      Position p;
      p.config = Config::standard(f);
      p.hands = d.hands;
      p.boneyard = d.boneyard;
      p.boneyard_size = d.boneyard_size;
      p.seat_to_move = o.seat;
      p.open_rule = o.rule;
      State s = State::new_match(p.config, 0);
      std::string error;
      ASSERT_TRUE(State::from_position(p, seed, s, &error)) << error;
      EXPECT_EQ(s, State::new_match(Config::standard(f), seed));
    }
  }
}

TEST(FromPosition, DrawsFromTheBoneyardInTheGivenOrder) {
  State s = valid().build();
  // Seat 0 plays 2-5 on the 2: ends 5 and 4. Seat 1 (3-3, 1-1) draws 0-0 first.
  EventList ev;
  ASSERT_EQ(s.apply(L(T(2, 5)), &ev), PlayError::kNone);
  ASSERT_GE(ev.size(), 2);
  EXPECT_EQ(ev[1].kind, EventKind::kDraw);
  EXPECT_TRUE(ev[1].tiles.contains(T(0, 0)));
}

TEST(FromPosition, RefusesATileTwice) {
  expect_refused(valid().hand(1, {T(2, 5)}).position());  // in two hands
  PositionBuilder b = valid();
  b.boneyard({T(6, 6)});  // in a hand and the boneyard
  expect_refused(b.position());
  expect_refused(valid().hand(0, {T(2, 4)}).position());  // on the line and in a hand
}

TEST(FromPosition, RefusesAMissingTile) {
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(2, 4)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)}).to_move(0);
  expect_refused(b.position());
}

TEST(FromPosition, RefusesALinePlayThatDoesNotFit) {
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(2, 4)).play(0, T(5, 5), End::kLeft).hand(0, {T(2, 5)}).hand(1, {T(3, 3)});
  expect_refused(b.rest_to_boneyard().to_move(0).position());
}

TEST(FromPosition, RefusesALinePlayOnNoEnd) {
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(2, 4)).play(0, T(4, 5), static_cast<End>(2)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)});
  expect_refused(b.rest_to_boneyard().to_move(0).position());
}

TEST(FromPosition, RefusesATileOutOfRange) {
  PositionBuilder bone = valid();
  bone.boneyard({Tile::from_index(28)});
  expect_refused(bone.position());
  // (Placed after rest_to_boneyard(), which only understands real tiles.)
  PositionBuilder line(Format::kTwoPlayers);
  line.play(1, T(2, 4)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)}).rest_to_boneyard().to_move(0);
  line.play(0, Tile::from_index(200), End::kRight);
  expect_refused(line.position());
}

TEST(FromPosition, RefusesSeatsOutOfRange) {
  expect_refused(valid().to_move(2).position());
  expect_refused(valid().to_move(-1).position());
  PositionBuilder line_seat(Format::kTwoPlayers);
  line_seat.play(3, T(2, 4)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)});
  expect_refused(line_seat.rest_to_boneyard().to_move(0).position());
  // A hand for a seat that is not at the table.
  PositionBuilder extra(Format::kTwoPlayers);
  extra.play(1, T(2, 4)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)}).hand(2, {T(1, 1)});
  expect_refused(extra.rest_to_boneyard().to_move(0).position());
}

TEST(FromPosition, RefusesImpossibleScores) {
  expect_refused(valid().score(0, 250).position());  // the match would be over
  expect_refused(valid().score(1, -5).position());
  expect_refused(valid().score(2, 5).position());  // no side 2 with two players
  PositionBuilder partners(Format::kPartnerships);
  partners.play(1, T(2, 4)).hand(0, {T(2, 5)}).hand(1, {T(3, 3)}).hand(2, {T(1, 1)});
  partners.hand(3, {T(0, 0)}).rest_to_boneyard().to_move(0).score(3, 10);
  expect_refused(partners.position());
}

TEST(FromPosition, RefusesABadConfigOrHandIndex) {
  expect_refused(valid().config(Config{Format::kTwoPlayers, 0, 200}).position());
  expect_refused(valid().config(Config{Format::kTwoPlayers, 250, 0}).position());
  expect_refused(valid().hand_index(200).position());
  expect_refused(valid().hand_index(-1).position());
}

TEST(FromPosition, RefusesASeatToMoveThatCannotPlay) {
  expect_refused(valid().to_move(1).position());  // 3-3 and 1-1 fit neither 2 nor 4
}

TEST(FromPosition, RefusesAnOpenerWithoutTiles) {
  PositionBuilder b(Format::kTwoPlayers);
  b.hand(1, {T(1, 1)}).rest_to_boneyard().to_move(0).open_rule(OpenRule::kWinnerChooses);
  expect_refused(b.position());
}

TEST(FromPosition, RefusesAnEmptyHandMidHand) {
  // A player who played their last tile ended the hand at once: no position mid-hand has a
  // seat without tiles.
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(2, 4)).hand(0, {T(2, 5), T(6, 6)}).rest_to_boneyard().to_move(0);
  expect_refused(b.position());
  PositionBuilder c(Format::kThreePlayers);
  c.play(2, T(2, 4)).hand(0, {T(2, 5)}).hand(2, {T(1, 1)}).rest_to_boneyard().to_move(0);
  expect_refused(c.position());
}

TEST(FromPosition, LaterHandsComeFromTheSeed) {
  // Seat 0 goes out of a position in hand 7; hand 8 is the seed's deal.
  State s = PositionBuilder(Format::kFourPlayers)
                .play(1, T(1, 2))
                .hand(0, {T(2, 4)})
                .hand(1, {T(6, 6)})
                .hand(2, {T(5, 5)})
                .hand(3, {T(4, 4)})
                .rest_to_boneyard()
                .to_move(0)
                .hand_index(7)
                .build(1234);
  ASSERT_EQ(s.apply(R(T(2, 4))), PlayError::kNone);
  EXPECT_EQ(s.hand_index(), 8);
  const Deal d = deal_hand(Format::kFourPlayers, 1234, 8);
  for (int seat = 0; seat < 4; ++seat) EXPECT_EQ(s.hand(seat), d.hands[seat]);
}

}  // namespace
}  // namespace allfives
