// The index of a tournament's finished matches: index.jsonl in the output folder, one
// IndexEntry (proto/allfives/v1/tournament.proto) per line, as JSON in the match log's
// conventions (to_json_line). It is the tournament's only durable state: resuming replays the
// matches it lacks, and standings are computed from it alone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "allfives/v1/tournament.pb.h"

namespace allfives::referee {

// Appends one entry as one line. The file is opened with O_APPEND (created, with missing
// parent folders, if needed) and the line, newline included, goes out in a single write(2),
// so a referee killed at any moment tears at most this line, and concurrent appenders never
// interleave. (A short write, which only a full disk or a signal can cause, is completed by
// further writes.) No fsync: the line is in the kernel when this returns, which survives the
// referee's death but not the machine's. A tournament appends with IndexWriter (below), which
// syncs.
// Call read_index(..., repair = true, ...) before appending to a file that may end with a torn
// line, or the new line would be glued to the torn one.
bool append_index(const std::string& path, const v1::IndexEntry& entry,
                  std::string* error = nullptr);

// A line of the index is at most this long (a real entry is well under 1 KiB; the longest part
// is a fault's reason). An index also holds at most kMaxScheduleMatches entries
// (tournament_file.h), the most a tournament can have. Beyond either it is refused, so reading
// one never needs more memory than a tournament that can run.
inline constexpr size_t kMaxIndexLineBytes = size_t{64} << 10;

// Reads the index as a stream, line by line (at most kMaxIndexLineBytes a line), calling
// `on_entry` for each good entry in order; otherwise exactly like read_index below. A FIFO,
// device or folder is refused at once.
bool read_index_stream(const std::string& path, bool repair,
                       const std::function<void(v1::IndexEntry&&)>& on_entry,
                       std::vector<std::string>& notes, std::string* error);

// How far a reading of an index got: the byte after its last complete line, the complete
// lines and the entries read up to there.
struct IndexReadPosition {
  uint64_t offset = 0;
  int lines = 0;
  uint64_t entries = 0;
};
// read_index_stream (without repair) from `at` on, which an earlier reading of the same file
// reached: an index is only appended to (a repair truncates no more than a torn last line,
// which no reading counts), so its lines up to there are unchanged. `at` moves on to the end
// of the last complete line; `on_entry` also gets where each entry's line starts.
bool read_index_stream_from(const std::string& path, IndexReadPosition& at,
                            const std::function<void(v1::IndexEntry&&, uint64_t)>& on_entry,
                            std::vector<std::string>& notes, std::string* error);

// Reads every line of the index strictly (from_json_line). A missing file is an empty index.
// Only bytes after the last newline are a torn line (a kill or a crash mid-write): they are
// dropped (the match simply counts as not played) and a note says so. With `repair` the file is
// also truncated right after the last complete line, so appends can follow (also noted). A
// complete line that does not parse, wherever it is, is an error "PATH:LINE: ..." (1-based
// line number) and nothing is changed on disk.
// Returns false only on an error; `entries` then holds nothing meaningful.
bool read_index(const std::string& path, bool repair, std::vector<v1::IndexEntry>& entries,
                std::vector<std::string>& notes, std::string* error);

// Appends finished matches to an index durably, in groups, on a thread of its own: for each
// group it fsyncs every log of the group (several at once) and their folder, then appends the
// group's lines with one write(2) and fdatasyncs the index. Only then are the entries
// handed back by take_committed(), so a match counts only once its log and its index line are
// on disk, and a crash of the machine loses at most the matches not yet handed back (a resume
// plays them again). A group gathers for `interval` (kCommitInterval) after the previous
// commit: an fsync can take about 8 ms, more than a match, and committing every few matches
// cost the demo tournament 13% of its speed (bench/README.md, Durability). The
// first failure (a log or the index that cannot be synced or written, e.g. a full disk) stops
// all committing: what was committed stays, the index is truncated back to its last complete
// line, and failed() says why, naming the file.
class IndexWriter {
 public:
  // Opens (creating) `path` for appending; log files named by entries are taken relative to
  // `out_dir`. The file must end with a complete line (read_index with repair first).
  static constexpr std::chrono::milliseconds kCommitInterval{1000};
  static std::unique_ptr<IndexWriter> open(const std::string& path, const std::string& out_dir,
                                           std::string* error,
                                           std::chrono::milliseconds interval = kCommitInterval);
  ~IndexWriter();  // close()s
  IndexWriter(const IndexWriter&) = delete;
  IndexWriter& operator=(const IndexWriter&) = delete;

