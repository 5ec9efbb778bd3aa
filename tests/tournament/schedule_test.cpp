// The round-robin schedule and the tournament file: fairness, mirrored deals, determinism,
// shards, and clear errors for bad files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/temp_dir.h"
#include "tournament/gauntlet.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"
#include "transport/nonce.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// Writes `text` as a tournament file next to an executable "bot" script, and loads it.
struct FileFixture {
  testing::TempDir tmp{"allfives-tfile"};
  fs::path dir = tmp.path();
  FileFixture() {
    const fs::path bot = dir / "bot.sh";
    std::ofstream(bot) << "#!/bin/sh\nexit 0\n";
    fs::permissions(bot, fs::perms::owner_all);
    std::ofstream(dir / "not_executable.sh") << "x";
  }
  bool load(const std::string& text, TournamentDef& out, std::string& error) {
    const fs::path path = dir / "t.txtpb";
    std::ofstream(path) << text;
    return load_tournament(path.string(), out, &error);
  }
};

std::string bots(int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += "bots { name: \"b" + std::to_string(i) + "\" command: \"./bot.sh\" }\n";
  return out;
}

TournamentDef def_of(const std::string& format, int n_bots, int matches) {
  FileFixture f;
  TournamentDef t;
  std::string error;
  EXPECT_TRUE(f.load("format: " + format + "\n" + bots(n_bots) +
                         "matches_per_pairing: " + std::to_string(matches) + "\nseed: 9\n",
                     t, error))
      << error;
  return t;
}

// Every bot sits in every seat equally often, within each pairing and overall.
void expect_fair_seats(const std::vector<v1::ScheduledMatch>& s) {
  std::map<std::string, std::map<int, int>> seats;  // bot -> seat -> count
  for (const auto& m : s)
    for (int seat = 0; seat < m.seat_bots_size(); ++seat) ++seats[m.seat_bots(seat)][seat];
  for (const auto& [bot, by_seat] : seats) {
    std::set<int> counts;
    for (const auto& [seat, n] : by_seat) counts.insert(n);
    EXPECT_EQ(counts.size(), 1u) << bot << " does not sit in every seat equally often";
    EXPECT_EQ(by_seat.size(), static_cast<size_t>(s[0].seat_bots_size())) << bot;
  }
}

// Each (pairing, deal) is played once per rotation, always with the same seed, and the seats
// hold a different arrangement in every rotation.
void expect_mirrored_deals(const std::vector<v1::ScheduledMatch>& s, int rotations) {
  std::map<std::pair<int, int>, std::vector<const v1::ScheduledMatch*>> groups;
  for (const auto& m : s)
    groups[{static_cast<int>(m.pairing()), static_cast<int>(m.deal())}].push_back(&m);
  for (const auto& [key, ms] : groups) {
    ASSERT_EQ(ms.size(), static_cast<size_t>(rotations));
    std::set<std::vector<std::string>> arrangements;
    for (const auto* m : ms) {
      EXPECT_EQ(m->seed(), ms[0]->seed()) << "rotations of one deal must share its seed";
      arrangements.insert({m->seat_bots().begin(), m->seat_bots().end()});
    }
    EXPECT_EQ(arrangements.size(), static_cast<size_t>(rotations));
  }
}

TEST(Schedule, TwoPlayersEveryPairFairAndMirrored) {
  const TournamentDef t = def_of("FORMAT_TWO_PLAYERS", 4, 6);
  const auto s = make_schedule(t);
  EXPECT_EQ(s.size(), 6u * 6u);  // C(4,2) pairings x 6 matches
  expect_fair_seats(s);
  expect_mirrored_deals(s, 2);
}

TEST(Schedule, ThreeAndFourPlayersUseEveryCombination) {
  const auto s3 = make_schedule(def_of("FORMAT_THREE_PLAYERS", 4, 3));
  EXPECT_EQ(s3.size(), 4u * 3u);  // C(4,3) x 3 rotations
  expect_fair_seats(s3);
  expect_mirrored_deals(s3, 3);
  const auto s4 = make_schedule(def_of("FORMAT_FOUR_PLAYERS", 5, 8));
  EXPECT_EQ(s4.size(), 5u * 8u);  // C(5,4) x 8
  expect_fair_seats(s4);
  expect_mirrored_deals(s4, 4);
}

