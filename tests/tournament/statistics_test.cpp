// The pentanomial statistics and the SPRT: fixed inputs against values computed from the
// published formulas (docs/STATISTICS.md; the expected numbers were computed separately, by hand
// or in a few lines of Python, not with this code), and simulated SPRT runs whose error rates
// must come out near the alpha and beta asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "test_entries.h"
#include "tournament/pairs.h"
#include "tournament/sprt.h"
#include "tournament/statistics.h"

namespace allfives::referee {
namespace {

using testing::two_player;

// "PREFIX-DEAL-ROTATION" (built with appends: GCC 12 warns wrongly on "x" + std::to_string).
std::string id(const char* prefix, uint32_t deal, uint32_t rotation) {
  std::string out = prefix;
  out += '-';
  out += std::to_string(deal);
  out += '-';
  out += std::to_string(rotation);
  return out;
}

struct Expected {
  Pentanomial counts;  // pairs scoring 0, 1/2, 1, 3/2, 2
  double score, variance, elo, elo_lower, elo_upper, los, nelo, nelo_ci95;
  double llr_0_5, llr_0_20, llr_m5_5;  // LLR for (elo0, elo1) = (0, 5), (0, 20), (-5, 5)
};

// The expected numbers were computed with fishtest's formulas, written out separately in a few
// lines of Python (not with this code): outcomes never seen count 0.001 pairs (LLRcalc's
// results_to_pdf), mu, var, skewness and excess kurtosis of that distribution of k/4 (stats_ex),
// se = sqrt(var / N);
//   elo = -400 log10(1/mu - 1), its interval the elo of mu -/+ 1.96 se (stat_util.get_elo),
//   LOS = Phi((mu - 1/2) / se),
//   t = (mu - 1/2) / sqrt(var), var_t = 1 - t skewness + t^2 (exkurt + 2) / 4 (tests_stats'
//   t_conf), nElo = t / sqrt(2) * 800 / ln 10 +/- 1.96 sqrt(var_t / N) / sqrt(2) * 800 / ln 10;
// score and variance are of the counts as observed. LLR = N (s1 - s0)(2 mu - s0 - s1) / (2 var),
// s_i = 1/2 + elo_i sqrt(2 var) ln 10 / 800.
const Expected kCases[] = {
    {{{5, 10, 30, 25, 10}},
     0.578125,
     0.0681152344,
     54.73518396,
     14.55516764,
     96.42898988,
     0.9962901754,
     73.54060581,
     57.34776362,
     0.47081257,
     1.68442909,
     0.97476200},
    // No pair lost twice: that outcome counts 0.001 pairs in every estimate.
    {{{0, 3, 10, 12, 5}},
     0.6583333333,
     0.0478472222,
     113.9203466,
     56.09179833,
     178.6412646,
     0.999963091,
     177.7807698,
     98.42119603,
     0.43563364,
     1.66797412,
     0.88369401},
    // Symmetric: Elo 0, and t = 0 so the delta method's var_t is 1. By hand: s1 = 1/2 + 20 *
    // sqrt(0.25) / 347.436 = 0.528782, so LLR(0, 20) = -100 * 0.028782^2 / 0.25 = -0.33137.
    {{{20, 20, 20, 20, 20}},
     0.5,
     0.125,
     0.0,
     -48.46311789,
     48.46311789,
     0.5,
     0.0,
     48.15123067,
     -0.02071054,
     -0.33136863,
     0.0},
    {{{1, 8, 40, 30, 21}},
     0.655,
     0.054725,
     111.368882,
     77.08552687,
     147.8945713,
     1.0,
     162.7789016,
     52.59137106,
     1.32778501,
     5.06261356,
     2.69699110},
};

TEST(Statistics, PentanomialEloIntervalLosAndNelo) {
  for (const Expected& c : kCases) {
    const EloEstimate e = estimate(c.counts);
    SCOPED_TRACE(::testing::PrintToString(c.counts.n));
    EXPECT_EQ(e.samples, c.counts.pairs());
    EXPECT_NEAR(e.score, c.score, 1e-9);
    EXPECT_NEAR(e.variance, c.variance, 1e-9);
    EXPECT_NEAR(e.elo, c.elo, 1e-5);
    EXPECT_NEAR(e.elo_lower, c.elo_lower, 1e-5);
    EXPECT_NEAR(e.elo_upper, c.elo_upper, 1e-5);
    EXPECT_NEAR(e.los, c.los, 1e-7);
    EXPECT_NEAR(e.nelo, c.nelo, 1e-5);
    EXPECT_NEAR(e.nelo_ci95, c.nelo_ci95, 1e-5);
    EXPECT_TRUE(e.has_interval());
  }
}

TEST(Statistics, SprtLlrAndBounds) {
  for (const Expected& c : kCases) {
    SCOPED_TRACE(::testing::PrintToString(c.counts.n));
    EXPECT_NEAR(sprt_llr(c.counts, 0, 5), c.llr_0_5, 1e-7);
    EXPECT_NEAR(sprt_llr(c.counts, 0, 20), c.llr_0_20, 1e-7);
    EXPECT_NEAR(sprt_llr(c.counts, -5, 5), c.llr_m5_5, 1e-7);
    // From the opponent's side the evidence is mirrored.
    EXPECT_NEAR(sprt_llr(c.counts.mirrored(), -5, 5), -c.llr_m5_5, 1e-7);
  }
  const SprtParams p{0, 5, 0.05, 0.05};
  EXPECT_NEAR(p.lower_bound(), -2.9444389791664403, 1e-12);  // ln(0.05 / 0.95)
  EXPECT_NEAR(p.upper_bound(), 2.9444389791664403, 1e-12);
  const SprtParams q{0, 5, 0.05, 0.1};
  EXPECT_NEAR(q.lower_bound(), std::log(0.1 / 0.95), 1e-12);
  EXPECT_NEAR(q.upper_bound(), std::log(0.9 / 0.05), 1e-12);
  EXPECT_EQ(sprt_decide(3.0, p), SprtDecision::kAcceptH1);
  EXPECT_EQ(sprt_decide(-3.0, p), SprtDecision::kAcceptH0);
  EXPECT_EQ(sprt_decide(0.5, p), SprtDecision::kContinue);
  EXPECT_EQ(sprt_llr(Pentanomial{}, 0, 5), 0.0);
}

// The exact (maximum likelihood) LLR agrees with the normal approximation when there are many
// pairs, and does not jump to a decision on a handful of one-sided pairs.
TEST(Statistics, ExactLlrAgreesWithTheApproximationAndStaysSoberOnFewPairs) {
  // Near the hypotheses (true nElo about 5 here, 20,000 pairs) the two agree closely; far
  // from them (the fixed cases, nElo 70 and more) only in sign and rough size.
  const Pentanomial near{{800, 3560, 11220, 3620, 800}};
  EXPECT_NEAR(sprt_llr_exact(near, 0, 10), sprt_llr(near, 0, 10),
              0.03 * std::abs(sprt_llr(near, 0, 10)));
  for (const Expected& c : kCases) {
    SCOPED_TRACE(::testing::PrintToString(c.counts.n));
    EXPECT_NEAR(sprt_llr_exact(c.counts, 0, 5), c.llr_0_5, 0.3 * std::abs(c.llr_0_5) + 0.01);
  }
  const Pentanomial three_wins{{0, 0, 0, 0, 3}};
  const SprtParams p{0, 20, 0.05, 0.05};
  EXPECT_GT(sprt_llr(three_wins, 0, 20), p.upper_bound()) << "the approximation decides";
  EXPECT_GT(sprt_llr_exact(three_wins, 0, 20), 0.1);
  EXPECT_LT(sprt_llr_exact(three_wins, 0, 20), p.upper_bound()) << "the exact LLR does not";
  // Identical bots: every pair split; the evidence still accumulates toward H0.
  EXPECT_LT(sprt_llr_exact(Pentanomial{{0, 0, 900, 0, 0}}, 0, 20), p.lower_bound());
  EXPECT_GT(sprt_llr_exact(Pentanomial{{0, 0, 300, 0, 0}}, 0, 20), p.lower_bound());
}

// The counts where a fixed-variance interval or a clipped score misleads: a clean sweep, one
// pair, pairs that all split, a lopsided pairing and one below the minimum sample. Expected
// numbers from the same Python as kCases.
TEST(Statistics, DegenerateAndLopsidedCases) {
  // A clean sweep: no spread. Elo and nElo are infinite, and there is no interval, no LOS
  // (never "0 +/- 0"); the verdict follows from 60 pairs won twice.
  const EloEstimate sweep = estimate(Pentanomial{{0, 0, 0, 0, 60}});
  EXPECT_EQ(sweep.score, 1.0);
  EXPECT_TRUE(std::isinf(sweep.elo) && sweep.elo > 0);
  EXPECT_TRUE(std::isinf(sweep.nelo) && sweep.nelo > 0);
  EXPECT_FALSE(sweep.has_interval());
  EXPECT_TRUE(std::isnan(sweep.nelo_ci95) && std::isnan(sweep.los));
  EXPECT_EQ(sweep.verdict(), EloEstimate::Verdict::kFirstStronger);
  // One pair won and drawn: Elo of a score of 3/4 (+190.8), but below the minimum sample no
  // interval, LOS or verdict (never "+191 [+191, +191] LOS 100%").
  const EloEstimate one = estimate(Pentanomial{{0, 0, 0, 1, 0}});
  EXPECT_NEAR(one.elo, -400 * std::log10(1 / 0.75 - 1), 1e-9);
  EXPECT_FALSE(one.has_interval());
  EXPECT_TRUE(std::isnan(one.elo_lower) && std::isnan(one.elo_upper));
  EXPECT_EQ(one.verdict(), EloEstimate::Verdict::kTooFew);
  // 447 pairs that all split 1-1 (identical deterministic bots): Elo 0, nElo undefined (no
  // spread to measure a distance in), no interval; the bots cannot be told apart.
  const EloEstimate split = estimate(Pentanomial{{0, 0, 447, 0, 0}});
  EXPECT_EQ(split.elo, 0.0);
  EXPECT_TRUE(std::isnan(split.nelo));
  EXPECT_FALSE(split.has_interval());
  EXPECT_EQ(split.verdict(), EloEstimate::Verdict::kCannotTell);
  // 19 of 20 pairs won twice: the delta method's nElo +/- (1078) is ten times the
  // fixed-variance one (107.7 for any 20 pairs); the score's interval reaches 1, so Elo's
  // upper end is unbounded; the verdict follows the score.
  const EloEstimate lopsided = estimate(Pentanomial{{0, 0, 1, 0, 19}});
  EXPECT_NEAR(lopsided.elo, 635.7412661, 1e-5);
  EXPECT_NEAR(lopsided.elo_lower, 441.5009058, 1e-5);
  EXPECT_TRUE(std::isinf(lopsided.elo_upper) && lopsided.elo_upper > 0);
  EXPECT_NEAR(lopsided.nelo, 1067.306813, 1e-4);
  EXPECT_NEAR(lopsided.nelo_ci95, 1077.972179, 1e-4);
  EXPECT_EQ(lopsided.verdict(), EloEstimate::Verdict::kFirstStronger);
  // An ordinary pairing with a losing candidate (nElo -35 +/- 56).
  const EloEstimate losing = estimate(Pentanomial{{15, 0, 51, 0, 9}});
  EXPECT_NEAR(losing.elo, -27.85362531, 1e-5);
  EXPECT_NEAR(losing.elo_lower, -72.87689148, 1e-5);
  EXPECT_NEAR(losing.elo_upper, 16.25019248, 1e-5);
  EXPECT_NEAR(losing.los, 0.1080127934, 1e-8);
  EXPECT_NEAR(losing.nelo, -35.09544355, 1e-5);
  EXPECT_NEAR(losing.nelo_ci95, 55.80388938, 1e-5);
  EXPECT_EQ(losing.verdict(), EloEstimate::Verdict::kCannotTell);
  // Ten pairs: the first sample with an interval; nine: none.
  const EloEstimate ten = estimate(Pentanomial{{1, 1, 2, 3, 3}});
  EXPECT_NEAR(ten.nelo, 115.1035258, 1e-5);
  EXPECT_NEAR(ten.nelo_ci95, 178.9458235, 1e-5);
  EXPECT_NEAR(ten.elo_lower, -33.75931115, 1e-5);
  EXPECT_NEAR(ten.los, 0.9307758743, 1e-8);
  EXPECT_EQ(ten.verdict(), EloEstimate::Verdict::kCannotTell);
  EXPECT_FALSE(estimate(Pentanomial{{1, 1, 2, 3, 2}}).has_interval());
  // No pairs at all: nothing exists.
  const EloEstimate none = estimate(Pentanomial{});
  EXPECT_TRUE(std::isnan(none.elo) && std::isnan(none.nelo) && std::isnan(none.score));
  EXPECT_EQ(none.verdict(), EloEstimate::Verdict::kTooFew);
}

TEST(Statistics, EdgeCases) {
  // Every pair split (identical deterministic bots): the SPRT still moves toward H0 (the empty
  // outcomes' 0.001 pairs give it a variance).
  EXPECT_LT(sprt_llr(Pentanomial{{0, 0, 50, 0, 0}}, 0, 20), -0.1);
  // Trinomial: 60 wins, 20 draws, 20 losses: score 0.7, variance 0.16 (by hand); the rest from
  // the Python above with the three outcomes 0, 1/2, 1 and no sqrt(2).
  const EloEstimate t = estimate(Trinomial{60, 20, 20});
  EXPECT_NEAR(t.score, 0.7, 1e-12);
  EXPECT_NEAR(t.variance, 0.16, 1e-12);
  EXPECT_NEAR(t.elo, 147.1907141, 1e-5);
  EXPECT_NEAR(t.elo_lower, 86.2250152, 1e-5);
  EXPECT_NEAR(t.elo_upper, 218.2517776, 1e-5);
  EXPECT_NEAR(t.los, 0.9999997133, 1e-9);
  EXPECT_NEAR(t.nelo, 0.2 / 0.4 * 800 / std::log(10), 1e-9);
  EXPECT_NEAR(t.nelo_ci95, 83.10120721, 1e-5);
}

// A pentanomial distribution with nElo exactly `nelo`: the symmetric `base` tilted by
// exp(lambda * score), lambda found by bisection.
std::array<double, 5> with_nelo(const std::array<double, 5>& base, double nelo) {
  auto tilted = [&](double lambda) {
    std::array<double, 5> p{};
    double sum = 0;
    for (size_t k = 0; k < 5; ++k) sum += p[k] = base[k] * std::exp(lambda * k / 4.0);
    for (double& x : p) x /= sum;
    return p;
  };
  auto nelo_of = [&](double lambda) {
    const auto p = tilted(lambda);
    double mean = 0, var = 0;
    for (size_t k = 0; k < 5; ++k) mean += p[k] * k / 4.0;
    for (size_t k = 0; k < 5; ++k) var += p[k] * (k / 4.0 - mean) * (k / 4.0 - mean);
    return (mean - 0.5) / std::sqrt(2 * var) * 800 / std::log(10);
  };
  double lo = -10, hi = 10;
  for (int i = 0; i < 200; ++i) ((nelo_of((lo + hi) / 2) < nelo) ? lo : hi) = (lo + hi) / 2;
  return tilted((lo + hi) / 2);
}

struct Rates {
  double h0 = 0, h1 = 0, mean_pairs = 0;
};

// `runs` SPRTs of (elo0, elo1) on pairs drawn from `p`, each run to its decision.
using LlrFunction = double (*)(const Pentanomial&, double, double);

Rates simulate(const std::array<double, 5>& p, const SprtParams& params, int runs,
               std::mt19937_64& rng, LlrFunction llr) {
  std::discrete_distribution<int> outcome(p.begin(), p.end());
  Rates r;
  for (int run = 0; run < runs; ++run) {
    Pentanomial counts;
    SprtDecision d = SprtDecision::kContinue;
    while (d == SprtDecision::kContinue && counts.pairs() < 1000000) {
      ++counts.n[static_cast<size_t>(outcome(rng))];
      d = sprt_decide(llr(counts, params.elo0, params.elo1), params);
    }
    r.h0 += d == SprtDecision::kAcceptH0;
    r.h1 += d == SprtDecision::kAcceptH1;
    r.mean_pairs += static_cast<double>(counts.pairs());
  }
  r.h0 /= runs;
  r.h1 /= runs;
  r.mean_pairs /= runs;
  return r;
}

// 1,000 runs each between equal bots, and with a true difference of elo1: the test must accept
// H0, resp. H1, at close to 1 - alpha, resp. 1 - beta. With a fixed seed the outcome is fixed;
// the bounds (0.92 for a nominal 0.95, whose binomial standard error over 1,000 runs is 0.007)
// still allow for another standard library's random distributions.
TEST(Statistics, SimulatedSprtErrorRates) {
  const SprtParams params{0, 10, 0.05, 0.05};
  const std::array<double, 5> equal = {0.04, 0.18, 0.56, 0.18, 0.04};  // typical mirrored pairs
  std::mt19937_64 rng(2026);
  const Rates same = simulate(equal, params, 1000, rng, sprt_llr);
  const Rates better = simulate(with_nelo(equal, params.elo1), params, 1000, rng, sprt_llr);
  const Rates between = simulate(with_nelo(equal, 5), params, 1000, rng, sprt_llr);
  std::printf(
      "SPRT nElo [0, 10], alpha = beta = 0.05, 1000 runs each:\n"
      "  equal bots:      H0 accepted %.3f (target 0.95), H1 %.3f, mean %.0f pairs\n"
      "  true nElo 10:    H1 accepted %.3f (target 0.95), H0 %.3f, mean %.0f pairs\n"
      "  true nElo 5:     H1 accepted %.3f (about 0.5),   mean %.0f pairs\n",
      same.h0, same.h1, same.mean_pairs, better.h1, better.h0, better.mean_pairs, between.h1,
      between.mean_pairs);
  EXPECT_GE(same.h0, 0.92);
  EXPECT_LE(same.h1, 0.08);
  EXPECT_GE(better.h1, 0.92);
  EXPECT_LE(better.h0, 0.08);
  EXPECT_GT(between.h1, 0.3);
  EXPECT_LT(between.h1, 0.7);
}

// The same for the exact LLR, which tournaments use, with nElo [0, 20] (a quarter of the
// pairs, so that its costlier LLR keeps the test to seconds).
TEST(Statistics, SimulatedExactSprtErrorRates) {
  const SprtParams params{0, 20, 0.05, 0.05};
  const std::array<double, 5> equal = {0.04, 0.18, 0.56, 0.18, 0.04};
  std::mt19937_64 rng(2027);
  const Rates same = simulate(equal, params, 1000, rng, sprt_llr_exact);
  const Rates better = simulate(with_nelo(equal, params.elo1), params, 1000, rng, sprt_llr_exact);
  std::printf(
      "exact SPRT nElo [0, 20], alpha = beta = 0.05, 1000 runs each:\n"
      "  equal bots:      H0 accepted %.3f (target 0.95), H1 %.3f, mean %.0f pairs\n"
      "  true nElo 20:    H1 accepted %.3f (target 0.95), H0 %.3f, mean %.0f pairs\n",
      same.h0, same.h1, same.mean_pairs, better.h1, better.h0, better.mean_pairs);
  EXPECT_GE(same.h0, 0.92);
  EXPECT_LE(same.h1, 0.08);
  EXPECT_GE(better.h1, 0.92);
  EXPECT_LE(better.h0, 0.08);
}

// The pairs a test is expected to need from here (the progress line's ETA): Wald's expected
// sample number of the LLR as a Brownian motion, worked out separately (Python):
//   t1 = sqrt(2) * 10 / (800 / ln 10); var = t1^2; a, b = -/+ ln(0.95 / 0.05)
//   no estimate yet (drift 0): (b - x)(x - a) / var = b^2 / var = 5232.674 at x = 0;
//   equal bots (t = 0, drift -t1^2 / 2): theta = 2 drift / var = -1,
//   P(b first) = (1 - e^(-theta (x - a))) / (1 - e^(-theta (b - a))),
//   E = (P (b - x) - (1 - P)(x - a)) / drift = 3198.848 at x = 0, 3761.309 at x = 1,
// the simulations above measure 3,252 pairs for equal bots.
TEST(Statistics, ExpectedPairsLeftOfAnSprt) {
  const SprtParams p{0, 10, 0.05, 0.05};
  EXPECT_NEAR(sprt_expected_pairs_left(Pentanomial{}, p, 0), 5232.674470, 1e-3);
  const Pentanomial equal{{400, 1800, 5600, 1800, 400}};
  EXPECT_NEAR(sprt_expected_pairs_left(equal, p, 0), 3198.848444, 1e-3);
  EXPECT_NEAR(sprt_expected_pairs_left(equal, p, 1.0), 3761.309355, 1e-3);
  // By symmetry a true nElo of 10 needs as many to reach H1; at a bound, none.
  const Pentanomial better{{300, 1600, 5600, 2000, 500}};
  EXPECT_GT(sprt_expected_pairs_left(better, p, 0), 0);
  EXPECT_EQ(sprt_expected_pairs_left(equal, p, p.upper_bound()), 0);
  EXPECT_EQ(sprt_expected_pairs_left(equal, p, p.lower_bound() - 1), 0);
  // Pairs that all split: no difference, like equal bots (not the slowest midpoint case).
  EXPECT_NEAR(sprt_expected_pairs_left(Pentanomial{{0, 0, 40, 0, 0}}, p, 0), 3198.848444, 1e-3);
}

// The SPRT's words: a value beyond a bound is never said to lie inside it, and the verdict
// names the bots, never a variable.
TEST(Sprt, StatusAndReportSayWhereTheLlrIs) {
  SprtSummary s;
  s.candidate = "new";
  s.against = "old";
  s.params = {0, 10, 0.05, 0.05};
  s.pairs = Pentanomial{{10, 20, 60, 30, 20}};
  s.llr = 1.234;
  EXPECT_EQ(sprt_status(s), "LLR +1.23 in (-2.94, +2.94), 140 pairs");
  EXPECT_NE(sprt_report(s).find("verdict: none yet"), std::string::npos) << sprt_report(s);
  s.state = SprtSummary::State::kAcceptH1;
  s.llr_at_end = s.llr = 2.956;
  s.pairs_at_end = 140;
  EXPECT_EQ(sprt_status(s), "LLR +2.96 ≥ +2.94: H1 accepted after 140 pairs");
  const std::string report = sprt_report(s);
  EXPECT_NE(report.find("LLR +2.956 ≥ +2.944: H1 accepted after 140 pairs"), std::string::npos)
      << report;
  EXPECT_EQ(report.find(" in ("), std::string::npos) << report;
  EXPECT_NE(report.find("verdict: new is stronger than old"), std::string::npos) << report;
  EXPECT_EQ(report.find("elo1"), std::string::npos) << report;
  s.state = SprtSummary::State::kAcceptH0;
  s.llr_at_end = -3.01;
  EXPECT_EQ(sprt_status(s), "LLR -3.01 ≤ -2.94: H0 accepted after 140 pairs");
  EXPECT_NE(sprt_report(s).find("verdict: new is not stronger than old by nElo 10"),
            std::string::npos)
      << sprt_report(s);
  s.state = SprtSummary::State::kMaxPairs;
  s.max_pairs = 140;
  s.llr_at_end = 0.5;
  EXPECT_EQ(sprt_status(s), "LLR +0.50 in (-2.94, +2.94): undecided at the maximum of 140 pairs");
}

TEST(Pairs, MirroredMatchesMakeOnePairScoredFromBothSides) {
  PairBook book;
  auto m = [](const std::string& id, uint32_t deal, uint32_t rotation, const std::string& a,
              const std::string& b, int winner) {
    v1::IndexEntry e = two_player(id, a, b, winner);
    e.mutable_match()->set_deal(deal);
    e.mutable_match()->set_rotation(rotation);
    e.mutable_match()->set_seed(100 + deal);
    return e;
  };
  EXPECT_FALSE(book.add(m("x0", 0, 0, "new", "old", 0)));  // new wins
  EXPECT_EQ(book.unpaired(), 1u);
  const auto done = book.add(m("x1", 0, 1, "old", "new", 0));  // old wins: pair 1-1
  ASSERT_TRUE(done);
  EXPECT_EQ(done->first, "new");
  EXPECT_EQ(book.add(m("y0", 1, 0, "new", "old", 0)), std::nullopt);
  book.add(m("y1", 1, 1, "old", "new", -1));  // a draw: new scores 1.5
  book.add(m("z1", 2, 1, "old", "new", 1));   // rotation 1 first, new wins both: 2
  book.add(m("z0", 2, 0, "new", "old", 0));
  EXPECT_EQ(book.of("new"), (Pentanomial{{0, 0, 1, 1, 1}}));
  EXPECT_EQ(book.of("old"), (Pentanomial{{1, 1, 1, 0, 0}}));
  EXPECT_EQ(book.unpaired(), 0u);
  // A forfeit is a loss whatever the scores say.
  v1::IndexEntry f = testing::entry("f", v1::FORMAT_TWO_PLAYERS, {"a", "b"}, {250, 0}, {1, 2}, 0,
                                    v1::FAULT_KIND_TIMEOUT);
  const auto scores = two_side_scores(f);
  EXPECT_EQ(scores.at("a"), 0.0);
  EXPECT_EQ(scores.at("b"), 1.0);
  // Partnerships: a side is two seats of one bot.
  v1::IndexEntry p =
      testing::entry("p", v1::FORMAT_PARTNERSHIPS, {"a", "b", "a", "b"}, {100, 250}, {2, 1});
  EXPECT_EQ(two_side_scores(p).at("b"), 1.0);
}

TEST(Sprt, MonitorStopsAtTheFirstDecisionAndKeepsIt) {
  TournamentDef::SprtSetup setup;
  setup.params = {0, 20, 0.05, 0.05};
  SprtMonitor monitor(setup, "new", "old");
  int matches = 0;
  for (uint32_t deal = 0; !monitor.over() && deal < 1000; ++deal) {
    for (uint32_t r = 0; r < 2; ++r) {
      v1::IndexEntry e = two_player(id("m", deal, r), r ? "old" : "new", r ? "new" : "old",
                                    deal % 4 == 3 ? 0 : static_cast<int>(r));
      e.mutable_match()->set_deal(deal);
      e.mutable_match()->set_rotation(r);
      ++matches;
      monitor.add(e);
    }
  }
  ASSERT_TRUE(monitor.over());
  EXPECT_EQ(monitor.decision(), SprtDecision::kAcceptH1);
  EXPECT_GE(monitor.llr(), setup.params.upper_bound());
  EXPECT_EQ(monitor.pairs() * 2, matches);
  EXPECT_NE(monitor.report().find("H1 accepted"), std::string::npos) << monitor.report();
  // Later evidence against does not undo the decision.
  for (uint32_t deal = 1000; deal < 1100; ++deal)
    for (uint32_t r = 0; r < 2; ++r) {
      v1::IndexEntry e = two_player(id("late", deal, r), r ? "old" : "new", r ? "new" : "old",
                                    1 - static_cast<int>(r));
      e.mutable_match()->set_deal(deal);
      e.mutable_match()->set_rotation(r);
      monitor.add(e);
    }
  EXPECT_EQ(monitor.decision(), SprtDecision::kAcceptH1);
}

TEST(Sprt, MaximumEndsTheTestUndecided) {
  TournamentDef::SprtSetup setup;
  setup.params = {0, 5, 0.05, 0.05};
  setup.max_pairs = 3;
  SprtMonitor monitor(setup, "a", "b");
  for (uint32_t deal = 0; deal < 3; ++deal)
    for (uint32_t r = 0; r < 2; ++r) {
      v1::IndexEntry e =
          two_player(id("d", deal, r), r ? "b" : "a", r ? "a" : "b", 0);  // seat 0 always wins
      e.mutable_match()->set_deal(deal);
      e.mutable_match()->set_rotation(r);
      EXPECT_EQ(monitor.add(e), deal == 2 && r == 1);
    }
  EXPECT_EQ(monitor.decision(), SprtDecision::kContinue);
  EXPECT_NE(monitor.report().find("maximum of 3 pairs"), std::string::npos) << monitor.report();
}

}  // namespace
}  // namespace allfives::referee
