// OpenSpiel-style RandomSimTest: thousands of random matches in every format, checking the
// core's invariants after every step against the rule book (docs/RULES.md) rather than against the
// core's own bookkeeping wherever that is practical.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "allfives/core/deal.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "test_util.h"

namespace allfives {
namespace {

#ifdef NDEBUG
constexpr int kMatchesPerFormat = 2500;  // 10,000 matches in all
#else
constexpr int kMatchesPerFormat = 500;  // unoptimised builds: a smaller sample
#endif

// Where a failure happened, printed only on failure.
struct Where {
  Format format;
  uint64_t seed;
  int step;
};
std::ostream& operator<<(std::ostream& os, const Where& w) {
  return os << to_string(w.format) << " seed " << w.seed << " step " << w.step;
}

// Fails the current test and abandons the match (returns false from the enclosing function).
#define SIM_CHECK(cond)                                      \
  do {                                                       \
    if (!(cond)) {                                           \
      ADD_FAILURE() << where << ": check failed: " << #cond; \
      return false;                                          \
    }                                                        \
  } while (0)

struct Totals {
  int64_t matches = 0, steps = 0, hands = 0, dominoes = 0, blocks = 0, tied_blocks = 0, draws = 0,
          passes = 0, by_target = 0, by_hand_limit = 0, drawn_matches = 0, mid_hand_ends = 0;
};

TileSet ends_suits(const Line& line) {
  return TileSet::suit(line.end(End::kLeft).value) | TileSet::suit(line.end(End::kRight).value);
}

// Invariants of a state between steps.
bool check_state(const State& s, const Where& where) {
  const Format f = s.format();
  const int n = num_players(f), sides = num_sides(f);
  // The 28 tiles are exactly split between hands, line and boneyard.
  TileSet seen;
  int count = 0;
  for (int seat = 0; seat < n; ++seat) {
    SIM_CHECK((seen & s.hand(seat)).empty());
    seen |= s.hand(seat);
    count += s.hand(seat).size();
  }
  for (int seat = n; seat < kMaxPlayers; ++seat) SIM_CHECK(s.hand(seat).empty());
  for (int i = 0; i < s.line().size(); ++i) {
    SIM_CHECK(!seen.contains(s.line()[i].tile));
    seen.add(s.line()[i].tile);
    ++count;
  }
  SIM_CHECK((seen & s.boneyard()).empty());
  seen |= s.boneyard();
  SIM_CHECK(s.boneyard().size() == s.boneyard_size());
  count += s.boneyard_size();
  SIM_CHECK(seen == TileSet::all());
  SIM_CHECK(count == kNumTiles);

  // Scores are multiples of five; only a finished match has a side at the target.
  for (int side = 0; side < sides; ++side) {
    SIM_CHECK(s.score(side) >= 0);
    SIM_CHECK(s.score(side) % 5 == 0);
  }
  for (int side = sides; side < kMaxPlayers; ++side) SIM_CHECK(s.score(side) == 0);

  if (s.is_terminal()) {
    SIM_CHECK(s.seat_to_move() == -1);
    SIM_CHECK(s.legal_plays().empty());
    const Outcome o = s.outcome();
    if (o.reason == MatchEndReason::kTarget) {
      SIM_CHECK(o.winner_side >= 0 && o.winner_side < sides);
      SIM_CHECK(s.score(o.winner_side) >= s.config().target);
      for (int side = 0; side < sides; ++side)
        if (side != o.winner_side) SIM_CHECK(s.score(side) < s.config().target);
    } else {
      SIM_CHECK(o.reason == MatchEndReason::kHandLimit);
      SIM_CHECK(s.hand_index() == s.config().max_hands - 1);
      int best = 0;
      for (int side = 0; side < sides; ++side) best = std::max(best, s.score(side));
      int holders = 0;
      for (int side = 0; side < sides; ++side) {
        SIM_CHECK(s.score(side) < s.config().target);
        if (s.score(side) == best) ++holders;
      }
      if (holders == 1) {
        SIM_CHECK(o.winner_side >= 0 && s.score(o.winner_side) == best);
      } else {
        SIM_CHECK(o.winner_side == -1);
      }
    }
  } else {
    SIM_CHECK(s.hand_index() < s.config().max_hands);
    const int mover = s.seat_to_move();
    SIM_CHECK(mover >= 0 && mover < n);
    for (int side = 0; side < sides; ++side) SIM_CHECK(s.score(side) < s.config().target);
    // Mid-hand every seat still holds a tile (whoever emptied a hand ended it).
    for (int seat = 0; seat < n; ++seat) SIM_CHECK(!s.hand(seat).empty());
    // Legal plays == exactly the (tile, end) pairs that check() accepts, among all 56.
    const PlayList legal = s.legal_plays();
    SIM_CHECK(!legal.empty());
    for (int i = 0; i < legal.size(); ++i) {
      SIM_CHECK(s.check(legal[i]) == PlayError::kNone);
      SIM_CHECK(s.hand(mover).contains(legal[i].tile));
      for (int j = 0; j < i; ++j) SIM_CHECK(!(legal[i] == legal[j]));
    }
    const bool opening = s.line().empty();
    for (Tile t : TileSet::all()) {
      for (End e : {End::kLeft, End::kRight}) {
        const Play p{t, e};
        const PlayError err = s.check(p);
        if (opening) {
          // The opening play's end is ignored: both ends are accepted for the same tiles and
          // the list names each tile once, on the left.
          SIM_CHECK((err == PlayError::kNone) == legal.contains(Play{t, End::kLeft}));
          SIM_CHECK(!legal.contains(Play{t, End::kRight}));
        } else {
          SIM_CHECK((err == PlayError::kNone) == legal.contains(p));
          // check() agrees with the rule book: in hand, and matching that end.
          const bool rule_ok = s.hand(mover).contains(t) && t.has(s.line().end(e).value);
          SIM_CHECK((err == PlayError::kNone) == rule_ok);
        }
        if (!s.hand(mover).contains(t)) SIM_CHECK(err == PlayError::kNotInHand);
      }
    }
    if (opening) {
      if (s.open_rule() == OpenRule::kWinnerChooses) {
        SIM_CHECK(legal.size() == s.hand(mover).size());
      } else {
        SIM_CHECK(legal.size() == 1);
        std::array<TileSet, kMaxPlayers> hands{};
        for (int seat = 0; seat < n; ++seat) hands[seat] = s.hand(seat);
        const Opener o = find_opener(f, hands);
        SIM_CHECK(o.seat == mover);
        SIM_CHECK(o.rule == s.open_rule());
        SIM_CHECK(legal[0].tile == o.tile);
      }
    }
  }

  // Views: own hand only, other seats as counts, unseen = other hands + boneyard.
  for (int seat = 0; seat < n; ++seat) {
    const View v = s.view(seat);
    SIM_CHECK(v.seat() == seat);
    SIM_CHECK(v.hand() == s.hand(seat));
    TileSet others = s.boneyard();
    for (int o = 0; o < n; ++o) {
      SIM_CHECK(v.hand_size(o) == s.hand(o).size());
      if (o != seat) others |= s.hand(o);
    }
    SIM_CHECK(v.unseen() == others);
    SIM_CHECK(v.boneyard_size() == s.boneyard_size());
    SIM_CHECK(v.line() == s.line());
    SIM_CHECK(v.seat_to_move() == s.seat_to_move());
    for (int side = 0; side < sides; ++side) SIM_CHECK(v.score(side) == s.score(side));
    if (seat == s.seat_to_move()) {
      const PlayList legal = s.legal_plays();
      SIM_CHECK(v.legal_plays().size() == legal.size());
      for (int i = 0; i < legal.size(); ++i) SIM_CHECK(v.legal_plays()[i] == legal[i]);
    } else {
      SIM_CHECK(v.legal_plays().empty());
    }
  }
  return true;
}

// Checks one step: `before` + `play` -> `after`, with its events.
bool check_step(const State& before, Play play, const State& after, const EventList& ev,
                const Where& where, Totals& totals) {
  const Format f = before.format();
  const int n = num_players(f), sides = num_sides(f);
  const int mover = before.seat_to_move();
  const int hand = before.hand_index();
  SIM_CHECK(ev.size() >= 1 && ev.size() <= EventList::kCapacity);

  // The play event, and the count it left, computed on a copy of the old line.
  const Event& pe = ev[0];
  SIM_CHECK(pe.kind == EventKind::kPlay);
  SIM_CHECK(pe.seat == mover);
  SIM_CHECK(pe.side == side_of(f, mover));
  SIM_CHECK(pe.hand_index == hand);
  SIM_CHECK(pe.play.tile == play.tile);
  SIM_CHECK(pe.play.end == (before.line().empty() ? End::kLeft : play.end));
  Line line = before.line();
  line.place(play.tile, play.end, mover);
  const int count = line.count();
  SIM_CHECK(pe.count == count);
  SIM_CHECK(pe.points == (count > 0 && count % 5 == 0 ? count : 0));

  // Scores never decrease, and every change is accounted for by an event.
  std::array<int, kMaxPlayers> gained{};
  gained[pe.side] += pe.points;
  const TileSet live = ends_suits(line);
  // Every seat's tiles as the step goes on: the play, then the draws.
  std::array<TileSet, kMaxPlayers> cur{};
  for (int seat = 0; seat < n; ++seat) cur[seat] = before.hand(seat);
  cur[mover].remove(play.tile);
  int bone_left = before.boneyard_size();
  int next = 1;
  int expected_seat = (mover + 1) % n;
  bool hand_ended = false, match_ended = false;
  // Draws and passes in seat order until someone can play or the hand blocks.
  for (; next < ev.size(); ++next) {
    const Event& e = ev[next];
    if (e.kind != EventKind::kDraw && e.kind != EventKind::kPass) break;
    SIM_CHECK(e.hand_index == hand);
    SIM_CHECK(e.seat == expected_seat);
    SIM_CHECK(e.seat != mover);  // the turn never comes back to the mover unplayed
    if (e.kind == EventKind::kDraw) {
      ++totals.draws;
      SIM_CHECK(e.count == e.tiles.size() && e.count > 0);
      SIM_CHECK(e.count <= bone_left);
      SIM_CHECK((e.tiles & before.boneyard()) == e.tiles);
      SIM_CHECK((e.tiles & live).size() <= 1);  // only the last tile drawn may fit
      bone_left -= e.count;
      SIM_CHECK((cur[e.seat] & live).empty());  // a seat able to play never draws
      cur[e.seat] |= e.tiles;
      if ((e.tiles & live).size() == 1) {
        // The drawn playable tile stops the drawing; that seat must now play it.
        SIM_CHECK(next + 1 == ev.size() || ev[next + 1].kind != EventKind::kPass ||
                  ev[next + 1].seat != e.seat);
        SIM_CHECK(after.seat_to_move() == e.seat);
        SIM_CHECK(next + 1 == ev.size());
        const PlayList legal = after.legal_plays();
        for (const Play& p : legal) SIM_CHECK(e.tiles.contains(p.tile));
      } else {
        SIM_CHECK(bone_left == 0);  // drew to the end of the boneyard, and must pass next
        SIM_CHECK(next + 1 < ev.size() && ev[next + 1].kind == EventKind::kPass &&
                  ev[next + 1].seat == e.seat);
      }
    } else {
      ++totals.passes;
      SIM_CHECK(bone_left == 0);                // passing only with an empty boneyard
      SIM_CHECK((cur[e.seat] & live).empty());  // and with no playable tile
      expected_seat = (expected_seat + 1) % n;
    }
  }
  if (next < ev.size() && ev[next].kind == EventKind::kHandEnd) {
    const Event& he = ev[next++];
    hand_ended = true;
    ++totals.hands;
    SIM_CHECK(he.hand_index == hand);
    for (int seat = 0; seat < n; ++seat) {
      SIM_CHECK(he.hands[seat] == cur[seat]);  // every hand revealed as it was
      SIM_CHECK(he.values[seat] == he.hands[seat].pips());
    }
    if (he.reason == static_cast<uint8_t>(HandEndKind::kDomino)) {
      ++totals.dominoes;
      SIM_CHECK(he.seat == mover);
      SIM_CHECK(he.hands[mover].empty());
      SIM_CHECK(before.hand(mover).size() == 1);
      SIM_CHECK(he.side == side_of(f, mover));
      // Independent domino count: round5 of each opponent player's pips.
      int points = 0;
      for (int seat = 0; seat < n; ++seat)
        if (side_of(f, seat) != he.side) points += round5(he.hands[seat].pips());
      SIM_CHECK(he.points == points);
    } else {
      SIM_CHECK(he.reason == static_cast<uint8_t>(HandEndKind::kBlocked));
      ++totals.blocks;
      SIM_CHECK(he.seat == -1);
      SIM_CHECK(bone_left == 0);
      for (int seat = 0; seat < n; ++seat) SIM_CHECK((he.hands[seat] & live).empty());
      std::vector<int> pips(sides, 0);
      for (int seat = 0; seat < n; ++seat) pips[side_of(f, seat)] += he.hands[seat].pips();
      const int fewest = *std::min_element(pips.begin(), pips.end());
      if (std::count(pips.begin(), pips.end(), fewest) > 1) {
        ++totals.tied_blocks;
        SIM_CHECK(he.side == -1);
        SIM_CHECK(he.points == 0);
      } else {
        const int w = static_cast<int>(std::find(pips.begin(), pips.end(), fewest) - pips.begin());
        int points = -round5(pips[w]);
        for (int side = 0; side < sides; ++side)
          if (side != w) points += round5(pips[side]);
        SIM_CHECK(he.side == w);
        SIM_CHECK(he.points == points);
      }
    }
    if (he.side >= 0) gained[he.side] += he.points;
  } else {
    // No hand end: the hand goes on, and the mover kept a tile unless the play ended the match.
    SIM_CHECK(before.hand(mover).size() > 1 || after.is_terminal());
  }
  if (next < ev.size() && ev[next].kind == EventKind::kMatchEnd) {
    const Event& me = ev[next++];
    match_ended = true;
    SIM_CHECK(after.is_terminal());
    SIM_CHECK(me.side == after.outcome().winner_side);
    SIM_CHECK(me.reason == static_cast<uint8_t>(after.outcome().reason));
    for (int side = 0; side < sides; ++side) SIM_CHECK(me.values[side] == after.score(side));
    if (!hand_ended) {
      ++totals.mid_hand_ends;
      SIM_CHECK(after.outcome().reason == MatchEndReason::kTarget);
      SIM_CHECK(next == 2);  // nothing after the scoring play: no draw, no hand scoring
      for (int seat = 0; seat < n; ++seat) SIM_CHECK(after.hand(seat) == cur[seat]);
      SIM_CHECK(after.boneyard_size() == before.boneyard_size());
    }
    if (after.outcome().reason == MatchEndReason::kTarget) {
      ++totals.by_target;
    } else {
      ++totals.by_hand_limit;
      if (after.outcome().winner_side < 0) ++totals.drawn_matches;
    }
  }
  if (next < ev.size() && ev[next].kind == EventKind::kHandStart) {
    const Event& hs = ev[next++];
    SIM_CHECK(hand_ended && !match_ended);
    SIM_CHECK(hs.hand_index == hand + 1);
    SIM_CHECK(after.hand_index() == hand + 1);
    const Deal d = deal_hand(f, where.seed, hand + 1);
    SIM_CHECK(hs.deal == d);
    for (int seat = 0; seat < n; ++seat) {
      SIM_CHECK(hs.hands[seat] == d.hands[seat]);
      SIM_CHECK(after.hand(seat) == d.hands[seat]);
    }
    SIM_CHECK(after.line().empty());
    SIM_CHECK(after.boneyard_size() == d.boneyard_size);
    SIM_CHECK(hs.seat == after.seat_to_move());
    const Event& he = ev[next - 2];
    if (he.reason == static_cast<uint8_t>(HandEndKind::kDomino)) {
      SIM_CHECK(after.open_rule() == OpenRule::kWinnerChooses);
      SIM_CHECK(after.seat_to_move() == mover);
    } else {
      const Opener o = find_opener(f, d.hands);
      SIM_CHECK(after.open_rule() == o.rule);
      SIM_CHECK(after.seat_to_move() == o.seat);
      SIM_CHECK(hs.open_with == o.tile);
    }
  } else if (!match_ended) {
    SIM_CHECK(!hand_ended);
    SIM_CHECK(after.hand_index() == hand);
    // The turn went to the first seat after the mover that could play; every seat between
    // passed (possibly after drawing).
    SIM_CHECK(after.seat_to_move() == expected_seat);
    for (int seat = 0; seat < n; ++seat) SIM_CHECK(after.hand(seat) == cur[seat]);
    SIM_CHECK(after.boneyard_size() == bone_left);
  }
  SIM_CHECK(next == ev.size());
  SIM_CHECK(after.is_terminal() == match_ended);

  for (int side = 0; side < kMaxPlayers; ++side) {
    SIM_CHECK(after.score(side) >= before.score(side));
    SIM_CHECK(after.score(side) - before.score(side) == gained[side]);
  }
  return true;
}

// Plays one random match, checking everything; returns false on the first failure.
bool run_match(const Config& config, uint64_t seed, SplitMix64& rng, Totals& totals) {
  Where where{config.format, seed, 0};
  EventList ev;
  State s = State::new_match(config, seed, &ev);
  SIM_CHECK(ev.size() == 1 && ev[0].kind == EventKind::kHandStart);
  SIM_CHECK(ev[0].deal == deal_hand(config.format, seed, 0));
  if (!check_state(s, where)) return false;
  const int max_steps = config.max_hands * kNumTiles + 1;
  while (!s.is_terminal()) {
    SIM_CHECK(++where.step < max_steps);
    const PlayList legal = s.legal_plays();
    const Play play = legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))];

