// What a match came to: the result value the runner returns, the tournament indexes, the
// standings count and the replay checks. Placements and the words for fault kinds live here
// once, so every layer that reads results agrees with the one that made them.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "allfives/v1/common.pb.h"
#include "match/decision_timing.h"

namespace allfives::referee {

// A bot's misbehaviour: which seat, what kind (common.proto FaultKind), why in plain words.
struct Fault {
  int seat = -1;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
  std::string reason;  // plain words
};

// What a bot said of itself in its Hello.
struct BotHello {
  std::string name;
  std::string version;
};

struct MatchResult {
  v1::MatchEndReason reason = v1::MATCH_END_REASON_UNSPECIFIED;
  int winner_side = -1;         // -1: a draw or no result
  std::vector<int> scores;      // per side
  std::vector<int> placements;  // per side, 1 = first, equal for ties; a faulting side last
  std::optional<Fault> fault;
  int hands_played = 0;
  int decisions = 0;
  std::chrono::milliseconds duration{0};
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
