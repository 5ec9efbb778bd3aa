// Random self-play in the rules core, one thread: how many plays and matches per second.
//
//   build/bench/bench_core --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// The "plays" counter is the figure the foundation issue sets a target for (>= 10 M/s).
#include <benchmark/benchmark.h>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"

namespace {

using allfives::Config;
using allfives::Format;
using allfives::SplitMix64;
using allfives::State;

// Plays whole matches with uniformly random legal plays; counts plays and matches.
void BM_RandomSelfPlay(benchmark::State& bs, Format format) {
  SplitMix64 rng(12345);
  uint64_t seed = 0;
  int64_t plays = 0, matches = 0;
  const Config config = Config::standard(format);
  for (auto _ : bs) {
    State s = State::new_match(config, seed++);
    while (!s.is_terminal()) {
      const auto legal = s.legal_plays();
      s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))]);
      ++plays;
    }
    ++matches;
    benchmark::DoNotOptimize(s);
  }
  bs.counters["plays"] =
      benchmark::Counter(static_cast<double>(plays), benchmark::Counter::kIsRate);
  bs.counters["matches"] =
      benchmark::Counter(static_cast<double>(matches), benchmark::Counter::kIsRate);
  bs.counters["plays_per_match"] = static_cast<double>(plays) / static_cast<double>(matches);
}

BENCHMARK_CAPTURE(BM_RandomSelfPlay, two_players, Format::kTwoPlayers)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomSelfPlay, three_players, Format::kThreePlayers)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomSelfPlay, four_players, Format::kFourPlayers)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomSelfPlay, partnerships, Format::kPartnerships)
    ->Unit(benchmark::kMicrosecond);

// The cost of copying a state, which searching bots pay once per simulation.
void BM_CopyState(benchmark::State& bs) {
  State s = State::new_match(Config::standard(Format::kPartnerships), 7);
  for (auto _ : bs) {
    State copy = s;
    benchmark::DoNotOptimize(copy);
  }
  bs.counters["bytes"] = sizeof(State);
}
BENCHMARK(BM_CopyState);

}  // namespace

BENCHMARK_MAIN();
