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
  // Where the stream is in the match's hands, as the events so far say.
  struct HandState {
    bool in_hand = false;
    int hand_index = -1;
    int plays = 0;  // plays in this hand: the first may name no end
  };
  // One Event of a message, converted: what to call on the bot.
  struct Step {
    enum class Kind { kHandStart, kEvent, kHandEnd } kind;
    HandStartInfo hand_start;
    Event event;
    HandEndInfo hand_end;
  };

  grpc::Status on_match_start(const v1::MatchStart& m, v1::BotMessage* answer);
  grpc::Status on_turn_request(const v1::TurnRequest& m,
                               std::chrono::steady_clock::time_point received,
                               v1::BotMessage* answer);
  grpc::Status on_match_end(const v1::MatchEnd& m);
  // Converts and checks a message's events, all of them before any is delivered, advancing
  // `hand` past them.
  grpc::Status convert_events(const google::protobuf::RepeatedPtrField<v1::Event>& events,
                              HandState& hand, std::vector<Step>& out);
  grpc::Status convert_hand_start(const v1::HandStart& m, HandState& hand, Step& out);
  grpc::Status convert_hand_end(const v1::HandEnd& m, HandState& hand, Step& out);
  // Calls the bot's hook for each, in order.
  grpc::Status deliver(const std::vector<Step>& steps);

  const BotIdentity& identity_;
  const BotFactory& factory_;
  uint64_t base_seed_;
  std::string label_ = "match ? seat ?";

  v1::MatchStart start_;
  MatchInfo info_;
  std::unique_ptr<Bot> bot_;
  bool started_ = false;
  bool version_mismatch_ = false;
  bool finished_ = false;
  HandState hand_;
  std::vector<Step> steps_;  // kept to reuse its memory
};

}  // namespace allfives::bot::detail
