// The project's only source of randomness: SplitMix64, a Fisher–Yates shuffle, and the FNV-1a
// hash that turns names into seeds.
//
// Both are written out here because std::shuffle and std::uniform_int_distribution give
// different results on different standard libraries, and a seed must mean the same deal
// everywhere (docs/RULES.md §3 "The deal").
#pragma once

#include <cstdint>
#include <string_view>

namespace allfives {

// SplitMix64 (Steele, Lea, Flood 2014): tiny state, full 64-bit period, good enough mixing
// for shuffles and for deriving independent sub-seeds.
class SplitMix64 {
 public:
  constexpr explicit SplitMix64(uint64_t seed) : state_(seed) {}

  constexpr uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound), bound > 0, by rejection so no value is favoured.
  constexpr uint32_t below(uint32_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do r = next();
    while (r >= limit);
    return static_cast<uint32_t>(r % bound);
  }

  // Uniform in [0, bound), bound > 0, for bounds past 32 bits (counts of hidden deals).
  constexpr uint64_t below64(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do r = next();
    while (r >= limit);
    return r % bound;
  }

 private:
  uint64_t state_;
};

// Fisher–Yates (Durstenfeld): the i-th step swaps item i with a uniform item in [i, n).
template <typename T>
constexpr void shuffle(T* items, int n, SplitMix64& rng) {
  for (int i = 0; i + 1 < n; ++i) {
    int j = i + static_cast<int>(rng.below(static_cast<uint32_t>(n - i)));
    T tmp = items[i];
    items[i] = items[j];
    items[j] = tmp;
  }
}

// A seed for sub-stream `index` of `seed` (a hand's deal, a bot's private stream...).
constexpr uint64_t derive_seed(uint64_t seed, uint64_t index) {
  SplitMix64 a(seed);
  SplitMix64 b(a.next() ^ (index * 0xD1B54A32D192ED03ull));
  return b.next();
}

// FNV-1a, 64 bits: a string hash that is the same on every platform, compiler and run
// (std::hash is not), so a match id always maps to the same seed and a file to the same hash.
constexpr uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ull;  // the FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x00000100000001B3ull;  // the FNV 64-bit prime
  }
  return h;
}

// A bot's seed for one match (MatchInfo::seed in both SDKs): a function of the bot's --seed,
// the match id and its seat only, so a bot's play does not depend on how matches are scheduled.
constexpr uint64_t match_seed(uint64_t base_seed, std::string_view match_id, int seat) {
  return derive_seed(derive_seed(base_seed, fnv1a64(match_id)), static_cast<uint64_t>(seat));
}

}  // namespace allfives
