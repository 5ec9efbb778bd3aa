// Whole matches and hands played in C++ by built-in policies, for Python code that evaluates
// or searches without paying the interpreter per play: rollouts (State.play_out) and batches
// of matches (play_matches). Only the rules core; nothing here knows of Python.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"

namespace allfives::python {

enum class Policy : uint8_t {
  kRandom,  // a uniformly random legal play
  kGreedy,  // allfives/core/greedy.h: the most points now, the heavier tile between equals
};
// "random" or "greedy"; false for anything else.
bool parse_policy(std::string_view name, Policy& out);

// The policy's play; with probability epsilon_permille/1000 a uniformly random one instead.
Play pick(Policy policy, const State& state, SplitMix64& rng, int epsilon_permille);

// Plays on with `policy` for every seat until the hand ends (whole_match false) or the match
// does. Returns the number of plays made.
int play_out(State& state, Policy policy, SplitMix64& rng, int epsilon_permille, bool whole_match);

struct BatchResult {
  int64_t matches = 0;
  int64_t plays = 0;
  int64_t hands = 0;
  std::array<int64_t, kMaxPlayers> wins{};    // matches won, per side
  int64_t draws = 0;                          // matches the safety valve ended level
  std::array<int64_t, kMaxPlayers> points{};  // final scores summed, per side
};

// Plays `count` matches of `config`, seat s playing policies[s]; match i is dealt from
// derive_seed(seed, i), and its policies draw from derive_seed(seed ^ kPolicySalt, i), so the
// result does not depend on `threads` (matches are split among that many threads).
BatchResult play_matches(const Config& config, const std::vector<Policy>& policies, int64_t count,
                         uint64_t seed, int threads, int epsilon_permille);

}  // namespace allfives::python
