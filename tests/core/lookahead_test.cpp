// One-play look-ahead (ends_after, count_after on a line and on a View) on the worked examples of
// docs/RULES.md, and State::knowledge: a seat's Knowledge replayed from the hand's deal, the same
// as one fed every event the seat saw.
#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <string>

#include "allfives/core/deal.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/line.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::L;
using test::PositionBuilder;
using test::R;
using test::T;

using Ends = std::array<LineEnd, 2>;

constexpr LineEnd E(int value) {
  return LineEnd{static_cast<uint8_t>(value), false};
}
constexpr LineEnd D(int value) {  // a double crosswise at that end
  return LineEnd{static_cast<uint8_t>(value), true};
}

// A line built from plays in order (the opening's end is irrelevant).
Line line_of(std::initializer_list<Play> plays) {
  Line line;
  for (const Play& p : plays) {
    EXPECT_TRUE(line.fits(p.tile, p.end)) << to_string(p);
    line.place(p.tile, p.end, 0);
  }
  return line;
}

// What a play leaves: ends_after agrees with placing the tile on a copy of the line, and the
// count is the two ends' (a lone tile counts all its pips instead).
void expect_after(const Line& line, Play play, Ends ends, int count) {
  SCOPED_TRACE(to_string(play));
  EXPECT_EQ(ends_after(line, play), ends);
  EXPECT_EQ(count_after(line, play), count);
  Line placed = line;
  placed.place(play.tile, play.end, 0);
  EXPECT_EQ((Ends{placed.end(End::kLeft), placed.end(End::kRight)}), ends);
  EXPECT_EQ(placed.count(), count);
}

// §4 and §7: the opening tile lies low half left, high half right, and counts all its pips; an
// opening double lies crosswise at both ends (examples 1 to 3; 6-2 opens as ends 2 and 6).
TEST(EndsAfter, TheOpeningTile) {
  const Line empty;
  expect_after(empty, L(T(5, 5)), {D(5), D(5)}, 10);
  expect_after(empty, L(T(6, 4)), {E(4), E(6)}, 10);
  expect_after(empty, L(T(6, 6)), {D(6), D(6)}, 12);
  expect_after(empty, L(T(6, 2)), {E(2), E(6)}, 8);
  // The opening play's end does not matter.
  EXPECT_EQ(ends_after(empty, R(T(6, 2))), (Ends{E(2), E(6)}));
}

// Examples 4 to 7: 5-5 opens; 5-0 on it, then 0-0, then 5-6 on the opening double, then 0-4.
TEST(EndsAfter, TheWorkedSequenceOnTheOpeningDoubleFive) {
  // A play on the hand's first tile: the double stays crosswise on the side not played on.
  expect_after(line_of({L(T(5, 5))}), R(T(5, 0)), {D(5), E(0)}, 10);
  expect_after(line_of({L(T(5, 5))}), L(T(5, 0)), {E(0), D(5)}, 10);
  expect_after(line_of({L(T(5, 5)), R(T(5, 0))}), R(T(0, 0)), {D(5), D(0)}, 10);
  expect_after(line_of({L(T(5, 5)), R(T(5, 0)), R(T(0, 0))}), L(T(5, 6)), {E(6), D(0)}, 6);
  expect_after(line_of({L(T(5, 5)), R(T(5, 0)), R(T(0, 0)), L(T(5, 6))}), R(T(0, 4)), {E(6), E(4)},
               10);
}

// Examples 8 and 9: line 2-4; 4-4 on the 4 lies crosswise, then 4-3 on the 4-4 covers it.
TEST(EndsAfter, ADoubleAtOneEndAndThePlayOnIt) {
  expect_after(line_of({L(T(2, 4))}), R(T(4, 4)), {E(2), D(4)}, 10);
  expect_after(line_of({L(T(2, 4)), R(T(4, 4))}), R(T(4, 3)), {E(2), E(3)}, 5);
}

// Example 11: the opening 4-4 counts until covered on both sides.
TEST(EndsAfter, TheOpeningDoubleUntilCoveredOnBothSides) {
  expect_after(line_of({L(T(4, 4))}), L(T(4, 1)), {E(1), D(4)}, 9);
  expect_after(line_of({L(T(4, 4)), L(T(4, 1))}), R(T(4, 6)), {E(1), E(6)}, 7);
}

