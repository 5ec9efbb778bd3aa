// The strong sample bot's search library: the tracker never rules out the truth, sampled
// worlds respect hand sizes, the boneyard size, the known voids and never hold a visible tile,
// the rollout plays the core's greedy policy, and a fixed seed and number of simulations
// give the same choice every time (whatever the thread count).
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "search.h"

namespace allfives::strong {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A seat's decision seen from `seat`: its view, its tracker fed with the events it may see,
// and the true state (to check the tracker against the truth).
struct Snapshot {
  View view;
  Tracker tracker;
  State truth;
};

// Plays a match with the rollout policy for every seat (greedy-ish, some random plays) and
// records every decision of `seat`, with that seat's tracker fed as the SDK would feed it.
std::vector<Snapshot> play_and_record(Format format, uint64_t seed, int seat, int max_snaps) {
  std::vector<Snapshot> out;
  Tracker tracker;
  tracker.start_match(seat, format);
  EventList events;
  const auto feed = [&] {
    for (const Event& e : events) {
      if (e.kind == EventKind::kHandStart) {
        tracker.on_hand_start(bot::hand_start_info(e, seat));
      } else if (e.kind == EventKind::kPlay || e.kind == EventKind::kDraw ||
                 e.kind == EventKind::kPass) {
        tracker.on_event(seen_by(e, seat));
      }
    }
    events.clear();
  };
  State state = State::new_match(Config::standard(format), seed, &events);
  feed();
  SplitMix64 rng(seed ^ 0xabcdef);
  while (!state.is_terminal() && static_cast<int>(out.size()) < max_snaps) {
    if (state.seat_to_move() == seat) out.push_back(Snapshot{state.view(seat), tracker, state});
    state.apply(rollout_pick(state, rng, 300), &events);
    feed();
  }
  return out;
}

// Whether `hand` can be split into the tracker's groups of `s`, each group avoiding its
// forbidden tiles. The forbidden sets are nested (older groups forbid more), so Hall's
// condition reduces to: for every k, the tiles that fit only groups k.. are no more than
// those groups hold.
bool fits_groups(const Tracker& tracker, int s, TileSet hand) {
  const int n = tracker.num_groups(s);
  int total = 0;
  for (int i = 0; i < n; ++i) total += tracker.group(s, i).count;
  if (total != hand.size()) return false;
  for (int i = 1; i < n; ++i) {
    const TileSet older = tracker.group(s, i - 1).forbidden;
    const TileSet newer = tracker.group(s, i).forbidden;
    if ((newer - older).size() != 0) return false;  // not nested
  }
  for (int k = 0; k < n; ++k) {
    int only_later = 0, capacity = 0;
    for (Tile t : hand) {
      int first = n;  // the oldest group that may hold t
      for (int i = 0; i < n && first == n; ++i)
        if (!tracker.group(s, i).forbidden.contains(t)) first = i;
      if (first == n) return false;
      if (first >= k) ++only_later;
    }
    for (int i = k; i < n; ++i) capacity += tracker.group(s, i).count;
    if (only_later > capacity) return false;
  }
  return true;
}

TEST(StrongTracker, NeverRulesOutTheTrueHands) {
  int draws_seen = 0;
  for (Format format : {Format::kTwoPlayers, Format::kThreePlayers, Format::kPartnerships}) {
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      for (const Snapshot& snap : play_and_record(format, seed, 0, 400)) {
        for (int s = 1; s < num_players(format); ++s) {
          ASSERT_TRUE(fits_groups(snap.tracker, s, snap.truth.hand(s)))
              << "format " << to_string(format) << " seed " << seed << " seat " << s << " hand "
              << to_string(snap.truth.hand(s));
          if (snap.tracker.num_groups(s) > 1) ++draws_seen;
        }
      }
    }
  }
  EXPECT_GT(draws_seen, 100);  // the check above was not vacuous
}

