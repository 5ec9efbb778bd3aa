// index.jsonl: appends, strict reading, torn last lines dropped and repaired, merging.
#include "tournament/index_file.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "log/match_log.h"
#include "test_entries.h"

namespace allfives::referee {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::entry;
using testing::TempDir;
using testing::two_player;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void append_raw(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f << text;
}

TEST(IndexFile, MissingFileIsAnEmptyIndex) {
  TempDir dir;
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index(dir.file("index.jsonl"), true, entries, notes, &error)) << error;
  EXPECT_TRUE(entries.empty());
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(std::filesystem::exists(dir.file("index.jsonl")));
}

TEST(IndexFile, AppendAndReadRoundTrip) {
  TempDir dir;
  const std::string path = dir.file("sub/index.jsonl");  // parent folders are created
  const std::vector<v1::IndexEntry> written = {
      two_player("m0", "a", "b", 0),
      entry("m1", v1::FORMAT_THREE_PLAYERS, {"a", "b", "c"}, {200, 150, 20}, {1, 2, 3}),
      entry("m2", v1::FORMAT_PARTNERSHIPS, {"a", "b", "a", "b"}, {30, 100}, {2, 1}, 2,
            v1::FAULT_KIND_TIMEOUT)};
  for (const auto& e : written) {
    std::string error;
    ASSERT_TRUE(append_index(path, e, &error)) << error;
  }
  const std::string text = slurp(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("\"match_id\":\"m1\""), std::string::npos) << "snake_case names";
  EXPECT_NE(text.find("\"FAULT_KIND_TIMEOUT\""), std::string::npos) << "enums by name";

  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index(path, false, read, notes, &error)) << error;
  EXPECT_TRUE(notes.empty());
  ASSERT_EQ(read.size(), written.size());
  for (size_t i = 0; i < read.size(); ++i)
    EXPECT_TRUE(MessageDifferencer::Equals(read[i], written[i])) << read[i].DebugString();
}

TEST(IndexFile, TornLastLineWithoutNewlineIsDroppedAndRepaired) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  ASSERT_TRUE(append_index(path, two_player("m0", "a", "b", 0)));
  ASSERT_TRUE(append_index(path, two_player("m1", "a", "b", 1)));
  const auto good_size = std::filesystem::file_size(path);
  append_raw(path, "{\"match\":{\"match_id\":\"m2\",\"seat_bo");  // killed mid-line

  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index(path, false, read, notes, &error)) << error;
  EXPECT_EQ(read.size(), 2u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("line 3"), std::string::npos) << notes[0];
  EXPECT_GT(std::filesystem::file_size(path), good_size) << "no repair: file untouched";

  notes.clear();
  ASSERT_TRUE(read_index(path, true, read, notes, &error)) << error;
  EXPECT_EQ(read.size(), 2u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("repaired"), std::string::npos) << notes[0];
  EXPECT_EQ(std::filesystem::file_size(path), good_size) << "truncated after the last good line";

  // Appends continue cleanly after the repair, and a second repair finds nothing to do.
  ASSERT_TRUE(append_index(path, two_player("m2", "a", "b", -1)));
  notes.clear();
  ASSERT_TRUE(read_index(path, true, read, notes, &error)) << error;
  EXPECT_TRUE(notes.empty());
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[2].match().match_id(), "m2");
}

TEST(IndexFile, ZerosAfterTheLastNewlineAreTornAndRepaired) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  ASSERT_TRUE(append_index(path, two_player("m0", "a", "b", 0)));
  const auto good_size = std::filesystem::file_size(path);
  append_raw(path, std::string(17, '\0'));  // what a crash of the machine can leave

  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index(path, true, read, notes, &error)) << error;
  EXPECT_EQ(read.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("line 2"), std::string::npos) << notes[0];
  EXPECT_EQ(std::filesystem::file_size(path), good_size);
}

TEST(IndexFile, OnlyATornLineLeavesAnEmptyFile) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  append_raw(path, "{\"match\":");
  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index(path, true, read, notes, &error)) << error;
  EXPECT_TRUE(read.empty());
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

// A complete line that does not parse is an error naming the file and the line, wherever it
// is, and the file is left as it is, with or without repair: in the middle, or last (here a
// newer referee's extra field: a result this referee cannot read, not a torn write, so a resume
// refuses rather than drop it).
// Read from where a reading stopped: the lines appended since, each with where it starts; a
// torn line is left for the next reading, and a bad line is named by its number in the file.
TEST(IndexFile, ReadingOnFromWhereAReadingStoppedGivesTheNewLinesAlone) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  ASSERT_TRUE(append_index(path, two_player("m0", "a", "b", 0)));
  ASSERT_TRUE(append_index(path, two_player("m1", "a", "b", 1)));
  IndexReadPosition at;
  std::vector<std::pair<std::string, uint64_t>> read;
  const auto on_entry = [&](v1::IndexEntry&& e, uint64_t start) {
    read.emplace_back(e.match().match_id(), start);
  };
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(read_index_stream_from(path, at, on_entry, notes, &error)) << error;
  const std::string two = slurp(path);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].second, two.find('\n') + 1);
  EXPECT_EQ(at.offset, two.size());
  EXPECT_EQ(at.lines, 2);
  ASSERT_TRUE(append_index(path, two_player("m2", "a", "b", 0)));
  append_raw(path, "{\"torn");
  read.clear();
  ASSERT_TRUE(read_index_stream_from(path, at, on_entry, notes, &error)) << error;
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0], (std::pair<std::string, uint64_t>{"m2", two.size()}));
  EXPECT_EQ(at.entries, 3u);
  ASSERT_EQ(notes.size(), 1u);  // the torn line, not read
  append_raw(path, "\"}\n");
  read.clear();
  EXPECT_FALSE(read_index_stream_from(path, at, on_entry, notes, &error));
  EXPECT_NE(error.find(path + ":4: bad index entry"), std::string::npos) << error;
}