TEST(Schedule, PartnershipsTeamsAreTwoInstancesAndSwapSides) {
  const auto s = make_schedule(def_of("FORMAT_PARTNERSHIPS", 3, 4));
  EXPECT_EQ(s.size(), 3u * 4u);
  for (const auto& m : s) {
    ASSERT_EQ(m.seat_bots_size(), 4);
    EXPECT_EQ(m.seat_bots(0), m.seat_bots(2));
    EXPECT_EQ(m.seat_bots(1), m.seat_bots(3));
    EXPECT_NE(m.seat_bots(0), m.seat_bots(1));
  }
  expect_fair_seats(s);
  expect_mirrored_deals(s, 2);
}

TEST(Schedule, IsAPureFunctionOfTheFileWithUniqueIds) {
  const auto a = make_schedule(def_of("FORMAT_TWO_PLAYERS", 3, 4));
  const auto b = make_schedule(def_of("FORMAT_TWO_PLAYERS", 3, 4));
  ASSERT_EQ(a.size(), b.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].SerializeAsString(), b[i].SerializeAsString());
    EXPECT_EQ(a[i].ordinal(), i);
    ids.insert(a[i].match_id());
  }
  EXPECT_EQ(ids.size(), a.size());
  // Deal d of every pairing shares a seed; different deals differ.
  std::map<uint32_t, std::set<uint64_t>> seeds;
  for (const auto& m : a) seeds[m.deal()].insert(m.seed());
  for (const auto& [d, set] : seeds) EXPECT_EQ(set.size(), 1u) << "deal " << d;
  EXPECT_NE(*seeds[0].begin(), *seeds[1].begin());
}

// A match is a pure function of its pairing, deal and rotation, so a schedule can be made one
// match at a time; the definition before bots were appended schedules the same matches (id,
// seed, seats) at the ordinals they had then.
TEST(Schedule, EachMatchIsAFunctionOfItsPairingDealAndRotation) {
  for (const char* format : {"FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS", "FORMAT_PARTNERSHIPS"}) {
    SCOPED_TRACE(format);
    const TournamentDef t = def_of(format, 5, 6);
    const auto pairings = pairings_of(t);
    const auto all = make_schedule(t);
    const uint32_t rotations = static_cast<uint32_t>(seat_rotations(t.config.format));
    for (const v1::ScheduledMatch& m : all) {
      EXPECT_EQ(m.ordinal(), (m.deal() * pairings.size() + m.pairing()) * rotations + m.rotation());
      EXPECT_EQ(
          scheduled_match(t, pairings, m.pairing(), m.deal(), m.rotation()).SerializeAsString(),
          m.SerializeAsString());
    }
    ASSERT_FALSE(t.earlier_hashes.empty());
    const std::optional<TournamentDef> fewer = earlier_definition(t, t.earlier_hashes.back());
    ASSERT_TRUE(fewer.has_value());
    EXPECT_EQ(fewer->bots.size(), 4u);
    EXPECT_EQ(fewer->hash, t.earlier_hashes.back());
    std::map<std::string, v1::ScheduledMatch> now;
    for (const v1::ScheduledMatch& m : all) now[m.match_id()] = m;
    for (const v1::ScheduledMatch& m : make_schedule(*fewer)) {
      const auto it = now.find(m.match_id());
      ASSERT_NE(it, now.end()) << m.match_id();
      EXPECT_EQ(it->second.seed(), m.seed());
      EXPECT_EQ(it->second.pairing(), m.pairing()) << "appending bots only appends pairings";
      EXPECT_EQ(
          std::vector<std::string>(it->second.seat_bots().begin(), it->second.seat_bots().end()),
          std::vector<std::string>(m.seat_bots().begin(), m.seat_bots().end()));
    }
    EXPECT_FALSE(earlier_definition(t, "no-such-hash").has_value());
  }
}

