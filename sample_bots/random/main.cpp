// random: plays a uniformly random legal play. Its randomness comes only from
// MatchInfo::seed, so the same --seed, match id and seat give the same match.
#include <memory>

#include "allfives/bot/bot.h"
#include "allfives/core/rng.h"

namespace {

class RandomBot final : public allfives::bot::Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}

  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    const allfives::PlayList& legal = view.legal_plays();
    return legal[static_cast<int>(rng_.below(static_cast<uint32_t>(legal.size())))];
  }

 private:
  allfives::SplitMix64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  return allfives::bot::run(
      argc, argv, {"random", "1.0"},
      [](const allfives::bot::MatchInfo& info) { return std::make_unique<RandomBot>(info.seed); });
}