TEST(IndexFile, ACompleteLineThatDoesNotParseIsAnErrorWhereverItIs) {
  std::string newer = to_json_line(two_player("m1", "a", "b", 1));
  newer.insert(newer.size() - 1, ", \"rating_after\": 1500");
  for (const bool last : {false, true}) {
    TempDir dir;
    const std::string path = dir.file("index.jsonl");
    ASSERT_TRUE(append_index(path, two_player("m0", "a", "b", 0)));
    append_raw(path, last ? newer + "\n" : "{\"match\": not json}\n");
    if (!last) {
      ASSERT_TRUE(append_index(path, two_player("m2", "a", "b", 1)));
    }
    const std::string before = slurp(path);
    for (const bool repair : {false, true}) {
      std::vector<v1::IndexEntry> read;
      std::vector<std::string> notes;
      std::string error;
      EXPECT_FALSE(read_index(path, repair, read, notes, &error));
      EXPECT_NE(error.find(path + ":2: bad index entry"), std::string::npos) << error;
      if (last) {
        EXPECT_NE(error.find("rating_after"), std::string::npos) << error;
      }
      EXPECT_EQ(slurp(path), before) << "an error changes nothing on disk";
    }
  }
}

TEST(IndexFile, BadLineBeforeATornTailIsStillAnError) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  ASSERT_TRUE(append_index(path, two_player("m0", "a", "b", 0)));
  append_raw(path, "garbage\n{\"match\":");
  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_FALSE(read_index(path, true, read, notes, &error));
  EXPECT_NE(error.find(path + ":2:"), std::string::npos) << error;
}

TEST(IndexFile, UnknownFieldIsAnError) {
  TempDir dir;
  const std::string path = dir.file("index.jsonl");
  append_raw(path, "{\"no_such_field\":1}\n");
  ASSERT_TRUE(append_index(path, two_player("m1", "a", "b", 0)));
  std::vector<v1::IndexEntry> read;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_FALSE(read_index(path, false, read, notes, &error));
  EXPECT_NE(error.find(path + ":1:"), std::string::npos) << error;
}

TEST(MergeIndexes, DeduplicatesByMatchId) {
  std::vector<IndexSource> sources = {
      {"out-a", {two_player("m0", "a", "b", 0), two_player("m1", "a", "b", 1)}},
      {"out-b", {two_player("m1", "a", "b", 1), two_player("m2", "a", "b", -1)}}};
  std::vector<v1::IndexEntry> merged;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(merge_indexes(sources, merged, notes, &error)) << error;
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].match().match_id(), "m0");
  EXPECT_EQ(merged[1].match().match_id(), "m1");
  EXPECT_EQ(merged[2].match().match_id(), "m2");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("1 duplicate"), std::string::npos) << notes[0];
}

// A folder that grew by appended bots holds lines with the shorter file's hash; they are
// matches of the grown tournament, so they merge with a fresh run of it, each match once.
TEST(MergeIndexes, LinesPlayedBeforeBotsWereAppendedMergeWithTheGrownTournament) {
  std::vector<IndexSource> sources = {{"grown",
                                       {two_player("a-b-d0-r0", "a", "b", 0, "two-bots"),
                                        two_player("a-c-d0-r0", "a", "c", 0, "three-bots")}},
                                      {"fresh",
                                       {two_player("a-b-d0-r0", "a", "b", 0, "three-bots"),
                                        two_player("a-c-d0-r0", "a", "c", 0, "three-bots")}}};
  const std::vector<DefinitionHashes> definitions = {{"three-bots", {"two-bots"}},
                                                     {"four-bots", {"x", "y"}}};
  EXPECT_EQ(adopt_grown_hashes(sources, definitions), 1u);
  EXPECT_EQ(sources[0].entries[0].tournament_hash(), "three-bots");
  std::vector<v1::IndexEntry> merged;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(merge_indexes(sources, merged, notes, &error)) << error;
  EXPECT_EQ(merged.size(), 2u);
  // A chain of growths ends at the largest definition.
  std::vector<IndexSource> chain = {{"old", {two_player("m", "a", "b", 0, "h2")}}};
  adopt_grown_hashes(chain, {{"h3", {"h2"}}, {"h4", {"h2", "h3"}}});
  EXPECT_EQ(chain[0].entries[0].tournament_hash(), "h4");
}

TEST(MergeIndexes, RejectsDifferentTournamentsNamingTheFolders) {
  std::vector<IndexSource> sources = {{"out-a", {two_player("m0", "a", "b", 0, "hash-1")}},
                                      {"out-empty", {}},
                                      {"out-b", {two_player("m1", "a", "b", 1, "hash-2")}}};
  std::vector<v1::IndexEntry> merged;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_FALSE(merge_indexes(sources, merged, notes, &error));
  EXPECT_NE(error.find("out-a"), std::string::npos) << error;
  EXPECT_NE(error.find("out-b"), std::string::npos) << error;
  EXPECT_NE(error.find("hash-1"), std::string::npos) << error;
  EXPECT_NE(error.find("hash-2"), std::string::npos) << error;
}

TEST(MergeIndexes, RejectsMixedTournamentsInOneFolder) {
  std::vector<IndexSource> sources = {
      {"out-a", {two_player("m0", "a", "b", 0, "hash-1"), two_player("m1", "a", "b", 1, "x")}}};
  std::vector<v1::IndexEntry> merged;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_FALSE(merge_indexes(sources, merged, notes, &error));
  EXPECT_NE(error.find("out-a holds matches of two tournaments"), std::string::npos) << error;
}

}  // namespace
}  // namespace allfives::referee
