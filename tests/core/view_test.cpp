// docs/RULES.md §15 "What a bot may see": a seat's own hand, other seats only as counts, legal
// plays only for the seat to move, and nothing that depends on tiles the seat cannot see.
#include <gtest/gtest.h>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

using test::L;
using test::PositionBuilder;
using test::R;
using test::S;
using test::T;

// Checks every seat's view of `s` against the state.
void expect_views_match(const State& s) {
  const int n = num_players(s.format());
  for (int seat = 0; seat < n; ++seat) {
    const View v = s.view(seat);
    EXPECT_EQ(v.seat(), seat);
    EXPECT_EQ(v.config(), s.config());
    EXPECT_EQ(v.num_players(), n);
    EXPECT_EQ(v.hand(), s.hand(seat));
    EXPECT_EQ(v.hand_index(), s.hand_index());
    EXPECT_EQ(v.seat_to_move(), s.seat_to_move());
    EXPECT_EQ(v.line(), s.line());
    EXPECT_EQ(v.boneyard_size(), s.boneyard_size());
    EXPECT_EQ(v.open_rule(), s.open_rule());
    for (int side = 0; side < num_sides(s.format()); ++side)
      EXPECT_EQ(v.score(side), s.score(side));
    TileSet others = s.boneyard();
    for (int o = 0; o < n; ++o) {
      EXPECT_EQ(v.hand_size(o), s.hand(o).size());
      if (o != seat) others |= s.hand(o);
    }
    EXPECT_EQ(v.unseen(), others);
    EXPECT_TRUE((v.unseen() & v.hand()).empty());
    if (seat == s.seat_to_move()) {
      const PlayList legal = s.legal_plays();
      ASSERT_EQ(v.legal_plays().size(), legal.size());
      for (int i = 0; i < legal.size(); ++i) EXPECT_EQ(v.legal_plays()[i], legal[i]);
    } else {
      EXPECT_TRUE(v.legal_plays().empty());
    }
  }
}

TEST(View, ShowsOwnHandOnlyAndOthersAsCounts) {
  for (Format f : kAllFormats) {
    const State s = State::new_match(Config::standard(f), 8);
    expect_views_match(s);
    for (int seat = 0; seat < num_players(f); ++seat) {
      const View v = s.view(seat);
      for (int o = 0; o < num_players(f); ++o) EXPECT_EQ(v.hand_size(o), hand_size(f));
      EXPECT_EQ(v.unseen().size(), 28 - hand_size(f));
    }
  }
}

TEST(View, LegalPlaysOnlyForTheSeatToMove) {
  for (Format f : kAllFormats) {
    const State s = State::new_match(Config::standard(f), 21);
    for (int seat = 0; seat < num_players(f); ++seat) {
      EXPECT_EQ(s.view(seat).legal_plays().empty(), seat != s.seat_to_move());
    }
  }
}

TEST(View, SeatPartnerAndSide) {
  const State p = State::new_match(Config::standard(Format::kPartnerships), 1);
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_EQ(p.view(seat).partner(), (seat + 2) % 4);
    EXPECT_EQ(p.view(seat).side(), seat % 2);
  }
  for (Format f : {Format::kTwoPlayers, Format::kThreePlayers, Format::kFourPlayers}) {
    const State s = State::new_match(Config::standard(f), 1);
    for (int seat = 0; seat < num_players(f); ++seat) {
      EXPECT_EQ(s.view(seat).partner(), -1);
      EXPECT_EQ(s.view(seat).side(), seat);
    }
  }
}

TEST(View, DoesNotDependOnHiddenTiles) {
  // Two positions that differ only in which of seat 1's tiles sit in the boneyard: seat 0 and
  // seat 2 see exactly the same thing.
  const auto build = [](Tile in_hand, Tile in_boneyard) {
    return PositionBuilder(Format::kThreePlayers)
        .play(2, T(3, 3))
        .hand(0, {T(3, 4), T(5, 5)})
        .hand(1, {T(0, 0), in_hand})
        .hand(2, {T(6, 6), T(1, 3)})
        .boneyard({in_boneyard})
        .rest_to_boneyard()
        .to_move(0)
        .build();
  };
  const State a = build(T(1, 1), T(2, 2));
  const State b = build(T(2, 2), T(1, 1));
  ASSERT_NE(a, b);
  EXPECT_EQ(a.view(0), b.view(0));
  EXPECT_EQ(a.view(2), b.view(2));
  EXPECT_NE(a.view(1), b.view(1));
}

TEST(View, PartnersTilesAreHiddenToo) {
  const auto build = [](Tile partner, Tile opponent) {
    return PositionBuilder(Format::kPartnerships)
        .play(3, T(3, 3))
        .hand(0, {T(3, 4), T(5, 5)})
        .hand(1, {T(0, 0), opponent})
        .hand(2, {T(6, 6), partner})
        .hand(3, {T(1, 3)})
        .rest_to_boneyard()
        .to_move(0)
        .build();
  };
  const State a = build(T(1, 1), T(2, 2));
  const State b = build(T(2, 2), T(1, 1));
  EXPECT_EQ(a.view(0), b.view(0));
  EXPECT_EQ(a.view(0).unseen(), b.view(0).unseen());
  EXPECT_TRUE(a.view(0).unseen().contains(T(6, 6)));  // the partner's tile is unseen
}

