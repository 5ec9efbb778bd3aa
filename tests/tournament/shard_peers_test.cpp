// The SPRT across shards reads the other shards' folders (ShardPeers): complete lines only, of
// the same definition only, each a scheduled match of the file; a folder of another file, or an
// index with a forged, garbled or overlong line, a FIFO or a file cut shorter is dropped from
// the reading with a note naming it.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "log/match_log.h"
#include "test_entries.h"
#include "tournament/schedule.h"
#include "tournament/shard_peers.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

TournamentDef load(const TempDir& dir, const std::string& name, int seed) {
  const std::string path = dir.file(name + ".txtpb");
  std::ofstream(path) << "name: \"peers\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"/bin/true\" }\n"
                      << "bots { name: \"b\" command: \"/bin/true\" }\n"
                      << "matches_per_pairing: 100\nseed: " << seed << "\n"
                      << "sprt { elo0: 0 elo1: 10 }\n";
  TournamentDef def;
  std::string error;
  EXPECT_TRUE(load_tournament(path, def, &error)) << error;
  return def;
}

// A shard folder under `parent` holding `def` as run, and its index `lines` (no newline added).
std::string shard(const TempDir& parent, const std::string& name, const TournamentDef& def,
                  const std::string& lines) {
  const std::string dir = parent.file(name);
  fs::create_directories(dir);
  std::string text;
  google::protobuf::TextFormat::PrintToString(def.proto, &text);
  std::ofstream(dir + "/tournament.txtpb") << "# As run; hash " << def.hash << "\n" << text;
  std::ofstream(dir + "/index.jsonl", std::ios::binary) << lines;
  return dir;
}

// Match `ordinal` of def's schedule, won by its first seat, as an index line; `edit` may
// change the entry first.
std::string line(const TournamentDef& def, uint64_t ordinal,
                 const std::function<void(v1::IndexEntry&)>& edit = {}) {
  const v1::ScheduledMatch m = Schedule(def).at(ordinal);
  v1::IndexEntry e = testing::two_player(m.match_id(), m.seat_bots(0), m.seat_bots(1), 0, def.hash);
  *e.mutable_match() = m;
  if (edit) edit(e);
  return to_json_line(e) + "\n";
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += n + "\n";
  return out;
}

TEST(ShardPeers, ReadsEachCompleteLineOnceAndWaitsForATornOne) {
  TempDir parent;
  const TournamentDef def = load(parent, "t", 7);
  const std::string own = shard(parent, "shard-0", def, line(def, 0));
  const std::string two = line(def, 1) + line(def, 5);
  const std::string third = line(def, 9);
  const std::string peer = shard(parent, "shard-1", def, two + third.substr(0, 20));
  ShardPeers peers(def, own);
  std::vector<std::string> notes;
  std::vector<v1::IndexEntry> got = peers.poll(notes);
  EXPECT_TRUE(notes.empty()) << joined(notes);
  ASSERT_EQ(got.size(), 2u);  // not its own folder's line, not the torn one
  EXPECT_EQ(got[0].match().ordinal(), 1u);
  EXPECT_EQ(got[1].match().ordinal(), 5u);
  EXPECT_EQ(peers.reading(), 1u);
  EXPECT_TRUE(peers.poll(notes).empty());
  std::ofstream(peer + "/index.jsonl", std::ios::app) << third.substr(20);
  got = peers.poll(notes);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].match().ordinal(), 9u);
  // A shard that starts later is found.
  shard(parent, "shard-2", def, line(def, 2));
  EXPECT_EQ(peers.poll(notes).size(), 1u);
  EXPECT_TRUE(notes.empty()) << joined(notes);
}

TEST(ShardPeers, AFolderOfAnotherFileIsIgnoredSayingWhy) {
  TempDir parent;
  const TournamentDef def = load(parent, "t", 7);
  const TournamentDef other = load(parent, "u", 8);  // another seed: other matches
  const std::string own = shard(parent, "shard-0", def, "");
  const std::string elsewhere = shard(parent, "elsewhere", other, line(other, 1));
  ShardPeers peers(def, own);
  std::vector<std::string> notes;
  // A file that does not match may be one being written: only once it settles is it another.
  EXPECT_TRUE(peers.poll(notes).empty());
  EXPECT_TRUE(notes.empty()) << joined(notes);
  fs::last_write_time(elsewhere + "/tournament.txtpb",
                      fs::file_time_type::clock::now() - std::chrono::minutes(1));
  EXPECT_TRUE(peers.poll(notes).empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("ignores " + fs::canonical(parent.file("elsewhere")).string()),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("another tournament definition"), std::string::npos) << notes[0];
  EXPECT_EQ(peers.reading(), 0u);
  EXPECT_TRUE(peers.poll(notes).empty());
  EXPECT_EQ(notes.size(), 1u) << "said once";
  // A shard's copy read half written, then complete: the folder becomes a peer.
  const std::string late = shard(parent, "late", def, line(def, 1));
  std::ofstream(late + "/tournament.txtpb") << "name: \"pee";
  EXPECT_TRUE(peers.poll(notes).empty());
  shard(parent, "late", def, line(def, 1));
  EXPECT_EQ(peers.poll(notes).size(), 1u);
  EXPECT_EQ(notes.size(), 1u) << joined(notes);
}

