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

namespace {

// The distribution closest to the observed one (maximum likelihood) among those whose
// normalized score (mean - 1/2) / sd equals t, by the fixed-point iteration of Van den Bergh's
// notes (section 4.1): p_i = q_i / (1 + theta phi_i) with theta the root of
// sum q_i phi_i / (1 + theta phi_i) = 0 and phi_i = a_i - 1/2 - t sd (1 + ((a_i - mu)/sd)^2) / 2
// from the previous iterate's mean mu and sd, starting from the uniform distribution.
std::array<double, 5> closest_with_t(const std::array<double, 5>& q, double t) {
  constexpr std::array<double, 5> a = {0.0, 0.25, 0.5, 0.75, 1.0};
  std::array<double, 5> p;
  p.fill(0.2);
  for (int iteration = 0; iteration < 100; ++iteration) {
    double mu = 0, var = 0;
    for (size_t i = 0; i < 5; ++i) mu += p[i] * a[i];
    for (size_t i = 0; i < 5; ++i) var += p[i] * (a[i] - mu) * (a[i] - mu);
    const double sd = std::sqrt(var);
    std::array<double, 5> phi;
    for (size_t i = 0; i < 5; ++i) {
      const double z = (a[i] - mu) / sd;
      phi[i] = a[i] - 0.5 - 0.5 * t * sd * (1 + z * z);
    }
    double lo_phi = phi[0], hi_phi = phi[0];
    for (double x : phi) {
      lo_phi = std::min(lo_phi, x);
      hi_phi = std::max(hi_phi, x);
    }
    if (!(lo_phi < 0 && hi_phi > 0)) break;  // cannot happen for |t| of any real test
    // f(theta) decreases from +inf to -inf on (-1/hi_phi, -1/lo_phi), which holds 0: Newton's
    // method from 0, kept inside the shrinking bracket (bisection when a step leaves it).
    double lo = -1 / hi_phi, hi = -1 / lo_phi, theta = 0;
    for (int step = 0; step < 100; ++step) {
      double f = 0, slope = 0;
      for (size_t i = 0; i < 5; ++i) {
        const double d = 1 + theta * phi[i];
        f += q[i] * phi[i] / d;
        slope -= q[i] * phi[i] * phi[i] / (d * d);
      }
      (f > 0 ? lo : hi) = theta;
      double next = slope < 0 ? theta - f / slope : 0.5 * (lo + hi);
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      const bool done = std::abs(next - theta) < 1e-12 * std::max(1.0, std::abs(theta));
      theta = next;
      if (done) break;
    }
    double change = 0;
    for (size_t i = 0; i < 5; ++i) {
      const double next = q[i] / (1 + theta * phi[i]);
      change = std::max(change, std::abs(next - p[i]));
      p[i] = next;
    }
    if (change < 1e-7) break;
  }
  return p;
}

}  // namespace

double sprt_llr_exact(const Pentanomial& p, double elo0, double elo1) {
  if (p.pairs() == 0) return 0;
  std::array<double, 5> q{};
  double total = 0;
  for (size_t k = 0; k < 5; ++k) total += q[k] = p.n[k] > 0 ? static_cast<double>(p.n[k]) : kEmpty;
  for (double& x : q) x /= total;
  const double t0 = std::sqrt(2.0) * elo0 / kNeloScale;
  const double t1 = std::sqrt(2.0) * elo1 / kNeloScale;
  const std::array<double, 5> p0 = closest_with_t(q, t0);
  const std::array<double, 5> p1 = closest_with_t(q, t1);
  double llr = 0;
  for (size_t k = 0; k < 5; ++k) llr += q[k] * (std::log(p1[k]) - std::log(p0[k]));
  return total * llr;
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
