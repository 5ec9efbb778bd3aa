#include "tournament/schedule.h"

#include <cstdio>

#include "allfives/core/rng.h"

namespace allfives::referee {
namespace {

// Lexicographic k-combinations of 0..n-1.
std::vector<std::vector<int>> combinations(int n, int k) {
  std::vector<std::vector<int>> out;
  std::vector<int> c(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) c[static_cast<size_t>(i)] = i;
  while (true) {
    out.push_back(c);
    int i = k - 1;
    while (i >= 0 && c[static_cast<size_t>(i)] == n - k + i) --i;
    if (i < 0) return out;
    ++c[static_cast<size_t>(i)];
    for (int j = i + 1; j < k; ++j) c[static_cast<size_t>(j)] = c[static_cast<size_t>(j - 1)] + 1;
  }
}

}  // namespace

std::vector<v1::ScheduledMatch> make_schedule(const TournamentDef& t) {
  const Format f = t.config.format;
  const int k = bots_per_pairing(f);
  const int rotations = seat_rotations(f);
  const int deals = static_cast<int>(t.proto.matches_per_pairing()) / rotations;
  const auto pairings = combinations(static_cast<int>(t.bots.size()), k);
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
        char prefix[32];
        std::snprintf(prefix, sizeof prefix, "%05u", m.ordinal());
        std::string id = prefix;
        for (int seat = 0; seat < num_players(f); ++seat) id += "-" + m.seat_bots(seat);
        id += "-d" + std::to_string(d) + "-r" + std::to_string(r);
        m.set_match_id(id);
        out.push_back(std::move(m));
      }
    }
  }
  return out;
}

uint64_t schedule_size(const TournamentDef& t) {
  const uint64_t n = t.bots.size();
  const uint64_t k = static_cast<uint64_t>(bots_per_pairing(t.config.format));
  const uint64_t rotations = static_cast<uint64_t>(seat_rotations(t.config.format));
  if (n < k) return 0;
  // C(n, k) step by step; every partial product C(n-k+i, i) is an integer. An overflow means
  // at least 2^64 / k matches: far beyond any limit, so it saturates.
  uint64_t pairings = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    if (__builtin_mul_overflow(pairings, n - k + i, &pairings)) return UINT64_MAX;
    pairings /= i;
  }
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
