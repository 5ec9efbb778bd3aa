// The strong sample bot's search library: the rollout plays the core's greedy policy, and a
// fixed seed and number of simulations give the same choice every time (whatever the thread
// count). What a seat knows and the worlds sampled from it are the core's, tested in
// tests/core/knowledge_test.cpp and resample_test.cpp.
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

// A seat's decision seen from `seat`: its view, its knowledge fed with the events it may see,
// and the true state.
struct Snapshot {
  View view;
  Knowledge knowledge;
  State truth;
};

// Plays a match with the rollout policy for every seat (greedy-ish, some random plays) and
// records every decision of `seat`, with that seat's knowledge fed as the SDK would feed it.
std::vector<Snapshot> play_and_record(Format format, uint64_t seed, int seat, int max_snaps) {
  std::vector<Snapshot> out;
  Knowledge knowledge(format, seat);
  EventList events;
  const auto feed = [&] {
    for (const Event& e : events) knowledge.observe(seen_by(e, seat));
    events.clear();
  };
  State state = State::new_match(Config::standard(format), seed, &events);
  feed();
  SplitMix64 rng(seed ^ 0xabcdef);
  while (!state.is_terminal() && static_cast<int>(out.size()) < max_snaps) {
    if (state.seat_to_move() == seat) out.push_back(Snapshot{state.view(seat), knowledge, state});
    state.apply(rollout_pick(state, rng, 300), &events);
    feed();
  }
  return out;
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
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Snapshot snap = a_decision(seed);
    SearchConfig config;
    config.engine = seed % 2 ? Engine::kV1 : Engine::kV2;
    config.simulations = 300;
    const SearchResult a = search(snap.view, &snap.knowledge, config, 42, far, far);
    const SearchResult b = search(snap.view, &snap.knowledge, config, 42, far, far);
    config.threads = 2;
    const SearchResult c = search(snap.view, &snap.knowledge, config, 42, far, far);
    EXPECT_EQ(a.worlds, 300);
    EXPECT_TRUE(snap.view.legal_plays().contains(a.play));
    EXPECT_EQ(a.play, b.play);
    EXPECT_EQ(a.means, b.means);
    EXPECT_EQ(a.play, c.play);
    EXPECT_EQ(a.means, c.means);  // summed in world order: the thread count changes nothing
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
  const SearchResult r = search(snap.view, &snap.knowledge, config, 7, start + milliseconds(40),
                                start + milliseconds(3000));
  const auto took = steady_clock::now() - start;
  EXPECT_GT(r.worlds, 0);
  EXPECT_LT(took, milliseconds(1500));
  // A hard stop already passed: an immediate legal answer.
  config.simulations = 1000000;
  const SearchResult late = search(snap.view, &snap.knowledge, config, 7, start, start);
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

TEST(StrongParams, EachParamOverridesItsFlagAndNothingElse) {
  SearchConfig flags;
  flags.epsilon_permille = 100;
  flags.simulations = 300;
  std::vector<std::string> unknown;
  const SearchConfig c = with_params(flags,
                                     {{"epsilon", 0.25},
                                      {"exploration", 0.7},
                                      {"model_beta", 1.5},
                                      {"candidates", 3.6},
                                      {"exact_tiles", 5.0},
                                      {"budget_ms", 70.0},
                                      {"epsilno", 0.1}},
                                     &unknown);
  EXPECT_EQ(c.epsilon_permille, 250);  // a probability, kept in per mille
  EXPECT_EQ(c.exploration, 0.7);
  EXPECT_EQ(c.model_beta, 1.5);
  EXPECT_EQ(c.candidates, 4);  // rounded
  EXPECT_EQ(c.exact_tiles, 5);
  EXPECT_EQ(c.budget, milliseconds(70));
  EXPECT_EQ(c.simulations, 300);  // not given: the flag's value
  EXPECT_EQ(unknown, std::vector<std::string>{"epsilno"});
  // Out of range: clamped, as a tune's nudged value past a bound would be.
  const SearchConfig clamped = with_params(
      flags, {{"epsilon", 1.7}, {"exploration", -1.0}, {"candidates", 0.0}, {"simulations", 5.2}});
  EXPECT_EQ(clamped.epsilon_permille, 1000);
  EXPECT_EQ(clamped.exploration, 0.0);
  EXPECT_EQ(clamped.candidates, 1);
  EXPECT_EQ(clamped.simulations, 5);
  // No params: the flags unchanged.
  const SearchConfig same = with_params(flags, {});
  EXPECT_EQ(same.epsilon_permille, 100);
  EXPECT_EQ(same.exploration, flags.exploration);
}

// The match's params reach the bot's search: its configuration for that match, and its means
// (the same seed and worlds, rollouts at epsilon 0 or 1).
TEST(StrongParams, TheBotSearchesWithItsMatchsParams) {
  const Snapshot snap = a_decision(5);
  SearchConfig flags;
  flags.engine = Engine::kV1;
  flags.simulations = 200;
  bot::MatchInfo info;
  info.seed = 99;
  const bot::Clock clock{steady_clock::now(), milliseconds(1000), milliseconds(5000)};
  info.params = {{"epsilon", 0.0}, {"exploration", 0.9}};
  StrongBot greedy_rollouts(info, flags);
  info.params = {{"epsilon", 1.0}};
  StrongBot random_rollouts(info, flags);
  info.params.clear();
  StrongBot by_flags(info, flags);
  EXPECT_EQ(greedy_rollouts.config().epsilon_permille, 0);
  EXPECT_EQ(greedy_rollouts.config().exploration, 0.9);
  EXPECT_EQ(random_rollouts.config().epsilon_permille, 1000);
  EXPECT_EQ(random_rollouts.config().exploration, flags.exploration);
  EXPECT_EQ(by_flags.config().epsilon_permille, flags.epsilon_permille);
  greedy_rollouts.choose_play(snap.view, clock);
  random_rollouts.choose_play(snap.view, clock);
  ASSERT_EQ(greedy_rollouts.last_result().worlds, 200);
  ASSERT_EQ(random_rollouts.last_result().worlds, 200);
  EXPECT_NE(greedy_rollouts.last_result().means, random_rollouts.last_result().means);
}

}  // namespace
}  // namespace allfives::strong
