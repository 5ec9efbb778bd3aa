// The SPRT of a tournament (Tournament.sprt): reading its settings, and following the test as
// matches finish. The candidate's finished mirrored pairs against its reference (pairs.h) are
// its only evidence; after each such pair the log-likelihood ratio is recomputed
// (statistics.h) and compared with the bounds. A file may name several references: one test
// each (one SprtMonitor each).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "tournament/gauntlet.h"
#include "tournament/pairs.h"
#include "tournament/standings.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

// The most pairs an SPRT may be given as its maximum.
inline constexpr uint32_t kMaxSprtPairs = 1000000;

// Fills t.sprt from Tournament.sprt (alpha and beta 0: 0.05). Needs a two-side format,
// elo0 < elo1 (finite), 0 < alpha, beta < 1 and alpha + beta < 1, exactly one candidate (or
// exactly two bots and no candidate: the first bot is then tested against the second), and
// its references: `against`, or the candidate's only opponent. On error returns false with
// "FILE:LINE: reason" in `why`.
bool read_sprt(TournamentDef& t, const FieldLocator& at, std::string& why);

class SprtMonitor {
 public:
  SprtMonitor(const TournamentDef::SprtSetup& setup, std::string candidate, std::string against);

  // Folds in a finished match (any match: only completed pairs of the candidate against the
  // reference count). Returns true if the test is over (decided, or its maximum reached) after
  // it; from then on the decision no longer changes, whatever is added.
  bool add(const v1::IndexEntry& e);
  bool over() const { return summary_.state != SprtSummary::State::kRunning; }
  // Whether a match is one of this test's pairing (the candidate against the reference).
  bool counts(const v1::ScheduledMatch& m) const;

  double llr() const { return summary_.llr; }
  int64_t pairs() const { return summary_.pairs.pairs(); }
  const Pentanomial& pair_counts() const { return summary_.pairs; }
  // The decision at the moment the test ended (kContinue if it ended at its maximum or has not
  // ended).
  SprtDecision decision() const;
  const SprtSummary& summary() const { return summary_; }

  std::string status() const { return sprt_status(summary_); }
  std::string report() const { return sprt_report(summary_); }

 private:
  PairBook book_;
  SprtSummary summary_;
};

// One monitor per reference of t.sprt (none without an sprt block).
std::vector<SprtMonitor> make_sprt_monitors(const TournamentDef& t);

// The SPRTs of the tournament defined in `file` (an output folder's tournament.txtpb),
// replayed over `entries` (that folder's index, in its order), into s.sprt. Nothing when the
// definition has no sprt block; false with the reason in `why` if it cannot be read.
bool add_sprt_from_file(Standings& s, const std::string& file,
                        const std::vector<v1::IndexEntry>& entries, std::string* why = nullptr);
// The same for the output folder `dir` (its tournament.txtpb); nothing if it has none.
bool add_sprt_from_folder(Standings& s, const std::string& dir,
                          const std::vector<v1::IndexEntry>& entries, std::string* why = nullptr);

}  // namespace allfives::referee
