// docs/RULES.md §4 "Who opens a hand": the highest double, else the heaviest tile (higher half
// breaks a tie in pips), and the player who went out choosing freely.
#include <gtest/gtest.h>

#include <string>

#include "allfives/core/deal.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::kBlockingPlay;
using test::L;
using test::PositionBuilder;
using test::R;
using test::S;
using test::six_block;
using test::T;

using Hands = std::array<TileSet, kMaxPlayers>;

// The first seed >= `from` whose hand `hand_index` deal holds no double in any hand.
uint64_t seed_without_double(Format f, int hand_index, uint64_t from = 0) {
  for (uint64_t seed = from; seed < from + 200000; ++seed)
    if (find_opener(f, deal_hand(f, seed, hand_index).hands).rule == OpenRule::kHeaviestTile)
      return seed;
  ADD_FAILURE() << "no deal without a double found";
  return 0;
}

// ---- find_opener ------------------------------------------------------------------------------

TEST(RulesExamples, Example16_HighestDoubleOpens) {
  const Hands h = {S({T(3, 3), T(6, 5)}), S({T(5, 5), T(0, 1)}), S({T(4, 4), T(6, 4)}), {}};
  const Opener o = find_opener(Format::kThreePlayers, h);
  EXPECT_EQ(o.seat, 1);
  EXPECT_EQ(o.tile, T(5, 5));
  EXPECT_EQ(o.rule, OpenRule::kHighestDouble);
}

TEST(FindOpener, DoubleSixAlwaysOpensWhenDealt) {
  for (int holder = 0; holder < 4; ++holder) {
    Hands h = {S({T(5, 5)}), S({T(4, 4)}), S({T(3, 3)}), S({T(2, 2)})};
    h[holder].add(T(6, 6));
    const Opener o = find_opener(Format::kFourPlayers, h);
    EXPECT_EQ(o.seat, holder);
    EXPECT_EQ(o.tile, T(6, 6));
  }
}

TEST(FindOpener, DoubleBlankBeatsTheHeaviestTile) {
  // Any double, even 0-0, comes before the heaviest non-double.
  const Hands h = {S({T(6, 5), T(6, 4)}), S({T(5, 4)}), S({T(0, 0), T(1, 2)}), {}};
  const Opener o = find_opener(Format::kThreePlayers, h);
  EXPECT_EQ(o.seat, 2);
  EXPECT_EQ(o.tile, T(0, 0));
  EXPECT_EQ(o.rule, OpenRule::kHighestDouble);
}

TEST(FindOpener, HeaviestTileWhenNobodyHoldsADouble) {
  const Hands h = {S({T(6, 4), T(1, 2)}), S({T(6, 5), T(0, 1)}), S({T(3, 4)}), {}};
  const Opener o = find_opener(Format::kThreePlayers, h);
  EXPECT_EQ(o.seat, 1);
  EXPECT_EQ(o.tile, T(6, 5));
  EXPECT_EQ(o.rule, OpenRule::kHeaviestTile);
}

TEST(RulesExamples, Example17_HeaviestTileOpensHigherHalfBreaksTies) {
  // 6-3 before 5-4 (9 pips each), whichever seat comes first.
  Hands h = {S({T(5, 4), T(0, 1)}), S({T(6, 3), T(0, 2)}), {}, {}};
  Opener o = find_opener(Format::kTwoPlayers, h);
  EXPECT_EQ(o.seat, 1);
  EXPECT_EQ(o.tile, T(6, 3));
  EXPECT_EQ(o.rule, OpenRule::kHeaviestTile);
  h = {S({T(6, 3), T(0, 1)}), S({T(5, 4), T(0, 2)}), {}, {}};
  o = find_opener(Format::kTwoPlayers, h);
  EXPECT_EQ(o.seat, 0);
  EXPECT_EQ(o.tile, T(6, 3));
  // Three tiles of 7 pips: 6-1 before 5-2 before 4-3, in any seat order.
  h = {S({T(4, 3)}), S({T(5, 2)}), S({T(6, 1)}), {}};
  o = find_opener(Format::kThreePlayers, h);
  EXPECT_EQ(o.seat, 2);
  EXPECT_EQ(o.tile, T(6, 1));
  h = {S({T(4, 3)}), S({T(5, 2)}), S({T(0, 1)}), {}};
  o = find_opener(Format::kThreePlayers, h);
  EXPECT_EQ(o.seat, 1);
  EXPECT_EQ(o.tile, T(5, 2));
}

