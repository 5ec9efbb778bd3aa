// States sampled from a seat's view (allfives/core/resample.h): on small real positions, the
// sampler draws exactly the states some deal of the hand explains, each equally often (an
// independent oracle replays every possible deal against the seat's history); on many
// positions of every format, a sampled state shows the seat exactly its view.
#include "allfives/core/resample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "hidden_util.h"
#include "test_util.h"

namespace allfives::test {
namespace {

// The hidden part of a state: the other seats' hands in seat order, then (if asked) the
// boneyard in drawing order.
using Key = std::vector<int>;

Key key_of(const Position& p, int me, bool with_order) {
  Key k;
  for (int s = 0; s < num_players(p.config.format); ++s)
    if (s != me) k.push_back(static_cast<int>(p.hands[s].bits()));
  if (with_order)
    for (int i = 0; i < p.boneyard_size; ++i) k.push_back(p.boneyard[i].index());
  return k;
}

bool same_seen(const Event& a, const Event& b) {
  return a.kind == b.kind && a.seat == b.seat && a.play == b.play && a.count == b.count &&
         a.points == b.points && a.tiles == b.tiles;
}

// The oracle: every assignment of the unseen tiles to the other hands that some deal of this
// hand explains, found by trying every deal that could have led to it (which of a seat's
// tiles it drew, and in which order) and replaying the hand's plays on it with the core: the
// deal counts if the seat sees exactly the events it saw. Returns nothing if that would mean
// replaying more than `budget` deals.
std::set<Key> oracle(const Snapshot& snap, long budget) {
  const View& v = snap.view;
  const int me = v.seat();
  const int n = v.num_players();
  // The boneyard's drawing order so far: who drew each tile, and the tile when it was me.
  std::vector<int> drawer;
  std::array<std::vector<int>, kMaxPlayers> slots;  // per seat, its places in that order
  for (const Event& e : snap.seen) {
    if (e.kind != EventKind::kDraw) continue;
    for (int j = 0; j < e.count; ++j) {
      slots[e.seat].push_back(static_cast<int>(drawer.size()));
      drawer.push_back(e.seat);
    }
  }
  std::array<TileSet, kMaxPlayers> played{};
  for (int i = 0; i < v.line().size(); ++i) played[v.line()[i].seat].add(v.line()[i].tile);
  // My own draws in their true order come from the true deal (the seat saw them drawn).
  std::vector<Tile> order(snap.hand_start.boneyard.begin(),
                          snap.hand_start.boneyard.begin() + snap.hand_start.boneyard_size);

  const TileSet unseen = v.unseen();
  std::vector<Tile> tiles;
  for (Tile t : unseen) tiles.push_back(t);
  std::vector<int> others;
  for (int s = 0; s < n; ++s)
    if (s != me) others.push_back(s);

  long cost = 1;
  for (int s : others) {
    const int pool = v.hand_size(s) + played[s].size();
    for (size_t j = 0; j < slots[s].size(); ++j) cost *= pool - static_cast<long>(j);
  }
  // Partitions of the unseen tiles: a multinomial, bounded well enough by 4^unseen here.
  long partitions = 1;
  {
    int left = static_cast<int>(tiles.size());
    for (int s : others) {
      for (int j = 0; j < v.hand_size(s); ++j) partitions = partitions * (left - j) / (j + 1);
      left -= v.hand_size(s);
    }
  }
  if (cost * partitions > budget) return {};

  std::set<Key> out;
  std::array<TileSet, kMaxPlayers> hands{};
  TileSet rest;
  // Tries every way the seats in others[i..] drew their slots; true if one replays right.
  std::vector<Tile> deck(drawer.size());
  const auto replay = [&]() {
    Position p = snap.hand_start;
    std::array<TileSet, kMaxPlayers> dealt{};
    TileSet drawn;
    for (size_t j = 0; j < drawer.size(); ++j) drawn.add(deck[j]);
    for (int s = 0; s < n; ++s)
      dealt[s] = s == me ? snap.hand_start.hands[me] : ((hands[s] | played[s]) - drawn);
    p.hands = dealt;
    int b = 0;
    for (Tile t : deck) p.boneyard[b++] = t;
    for (Tile t : rest) p.boneyard[b++] = t;
    p.boneyard_size = b;
    State s = snap.truth;
    if (!State::from_position(p, 1, s, nullptr)) return false;
    EventList ev;
    size_t k = 0;
    for (const Play& play : snap.plays) {
      ev.clear();
      if (s.apply(play, &ev) != PlayError::kNone) return false;
      for (const Event& e : ev) {
        if (k == snap.seen.size() || !same_seen(seen_by(e, me), snap.seen[k])) return false;
        ++k;
      }
    }
    if (k != snap.seen.size() || s.seat_to_move() != me) return false;
    for (int o : others)
      if (s.hand(o) != hands[o]) return false;
    return true;
  };
  const auto draws = [&](auto&& self, size_t i, size_t j, TileSet used) -> bool {
    if (i == others.size()) return replay();
    const int s = others[i];
    if (j == slots[s].size()) return self(self, i + 1, 0, TileSet{});
    for (Tile t : (hands[s] | played[s]) - used) {
      deck[slots[s][j]] = t;
      TileSet u = used;
      u.add(t);
      if (self(self, i, j + 1, u)) return true;
    }
    return false;
  };
  const auto deal = [&](auto&& self, size_t t) -> void {
    if (t == tiles.size()) {
      for (int s : others)
        if (hands[s].size() != v.hand_size(s)) return;
      // My own draws sit where the true deal had them.
      for (size_t j = 0; j < drawer.size(); ++j)
        if (drawer[j] == me) deck[j] = order[j];
      if (draws(draws, 0, 0, TileSet{})) {
        Position p;
        p.config = v.config();
        p.hands = hands;
        out.insert(key_of(p, me, false));
      }
      return;
    }
    for (int s : others) {
      if (hands[s].size() == v.hand_size(s)) continue;
      hands[s].add(tiles[t]);
      self(self, t + 1);
      hands[s].remove(tiles[t]);
    }
    if (rest.size() < v.boneyard_size()) {
      rest.add(tiles[t]);
      self(self, t + 1);
      rest.remove(tiles[t]);
    }
  };
  deal(deal, 0);
  return out;
}

// The chi-square statistic's bound for `df` degrees of freedom at p = 1e-4 (Wilson-Hilferty).
double chi_square_bound(int df) {
  const double z = 3.719, a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

struct Case {
  Snapshot snap;
  std::set<Key> states;
};

// Small decisions of seat 0 where a seat drew or passed (so groups and voids bind), one per
// match, at most `wanted`; found once per test program (the oracle is the slow part).
const std::vector<Case>& small_cases(Format format, int wanted, int min_groups = 1,
                                     int max_boneyard = kNumTiles) {
  static std::map<std::array<int, 4>, std::vector<Case>> found;
  auto [it, added] =
      found.try_emplace({static_cast<int>(format), wanted, min_groups, max_boneyard});
  std::vector<Case>& out = it->second;
  if (!added) return out;
  for (uint64_t seed = 1; seed < 400 && static_cast<int>(out.size()) < wanted; ++seed) {
    for (const Snapshot& snap : play_and_record(format, seed, 0, 1000)) {
      if (snap.view.unseen().size() > 12 || snap.view.boneyard_size() > max_boneyard) continue;
      bool constrained = false;
      for (int s = 1; s < snap.view.num_players(); ++s)
        constrained |=
            snap.knowledge.num_groups(s) >= min_groups &&
            (snap.knowledge.num_groups(s) > 1 || !snap.knowledge.forbidden_for_all(s).empty());
      if (!constrained) continue;
      std::set<Key> states = oracle(snap, 3'000'000);
      if (states.size() < 3 || states.size() > 400) continue;
      out.push_back(Case{snap, std::move(states)});
      break;  // one decision per match
    }
  }
  return out;
}

void expect_uniform(const Case& c, bool with_order, uint64_t seed) {
  const View& v = c.snap.view;
  const WorldSampler sampler(v, &c.snap.knowledge);
  ASSERT_TRUE(sampler.ok());
  ASSERT_TRUE(sampler.exact());
  EXPECT_EQ(sampler.count(), c.states.size()) << "the sampler counts other states than the oracle";
  long orders = 1;
  if (with_order)
    for (int i = 2; i <= v.boneyard_size(); ++i) orders *= i;
  const long cells = static_cast<long>(c.states.size()) * orders;
  const long draws = std::min(200 * cells, 80'000L);
  std::map<Key, long> seen;
  SplitMix64 rng(seed);
  for (long i = 0; i < draws; ++i) {
    Position p;
    ASSERT_TRUE(sampler.sample(rng, p));
    const Key hands = key_of(p, v.seat(), false);
    ASSERT_TRUE(c.states.count(hands)) << "a state no deal explains";
    ++seen[key_of(p, v.seat(), with_order)];
  }
  ASSERT_EQ(static_cast<long>(seen.size()), cells) << "a state the history allows is never drawn";
  const double expected = static_cast<double>(draws) / static_cast<double>(cells);
  double chi2 = 0;
  for (const auto& [key, count] : seen) chi2 += (count - expected) * (count - expected) / expected;
  EXPECT_LT(chi2, chi_square_bound(static_cast<int>(cells - 1)))
      << cells << " states, " << draws << " draws";
}

TEST(Resample, TwoPlayersDrawsEveryStateTheHistoryAllowsEquallyOften) {
  const std::vector<Case>& cases = small_cases(Format::kTwoPlayers, 6, 2);
  ASSERT_GE(cases.size(), 4u);
  int narrowed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    expect_uniform(cases[i], false, 100 + i);
    const WorldSampler loose(cases[i].snap.view, nullptr);
    if (loose.count() > cases[i].states.size()) ++narrowed;
  }
  EXPECT_GE(narrowed, 3) << "the knowledge ruled out too few states to test it";
}

// At least `least` of `wanted` small cases of `format`, each uniform over its states.
void expect_cases_uniform(Format format, int wanted, size_t least, uint64_t seed) {
  const std::vector<Case>& cases = small_cases(format, wanted);
  ASSERT_GE(cases.size(), least);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    expect_uniform(cases[i], false, seed + i);
  }
}

TEST(Resample, ThreePlayersDrawsEveryStateTheHistoryAllowsEquallyOften) {
  expect_cases_uniform(Format::kThreePlayers, 4, 3, 200);
}

TEST(Resample, FourPlayersDrawsEveryStateTheHistoryAllowsEquallyOften) {
  expect_cases_uniform(Format::kFourPlayers, 3, 2, 400);
}

TEST(Resample, TheBoneyardOrderIsUniformToo) {
  for (Format format : {Format::kTwoPlayers, Format::kThreePlayers}) {
    int tested = 0;
    for (const Case& c : small_cases(format, 3, 1, 3)) {
      if (c.snap.view.boneyard_size() < 2 || c.states.size() > 60) continue;
      expect_uniform(c, true, 300 + tested);
      ++tested;
    }
    EXPECT_GE(tested, 1) << to_string(format);
  }
}

TEST(Resample, SampledStatesShowTheSeatExactlyItsView) {
  for (Format format : kAllFormats) {
    int decisions = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      for (const Snapshot& snap : play_and_record(format, seed, 1, 300)) {
        const WorldSampler sampler(snap.view, &snap.knowledge);
        ASSERT_TRUE(sampler.ok()) << to_string(format) << " seed " << seed;
        ASSERT_TRUE(sampler.exact());
        SplitMix64 rng(seed * 31 + static_cast<uint64_t>(decisions++));
        for (int k = 0; k < 4; ++k) {
          State s = snap.truth;
          ASSERT_TRUE(sampler.sample(rng, s));
          EXPECT_EQ(s.view(1), snap.view);
          EXPECT_EQ(s.legal_plays(), snap.truth.legal_plays());
          for (int o = 0; o < num_players(format); ++o) {
            if (o == 1) continue;
            // The simplest void: no tile the seat lacks in every group.
            EXPECT_TRUE((s.hand(o) & snap.knowledge.forbidden_for_all(o)).empty());
          }
        }
      }
    }
    EXPECT_GT(decisions, 100) << to_string(format);
  }
}

TEST(Resample, WithoutKnowledgeOnlyTheViewBinds) {
  // Seat 0 opens the first hand with the highest double: nobody else holds a higher one.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const State s = State::new_match(Config::standard(Format::kTwoPlayers), seed);
    const int opener = s.seat_to_move();
    const View v = s.view(opener);
    const WorldSampler sampler(v, nullptr);
    ASSERT_TRUE(sampler.ok());
    const Tile open = v.legal_plays()[0].tile;
    const TileSet higher = not_dealt_to_anyone(OpenRule::kHighestDouble, open);
    // C(21 - higher, 7): the other hand from the unseen tiles but the higher doubles.
    uint64_t ways = 1;
    const int pool = 21 - higher.size();
    for (int j = 0; j < 7; ++j)
      ways = ways * static_cast<uint64_t>(pool - j) / static_cast<uint64_t>(j + 1);
    EXPECT_EQ(sampler.count(), ways);
    SplitMix64 rng(seed);
    for (int k = 0; k < 20; ++k) {
      State w = s;
      ASSERT_TRUE(sampler.sample(rng, w));
      EXPECT_TRUE((w.hand(1 - opener) & higher).empty());
      EXPECT_EQ(w.view(opener), v);
    }
  }
}

