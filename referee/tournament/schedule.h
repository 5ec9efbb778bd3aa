// The round-robin schedule: which bots meet, in which seats, with which deals. A pure
// function of the tournament definition, so every run, resume and shard agrees on it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
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

// The schedule generated, not stored: match `ordinal` is made from the file, its seed and the
// ordinal alone, as a fastchess scheduler does, so a referee, a shard or a resume never builds
// the list. A round robin's pairing is unranked from its index (colexicographic order, as
// pairings_of sorts them), so memory does not grow with the bots either; a gauntlet keeps its
// pairings (candidates times baseline combinations). at(i) == make_schedule(t)[i].
class Schedule {
 public:
  explicit Schedule(const TournamentDef& t);
  uint64_t size() const { return size_; }
  uint64_t pairings() const { return pairings_; }
  uint32_t rotations() const { return rotations_; }
  // Match `ordinal` (< size()).
  v1::ScheduledMatch at(uint64_t ordinal) const;
  // The bot indexes of pairing `p` (< pairings()), in increasing order.
  std::vector<int> pairing(uint64_t p) const;
  // The ordinal, in this schedule, of the match with m's id: found from m's seat bots, deal and
  // rotation alone (not m's ordinal or pairing, which a file with bots appended shifts), or
  // nothing if this schedule has no such match.
  std::optional<uint64_t> ordinal_of(const v1::ScheduledMatch& m) const;
  // The ordinal of the match whose id is `id` ("BOT-BOT-dD-rR": its seat bots, deal and
  // rotation; a bot name may hold '-', so every split into bot names is tried), or nothing.
  std::optional<uint64_t> ordinal_of_id(const std::string& id) const;

 private:
  const TournamentDef* t_;
  uint64_t size_ = 0, pairings_ = 0;
  uint32_t rotations_ = 1;
  int k_ = 2;
  std::map<std::string, int> bot_index_;
  std::vector<std::vector<int>> stored_;  // a gauntlet's pairings; empty for a round robin
};
// The match id the bots of a scheduled match are told (MatchStart.match_id): "m" and 16 hex
// digits, SipHash-2-4 of `match_id` keyed by the tournament's seed. The real id names the
// bots, the deal and the rotation, which would tell a bot that two matches share their deals;
// this one tells it nothing (a keyed pseudo-random function: without the seed, which no bot
// sees, neither the id nor the seed can be recovered from it), yet it is the same in every
// run, resume and shard, so bots that seed their own randomness from it repeat their play.
std::string bot_match_id(uint64_t tournament_seed, const std::string& match_id);

// How many matches make_schedule(t) returns, computed without building it (UINT64_MAX if the
// count does not fit), so a file can be refused before anything is allocated.
uint64_t schedule_size(const TournamentDef& t);

// Shard `index` of `count` of a schedule: every count-th group of `rotations` matches (one deal
// sequence of one pairing, all its rotations), starting at group `index`. A shard holds whole
// mirrored pairs, so its SPRT progresses even while the other shards wait in a queue.
class ShardSlice {
 public:
  ShardSlice(uint64_t schedule_size, uint32_t rotations, int index, int count);
  // How many matches the shard holds.
  uint64_t size() const { return size_; }
  // The schedule ordinal of the shard's i-th match (i < size()), in increasing order.
  uint64_t ordinal(uint64_t i) const {
    return (index_ + i / rotations_ * count_) * rotations_ + i % rotations_;
  }
  bool holds(uint64_t ordinal) const { return ordinal / rotations_ % count_ == index_; }

 private:
  uint64_t rotations_, index_, count_, size_ = 0;
};

}  // namespace allfives::referee