// Example 13: line 6-3, 6-6 on the 6: 3 + 12 = 15.
TEST(EndsAfter, DoubleSixAndThreeMakeFifteen) {
  expect_after(line_of({L(T(6, 3))}), R(T(6, 6)), {E(3), D(6)}, 15);
}

// Example 15: ends 3 and 5; 3-5 fits both, and each end leaves other ends.
TEST(EndsAfter, ATileFittingBothEnds) {
  const Line line = line_of({L(T(3, 6)), R(T(6, 5))});
  expect_after(line, L(T(3, 5)), {E(5), E(5)}, 10);
  expect_after(line, R(T(3, 5)), {E(3), E(3)}, 6);
}

// The view's helpers are the line's, on the view's own line.
TEST(EndsAfter, TheViewLooksAheadOnItsLine) {
  const State s = PositionBuilder(Format::kTwoPlayers)
                      .play(1, T(5, 5))
                      .hand(0, {T(5, 0), T(6, 6)})
                      .hand(1, {T(1, 1)})
                      .rest_to_boneyard()
                      .to_move(0)
                      .build();
  const View v = s.view(0);
  EXPECT_EQ(v.ends_after(R(T(5, 0))), (Ends{D(5), E(0)}));
  EXPECT_EQ(v.count_after(R(T(5, 0))), 10);
  EXPECT_EQ(v.points_after(R(T(5, 0))), 10);
}

// Each seat's Knowledge fed every event as that seat saw it (how the SDKs keep it).
class FedKnowledge {
 public:
  explicit FedKnowledge(Format f) : n_(num_players(f)) {
    for (int s = 0; s < n_; ++s) k_[s] = Knowledge(f, s);
  }
  void feed(const EventList& events) {
    for (const Event& e : events)
      for (int s = 0; s < n_; ++s) k_[s].observe(seen_by(e, s));
  }
  const Knowledge& operator[](int seat) const { return k_[seat]; }

 private:
  int n_;
  std::array<Knowledge, kMaxPlayers> k_{};
};

TEST(StateKnowledge, IsWhatEverySeatLearnsFromTheEvents) {
  SplitMix64 rng(9);
  for (Format f : kAllFormats) {
    SCOPED_TRACE(std::string(to_string(f)));
    FedKnowledge fed(f);
    EventList events;
    State s = State::new_match(Config::standard(f), 41, &events);
    fed.feed(events);
    int draws = 0, decisions = 0;
    for (;;) {
      for (int seat = 0; seat < num_players(f); ++seat) {
        const std::optional<Knowledge> k = s.knowledge(seat);
        ASSERT_TRUE(k.has_value()) << "hand " << s.hand_index() << " seat " << seat;
        ASSERT_EQ(*k, fed[seat]) << "hand " << s.hand_index() << " seat " << seat;
      }
      if (s.is_terminal()) break;
      ++decisions;
      const PlayList legal = s.legal_plays();
      events.clear();
      ASSERT_EQ(
          s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events),
          PlayError::kNone);
      for (const Event& e : events) draws += e.kind == EventKind::kDraw;
      fed.feed(events);
    }
    // The replay met many hands and draws, not only plays.
    EXPECT_GT(decisions, 100);
    EXPECT_GT(draws, 5);
  }
}

