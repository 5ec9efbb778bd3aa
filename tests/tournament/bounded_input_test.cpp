// Bounded inputs of the tournament file: every number within a stated range, the schedule's size
// checked before anything is allocated, bot names that are safe parts of file names, and files
// that are not regular files (a FIFO would block) refused at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// A folder with an executable "bot" script; files written there are loaded as tournaments.
struct Folder {
  testing::TempDir tmp{"allfives-bounded"};
  fs::path dir = tmp.path();
  Folder() {
    std::ofstream(dir / "bot.sh") << "#!/bin/sh\nexit 0\n";
    fs::permissions(dir / "bot.sh", fs::perms::owner_all);
  }
  bool load(const std::string& text, TournamentDef& out, std::string& error) {
    std::ofstream(dir / "t.txtpb") << text;
    return load_tournament((dir / "t.txtpb").string(), out, &error);
  }
};

std::string bots(int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += "bots { name: \"b" + std::to_string(i) + "\" command: \"./bot.sh\" }\n";
  return out;
}

std::string error_of(const std::string& text) {
  Folder f;
  TournamentDef t;
  std::string error;
  EXPECT_FALSE(f.load(text, t, error)) << text;
  return error;
}

TEST(TournamentFileBounds, IntegersOutOfRangeAreRefusedWithTheRange) {
  const std::string head = "format: FORMAT_TWO_PLAYERS\n" + bots(2);
  std::string e = error_of(head + "matches_per_pairing: 4000000000\n");
  EXPECT_NE(e.find("t.txtpb:4: matches_per_pairing must be 1..100000 (or 0: one per seat "
                   "rotation), got 4000000000"),
            std::string::npos)
      << e;
  e = error_of(head + "matches_per_pairing: 200000000\n");
  EXPECT_NE(e.find("must be 1..100000"), std::string::npos) << e;
  e = error_of(head + "move_time_ms: 4000000000\n");
  EXPECT_NE(e.find("move_time_ms must be 1..600000"), std::string::npos) << e;
  e = error_of(head + "time_bank_ms: 4000000000\n");
  EXPECT_NE(e.find("time_bank_ms must be 1..86400000"), std::string::npos) << e;
  e = error_of(head + "startup_timeout_ms: 700000\n");
  EXPECT_NE(e.find("startup_timeout_ms must be 1..600000"), std::string::npos) << e;
  e = error_of(head + "concurrency: 100000\n");
  EXPECT_NE(e.find("concurrency must be 1..1024"), std::string::npos) << e;
  e = error_of(head + "target_score: 4000000000\n");
  EXPECT_NE(e.find("target_score must be 1..30000"), std::string::npos) << e;
  // A seed is 0..2^64-1: the parser refuses a negative one.
  e = error_of(head + "seed: -1\n");
  EXPECT_NE(e.find("t.txtpb:4:"), std::string::npos) << e;
  e = error_of(head + "seed: 18446744073709551616\n");
  EXPECT_NE(e.find("t.txtpb:4:"), std::string::npos) << e;
}

TEST(TournamentFileBounds, TheScheduleSizeIsCheckedBeforeAnythingIsAllocated) {
  // 1500 bots: 1 124 250 pairings, twice each.
  const auto started = std::chrono::steady_clock::now();
  std::string e =
      error_of("format: FORMAT_TWO_PLAYERS\n" + bots(1500) + "matches_per_pairing: 2\n");
  EXPECT_NE(e.find("the schedule would have 2248500 matches (1500 bots, matches_per_pairing 2); a "
                   "tournament has at most 1000000"),
            std::string::npos)
      << e;
  e = error_of("format: FORMAT_FOUR_PLAYERS\n" + bots(300) + "matches_per_pairing: 100000\n");
  EXPECT_NE(e.find("the schedule would have"), std::string::npos) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));

  // schedule_size is exactly what make_schedule builds.
  Folder f;
  for (const auto& [format, n, matches] :
       {std::tuple{"FORMAT_TWO_PLAYERS", 5, 4}, std::tuple{"FORMAT_THREE_PLAYERS", 6, 3},
        std::tuple{"FORMAT_FOUR_PLAYERS", 7, 8}, std::tuple{"FORMAT_PARTNERSHIPS", 4, 6}}) {
    TournamentDef t;
    std::string error;
    ASSERT_TRUE(f.load(std::string("format: ") + format + "\n" + bots(n) +
                           "matches_per_pairing: " + std::to_string(matches) + "\n",
                       t, error))
        << error;
    EXPECT_EQ(schedule_size(t), make_schedule(t).size()) << format;
  }
}

