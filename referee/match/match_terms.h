// The referee's side of a match's terms: the time control it enforces, and the seed when none
// is given (draw_seed). The time control's defaults, and the MatchStart that states the terms
// to each seat, are in allfives/wire/match_terms.h; the format, target and hand limit are the
// core's Config.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

#include "allfives/wire/match_terms.h"

namespace allfives::referee {

struct TimeControl {
  std::chrono::milliseconds move_time{wire::kDefaultMoveTime};  // per decision
  std::chrono::milliseconds time_bank{wire::kDefaultTimeBank};  // extra time for the match
  // Added to the transport deadline only, so the referee, not gRPC, decides what was late.
  std::chrono::milliseconds transport_slack{200};
  // For MatchStart -> Hello; the commands set it to the start-up timeout (bot.proto).
  std::chrono::milliseconds handshake{wire::kDefaultStartupTimeout};
};

// The seed of the deals when none is given, for every command (`match`, `demo`, a tournament
// file without `seed`): drawn at random, then printed and recorded where a rerun finds it (the
// log's header; the output folder's tournament.txtpb). Random, because a fixed default would
// deal the same cards to every run nobody seeded; recorded, so any run can still be repeated.
inline uint64_t draw_seed() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

}  // namespace allfives::referee
