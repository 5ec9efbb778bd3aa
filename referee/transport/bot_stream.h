// What the match runner does with one bot's PlayMatch stream, as an interface: MatchStream
// (match_stream.h) is the real one over gRPC; the match layer's unit tests give the runner
// scripted streams in memory (tests/match/fake_bot.h), as fastchess tests its layers through
// the IProcess seam.
#pragma once

#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>

#include "allfives/v1/bot.pb.h"

namespace allfives::referee {

using Clock = std::chrono::steady_clock;

enum class IoStatus {
  kOk,
  kClosed,   // the stream ended or broke; see BotStream::finish_status()
  kTimeout,  // the deadline passed first; the stream was cancelled
  kStopped,  // the referee is stopping (the stop flag was raised)
  kUnasked,  // the bot sent a message while no request was outstanding; see unasked()
};

// One match's stream to one bot. Every operation has a deadline and returns an IoStatus,
// never throws; match_stream.h says what each means on the wire.
class BotStream {
 public:
  virtual ~BotStream() = default;

  // A fresh nonce for the next request: the caller puts it in the RefereeMessage's nonce.
  virtual uint64_t new_nonce() = 0;

  // Something to do every `every` while waiting for an answer (the CPU guard's look at the
  // other bots).
  struct Watch {
    std::chrono::milliseconds every;
    std::function<void()> call;
  };
  // Sends `m` and waits for its answer, then answer() holds it. `meanwhile` (may be empty)
  // runs once the request is sent and before waiting; `watch` (may be null) while waiting.
  virtual IoStatus exchange(const v1::RefereeMessage& m, Clock::time_point deadline,
                            const std::function<void()>& meanwhile = {},
                            const Watch* watch = nullptr) = 0;
  // The answer to the last request, after its wait returned kOk (until the next request).
  virtual const v1::BotMessage& answer() const = 0;
  // Takes in what has arrived, without waiting: kUnasked if an unasked message came, kClosed
  // if the stream ended or broke, else kOk.
  virtual IoStatus check() = 0;
  // After kUnasked: the message nobody asked for, and whether its nonce told rather than its
  // timing.
  virtual const v1::BotMessage& unasked() const = 0;
  virtual bool unasked_by_nonce() const = 0;
  // Which request sent on this stream carried `nonce`: 0 for the first (MatchStart), k for the
  // k-th after it; -1 for none.
  virtual int request_with_nonce(uint64_t nonce) const = 0;
  // After kClosed: the status the stream ended with (OK if the bot ended it cleanly).
  virtual grpc::Status finish_status() = 0;
  virtual bool broken() const = 0;

  // Sends a request (nothing if an unasked message came first: the wait then says kUnasked).
  virtual void start_exchange(const v1::RefereeMessage& m) = 0;
  // Sends `last` as the final message and asks for the bot's end of the stream.
  virtual void start_close(const v1::RefereeMessage& last) = 0;
  // Waits for every operation started and not yet waited for.
  virtual IoStatus wait_started(Clock::time_point deadline) = 0;
};

}  // namespace allfives::referee
