#include "tournament/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace allfives::referee {
namespace {

constexpr double kZ95 = 1.959963984540054;
constexpr double kNeloScale = 800.0 / 2.302585092994045684;  // 800 / ln 10
constexpr double kEmpty = 1e-3;  // pairs counted for an outcome never seen (fishtest, fastchess)

// The first four moments of one sample's score, from counts of the scores `values`.
struct Moments {
  double total = 0, mean = 0.5, variance = 0, skewness = 0, excess_kurtosis = 0;
};

template <size_t N>
Moments moments(const std::array<double, N>& counts, const std::array<double, N>& values) {
  Moments m;
  double sum = 0;
  for (size_t i = 0; i < N; ++i) {
    m.total += counts[i];
    sum += counts[i] * values[i];
  }
  if (m.total <= 0) return m;
  m.mean = sum / m.total;
  double m2 = 0, m3 = 0, m4 = 0;
  for (size_t i = 0; i < N; ++i) {
    const double d = values[i] - m.mean;
    m2 += counts[i] * d * d;
    m3 += counts[i] * d * d * d;
    m4 += counts[i] * d * d * d * d;
  }
  m.variance = m2 / m.total;
  if (m.variance > 0) {
    m.skewness = m3 / m.total / std::pow(m.variance, 1.5);
    m.excess_kurtosis = m4 / m.total / (m.variance * m.variance) - 3;
  }
  return m;
}

// Every outcome never seen counted as kEmpty samples (fishtest's results_to_pdf).
template <size_t N>
std::array<double, N> regularized(std::array<double, N> counts) {
  for (double& c : counts)
    if (c <= 0) c = kEmpty;
  return counts;
}

// `per_game` is the number of games one sample stands for (2 for a pair): nElo is measured in
// standard deviations of one game, and a pair's score / 2 has 1/2 of a game's variance when
// the two games are independent. The formulas are fishtest's (docs/STATISTICS.md): the point
// estimates, the intervals and LOS from the regularized counts, whether they exist from the
// counts as observed.
template <size_t N>
EloEstimate from_counts(const std::array<double, N>& counts, const std::array<double, N>& values,
                        double per_game) {
  EloEstimate e;
  const Moments raw = moments(counts, values);
  e.samples = std::llround(raw.total);
  if (e.samples <= 0) return e;
  e.score = raw.mean;
  e.variance = raw.variance;
  if (raw.variance <= 0) {
    // Every sample scored the same: no spread to measure a distance or an interval in.
    e.elo = elo_of_score(raw.mean);
    if (raw.mean != 0.5) e.nelo = raw.mean > 0.5 ? HUGE_VAL : -HUGE_VAL;
    return e;
  }
  const Moments m = moments(regularized(counts), values);
  const double sd = std::sqrt(m.variance);
  const double t = (m.mean - 0.5) / sd;  // normalized score, per sample
  const double scale = kNeloScale / std::sqrt(per_game);
  e.elo = elo_of_score(m.mean);
  e.nelo = t * scale;
  if (e.samples < kMinSamplesForInterval) return e;
  const double se = sd / std::sqrt(m.total);
  const double lower = m.mean - kZ95 * se, upper = m.mean + kZ95 * se;
  e.elo_lower = lower <= 0 ? -HUGE_VAL : elo_of_score(lower);
  e.elo_upper = upper >= 1 ? HUGE_VAL : elo_of_score(upper);
  e.los = 0.5 * std::erfc(-(m.mean - 0.5) / (se * std::sqrt(2.0)));
  // The delta method: the variance of t's estimate per sample (fishtest's t_conf).
  const double var_t = std::max(1 - t * m.skewness + 0.25 * t * t * (m.excess_kurtosis + 2), 0.0);
  e.nelo_ci95 = kZ95 * std::sqrt(var_t / m.total) * scale;
  return e;
}

}  // namespace

EloEstimate::Verdict EloEstimate::verdict() const {
  if (samples < kMinSamplesForInterval) return Verdict::kTooFew;
  if (!has_interval()) {
    return score > 0.5   ? Verdict::kFirstStronger
           : score < 0.5 ? Verdict::kSecondStronger
                         : Verdict::kCannotTell;
  }
  if (elo_lower > 0) return Verdict::kFirstStronger;
  if (elo_upper < 0) return Verdict::kSecondStronger;
  return Verdict::kCannotTell;
}

std::string describe(EloEstimate::Verdict v, bool pairs) {
  switch (v) {
    case EloEstimate::Verdict::kTooFew:
      return std::string("too few ") + (pairs ? "pairs" : "games") + " to tell";
    case EloEstimate::Verdict::kCannotTell:
      return "cannot be told apart";
    case EloEstimate::Verdict::kFirstStronger:
      return "stronger";
    default:
      return "weaker";
  }
}

double elo_of_score(double score) {
  if (score <= 0) return -std::numeric_limits<double>::infinity();
  if (score >= 1) return std::numeric_limits<double>::infinity();
  return -400.0 * std::log10(1.0 / score - 1.0);
}

EloEstimate estimate(const Pentanomial& p) {
  std::array<double, 5> counts{};
  for (size_t k = 0; k < 5; ++k) counts[k] = static_cast<double>(p.n[k]);
  return from_counts(counts, {0.0, 0.25, 0.5, 0.75, 1.0}, 2.0);
}

EloEstimate estimate(const Trinomial& t) {
  const std::array<double, 3> counts = {static_cast<double>(t.losses), static_cast<double>(t.draws),
                                        static_cast<double>(t.wins)};
  return from_counts(counts, {0.0, 0.5, 1.0}, 1.0);
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
  for (size_t k = 0; k < 5; ++k) counts[k] = static_cast<double>(p.n[k]);
  const Moments m = moments(regularized(counts), {0.0, 0.25, 0.5, 0.75, 1.0});
  const double sd = std::sqrt(2.0 * m.variance);
  const double s0 = 0.5 + elo0 * sd / kNeloScale;
  const double s1 = 0.5 + elo1 * sd / kNeloScale;
  return m.total * (s1 - s0) * (2 * m.mean - s0 - s1) / (2 * m.variance);
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

double sprt_expected_pairs_left(const Pentanomial& p, const SprtParams& q, double llr) {
  const double t0 = std::sqrt(2.0) * q.elo0 / kNeloScale;
  const double t1 = std::sqrt(2.0) * q.elo1 / kNeloScale;
  double t = (t0 + t1) / 2;
  if (p.pairs() >= kMinSamplesForInterval) {
    const EloEstimate e = estimate(p);
    // Pairs that all split have no nElo (no spread) but show no difference: t = 0.
    t = std::isnan(e.nelo) ? 0 : std::clamp(std::sqrt(2.0) * e.nelo / kNeloScale, -10.0, 10.0);
  }
  const double a = q.lower_bound(), b = q.upper_bound();
  const double x = std::clamp(llr, a, b);
  const double mu = (t1 - t0) * (t - (t0 + t1) / 2);
  const double var = (t1 - t0) * (t1 - t0);
  const double theta = 2 * mu / var;
  if (std::abs(theta) * (b - a) < 1e-9) return (b - x) * (x - a) / var;
  // P(the upper bound first) = (1 - e^(-theta (x - a))) / (1 - e^(-theta (b - a))), written so
  // that neither exponential overflows.
  const double k = std::abs(theta);
  double upper_first = std::expm1(-k * (x - a)) / std::expm1(-k * (b - a));
  if (theta < 0) upper_first *= std::exp(-k * (b - x));
  return (upper_first * (b - x) - (1 - upper_first) * (x - a)) / mu;
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