TEST(View, DrawsAreSeenOnlyAsCounts) {
  // Seat 1 draws three tiles; seat 0 sees its hand grow by three and the boneyard shrink, and
  // two different boneyards that lead to the same counts give seat 0 the same view.
  const auto build = [](Tile first, Tile second) {
    return PositionBuilder(Format::kTwoPlayers)
        .play(1, T(3, 3))
        .hand(0, {T(3, 4), T(5, 5)})
        .hand(1, {T(0, 0)})
        .boneyard({first, second, T(6, 4)})
        .rest_to_boneyard()
        .to_move(0)
        .build();
  };
  State a = build(T(0, 1), T(2, 2));
  State b = build(T(2, 2), T(1, 1));
  const View before = a.view(0);
  ASSERT_EQ(a.apply(R(T(3, 4))), PlayError::kNone);
  ASSERT_EQ(b.apply(R(T(3, 4))), PlayError::kNone);
  const View after = a.view(0);
  EXPECT_EQ(after.hand_size(1), before.hand_size(1) + 3);
  EXPECT_EQ(after.boneyard_size(), before.boneyard_size() - 3);
  EXPECT_EQ(a.view(0), b.view(0));
  expect_views_match(a);
}

TEST(View, MatchesTheStateThroughoutRandomMatches) {
  SplitMix64 rng(31);
  for (Format f : kAllFormats) {
    State s = State::new_match(Config::standard(f), 77);
    while (!s.is_terminal()) {
      expect_views_match(s);
      const PlayList legal = s.legal_plays();
      ASSERT_EQ(s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))]),
                PlayError::kNone);
    }
    expect_views_match(s);
  }
}

// count_after, points_after and ends_after say what the play then makes: the count, the points
// and the open ends the state's own play event reports, for every legal play of random matches
// in every format.
TEST(View, CountPointsAndEndsAfterAPlayAreWhatThePlayMakes) {
  SplitMix64 rng(5);
  int checked = 0;
  for (Format f : kAllFormats) {
    State s = State::new_match(Config::standard(f), 13);
    while (!s.is_terminal()) {
      const View v = s.view(s.seat_to_move());
      for (const Play p : v.legal_plays()) {
        State tried = s;
        EventList events;
        ASSERT_EQ(tried.apply(p, &events), PlayError::kNone);
        ASSERT_EQ(events[0].kind, EventKind::kPlay);
        EXPECT_EQ(v.count_after(p), events[0].count) << to_string(p);
        EXPECT_EQ(v.points_after(p), events[0].points) << to_string(p);
        EXPECT_EQ(v.ends_after(p), events[0].ends) << to_string(p);
        ++checked;
      }
      const PlayList legal = s.legal_plays();
      s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))]);
    }
  }
  EXPECT_GT(checked, 400);
}

// A double at an end counts both halves (docs/RULES.md §6 "Doubles lie crosswise"): 5-5 laid on
// the 5 of an opening 5-0 leaves 0 and the double, 5+5: a count of 10, 10 points.
TEST(View, PointsAfterADoubleCountsBothHalves) {
  const State s = PositionBuilder(Format::kTwoPlayers)
                      .play(1, T(5, 0))
                      .hand(0, {T(5, 5), T(0, 1)})
                      .hand(1, {T(6, 6)})
                      .rest_to_boneyard()
                      .to_move(0)
                      .build();
  const View v = s.view(0);
  EXPECT_EQ(v.count_after(R(T(5, 5))), 10);
  EXPECT_EQ(v.points_after(R(T(5, 5))), 10);
  EXPECT_EQ(v.count_after(L(T(0, 1))), 6);  // 1 + 5
  EXPECT_EQ(v.points_after(L(T(0, 1))), 0);
}

TEST(View, NoLegalPlaysOnceTheMatchIsOver) {
  State s = PositionBuilder(Format::kTwoPlayers)
                .play(1, T(3, 3))
                .hand(0, {T(3, 4), T(5, 5)})
                .hand(1, {T(0, 0)})
                .rest_to_boneyard()
                .score(0, 245)
                .to_move(0)
                .build();
  ASSERT_EQ(s.apply(R(T(3, 4))), PlayError::kNone);
  ASSERT_TRUE(s.is_terminal());
  for (int seat = 0; seat < 2; ++seat) {
    EXPECT_EQ(s.view(seat).seat_to_move(), -1);
    EXPECT_TRUE(s.view(seat).legal_plays().empty());
    EXPECT_EQ(s.view(seat).hand(), s.hand(seat));
  }
}

// seen_by keeps what a seat may see of each event and nothing more.
TEST(SeenBy, HidesOtherSeatsDrawsAndDealtHands) {
  SplitMix64 rng(3);
  int draws_checked = 0;
  EventList events;
  State s = State::new_match(Config::standard(Format::kThreePlayers), 5, &events);
  for (;;) {
    for (const Event& e : events) {
      for (int viewer = 0; viewer < 3; ++viewer) {
        const Event v = seen_by(e, viewer);
        EXPECT_EQ(v.kind, e.kind);
        EXPECT_EQ(v.seat, e.seat);
        EXPECT_EQ(v.points, e.points);
        if (e.kind == EventKind::kDraw) {
          ++draws_checked;
          EXPECT_EQ(v.count, e.count);
          EXPECT_EQ(v.tiles, viewer == e.seat ? e.tiles : TileSet{});
        }
        if (e.kind == EventKind::kHandStart) {
          EXPECT_EQ(v.deal, Deal{});
          for (int seat = 0; seat < 3; ++seat)
            EXPECT_EQ(v.hands[seat], seat == viewer ? e.hands[seat] : TileSet{});
        }
        if (e.kind == EventKind::kHandEnd || e.kind == EventKind::kPlay) {
          EXPECT_EQ(v.hands, e.hands);
          EXPECT_EQ(v.play, e.play);
        }
      }
    }
    if (s.is_terminal()) break;
    events.clear();
    const PlayList legal = s.legal_plays();
    s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events);
  }
  EXPECT_GT(draws_checked, 0);
}

}  // namespace
}  // namespace allfives
