// `referee review`'s work: logs reviewed on several threads, each review written beside its
// log, a current review (same log bytes, seats and settings) reused, and the summary printed.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "review/match_review.h"
#include "review/review_summary.h"

namespace allfives::referee {

// Which seats of a log to review.
struct SeatChoice {
  int seat = -1;    // this seat only (0-based)
  std::string bot;  // or the seats of the bot of this name (the header's display_name)
};

// The settings `referee review` uses unless told otherwise (1000 worlds a decision, seed 1),
// also those of the reviews the served pages ask for.
ReviewSettings default_review_settings();

// What reviewing one log came to.
struct LogReview {
  bool ok = false;
  bool skipped = false;  // the bot asked for does not play in this log
  bool reused = false;   // the review beside the log was current
  std::string error;     // why not ok: "PATH:LINE: why"
  ReviewFile review;
};

// Reviews the log at `path` and writes its review beside it, or reuses the one there when it
// is current and `force` is not set. `progress` hears (decisions done, decisions to do).
LogReview review_log_file(const std::string& path, const SeatChoice& seats,
                          const ReviewSettings& settings, bool force,
                          const std::function<void(int, int)>& progress = {});

struct ReviewRun {
  std::vector<std::string> paths;  // log files or folders (every log under a folder)
  SeatChoice seats;
  ReviewSettings settings;
  int jobs = 0;  // logs reviewed at once (0: one per core)
  bool force = false;
  int top = 20;  // costliest decisions listed per bot
};

// Reviews every log of `run`, printing a line per log to `err` as it goes and the summary to
// `out`. Returns the exit status: 0 every log reviewed, 1 a log could not be, 2 bad input.
int review_logs(const ReviewRun& run, std::ostream& out, std::ostream& err);

}  // namespace allfives::referee
