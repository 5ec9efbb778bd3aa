#include "replay_test_util.h"

#include <fstream>
#include <sstream>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "replay/replay.h"

namespace allfives::replay_test {

namespace {

// Runs `referee match` with `args` (bots last) and returns the log it wrote.
std::string referee_log(const std::string& dir, const std::string& name,
                        const std::vector<std::string>& args) {
  const std::string log = dir + "/" + name + ".jsonl";
  std::vector<std::string> argv = {ALLFIVES_REFEREE,       "match", "--log",          log,
                                   "--startup-timeout-ms", "5000",  "--move-time-ms", "1000",
                                   "--match-id",           name};
  argv.insert(argv.end(), args.begin(), args.end());
  const e2e::RunResult r = e2e::run(argv, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
  return e2e::read_file(log);
}

}  // namespace

const std::map<std::string, std::string>& real_logs() {
  static const std::map<std::string, std::string> logs = [] {
    const std::string dir = e2e::temp_dir("replay-real-logs");
    const std::string g = ALLFIVES_GREEDY_BOT, r = ALLFIVES_RANDOM_BOT;
    const std::string bad = ALLFIVES_MISBEHAVING_BOT;
    std::map<std::string, std::string> m;
    m["2p"] = referee_log(dir, "2p", {"--seed", "5", "greedy=" + g, "random=" + r});
    m["3p"] = referee_log(dir, "3p", {"--format", "3p", "--seed", "6", g, r, g});
    m["4p"] = referee_log(dir, "4p", {"--format", "4p", "--seed", "7", g, r, g, r});
    m["partners"] = referee_log(dir, "partners", {"--format", "partners", "--seed", "8", g, r});
    m["hand-limit"] = referee_log(dir, "hand-limit", {"--max-hands", "3", "--seed", "9", g, r});
    m["fault"] = referee_log(dir, "fault", {"--seed", "10", bad + " --mode illegal --at 3", r});
    m["long-comment"] =
        referee_log(dir, "long-comment", {"--seed", "12", bad + " --mode long-comment", r});
    m["startup-fault"] =
        referee_log(dir, "startup-fault", {"--seed", "11", bad + " --mode exit-at-startup", r});
    return m;
  }();
  return logs;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

v1::LogRecord parse(const std::string& line) {
  v1::LogRecord r;
  std::string error;
  EXPECT_TRUE(referee::from_json_line(line, &r, &error)) << error << "\n" << line;
  return r;
}

void edit(std::vector<std::string>& lines, int index,
          const std::function<void(v1::LogRecord&)>& change) {
  ASSERT_GE(index, 0);
  ASSERT_LT(index, static_cast<int>(lines.size()));
  v1::LogRecord r = parse(lines[static_cast<size_t>(index)]);
  change(r);
  lines[static_cast<size_t>(index)] = referee::to_json_line(r);
}

int find_line(const std::vector<std::string>& lines,
              const std::function<bool(const v1::LogRecord&)>& pred, int from) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i)
    if (pred(parse(lines[static_cast<size_t>(i)]))) return i;
  ADD_FAILURE() << "no such line in the log";
  return 0;
}

namespace {

void expect_fails(const std::string& text, int line, bool or_after,
                  const std::vector<std::string>& words) {
  referee::Replay r;
  referee::LogError e;
  ASSERT_FALSE(referee::load_replay(text, "edited.jsonl", r, e))
      << "the edited log verified; expected a failure at line " << line;
  if (or_after) {
    EXPECT_GE(e.line, line) << e.describe();
  } else {
    EXPECT_EQ(e.line, line) << e.describe();
  }
  EXPECT_EQ(e.file, "edited.jsonl");
  for (const std::string& w : words)
    EXPECT_NE(e.message.find(w), std::string::npos) << "missing '" << w << "' in\n" << e.describe();
}

}  // namespace

void expect_fails_at(const std::string& text, int line, const std::vector<std::string>& words) {
  expect_fails(text, line, false, words);
}

void expect_fails_at_or_after(const std::string& text, int line,
                              const std::vector<std::string>& words) {
  expect_fails(text, line, true, words);
}

}  // namespace allfives::replay_test
