#include "tournament/schedule.h"

#include <cstdio>

#include "allfives/core/rng.h"
#include "tournament/gauntlet.h"

namespace allfives::referee {

std::vector<v1::ScheduledMatch> make_schedule(const TournamentDef& t) {
  const Format f = t.config.format;
  const int k = bots_per_pairing(f);
  const int rotations = seat_rotations(f);
  const int deals = static_cast<int>(t.proto.matches_per_pairing()) / rotations;
  const auto pairings = pairings_of(t);
  std::vector<v1::ScheduledMatch> out;
  for (int d = 0; d < deals; ++d) {
    const uint64_t seed = derive_seed(t.proto.seed(), static_cast<uint64_t>(d));
    for (size_t p = 0; p < pairings.size(); ++p) {
      for (int r = 0; r < rotations; ++r) {
        v1::ScheduledMatch m;
        m.set_ordinal(static_cast<uint32_t>(out.size()));
        m.set_pairing(static_cast<uint32_t>(p));
        m.set_deal(static_cast<uint32_t>(d));
        m.set_rotation(static_cast<uint32_t>(r));
        m.set_seed(seed);
        for (int seat = 0; seat < num_players(f); ++seat) {
          const int member = (seat + r) % k;
          m.add_seat_bots(
              t.bots[static_cast<size_t>(pairings[p][static_cast<size_t>(member)])].display_name);
        }
        // Not the ordinal: ids stay the same when bots are appended (the ordinals shift).
        std::string id;
        for (int seat = 0; seat < num_players(f); ++seat)
          id += (seat ? "-" : "") + m.seat_bots(seat);
        id += "-d" + std::to_string(d) + "-r" + std::to_string(r);
        m.set_match_id(id);
        out.push_back(std::move(m));
      }
    }
  }
  return out;
}

std::vector<v1::ScheduledMatch> shard_of(const std::vector<v1::ScheduledMatch>& all, int index,
                                         int count) {
  std::vector<v1::ScheduledMatch> out;
  for (size_t i = static_cast<size_t>(index); i < all.size(); i += static_cast<size_t>(count))
    out.push_back(all[i]);
  return out;
}

}  // namespace allfives::referee
