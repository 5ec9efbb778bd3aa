#include "tournament/statistics.h"

#include <cmath>
#include <limits>

namespace allfives::referee {
namespace {

constexpr double kZ95 = 1.959963984540054;
constexpr double kNeloScale = 800.0 / 2.302585092994045684;  // 800 / ln 10
constexpr double kEmpty = 1e-3;  // pairs counted for an outcome never seen (LLR only)

// Mean and variance of one sample's score, from counts of the scores `values`.
template <size_t N>
void moments(const std::array<double, N>& counts, const std::array<double, N>& values,
             double& total, double& mean, double& variance) {
  total = 0;
  mean = 0;
  for (size_t i = 0; i < N; ++i) {
    total += counts[i];
    mean += counts[i] * values[i];
  }
  variance = 0;
  if (total <= 0) {
    mean = 0.5;
    return;
  }
  mean /= total;
  for (size_t i = 0; i < N; ++i) variance += counts[i] * (values[i] - mean) * (values[i] - mean);
  variance /= total;
}

// `per_game` is the number of games one sample stands for (2 for a pair): nElo is measured in
// standard deviations of one game, and a pair's score / 2 has 1/2 of a game's variance when
// the two games are independent.
EloEstimate from_moments(int64_t samples, double mean, double variance, double per_game) {
  EloEstimate e;
  e.samples = samples;
  e.score = mean;
  e.variance = variance;
  if (samples <= 0) return e;
  e.elo = elo_of_score(mean);
  e.elo_lower = elo_of_score(e.score_lower());
  e.elo_upper = elo_of_score(e.score_upper());
  const double se = std::sqrt(variance / static_cast<double>(samples));
  if (se > 0) {
    e.los = 0.5 * std::erfc(-(mean - 0.5) / (se * std::sqrt(2.0)));
    const double game_sd = std::sqrt(per_game * variance);
    e.nelo = (mean - 0.5) / game_sd * kNeloScale;
    e.nelo_ci95 = kZ95 * se / game_sd * kNeloScale;
  } else {
    // Every sample scored the same: no spread to measure a distance in.
    e.los = mean > 0.5 ? 1.0 : mean < 0.5 ? 0.0 : 0.5;
  }
  return e;
}

}  // namespace

double EloEstimate::score_lower() const {
  if (samples <= 0) return 0;
  return std::max(0.0, score - kZ95 * std::sqrt(variance / static_cast<double>(samples)));
}

double EloEstimate::score_upper() const {
  if (samples <= 0) return 1;
  return std::min(1.0, score + kZ95 * std::sqrt(variance / static_cast<double>(samples)));
}

double elo_of_score(double score) {
  if (score <= 0) return -std::numeric_limits<double>::infinity();
  if (score >= 1) return std::numeric_limits<double>::infinity();
  return -400.0 * std::log10(1.0 / score - 1.0);
}

EloEstimate estimate(const Pentanomial& p) {
  std::array<double, 5> counts{};
  for (size_t k = 0; k < 5; ++k) counts[k] = static_cast<double>(p.n[k]);
  double total = 0, mean = 0, variance = 0;
  moments(counts, {0.0, 0.25, 0.5, 0.75, 1.0}, total, mean, variance);
  return from_moments(p.pairs(), mean, variance, 2.0);
}

EloEstimate estimate(const Trinomial& t) {
  const std::array<double, 3> counts = {static_cast<double>(t.losses), static_cast<double>(t.draws),
                                        static_cast<double>(t.wins)};
  double total = 0, mean = 0, variance = 0;
  moments(counts, {0.0, 0.5, 1.0}, total, mean, variance);
  return from_moments(t.games(), mean, variance, 1.0);
}

double SprtParams::lower_bound() const {
  return std::log(beta / (1 - alpha));
}

double SprtParams::upper_bound() const {
  return std::log((1 - beta) / alpha);
}

double sprt_llr(const Pentanomial& p, double elo0, double elo1) {
  if (p.pairs() == 0) return 0;
  std::array<double, 5> counts{};
  for (size_t k = 0; k < 5; ++k) counts[k] = p.n[k] > 0 ? static_cast<double>(p.n[k]) : kEmpty;
  double total = 0, mean = 0, variance = 0;
  moments(counts, {0.0, 0.25, 0.5, 0.75, 1.0}, total, mean, variance);
  const double sd = std::sqrt(2.0 * variance);
  const double s0 = 0.5 + elo0 * sd / kNeloScale;
  const double s1 = 0.5 + elo1 * sd / kNeloScale;
  return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance);
}

SprtDecision sprt_decide(double llr, const SprtParams& params) {
  if (llr >= params.upper_bound()) return SprtDecision::kAcceptH1;
  if (llr <= params.lower_bound()) return SprtDecision::kAcceptH0;
  return SprtDecision::kContinue;
}

std::string describe(SprtDecision d) {
  switch (d) {
    case SprtDecision::kAcceptH0:
      return "H0 accepted";
    case SprtDecision::kAcceptH1:
      return "H1 accepted";
    default:
      return "continue";
  }
}

}  // namespace allfives::referee
