// The engine (sdk/engine): the hand solver against a plain minimax, the evaluation against the
// solver where the seat knows everything, the sampled evaluation against the mean over every
// world the seat cannot tell apart, and its determinism and error bars. Every position comes
// from uniformly random legal plays from a seeded deal, so the tests are the same on every run.
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
#include "allfives/engine/evaluate.h"
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

// ---------------------------------------------------------------------------------------------
// A seat that knows everything gets the solver's values.

TEST(Evaluate, IsExactWhereTheSeatKnowsEverything) {
  HandSolver solver, reference;
  EvalConfig config;
  config.worlds = 50;
  int positions = 0, too_big = 0;
  for (uint64_t seed = 1; seed <= 250; ++seed) {
    const Config& c = kConfigs[seed % 2];  // two players
    const auto d = random_decision(c, seed, static_cast<int>(seed % 3), [](const State& s) {
      return s.boneyard_size() == 0 && s.legal_plays().size() >= 2 && tiles_in_hands(s) <= 14;
    });
    if (!d) continue;
    ++positions;
    config.seed = seed;
    const auto points = reference.solve(d->truth, Utility::kPoints, config.exact_node_budget);
    const auto win = reference.solve(d->truth, Utility::kWin, config.exact_node_budget);
    for (const Knowledge* k : {&d->knowledge, static_cast<const Knowledge*>(nullptr)}) {
      const Evaluation e = evaluate(d->view, k, config, solver);
      if (!points || !win) {
        // Too big to solve within the budget (both hands still long): sampled instead.
        EXPECT_FALSE(e.exact);
        EXPECT_EQ(e.worlds, config.worlds);
        ++too_big;
        continue;
      }
      ASSERT_TRUE(e.exact) << "seed " << seed;
      EXPECT_EQ(e.worlds, 1);
      EXPECT_EQ(e.solved_worlds, 1);
      ASSERT_EQ(e.options.size(), points->size());
      for (size_t i = 0; i < points->size(); ++i) {
        EXPECT_EQ(e.options[i].play, (*points)[i].play);
        EXPECT_EQ(e.options[i].points, (*points)[i].value) << "seed " << seed;
        EXPECT_EQ(e.options[i].win, (*win)[i].value) << "seed " << seed;
        EXPECT_EQ(e.options[i].points_se, 0);
        EXPECT_EQ(e.options[i].win_se, 0);
        EXPECT_EQ(e.difference_se(0, static_cast<int>(i), Utility::kPoints), 0);
      }
    }
    // Over its node budget the seat's own solve gives way to sampled worlds.
    EvalConfig starved = config;
    starved.exact_node_budget = 1;
    starved.exact_tiles = 0;
    const Evaluation sampled = evaluate(d->view, &d->knowledge, starved, solver);
    EXPECT_FALSE(sampled.exact);
    EXPECT_EQ(sampled.worlds, config.worlds);
    EXPECT_EQ(sampled.solved_worlds, 0);
  }
  EXPECT_GE(positions, 100);
  EXPECT_LT(too_big, positions / 10);
}

// ---------------------------------------------------------------------------------------------
// The sampled evaluation against the exact mean over every world the seat cannot tell apart.

// Every hidden-tile assignment the sampler can draw (each as likely as any other), found by
// sampling until there are count() of them, each with every order of its boneyard.
std::vector<Position> every_world(const WorldSampler& sampler, uint64_t seed) {
  std::map<std::array<uint32_t, kMaxPlayers>, Position> sets;
  SplitMix64 rng(seed);
  for (uint64_t tries = 0; sets.size() < sampler.count() && tries < 100 * sampler.count() + 1000;
       ++tries) {
    Position p;
    sampler.sample(rng, p);
    std::array<uint32_t, kMaxPlayers> key{};
    for (int s = 0; s < kMaxPlayers; ++s) key[s] = p.hands[s].bits();
    sets.emplace(key, p);
  }
  EXPECT_EQ(sets.size(), sampler.count());
  std::vector<Position> worlds;
  for (auto& [key, p] : sets) {
    Tile* first = p.boneyard.data();
    Tile* last = first + p.boneyard_size;
    std::sort(first, last);
    do worlds.push_back(p);
    while (std::next_permutation(first, last));
  }
  return worlds;
}

int factorial(int n) {
  return n <= 1 ? 1 : n * factorial(n - 1);
}