TEST(StrongSampler, RespectsSizesVoidsAndVisibleTiles) {
  int constrained = 0, strict = 0, total = 0;
  for (Format format : {Format::kTwoPlayers, Format::kThreePlayers, Format::kFourPlayers}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      for (const Snapshot& snap : play_and_record(format, seed, 0, 200)) {
        const View& v = snap.view;
        TileSet visible = v.hand();
        for (int i = 0; i < v.line().size(); ++i) visible.add(v.line()[i].tile);
        SplitMix64 rng(seed * 7919 + static_cast<uint64_t>(total));
        for (int k = 0; k < 8; ++k) {
          Position p;
          const bool kept = sample_world(v, &snap.tracker, rng, p);
          ++total;
          if (kept) ++strict;
          EXPECT_EQ(p.hands[v.seat()], v.hand());
          EXPECT_EQ(p.boneyard_size, v.boneyard_size());
          TileSet all = visible;
          for (int s = 0; s < v.num_players(); ++s) {
            EXPECT_EQ(p.hands[s].size(), v.hand_size(s));
            if (s == v.seat()) continue;
            EXPECT_TRUE((p.hands[s] & visible).empty()) << "a visible tile in a hidden hand";
            EXPECT_EQ((p.hands[s] & all).size(), 0) << "a tile dealt twice";
            all |= p.hands[s];
            if (kept) {
              EXPECT_TRUE(fits_groups(snap.tracker, s, p.hands[s]))
                  << "seat " << s << " holds " << to_string(p.hands[s]);
              // The simplest void: no tile the seat lacks in every group.
              EXPECT_TRUE((p.hands[s] & snap.tracker.forbidden_for_all(s)).empty());
              if (!snap.tracker.forbidden_for_all(s).empty()) ++constrained;
            }
          }
          for (int i = 0; i < p.boneyard_size; ++i) {
            EXPECT_FALSE(all.contains(p.boneyard[i])) << "a boneyard tile seen elsewhere";
            all.add(p.boneyard[i]);
          }
          EXPECT_EQ(all, TileSet::all());
          State s = snap.truth;
          std::string error;
          EXPECT_TRUE(State::from_position(p, 1, s, &error)) << error;
        }
      }
    }
  }
  EXPECT_GT(constrained, 100);
  // The constraints can always be met, since the truth meets them.
  EXPECT_GT(strict, total * 99 / 100);
}

TEST(StrongSampler, WithoutTrackerOnlySizes) {
  for (const Snapshot& snap : play_and_record(Format::kTwoPlayers, 5, 0, 50)) {
    SplitMix64 rng(3);
    Position p;
    EXPECT_TRUE(sample_world(snap.view, nullptr, rng, p));
    EXPECT_EQ(p.hands[1].size(), snap.view.hand_size(1));
    EXPECT_EQ(p.boneyard_size, snap.view.boneyard_size());
  }
}

