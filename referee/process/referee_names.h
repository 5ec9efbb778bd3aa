// The names of what a referee makes for its bots outside its own folders (per-bot cgroups,
// socket folders in $TMPDIR): "allfives-PID-SUFFIX", so that what a referee killed by SIGKILL
// left behind is known by its maker's process id and removed by a later referee.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace allfives::referee {

inline constexpr std::string_view kRefereeNamePrefix = "allfives-";

// "allfives-<this process's id>-SUFFIX".
std::string referee_name(std::string_view suffix);

struct RefereeName {
  pid_t pid = 0;            // the referee that made it
  std::string_view suffix;  // what follows "allfives-PID-" (not empty)
};
// "allfives-PID-SUFFIX" read back (PID: 1 to 10 digits, at most INT32_MAX), or nullopt.
std::optional<RefereeName> parse_referee_name(std::string_view name);

// What a referee made is taken for left behind only once it is this old (and its maker is
// gone): a referee in another PID namespace (its pid looks gone from here) may have just made
// it and not yet put its bot in or locked it.
inline constexpr std::chrono::seconds kStaleAfter{60};

}  // namespace allfives::referee
