#include "process/referee_names.h"

#include <unistd.h>

#include <cstdint>

namespace allfives::referee {

std::string referee_name(std::string_view suffix) {
  return std::string(kRefereeNamePrefix) + std::to_string(::getpid()) + "-" + std::string(suffix);
}

std::optional<RefereeName> parse_referee_name(std::string_view name) {
  if (!name.starts_with(kRefereeNamePrefix)) return std::nullopt;
  name.remove_prefix(kRefereeNamePrefix.size());
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash > 10 || dash + 1 == name.size())
    return std::nullopt;
  long pid = 0;
  for (const char c : name.substr(0, dash)) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  if (pid <= 0 || pid > INT32_MAX) return std::nullopt;
  return RefereeName{static_cast<pid_t>(pid), name.substr(dash + 1)};
}

}  // namespace allfives::referee
