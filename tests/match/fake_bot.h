// Scripted bots for the match runner's unit tests: a SeatBot (match/seat_bot.h) whose stream
// and process live in memory. Each request the runner sends is answered by the bot's script
// with a Reply value (an answer, a timeout, a crash, a closed stream, an unasked message), so a
// whole match runs without a process or a gRPC connection.
#pragma once

#include <grpcpp/support/status.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allfives/v1/bot.pb.h"
#include "match/seat_bot.h"

namespace allfives::referee::testing {

// What a scripted bot does with one request.
struct Reply {
  enum class Kind {
    kAnswer,   // answers with `message`
    kTimeout,  // never answers: the stream's wait says kTimeout
    kClose,    // ends the stream with `status` (its process, if any, keeps running)
    kCrash,    // its process exits (`exit` says how) and the stream breaks
  };
  Kind kind = Kind::kAnswer;
  v1::BotMessage message;
  // The answer carries the request's nonce unless this is set (then it carries this one).
  std::optional<uint64_t> nonce;
  grpc::Status status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection reset");
  std::string exit = "exited with code 3";
  // A message sent after the answer, while nothing is asked: the runner must catch it.
  std::optional<v1::BotMessage> unasked;
  // What the bot prints while it decides (to its process's output).
  std::string printed;
  // Set: the bot thinks for longer than the runner's watch interval, so the watch runs (as
  // MatchStream runs it while the answer is late), then this (what the test looks at meanwhile).
  std::function<void()> while_thinking;
};

// The answers of an honest bot: Hello (protocol 3) to MatchStart, the first legal play to a
// turn request.
Reply hello(uint32_t protocol = 3, const std::string& name = "scripted");
Reply first_legal(const v1::TurnRequest& request);
Reply play_index(uint32_t index, const std::string& comment = "");

// A bot whose requests are answered by `script` (the request and how many turn requests came
// before it); by default, honestly. With `has_process` false it is a bot reached at an address
// (no output, no exit, and no crash can be told).
class FakeBot final : public SeatBot, public SeatProcess {
 public:
  using Script = std::function<Reply(const v1::RefereeMessage& request, int turn)>;
  explicit FakeBot(Script script = {}, bool has_process = true);
  ~FakeBot() override;

  // Everything the runner sent on every stream, in order (MatchStart, turn requests, MatchEnd).
  const std::vector<v1::RefereeMessage>& received() const { return received_; }
  int streams_opened() const { return streams_opened_; }
  bool closed_by_referee() const { return closed_by_referee_; }

  // SeatBot
  std::unique_ptr<BotStream> open_stream(const std::atomic<bool>* stop) override;
  std::string address() const override { return "fake:" + std::to_string(id_); }
  SeatProcess* process() override { return has_process_ ? this : nullptr; }
  std::optional<v1::LogConfinement> confinement() const override { return std::nullopt; }

  // SeatProcess
  CappedOutput::Taken take_output(size_t cap) override;
  bool running() override { return running_; }
  std::string describe_exit() override { return running_ ? "running" : exit_; }
  LimitEvidence limit_evidence() const override { return {}; }
  std::string limit_reached_since(const LimitEvidence&) const override { return ""; }

 private:
  class Stream;
  friend class Stream;
  Reply reply_to(const v1::RefereeMessage& m);

  Script script_;
  bool has_process_;
  int id_;
  int turns_ = 0;
  int streams_opened_ = 0;
  bool closed_by_referee_ = false;
  bool running_ = true;
  std::string exit_;
  std::string output_;
  std::vector<v1::RefereeMessage> received_;
};

// An honest bot's script, except that turn request `turn` (0: the first) is answered by `r`
// (MatchStart too, when `turn` is -1).
std::function<Reply(const v1::RefereeMessage&, int)> honest_but(int turn, Reply r);

}  // namespace allfives::referee::testing
