// Who plays next in a ladder: a pure function of the active versions, the current fit and the
// last round, so it can be tested alone.
//
// * Placement: a version that has not had a round of its own plays first, oldest first, against
//   `placement_opponents` opponents spread over the ranking (evenly spaced ranks), so its first
//   rating is anchored from top to bottom rather than by its nearest neighbours only.
// * Fair share: otherwise the round is for the active version with the fewest matches (then the
//   oldest), so every active version's match count grows at the same pace.
// * Where a game teaches most: its opponents are the `round_opponents` versions with the largest
//   expected information about its rating difference to them, Var(Ra - Rb) * p (1 - p), where
//   Var is the fit's variance of the difference (Elo^2, from the Bradley-Terry covariance) and p
//   the expected score from the ratings. A game's Fisher information about a difference is
//   proportional to p (1 - p), and the reduction of the variance it brings grows with the variance
//   already there: the product prefers close opponents whose difference is still uncertain. This
//   is the expected-information rule of adaptive paired-comparison designs (Glickman and Jensen,
//   "Adaptive paired comparison design", Journal of Statistical Planning and Inference, 2005),
//   in its one-step, normal-approximation form.
// * No pairing twice in a row: a pair of versions that met in the last round is not chosen
//   again in the next one, unless too few others are left.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace allfives::referee {

struct LadderEntrant {
  int64_t id = 0;       // the version; a smaller id is older
  int64_t matches = 0;  // finished matches
  bool placed = false;  // it has had a round of its own
  double elo = 0;       // the fit's rating (0 before any game)
  int index = -1;       // its row in `covariance`, -1 if it is not in the fit yet
};

struct MatchmakingInput {
  std::vector<LadderEntrant> active;
  std::vector<std::vector<double>> covariance;  // the fit's, Elo^2
  std::set<std::pair<int64_t, int64_t>> last_pairs;
  int seats = 2;  // versions in one pairing: 2 with two sides, else the players
  int placement_opponents = 4;
  int round_opponents = 2;
};

struct RoundChoice {
  int64_t version = 0;
  bool placement = false;
  std::vector<int64_t> opponents;
};

// The variance of a rating difference for an entrant not in the fit yet (Elo^2): an interval
// of about +/- 1000.
inline constexpr double kUnratedVariance = 500.0 * 500.0;

// The next round, or nothing if there are fewer active versions than one pairing needs.
std::optional<RoundChoice> choose_round(const MatchmakingInput& in);

// The score of an opponent (see above): variance of the difference times p (1 - p).
double information_score(double variance, double elo_difference);

}  // namespace allfives::referee
