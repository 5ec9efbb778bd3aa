#include "match/decision_timing.h"

#include <algorithm>
#include <cmath>

namespace allfives::referee {

uint32_t timing_bucket(uint32_t us) {
  return static_cast<uint32_t>(std::floor(8.0 * std::log2(static_cast<double>(us) + 1.0)));
}

double timing_bucket_middle(uint32_t bucket) {
  return std::exp2((bucket + 0.5) / 8.0) - 1.0;
}

void DecisionTiming::add(uint32_t us, uint64_t limit_us) {
  ++decisions;
  total_us += us;
  max_us = std::max(max_us, us);
  if (limit_us > 0 && static_cast<uint64_t>(us) * 10 >= limit_us * 9) ++near_deadline;
  ++buckets[timing_bucket(us)];
}

void DecisionTiming::merge(const DecisionTiming& other) {
  decisions += other.decisions;
  total_us += other.total_us;
  max_us = std::max(max_us, other.max_us);
  near_deadline += other.near_deadline;
  max_bank_used_ms = std::max(max_bank_used_ms, other.max_bank_used_ms);
  for (const auto& [bucket, count] : other.buckets) buckets[bucket] += count;
}

double DecisionTiming::quantile_us(double q) const {
  if (decisions == 0) return 0;
  // The rank of the quantile among the sorted decisions, 1-based ("nearest rank").
  const double rank = std::max(1.0, std::ceil(q * decisions));
  double seen = 0;
  for (const auto& [bucket, count] : buckets) {
    seen += count;
    if (seen >= rank) return std::min(timing_bucket_middle(bucket), static_cast<double>(max_us));
  }
  return max_us;
}

}  // namespace allfives::referee
