// Endings made for tests of the records of a match's end (the log, the index, a person's seat).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ending/match_ending.h"

namespace allfives::referee {

// A match that ended with `fault`: its reason, winning side, scores and (optionally) placements.
inline MatchEnding ending_with_fault(v1::MatchEndReason reason, int winner_side,
                                     std::vector<int> scores, Fault fault,
                                     std::vector<int> placements = {}) {
  MatchEnding end;
  end.reason = reason;
  end.winner_side = winner_side;
  end.scores = std::move(scores);
  end.placements = std::move(placements);
  end.fault = std::move(fault);
  return end;
}

}  // namespace allfives::referee