TEST(Evaluate, SampledWorldsAgreeWithEveryWorldSolved) {
  HandSolver solver;
  EvalConfig config;
  config.worlds = 300;
  config.exact_tiles = 8;
  config.exact_boneyard = 3;
  config.world_node_budget = 10'000'000;
  int positions = 0, pairs = 0, separated = 0;
  double paired = 0, unpaired = 0;
  for (uint64_t seed = 1; positions < 60 && seed <= 800; ++seed) {
    const Config& c = kConfigs[seed % 2];  // two players
    const auto d = random_decision(c, seed, static_cast<int>(seed % 3), [](const State& s) {
      const int bone = s.boneyard_size();
      return bone >= 1 && bone <= 3 && tiles_in_hands(s) <= 8 && s.legal_plays().size() >= 2;
    });
    if (!d) continue;
    const WorldSampler sampler(d->view, &d->knowledge);
    ASSERT_TRUE(sampler.ok());
    if (sampler.count() * factorial(d->view.boneyard_size()) > 400) continue;
    ++positions;

    // The exact means: every world, solved.
    const int n = d->view.legal_plays().size();
    std::vector<double> points(n, 0.0), win(n, 0.0);
    const std::vector<Position> worlds = every_world(sampler, seed);
    State world = State::new_match(c, 0);
    for (const Position& p : worlds) {
      ASSERT_TRUE(State::from_position(p, 1, world, nullptr));
      const auto sp = solver.solve(world, Utility::kPoints, 10'000'000);
      const auto sw = solver.solve(world, Utility::kWin, 10'000'000);
      ASSERT_TRUE(sp && sw);
      for (int i = 0; i < n; ++i) {
        points[i] += (*sp)[i].value / worlds.size();
        win[i] += (*sw)[i].value / worlds.size();
      }
    }

    config.seed = seed;
    const Evaluation e = evaluate(d->view, &d->knowledge, config, solver);
    ASSERT_FALSE(e.exact);
    ASSERT_EQ(e.solved_worlds, config.worlds) << "seed " << seed;
    for (const Utility u : {Utility::kPoints, Utility::kWin}) {
      const std::vector<double>& exact = u == Utility::kPoints ? points : win;
      for (int a = 0; a < n; ++a) {
        EXPECT_LE(std::abs(e.mean(a, u) - exact[a]), 4 * e.se(a, u) + 1e-9)
            << "seed " << seed << " option " << a;
        for (int b = a + 1; b < n; ++b) {
          ++pairs;
          if (u == Utility::kPoints) {
            paired += e.difference_se(a, b, u);
            unpaired += std::hypot(e.se(a, u), e.se(b, u));
          }
          const double gap = exact[a] - exact[b];
          if (std::abs(gap) <= 2 * e.difference_se(a, b, u)) continue;
          ++separated;
          EXPECT_GT((e.mean(a, u) - e.mean(b, u)) * gap, 0)
              << "seed " << seed << " options " << a << ", " << b << ": exact gap " << gap
              << ", sampled " << e.mean(a, u) - e.mean(b, u) << " ± " << e.difference_se(a, b, u);
        }
      }
    }
  }
  EXPECT_EQ(positions, 60);
  EXPECT_GT(separated, pairs / 4);  // the ranking check is not vacuous
  // The same worlds for every option make the differences surer.
  EXPECT_LT(paired, unpaired);
  std::printf("%d positions, %d of %d pairs separated, paired/unpaired errors %.2f\n", positions,
              separated, pairs, paired / unpaired);
}

// ---------------------------------------------------------------------------------------------
// Determinism and error bars.

std::optional<Decision> a_mid_hand_decision(uint64_t seed) {
  return random_decision(Config::standard(Format::kTwoPlayers), seed, 0, [](const State& s) {
    return s.line().size() >= 4 && s.boneyard_size() >= 4 && s.legal_plays().size() >= 3;
  });
}

TEST(Evaluate, SameSeedSameResult) {
  HandSolver solver;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto d = a_mid_hand_decision(seed);
    ASSERT_TRUE(d);
    EvalConfig config;
    config.worlds = 200;
    config.seed = seed;
    const Evaluation a = evaluate(d->view, &d->knowledge, config, solver);
    Evaluation b;
    evaluate(d->view, &d->knowledge, config, solver, b);
    EXPECT_EQ(a.points_by_world, b.points_by_world);
    EXPECT_EQ(a.win_by_world, b.win_by_world);
    for (size_t i = 0; i < a.options.size(); ++i) {
      EXPECT_EQ(a.options[i].points, b.options[i].points);
      EXPECT_EQ(a.options[i].win_se, b.options[i].win_se);
    }
    config.seed = seed + 1000;
    const Evaluation c = evaluate(d->view, &d->knowledge, config, solver);
    EXPECT_NE(a.points_by_world, c.points_by_world);
  }
}