// Each hostile index: the lines before the bad one count, the bad one and all after do not.
TEST(ShardPeers, AForgedGarbledOrOverlongLineStopsTheReadingOfThatFolder) {
  struct Case {
    const char* what;
    std::string bad;
    const char* says;
    bool last = false;  // nothing after it
  };
  TempDir parent;
  const TournamentDef def = load(parent, "t", 7);
  const std::string forged = line(def, 3, [](v1::IndexEntry& e) {
    e.mutable_match()->set_match_id("b-a-d9-r1");  // another deal's id under ordinal 3
  });
  const std::string reseeded =
      line(def, 3, [](v1::IndexEntry& e) { e.mutable_match()->set_seed(e.match().seed() + 1); });
  const std::string beyond =
      line(def, 3, [](v1::IndexEntry& e) { e.mutable_match()->set_ordinal(300); });
  const std::string other_hash =
      line(def, 3, [](v1::IndexEntry& e) { e.set_tournament_hash("0123456789abcdef"); });
  const std::string impossible = line(def, 3, [](v1::IndexEntry& e) { e.set_scores(0, 999); });
  const std::vector<Case> cases = {
      {"garbled", "{\"match\": nonsense}\n", ":2: "},
      {"forged id", forged, "is not match 3 of this file's schedule"},
      {"forged seed", reseeded, "is not match 3 of this file's schedule"},
      {"beyond the schedule", beyond, "beyond this file's schedule of 100 matches"},
      {"another definition's line", other_hash, "a match of another tournament definition"},
      {"impossible score", impossible, "more than a match can score"},
      {"overlong", std::string(70000, 'x') + "\n", "a line longer than 64 KiB"},
      {"overlong and unfinished", std::string(70000, 'x'), "a line longer than 64 KiB", true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].what);
    const std::string name = "peer-" + std::to_string(i);
    const std::string own = shard(parent, "own-" + std::to_string(i), def, "");
    ShardPeers peers(def, own);
    // Only this case's peer and its own folder are new; earlier cases' folders are peers too.
    std::vector<std::string> notes;
    peers.poll(notes);
    notes.clear();
    shard(parent, name, def, line(def, 1) + cases[i].bad + (cases[i].last ? "" : line(def, 5)));
    const std::vector<v1::IndexEntry> got = peers.poll(notes);
    ASSERT_EQ(got.size(), 1u) << joined(notes);
    EXPECT_EQ(got[0].match().ordinal(), 1u);
    ASSERT_EQ(notes.size(), 1u) << joined(notes);
    EXPECT_NE(notes[0].find("stops reading"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(name + "/index.jsonl:2: "), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(cases[i].says), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("its 1 earlier lines stay counted"), std::string::npos) << notes[0];
    EXPECT_TRUE(peers.poll(notes).empty());
    fs::remove_all(parent.file(name));
  }
}

TEST(ShardPeers, AFifoOrAnIndexCutShorterIsDropped) {
  TempDir parent;
  const TournamentDef def = load(parent, "t", 7);
  const std::string own = shard(parent, "shard-0", def, "");
  const std::string fifo = shard(parent, "fifo", def, "");
  fs::remove(fifo + "/index.jsonl");
  ASSERT_EQ(::mkfifo((fifo + "/index.jsonl").c_str(), 0600), 0);
  const std::string cut = shard(parent, "cut", def, line(def, 1) + line(def, 5));
  ShardPeers peers(def, own);
  std::vector<std::string> notes;
  EXPECT_EQ(peers.poll(notes).size(), 2u);
  ASSERT_EQ(notes.size(), 1u) << joined(notes);
  EXPECT_NE(notes[0].find("index.jsonl is not a regular file"), std::string::npos) << notes[0];
  std::ofstream(cut + "/index.jsonl", std::ios::trunc) << line(def, 1);
  EXPECT_TRUE(peers.poll(notes).empty());
  ASSERT_EQ(notes.size(), 2u) << joined(notes);
  EXPECT_NE(notes[1].find("is shorter than what was read of it"), std::string::npos) << notes[1];
}

}  // namespace
}  // namespace allfives::referee
