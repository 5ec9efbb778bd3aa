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

namespace {

constexpr uint64_t rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

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

uint64_t siphash24(uint64_t k0, uint64_t k1, const std::string& data) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  const auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  const size_t n = data.size();
  uint64_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    m |= static_cast<uint64_t>(static_cast<unsigned char>(data[i])) << (8 * (i % 8));
    if (i % 8 == 7) {
      v3 ^= m, round(), round(), v0 ^= m;
      m = 0;
    }
  }
  m |= static_cast<uint64_t>(n & 0xff) << 56;
  v3 ^= m, round(), round(), v0 ^= m;
  v2 ^= 0xff;
  round(), round(), round(), round();
  return v0 ^ v1 ^ v2 ^ v3;
}

std::string bot_match_id(uint64_t tournament_seed, const std::string& match_id) {
  // The second half of the key is fixed: the seed is the secret.
  const uint64_t h = siphash24(tournament_seed, 0x616c6c6669766573ULL, match_id);
  char text[20];
  std::snprintf(text, sizeof text, "m%016llx", static_cast<unsigned long long>(h));
  return text;
}

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