// The schedule generated from (file, seed, ordinal) is the list make_schedule builds, match for
// match, in every format, for round robins (unranked pairings) and gauntlets alike.
TEST(Schedule, GeneratedFromItsOrdinalEqualsTheList) {
  for (const char* format : {"FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS", "FORMAT_FOUR_PLAYERS",
                             "FORMAT_PARTNERSHIPS"}) {
    for (int n : {4, 5, 7}) {
      SCOPED_TRACE(std::string(format) + " with " + std::to_string(n) + " bots");
      const TournamentDef t = def_of(format, n, 12);
      const Schedule lazy(t);
      const auto all = make_schedule(t);
      ASSERT_EQ(lazy.size(), all.size());
      EXPECT_EQ(lazy.size(), schedule_size(t));
      for (size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(lazy.at(i).SerializeAsString(), all[i].SerializeAsString()) << "match " << i;
        ASSERT_EQ(lazy.ordinal_of(all[i]), i) << all[i].match_id();
        ASSERT_EQ(lazy.ordinal_of_id(all[i].match_id()), i) << all[i].match_id();
      }
      EXPECT_FALSE(lazy.ordinal_of_id("b0-b0-d0-r0"));
      EXPECT_FALSE(lazy.ordinal_of_id("b0-nobody-d0-r0"));
      EXPECT_FALSE(lazy.ordinal_of_id("b0-b1-d999-r0"));
      EXPECT_FALSE(lazy.ordinal_of_id("b0-b1-d0-r9"));
      EXPECT_FALSE(lazy.ordinal_of_id("-d0-r0"));
    }
  }
  // Names that hold '-' (and one that is a prefix of another) split every way until one fits.
  {
    FileFixture f;
    TournamentDef t;
    std::string error;
    ASSERT_TRUE(
        f.load("format: FORMAT_THREE_PLAYERS\n"
               "bots { name: \"a\" command: \"./bot.sh\" }\n"
               "bots { name: \"a-b\" command: \"./bot.sh\" }\n"
               "bots { name: \"b-c\" command: \"./bot.sh\" }\n"
               "bots { name: \"c\" command: \"./bot.sh\" }\n"
               "matches_per_pairing: 3\nseed: 4\n",
               t, error))
        << error;
    const Schedule lazy(t);
    const auto all = make_schedule(t);
    for (size_t i = 0; i < all.size(); ++i)
      ASSERT_EQ(lazy.ordinal_of_id(all[i].match_id()), i) << all[i].match_id();
  }
  FileFixture f;
  TournamentDef g;
  std::string error;
  ASSERT_TRUE(f.load("format: FORMAT_THREE_PLAYERS\n" + bots(6) +
                         "candidates: \"b1\" candidates: \"b4\"\nmatches_per_pairing: 6\nseed: 3\n",
                     g, error))
      << error;
  const Schedule lazy(g);
  const auto all = make_schedule(g);
  ASSERT_EQ(lazy.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(lazy.at(i).SerializeAsString(), all[i].SerializeAsString()) << "match " << i;
}

// What a bot is told of a match: an id that names neither the bots, the deal nor the rotation,
// different for every match, the same in every run, and a different one under another seed.
TEST(Schedule, BotsAreToldAnOpaqueMatchId) {
  const auto all = make_schedule(def_of("FORMAT_TWO_PLAYERS", 3, 4));
  std::set<std::string> told;
  for (const auto& m : all) {
    const std::string id = bot_match_id(2026, m.match_id());
    EXPECT_EQ(id.size(), 17u) << id;
    EXPECT_EQ(id[0], 'm');
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 1), std::string::npos) << id;
    EXPECT_EQ(id, bot_match_id(2026, m.match_id()));
    EXPECT_NE(id, bot_match_id(2027, m.match_id()));
    told.insert(id);
  }
  EXPECT_EQ(told.size(), all.size());
}

// The keyed hash is SipHash-2-4: the reference test vector (key 00..0f, message 00..0e).
TEST(Schedule, TheOpaqueIdIsSipHash24) {
  std::string message;
  for (char c = 0; c < 15; ++c) message += c;
  EXPECT_EQ(siphash24(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, message),
            0xa129ca6149be45e5ULL);
  EXPECT_EQ(siphash24(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, ""), 0x726fdb47dd0e0e31ULL);
}

