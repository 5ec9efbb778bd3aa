// The match log's grouped writes (log/match_log.h): records wait in memory until a group is
// due (its bytes or its age), flush() writes them at once, and the file only ever holds whole
// lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "log/match_log.h"

namespace allfives::referee {
namespace {

class MatchLogGroups : public ::testing::Test {
 protected:
  std::unique_ptr<MatchLog> open() const {
    std::string error;
    std::unique_ptr<MatchLog> log = MatchLog::create(path_, &error);
    EXPECT_TRUE(log) << error;
    return log;
  }
  size_t lines_on_disk() const {
    const std::string text = on_disk();
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  std::string on_disk() const {
    std::ifstream in(path_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // Queues one bot-output record of `bytes` characters of printed text.
  static void add_output(MatchLog& log, size_t bytes) {
    log.add().mutable_bot_output()->set_stderr(std::string(bytes, 'x'));
  }

  allfives::testing::TempDir dir_{"match-log"};
  std::string path_ = dir_.file("m.jsonl");
};

TEST_F(MatchLogGroups, AYoungSmallGroupWaitsAndFlushWritesItWhole) {
  auto log = open();
  ASSERT_TRUE(log);
  const auto start = std::chrono::steady_clock::now();
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start));
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start));
  EXPECT_EQ(on_disk(), "");  // neither old enough nor big enough
  ASSERT_TRUE(log->flush());
  EXPECT_EQ(lines_on_disk(), 2u);
  EXPECT_EQ(on_disk().back(), '\n');
  std::string error;
  EXPECT_TRUE(log->close(false, &error)) << error;
}

TEST_F(MatchLogGroups, AGroupIsWrittenOnceOldEnoughOrBigEnough) {
  auto log = open();
  ASSERT_TRUE(log);
  const auto start = std::chrono::steady_clock::now();
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start + MatchLog::kGroupFor));
  EXPECT_EQ(lines_on_disk(), 1u);  // old enough
  size_t added = 1;
  for (size_t bytes = 0; bytes < MatchLog::kGroupBytes; bytes += 1000, ++added) {
    add_output(*log, 1000);
    ASSERT_TRUE(log->flush_grouped(std::chrono::steady_clock::now()));
  }
  const std::string text = on_disk();
  EXPECT_GT(text.size(), MatchLog::kGroupBytes);  // big enough, though young
  EXPECT_EQ(text.back(), '\n');
  std::string error;
  EXPECT_TRUE(log->close(false, &error)) << error;
  EXPECT_EQ(lines_on_disk(), added);  // close() wrote what was still waiting
}

}  // namespace
}  // namespace allfives::referee
