// The SPRT of a tournament (Tournament.sprt): reading its settings, and following the test as
// matches finish. The candidate's finished mirrored pairs against all of its opponents are
// pooled into one pentanomial count (pairs.h); after each pair the log-likelihood ratio is
// recomputed (statistics.h) and compared with the bounds.
#pragma once

#include <cstdint>
#include <string>

#include "allfives/v1/tournament.pb.h"
#include "tournament/gauntlet.h"
#include "tournament/pairs.h"
#include "tournament/standings.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

// The most pairs an SPRT may be given as its maximum.
inline constexpr uint32_t kMaxSprtPairs = 1000000;

// Fills t.sprt from Tournament.sprt (defaults alpha = beta = 0.05). Needs a two-side format,
// elo0 < elo1, 0 < alpha, beta and alpha + beta < 1, and exactly one candidate (or exactly two
// bots and no candidate: the first bot is then tested against the second). On error returns
// false with "FILE:LINE: reason" in `why`.
bool read_sprt(TournamentDef& t, const FieldLocator& at, std::string& why);

class SprtMonitor {
 public:
  explicit SprtMonitor(const TournamentDef::SprtSetup& setup, std::string candidate);

  // Folds in a finished match (any match: only the candidate's completed pairs count).
  // Returns true if the test is over (decided, or its maximum reached) after it; from then on
  // the decision no longer changes, whatever is added.
  bool add(const v1::IndexEntry& e);
  bool over() const { return over_; }

  double llr() const { return llr_; }
  int64_t pairs() const { return pairs_.pairs(); }
  const Pentanomial& counts() const { return pairs_; }
  // The decision at the moment the test ended (kContinue if it ended at its maximum or has not
  // ended).
  SprtDecision decision() const { return decision_; }

  // The test as it stands, for the standings' files and pages.
  SprtStanding standing() const;

  // One line for the progress display: "LLR +1.23 (-2.94, +2.94) 40 pairs".
  std::string status() const;
  // A few lines: the hypotheses, the counts, the LLR and the verdict.
  std::string report() const;

 private:
  TournamentDef::SprtSetup setup_;
  std::string candidate_;
  PairBook book_;
  Pentanomial pairs_;
  double llr_ = 0;
  bool over_ = false;
  SprtDecision decision_ = SprtDecision::kContinue;
  int64_t pairs_at_end_ = 0;
  double llr_at_end_ = 0;
};

}  // namespace allfives::referee
