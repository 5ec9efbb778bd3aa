// The engine's rollouts and solves allocate nothing: an evaluation's allocations (the world
// sampler's tables, the candidate pool) do not grow with the number of worlds. Counted by
// replacing the global operator new for this test binary.
#include <atomic>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "allfives/core/knowledge.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "allfives/engine/evaluate.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace allfives::engine {
namespace {

// The first decision of seat 0 with a choice after `plays` random plays of hand 0.
struct Spot {
  State state;
  Knowledge knowledge;
};

Spot a_spot(uint64_t seed, int plays) {
  const Config config = Config::standard(Format::kTwoPlayers);
  Knowledge knowledge(config.format, 0);
  EventList events;
  State state = State::new_match(config, seed, &events);
  SplitMix64 rng(seed);
  for (int i = 0;; ++i) {
    for (const Event& e : events) knowledge.observe(seen_by(e, 0));
    events.clear();
    if (i >= plays && state.seat_to_move() == 0 && state.legal_plays().size() > 1)
      return Spot{state, knowledge};
    const PlayList legal = state.legal_plays();
    state.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events);
  }
}

long allocations_of(const Spot& spot, int worlds, HandSolver& solver, Evaluation& out) {
  EvalConfig config;
  config.worlds = worlds;
  config.candidates = 8;
  const View view = spot.state.view(0);
  const long before = g_allocations.load();
  evaluate(view, &spot.knowledge, config, solver, out);
  return g_allocations.load() - before;
}

TEST(EngineAllocations, DoNotGrowWithTheWorlds) {
  HandSolver solver;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (const int plays : {3, 9}) {
      const Spot spot = a_spot(seed, plays);
      Evaluation out;
      allocations_of(spot, 1000, solver, out);  // grows out's buffers once
      const long few = allocations_of(spot, 20, solver, out);
      const long many = allocations_of(spot, 1000, solver, out);
      EXPECT_EQ(few, many) << "seed " << seed << ", after " << plays << " plays";
      EXPECT_LT(many, 40);
    }
  }
}

}  // namespace
}  // namespace allfives::engine
