// The flags that confine started bots (--no-sandbox, the resource limits, --read-only, --hide), shared
// by `referee match` and `referee tournament`, and the check made before any bot starts.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "bots/bot_endpoint.h"

namespace allfives::referee {

struct ConfinementFlags {
  bool sandbox = true;
  bool cgroups = true;
  // Signed, so that "-1" is refused as given instead of wrapping around (limit_ranges.h).
  int64_t memory_mib = static_cast<int64_t>(ResourceLimits{}.memory_mib);
  int64_t processes = ResourceLimits{}.processes;
  int64_t open_files = ResourceLimits{}.open_files;
  int64_t file_size_mib = static_cast<int64_t>(ResourceLimits{}.file_size_mib);
  std::vector<std::string> read_only;
  std::vector<std::string> hide;  // paths no started bot may see, besides the referee's own
  uint32_t cpu_percent = 0;             // ResourceLimits::cpu_percent (0: none)
  bool cpu_percent_given = false;       // --cpu-percent was given (0 then means none, always)
  bool think_on_opponent_time = false;  // Confinement::think_on_opponent_time
};

// A bot's CPU quota when it may think on the opponent's time and none is set: one CPU.
inline constexpr uint32_t kPonderCpuPercent = 100;

// Adds the flags to `cmd`, their defaults shown in its --help.
void add_confinement_flags(CLI::App* cmd, ConfinementFlags& flags);

// "" if every limit flag is within its range (limit_ranges.h), else why not (a command-line
// mistake: exit 2).
std::string confinement_flags_problem(const ConfinementFlags& flags);

// The flags as a bot's confinement (read-only folders and hidden paths made absolute). Call
// confinement_flags_problem first.
Confinement confinement_from(const ConfinementFlags& flags);

// The referee's own standard output and error where they are files (`2> run.log`), as paths
// no bot may see: a bot may read the folder that holds them, and they say what the referee
// says (the seed once a run is over, every fault). Empty where they are a terminal or a pipe.
std::vector<HiddenPath> own_output_files();

// Before starting `bots`: if any started bot is to be sandboxed and the sandbox cannot be made
// here, or a sandboxed bot could not be kept from the referee's own paths (its
// confinement.hidden: hidden_paths_refusal), prints why and what to do and returns false; if
// any started bot runs without the sandbox, prints the warning once; if a bot's limit (or the
// trial sandbox's default) is above what the machine lets the referee grant (its own hard
// rlimits, `ulimit -H`), says so, naming the limit, instead of a failed sandbox. `program`
// prefixes the messages.
bool check_confinement(const std::vector<BotSpec>& bots, const std::string& program);

}  // namespace allfives::referee