TEST(Schedule, ShardsPartitionTheScheduleIntoWholeMirroredPairs) {
  for (const char* format : {"FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS"}) {
    const TournamentDef t = def_of(format, 4, 12);
    const Schedule schedule(t);
    for (int count : {1, 3, 4, 7}) {
      std::multiset<uint64_t> seen;
      for (int i = 0; i < count; ++i) {
        const ShardSlice shard(schedule.size(), schedule.rotations(), i, count);
        std::map<std::string, std::set<uint32_t>> rotations;  // by pairing and deal
        for (uint64_t j = 0; j < shard.size(); ++j) {
          const uint64_t ordinal = shard.ordinal(j);
          ASSERT_LT(ordinal, schedule.size());
          EXPECT_TRUE(shard.holds(ordinal));
          if (j > 0) {
            EXPECT_LT(shard.ordinal(j - 1), ordinal);
          }
          seen.insert(ordinal);
          const v1::ScheduledMatch m = schedule.at(ordinal);
          rotations[std::to_string(m.pairing()) + "/" + std::to_string(m.deal())].insert(
              m.rotation());
        }
        for (const auto& [deal, held] : rotations)
          EXPECT_EQ(held.size(), schedule.rotations()) << format << " shard " << i << " " << deal;
      }
      EXPECT_EQ(seen.size(), schedule.size()) << format << " in " << count;
      for (uint64_t o = 0; o < schedule.size(); ++o) EXPECT_EQ(seen.count(o), 1u) << o;
    }
  }
}

TEST(TournamentFile, DefaultsAndHash) {
  FileFixture f;
  TournamentDef t;
  std::string error;
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(2), t, error)) << error;
  EXPECT_EQ(t.config.target, 250);
  EXPECT_EQ(t.config.max_hands, 200);
  EXPECT_EQ(t.time.move_time.count(), 1000);
  EXPECT_EQ(t.proto.matches_per_pairing(), 2u);
  EXPECT_EQ(t.proto.name(), "t");
  EXPECT_EQ(t.hash.size(), 16u);
  EXPECT_TRUE(fs::path(t.bots[0].command[0]).is_absolute());
  TournamentDef faster;
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(2) + "concurrency: 7\n", faster, error));
  EXPECT_EQ(faster.hash, t.hash) << "concurrency does not change results";
  TournamentDef reseeded;
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(2) + "seed: 3\n", reseeded, error));
  EXPECT_NE(reseeded.hash, t.hash);
}

// A file without `seed` loads without one (the tournament command settles it: settle_seed);
// set_seed then gives it the hashes of a file that names that seed, its smaller tournaments'
// included (what resuming a grown tournament checks). A written `seed: 0` hashes as no seed,
// as it did before seeds had presence, so older output folders keep their hashes.
TEST(TournamentFile, SeedSetLaterHashesAsWritten) {
  FileFixture f;
  std::string error;
  TournamentDef none, zero, written;
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(3), none, error)) << error;
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(3) + "seed: 0\n", zero, error));
  ASSERT_TRUE(f.load("format: FORMAT_TWO_PLAYERS\n" + bots(3) + "seed: 77\n", written, error));
  EXPECT_FALSE(none.proto.has_seed());
  EXPECT_TRUE(zero.proto.has_seed());
  EXPECT_EQ(zero.hash, none.hash);
  EXPECT_NE(written.hash, none.hash);
  ASSERT_EQ(written.earlier_hashes.size(), 1u);
  set_seed(none, 77);
  EXPECT_EQ(none.proto.seed(), 77u);
  EXPECT_EQ(none.hash, written.hash);
  EXPECT_EQ(none.earlier_hashes, written.earlier_hashes);
  EXPECT_EQ(make_schedule(none)[0].seed(), make_schedule(written)[0].seed());
}

// Each bad file gives an error naming the file and the line.
void expect_error(const std::string& text, const std::string& line, const std::string& words) {
  FileFixture f;
  TournamentDef t;
  std::string error;
  EXPECT_FALSE(f.load(text, t, error));
  EXPECT_NE(error.find("t.txtpb:" + line), std::string::npos) << error;
  EXPECT_NE(error.find(words), std::string::npos) << error;
}

