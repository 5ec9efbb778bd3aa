// A match's terms as the referee states them to every seat (MatchStart): the format, target and
// hand limit (the core's Config), the time control and the start-up allowance. The defaults are
// written here once; the referee's commands, its tournament files, its benchmark and the SDK's
// test referee all take them from here.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "allfives/core/types.h"
#include "allfives/v1/bot.pb.h"

namespace allfives::wire {

// Time per decision, before the bank is touched.
inline constexpr std::chrono::milliseconds kDefaultMoveTime{1000};
// Extra time per seat for the whole match, spent by slow decisions.
inline constexpr std::chrono::milliseconds kDefaultTimeBank{5000};
// How long a bot may take to start serving, and again to answer MatchStart with Hello.
inline constexpr std::chrono::milliseconds kDefaultStartupTimeout{10000};
// The hand limit is the core's (types.h): a rules fact, not a protocol one.
inline constexpr int kDefaultMaxHands = allfives::kDefaultMaxHands;

// The MatchStart seat `seat` is sent: the range of protocol versions the referee speaks, the
// rules version, the match id, the format and where the seat sits in it, the target and hand
// limit, this seat's move time and bank, and every seat's name in seat order.
v1::MatchStart match_start(const std::string& match_id, const Config& config, int seat,
                           std::chrono::milliseconds move_time, std::chrono::milliseconds time_bank,
                           std::span<const std::string> seat_names);

}  // namespace allfives::wire
