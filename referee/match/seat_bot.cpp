#include "match/seat_bot.h"

#include "bots/bot_endpoint.h"
#include "transport/match_stream.h"

namespace allfives::referee {
namespace {

// A BotEndpoint as a seat's bot: its channel's stream and its process, as they are.
class EndpointSeat final : public SeatBot, public SeatProcess {
 public:
  explicit EndpointSeat(BotEndpoint& bot) : bot_(bot) {}

  std::unique_ptr<BotStream> open_stream(const std::atomic<bool>* stop) override {
    return MatchStream::start(bot_.channel(), stop);
  }
  std::string address() const override { return bot_.address(); }
  SeatProcess* process() override { return bot_.process() ? this : nullptr; }
  std::optional<v1::LogConfinement> confinement() const override {
    if (!bot_.process()) return std::nullopt;
    return bot_.confinement_record();
  }
  BotEndpoint* endpoint() override { return &bot_; }

  CappedOutput::Taken take_output(size_t cap) override { return bot_.process()->take_output(cap); }
  bool running() override { return bot_.process()->running(); }
  std::string describe_exit() override { return bot_.process()->describe_exit(); }
  LimitEvidence limit_evidence() const override { return bot_.process()->limit_evidence(); }
  std::string limit_reached_since(const LimitEvidence& before) const override {
    return bot_.process()->limit_reached_since(before);
  }

 private:
  BotEndpoint& bot_;  // a reference: its const methods may still ask it
};

}  // namespace

std::unique_ptr<SeatBot> endpoint_seat(BotEndpoint& bot) {
  return std::make_unique<EndpointSeat>(bot);
}

}  // namespace allfives::referee
