// libFuzzer target for the match log reader: any bytes given to load_replay must give a verdict
// (a Replay, or an error naming a line of the input), never a crash, a hang, a sanitizer report
// or unbounded memory. Two more properties are checked on every input:
// - keeping the steps or not gives the same verdict and the same error;
// - the fast line reader (parse_log_line) agrees with protobuf's JSON parser (from_json_line):
//   a line it accepts, the library accepts with the same message.
// Built only with clang (-DALLFIVES_FUZZ=ON); run it with tests/fuzz/run.sh.
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "log/log_reader.h"
#include "log/match_log.h"
#include "replay/replay.h"

namespace {

using namespace allfives;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The library parser logs some refusals (invalid UTF-8...) to stderr: noise here.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }

  referee::Replay full, checked;
  referee::LogError e1, e2;
  const bool ok = referee::load_replay(text, "fuzz", full, e1);
  const bool ok2 =
      referee::load_replay(text, "fuzz", checked, e2, referee::ReplayOptions{.keep_steps = false});
  check(ok == ok2);
  if (!ok) {
    check(e1.line >= 0 && e1.line <= static_cast<int>(lines.size()) + 1);
    check(!e1.message.empty());
    check(e1.line == e2.line && e1.message == e2.message);
    for (const char c : e1.describe()) check(c >= 0x20 && c < 0x7f);  // printable
  } else {
    check(full.finished && full.steps.size() <= lines.size());
    check(full.hands == checked.hands && full.plays == checked.plays);
  }

  // The two line readers agree. protobuf's parser takes ~100 us a line under ASan, so only the
  // first and the last three lines are compared (short inputs get every line), and only lines
  // the fast reader accepts: for the others parse_log_line returns the library's own verdict.
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i >= 3 && i + 3 < lines.size()) continue;
    const std::string_view line = lines[i];
    if (line.size() > 4096) continue;
    v1::LogRecord fast, lib;
    std::string why_fast, why_lib;
    if (!referee::parse_log_line(line, fast, &why_fast)) continue;
    check(referee::from_json_line(std::string(line), &lib, &why_lib));
    check(fast.SerializeAsString() == lib.SerializeAsString());
  }
  return 0;
}
