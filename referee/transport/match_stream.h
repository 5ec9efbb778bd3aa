// One PlayMatch stream to a bot (over a channel from bot_channel.h) whose every operation has
// a deadline and returns OK / closed / timeout / unasked, never throws.
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
#include <vector>

#include "allfives/v1/bot.grpc.pb.h"
#include "transport/bot_channel.h"
#include "transport/bot_stream.h"
#include "transport/nonce.h"

namespace allfives::referee {

// "gRPC status CANCELLED (1): <message>", the message escaped to valid UTF-8 (it comes from
// the bot or its library).
std::string describe(const grpc::Status& status);

// Operations are started and then waited for together with wait_started(), so several streams
// progress at once (the match runner shakes hands with and ends the match with every seat in
// parallel); exchange() is the one-call form of the turn request and its answer.
// gRPC allows one write and one read in flight per stream.
//
// Unasked answers (bot.proto): a message that was not sent in answer to the outstanding
// request (a second answer to one request, an answer before the request) is kept as unasked()
// and ends the stream's use with kUnasked; it is never taken as the answer to the next request.
// Each request carries a nonce (new_nonce()) that its answer must carry back, so an old or
// early message is told by its content (the first answer, Hello, excepted: the match runner
// judges its nonce after its protocol version). The Read for an answer is opened together
// with the request's Write, which gRPC sends in one go with the flow-control update the Read
// brings. check() looks without waiting (before a fault is judged and at the match's end).
class MatchStream final : public BotStream {
 public:
  // Starts a PlayMatch stream; nothing is sent until the first message. `stop` (may be null)
  // is checked while waiting.
  static std::unique_ptr<MatchStream> start(grpc::Channel& channel, const std::atomic<bool>* stop);
  ~MatchStream();
  MatchStream(const MatchStream&) = delete;
  MatchStream& operator=(const MatchStream&) = delete;

  // A fresh nonce for the next request: the caller puts it in the RefereeMessage's nonce.
  uint64_t new_nonce() override { return nonces_.next(); }

  // A Watch (bot_stream.h) runs between gRPC's events.
  // Sends `m` and waits for its answer, then answer() holds it. `meanwhile` (may be empty)
  // runs once the request is handed to gRPC and before waiting: the caller's own work
  // (writing the log) then overlaps the bot's. `watch` (may be null) runs while waiting.
  IoStatus exchange(const v1::RefereeMessage& m, Clock::time_point deadline,
                    const std::function<void()>& meanwhile = {},
                    const Watch* watch = nullptr) override;
  // The answer to the last request, after its wait returned kOk (until the next request).
  const v1::BotMessage& answer() const override { return incoming_[answer_]; }
  // Takes in what has arrived, without waiting: kUnasked if an unasked message came, kClosed
  // if the stream ended or broke, else kOk.
  IoStatus check() override;
  // After kUnasked: the message nobody asked for, and whether its nonce told (it arrived while
  // a request was outstanding, carrying another nonce) rather than its timing.
  const v1::BotMessage& unasked() const override { return incoming_[1 - answer_]; }
  bool unasked_by_nonce() const override { return unasked_by_nonce_; }
  // Which request sent on this stream carried `nonce`: 0 for the first (MatchStart), k for the
  // k-th after it; -1 for none.
  int request_with_nonce(uint64_t nonce) const override;
  // After kClosed: the status the stream ended with (OK if the bot ended it cleanly).
  grpc::Status finish_status() override;
  bool broken() const override { return broken_; }

  // Sends a request (nothing if an unasked message came first: the wait then says kUnasked).
  void start_exchange(const v1::RefereeMessage& m) override;
  // Sends `last` as the final message and asks for the bot's end of the stream. A message the
  // bot sends after it is ignored: the match is over.
  void start_close(const v1::RefereeMessage& last) override;
  // Waits for every operation started and not yet waited for.
  IoStatus wait_started(Clock::time_point deadline) override;

 private:
  MatchStream(const std::atomic<bool>* stop) : stop_(stop) {}
  // Waits until every operation in `ops` (a set of operations, match_stream.cpp) has completed.
  IoStatus wait(unsigned ops, Clock::time_point deadline, const Watch* watch = nullptr);
  // Takes the completions already queued, without waiting.
  void poll();
  // Opens a Read if none is open (once the call has started) and polls (check(), close).
  void look();
  // Records one completion: what it means depends on whether a request is outstanding.
  void on_event(void* tag, bool ok);
  void start_read();
  void cancel_and_drain();

  const std::atomic<bool>* stop_;
  NonceSource nonces_;
  uint64_t expected_nonce_ = 0;        // the outstanding request's
  std::vector<uint64_t> sent_nonces_;  // every request's, in order
  bool unasked_by_nonce_ = false;
  grpc::ClientContext context_;
  grpc::CompletionQueue queue_;
  std::unique_ptr<v1::Bot::Stub> stub_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::RefereeMessage, v1::BotMessage>> stream_;
  // The answer to the last request and the message being read next, in turn: the next Read
  // goes into the other one, so answer() stays valid until the next request.
  v1::BotMessage incoming_[2];
  int answer_ = 0;                 // which of incoming_ holds the last answer
  bool opened_ = false;            // the first request was written (the call has started)
  bool reading_ = false;           // a Read into incoming_[1 - answer_] is in flight
  bool asked_ = false;             // a request was sent and its answer has not arrived
  bool unasked_ = false;           // a message arrived while nothing was asked
  bool closing_ = false;           // the last message was sent; the stream's end is expected
  bool cancelled_ = false;         // the call is being cancelled: start nothing new
  unsigned done_ = 0;              // operations (a set) completed and not yet waited for
  bool broken_ = false;            // an operation failed; only finish remains
  bool finish_requested_ = false;  // Finish() was called (it may be called once)
  bool finished_ = false;          // the call is over and nothing is in flight
  int pending_ = 0;                // operations started but not yet returned by the queue
  unsigned started_ = 0;           // operations (a set) started but not yet waited for
  grpc::Status status_;
};

}  // namespace allfives::referee
