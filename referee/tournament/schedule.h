// The round-robin schedule: which bots meet, in which seats, with which deals. A pure
// function of the tournament definition, so every run, resume and shard agrees on it.
#pragma once

#include <cstdint>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

// The pairings are gauntlet.h's pairings_of: every k-combination of bots (pairs for
// partnerships), or each candidate with baselines in a gauntlet. Each pairing plays
// matches_per_pairing / rotations deal sequences, each once per seat rotation: in rotation r
// seat s holds the pairing's bot (s + r) mod k (partnerships: the two bots alternate seats and
// swap sides in rotation 1). Deal sequence d of every pairing uses seed derive_seed(seed, d),
// so luck of the deal cancels within a pairing and is shared across pairings. The order is
// deal-major (all pairings play deal 0 before any plays deal 1), so partial results stay
// balanced.
//
// Stable under appending bots: a match's id ("BOT-BOT-dD-rR", the seat bots, deal and
// rotation), seed and seats do not depend on the other pairings, and appended bots only
// append pairings, so every match of the smaller tournament keeps its id, seed and seats in
// the larger one (only ordinals shift). The same holds for a larger matches_per_pairing.
std::vector<v1::ScheduledMatch> make_schedule(const TournamentDef& t);

// Rotation `rotation` of deal sequence `deal` of pairing `pairing` (an index into
// pairings_of(t), passed in so it is computed once): a pure function of the three, its ordinal
// (deal * pairings + pairing) * rotations + rotation. make_schedule(t)[i] is this match for
// the i that its ordinal names.
v1::ScheduledMatch scheduled_match(const TournamentDef& t,
                                   const std::vector<std::vector<int>>& pairings, uint32_t pairing,
                                   uint32_t deal, uint32_t rotation);

// How many matches make_schedule(t) returns, computed without building it (UINT64_MAX if the
// count does not fit), so a file can be refused before anything is allocated.
uint64_t schedule_size(const TournamentDef& t);

// The matches of shard `index` of `count`: every count-th match starting at `index`.
std::vector<v1::ScheduledMatch> shard_of(const std::vector<v1::ScheduledMatch>& all, int index,
                                         int count);

}  // namespace allfives::referee
