// The match log file: one LogRecord (proto/allfives/v1/log.proto) per line, as JSON.
#pragma once

#include <google/protobuf/arena.h>
#include <google/protobuf/message.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/v1/log.pb.h"

namespace allfives::referee {

// A message as one line of JSON in the log's conventions (proto field names, defaults
// printed), without the newline.
std::string to_json_line(const google::protobuf::Message& m);
// The same, appended to `out`.
void append_json_line(const google::protobuf::Message& m, std::string& out);

// Parses one line written by to_json_line. Returns false and says why on bad input.
bool from_json_line(const std::string& line, google::protobuf::Message* m, std::string* error);

// Writes all of `data` to `fd` (retrying short writes and EINTR). With O_APPEND and one call
// per line, lines of concurrent writers never interleave.
bool write_fully(int fd, const std::string& data);

// Opens an existing file for reading only if it is a regular file: opened with O_NONBLOCK (a
// FIFO would otherwise block the open until a writer comes), checked with fstat, then set back
// to blocking. Returns the descriptor (O_CLOEXEC), or -1 with "PATH: why" in `error` (for a
// missing file errno is ENOENT).
int open_regular_file(const std::string& path, int flags, std::string* error);

// Reads `fd` from where it stands to its end, handing each chunk read (at most 64 KiB) to
// `chunk`, which returns false to stop early; a read interrupted by a signal is retried.
// Returns 0, or the errno of the read that failed. The file's readers (logs, the index, the
// tournament file) share it and keep their own limits in `chunk`.
int read_chunks(int fd, const std::function<bool(std::string_view)>& chunk);

// Match ids and bot names become file names and lines of text: at most `max_length`
// characters from [A-Za-z0-9._+@-] (a ladder's versions are NAME@N), starting with a letter or digit. Returns false and says why
// (naming `what`, e.g. "bot name").
bool check_safe_name(const std::string& name, const char* what, size_t max_length,
                     std::string* error);
inline constexpr size_t kMaxBotNameLength = 32;
inline constexpr size_t kMaxMatchIdLength = 200;  // 4 bot names and the schedule's parts fit

class MatchLog {
 public:
  // Creates (or truncates) the file, creating missing parent folders.
  static std::unique_ptr<MatchLog> create(const std::string& path, std::string* error);
  ~MatchLog();
  MatchLog(const MatchLog&) = delete;
  MatchLog& operator=(const MatchLog&) = delete;

  // Queues a new empty record, to be filled in place until the next flush. flush() prints
  // everything queued and writes all that is printed with a single write(2), so a crash of the
  // referee can tear at most that write and lines are never interleaved. The match runner
  // groups a match's quick decisions (flush_grouped() each time it hands a request to a bot)
  // and flushes whenever a bot has been thinking for 2 ms (its look interval) and at each
  // match's end: the file is then at most kGroupFor behind the match, and complete whenever
  // the referee has been waiting for longer than that look's interval (a live page, a human's
  // turn). Grouping saves a write(2) a decision (bench/README.md, "Fewer wake-ups and writes
  // a decision").
  v1::LogRecord& add();
  // False once any write failed: the first failure is kept (error()) and later records are
  // dropped, so a log is either complete or known to be incomplete.
  bool flush();
  // Prints what is queued and writes what is printed only once it reaches kGroupBytes or the
  // last write is kGroupFor old (at `now`). False once any write failed, like flush().
  bool flush_grouped(std::chrono::steady_clock::time_point now);
  static constexpr size_t kGroupBytes = 16 * 1024;
  static constexpr std::chrono::milliseconds kGroupFor{50};
  // Flushes, optionally fsyncs (so the log is on disk, not only in the kernel), and closes.
  // False with "cannot write PATH: why" if any write, the fsync or the close failed: the log
  // is then incomplete and its match must not count.
  bool close(bool sync, std::string* error);
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  MatchLog(int fd, std::string path);
  void set_error(int err);
  void print_queued();   // queued records -> text_ (dropped after an error)
  bool write_printed();  // text_ -> the file, in one write(2)
  int fd_;
  std::string path_;
  std::string error_;  // the first failed write, "" while every write succeeded
  // The queued records live in an arena that flush() empties, in a first block of its own:
  // a decision's records then cost no heap allocation.
  alignas(8) char first_block_[16 * 1024];
  google::protobuf::Arena arena_;
  std::vector<v1::LogRecord*> queued_;  // added but not yet written, in arena_
  std::string text_;  // printed and not yet written; its memory is kept for the next records
  std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
};

}  // namespace allfives::referee
