// The opponent model (sdk/engine/opponent_model.h): its likelihood against one computed from the
// hands the other seats really held at each of their plays (kept as the match was played, not
// rebuilt from the line), and its pull of sampled worlds towards the truth against an opponent
// that plays as the model expects.
#include <array>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "allfives/core/greedy.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/opponent_model.h"

namespace allfives::engine {
namespace {

// One play as it was made: the hand and the line just before it.
struct Made {
  TileSet hand;
  Line line;
  Play play;
};

// The model's probability of `m`, written out again from its definition.
double model_probability(const Made& m, const OpponentModel& model) {
  double sum = 0;
  int options = 0;
  for (const Tile t : m.hand)
    for (const End e : {End::kLeft, End::kRight})
      if (m.line.fits(t, e)) {
        ++options;
        sum += std::exp(model.beta * points_after(m.line, Play{t, e}));
      }
  return (1 - model.epsilon) * std::exp(model.beta * points_after(m.line, m.play)) / sum +
         model.epsilon / options;
}

// A two-player match: seat 1 plays greedy, seat 0 at random. Calls `at(state, knowledge of seat
// 0, the plays seat 1 made since it last drew)` at each of seat 0's decisions.
template <typename At>
void play_match(uint64_t seed, At at) {
  const Config config = Config::standard(Format::kTwoPlayers);
  Knowledge knowledge(config.format, 0);
  std::vector<Made> since_draw;
  EventList events;
  const auto feed = [&] {
    for (const Event& e : events) {
      knowledge.observe(seen_by(e, 0));
      if (e.kind == EventKind::kHandStart || (e.kind == EventKind::kDraw && e.seat == 1))
        since_draw.clear();
    }
    events.clear();
  };
  State state = State::new_match(config, seed, &events);
  feed();
  SplitMix64 rng(derive_seed(seed, 7));
  while (!state.is_terminal()) {
    const PlayList legal = state.legal_plays();
    Play play;
    if (state.seat_to_move() == 0) {
      at(state, knowledge, since_draw);
      play = legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))];
    } else {
      play = greedy_play(state.line(), legal);
      if (!state.line().empty()) since_draw.push_back(Made{state.hand(1), state.line(), play});
    }
    state.apply(play, &events);
    feed();
  }
}

TEST(PlayLikelihood, IsTheModelsProbabilityOfThePlaysMadeSinceTheLastDraw) {
  const OpponentModel model{0.4, 0.15};
  int checked = 0, with_plays = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    play_match(seed, [&](const State& truth, const Knowledge& k, const std::vector<Made>& made) {
      const PlayLikelihood likelihood(truth.view(0), k, model);
      double expected = 1;
      for (const Made& m : made) expected *= model_probability(m, model);
      ASSERT_EQ(likelihood.plays(), static_cast<int>(made.size()));
      EXPECT_NEAR(likelihood.of(truth), expected, 1e-12 * expected);
      ++checked;
      if (!made.empty()) ++with_plays;
    });
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(with_plays, 300);
}

// The ways to put `tiles` into seat 1's groups, each group exactly full and holding no tile
// it cannot: every assignment tried.
long brute_force_deals(const std::vector<Tile>& tiles, const Knowledge& k, size_t i,
                       std::array<int, Knowledge::kMaxGroups>& room) {
  if (i == tiles.size()) return 1;
  long ways = 0;
  for (int g = 0; g < k.num_groups(1); ++g) {
    if (room[g] == 0 || k.group(1, g).forbidden.contains(tiles[i])) continue;
    --room[g];
    ways += brute_force_deals(tiles, k, i + 1, room);
    ++room[g];
  }
  return ways;
}

TEST(PlayLikelihood, CountsTheDealsBehindAWorld) {
  const OpponentModel model;
  int checked = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    play_match(seed, [&](const State& truth, const Knowledge& k, const std::vector<Made>&) {
      if (k.num_groups(1) < 2) return;
      const View view = truth.view(0);
      const WorldSampler sampler(view, &k);
      const PlayLikelihood likelihood(view, k, model);
      ASSERT_TRUE(likelihood.deals_vary());
      SplitMix64 rng(seed);
      State world = truth;
      for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(sampler.sample(rng, world));
        std::vector<Tile> tiles;
        for (const Tile t : world.hand(1)) tiles.push_back(t);
        std::array<int, Knowledge::kMaxGroups> room{};
        for (int g = 0; g < k.num_groups(1); ++g) room[g] = k.group(1, g).count;
        const long expected = brute_force_deals(tiles, k, 0, room);
        EXPECT_GT(expected, 0);
        EXPECT_EQ(likelihood.deals(world), static_cast<double>(expected));
        ++checked;
      }
    });
  }
  EXPECT_GT(checked, 100);
}

// Against a greedy opponent, worlds weighted by a sharp model hold more of its true tiles than
// uniform worlds do, summed over many decisions.
TEST(PlayLikelihood, PullsWorldsTowardsAGreedyOpponentsTrueHand) {
  const OpponentModel model{3.0, 0.05};
  double uniform = 0, weighted = 0;
  int decisions = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    play_match(seed, [&](const State& truth, const Knowledge& k, const std::vector<Made>& made) {
      if (made.size() < 2) return;
      const View view = truth.view(0);
      const WorldSampler sampler(view, &k);
      ASSERT_TRUE(sampler.ok());
      const PlayLikelihood likelihood(view, k, model);
      SplitMix64 rng(derive_seed(seed, static_cast<uint64_t>(decisions)));
      State world = truth;
      double sum = 0, weighted_sum = 0, weights = 0;
      constexpr int kWorlds = 400;
      for (int i = 0; i < kWorlds; ++i) {
        ASSERT_TRUE(sampler.sample(rng, world));
        const double overlap = (world.hand(1) & truth.hand(1)).size();
        const double w = likelihood.of(world);
        sum += overlap;
        weighted_sum += w * overlap;
        weights += w;
      }
      uniform += sum / kWorlds;
      weighted += weighted_sum / weights;
      ++decisions;
    });
  }
  ASSERT_GT(decisions, 100);
  EXPECT_GT(weighted / decisions, uniform / decisions + 0.1)
      << "uniform " << uniform / decisions << " weighted " << weighted / decisions;
}

}  // namespace
}  // namespace allfives::engine
