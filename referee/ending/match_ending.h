// How a match ended: the facts that every record of its end holds (the log's match_end, the
// tournament's index line, what a person's seat is told). A plain value below the log and the
// match layers, so that the match runner's result (match_result.h, which extends it) goes into
// each record through one converter, not field by field in every caller.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "allfives/v1/common.pb.h"

namespace allfives::referee {

// A bot's misbehaviour: which seat, what kind (common.proto FaultKind), why in plain words.
struct Fault {
  int seat = -1;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;  // UNSPECIFIED: not known (a seat not told)
  std::string reason;                               // plain words
};

struct MatchEnding {
  v1::MatchEndReason reason = v1::MATCH_END_REASON_UNSPECIFIED;
  int winner_side = -1;         // -1: a draw or no result
  std::vector<int> scores;      // per side
  std::vector<int> placements;  // per side, 1 = first, equal for ties; a faulting side last
  std::optional<Fault> fault;
  int hands_played = 0;
  std::chrono::milliseconds duration{0};
};

}  // namespace allfives::referee
