// The index as durable state: read as a stream with a cap per line (a FIFO refused at once),
// appended in groups by IndexWriter only after the logs are on disk, and guarded by FolderLock
// so one referee at a time writes a folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "log/match_log.h"
#include "test_entries.h"
#include "tournament/index_file.h"

namespace allfives::referee {
namespace {

using testing::TempDir;

// Match number i, won by its first seat.
v1::IndexEntry numbered(int i) {
  v1::IndexEntry e = testing::two_player(std::string("m").append(std::to_string(i)), "a", "b", 0);
  e.mutable_match()->set_ordinal(static_cast<uint32_t>(i));
  return e;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// An entry whose log_file is matches/ID.jsonl, with that log written in `dir`.
v1::IndexEntry logged_entry(const TempDir& dir, int ordinal) {
  v1::IndexEntry e = numbered(ordinal);
  e.set_log_file("matches/" + e.match().match_id() + ".jsonl");
  std::filesystem::create_directories(dir.file("matches"));
  std::ofstream(dir.file(e.log_file())) << "{}\n";
  return e;
}

TEST(IndexFile, AFifoIsRefusedAtOnce) {
  TempDir dir;
  const std::string fifo = dir.file("index.jsonl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(read_index(fifo, false, entries, notes, &error));  // would block on open()
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_NE(error.find(fifo + ": is a FIFO, not a regular file"), std::string::npos) << error;
}

TEST(IndexFile, ALineOverTheCapIsAnErrorWithoutReadingItWhole) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  ASSERT_TRUE(append_index(path, numbered(0)));
  std::ofstream(path, std::ios::app) << std::string(kMaxIndexLineBytes + 10, 'x') << "\n";
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_FALSE(read_index(path, true, entries, notes, &error));
  EXPECT_NE(error.find(path + ":2: the line is longer than 65536 bytes"), std::string::npos)
      << error;
}

TEST(IndexFile, StreamsEntriesInOrder) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(append_index(path, numbered(i)));
  std::vector<uint32_t> seen;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index_stream(
      path, false, [&](v1::IndexEntry&& e) { seen.push_back(e.match().ordinal()); }, notes, &error))
      << error;
  ASSERT_EQ(seen.size(), 50u);
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(seen[i], i);
}

TEST(IndexWriter, CommitsEveryEntryInOrderAfterItsLog) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  std::string error;
  auto writer = IndexWriter::open(path, dir.path(), &error);
  ASSERT_TRUE(writer) << error;
  std::string expected;
  for (int i = 0; i < 20; ++i) {
    const v1::IndexEntry e = logged_entry(dir, i);
    expected += to_json_line(e) + "\n";
    writer->submit(e);
  }
  ASSERT_TRUE(writer->close(&error)) << error;
  const std::vector<v1::IndexEntry> committed = writer->take_committed();
  ASSERT_EQ(committed.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(committed[i].match().ordinal(), static_cast<uint32_t>(i));
  EXPECT_EQ(slurp(path), expected);
}

TEST(IndexWriter, AnEntryWhoseLogIsMissingIsNeverWrittenAndStopsCommitting) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  std::string error;
  auto writer = IndexWriter::open(path, dir.path(), &error);
  ASSERT_TRUE(writer) << error;
  v1::IndexEntry lost = logged_entry(dir, 0);
  std::filesystem::remove(dir.file(lost.log_file()));
  writer->submit(lost);
  EXPECT_FALSE(writer->close(&error));
  EXPECT_NE(error.find("cannot sync " + dir.file(lost.log_file())), std::string::npos) << error;
  EXPECT_TRUE(writer->take_committed().empty());
  EXPECT_EQ(slurp(path), "");
}

TEST(FolderLock, ASecondLockIsRefusedWithTheHoldersPidAndFreedWithTheFirst) {
  TempDir dir;
  std::string error;
  auto first = FolderLock::acquire(dir.path(), &error);
  ASSERT_TRUE(first) << error;
  EXPECT_FALSE(FolderLock::acquire(dir.path(), &error));
  EXPECT_NE(error.find(dir.path() + " is in use by another referee (process " +
                       std::to_string(::getpid()) + ","),
            std::string::npos)
      << error;
  first.reset();
  EXPECT_TRUE(FolderLock::acquire(dir.path(), &error)) << error;
}

}  // namespace
}  // namespace allfives::referee