TEST(FindOpener, HigherHalfWithinOneHand) {
  const Hands h = {S({T(5, 3), T(6, 2), T(4, 1)}), S({T(0, 1)}), {}, {}};
  const Opener o = find_opener(Format::kTwoPlayers, h);
  EXPECT_EQ(o.seat, 0);
  EXPECT_EQ(o.tile, T(6, 2));
}

TEST(FindOpener, MorePipsBeatAHigherHalf) {
  // 5-4 (9) before 6-2 (8).
  const Hands h = {S({T(6, 2)}), S({T(5, 4)}), {}, {}};
  EXPECT_EQ(find_opener(Format::kTwoPlayers, h).tile, T(5, 4));
}

// ---- The first hand through State::new_match
// -----------------------------------------------------

TEST(Opener, FirstHandHighestDoubleMustOpen) {
  for (Format f : kAllFormats) {
    for (uint64_t seed = 0; seed < 300; ++seed) {
      EventList ev;
      const State s = State::new_match(Config::standard(f), seed, &ev);
      const Deal d = deal_hand(f, seed, 0);
      const Opener o = find_opener(f, d.hands);
      ASSERT_EQ(s.seat_to_move(), o.seat);
      ASSERT_EQ(s.open_rule(), o.rule);
      ASSERT_TRUE(s.hand(o.seat).contains(o.tile));
      const PlayList legal = s.legal_plays();
      ASSERT_EQ(legal.size(), 1);
      ASSERT_EQ(legal[0].tile, o.tile);
      ASSERT_EQ(ev.size(), 1);
      EXPECT_EQ(ev[0].kind, EventKind::kHandStart);
      EXPECT_EQ(ev[0].seat, o.seat);
      EXPECT_EQ(ev[0].open_with, o.tile);
      EXPECT_EQ(ev[0].reason, static_cast<uint8_t>(o.rule));
      if (o.rule == OpenRule::kHighestDouble) {
        // No higher double is dealt to anyone.
        for (int v = o.tile.hi() + 1; v <= kMaxPips; ++v)
          for (int seat = 0; seat < num_players(f); ++seat)
            ASSERT_FALSE(d.hands[seat].contains(T(v, v)));
      }
    }
  }
}

TEST(Opener, FirstHandWithoutDoubleHeaviestTileMustOpen) {
  for (Format f : {Format::kTwoPlayers, Format::kThreePlayers}) {
    const uint64_t seed = seed_without_double(f, 0);
    const State s = State::new_match(Config::standard(f), seed);
    const Opener o = find_opener(f, deal_hand(f, seed, 0).hands);
    ASSERT_EQ(o.rule, OpenRule::kHeaviestTile);
    EXPECT_EQ(s.open_rule(), OpenRule::kHeaviestTile);
    EXPECT_EQ(s.seat_to_move(), o.seat);
    // The tile is the heaviest of all dealt tiles.
    for (int seat = 0; seat < num_players(f); ++seat)
      for (Tile t : s.hand(seat)) {
        EXPECT_FALSE(t.is_double());
        EXPECT_LE(t.pips(), o.tile.pips());
      }
    ASSERT_EQ(s.legal_plays().size(), 1);
    EXPECT_EQ(s.legal_plays()[0].tile, o.tile);
  }
}

