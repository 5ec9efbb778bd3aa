// docs/RULES.md §5 "Plays and the line" and §8 "Drawing and passing": drawing until a playable
// tile, passing only with an empty boneyard, every boneyard tile drawable, and a block when nobody
// can play. Drawing is done by apply().
#include <gtest/gtest.h>

#include <vector>

#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::for_each_format_match;
using test::kBlockingPlay;
using test::kinds;
using test::L;
using test::of_kind;
using test::PositionBuilder;
using test::R;
using test::S;
using test::six_block;
using test::T;

// Line 3-3 (crosswise); seat 0 plays 3-4 on the right: ends 3-3 and 4 (count 10). Seat 1 holds
// 0-0 and 1-1, which fit neither; the boneyard starts 0-1, 2-2, 6-4.
PositionBuilder draw_three() {
  PositionBuilder b(Format::kTwoPlayers);
  b.play(1, T(3, 3)).hand(0, {T(3, 4), T(5, 5)}).hand(1, {T(0, 0), T(1, 1)}).to_move(0);
  b.boneyard({T(0, 1), T(2, 2), T(6, 4)});
  return b;
}

TEST(RulesExamples, Example18_DrawUntilATileFits) {
  State s = draw_three().rest_to_boneyard().build();
  const int bone_before = s.boneyard_size();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw}));
  EXPECT_EQ(ev[1].seat, 1);
  EXPECT_EQ(ev[1].count, 3);
  EXPECT_EQ(ev[1].tiles, S({T(0, 1), T(2, 2), T(6, 4)}));
  EXPECT_EQ(s.boneyard_size(), bone_before - 3);
  EXPECT_EQ(s.hand(1), S({T(0, 0), T(1, 1), T(0, 1), T(2, 2), T(6, 4)}));
  EXPECT_FALSE(s.boneyard().contains(T(6, 4)));
  EXPECT_EQ(s.seat_to_move(), 1);
  // The drawn 6-4 is the one tile that fits, on the 4 only.
  ASSERT_EQ(s.legal_plays().size(), 1);
  EXPECT_EQ(s.legal_plays()[0], R(T(6, 4)));
}

TEST(Drawing, DrawnTileIsThenTheOnlyLegalPlay) {
  State s = draw_three().rest_to_boneyard().build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  const PlayList legal = s.legal_plays();
  ASSERT_EQ(legal.size(), 1);
  EXPECT_EQ(legal[0], R(T(6, 4)));
  for (Tile t : S({T(0, 0), T(1, 1), T(0, 1), T(2, 2)})) {
    EXPECT_EQ(s.check(L(t)), PlayError::kDoesNotFit);
    EXPECT_EQ(s.check(R(t)), PlayError::kDoesNotFit);
  }
  EXPECT_EQ(s.check(L(T(6, 4))), PlayError::kDoesNotFit);
}

TEST(Drawing, DrawnTileFittingBothEndsMayGoOnEither) {
  // Line 2-3; seat 0 plays 3-4 on the 3: ends 2 and 4. Seat 1 draws 1-1 then 2-4.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(2, 3))
                .hand(0, {T(3, 4), T(5, 5)})
                .hand(1, {T(0, 0)})
                .boneyard({T(1, 1), T(2, 4)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  const PlayList legal = s.legal_plays();
  ASSERT_EQ(legal.size(), 2);
  EXPECT_EQ(legal[0], L(T(2, 4)));
  EXPECT_EQ(legal[1], R(T(2, 4)));
}

TEST(Drawing, SeatWithAPlayableTileNeverDraws) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(3, 3))
                .hand(0, {T(3, 4), T(5, 5)})
                .hand(1, {T(0, 0), T(4, 1)})
                .rest_to_boneyard()
                .to_move(0)
                .build();
  const int bone_before = s.boneyard_size();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  EXPECT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay}));
  EXPECT_EQ(s.boneyard_size(), bone_before);
  EXPECT_EQ(s.hand(1), S({T(0, 0), T(4, 1)}));
  EXPECT_EQ(s.seat_to_move(), 1);
  // Seat 1 must play; it cannot draw or pass: the only decisions are its plays.
  ASSERT_EQ(s.legal_plays().size(), 1);
  EXPECT_EQ(s.legal_plays()[0], R(T(4, 1)));
}

