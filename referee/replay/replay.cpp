#include "replay/replay.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "allfives/wire/convert.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "match/match_result.h"
#include "replay/log_checker.h"
#include "replay/log_words.h"

namespace allfives::referee {

std::string LogError::describe() const {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
  return file + ": " + message;
}

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error) {
  return load_replay(text, file, out, error, ReplayOptions{});
}

namespace {

using namespace log_words;

// The reading of a log line by line, shared by the in-memory and the streaming readers so both
// give the same verdict on the same bytes.
class LineFeed {
 public:
  LineFeed(const std::string& file, Replay& out, LogError& error, const ReplayOptions& options)
      : file_(file), error_(error), checker_(out.file, out, error, options) {}

  // One line without its '\n' (`terminated`: it had one). False on the first disagreement.
  bool line(std::string_view content, bool terminated) {
    if (!next()) return false;
    if (content.size() > kMaxLogLineBytes) return too_long(content.size());
    if (content.find_first_not_of(" \t\r") == std::string_view::npos)
      return fail(line_, "the line is empty; every line of a log is one record");
    if (!parse_log_line(content, record_, &parse_error_)) {
      std::string message = "not a log record: " + printable(parse_error_, 200);
      if (!terminated) {
        message = "the file ends in the middle of this line (it was cut short?); " + message;
        error_.unfinished = line_ > 1;  // the records before it may still be shown
      }
      return fail(line_, message);
    }
    return checker_.record(line_, record_);
  }
  // A line of `size` bytes, over the cap, that the streaming reader did not keep.
  bool long_line(size_t size) { return next() && too_long(size); }
  bool finish() { return checker_.finish(line_); }

 private:
  bool next() {
    if (line_ == kMaxLogLines)
      return fail(line_ + 1, "the log goes on past " + num(kMaxLogLines) +
                                 " lines; no match log is that long");
    ++line_;
    return true;
  }
  bool too_long(size_t size) {
    return fail(line_, "the line is " + num(static_cast<int64_t>(size)) +
                           " bytes long; a log line is at most " +
                           num(static_cast<int64_t>(kMaxLogLineBytes)) + " bytes");
  }
  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = std::move(message);
    return false;
  }

  const std::string& file_;
  LogError& error_;
  log_check::Checker checker_;
  int line_ = 0;
  std::string parse_error_;
  v1::LogRecord record_;
};

}  // namespace

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error,
                 const ReplayOptions& options) {
  out = Replay{};
  out.file = file;
  error = LogError{};
  LineFeed feed(file, out, error, options);
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const bool terminated = nl != std::string_view::npos;
    const size_t stop = terminated ? nl : text.size();
    if (!feed.line(text.substr(pos, stop - pos), terminated)) return false;
    pos = terminated ? nl + 1 : text.size();
  }
  return feed.finish();
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error) {
  return load_replay_file(path, out, error, ReplayOptions{});
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error,
                      const ReplayOptions& options) {
  out = Replay{};
  out.file = path;
  error = LogError{};
  auto fail = [&](std::string message) {
    out = Replay{};
    out.file = path;
    error = LogError{path, 0, std::move(message)};
    return false;
  };
  std::string why;
  const int fd = open_regular_file(path, O_RDONLY, &why);  // a FIFO is refused, never waited on
  if (fd < 0) return fail(why.substr(why.find(": ") + 2));
  // Read as a stream, a line at a time: memory stays within one line whatever the file's size.
  LineFeed feed(path, out, error, options);
  std::string line;
  size_t line_size = 0;  // the current line's length, also when it is too long to keep
  uint64_t total = 0;
  bool judged = false;  // the feed gave its verdict (an error) before the file's end
  const int err = read_chunks(fd, [&](std::string_view chunk) {
    total += chunk.size();
    if (total > kMaxLogFileBytes) return false;
    for (size_t pos = 0; pos < chunk.size();) {
      const size_t nl = chunk.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? chunk.size() : nl;
      line_size += end - pos;
      // A line over the cap is not kept: only its length matters for the verdict.
      if (line_size <= kMaxLogLineBytes) line.append(chunk.substr(pos, end - pos));
      if (nl == std::string_view::npos) break;
      pos = end + 1;
      judged = line_size > kMaxLogLineBytes ? !feed.long_line(line_size) : !feed.line(line, true);
      if (judged) return false;
      line.clear();
      line_size = 0;
    }
    return true;
  });
  ::close(fd);
  if (err != 0) return fail(std::string("cannot read: ") + std::strerror(err));
  if (total > kMaxLogFileBytes)
    return fail("the file is larger than " + std::to_string(kMaxLogFileBytes) +
                " bytes; a log is at most that");
  if (judged) return false;
  if (line_size > kMaxLogLineBytes) return feed.long_line(line_size);
  if (line_size > 0 && !feed.line(line, false)) return false;
  return feed.finish();
}

}  // namespace allfives::referee