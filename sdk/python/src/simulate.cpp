#include "simulate.h"

#include <algorithm>
#include <thread>

#include "allfives/core/greedy.h"

namespace allfives::python {

namespace {
constexpr uint64_t kPolicySalt = 0x706f6c6963696573ull;  // "policies"
}  // namespace

bool parse_policy(std::string_view name, Policy& out) {
  if (name == "random") {
    out = Policy::kRandom;
  } else if (name == "greedy") {
    out = Policy::kGreedy;
  } else {
    return false;
  }
  return true;
}

Play pick(Policy policy, const State& state, SplitMix64& rng, int epsilon_permille) {
  const PlayList legal = state.legal_plays();
  const auto random = [&] {
    return legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))];
  };
  if (policy == Policy::kRandom) return random();
  if (epsilon_permille > 0 && static_cast<int>(rng.below(1000)) < epsilon_permille) return random();
  return greedy_play(state.line(), legal);
}

int play_out(State& state, Policy policy, SplitMix64& rng, int epsilon_permille, bool whole_match) {
  const int hand = state.hand_index();
  int plays = 0;
  while (!state.is_terminal() && (whole_match || state.hand_index() == hand)) {
    state.apply(pick(policy, state, rng, epsilon_permille));
    ++plays;
  }
  return plays;
}

BatchResult play_matches(const Config& config, const std::vector<Policy>& policies, int64_t count,
                         uint64_t seed, int threads, int epsilon_permille) {
  const auto run = [&](int64_t from, int64_t to, BatchResult& r) {
    for (int64_t i = from; i < to; ++i) {
      State s = State::new_match(config, derive_seed(seed, static_cast<uint64_t>(i)));
      SplitMix64 rng(derive_seed(seed ^ kPolicySalt, static_cast<uint64_t>(i)));
      while (!s.is_terminal()) {
        s.apply(pick(policies[static_cast<size_t>(s.seat_to_move())], s, rng, epsilon_permille));
        ++r.plays;
      }
      ++r.matches;
      r.hands += s.hand_index() + 1;
      const int w = s.outcome().winner_side;
      if (w < 0) {
        ++r.draws;
      } else {
        ++r.wins[static_cast<size_t>(w)];
      }
      for (int side = 0; side < num_sides(config.format); ++side) r.points[side] += s.score(side);
    }
  };
  threads = static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(count, 1)));
  std::vector<BatchResult> parts(static_cast<size_t>(threads));
  {
    std::vector<std::jthread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back(
          [&, t] { run(count * t / threads, count * (t + 1) / threads, parts[t]); });
    run(0, count / threads, parts[0]);
  }
  BatchResult total;
  for (const BatchResult& p : parts) {
    total.matches += p.matches;
    total.plays += p.plays;
    total.hands += p.hands;
    total.draws += p.draws;
    for (int side = 0; side < kMaxPlayers; ++side) {
      total.wins[side] += p.wins[side];
      total.points[side] += p.points[side];
    }
  }
  return total;
}

}  // namespace allfives::python