TEST(TournamentFileBounds, BotNamesAreSafePartsOfFileNames) {
  const std::string head = "format: FORMAT_TWO_PLAYERS\n" + bots(1);
  auto named = [&](const std::string& name) {
    return error_of(head + "bots { name: \"" + name + "\" command: \"./bot.sh\" }\n");
  };
  std::string e = named("../../etc");
  EXPECT_NE(e.find("t.txtpb:3: bot name '../../etc' contains '/'"), std::string::npos) << e;
  e = named("..");
  EXPECT_NE(e.find("bot name '..' must start with a letter or a digit"), std::string::npos) << e;
  e = named("two\\nlines");
  EXPECT_NE(e.find("bot name contains the byte 10"), std::string::npos) << e;
  e = named(std::string(250, 'x'));
  EXPECT_NE(e.find("bot name is 250 characters long; at most 32"), std::string::npos) << e;
  e = named("a b");
  EXPECT_NE(e.find("contains ' '"), std::string::npos) << e;
  Folder f;
  TournamentDef t;
  std::string error;
  EXPECT_TRUE(f.load(head + "bots { name: \"Greedy-2.0_b+\" command: \"./bot.sh\" }\n", t, error))
      << error;
}

// Found by the tournament-file fuzzer: an address in `command` has no program to start (it
// crashed the reader when programs were not looked up).
TEST(TournamentFileBounds, AnAddressGivenAsACommandIsRefused) {
  const std::string head = "format: FORMAT_TWO_PLAYERS\n" + bots(1);
  for (const bool check_programs : {true, false}) {
    Folder f;
    std::ofstream(f.dir / "t.txtpb")
        << head << "bots { name: \"x\" command: \"unix:../build/sample_bots/heavy_bot\" }\n";
    TournamentDef t;
    std::string e;
    EXPECT_FALSE(load_tournament((f.dir / "t.txtpb").string(), t, &e, {},
                                 LoadOptions{.check_programs = check_programs}));
    EXPECT_NE(e.find("t.txtpb:3: bot 'x': command 'unix:../build/sample_bots/heavy_bot' is an "
                     "address; a bot that is already serving goes in `address`"),
              std::string::npos)
        << e;
  }
}

TEST(TournamentFileBounds, AFifoAFolderOrAHugeFileIsRefusedAtOnce) {
  Folder f;
  const std::string fifo = (f.dir / "fifo.txtpb").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  TournamentDef t;
  std::string error;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(load_tournament(fifo, t, &error));  // would block forever on open()
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_NE(error.find(fifo + ": is a FIFO, not a regular file"), std::string::npos) << error;
  EXPECT_FALSE(load_tournament(f.dir.string(), t, &error));
  EXPECT_NE(error.find("is a folder, not a regular file"), std::string::npos) << error;
  {
    std::ofstream big(f.dir / "big.txtpb");
    const std::string comment = "# " + std::string(1000, 'x') + "\n";
    for (int i = 0; i < 1100; ++i) big << comment;
  }
  EXPECT_FALSE(load_tournament((f.dir / "big.txtpb").string(), t, &error));
  EXPECT_NE(error.find("larger than 1048576 bytes"), std::string::npos) << error;
}

}  // namespace
}  // namespace allfives::referee
