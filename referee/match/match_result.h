// What a match came to: the result value the runner returns, the tournament indexes, the
// standings count and the replay checks. Placements and the words for fault kinds live here
// once, so every layer that reads results agrees with the one that made them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "allfives/v1/common.pb.h"
#include "ending/match_ending.h"
#include "match/decision_timing.h"

namespace allfives::referee {

// What a bot said of itself in its Hello.
struct BotHello {
  std::string name;
  std::string version;
};

// How the match ended (match_ending.h), and what only the runner's callers need.
struct MatchResult : MatchEnding {
  int decisions = 0;
  std::vector<BotHello> hellos;        // per seat
  std::vector<DecisionTiming> timing;  // per seat: its decision times
};

// A fault kind in one word, its name in common.proto without the prefix, in lower case:
// "timeout", "crash", "illegal_play"... ("unknown" for a number that is not a kind), so a new
// kind needs no new word here.
std::string describe(v1::FaultKind kind);

// Places per side: by score, highest first, equal scores sharing a place; a side with a fault
// (faulting_side, -1 for none) is placed after every other side. `place` has a slot per side.
void placements(std::span<const int> scores, int faulting_side, std::span<int> place);
std::vector<int> placements(const std::vector<int>& scores, int faulting_side);

}  // namespace allfives::referee
