// One refereed match: the referee holds the true state (the rules core), asks each bot for
// its plays over the protocol, keeps the clocks, writes the log, and returns a result value.
// A bot's misbehaviour is a result (a Fault), never an exception.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "allfives/core/types.h"
#include "allfives/v1/common.pb.h"
#include "bots/bot_endpoint.h"
#include "log/match_log.h"
#include "match/match_result.h"
#include "match/match_terms.h"

namespace allfives::referee {

class SeatBot;

// One seat of a match: who was meant to sit there and the running bot, if it started.
struct SeatSpec {
  const BotSpec* spec = nullptr;
  BotEndpoint* bot = nullptr;  // null: the bot failed to start (see startup_error)
  std::string startup_error;
  // This seat's own move time and bank (time odds); empty: MatchSpec::time's. The slack and
  // the handshake time are always MatchSpec::time's.
  std::optional<std::chrono::milliseconds> move_time = std::nullopt;
  std::optional<std::chrono::milliseconds> time_bank = std::nullopt;
  // For a seat without a running bot whose process was started (and stopped again): how it
  // was confined, for the log. Unset: the log records what was planned (planned_confinement).
  std::optional<v1::LogConfinement> confinement = std::nullopt;
  // Instead of `bot`: a bot the runner reaches through this interface alone (seat_bot.h; the
  // match layer's unit tests seat scripted bots so). Not owned.
  SeatBot* seat_bot = nullptr;
};

struct MatchSpec {
  std::string match_id;  // in the log and the results
  // The id the bots are told in MatchStart; empty: match_id. A tournament tells them an opaque
  // one (bot_match_id in schedule.h), since its match ids name the deal and the rotation.
  std::string bot_match_id;
  Config config;
  uint64_t seed = 0;
  TimeControl time;
  std::vector<SeatSpec> seats;  // one per seat, in seat order (a bot may sit twice)
};

// The name a seat goes by in the log and the results: the user's name for the bot if given,
// else the name in its Hello, else the program's file name or the address.
std::string seat_display_name(const BotSpec& spec, const BotHello& hello);

// Plays the match. Everything is written to `log` as it happens. `stop` (may be null) aborts
// the match (result reason ABORTED) when raised.
MatchResult play_match(const MatchSpec& spec, MatchLog& log, const std::atomic<bool>* stop);

}  // namespace allfives::referee
