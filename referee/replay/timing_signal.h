// Whether a bot's decision times tell its own hidden tiles: the one channel between partners
// that no sandbox closes (a bot answers fast or slow by its hand, its partner times the gaps
// between its own turns). A test over the decisions of one bot, pure functions of plain values;
// the formulas, the false-alarm rate and what the test cannot see are in docs/STATISTICS.md
// ("Decision times and hidden tiles").
#pragma once

#include <cstdint>
#include <span>

namespace allfives::referee {

// One play decision of a seat: its index among the seat's decisions in the hand (0-based),
// how many plays were legal, how long the bot took, and the seat's hand as dealt (28-bit set).
struct TimedDecision {
  int index = 0;
  int options = 0;
  uint32_t time_us = 0;
  uint32_t dealt_tiles = 0;
};

// What the decisions say. `decisions` counts those with a choice (two options or more); the
// strongest (decision index, tile) pair is `index`, `tile` (0..27, the core's tile index) with
// its z score, -1 and 0 when no pair could be tested; `p` is its Bonferroni p-value.
struct TimingSignal {
  int decisions = 0;
  double p = 1;
  bool flagged = false;
  int index = -1;
  int tile = -1;
  double z = 0;
};

// The false-alarm rate of one bot's test, and the fewest decisions it is run on.
inline constexpr double kTimingAlpha = 0.001;
inline constexpr int kMinTimedDecisions = 50;
// Decision indexes and option counts at or above these share one stratum.
inline constexpr int kMaxTimedIndex = 5;
inline constexpr int kMaxTimedOptions = 6;
// The fewest records of one decision index over which a correlation is tested.
inline constexpr int kMinRecordsPerIndex = 10;

// The test over one bot's decisions (forced ones, with a single option, are left out): times
// ranked within each (index, options) stratum, each (index, tile) pair's correlation between
// rank and the tile's presence in the dealt hand, the largest |z| with a Bonferroni p-value.
// Flagged when there are at least kMinTimedDecisions decisions and p < kTimingAlpha.
TimingSignal timing_signal(std::span<const TimedDecision> decisions);

}  // namespace allfives::referee
