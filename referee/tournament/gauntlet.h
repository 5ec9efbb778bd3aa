// Which bots meet: every combination of bots (round robin), or, in a gauntlet, each candidate
// with baselines only. The order is stable under appending bots to the file, so a finished
// tournament can grow without replaying what it played (schedule.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tournament/tournament_file.h"

namespace allfives::referee {

// "FILE:LINE: " for a field of the Tournament message (load_tournament's locator).
using FieldLocator = std::function<std::string(const char* field)>;

// Fills t.candidate from Tournament.candidates and TournamentBot.candidate. A candidate name
// must be a bot of the file; a gauntlet needs at least one baseline for every seat but the
// candidate's (k - 1 baselines for k seats, one for partnerships). On error returns false with
// the reason in `why`.
bool read_candidates(TournamentDef& t, const FieldLocator& at, std::string& why);

// The pairings: each a list of bot indexes, bots_per_pairing(format) long, in increasing order.
// Round robin: every k-combination. Gauntlet: every candidate with every (k-1)-combination of
// baselines. Ordered by the largest bot index, then colexicographically,
// so appending a bot only appends pairings.
std::vector<std::vector<int>> pairings_of(const TournamentDef& t);

}  // namespace allfives::referee