TEST(StrongTracker, DrawAndPassMakeVoidsAndLaterDrawsMayHoldThem) {
  Tracker t;
  t.start_match(0, Format::kTwoPlayers);
  bot::HandStartInfo h;
  h.open_rule = OpenRule::kHighestDouble;
  h.open_with = Tile::of(5, 5);
  t.on_hand_start(h);
  // Nobody held 6-6 at the deal.
  EXPECT_TRUE(t.group(1, 0).forbidden.contains(Tile::of(6, 6)));
  EXPECT_FALSE(t.group(1, 0).forbidden.contains(Tile::of(4, 4)));
  const auto play = [&](int seat, int a, int b, End end) {
    Event e{};
    e.kind = EventKind::kPlay;
    e.seat = static_cast<int8_t>(seat);
    e.play = Play{Tile::of(a, b), end};
    t.on_event(e);
  };
  const auto draw = [&](int seat, int count) {
    Event e{};
    e.kind = EventKind::kDraw;
    e.seat = static_cast<int8_t>(seat);
    e.count = static_cast<int16_t>(count);
    t.on_event(e);
  };
  const auto pass = [&](int seat) {
    Event e{};
    e.kind = EventKind::kPass;
    e.seat = static_cast<int8_t>(seat);
    t.on_event(e);
  };
  play(0, 5, 5, End::kLeft);  // ends 5 and 5-5
  draw(1, 3);
  play(1, 5, 2, End::kLeft);  // the third drawn tile; ends 2 and 5-5
  ASSERT_EQ(t.num_groups(1), 2);
  EXPECT_EQ(t.group(1, 0).count, 7);
  EXPECT_EQ(t.group(1, 1).count, 2);  // two drawn tiles kept, both without a 5
  EXPECT_TRUE(t.group(1, 0).forbidden.contains(Tile::of(5, 1)));
  EXPECT_TRUE(t.group(1, 1).forbidden.contains(Tile::of(5, 1)));
  EXPECT_EQ(t.tracked_size(1), 9);
  play(0, 5, 3, End::kRight);  // ends 2 and 3
  draw(1, 2);
  play(1, 2, 4, End::kLeft);  // ends 4 and 3
  ASSERT_EQ(t.num_groups(1), 3);
  // The newest tile was drawn after the 5s were known missing: it may be a 5.
  EXPECT_FALSE(t.group(1, 2).forbidden.contains(Tile::of(5, 1)));
  EXPECT_TRUE(t.group(1, 2).forbidden.contains(Tile::of(3, 1)));
  EXPECT_TRUE(t.group(1, 0).forbidden.contains(Tile::of(2, 1)));
  EXPECT_TRUE(t.forbidden_for_all(1).contains(Tile::of(2, 6)));
  EXPECT_FALSE(t.forbidden_for_all(1).contains(Tile::of(5, 6)));
  play(0, 3, 1, End::kRight);  // ends 4 and 1
  pass(1);                     // every tile seat 1 holds lacks 4 and 1
  EXPECT_TRUE(t.forbidden_for_all(1).contains(Tile::of(4, 6)));
  EXPECT_TRUE(t.forbidden_for_all(1).contains(Tile::of(1, 6)));
  play(0, 4, 6, End::kLeft);  // ends 6 and 1
  // 6-5 can only be the tile drawn last; 6-0 comes off the oldest group that may hold it.
  play(1, 6, 5, End::kLeft);
  ASSERT_EQ(t.num_groups(1), 2);
  EXPECT_EQ(t.group(1, 0).count, 7);
  EXPECT_EQ(t.group(1, 1).count, 2);
  play(0, 5, 0, End::kLeft);  // ends 0 and 1 (not checked)
  play(1, 0, 6, End::kLeft);
  EXPECT_EQ(t.group(1, 0).count, 6);
  EXPECT_EQ(t.group(1, 1).count, 2);
}

// Without exploration the rollout plays a greedy play (core greedy.h), only its pick among
// equally greedy plays being random.
TEST(StrongRollout, WithoutExplorationPlaysGreedy) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    State s = State::new_match(Config::standard(Format::kTwoPlayers), seed);
    SplitMix64 rng(seed);
    while (!s.is_terminal()) {
      const Play p = rollout_pick(s, rng, 0);
      ASSERT_TRUE(s.legal_plays().contains(p)) << to_string(p);
      EXPECT_EQ(greedy_rank(s.line(), p),
                greedy_rank(s.line(), greedy_play(s.line(), s.legal_plays())))
          << to_string(p);
      s.apply(p);
    }
  }
}

TEST(StrongWinTable, IsSymmetricAndMonotone) {
  const WinTable& t = WinTable::for_config(Config::standard(Format::kTwoPlayers));
  EXPECT_NEAR(t.p_win(0, 0), 0.5, 0.01);
  EXPECT_NEAR(t.p_win(100, 150) + t.p_win(150, 100), 1.0, 0.02);
  EXPECT_GT(t.p_win(200, 0), 0.9);
  EXPECT_LT(t.p_win(0, 200), 0.1);
  EXPECT_EQ(t.p_win(250, 100), 1.0);
  for (int a = 0; a + 5 < 250; a += 5) EXPECT_GE(t.p_win(a + 5, 120), t.p_win(a, 120));
}

