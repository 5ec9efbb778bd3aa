#include "tournament/schedule.h"

#include <cstdio>

#include "allfives/core/rng.h"
#include "tournament/gauntlet.h"

namespace allfives::referee {

v1::ScheduledMatch scheduled_match(const TournamentDef& t,
                                   const std::vector<std::vector<int>>& pairings, uint32_t pairing,
                                   uint32_t deal, uint32_t rotation) {
  const Format f = t.config.format;
  const int k = bots_per_pairing(f);
  const auto rotations = static_cast<uint32_t>(seat_rotations(f));
  v1::ScheduledMatch m;
  m.set_ordinal((deal * static_cast<uint32_t>(pairings.size()) + pairing) * rotations + rotation);
  m.set_pairing(pairing);
  m.set_deal(deal);
  m.set_rotation(rotation);
  m.set_seed(derive_seed(t.proto.seed(), deal));
  const std::vector<int>& members = pairings[pairing];
  for (int seat = 0; seat < num_players(f); ++seat) {
    const int member = (seat + static_cast<int>(rotation)) % k;
    m.add_seat_bots(t.bots[static_cast<size_t>(members[static_cast<size_t>(member)])].display_name);
  }
  // Not the ordinal: ids stay the same when bots are appended (the ordinals shift).
  std::string id;
  for (int seat = 0; seat < num_players(f); ++seat) id += (seat ? "-" : "") + m.seat_bots(seat);
  id += "-d" + std::to_string(deal) + "-r" + std::to_string(rotation);
  m.set_match_id(id);
  return m;
}

std::vector<v1::ScheduledMatch> make_schedule(const TournamentDef& t) {
  const auto rotations = static_cast<uint32_t>(seat_rotations(t.config.format));
  const uint32_t deals = t.proto.matches_per_pairing() / rotations;
  const auto pairings = pairings_of(t);
  std::vector<v1::ScheduledMatch> out;
  for (uint32_t d = 0; d < deals; ++d)
    for (uint32_t p = 0; p < pairings.size(); ++p)
      for (uint32_t r = 0; r < rotations; ++r) out.push_back(scheduled_match(t, pairings, p, d, r));
  return out;
}

namespace {

// C(n, k), or UINT64_MAX if it does not fit. Every partial product C(n-k+i, i) is an integer;
// an overflow means far more matches than any limit, so it saturates.
uint64_t choose(uint64_t n, uint64_t k) {
  if (n < k) return 0;
  uint64_t c = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    if (__builtin_mul_overflow(c, n - k + i, &c)) return UINT64_MAX;
    c /= i;
  }
  return c;
}

}  // namespace

uint64_t schedule_size(const TournamentDef& t) {
  const uint64_t k = static_cast<uint64_t>(bots_per_pairing(t.config.format));
  const uint64_t rotations = static_cast<uint64_t>(seat_rotations(t.config.format));
  // As pairings_of counts them: every k-combination, or each candidate with every
  // (k-1)-combination of baselines.
  uint64_t candidates = 0;
  for (size_t i = 0; i < t.candidate.size(); ++i) candidates += t.candidate[i] ? 1 : 0;
  uint64_t pairings = 0;
  if (candidates == 0) {
    pairings = choose(t.bots.size(), k);
  } else {
    const uint64_t per = choose(t.bots.size() - candidates, k - 1);
    if (per == UINT64_MAX || __builtin_mul_overflow(per, candidates, &pairings)) return UINT64_MAX;
  }
  if (pairings == UINT64_MAX) return UINT64_MAX;
  uint64_t total = 0;
  const uint64_t per_pairing = t.proto.matches_per_pairing() / rotations * rotations;
  if (__builtin_mul_overflow(pairings, per_pairing, &total)) return UINT64_MAX;
  return total;
}

std::vector<v1::ScheduledMatch> shard_of(const std::vector<v1::ScheduledMatch>& all, int index,
                                         int count) {
  std::vector<v1::ScheduledMatch> out;
  for (size_t i = static_cast<size_t>(index); i < all.size(); i += static_cast<size_t>(count))
    out.push_back(all[i]);
  return out;
}

}  // namespace allfives::referee
