// Match statistics for two bots: the pentanomial model over mirrored pairs, Elo with its 95%
// interval, the likelihood of superiority, normalized Elo and the sequential probability ratio
// test (SPRT). Pure functions of counts; the formulas and their sources are in
// docs/STATISTICS.md.
//
// A mirrored pair is the two matches of one deal sequence, the bots in swapped seats. Scored
// from one bot's side (a win 1, a draw 1/2, a loss 0), a pair scores 0, 1/2, 1, 3/2 or 2. The
// two matches of a pair share their luck, so their results are correlated; counting the five
// pair outcomes instead of wins, draws and losses measures the variance that is really there
// (for equal bots on luck-heavy deals, much less than the trinomial model assumes).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace allfives::referee {

// Counts of pair scores from one bot's side: n[k] pairs scored k/2 (k = 0..4).
struct Pentanomial {
  std::array<int64_t, 5> n{};
  int64_t pairs() const { return n[0] + n[1] + n[2] + n[3] + n[4]; }
  // The same pairs from the opponent's side.
  Pentanomial mirrored() const { return {{n[4], n[3], n[2], n[1], n[0]}}; }
  Pentanomial& operator+=(const Pentanomial& o) {
    for (size_t k = 0; k < n.size(); ++k) n[k] += o.n[k];
    return *this;
  }
  bool operator==(const Pentanomial&) const = default;
};

// Wins, draws and losses of single games (the trinomial model), from one bot's side.
struct Trinomial {
  int64_t wins = 0, draws = 0, losses = 0;
  int64_t games() const { return wins + draws + losses; }
};

// The fewest samples (pairs, or games where there are no pairs) over which an interval, a
// likelihood of superiority or a verdict is given: below it the normal approximation behind
// them means little (one pair won 2-0 would otherwise be "+191 [+191, +191], LOS 100%").
inline constexpr int64_t kMinSamplesForInterval = 10;

// What a set of results says about the difference between two bots, from the first bot's side
// (docs/STATISTICS.md). A value that does not exist is NaN (printed as such, never as 0): no
// samples, an interval below kMinSamplesForInterval samples or when every sample scored the
// same; an infinite estimate (every sample won) is +/-infinity.
struct EloEstimate {
  int64_t samples = 0;  // pairs (pentanomial) or games (trinomial)
  double score = std::numeric_limits<double>::quiet_NaN();     // mean score per game, 0..1
  double variance = std::numeric_limits<double>::quiet_NaN();  // of one sample's score, 0..1
  // Logistic Elo, -400 log10(1 / score - 1), and the Elo of the ends of the score's 95%
  // interval (score +/- 1.96 standard errors); an end is +/-infinity where the score's interval
  // reaches 1 or 0 (unbounded on that side).
  double elo = std::numeric_limits<double>::quiet_NaN();
  double elo_lower = std::numeric_limits<double>::quiet_NaN();
  double elo_upper = std::numeric_limits<double>::quiet_NaN();
  // Normalized Elo (fishtest): the score's distance from 1/2 in standard deviations of a game,
  // times 800 / ln 10 (NaN when every sample scored exactly 1/2: no spread, no distance); the
  // half width of its 95% interval by the delta method, from the measured spread.
  double nelo = std::numeric_limits<double>::quiet_NaN();
  double nelo_ci95 = std::numeric_limits<double>::quiet_NaN();
  // Likelihood of superiority: P(the first bot is the stronger), in the normal approximation.
  double los = std::numeric_limits<double>::quiet_NaN();

  // An interval, LOS and verdict exist: enough samples, and a spread to measure them with.
  bool has_interval() const { return !std::isnan(los); }

  enum class Verdict {
    kTooFew,          // fewer than kMinSamplesForInterval samples
    kCannotTell,      // the score's 95% interval includes 1/2 (or every sample scored 1/2)
    kFirstStronger,   // the interval lies above 1/2 (or every sample scored more)
    kSecondStronger,  // below
  };
  Verdict verdict() const;
  // kCannotTell or kTooFew.
  bool indistinguishable() const {
    return verdict() == Verdict::kCannotTell || verdict() == Verdict::kTooFew;
  }
};

// "too few pairs", "cannot be told apart", "stronger", "weaker" (the first bot's side).
std::string describe(EloEstimate::Verdict v, bool pairs);

EloEstimate estimate(const Pentanomial& p);
EloEstimate estimate(const Trinomial& t);

// Logistic Elo of a score in 0..1 (+/-infinity at the ends).
double elo_of_score(double score);

// The SPRT of H0: nElo = elo0 against H1: nElo = elo1 (elo0 < elo1), with error rates alpha
// (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds).
struct SprtParams {
  double elo0 = 0, elo1 = 5, alpha = 0.05, beta = 0.05;
  double lower_bound() const;  // ln(beta / (1 - alpha)): at or below it H0 is accepted
  double upper_bound() const;  // ln((1 - beta) / alpha): at or above it H1 is accepted
};

enum class SprtDecision { kContinue, kAcceptH0, kAcceptH1 };

// The generalized SPRT's log-likelihood ratio over pentanomial counts, in the normal
// approximation with the variance measured from the pairs (docs/STATISTICS.md):
//   LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var),  s_i = 1/2 + nelo_i sqrt(2 var) ln10 / 800,
// s and var the mean and variance of a pair's score / 2, N the pairs. Empty outcomes count
// 0.001 pairs so that var > 0 (as fastchess does). 0 without pairs.
double sprt_llr(const Pentanomial& p, double elo0, double elo1);

// The same log-likelihood ratio without the normal approximation (what a tournament uses): N
// times the mean log ratio of the two distributions closest to the observed one (maximum
// likelihood) whose normalized Elo is elo1, resp. elo0 (Van den Bergh's notes, section 4.1;
// fishtest and fastchess compute it so today). It agrees with sprt_llr once there are enough
// pairs, and stays sober with few: 3 pairs won twice each give sprt_llr +4.9 (a decision at
// the usual bounds for nElo [0, 20]) but this +0.23.
double sprt_llr_exact(const Pentanomial& p, double elo0, double elo1);

SprtDecision sprt_decide(double llr, const SprtParams& params);

// How many more pairs the test is expected to need from an LLR of `llr` after the pairs `p`: the
// LLR taken as a Brownian motion with the drift and variance per pair of the normal
// approximation, (t1 - t0)(t - (t0 + t1) / 2) and (t1 - t0)^2 with t_i = sqrt 2 elo_i ln 10 /
// 800, t the pairs' normalized score (the midpoint of the hypotheses below
// kMinSamplesForInterval pairs, where a test takes longest), run until it leaves the bounds
// (Wald's expected sample number; docs/STATISTICS.md). For a progress line's ETA.
double sprt_expected_pairs_left(const Pentanomial& p, const SprtParams& params, double llr);

// "H0 accepted", "H1 accepted", "continue".
std::string describe(SprtDecision d);

}  // namespace allfives::referee