// A position on a line played without draws: its plays are the hand's public record so far, and
// the draws after it are replayed. Line 3-3 (seat 0), 3-4 (seat 1); seat 0 plays 4-5 and seat 1,
// holding no 3 and no 5, draws 0-4 and 5-6 and must play 5-6.
TEST(StateKnowledge, APositionWithoutDrawsAndTheDrawsAfterIt) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .open_rule(OpenRule::kWinnerChooses)
                .play(0, T(3, 3))
                .play(1, T(3, 4), End::kRight)
                .hand(0, {T(4, 5), T(6, 6), T(4, 4), T(1, 3), T(2, 3), T(3, 5)})
                .hand(1, {T(0, 0), T(1, 1), T(0, 1), T(2, 2), T(0, 2), T(1, 2)})
                .boneyard({T(0, 4), T(5, 6)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  Knowledge fed(Format::kTwoPlayers, 0);
  fed.start_hand(0, OpenRule::kWinnerChooses, Tile{});
  Event play;
  play.kind = EventKind::kPlay;
  play.seat = 0;
  play.play = L(T(3, 3));
  fed.observe(play);
  play.seat = 1;
  play.play = R(T(3, 4));
  fed.observe(play);
  ASSERT_EQ(s.knowledge(0), fed);

  EventList events;
  ASSERT_EQ(s.apply(R(T(4, 5)), &events), PlayError::kNone);
  ASSERT_EQ(s.seat_to_move(), 1);
  for (const Event& e : events) fed.observe(seen_by(e, 0));
  const std::optional<Knowledge> k = s.knowledge(0);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(*k, fed);
  // Seat 1 lacked both ends' suits (3 and 5) for its 6 dealt tiles and the 0-4 it drew first;
  // the 5-6 it drew last shows one of them.
  EXPECT_EQ(k->tracked_size(1), 8);
  EXPECT_TRUE(k->pending(1));
  EXPECT_EQ(k->pending_suits(1), TileSet::suit(3) | TileSet::suit(5));
  ASSERT_EQ(k->num_groups(1), 1);
  EXPECT_EQ(k->group(1, 0).count, 7);
  EXPECT_EQ(k->group(1, 0).forbidden, TileSet::suit(3) | TileSet::suit(5));
}

// A hand's opening given as a position is a deal: the open rule alone tells what nobody holds.
TEST(StateKnowledge, APositionAtADealIsThatDeal) {
  const State s = State::new_match(Config::standard(Format::kThreePlayers), 5);
  Position p;
  p.config = s.config();
  for (int seat = 0; seat < 3; ++seat) p.hands[seat] = s.hand(seat);
  const Deal d = deal_hand(Format::kThreePlayers, 5, 0);
  p.boneyard = d.boneyard;
  p.boneyard_size = d.boneyard_size;
  p.seat_to_move = s.seat_to_move();
  p.open_rule = s.open_rule();
  State from = s;
  std::string error;
  ASSERT_TRUE(State::from_position(p, 99, from, &error)) << error;
  for (int seat = 0; seat < 3; ++seat) EXPECT_EQ(from.knowledge(seat), s.knowledge(seat));
}

// A seat that holds more tiles than its deal less its plays drew before the position, at times
// the state does not record: no knowledge rather than a wrong one.
TEST(StateKnowledge, NoneForAPositionWhoseSeatsDrewBeforeIt) {
  const State s = PositionBuilder(Format::kTwoPlayers)
                      .open_rule(OpenRule::kWinnerChooses)
                      .play(0, T(3, 3))
                      .play(1, T(3, 4), End::kRight)
                      .hand(0, {T(4, 5), T(6, 6), T(4, 4), T(1, 3), T(2, 3), T(3, 5)})
                      .hand(1, {T(0, 0), T(1, 1), T(0, 1), T(2, 2), T(0, 2), T(1, 2), T(0, 4)})
                      .rest_to_boneyard()
                      .to_move(0)
                      .build();
  EXPECT_EQ(s.knowledge(0), std::nullopt);
  EXPECT_EQ(s.knowledge(1), std::nullopt);
}

// A line whose plays skip a seat's turn cannot have been played from a deal without passes.
TEST(StateKnowledge, NoneForALinePlayedOutOfTurn) {
  const State s = PositionBuilder(Format::kTwoPlayers)
                      .open_rule(OpenRule::kWinnerChooses)
                      .play(0, T(3, 3))
                      .play(0, T(3, 4), End::kRight)
                      .hand(0, {T(4, 5), T(6, 6), T(4, 4), T(1, 3), T(2, 3)})
                      .hand(1, {T(0, 0), T(1, 1), T(0, 1), T(2, 2), T(0, 2), T(1, 2), T(0, 4)})
                      .rest_to_boneyard()
                      .to_move(1)
                      .build();
  EXPECT_EQ(s.knowledge(0), std::nullopt);
}

}  // namespace
}  // namespace allfives
