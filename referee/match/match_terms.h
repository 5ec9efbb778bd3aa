// The referee's side of a match's terms: the time control it enforces. The defaults, and the
// MatchStart that states the terms to each seat, are in allfives/wire/match_terms.h; the
// format, target and hand limit are the core's Config.
#pragma once

#include <chrono>

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

}  // namespace allfives::referee
