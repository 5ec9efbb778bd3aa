// The engine's information-set MCTS (sdk/engine/tree_search.h): where the seat knows every tile
// it converges to the exact solver's best play; it is deterministic for a seed; its visits add
// up to its iterations; it declines formats of more than two sides.
#include <algorithm>
#include <cstdint>
#include <optional>

#include <gtest/gtest.h>

#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/solver.h"
#include "allfives/engine/tree_search.h"

namespace allfives::engine {
namespace {

struct Spot {
  State state;
  Knowledge knowledge;
};

// The first decision with a choice of the seat to move that satisfies `fits`, after random
// plays from the deal of `seed`, with that seat's knowledge.
template <typename Fits>
std::optional<Spot> a_spot(Format format, uint64_t seed, Fits fits) {
  const Config config = Config::standard(format);
  const int players = num_players(format);
  std::array<Knowledge, kMaxPlayers> knowledge;
  for (int s = 0; s < players; ++s) knowledge[s] = Knowledge(format, s);
  EventList events;
  State state = State::new_match(config, seed, &events);
  SplitMix64 rng(derive_seed(seed, 3));
  while (!state.is_terminal()) {
    for (const Event& e : events)
      for (int s = 0; s < players; ++s) knowledge[s].observe(seen_by(e, s));
    events.clear();
    const int seat = state.seat_to_move();
    if (state.legal_plays().size() > 1 && fits(state)) return Spot{state, knowledge[seat]};
    const PlayList legal = state.legal_plays();
    state.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events);
  }
  return std::nullopt;
}

int tiles_in_hands(const State& s) {
  int n = 0;
  for (int seat = 0; seat < num_players(s.format()); ++seat) n += s.hand(seat).size();
  return n;
}

TEST(TreeSearch, FindsTheSolversBestPlayWhereEverythingIsKnown) {
  HandSolver solver;
  int positions = 0, best_found = 0;
  double worst_gap = 0;
  for (uint64_t seed = 1; seed <= 200 && positions < 60; ++seed) {
    const auto spot = a_spot(Format::kTwoPlayers, seed, [](const State& s) {
      return s.boneyard_size() == 0 && tiles_in_hands(s) <= 9;
    });
    if (!spot) continue;
    const View view = spot->state.view(spot->state.seat_to_move());
    if (WorldSampler(view, &spot->knowledge).count() != 1) continue;
    const auto exact = solver.solve(spot->state, Utility::kWin, 5000000);
    ASSERT_TRUE(exact);
    double best = 0;
    for (const PlayValue& v : *exact) best = std::max(best, v.value);
    TreeConfig config;
    config.iterations = 20000;
    config.seed = seed;
    config.epsilon_permille = 0;
    const TreeResult r = tree_search(view, &spot->knowledge, config);
    ASSERT_TRUE(r.ok);
    const double gap = best - (*exact)[static_cast<size_t>(r.best)].value;
    worst_gap = std::max(worst_gap, gap);
    ++positions;
    if (gap < 1e-9) ++best_found;
  }
  ASSERT_GE(positions, 30);
  EXPECT_GE(best_found, positions * 9 / 10) << best_found << " of " << positions;
  EXPECT_LT(worst_gap, 0.05);
}

TEST(TreeSearch, IsDeterministicAndCountsItsIterations) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const auto spot = a_spot(Format::kTwoPlayers, seed, [](const State& s) {
      return s.line().size() >= 3;
    });
    ASSERT_TRUE(spot);
    const View view = spot->state.view(spot->state.seat_to_move());
    TreeConfig config;
    config.iterations = 500;
    config.seed = seed;
    const TreeResult a = tree_search(view, &spot->knowledge, config);
    const TreeResult b = tree_search(view, &spot->knowledge, config);
    ASSERT_TRUE(a.ok);
    EXPECT_EQ(a.iterations, 500);
    EXPECT_EQ(a.visits, b.visits);
    EXPECT_EQ(a.means, b.means);
    int visits = 0;
    for (const int v : a.visits) visits += v;
    EXPECT_EQ(visits, 500);
    EXPECT_EQ(a.visits[a.best], *std::max_element(a.visits.begin(), a.visits.end()));
    const StopAt stop_at_100 = [](int done) { return done >= 100; };
    EXPECT_EQ(tree_search(view, &spot->knowledge, config, stop_at_100).iterations, 100);
  }
}

// Partners are one side: the tree searches for it, each seat's plays valued for its own side.
TEST(TreeSearch, SearchesPartnerships) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto spot = a_spot(Format::kPartnerships, seed, [](const State& s) {
      return s.line().size() >= 4;
    });
    ASSERT_TRUE(spot);
    TreeConfig config;
    config.iterations = 300;
    config.seed = seed;
    const TreeResult r =
        tree_search(spot->state.view(spot->state.seat_to_move()), &spot->knowledge, config);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.iterations, 300);
    for (const double m : r.means) EXPECT_TRUE(m >= 0 && m <= 1);
  }
}

TEST(TreeSearch, DeclinesMoreThanTwoSides) {
  const auto spot = a_spot(Format::kThreePlayers, 5, [](const State&) { return true; });
  ASSERT_TRUE(spot);
  const TreeResult r =
      tree_search(spot->state.view(spot->state.seat_to_move()), &spot->knowledge, TreeConfig{});
  EXPECT_FALSE(r.ok);
}

}  // namespace
}  // namespace allfives::engine
