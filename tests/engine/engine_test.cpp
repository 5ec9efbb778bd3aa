// The engine (sdk/engine): the hand solver against a plain minimax. Every position comes from
// uniformly random legal plays from a seeded deal, so the tests are the same on every run.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/policy.h"
#include "allfives/engine/solver.h"

namespace allfives::engine {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A decision of the seat to move: the truth, what the seat sees and what it knows.
struct Decision {
  State truth;
  View view;
  Knowledge knowledge;
};

int tiles_in_hands(const State& s) {
  int n = 0;
  for (int seat = 0; seat < num_players(s.format()); ++seat) n += s.hand(seat).size();
  return n;
}

// Plays uniformly random legal plays from the deal of `seed`, every seat's knowledge fed as
// its SDK would feed it, and returns the first decision from hand `min_hand` on that `fits`.
template <typename Fits>
std::optional<Decision> random_decision(const Config& config, uint64_t seed, int min_hand,
                                        Fits fits) {
  const int players = num_players(config.format);
  std::array<Knowledge, kMaxPlayers> knowledge;
  for (int seat = 0; seat < players; ++seat) knowledge[seat] = Knowledge(config.format, seat);
  EventList events;
  const auto feed = [&] {
    for (const Event& e : events)
      for (int seat = 0; seat < players; ++seat) knowledge[seat].observe(seen_by(e, seat));
    events.clear();
  };
  State state = State::new_match(config, seed, &events);
  feed();
  SplitMix64 rng(derive_seed(seed, 99));
  while (!state.is_terminal()) {
    const int seat = state.seat_to_move();
    if (state.hand_index() >= min_hand && fits(state))
      return Decision{state, state.view(seat), knowledge[seat]};
    const PlayList legal = state.legal_plays();
    state.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events);
    feed();
  }
  return std::nullopt;
}

Config with_target(Format format, int target) {
  Config c = Config::standard(format);
  c.target = target;
  return c;
}

// The configs the tests draw from: the standard targets, and low ones so that matches often
// end inside the hand being solved.
const Config kConfigs[] = {
    Config::standard(Format::kTwoPlayers), with_target(Format::kTwoPlayers, 60),
    Config::standard(Format::kPartnerships), with_target(Format::kPartnerships, 60)};

// ---------------------------------------------------------------------------------------------
// The solver against a plain minimax: no pruning, no table, the utilities written out again.

double step(const State& before, const State& after, int side, int hand, Utility u) {
  const int other = 1 - side;
  if (u == Utility::kPoints)
    return (after.score(side) - before.score(side)) - (after.score(other) - before.score(other));
  if (after.is_terminal()) {
    const int w = after.outcome().winner_side;
    return w == side ? 1.0 : w == -1 ? 0.5 : 0.0;
  }
  if (after.hand_index() != hand)
    return WinTable::for_config(after.config()).p_win(after.score(side), after.score(other));
  return 0;
}

double minimax(const State& s, int side, int hand, Utility u) {
  const bool mine = side_of(s.format(), s.seat_to_move()) == side;
  double best = mine ? -kInf : kInf;
  for (const Play p : s.legal_plays()) {
    State child = s;
    child.apply(p);
    double v = step(s, child, side, hand, u);
    if (!child.is_terminal() && child.hand_index() == hand) v += minimax(child, side, hand, u);
    best = mine ? std::max(best, v) : std::min(best, v);
  }
  return best;
}

std::vector<double> minimax_root(const State& s, Utility u) {
  const int side = side_of(s.format(), s.seat_to_move());
  std::vector<double> out;
  for (const Play p : s.legal_plays()) {
    State child = s;
    child.apply(p);
    double v = step(s, child, side, s.hand_index(), u);
    if (!child.is_terminal() && child.hand_index() == s.hand_index())
      v += minimax(child, side, s.hand_index(), u);
    out.push_back(v);
  }
  return out;
}

TEST(HandSolver, AgreesWithPlainMinimaxOnSmallEndgames) {
  HandSolver solver;
  int positions = 0, match_ends = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const Config& config = kConfigs[seed % std::size(kConfigs)];
    const auto d = random_decision(config, seed, static_cast<int>(seed % 3), [](const State& s) {
      return tiles_in_hands(s) + s.boneyard_size() <= 10;
    });
    if (!d) continue;
    ++positions;
    for (const Utility u : {Utility::kPoints, Utility::kWin}) {
      const auto solved = solver.solve(d->truth, u, 10'000'000);
      ASSERT_TRUE(solved) << "seed " << seed;
      const std::vector<double> expected = minimax_root(d->truth, u);
      ASSERT_EQ(solved->size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ((*solved)[i].play, d->truth.legal_plays()[static_cast<int>(i)]);
        EXPECT_EQ((*solved)[i].value, expected[i])
            << "seed " << seed << " play " << to_string((*solved)[i].play)
            << (u == Utility::kWin ? " (win)" : " (points)");
      }
    }
    State probe = d->truth;
    while (!probe.is_terminal() && probe.hand_index() == d->truth.hand_index())
      probe.apply(probe.legal_plays()[0]);
    match_ends += probe.is_terminal();
  }
  EXPECT_GE(positions, 200);
  EXPECT_GT(match_ends, 0);  // some solves saw the match end inside the hand
}

TEST(HandSolver, RefusesOverBudgetAndMoreThanTwoSides) {
  HandSolver solver;
  const auto d = random_decision(Config::standard(Format::kTwoPlayers), 5, 0, [](const State& s) {
    return s.legal_plays().size() >= 2 && s.line().size() >= 2;
  });
  ASSERT_TRUE(d);
  EXPECT_FALSE(solver.solve(d->truth, Utility::kPoints, 1));
  EXPECT_TRUE(solver.solve(d->truth, Utility::kPoints, 50'000'000));
  const auto three = random_decision(Config::standard(Format::kThreePlayers), 5, 0,
                                     [](const State&) { return true; });
  ASSERT_TRUE(three);
  EXPECT_FALSE(solver.solve(three->truth, Utility::kPoints, 1'000'000));
}

}  // namespace
}  // namespace allfives::engine
