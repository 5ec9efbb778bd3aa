// The match log read back: one line as a LogRecord, and a whole log file, with limits against
// hostile input. The writer is match_log.h; whether a log is a true account of a match is the
// checker's question (replay/replay.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "allfives/v1/log.pb.h"

namespace allfives::referee {

// Limits on hostile input: a real log is far below each.
inline constexpr size_t kMaxLogLineBytes = size_t{1} << 20;  // 1 MiB per line
inline constexpr int kMaxLogLines = 100000;
inline constexpr size_t kMaxLogFileBytes = size_t{256} << 20;  // 256 MiB per file

// One log line as a record. A fast strict reader handles what the referee writes; anything
// else goes to protobuf's JSON parser (from_json_line), so it accepts exactly what that parser
// accepts, with the same result. Returns false and says why on bad input.
bool parse_log_line(std::string_view line, v1::LogRecord& out, std::string* error);

// The bytes of the log file at `path`: a regular file of at most kMaxLogFileBytes. Returns
// false and says why ("cannot open: ...", "not a regular file", ...) otherwise.
bool read_log_file(const std::string& path, std::string& text, std::string* error);

}  // namespace allfives::referee
