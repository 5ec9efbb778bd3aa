// The site's record of each folder's index and of the logs outside any index (arena_site.h),
// each read again only once its file changed.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "serve/arena_site.h"
#include "serve/log_folders.h"
#include "tournament/index_file.h"
#include "tournament/sprt.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {

// FNV-1a of a log's name as the index gives it ("matches/ID.jsonl"): 8 bytes a finished match,
// to tell the logs the index does not hold from those it does.
uint64_t log_name_hash(std::string_view name);

// A folder's index.jsonl read as a stream and its standings computed once per version of the
// file (its size and modification time): pages of a tournament are asked for far more often
// than it changes, and reading an index is most of a page's cost. An index only grows (lines
// appended), so a new version of one already read is read from where that reading stopped,
// the new lines alone. With the index, the folder's tournament.txtpb, for its SPRT. What is kept is
// the standings (per bot and pairing), a hash of each finished match's log name (to tell the logs
// the index does not hold) and what the match list's filters look at, never the entries: a page's
// matches are read again, its own lines alone, found by where each line starts (page_rows),
// filtered or not.
struct ArenaSite::Indexes {
  struct Entry {
    off_t size = -1;
    struct timespec mtime {};
    ino_t inode = 0;
    bool ok = false;
    std::string error;
    size_t finished = 0;                 // lines of the index
    IndexReadPosition read_to;           // where the reading stopped
    std::vector<uint64_t> indexed_logs;  // log_name_hash of each line's log_file, sorted
    std::vector<uint64_t> starts;        // where each line starts
    // Per line, what MatchFilter::shows looks at: its seats' bots (indices into bot_names,
    // seat_bots[first_bot..]) and its fault.
    struct Filtered {
      uint32_t first_bot = 0;
      uint32_t num_bots = 0;
      int fault_seat = -1;
      v1::FaultKind fault_kind = v1::FAULT_KIND_UNSPECIFIED;
    };
    std::vector<Filtered> filtered;
    std::vector<uint32_t> seat_bots;
    std::vector<std::string> bot_names;
    std::map<std::string, uint32_t> bot_ids;  // bot_names' indices
    std::set<std::string> bots;               // every seat's bot, and
    std::set<v1::FaultKind> kinds;            // every fault kind: the filters' choices
    // The sums so far, which the next lines are added to, and the standings they give.
    StandingsAccumulator sums;
    std::vector<SprtMonitor> monitors;
    std::string no_sprt;   // why there are none
    uint64_t planned = 0;  // matches its definition schedules (0: no definition)
    Standings standings;
    bool holds(const std::string& log_file) const {
      return std::binary_search(indexed_logs.begin(), indexed_logs.end(), log_name_hash(log_file));
    }
  };
  static constexpr size_t kMaxFolders = 256;
  std::map<std::string, std::shared_ptr<const Entry>> by_path;
  static bool fold_index(const std::string& index, Entry& e);

  // The same for logs the index does not hold (a folder of `referee match` logs, a match
  // being played): each is summarised once per version.
  struct Summary {
    off_t size = -1;
    struct timespec mtime {};
    LogSummary summary;
  };
  static constexpr size_t kMaxSummaries = 20000;
  std::map<std::string, Summary> summaries;

  static bool same_version(off_t size, const struct timespec& mtime, const struct stat& st) {
    return size == st.st_size && mtime.tv_sec == st.st_mtim.tv_sec &&
           mtime.tv_nsec == st.st_mtim.tv_nsec;
  }

  const LogSummary& summary(const std::string& path);

  // Whether `st` is the index `e` was read from with lines added: the same file, longer, a
  // line's end where the reading stopped.
  static bool grown(const Entry& e, const std::string& index, const struct stat& st);

  // What the folder's definition tells: its SPRTs (or why there are none; "" without a
  // definition) and how many matches it schedules.
  static void read_definition(const std::string& tournament_file, Entry& e);

  // `index` is a real path inside a served folder, or "" (no index: no entries).
  std::shared_ptr<const Entry> get(const std::string& index, const std::string& tournament_file);
};

}  // namespace allfives::referee::serve
