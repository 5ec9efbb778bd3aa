// SPSA's arithmetic against the published formulas (Spall 1998, "Implementation of the
// simultaneous perturbation algorithm"; fishtest's c_end / r_end form), worked by hand here.
#include "tune/spsa.h"

#include <gtest/gtest.h>

#include <cmath>

namespace allfives::referee {
namespace {

SpsaParam param() {
  return {"x", 50, 0, 100, 10, 0.002};
}
SpsaSchedule schedule() {
  return {1000, 1, 0.602, 0.101, 100};
}

TEST(Spsa, GainsReachCEndAndREndAtTheLastPair) {
  const SpsaParam p = param();
  const SpsaSchedule s = schedule();
  EXPECT_NEAR(spsa_c(p, s, 1000), 10.0, 1e-12);
  EXPECT_NEAR(spsa_a(p, s, 1000), 0.002 * 10 * 10, 1e-12);  // a_end = r_end c_end^2
}

TEST(Spsa, GainsDecayAsSpallsSequences) {
  const SpsaParam p = param();
  const SpsaSchedule s = schedule();
  // c_k = c / k^gamma with c = c_end N^gamma; a_k = a / (A + k)^alpha, a = a_end (A + N)^alpha.
  const double c = 10 * std::pow(1000.0, 0.101);
  const double a = 0.2 * std::pow(1100.0, 0.602);
  for (const uint64_t k : {1u, 2u, 17u, 500u}) {
    EXPECT_NEAR(spsa_c(p, s, k), c / std::pow(double(k), 0.101), 1e-9) << k;
    EXPECT_NEAR(spsa_a(p, s, k), a / std::pow(100.0 + double(k), 0.602), 1e-9) << k;
  }
  EXPECT_NEAR(spsa_c(p, s, 1), 10 * std::pow(1000.0, 0.101), 1e-9);  // 20.08...
}

TEST(Spsa, IterationsBatchPairs) {
  SpsaSchedule s = schedule();
  s.pairs = 10;
  s.pairs_per_iteration = 4;
  EXPECT_EQ(spsa_iterations(s), 3u);
  EXPECT_EQ(spsa_pairs_in(s, 0), 4u);
  EXPECT_EQ(spsa_pairs_in(s, 2), 2u);
}

TEST(Spsa, AStepPerturbsByCkAndUpdatesAlongTheResult) {
  const std::vector<SpsaParam> ps = {param(), {"y", 0.5, 0, 1, 0.1, 0.5}};
  SpsaSchedule s = schedule();
  s.pairs_per_iteration = 4;
  const std::vector<double> theta = {50, 0.5};
  const SpsaStep step = spsa_step(ps, s, theta, 7, 3);  // pairs 13..16: gains of k = 13
  for (size_t j = 0; j < 2; ++j) {
    ASSERT_TRUE(step.flip[j] == 1 || step.flip[j] == -1);
    EXPECT_NEAR(step.c[j], spsa_c(ps[j], s, 13), 1e-12);
    EXPECT_NEAR(step.a[j], spsa_a(ps[j], s, 13), 1e-12);
    EXPECT_NEAR(step.plus[j], theta[j] + step.c[j] * step.flip[j], 1e-12);
    EXPECT_NEAR(step.minus[j], theta[j] - step.c[j] * step.flip[j], 1e-12);
  }
  // theta_i + a_k R Delta_i / c_k: theta+ won 3 more than it lost.
  const std::vector<double> next = spsa_update(ps, theta, step, 3);
  for (size_t j = 0; j < 2; ++j)
    EXPECT_NEAR(next[j], theta[j] + step.a[j] * 3 * step.flip[j] / step.c[j], 1e-12);
  EXPECT_EQ(spsa_update(ps, theta, step, 0), theta);
}

TEST(Spsa, SignsAreFairAndTheSameOnEveryRun) {
  const std::vector<SpsaParam> ps = {param(), param()};
  const SpsaSchedule s = schedule();
  int plus = 0, same = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    const SpsaStep a = spsa_step(ps, s, {50, 50}, 99, i);
    EXPECT_EQ(a.flip, spsa_step(ps, s, {50, 50}, 99, i).flip);
    plus += a.flip[0] > 0;
    same += a.flip[0] == a.flip[1];
  }
  EXPECT_NEAR(plus, 1000, 150);  // 2000 fair coins: sd 22
  EXPECT_NEAR(same, 1000, 150);  // the parameters' signs independent
}

TEST(Spsa, ValuesStayWithinTheirRange) {
  const std::vector<SpsaParam> ps = {{"x", 99, 0, 100, 10, 5}};
  const SpsaSchedule s = schedule();
  const SpsaStep step = spsa_step(ps, s, {99}, 1, 0);
  EXPECT_LE(std::max(step.plus[0], step.minus[0]), 100);
  EXPECT_GE(std::min(step.plus[0], step.minus[0]), 0);
  for (const double r : {-1000.0, 1000.0}) {
    const double next = spsa_update(ps, {99}, step, r)[0];
    EXPECT_GE(next, 0);
    EXPECT_LE(next, 100);
  }
}

}  // namespace
}  // namespace allfives::referee
