// One PlayMatch stream to a bot (over a channel from bot_channel.h) whose every operation has
// a deadline and returns OK / closed / timeout, never throws.
//
// The stream uses gRPC's asynchronous API on a private completion queue so each Write and
// Read can be abandoned at its own deadline (a synchronous bidi stream only has a deadline
// for the whole call).
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "allfives/v1/bot.grpc.pb.h"
#include "transport/bot_channel.h"

namespace allfives::referee {

enum class IoStatus {
  kOk,
  kClosed,   // the stream ended or broke; see MatchStream::finish_status()
  kTimeout,  // the deadline passed first; the stream was cancelled
  kStopped,  // the referee is stopping (the stop flag was raised)
};

// Operations are started and then waited for together with wait_started(), so several streams
// progress at once (the match runner shakes hands with and ends the match with every seat in
// parallel); exchange() is the one-call form of the turn request and its answer.
// gRPC allows one write and one read in flight per stream.
class MatchStream {
 public:
  // Starts a PlayMatch stream; nothing is sent until the first message. `stop` (may be null)
  // is checked while waiting.
  static std::unique_ptr<MatchStream> start(grpc::Channel& channel, const std::atomic<bool>* stop);
  ~MatchStream();
  MatchStream(const MatchStream&) = delete;
  MatchStream& operator=(const MatchStream&) = delete;

  // Sends `m` and reads the answer, with the Read started together with the Write so one
  // wait collects both. `meanwhile` (may be empty) runs once both are handed to gRPC and
  // before waiting: the caller's own work (writing the log) then overlaps the bot's.
  IoStatus exchange(const v1::RefereeMessage& m, v1::BotMessage* answer, Clock::time_point deadline,
                    const std::function<void()>& meanwhile = {});
  // After kClosed: the status the stream ended with ("" if it ended cleanly).
  std::string finish_status();
  bool broken() const { return broken_; }

  void start_exchange(const v1::RefereeMessage& m, v1::BotMessage* answer);
  // Sends `last` as the final message and asks for the bot's end of the stream.
  void start_close(const v1::RefereeMessage& last);
  // Waits for every operation started and not yet waited for.
  IoStatus wait_started(Clock::time_point deadline);

 private:
  MatchStream(const std::atomic<bool>* stop) : stop_(stop) {}
  // Waits until every operation in `ops` (a set of operations, match_stream.cpp) has completed.
  IoStatus wait(unsigned ops, Clock::time_point deadline);
  void cancel_and_drain();

  const std::atomic<bool>* stop_;
  grpc::ClientContext context_;
  grpc::CompletionQueue queue_;
  std::unique_ptr<v1::Bot::Stub> stub_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage>> stream_;
  bool broken_ = false;            // an operation failed; only finish remains
  bool finish_requested_ = false;  // Finish() was called (it may be called once)
  bool finished_ = false;          // the call is over and nothing is in flight
  int pending_ = 0;                // operations started but not yet returned by the queue
  unsigned started_ = 0;           // operations (a set) started but not yet waited for
  grpc::Status status_;
};

}  // namespace allfives::referee
