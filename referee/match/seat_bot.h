// What the match runner asks of the bot at a seat, as an interface: a bot started or reached
// by bots/ (an adapter over BotEndpoint, seat_bot.cpp) or, in the match layer's unit tests, a
// scripted one in memory (tests/match/fake_bot.h), as fastchess tests its layers through the
// IProcess seam. A seat's bot never is more to the runner than this.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "allfives/v1/log.pb.h"
#include "process/bot_process.h"
#include "transport/bot_stream.h"

namespace allfives::referee {

class BotEndpoint;

// The program behind a seat's bot, for what it printed, how it ended and the limits it met.
class SeatProcess {
 public:
  virtual ~SeatProcess() = default;
  // What it printed since the last call, at most `cap` bytes kept (CappedOutput::take).
  virtual CappedOutput::Taken take_output(size_t cap) = 0;
  // False once its main process has exited.
  virtual bool running() = 0;
  // How it ended, in words ("exited with code 3").
  virtual std::string describe_exit() = 0;
  // Its cgroups' counts, and the limit it ran into since `before` (BotProcess's).
  virtual LimitEvidence limit_evidence() const = 0;
  virtual std::string limit_reached_since(const LimitEvidence& before) const = 0;
};

class SeatBot {
 public:
  virtual ~SeatBot() = default;
  // A new PlayMatch stream to the bot. `stop` (may be null) is checked while waiting.
  virtual std::unique_ptr<BotStream> open_stream(const std::atomic<bool>* stop) = 0;
  // What the referee connects to, for the log's header.
  virtual std::string address() const = 0;
  // Its program, or null for a bot reached at an address. Seats whose bots share a process
  // return the same one (its output is recorded once).
  virtual SeatProcess* process() = 0;
  // How its program was confined, for the log's header (null without a program).
  virtual std::optional<v1::LogConfinement> confinement() const = 0;
  // The endpoint the CPU guard watches (cpu_guard.h), or null: not watched.
  virtual BotEndpoint* endpoint() { return nullptr; }
};

// The adapter over a started or connected bot (bots/bot_endpoint.h).
std::unique_ptr<SeatBot> endpoint_seat(BotEndpoint& bot);

}  // namespace allfives::referee