  // Queues an entry whose log is complete (closed without error). The committing thread starts
  // at the first submit, so a process that forks before it forks no thread.
  void submit(v1::IndexEntry entry);
  // Also fsyncs `path` (e.g. the definition the logs belong to) before the next group's lines.
  void sync_with_next_commit(std::string path);
  // The entries committed since the last call, in submission order.
  std::vector<v1::IndexEntry> take_committed();
  // "" while everything went well; otherwise why committing stopped.
  std::string failed() const;
  // Commits everything submitted (unless committing failed) and stops the thread. Returns false
  // with the reason if committing failed at any point.
  bool close(std::string* error);

 private:
  IndexWriter(int fd, std::string path, std::string out_dir, uint64_t size,
              std::chrono::milliseconds interval);
  void commit_loop();
  bool commit(const std::vector<v1::IndexEntry>& group);

  int fd_;
  std::string path_, out_dir_;
  uint64_t size_;  // bytes of complete lines on disk
  std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  static constexpr size_t kSyncThreads = 8;
  std::vector<v1::IndexEntry> queued_, committed_;
  std::vector<std::string> sync_next_;  // more files for the next commit to fsync
  std::string failed_;
  bool closing_ = false;
  std::thread thread_;
};

// An advisory lock (flock) on an output folder, held until destruction, so one referee at a
// time writes a folder: a second one is refused and told the holder's process id. The lock file
// is DIR/referee.lock and holds that id; the kernel drops the lock when its holder dies (even
// by SIGKILL), so a stale file never blocks a later run. Forked workers share the lock.
class FolderLock {
 public:
  static std::unique_ptr<FolderLock> acquire(const std::string& dir, std::string* error);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  explicit FolderLock(int fd) : fd_(fd) {}
  int fd_;
};

// Whether a referee runs in output folder `dir` now: the process its referee.lock names is
// alive and is a referee (read without taking the lock, so a referee starting is never
// refused because someone looked).
bool folder_in_use(const std::string& dir);

// The index of one output folder, named for messages.
struct IndexSource {
  std::string name;  // e.g. the folder
  std::vector<v1::IndexEntry> entries;
};

// One tournament definition as merging sees it: its hash, and the hashes it had before bots
// were appended to it (TournamentDef::earlier_hashes).
struct DefinitionHashes {
  std::string hash;
  std::vector<std::string> earlier;
};

// Entries played before bots were appended carry the hash of the shorter file, yet they are
// matches of the grown tournament (same ids, seeds and seats): every hash that is an earlier
// hash of one of `definitions` is replaced, in the entries of `sources`, by the hash of the
// largest definition it grew into, so that such folders merge (and deduplicate) with a fresh
// run of the grown file. Returns how many entries were relabelled.
size_t adopt_grown_hashes(std::vector<IndexSource>& sources,
                          const std::vector<DefinitionHashes>& definitions);

// Merges the indexes of several folders of the same tournament (e.g. parts run on different
// machines): entries in source order, deduplicated by match().match_id() (the first copy is
// kept; the number of duplicates is noted). Every entry must carry the same tournament_hash;
// otherwise it is an error naming the two sources (or the one source and two match ids).
bool merge_indexes(const std::vector<IndexSource>& sources, std::vector<v1::IndexEntry>& merged,
                   std::vector<std::string>& notes, std::string* error);

}  // namespace allfives::referee