TEST(Drawing, PassesWhenTheBoneyardIsEmpty) {
  // Boneyard empty; seat 1 cannot play and passes without drawing; seat 0 plays again.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(3, 3))
                .hand(1, {T(0, 0), T(1, 1)})
                .hand(0, {T(3, 4)})
                .rest_to_hand(0)
                .to_move(0)
                .build();
  ASSERT_EQ(s.boneyard_size(), 0);
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kPass}));
  EXPECT_EQ(ev[1].seat, 1);
  EXPECT_EQ(s.hand(1), S({T(0, 0), T(1, 1)}));
  EXPECT_EQ(s.seat_to_move(), 0);
}

TEST(Drawing, PassesOnlyAfterDrawingTheWholeBoneyard) {
  // No tile of the boneyard fits: seat 1 draws all three, then passes; seat 0 plays again.
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(3, 3))
                .hand(0, {T(3, 4)})
                .hand(1, {T(0, 0)})
                .boneyard({T(0, 1), T(1, 1), T(2, 2)})
                .rest_to_hand(0)
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw, EventKind::kPass}));
  EXPECT_EQ(ev[1].count, 3);
  EXPECT_EQ(ev[1].tiles, S({T(0, 1), T(1, 1), T(2, 2)}));
  EXPECT_EQ(ev[2].seat, 1);
  EXPECT_EQ(s.boneyard_size(), 0);
  EXPECT_EQ(s.hand(1), S({T(0, 0), T(0, 1), T(1, 1), T(2, 2)}));
  EXPECT_EQ(s.seat_to_move(), 0);
}

TEST(Drawing, EveryBoneyardTileCanBeDrawn) {
  // Ends 3-3 and 4 after seat 0's play. The boneyard holds the 14 tiles without a 3 or 4
  // (bar seat 1's 0-0) plus one playable tile at position k; seat 1 draws k + 1 tiles.
  const TileSet fits = TileSet::suit(3) | TileSet::suit(4);
  const TileSet dead = TileSet::all() - fits - S({T(0, 0)});
  ASSERT_EQ(dead.size(), 14);
  for (int k = 0; k <= dead.size(); ++k) {
    PositionBuilder b(Format::kTwoPlayers);
    b.play(1, T(3, 3)).hand(0, {T(3, 4), T(3, 5)}).hand(1, {T(0, 0)}).to_move(0);
    int i = 0;
    for (Tile t : dead) {
      if (i++ == k) b.boneyard({T(6, 4)});
      b.boneyard({t});
    }
    if (k == dead.size()) b.boneyard({T(6, 4)});
    State s = b.rest_to_hand(0).build();
    ASSERT_EQ(s.boneyard_size(), 15);
    EventList ev;
    ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
    ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw})) << k;
    EXPECT_EQ(ev[1].count, k + 1);
    EXPECT_TRUE(ev[1].tiles.contains(T(6, 4)));
    EXPECT_EQ(s.boneyard_size(), 15 - (k + 1));
    EXPECT_EQ(s.seat_to_move(), 1);
    ASSERT_EQ(s.legal_plays().size(), 1);
    EXPECT_EQ(s.legal_plays()[0], R(T(6, 4)));
  }
}

TEST(Drawing, SeveralSeatsDrawAndPassInTurn) {
  // Four players: seat 1 draws the last two tiles and passes, seat 2 passes without drawing,
  // seat 3 plays.
  State s = PositionBuilder(Format::kFourPlayers)
                .play(3, T(3, 3))
                .hand(0, {T(3, 4), T(5, 5)})
                .hand(1, {T(0, 0)})
                .hand(2, {T(2, 2)})
                .boneyard({T(0, 1), T(1, 1)})
                .rest_to_hand(3)
                .to_move(0)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw, EventKind::kPass,
                                               EventKind::kPass}));
  EXPECT_EQ(ev[1].seat, 1);
  EXPECT_EQ(ev[1].count, 2);
  EXPECT_EQ(ev[2].seat, 1);
  EXPECT_EQ(ev[3].seat, 2);
  EXPECT_EQ(s.seat_to_move(), 3);
  EXPECT_EQ(s.hand(2), S({T(2, 2)}));
}

