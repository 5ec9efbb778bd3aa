// A tournament's index line from a match's result, and a seat's decision times both ways
// between the result (DecisionTiming) and the index (SeatTiming): written once here for the
// runner that writes the index and the standings that read it.
#pragma once

#include <string>

#include "allfives/v1/tournament.pb.h"
#include "match/decision_timing.h"
#include "match/match_result.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

// The index line of scheduled match `m` of `def`, played to result `r`, its log at `log_file`
// (relative to the output folder).
v1::IndexEntry index_entry(const TournamentDef& def, const v1::ScheduledMatch& m,
                           const MatchResult& r, const std::string& log_file);

v1::SeatTiming seat_timing(const DecisionTiming& t);
// Pairs of bucket and count beyond the shorter of the two lists are ignored.
DecisionTiming decision_timing(const v1::SeatTiming& st);

}  // namespace allfives::referee
