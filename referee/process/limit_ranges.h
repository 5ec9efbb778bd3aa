// The values each resource limit of a bot may take, the same wherever it is given: a tournament
// file's BotLimits and the flags of `referee match` and `referee tournament`. Below the minimum
// no bot built with the SDKs can start (a gRPC server needs its threads, descriptors and
// memory), so such a value is refused where it is read instead of turning every match into a
// start-up forfeit; above the maximum it is a typo.
#pragma once

#include <cstdint>
#include <string>

namespace allfives::referee {

struct LimitRange {
  uint64_t min, max;
  const char* unit;  // for messages: "MiB", "" ...
};

inline constexpr LimitRange kMemoryMibRange{32, uint64_t{1} << 20, " MiB"};  // 32 MiB .. 1 TiB
inline constexpr LimitRange kProcessesRange{8, 1u << 20, ""};
inline constexpr LimitRange kOpenFilesRange{32, 1u << 20, ""};
inline constexpr LimitRange kFileSizeMibRange{1, uint64_t{1} << 20, " MiB"};

// "" if `value` is 0 or within `r`; otherwise "NAME must be MIN..MAX (or 0: ZERO), got VALUE".
// Signed, so that a negative value on a command line is reported as given.
inline std::string limit_problem(const LimitRange& r, int64_t value, const std::string& name,
                                 const std::string& zero_means) {
  if (value == 0 ||
      (value > 0 && static_cast<uint64_t>(value) >= r.min && static_cast<uint64_t>(value) <= r.max))
    return "";
  return name + " must be " + std::to_string(r.min) + ".." + std::to_string(r.max) + r.unit +
         " (or 0: " + zero_means + "), got " + std::to_string(value);
}

}  // namespace allfives::referee