TEST(TournamentFile, UnknownKeyNamesTheLine) {
  expect_error("format: FORMAT_TWO_PLAYERS\n" + bots(2) + "speed: 3\n",
               "4:", "no field named \"speed\"");
}

TEST(TournamentFile, MissingProgram) {
  expect_error(
      "format: FORMAT_TWO_PLAYERS\n" + bots(1) +
          "bots {\n  name: \"ghost\"\n  command: \"./nowhere\"\n}\n",
      "4:", "No such file or directory (relative paths start at the tournament file's folder)");
  expect_error("format: FORMAT_TWO_PLAYERS\n" + bots(1) +
                   "bots { name: \"x\" command: \"./not_executable.sh\" }\n",
               "3:", "not executable");
}

// tournament.proto: a program or argument with a '/' is a path from the file's folder, a bare
// name is looked up in PATH, flags and plain words are passed as written.
TEST(TournamentFile, PathsAreReadFromTheFilesFolder) {
  FileFixture f;
  fs::create_directories(f.dir / "sub");
  fs::copy_file(f.dir / "bot.sh", f.dir / "sub" / "inner.sh");
  TournamentDef t;
  std::string error;
  // The referee runs from elsewhere: relative paths must not depend on the current folder.
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  const bool ok = f.load(
      "format: FORMAT_TWO_PLAYERS\n"
      "bots { name: \"a\" command: \"sub/inner.sh ./data/weights.bin --depth=3/4 plain\" "
      "args: \"../models/m.onnx\" args: \"--seed\" args: \"7\" args: \"/abs/file\" }\n"
      "bots { name: \"b\" command: \"sh\" args: \"bot.sh\" args: \"./bot.sh\" }\n",
      t, error);
  fs::current_path(cwd);
  ASSERT_TRUE(ok) << error;
  const fs::path dir = f.dir;
  const std::vector<std::string> a = {(dir / "sub/inner.sh").string(),
                                      (dir / "data/weights.bin").string(),
                                      "--depth=3/4",
                                      "plain",
                                      (dir.parent_path() / "models/m.onnx").string(),
                                      "--seed",
                                      "7",
                                      "/abs/file"};
  EXPECT_EQ(t.bots[0].command, a);
  // A bare program name is found in PATH; a bare argument stays as written (it is not a path
  // by this rule), "./bot.sh" is.
  ASSERT_EQ(t.bots[1].command.size(), 3u);
  EXPECT_TRUE(fs::path(t.bots[1].command[0]).is_absolute()) << t.bots[1].command[0];
  EXPECT_EQ(fs::path(t.bots[1].command[0]).filename(), "sh");
  EXPECT_EQ(t.bots[1].command[1], "bot.sh");
  EXPECT_EQ(t.bots[1].command[2], (dir / "bot.sh").string());
}

TEST(TournamentFile, BareProgramNotInPath) {
  expect_error("format: FORMAT_TWO_PLAYERS\n" + bots(1) +
                   "bots { name: \"x\" command: \"no-such-allfives-bot\" }\n",
               "3:", "not found in PATH");
}

TEST(TournamentFile, DuplicateName) {
  expect_error(
      "format: FORMAT_TWO_PLAYERS\n" + bots(2) + "bots { name: \"b1\" command: \"./bot.sh\" }\n",
      "4:", "duplicate bot name 'b1'");
}

TEST(TournamentFile, BadValues) {
  expect_error("format: FORMAT_TWO_PLAYERS\n" + bots(2) + "matches_per_pairing: 3\n",
               "4:", "multiple of 2");
  expect_error(bots(2), "", "format is required");
  expect_error("format: FORMAT_FOUR_PLAYERS\n" + bots(3), "", "needs at least 4 bots");
  expect_error(
      "format: FORMAT_TWO_PLAYERS\nbots { name: \"a\" command: \"./bot.sh\" address: "
      "\"localhost:1\" }\n" +
          bots(1),
      "2:", "exactly one of command or address");
  expect_error("format: FORMAT_TWO_PLAYERS\nmove_time_ms: -5\n", "2:", "");
}

}  // namespace
}  // namespace allfives::referee
