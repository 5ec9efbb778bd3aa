// What the served folders hold, as the pages of `referee serve` list it: tournament output
// folders and folders of match logs, the logs in each in natural order, and a few words on
// each log the index does not (yet) hold. Every file is reached through served_paths.h's
// rules: an entry that is a link leading out of its served folder is neither listed nor read.
// Reads are bounded: a listing never reads a log whole.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "allfives/v1/log.pb.h"
#include "serve/served_paths.h"

namespace allfives::referee::serve {

inline constexpr size_t kMaxListed = 20000;  // matches listed per folder
// The largest log a page draws (a replay or a live match): a log of 250-point matches is
// tens of KiB, one of a 30,000-hand safety valve hundreds of MiB, whose page no browser would
// hold. Larger logs are refused with 413 and stay downloadable from /log/.
inline constexpr off_t kMaxPageLogBytes = off_t{16} << 20;

// "d2" before "d10": digit runs compare as numbers, the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b);

// A folder worth listing: a tournament's output (index.jsonl or matches/) or loose logs.
struct Folder {
  int root = 0;
  std::string rel;          // relative to the root, "" for the root
  std::string real;         // its real path
  std::string logs;         // where its logs are: real/matches or real
  std::string index;        // the real path of its index.jsonl, "" if it has none inside the root
  bool tournament = false;  // it has an index or a tournament.txtpb
};

// The folder at `real` (a real path inside `roots[root]`), if it is one worth listing.
std::optional<Folder> as_folder(const std::vector<ServedRoot>& roots, int root,
                                const std::string& real);
// Every such folder: each root and the folders directly inside it.
std::vector<Folder> find_folders(const std::vector<ServedRoot>& roots);

// The names in a folder inside `root`, in natural order: sub-folders, or the match logs
// (*.jsonl but index.jsonl and the reviews beside logs, *.review.jsonl), at most kMaxListed,
// leaving out the names `skip` says (e.g. the logs an index holds, so that a folder of many
// finished matches lists the others). Links are followed only where they stay inside the root.
std::vector<std::string> list_names(const ServedRoot& root, const std::string& dir, bool folders,
                                    const std::function<bool(const std::string&)>& skip = {});

// What the match list says of a log the index does not (yet) hold: from its first line (the
// header) and its last MiBs (the end of the match, followed only by the bots' output).
struct LogSummary {
  bool readable = false;  // a match log, or an empty file (a match whose bots are starting)
  std::vector<std::string> seats;
  v1::Format format = v1::FORMAT_UNSPECIFIED;
  std::optional<v1::LogMatchEnd> end;
  off_t size = 0;
};
LogSummary summarize_log(const std::string& path);

// Whether the file was modified within the last `seconds`.
bool seen_recently(const std::string& path, int seconds);
// Its size, -1 if it cannot be read.
off_t file_size(const std::string& path);
bool is_dir(const std::string& path);
bool is_file(const std::string& path);

// At most `cap` bytes of a file (a real path; a link put in its place is refused); false if it
// cannot be read. With `whole_lines` a torn last line (a record being appended right now) is
// left out.
bool read_bounded(const std::string& path, size_t cap, std::string& out, bool whole_lines);

// Where lines 0, every, 2 * every, ... of a file start (complete lines only), found without
// parsing them: a page of an index is then read from its offset (read_lines).
std::vector<uint64_t> line_starts(const std::string& path, size_t every);
// From byte `offset` on, `skip` complete lines passed over, then at most `count` handed to
// `on_line` (without the newline). A line longer than `max_line` ends the reading. False if
// the file cannot be read.
bool read_lines(const std::string& path, uint64_t offset, size_t skip, size_t count,
                size_t max_line, const std::function<void(const std::string&)>& on_line);

// "300.0 MB", "12 KiB": a size in words for refusals.
std::string size_words(off_t bytes);

}  // namespace allfives::referee::serve
