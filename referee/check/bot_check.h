// `referee check-bot`: whether a bot does what the referee expects of it, found by starting it
// exactly as a match starts it (sandbox and limits included) and playing short real matches
// in every format against built-in opponents served from this process, and said in words a
// newcomer can act on: each check passed, warned or failed, with the fix for each failure.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "bots/bot_endpoint.h"
#include "match/match_terms.h"

namespace allfives::referee {

struct BotCheckOptions {
  BotSpec bot;       // started (the usual case) or reached at an address
  TimeControl time;  // of every check match; handshake = the start-up timeout
  // Decisions to time at least: after one match per format, 2-player matches are played until
  // the bot has made this many (or kMaxCheckMatches were played).
  int decisions = 100;
  // Where the check matches' logs go (made if missing, hidden from the bot); empty: a private
  // temporary folder removed at the end.
  std::string log_dir;
  const std::atomic<bool>* stop = nullptr;  // raised: the check ends early (not conforming)
};

inline constexpr int kMaxCheckMatches = 40;

enum class CheckVerdict { kPass, kWarn, kFail, kNotRun };

// One line of the report: what was checked, how it went, what was seen, what to do.
struct CheckLine {
  std::string check;  // "start", "Hello", "2 players", ..., "reuse", "time", "stop"
  CheckVerdict verdict = CheckVerdict::kPass;
  std::string detail;
  std::string fix;  // for a warning or a failure; may be empty
};

struct BotCheckReport {
  std::vector<CheckLine> lines;
  // Each kind of the bot's failure in the check matches once: check "time-out ×2", the
  // detail where the first was and why, and the fix (the match lines name only the kind).
  std::vector<CheckLine> failures;
  // Why the check played no further matches, with those it left out; empty: it played all.
  std::string stopped_early;
  std::string output;          // what the bot printed during the check (excerpts, see below)
  uint64_t output_lines = 0;   // lines it printed in all
  uint64_t dropped_bytes = 0;  // output the referee's caps dropped
  std::string log_dir;         // where the logs were kept, if they were
  // The check itself could not run (no sandbox here, no temporary folder...): why.
  std::string could_not_run;
  bool conforms() const;  // ran, and no line failed (warnings allowed)
};

// Runs the check. `on_line` (may be null) hears each line as soon as it is decided, for a
// report that appears while the check runs.
BotCheckReport check_bot(const BotCheckOptions& options,
                         const std::function<void(const CheckLine&)>& on_line);

// The report's first lines: the bot's command and the terms it is checked under.
std::string format_header(const BotCheckOptions& options);
// "ok  ", "warn", "FAIL", "--  ": the mark a report line starts with.
const char* verdict_mark(CheckVerdict v);
// A report line as text: the mark, the check, the detail, and the fix on a line of its own.
std::string format_line(const CheckLine& line);
// The end of the report: each kind of failure with its fix, why the check stopped early, what
// the bot printed (excerpts), where the logs are, the verdict.
std::string format_summary(const BotCheckReport& report);

}  // namespace allfives::referee