TEST(Opener, ForcedOpenerOnlyLegalPlayAndOtherTilesRefused) {
  for (Format f : kAllFormats) {
    State s = State::new_match(Config::standard(f), 11);
    const State before = s;
    const int seat = s.seat_to_move();
    const Tile must = s.legal_plays()[0].tile;
    for (Tile t : s.hand(seat)) {
      for (End e : {End::kLeft, End::kRight}) {
        if (t == must) {
          EXPECT_EQ(s.check(Play{t, e}), PlayError::kNone);
          continue;
        }
        EXPECT_EQ(s.check(Play{t, e}), PlayError::kMustOpenWith) << to_string(t);
        EventList ev;
        EXPECT_EQ(s.apply(Play{t, e}, &ev), PlayError::kMustOpenWith);
        EXPECT_EQ(ev.size(), 0);
        EXPECT_EQ(s, before);
      }
    }
    // A tile the opener does not hold is refused as such, even the one it should open with.
    for (Tile t : TileSet::all() - s.hand(seat))
      EXPECT_EQ(s.check(L(t)), PlayError::kNotInHand) << to_string(t);
  }
}

TEST(Opener, OpeningPlaysEndIsIgnored) {
  State s = State::new_match(Config::standard(Format::kTwoPlayers), 5);
  const Tile must = s.legal_plays()[0].tile;
  EventList ev;
  ASSERT_EQ(s.apply(R(must), &ev), PlayError::kNone);
  EXPECT_EQ(s.line().size(), 1);
  EXPECT_EQ(s.line()[0].tile, must);
  EXPECT_EQ(s.line()[0].end, End::kLeft);
  EXPECT_EQ(ev[0].play, L(must));
}

// ---- After a block -----------------------------------------------------------------------------

TEST(Opener, AfterABlockHighestDoubleOpens) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    State s = six_block(Format::kThreePlayers)
                  .hand(0, {T(0, 1), T(0, 2)})
                  .hand(1, {T(1, 3), T(4, 5)})
                  .rest_to_hand(2)
                  .build(seed);
    EventList ev;
    ASSERT_EQ(s.apply(kBlockingPlay, &ev), PlayError::kNone);
    ASSERT_EQ(ev[ev.size() - 1].kind, EventKind::kHandStart);
    const Opener o =
        find_opener(Format::kThreePlayers, deal_hand(Format::kThreePlayers, seed, 1).hands);
    EXPECT_EQ(s.hand_index(), 1);
    EXPECT_EQ(s.seat_to_move(), o.seat);
    EXPECT_EQ(s.open_rule(), o.rule);
    ASSERT_EQ(s.legal_plays().size(), 1);
    EXPECT_EQ(s.legal_plays()[0].tile, o.tile);
    EXPECT_EQ(ev[ev.size() - 1].open_with, o.tile);
  }
}

TEST(Opener, AfterABlockWithoutDoublesHeaviestTileOpens) {
  const uint64_t seed = seed_without_double(Format::kTwoPlayers, 1);
  State s = six_block(Format::kTwoPlayers)
                .hand(0, {T(0, 0), T(0, 1), T(0, 2), T(0, 3), T(0, 4), T(1, 1)})
                .rest_to_hand(1)
                .build(seed);
  ASSERT_EQ(s.apply(kBlockingPlay), PlayError::kNone);
  const Opener o = find_opener(Format::kTwoPlayers, deal_hand(Format::kTwoPlayers, seed, 1).hands);
  ASSERT_EQ(o.rule, OpenRule::kHeaviestTile);
  EXPECT_EQ(s.open_rule(), OpenRule::kHeaviestTile);
  EXPECT_EQ(s.seat_to_move(), o.seat);
  ASSERT_EQ(s.legal_plays().size(), 1);
  EXPECT_EQ(s.legal_plays()[0].tile, o.tile);
}

TEST(Opener, AfterATiedBlockHighestDoubleOpensToo) {
  State s = six_block(Format::kTwoPlayers)
                .hand(0, {T(5, 5), T(4, 5), T(4, 4), T(3, 5), T(2, 5), T(0, 3)})
                .rest_to_hand(1)
                .build(3);
  ASSERT_EQ(s.apply(kBlockingPlay), PlayError::kNone);
  const Opener o = find_opener(Format::kTwoPlayers, deal_hand(Format::kTwoPlayers, 3, 1).hands);
  EXPECT_EQ(s.seat_to_move(), o.seat);
  EXPECT_EQ(s.open_rule(), o.rule);
}

