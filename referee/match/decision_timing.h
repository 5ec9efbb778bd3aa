// How long a bot took to decide: a summary of one seat's decisions in one match, which also
// merges over many matches (the standings' per-bot timing) without keeping every time. Medians
// and percentiles come from a histogram with 8 buckets per doubling of the time, so they are
// exact to within 4.5%.
#pragma once

#include <cstdint>
#include <map>

namespace allfives::referee {

struct DecisionTiming {
  uint32_t decisions = 0;  // answered turn requests (a decision that timed out is a fault)
  uint64_t total_us = 0;
  uint32_t max_us = 0;
  // Decisions that took at least 90% of the time the bot had for them (move time + bank left).
  uint32_t near_deadline = 0;
  // The most of its time bank the bot used up in one match (ms).
  uint32_t max_bank_used_ms = 0;
  std::map<uint32_t, uint32_t> buckets;  // histogram bucket (timing_bucket) -> decisions

  // One decision of `us` microseconds, when the bot had `limit_us` for it.
  void add(uint32_t us, uint64_t limit_us);
  // Adds another summary (of another match, or another seat of the same bot).
  void merge(const DecisionTiming& other);
  double mean_us() const { return decisions ? static_cast<double>(total_us) / decisions : 0; }
  // The q-quantile (0 < q <= 1) of the decision times, from the histogram: the middle of the
  // bucket that holds it, never above max_us. 0 without decisions.
  double quantile_us(double q) const;
};

// The histogram bucket of a time: floor(8 log2(us + 1)).
uint32_t timing_bucket(uint32_t us);
// The geometric middle of a bucket, in microseconds.
double timing_bucket_middle(uint32_t bucket);

}  // namespace allfives::referee
