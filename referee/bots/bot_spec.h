// How a user names a bot and how a started bot is to be confined: plain values, parsed from a
// command line or a tournament file, that the tournament file and its readers hold without
// seeing gRPC or the process layer (bot_endpoint.h starts what a spec names).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "allfives/wire/match_terms.h"
#include "process/resource_limits.h"

namespace allfives::referee {

// How a started bot is confined (sandbox.h). Nothing of it applies to a bot reached at an
// address: the referee does not control that process.
struct Confinement {
  bool sandbox = true;
  ResourceLimits limits;
  // Memory and processes limited by cgroups of the bot's own where the machine allows it,
  // else by setrlimit (cgroup.h); false: setrlimit only.
  bool cgroups = true;
  std::vector<std::string> read_only_dirs;  // extra folders it may read (absolute)
  // The referee's own paths it must not see (the match log, a tournament's output folder...),
  // besides the bots' socket folder, which launch() adds.
  std::vector<HiddenPath> hidden;
  // Its CPU time is counted while the referee waits on other bots (match/cpu_guard.h); false
  // here: seen thinking then, it is frozen whenever the referee does not wait on it, and
  // between its matches. True: it may think on the opponent's time (--think-on-opponent-time).
  bool think_on_opponent_time = false;
};

// How a user names a bot: a display name plus either a command line or an address.
struct BotSpec {
  // The name the user gave (NAME=, a tournament's name), else the program's file name or the
  // address; a bot the user did not name goes by the name of its Hello once it has answered.
  std::string display_name;
  bool named = false;                // display_name is the user's
  std::vector<std::string> command;  // argv; the referee appends "--listen ADDRESS"
  std::string address;               // host:port or unix:PATH, when connecting instead
  Confinement confinement;           // for a started bot
  // How long a started bot may take to serve (the match's start-up timeout); a message about a
  // bot that did not start in time names it.
  std::chrono::milliseconds startup_timeout = wire::kDefaultStartupTimeout;
  // Numeric parameters sent in every MatchStart (MatchStart.params; a tournament or tune file's).
  std::map<std::string, double> params;
  bool started() const { return !command.empty(); }
  std::string describe() const;  // the command line or the address, for logs and messages
};

// Reads "[NAME=]COMMAND" or "[NAME=]ADDRESS". An address is unix:PATH or host:port (no
// spaces, a port after the last ':'); a COMMAND that is the path of an existing file (relative
// paths from `base`, the current folder if empty) is that program alone, spaces and all;
// anything else is a command line, split on spaces with '...' and "..." quoting. Without NAME
// the display name is the program's file name or the address until the bot's Hello names it.
// Returns false and says why for an empty or badly quoted spec.
bool parse_bot_spec(const std::string& text, BotSpec& out, std::string* error,
                    const std::string& base = "");

// The rule above in a sentence, for the messages about a program that was not found.
inline constexpr const char* kCommandSplitRule =
    "a command is split on spaces unless it is the path of an existing file: quote a path "
    "that holds spaces ('my bots/bot' --depth 3), or give extra arguments apart (args in a "
    "tournament file)";

}  // namespace allfives::referee
