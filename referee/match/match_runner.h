// One refereed match: the referee holds the true state (the rules core), asks each bot for
// its plays over the protocol, keeps the clocks, writes the log, and returns a result value.
// A bot's misbehaviour is a result (a Fault), never an exception.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "allfives/core/types.h"
#include "allfives/v1/common.pb.h"
#include "bots/bot_endpoint.h"
#include "log/match_log.h"
#include "match/decision_timing.h"

namespace allfives::referee {

struct TimeControl {
  std::chrono::milliseconds move_time{1000};  // per decision
  std::chrono::milliseconds time_bank{5000};  // extra time for the whole match
  // Added to the transport deadline only, so the referee, not gRPC, decides what was late.
  std::chrono::milliseconds transport_slack{200};
  std::chrono::milliseconds handshake{5000};  // for MatchStart -> Hello
};

// One seat of a match: who was meant to sit there and the running bot, if it started.
struct SeatSpec {
  const BotSpec* spec = nullptr;
  BotEndpoint* bot = nullptr;  // null: the bot failed to start (see startup_error)
  std::string startup_error;
  // This seat's own move time and bank (time odds); empty: MatchSpec::time's. The slack and
  // the handshake time are always MatchSpec::time's.
  std::optional<std::chrono::milliseconds> move_time = std::nullopt;
  std::optional<std::chrono::milliseconds> time_bank = std::nullopt;
};

struct MatchSpec {
  std::string match_id;
  Config config;
  uint64_t seed = 0;
  TimeControl time;
  std::vector<SeatSpec> seats;  // one per seat, in seat order (a bot may sit twice)
};

struct Fault {
  int seat = -1;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
  std::string reason;  // plain words
};

// What a bot said of itself in its Hello.
struct BotHello {
  std::string name;
  std::string version;
};

struct MatchResult {
  v1::MatchEndReason reason = v1::MATCH_END_REASON_UNSPECIFIED;
  int winner_side = -1;         // -1: a draw or no result
  std::vector<int> scores;      // per side
  std::vector<int> placements;  // per side, 1 = first, equal for ties; a faulting side last
  std::optional<Fault> fault;
  int hands_played = 0;
  int decisions = 0;
  std::chrono::milliseconds duration{0};
  std::vector<BotHello> hellos;        // per seat
  std::vector<DecisionTiming> timing;  // per seat: its decision times
};

std::string describe(v1::FaultKind k);  // "timeout", "crash", ...

// Places per side: by score, highest first, equal scores sharing a place; a side with a fault
// is placed after every other side.
std::vector<int> placements(const std::vector<int>& scores, int faulting_side);

// Plays the match. Everything is written to `log` as it happens. `stop` (may be null) aborts
// the match (result reason ABORTED) when raised.
MatchResult play_match(const MatchSpec& spec, MatchLog& log, const std::atomic<bool>* stop);

}  // namespace allfives::referee
