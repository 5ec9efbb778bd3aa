#include "tune/spsa.h"

#include <algorithm>
#include <cmath>

#include "allfives/core/rng.h"

namespace allfives::referee {

double spsa_c(const SpsaParam& p, const SpsaSchedule& s, uint64_t k) {
  const double c = p.c_end * std::pow(static_cast<double>(s.pairs), s.gamma);
  return c / std::pow(static_cast<double>(k), s.gamma);
}

double spsa_a(const SpsaParam& p, const SpsaSchedule& s, uint64_t k) {
  const double a =
      p.r_end * p.c_end * p.c_end * std::pow(s.big_a + static_cast<double>(s.pairs), s.alpha);
  return a / std::pow(s.big_a + static_cast<double>(k), s.alpha);
}

uint64_t spsa_iterations(const SpsaSchedule& s) {
  return (s.pairs + s.pairs_per_iteration - 1) / s.pairs_per_iteration;
}

uint32_t spsa_pairs_in(const SpsaSchedule& s, uint64_t i) {
  const uint64_t before = i * s.pairs_per_iteration;
  return static_cast<uint32_t>(std::min<uint64_t>(s.pairs_per_iteration, s.pairs - before));
}

SpsaStep spsa_step(const std::vector<SpsaParam>& params, const SpsaSchedule& s,
                   const std::vector<double>& theta, uint64_t seed, uint64_t i) {
  SpsaStep step;
  const uint64_t k = i * s.pairs_per_iteration + 1;
  SplitMix64 signs(derive_seed(seed, i));
  for (size_t j = 0; j < params.size(); ++j) {
    const SpsaParam& p = params[j];
    const int flip = (signs.next() >> 63) ? 1 : -1;
    const double c = spsa_c(p, s, k);
    step.flip.push_back(flip);
    step.c.push_back(c);
    step.a.push_back(spsa_a(p, s, k));
    step.plus.push_back(std::clamp(theta[j] + c * flip, p.min, p.max));
    step.minus.push_back(std::clamp(theta[j] - c * flip, p.min, p.max));
  }
  return step;
}

std::vector<double> spsa_update(const std::vector<SpsaParam>& params,
                                const std::vector<double>& theta, const SpsaStep& step,
                                double result) {
  std::vector<double> next(theta.size());
  for (size_t j = 0; j < theta.size(); ++j)
    next[j] = std::clamp(theta[j] + step.a[j] * result * step.flip[j] / step.c[j], params[j].min,
                         params[j].max);
  return next;
}

}  // namespace allfives::referee