// ---- After a domino --------------------------------------------------------------------------

TEST(Opener, PlayerWhoWentOutChoosesFreely) {
  for (Format f : kAllFormats) {
    for (int out = 0; out < num_players(f); ++out) {
      // `out` plays its last tile 2-4 on the 1-2 line; everybody else keeps a tile.
      PositionBuilder b(f);
      b.play((out + 1) % num_players(f), T(1, 2)).hand(out, {T(2, 4)}).to_move(out);
      for (int seat = 0; seat < num_players(f); ++seat)
        if (seat != out) b.hand(seat, {*b.unplaced().begin()});
      State s = b.rest_to_boneyard().build(17);
      EventList ev;
      ASSERT_EQ(s.apply(R(T(2, 4)), &ev), PlayError::kNone);
      ASSERT_FALSE(s.is_terminal());
      EXPECT_EQ(s.hand_index(), 1);
      EXPECT_EQ(s.seat_to_move(), out);
      EXPECT_EQ(s.open_rule(), OpenRule::kWinnerChooses);
      const TileSet hand = s.hand(out);
      const PlayList legal = s.legal_plays();
      ASSERT_EQ(legal.size(), hand.size());
      int i = 0;
      for (Tile t : hand) {
        EXPECT_EQ(legal[i++].tile, t);
        EXPECT_EQ(s.check(L(t)), PlayError::kNone);
        EXPECT_EQ(s.check(R(t)), PlayError::kNone);
        State copy = s;
        EXPECT_EQ(copy.apply(L(t)), PlayError::kNone);
      }
      EXPECT_EQ(ev[ev.size() - 1].kind, EventKind::kHandStart);
      EXPECT_EQ(ev[ev.size() - 1].seat, out);
      EXPECT_EQ(ev[ev.size() - 1].reason, static_cast<uint8_t>(OpenRule::kWinnerChooses));
    }
  }
}

TEST(Opener, WinnerMayOpenWithALowTileDespiteDoubles) {
  // Seat 1 went out; in the next position it holds 6-6 yet may open 0-1.
  State s = PositionBuilder(Format::kTwoPlayers)
                .hand(1, {T(6, 6), T(0, 1), T(5, 5)})
                .hand(0, {T(4, 4), T(3, 3)})
                .rest_to_boneyard()
                .open_rule(OpenRule::kWinnerChooses)
                .to_move(1)
                .build();
  EXPECT_EQ(s.legal_plays().size(), 3);
  ASSERT_EQ(s.apply(L(T(0, 1))), PlayError::kNone);
  EXPECT_EQ(s.line()[0].tile, T(0, 1));
}

// ---- Positions that name the wrong opener ------------------------------------------------------

TEST(Opener, FromPositionRejectsTheWrongForcedOpener) {
  PositionBuilder b(Format::kTwoPlayers);
  b.hand(0, {T(5, 5), T(1, 2)}).hand(1, {T(6, 6), T(0, 1)}).rest_to_boneyard();
  b.open_rule(OpenRule::kHighestDouble).to_move(0);
  State s = State::new_match(Config::standard(Format::kTwoPlayers), 0);
  std::string error;
  EXPECT_FALSE(State::from_position(b.position(), 0, s, &error));
  EXPECT_FALSE(error.empty());
  b.to_move(1);
  EXPECT_TRUE(State::from_position(b.position(), 0, s, &error)) << error;
  EXPECT_EQ(s.legal_plays().size(), 1);
  EXPECT_EQ(s.legal_plays()[0].tile, T(6, 6));
  // Heaviest tile named while a double is out.
  b.open_rule(OpenRule::kHeaviestTile);
  EXPECT_FALSE(State::from_position(b.position(), 0, s, &error));
}

}  // namespace
}  // namespace allfives
