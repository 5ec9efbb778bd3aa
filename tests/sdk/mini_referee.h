// A small referee for the SDK's tests: raw gRPC client calls (every one with a deadline) and
// whole matches refereed by the rules core, so the SDK is tested against the wire as the
// real referee speaks it, without depending on the referee program.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "allfives/core/state.h"
#include "allfives/v1/bot.grpc.pb.h"

namespace allfives::testing {

using Stream = grpc::ClientReaderWriter<v1::RefereeMessage, v1::BotMessage>;

// Every call and stream in these tests ends by this deadline at the latest.
inline std::chrono::system_clock::time_point deadline_in(std::chrono::seconds s) {
  return std::chrono::system_clock::now() + s;
}

// One PlayMatch stream with its own context (deadline included).
struct MatchStream {
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;

  MatchStream(v1::Bot::Stub& stub, std::chrono::seconds timeout);
  bool send(const v1::RefereeMessage& m) { return stream->Write(m); }
  // Half-closes and returns the bot's final status.
  grpc::Status finish();
};

std::shared_ptr<grpc::Channel> connect(const std::string& address);
// Polls the health service (with back-off) until it reports SERVING or `timeout` passes.
bool wait_until_serving(const std::string& address, std::chrono::milliseconds timeout);

v1::MatchStart make_match_start(Format format, int seat, const std::string& match_id);
v1::RefereeMessage wrap(const v1::MatchStart& m);
// Every side's score in `state`.
std::vector<int> scores_of(const State& state);
// The hand_start Event seat `seat` gets for a kHandStart event of `state`'s match.
v1::Event hand_start_for(const Event& e, int seat, const State& state);

struct MatchResult {
  std::string error;                   // empty if the match ran to MatchEnd
  std::vector<grpc::Status> statuses;  // each seat's final stream status
  std::vector<Play> plays;             // every play, in order
  int hands = 0;
  Outcome outcome;
};

// Referees one whole match: seat s is played by the bot behind stubs[s].
MatchResult referee_match(const std::vector<v1::Bot::Stub*>& stubs, Format format,
                          uint64_t deal_seed, const std::string& match_id);

}  // namespace allfives::testing
