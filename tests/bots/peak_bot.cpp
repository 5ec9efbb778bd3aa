// A bot whose strength peaks at a known parameter value, for the convergence test of
// `referee tune` (the lead's tune test relies on it: a tune of `x` must end near kOptimum).
//
//   peak_bot --listen ADDRESS [--seed N]      reads MatchStart param "x" (default 0)
//
// On each decision it plays greedily (the legal play scoring most points now, the first of
// equals) with probability p(x) = exp(-((x - kOptimum) / kWidth)^2), otherwise a uniformly
// random legal play. So p is 1 at x = kOptimum, 0.24 at x = kOptimum +- 0.3, 0.02 at x =
// kOptimum +- 0.5, and the bot plays best at the hidden optimum. Its randomness comes from
// MatchInfo::seed (the match id, the seat and --seed) and the decision count, so a match
// replays exactly. Each play's comment says x, p and which kind of play it was.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "allfives/bot/bot.h"
#include "allfives/core/rng.h"

namespace {

using namespace allfives;

// The hidden optimum of "x" (the value a tune should find) and the width of the peak.
constexpr double kOptimum = 0.3;
constexpr double kWidth = 0.25;

class PeakBot final : public bot::Bot {
 public:
  explicit PeakBot(const bot::MatchInfo& info)
      : x_(info.param("x", 0.0)),
        p_greedy_(std::exp(-std::pow((x_ - kOptimum) / kWidth, 2.0))),
        seed_(info.seed) {}

  Play choose_play(const View& view, const bot::Clock&) override {
    SplitMix64 rng(derive_seed(seed_, decisions_++));
    const PlayList& legal = view.legal_plays();
    const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    const bool greedy = u < p_greedy_;
    int chosen = 0;
    if (greedy) {
      for (int i = 1; i < legal.size(); ++i)
        if (view.points_after(legal[i]) > view.points_after(legal[chosen])) chosen = i;
    } else {
      chosen = static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())));
    }
    char note[96];
    std::snprintf(note, sizeof note, "x=%.4g p=%.3f %s", x_, p_greedy_,
                  greedy ? "greedy" : "random");
    set_comment(note);
    return legal[chosen];
  }

 private:
  double x_;
  double p_greedy_;
  uint64_t seed_;
  uint64_t decisions_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return bot::run(argc, argv, {"peak", "1.0"},
                  [](const bot::MatchInfo& info) { return std::make_unique<PeakBot>(info); });
}
