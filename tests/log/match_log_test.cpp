// The match log's grouped writes (log/match_log.h): records wait in memory until a group is
// due (its bytes or its age), flush() writes them at once, and the file only ever holds whole
// lines.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "log/match_log.h"

namespace allfives::referee {
namespace {

class MatchLogGroups : public ::testing::Test {
 protected:
  MatchLogGroups() {
    std::string t = (std::filesystem::temp_directory_path() / "match-log-XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = t;
    path_ = dir_ + "/m.jsonl";
  }
  ~MatchLogGroups() override { std::filesystem::remove_all(dir_); }

  std::string on_disk() const {
    std::ifstream in(path_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // Queues one bot-output record of `bytes` characters of printed text.
  static void add_output(MatchLog& log, size_t bytes) {
    log.add().mutable_bot_output()->set_stderr(std::string(bytes, 'x'));
  }

  std::string dir_;
  std::string path_;
};

TEST_F(MatchLogGroups, AYoungSmallGroupWaitsAndFlushWritesItWhole) {
  std::string error;
  auto log = MatchLog::create(path_, &error);
  ASSERT_TRUE(log) << error;
  const auto start = std::chrono::steady_clock::now();
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start));
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start));
  EXPECT_EQ(on_disk(), "");  // neither old enough nor big enough
  ASSERT_TRUE(log->flush());
  const std::string text = on_disk();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_TRUE(log->close(false, &error)) << error;
}

TEST_F(MatchLogGroups, AGroupIsWrittenOnceOldEnoughOrBigEnough) {
  std::string error;
  auto log = MatchLog::create(path_, &error);
  ASSERT_TRUE(log) << error;
  const auto start = std::chrono::steady_clock::now();
  add_output(*log, 10);
  ASSERT_TRUE(log->flush_grouped(start + MatchLog::kGroupFor));
  const std::string first = on_disk();
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 1);  // old enough
  for (size_t bytes = 0; bytes < MatchLog::kGroupBytes; bytes += 1000) {
    add_output(*log, 1000);
    ASSERT_TRUE(log->flush_grouped(std::chrono::steady_clock::now()));
  }
  const std::string text = on_disk();
  EXPECT_GT(text.size(), MatchLog::kGroupBytes);  // big enough, though young
  EXPECT_EQ(text.back(), '\n');
  EXPECT_TRUE(log->close(false, &error)) << error;
  EXPECT_GT(on_disk().size(), text.size() - 1);
}

}  // namespace
}  // namespace allfives::referee