    // A refused play (a random pair that check() rejects) changes nothing.
    const Play other{Tile::from_index(static_cast<int>(rng.below(kNumTiles))),
                     rng.below(2) ? End::kRight : End::kLeft};
    if (const PlayError err = s.check(other); err != PlayError::kNone) {
      State copy = s;
      EventList none;
      SIM_CHECK(copy.apply(other, &none) == err);
      SIM_CHECK(none.size() == 0);
      SIM_CHECK(copy == s);
    }

    const State before = s;
    State copy = s;  // evolves without events: must end up identical
    ev.clear();
    SIM_CHECK(s.apply(play, &ev) == PlayError::kNone);
    SIM_CHECK(copy.apply(play) == PlayError::kNone);
    SIM_CHECK(copy == s);
    ++totals.steps;
    if (!check_step(before, play, s, ev, where, totals)) return false;
    if (!check_state(s, where)) return false;
  }
  ++totals.matches;
  return true;
}

TEST(RandomSim, TenThousandMatchesKeepEveryInvariant) {
  const auto start = std::chrono::steady_clock::now();
  Totals totals;
  SplitMix64 rng(20240601);
  int failures = 0;
  for (Format f : kAllFormats) {
    for (int i = 0; i < kMatchesPerFormat && failures < 3; ++i) {
      const uint64_t seed = static_cast<uint64_t>(i) * 4 + static_cast<uint64_t>(f);
      // One match in eight runs with a short safety valve, to exercise the hand limit too.
      Config config = Config::standard(f);
      if (i % 8 == 7) config.max_hands = 1 + i % 5;
      if (!run_match(config, seed, rng, totals)) ++failures;
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ RandomSim] %lld matches, %lld steps, %lld hands (%lld dominoes, %lld blocks, %lld tied),"
      " %lld draws, %lld passes; ends: %lld target (%lld mid-hand), %lld hand limit (%lld"
      " drawn); %.2f s\n",
      static_cast<long long>(totals.matches), static_cast<long long>(totals.steps),
      static_cast<long long>(totals.hands), static_cast<long long>(totals.dominoes),
      static_cast<long long>(totals.blocks), static_cast<long long>(totals.tied_blocks),
      static_cast<long long>(totals.draws), static_cast<long long>(totals.passes),
      static_cast<long long>(totals.by_target), static_cast<long long>(totals.mid_hand_ends),
      static_cast<long long>(totals.by_hand_limit), static_cast<long long>(totals.drawn_matches),
      secs);
  RecordProperty("seconds", std::to_string(secs));
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(totals.matches, 4 * kMatchesPerFormat);
  // The sample reached every kind of ending.
  EXPECT_GT(totals.dominoes, 0);
  EXPECT_GT(totals.blocks, 0);
  EXPECT_GT(totals.tied_blocks, 0);
  EXPECT_GT(totals.passes, 0);
  EXPECT_GT(totals.mid_hand_ends, 0);
  EXPECT_GT(totals.by_hand_limit, 0);
}

}  // namespace
}  // namespace allfives