// A snapshot with a real choice to make.
Snapshot a_decision(uint64_t seed) {
  for (const Snapshot& snap : play_and_record(Format::kTwoPlayers, seed, 0, 400))
    if (snap.view.legal_plays().size() >= 3 && snap.view.line().size() > 4) return snap;
  ADD_FAILURE() << "no decision with three plays";
  return play_and_record(Format::kTwoPlayers, seed, 0, 1)[0];
}

TEST(StrongSearch, SameSeedAndSimulationsGiveTheSameChoice) {
  const auto far = steady_clock::now() + std::chrono::hours(1);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Snapshot snap = a_decision(seed);
    SearchConfig config;
    config.simulations = 300;
    const SearchResult a = search(snap.view, &snap.tracker, config, 42, far, far);
    const SearchResult b = search(snap.view, &snap.tracker, config, 42, far, far);
    config.threads = 2;
    const SearchResult c = search(snap.view, &snap.tracker, config, 42, far, far);
    EXPECT_EQ(a.worlds, 300);
    EXPECT_TRUE(snap.view.legal_plays().contains(a.play));
    EXPECT_EQ(a.play, b.play);
    EXPECT_EQ(a.means, b.means);
    EXPECT_EQ(a.play, c.play);
    EXPECT_EQ(a.means, c.means);  // integer sums: the thread count changes nothing
  }
}

TEST(StrongSearch, TheBotIsDeterministicForAMatchSeed) {
  const Snapshot snap = a_decision(11);
  SearchConfig config;
  config.simulations = 200;
  bot::MatchInfo info;
  info.seat = 0;
  info.seed = 1234;
  const bot::Clock clock{steady_clock::now(), milliseconds(1000), milliseconds(5000)};
  StrongBot x(info, config), y(info, config);
  EXPECT_EQ(x.choose_play(snap.view, clock), y.choose_play(snap.view, clock));
  EXPECT_EQ(x.last_result().means, y.last_result().means);
  EXPECT_EQ(x.last_result().worlds, 200);
}

TEST(StrongSearch, StopsAtTheBudgetAndNeverPastTheHardStop) {
  const Snapshot snap = a_decision(3);
  SearchConfig config;  // time mode
  const auto start = steady_clock::now();
  // A 40 ms budget and a hard stop 3 s later: stopping at the budget is told apart from
  // running to the hard stop by seconds, not by the machine's load.
  const SearchResult r = search(snap.view, &snap.tracker, config, 7, start + milliseconds(40),
                                start + milliseconds(3000));
  const auto took = steady_clock::now() - start;
  EXPECT_GT(r.worlds, 0);
  EXPECT_LT(took, milliseconds(1500));
  // A hard stop already passed: an immediate legal answer.
  config.simulations = 1000000;
  const SearchResult late = search(snap.view, &snap.tracker, config, 7, start, start);
  EXPECT_EQ(late.worlds, 0);
  EXPECT_TRUE(snap.view.legal_plays().contains(late.play));
}

TEST(StrongSearch, TheBotKeepsAMarginBeforeTheDeadline) {
  const Snapshot snap = a_decision(4);
  SearchConfig config;
  config.budget = milliseconds(5000);  // more than the referee allows
  bot::MatchInfo info;
  const auto start = steady_clock::now();
  // A move time long enough that its margin (a tenth) outlasts a busy machine's scheduling
  // delays, yet far below the bot's own budget: the clock must be what stops the search.
  const bot::Clock clock{start, milliseconds(1000), milliseconds(0)};
  StrongBot b(info, config);
  const Play p = b.choose_play(snap.view, clock);
  EXPECT_TRUE(snap.view.legal_plays().contains(p));
  EXPECT_LT(steady_clock::now(), clock.hard_deadline());
}

}  // namespace
}  // namespace allfives::strong
