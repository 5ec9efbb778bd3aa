// The index of a tournament's finished matches: index.jsonl in the output folder, one
// IndexEntry (proto/allfives/v1/tournament.proto) per line, as JSON in the match log's
// conventions (to_json_line). It is the tournament's only durable state: resuming replays the
// matches it lacks, and standings are computed from it alone.
#pragma once

#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"

namespace allfives::referee {

// Appends one entry as one line. The file is opened with O_APPEND (created, with missing
// parent folders, if needed) and the line, newline included, goes out in a single write(2),
// so a referee killed at any moment tears at most this line, and concurrent appenders never
// interleave. (A short write, which only a full disk or a signal can cause, is completed by
// further writes.) No fsync: the line is in the kernel when this returns, which survives the
// referee's death but not the machine's.
// Call read_index(..., repair = true, ...) before appending to a file that may end with a torn
// line, or the new line would be glued to the torn one.
bool append_index(const std::string& path, const v1::IndexEntry& entry,
                  std::string* error = nullptr);

// Reads every line of the index strictly (from_json_line). A missing file is an empty index.
// The last line is torn if it has no trailing newline or does not parse: it is dropped (the
// match simply counts as not played) and a note says so. With `repair` the file is also
// truncated right after the last good line, so appends can follow (also noted). Any other bad
// line is an error "PATH:LINE: ..." (1-based line number) and nothing is changed on disk.
// Returns false only on an error; `entries` then holds nothing meaningful.
bool read_index(const std::string& path, bool repair, std::vector<v1::IndexEntry>& entries,
                std::vector<std::string>& notes, std::string* error);

// The index of one output folder, named for messages.
struct IndexSource {
  std::string name;  // e.g. the folder
  std::vector<v1::IndexEntry> entries;
};

// Merges the indexes of several folders of the same tournament (e.g. parts run on different
// machines): entries in source order, deduplicated by match().match_id() (the first copy is
// kept; the number of duplicates is noted). Every entry must carry the same tournament_hash;
// otherwise it is an error naming the two sources (or the one source and two match ids).
bool merge_indexes(const std::vector<IndexSource>& sources, std::vector<v1::IndexEntry>& merged,
                   std::vector<std::string>& notes, std::string* error);

}  // namespace allfives::referee
