// Verifying match logs in bulk: the logs a path names, and each re-played with the rules core
// (load_replay_file), several at once, with one line of verdict per log. `referee verify` is
// this with a command line (cli/verify_command.h).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace allfives::referee {

// The logs a PATH names: a file is itself; a folder is every *.jsonl file under it (at any
// depth, so a tournament folder gives its matches/*.jsonl) except index.jsonl, sorted.
// Returns false and says why if the path does not exist or cannot be listed.
bool collect_logs(const std::string& path, std::vector<std::string>& logs, std::string* error);

// Verifies every log the paths name, printing one line per log ("OK  path  (N hands, M plays)"
// or "FAIL path:LINE: message"; with `quiet` only failures) and a summary line to `out`.
// `jobs` logs are verified at once (0: one per core); the output is the same for any `jobs`.
// Logs outside tournament folders come first, sorted. Every tournament output folder at or
// under a path (a folder holding tournament.txtpb, index.jsonl or referee.lock) is checked as
// a whole, as a stream: its index line by line, each line's log verified (and printed) as the
// line is read, then the logs under matches/ that no line named, in the folder's order; what
// is held is two bits per scheduled match, never the entries. It fails whatever cannot be
// vouched for: a missing or unreadable definition or index (a FIFO or device included), each
// index.jsonl line against the schedule of the definition it was played with and against its
// log ("FAIL DIR/index.jsonl:LINE: ..."), any file under DIR/matches that is not a log of a
// scheduled match (junk, a copied or foreign log), any other *.jsonl in the folder. A log of a
// scheduled match that the index does not name (a stopped match) is "UNFINISHED path", which
// fails too unless `allow_unfinished` (a run still in progress).
// Before the summary, a line per bot that played at a table of 3 or 4, over all the logs that
// are OK: whether its decision times predict its seats' own hidden tiles (timing_signal.h;
// with `quiet` only flagged bots). A flag never changes the exit code.
// Returns the exit code: 0 all OK, 1 a log or an index failed, 2 bad arguments (on `err`).
int verify_logs(const std::vector<std::string>& paths, bool quiet, std::ostream& out,
                std::ostream& err, int jobs = 0, bool allow_unfinished = false);

}  // namespace allfives::referee
