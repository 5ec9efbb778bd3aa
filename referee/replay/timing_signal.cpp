#include "replay/timing_signal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "allfives/core/types.h"

namespace allfives::referee {

namespace {

// A decision with its time as a scaled mid-rank within its stratum, u in (0, 1).
struct Ranked {
  double u = 0;
  uint32_t tiles = 0;
};

using ByIndex = std::array<std::vector<Ranked>, kMaxTimedIndex + 1>;

int capped_index(const TimedDecision& d) {
  return std::clamp(d.index, 0, kMaxTimedIndex);
}

// Strata by (index, options), so that honest thinking time that grows with the choice is not
// read as a signal.
int stratum_of(const TimedDecision& d) {
  return capped_index(d) * (kMaxTimedOptions + 1) + std::min(d.options, kMaxTimedOptions);
}

// One stratum's decisions (sorted by time) ranked: ties share their mid-rank, so u depends
// only on the order of the times, whatever the machine's speed or the tail of the times.
void rank_stratum(std::span<const TimedDecision> s, ByIndex& out) {
  const double n = static_cast<double>(s.size());
  for (size_t first = 0; first < s.size();) {
    size_t last = first;
    while (last + 1 < s.size() && s[last + 1].time_us == s[first].time_us) ++last;
    const double mid_rank = (static_cast<double>(first + last) / 2 + 1 - 0.5) / n;
    for (size_t i = first; i <= last; ++i)
      out[static_cast<size_t>(capped_index(s[i]))].push_back(Ranked{mid_rank, s[i].dealt_tiles});
    first = last + 1;
  }
}

// The decisions with a choice, ranked within their strata; a stratum of one says nothing.
ByIndex ranked(std::span<const TimedDecision> decisions, int& counted) {
  std::vector<TimedDecision> kept;
  for (const TimedDecision& d : decisions)
    if (d.options >= 2) kept.push_back(d);
  counted = static_cast<int>(kept.size());
  std::sort(kept.begin(), kept.end(), [](const TimedDecision& a, const TimedDecision& b) {
    const int sa = stratum_of(a), sb = stratum_of(b);
    return sa != sb ? sa < sb : a.time_us < b.time_us;
  });
  ByIndex out;
  for (size_t first = 0; first < kept.size();) {
    size_t end = first + 1;
    while (end < kept.size() && stratum_of(kept[end]) == stratum_of(kept[first])) ++end;
    if (end - first >= 2) rank_stratum(std::span(kept).subspan(first, end - first), out);
    first = end;
  }
  return out;
}

// Pearson's r between u and the tile's presence, times sqrt(n); nothing when the pair cannot
// be tested (too few records, or a constant on either side).
std::optional<double> pair_z(const std::vector<Ranked>& records, int tile) {
  const double n = static_cast<double>(records.size());
  if (records.size() < static_cast<size_t>(kMinRecordsPerIndex)) return std::nullopt;
  double su = 0, suu = 0, sx = 0, sux = 0;
  for (const Ranked& r : records) {
    const double x = (r.tiles >> tile) & 1u;
    su += r.u;
    suu += r.u * r.u;
    sx += x;
    sux += r.u * x;
  }
  const double var_u = suu - su * su / n, var_x = sx - sx * sx / n;
  if (sx == 0 || sx == n || var_u <= 0) return std::nullopt;
  const double r = (sux - su * sx / n) / std::sqrt(var_u * var_x);
  return r * std::sqrt(n);
}

}  // namespace

TimingSignal timing_signal(std::span<const TimedDecision> decisions) {
  TimingSignal s;
  const ByIndex by_index = ranked(decisions, s.decisions);
  int tested = 0;
  for (int d = 0; d <= kMaxTimedIndex; ++d)
    for (int k = 0; k < kNumTiles; ++k) {
      const std::optional<double> z = pair_z(by_index[static_cast<size_t>(d)], k);
      if (!z) continue;
      ++tested;
      if (s.index < 0 || std::abs(*z) > std::abs(s.z)) {
        s.index = d;
        s.tile = k;
        s.z = *z;
      }
    }
  // Bonferroni over the pairs tested: 2 (1 - Phi(|z|)) = erfc(|z| / sqrt 2).
  if (tested > 0) s.p = std::min(1.0, tested * std::erfc(std::abs(s.z) / std::sqrt(2.0)));
  s.flagged = s.decisions >= kMinTimedDecisions && s.p < kTimingAlpha;
  return s;
}

}  // namespace allfives::referee
