// One match on one PlayMatch stream: checks the referee's messages, calls the Bot's hooks in
// game order and builds the answers. It knows nothing of the transport, so the server is a
// thin read/handle/write loop around it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/support/status.h>

#include "allfives/bot/bot.h"
#include "allfives/v1/bot.pb.h"

namespace allfives::bot::detail {

// Writes one line to stderr in a single call, so lines of concurrent matches never mix.
void log_line(const std::string& line);

class MatchSession {
 public:
  MatchSession(const BotIdentity& identity, const BotFactory& factory, uint64_t base_seed);

  // Handles one message received at `received`. On OK, `answer` is set when the message
  // expects one (MatchStart, TurnRequest) and left empty otherwise. A non-OK status ends
  // the stream: INVALID_ARGUMENT for a message that breaks the protocol, INTERNAL when the
  // bot threw, FAILED_PRECONDITION after a protocol version mismatch.
  grpc::Status handle(const v1::RefereeMessage& message,
                      std::chrono::steady_clock::time_point received, v1::BotMessage* answer,
                      bool* has_answer);

  // MatchEnd was handled: the stream should end now.
  bool finished() const { return finished_; }
  // "match <id> seat <n>" once known, for log lines.
  const std::string& label() const { return label_; }

 private:
  grpc::Status on_match_start(const v1::MatchStart& m, v1::BotMessage* answer);
  grpc::Status on_hand_start(const v1::HandStart& m);
  grpc::Status on_turn_request(const v1::TurnRequest& m,
                               std::chrono::steady_clock::time_point received,
                               v1::BotMessage* answer);
  grpc::Status on_hand_end(const v1::HandEnd& m);
  grpc::Status on_match_end(const v1::MatchEnd& m);
  // Converts a message's events (all of them, before any is delivered).
  grpc::Status convert_events(const google::protobuf::RepeatedPtrField<v1::Event>& events,
                              std::vector<Event>& out);
  // Calls on_event for each, in order.
  grpc::Status deliver(const std::vector<Event>& events);

  const BotIdentity& identity_;
  const BotFactory& factory_;
  uint64_t base_seed_;
  std::string label_ = "match ? seat ?";

  v1::MatchStart start_;
  MatchInfo info_;
  std::unique_ptr<Bot> bot_;
  bool started_ = false;
  bool version_mismatch_ = false;
  bool in_hand_ = false;
  bool finished_ = false;
  int hand_index_ = -1;
  int plays_in_hand_ = 0;  // the first play of a hand may name no end
};

}  // namespace allfives::bot::detail
