// Helpers for the replay tests: logs written by the real referee binary between the sample
// bots (made once per test program), and line-level editing of a log.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "allfives/v1/log.pb.h"

namespace allfives::replay_test {

// Name -> log text, from `referee match` runs: "2p", "3p", "4p", "partners" (sample bots, target
// reached), "hand-limit" (--max-hands 3), "fault" (seat 0 plays an illegal tile),
// "long-comment" (seat 0 answers with 1 MiB comments), "startup-fault" (seat 0 exits at
// startup). Made once; a failed run fails the test.
const std::map<std::string, std::string>& real_logs();

// The lines of a log without their newlines; join() puts them back (each with its newline).
std::vector<std::string> split_lines(const std::string& text);
std::string join(const std::vector<std::string>& lines);

v1::LogRecord parse(const std::string& line);
// Rewrites line `index` (0-based) through `change`, in the referee's own JSON form.
void edit(std::vector<std::string>& lines, int index,
          const std::function<void(v1::LogRecord&)>& change);
// The 0-based index of the first line at or after `from` whose record satisfies `pred`.
int find_line(const std::vector<std::string>& lines,
              const std::function<bool(const v1::LogRecord&)>& pred, int from = 0);

// load_replay fails at 1-based `line` (0: the whole file) with a message holding every one of
// `words`.
void expect_fails_at(const std::string& text, int line, const std::vector<std::string>& words);
// The same, at `line` or later.
void expect_fails_at_or_after(const std::string& text, int line,
                              const std::vector<std::string>& words);

}  // namespace allfives::replay_test