TEST(Resample, RefusesAViewNotAtItsOwnDecision) {
  const State s = State::new_match(Config::standard(Format::kThreePlayers), 5);
  const int other = (s.seat_to_move() + 1) % 3;
  const WorldSampler sampler(s.view(other), nullptr);
  EXPECT_FALSE(sampler.ok());
  Position p;
  SplitMix64 rng(1);
  EXPECT_FALSE(sampler.sample(rng, p));
}

TEST(Resample, KnowledgeOfAnotherHandIsSetAside) {
  std::vector<Snapshot> snaps = play_and_record(Format::kTwoPlayers, 9, 0, 400);
  ASSERT_GT(snaps.size(), 20u);
  const Snapshot& early = snaps.front();
  const Snapshot* later = nullptr;
  for (const Snapshot& s : snaps)
    if (s.view.hand_index() > early.view.hand_index()) later = &s;
  ASSERT_NE(later, nullptr);
  const WorldSampler sampler(later->view, &early.knowledge);
  EXPECT_TRUE(sampler.ok());
  EXPECT_FALSE(sampler.exact());
  SplitMix64 rng(4);
  State w = later->truth;
  ASSERT_TRUE(sampler.sample(rng, w));
  EXPECT_EQ(w.view(0), later->view);
}

TEST(Resample, TheSameSeedDrawsTheSameStates) {
  const Snapshot snap = play_and_record(Format::kPartnerships, 3, 0, 30).back();
  const WorldSampler sampler(snap.view, &snap.knowledge);
  SplitMix64 a(77), b(77);
  for (int k = 0; k < 50; ++k) {
    Position x, y;
    ASSERT_TRUE(sampler.sample(a, x));
    ASSERT_TRUE(sampler.sample(b, y));
    EXPECT_EQ(key_of(x, 0, true), key_of(y, 0, true));
  }
}

}  // namespace
}  // namespace allfives::test
