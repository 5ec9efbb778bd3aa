// wire::seat_event: what each seat is told of a rules-core event (docs/RULES.md §15 "What a bot
// may see"), the one conversion the referee, the SDK tests' mini referee and the bench share;
// and what a turn request says of the line.
#include <gtest/gtest.h>

#include <vector>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"

namespace allfives {
namespace {

TileSet tiles_of(const google::protobuf::RepeatedPtrField<v1::Tile>& m) {
  TileSet s;
  std::string error;
  EXPECT_TRUE(wire::from_proto(m, s, &error)) << error;
  return s;
}

TEST(SeatEvent, HandStartShowsEachSeatOnlyItsOwnTiles) {
  EventList events;
  State::new_match(Config::standard(Format::kThreePlayers), 5, &events);
  const Event& start = events[0];
  ASSERT_EQ(start.kind, EventKind::kHandStart);
  const std::vector<int> scores = {0, 0, 0};
  for (int seat = 0; seat < 3; ++seat) {
    const v1::Event m = wire::seat_event(start, seat, Format::kThreePlayers, scores);
    ASSERT_TRUE(m.has_hand_start());
    const v1::HandStart& h = m.hand_start();
    EXPECT_EQ(tiles_of(h.your_tiles()), start.deal.hands[seat]);
    EXPECT_EQ(h.hand_sizes_size(), 3);
    for (int s = 0; s < 3; ++s) EXPECT_EQ(h.hand_sizes(s), start.deal.hands[s].size());
    EXPECT_EQ(h.boneyard_size(), start.deal.boneyard_size);
    EXPECT_EQ(h.opener_seat(), static_cast<uint32_t>(start.seat));
    EXPECT_EQ(h.scores_size(), 3);
  }
}

TEST(SeatEvent, AnotherSeatsDrawIsOnlyACountAndTheDrawerGetsTheDrawingOrder) {
  Event draw;
  draw.kind = EventKind::kDraw;
  draw.seat = 1;
  draw.count = 2;
  draw.tiles.add(Tile::of(6, 6));
  draw.tiles.add(Tile::of(0, 1));
  draw.drawn[0] = Tile::of(6, 6);
  draw.drawn[1] = Tile::of(0, 1);
  const std::vector<int> scores = {0, 0};

  const v1::Event other = wire::seat_event(draw, 0, Format::kTwoPlayers, scores);
  ASSERT_TRUE(other.has_draw());
  EXPECT_EQ(other.draw().count(), 2u);
  EXPECT_EQ(other.draw().tiles_size(), 0);

  const v1::Event mine = wire::seat_event(draw, 1, Format::kTwoPlayers, scores);
  ASSERT_EQ(mine.draw().tiles_size(), 2);
  EXPECT_EQ(mine.draw().tiles(0).high(), 6u);  // drawn first, though the set sorts it last
  EXPECT_EQ(mine.draw().tiles(1).high(), 1u);
}

TEST(SeatEvent, HandEndRevealsEveryHandWithItsPips) {
  Event end;
  end.kind = EventKind::kHandEnd;
  end.reason = static_cast<uint8_t>(HandEndKind::kBlocked);
  end.seat = -1;
  end.side = 1;
  end.points = 10;
  end.hands[0].add(Tile::of(6, 5));
  end.hands[1].add(Tile::of(1, 0));
  end.values = {11, 1};
  const std::vector<int> scores = {40, 55};
  const v1::Event m = wire::seat_event(end, 1, Format::kTwoPlayers, scores);
  ASSERT_TRUE(m.has_hand_end());
  const v1::HandEnd& h = m.hand_end();
  EXPECT_EQ(h.kind(), v1::HAND_END_KIND_BLOCKED);
  EXPECT_EQ(h.domino_seat(), -1);
  EXPECT_EQ(h.winner_side(), 1);
  EXPECT_EQ(h.points(), 10u);
  ASSERT_EQ(h.hands_size(), 2);
  EXPECT_EQ(tiles_of(h.hands(0).tiles()), end.hands[0]);  // the other seat's hand, shown
  EXPECT_EQ(h.hands(0).pips(), 11u);
  EXPECT_EQ(h.scores(1), 55u);
}

// bot.proto "The line and the count": an opening double shows its value at both ends, crosswise
// at both, until a tile covers a side; tiles are sent high half first.
TEST(TurnRequest, OpeningDoubleShowsAtBothEndsUntilCovered) {
  const Tile five_five = Tile::of(5, 5), five_zero = Tile::of(5, 0);
  Position p;
  p.config = Config::standard(Format::kTwoPlayers);
  p.hands[0].add(Tile::of(0, 1));
  p.hands[0].add(Tile::of(2, 3));
  p.hands[1].add(five_zero);
  p.hands[1].add(Tile::of(6, 6));
  for (Tile t : TileSet::all() - p.hands[0] - p.hands[1]) {
    if (t != five_five) p.boneyard[p.boneyard_size++] = t;
  }
  p.line[p.line_size++] = LinePlay{five_five, 0, End::kLeft};
  p.seat_to_move = 1;
  State state = State::new_match(p.config, 1);
  std::string error;
  ASSERT_TRUE(State::from_position(p, 1, state, &error)) << error;

  v1::TurnRequest opened;
  wire::fill_turn_request(state.view(1), &opened);
  EXPECT_EQ(opened.left_end().value(), 5u);
  EXPECT_TRUE(opened.left_end().is_double());
  EXPECT_EQ(opened.right_end().value(), 5u);
  EXPECT_TRUE(opened.right_end().is_double());
  EXPECT_EQ(opened.end_count(), 10u);  // a lone tile: all its pips
  ASSERT_EQ(opened.line_size(), 1);
  EXPECT_EQ(opened.line(0).end(), v1::END_LEFT);

  ASSERT_EQ(state.apply(Play{five_zero, End::kRight}), PlayError::kNone);
  v1::TurnRequest covered;
  wire::fill_turn_request(state.view(0), &covered);
  EXPECT_EQ(covered.left_end().value(), 5u);
  EXPECT_TRUE(covered.left_end().is_double());  // the opener still lies crosswise there
  EXPECT_EQ(covered.right_end().value(), 0u);
  EXPECT_FALSE(covered.right_end().is_double());
  EXPECT_EQ(covered.end_count(), 10u);  // 5 + 5 + 0
  ASSERT_EQ(covered.line_size(), 2);
  EXPECT_EQ(covered.line(1).tile().high(), 5u);  // high half first, whatever the orientation
  EXPECT_EQ(covered.line(1).tile().low(), 0u);
}

// A line tile reads as a play's tile and end (the opening tile's end may be unspecified) plus
// who played it; one that names no tile is refused, as a play that names none is.
TEST(LineTile, ReadsAsAPlayWithItsSeatAndNeedsATile) {
  v1::LineTile m;
  m.mutable_tile()->set_high(6);
  m.mutable_tile()->set_low(2);
  m.set_seat(1);
  m.set_end(v1::END_RIGHT);
  LinePlay out;
  std::string error;
  ASSERT_TRUE(wire::from_proto(m, out, &error)) << error;
  EXPECT_EQ(out.tile, Tile::of(6, 2));
  EXPECT_EQ(out.seat, 1);
  EXPECT_EQ(out.end, End::kRight);

  m.set_end(v1::END_UNSPECIFIED);
  ASSERT_TRUE(wire::from_proto(m, out, &error)) << error;
  EXPECT_EQ(out.end, End::kLeft);

  m.set_seat(kMaxPlayers);
  EXPECT_FALSE(wire::from_proto(m, out, &error));
  EXPECT_EQ(error, "line tile seat out of range");

  m.set_seat(0);
  m.clear_tile();
  EXPECT_FALSE(wire::from_proto(m, out, &error));
  EXPECT_EQ(error, "the play names no tile");
}

}  // namespace
}  // namespace allfives
