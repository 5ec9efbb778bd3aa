// SPSA, as fishtest and OpenBench tune engines (Spall 1992; fishtest's c_end / r_end form): each
// iteration plays theta + c_k Delta against theta - c_k Delta, Delta a random sign per parameter,
// and moves theta_i by a_k R Delta_i / c_k, R the result of theta+ (wins minus losses). Pure
// arithmetic, so a run, a resume and a test agree on every number (docs/TUNING.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allfives::referee {

struct SpsaParam {
  std::string name;
  double start = 0, min = 0, max = 0;
  double c_end = 0, r_end = 0;  // c_k and a_k / c_k^2 at the last pair
};

struct SpsaSchedule {
  uint64_t pairs = 0;  // N: the gains reach c_end and r_end at pair N
  uint32_t pairs_per_iteration = 1;
  double alpha = 0.602, gamma = 0.101;
  double big_a = 0;  // A, the stability constant (in pairs)
};

// Counted in pairs, as fishtest counts: pair k (1-based) has c_k = c / k^gamma and
// a_k = a / (A + k)^alpha, with c = c_end N^gamma and a = r_end c_end^2 (A + N)^alpha.
double spsa_c(const SpsaParam& p, const SpsaSchedule& s, uint64_t k);
double spsa_a(const SpsaParam& p, const SpsaSchedule& s, uint64_t k);

// ceil(pairs / pairs_per_iteration).
uint64_t spsa_iterations(const SpsaSchedule& s);
// The pairs iteration `i` (0-based) plays: pairs_per_iteration, fewer in the last.
uint32_t spsa_pairs_in(const SpsaSchedule& s, uint64_t i);

// What iteration `i` plays: the signs drawn from (seed, i) alone, so a resumed run draws the
// same; the gains of its first pair; the values clipped to [min, max].
struct SpsaStep {
  std::vector<int> flip;
  std::vector<double> c, a;
  std::vector<double> plus, minus;
};
SpsaStep spsa_step(const std::vector<SpsaParam>& params, const SpsaSchedule& s,
                   const std::vector<double>& theta, uint64_t seed, uint64_t i);

// theta after an iteration whose result (theta+'s wins minus losses) is `result`:
// theta_i + a_i result flip_i / c_i, clipped to [min, max].
std::vector<double> spsa_update(const std::vector<SpsaParam>& params,
                                const std::vector<double>& theta, const SpsaStep& step,
                                double result);

}  // namespace allfives::referee
