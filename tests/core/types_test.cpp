// docs/RULES.md §2 "Seats and sides": the double-six set, tile sets, formats, seats and sides.
#include <gtest/gtest.h>

#include <set>

#include "allfives/core/types.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::T;

TEST(Tiles, TheSetHasTwentyEightTilesWithZeroToSixPips) {
  std::set<std::pair<int, int>> seen;
  int pips = 0;
  for (Tile t : TileSet::all()) {
    EXPECT_LE(0, t.lo());
    EXPECT_LE(t.lo(), t.hi());
    EXPECT_LE(t.hi(), 6);
    seen.insert({t.lo(), t.hi()});
    pips += t.pips();
  }
  EXPECT_EQ(seen.size(), 28u);
  EXPECT_EQ(TileSet::all().size(), 28);
  EXPECT_EQ(pips, 168);
  EXPECT_EQ(TileSet::all().pips(), 168);
}

TEST(Tiles, IndexOrderAndEitherHalfOrder) {
  int i = 0;
  for (int a = 0; a <= 6; ++a) {
    for (int b = a; b <= 6; ++b) {
      EXPECT_EQ(Tile::of(a, b).index(), i);
      EXPECT_EQ(Tile::of(b, a), Tile::of(a, b));
      EXPECT_EQ(Tile::from_index(i), Tile::of(a, b));
      ++i;
    }
  }
}

TEST(Tiles, PipsDoublesHalves) {
  EXPECT_EQ(T(6, 4).pips(), 10);
  EXPECT_EQ(T(6, 4).lo(), 4);
  EXPECT_EQ(T(6, 4).hi(), 6);
  EXPECT_FALSE(T(6, 4).is_double());
  EXPECT_TRUE(T(5, 5).is_double());
  EXPECT_TRUE(T(0, 0).is_double());
  EXPECT_TRUE(T(6, 4).has(4));
  EXPECT_TRUE(T(6, 4).has(6));
  EXPECT_FALSE(T(6, 4).has(5));
  EXPECT_EQ(T(6, 4).other(6), 4);
  EXPECT_EQ(T(6, 4).other(4), 6);
  EXPECT_EQ(T(3, 3).other(3), 3);
}

TEST(Tiles, NamesAndParsing) {
  EXPECT_EQ(to_string(T(4, 6)), "6-4");
  EXPECT_EQ(to_string(T(0, 0)), "0-0");
  EXPECT_EQ(to_string(Play{T(6, 4), End::kLeft}), "6-4@L");
  EXPECT_EQ(to_string(Play{T(6, 4), End::kRight}), "6-4@R");
  Tile t;
  ASSERT_TRUE(parse_tile("6-4", t));
  EXPECT_EQ(t, T(6, 4));
  ASSERT_TRUE(parse_tile("4-6", t));
  EXPECT_EQ(t, T(6, 4));
  for (const char* bad : {"7-1", "6-", "64", "a-b", "6-4 ", "", "-1-2", "6_4"})
    EXPECT_FALSE(parse_tile(bad, t)) << bad;
  for (Tile u : TileSet::all()) {
    ASSERT_TRUE(parse_tile(to_string(u), t));
    EXPECT_EQ(t, u);
  }
}

TEST(TileSets, SuitsHoldSevenTilesEach) {
  for (int v = 0; v <= 6; ++v) {
    const TileSet s = TileSet::suit(v);
    EXPECT_EQ(s.size(), 7);
    for (Tile t : TileSet::all()) EXPECT_EQ(s.contains(t), t.has(v));
  }
}

TEST(TileSets, AddRemoveAndSetOperations) {
  TileSet s;
  EXPECT_TRUE(s.empty());
  s.add(T(6, 6));
  s.add(T(1, 2));
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.pips(), 15);
  EXPECT_TRUE(s.contains(T(2, 1)));
  s.remove(T(6, 6));
  EXPECT_EQ(s, test::S({T(1, 2)}));
  const TileSet a = test::S({T(0, 1), T(0, 2)}), b = test::S({T(0, 2), T(0, 3)});
  EXPECT_EQ(a & b, test::S({T(0, 2)}));
  EXPECT_EQ(a | b, test::S({T(0, 1), T(0, 2), T(0, 3)}));
  EXPECT_EQ(a - b, test::S({T(0, 1)}));
  EXPECT_EQ(TileSet::from_bits(0xFFFFFFFFu), TileSet::all());
}

TEST(Formats, SeatsSidesAndPartners) {
  EXPECT_EQ(num_players(Format::kTwoPlayers), 2);
  EXPECT_EQ(num_players(Format::kThreePlayers), 3);
  EXPECT_EQ(num_players(Format::kFourPlayers), 4);
  EXPECT_EQ(num_players(Format::kPartnerships), 4);
  EXPECT_EQ(num_sides(Format::kPartnerships), 2);
  EXPECT_EQ(num_sides(Format::kFourPlayers), 4);
  // Partners sit opposite: seats 0 and 2 are one side, 1 and 3 the other.
  EXPECT_EQ(side_of(Format::kPartnerships, 0), 0);
  EXPECT_EQ(side_of(Format::kPartnerships, 1), 1);
  EXPECT_EQ(side_of(Format::kPartnerships, 2), 0);
  EXPECT_EQ(side_of(Format::kPartnerships, 3), 1);
  EXPECT_EQ(partner_of(Format::kPartnerships, 0), 2);
  EXPECT_EQ(partner_of(Format::kPartnerships, 3), 1);
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_EQ(side_of(Format::kFourPlayers, seat), seat);
    EXPECT_EQ(partner_of(Format::kFourPlayers, seat), -1);
  }
}

TEST(Formats, NamesRoundTrip) {
  for (Format f : kAllFormats) {
    Format g;
    ASSERT_TRUE(parse_format(to_string(f), g));
    EXPECT_EQ(g, f);
  }
  Format g;
  EXPECT_TRUE(parse_format("partnerships", g));
  EXPECT_EQ(g, Format::kPartnerships);
  EXPECT_FALSE(parse_format("5p", g));
}

}  // namespace
}  // namespace allfives