TEST(Drawing, BlockDetectedWhenNobodyCanPlayAfterTheBoneyardIsDrawn) {
  // No six is left: seat 1 draws 0-2 and 0-3, passes, and nobody can play.
  State s = six_block(Format::kTwoPlayers)
                .hand(0, {T(0, 0), T(0, 1)})
                .boneyard({T(0, 2), T(0, 3)})
                .rest_to_hand(1)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev), (std::vector<EventKind>{EventKind::kPlay, EventKind::kDraw, EventKind::kPass,
                                               EventKind::kHandEnd, EventKind::kHandStart}));
  EXPECT_EQ(ev[1].count, 2);
  const Event& end = ev[3];
  EXPECT_EQ(end.reason, static_cast<uint8_t>(HandEndKind::kBlocked));
  EXPECT_EQ(end.values[0], 1);
  EXPECT_EQ(end.values[1], 90 - 1);
  EXPECT_TRUE(end.hands[1].contains(T(0, 2)));
  EXPECT_EQ(end.side, 0);
  EXPECT_EQ(end.points, round5(89) - round5(1));
  EXPECT_EQ(s.score(0), 90);
}

TEST(Drawing, BlockDetectedWithTheBoneyardAlreadyEmpty) {
  State s = six_block(Format::kThreePlayers)
                .hand(0, {T(0, 0)})
                .hand(1, {T(0, 1)})
                .rest_to_hand(2)
                .build();
  EventList ev;
  ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
  ASSERT_EQ(kinds(ev),
            (std::vector<EventKind>{EventKind::kPlay, EventKind::kHandEnd, EventKind::kHandStart}));
  EXPECT_EQ(ev[1].reason, static_cast<uint8_t>(HandEndKind::kBlocked));
}

TEST(Drawing, DrawEventCountsMatchTheTilesDrawn) {
  State s = draw_three().rest_to_boneyard().build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  for (const Event& e : of_kind(ev, EventKind::kDraw)) {
    EXPECT_EQ(e.count, e.tiles.size());
    EXPECT_GT(e.count, 0);
  }
}

// The log and the drawer are told the order tiles came off the boneyard, which the set `tiles`
// does not keep: the event carries it.
TEST(Drawing, DrawEventListsTheTilesInDrawingOrder) {
  State s = draw_three().rest_to_boneyard().build();
  EventList ev;
  ASSERT_EQ(s.apply(R(T(3, 4)), &ev), PlayError::kNone);
  ASSERT_EQ(ev[1].kind, EventKind::kDraw);
  EXPECT_EQ(std::vector<Tile>(ev[1].drawn_in_order().begin(), ev[1].drawn_in_order().end()),
            (std::vector<Tile>{T(0, 1), T(2, 2), T(6, 4)}));
  // Another seat sees only the count.
  const Event other = seen_by(ev[1], 0);
  EXPECT_EQ(other.count, 3);
  for (Tile t : other.drawn) EXPECT_EQ(t, Tile{});
}

// Over whole matches in every format: each draw's tiles are the next ones of its hand's deal.
TEST(Drawing, DrawEventsFollowTheDealsBoneyardInEveryFormat) {
  for_each_format_match(99, [](Format, const std::vector<EventList>& batches) {
    Deal deal;
    int next = 0, draws = 0;
    for (const EventList& ev : batches) {
      for (const Event& e : ev) {
        if (e.kind == EventKind::kHandStart) {
          deal = e.deal;
          next = 0;
        } else if (e.kind == EventKind::kDraw) {
          ASSERT_LE(next + e.count, deal.boneyard_size);
          for (int i = 0; i < e.count; ++i)
            EXPECT_EQ(e.drawn_in_order()[static_cast<size_t>(i)], deal.boneyard[next + i]);
          next += e.count;
          ++draws;
        }
      }
    }
    EXPECT_GT(draws, 0);
  });
}

}  // namespace
}  // namespace allfives