// Solving one utility leaves its values as solving both gives them, and the other utility's
// values those of the rollouts; the worlds, and the split runs of a threaded search, agree.
TEST(Evaluate, OneUtilitySolvedAndSplitRunsAgree) {
  HandSolver solver;
  int solved = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const auto d = random_decision(kConfigs[0], seed, 0, [](const State& s) {
      return tiles_in_hands(s) <= 8 && s.boneyard_size() <= 2 && s.boneyard_size() > 0;
    });
    if (!d) continue;
    EvalConfig both;
    both.worlds = 40;
    both.seed = seed;
    EvalConfig win_only = both;
    win_only.solve_only = Utility::kWin;
    const Evaluation a = evaluate(d->view, &d->knowledge, both, solver);
    const Evaluation b = evaluate(d->view, &d->knowledge, win_only, solver);
    EXPECT_EQ(a.win_by_world, b.win_by_world);
    EXPECT_EQ(a.solved_worlds, b.solved_worlds);
    solved += b.solved_worlds;
    EvalConfig first = both, second = both;
    first.worlds = 15;
    second.first_world = 15;
    second.worlds = 25;
    std::vector<double> joined = evaluate(d->view, &d->knowledge, first, solver).points_by_world;
    const std::vector<double> rest =
        evaluate(d->view, &d->knowledge, second, solver).points_by_world;
    joined.insert(joined.end(), rest.begin(), rest.end());
    EXPECT_EQ(joined, a.points_by_world);
  }
  EXPECT_GT(solved, 200);
}

TEST(Evaluate, ErrorsShrinkWithMoreWorldsAndPairingHelpsALittleMidHand) {
  HandSolver solver;
  double paired = 0, unpaired = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const auto d = a_mid_hand_decision(seed);
    ASSERT_TRUE(d);
    EvalConfig config;
    config.seed = seed;
    config.worlds = 100;
    const Evaluation few = evaluate(d->view, &d->knowledge, config, solver);
    config.worlds = 1600;
    const Evaluation many = evaluate(d->view, &d->knowledge, config, solver);
    EXPECT_EQ(many.worlds, 1600);
    EXPECT_EQ(many.solved_worlds, 0);
    for (size_t i = 0; i < few.options.size(); ++i) {
      // 16 times the worlds: a quarter of the error, give or take the estimate's own noise.
      EXPECT_LT(many.options[i].points_se, 0.4 * few.options[i].points_se);
      EXPECT_LT(many.options[i].win_se, 0.4 * few.options[i].win_se);
      EXPECT_NEAR(many.options[i].points, few.options[i].points, 4 * few.options[i].points_se);
    }
    const int n = static_cast<int>(many.options.size());
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        paired += many.difference_se(a, b, Utility::kPoints);
        unpaired += std::hypot(many.se(a, Utility::kPoints), many.se(b, Utility::kPoints));
      }
  }
  // Mid-hand the rollouts part ways after the first play, so pairing helps only a little.
  EXPECT_LT(paired, unpaired);
}

TEST(Evaluate, EveryFormatGetsFiniteValues) {
  HandSolver solver;
  for (const Format f : kAllFormats) {
    const auto d = random_decision(Config::standard(f), 11, 0, [](const State& s) {
      return s.line().size() >= 2 && s.legal_plays().size() >= 2;
    });
    ASSERT_TRUE(d);
    EvalConfig config;
    config.worlds = 50;
    const Evaluation e = evaluate(d->view, &d->knowledge, config, solver);
    EXPECT_EQ(e.worlds, 50) << to_string(f);
    EXPECT_TRUE(e.knowledge_used);
    for (const OptionValue& o : e.options) {
      EXPECT_TRUE(std::isfinite(o.points) && std::isfinite(o.points_se)) << to_string(f);
      EXPECT_GE(o.win, 0);
      EXPECT_LE(o.win, 1);
    }
  }
}

}  // namespace
}  // namespace allfives::engine
