// Ladder files (ladder/ladder_file.h): the ready ones load; mistakes are refused with the file
// and line; a round's tournament is a gauntlet of its version against its opponents.
#include "ladder/ladder_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string load_error(const std::string& text) {
  TempDir d("ladder-file");
  std::ofstream(d.file("l.txtpb")) << text;
  LadderDef def;
  std::string error;
  EXPECT_FALSE(load_ladder(d.file("l.txtpb"), "python3", def, &error));
  return error.substr(error.find("l.txtpb"));
}

TEST(LadderFile, TheReadyLadderFilesLoad) {
  for (const auto& entry : fs::directory_iterator(ALLFIVES_LADDERS_DIR)) {
    LadderDef def;
    std::string error;
    EXPECT_TRUE(load_ladder(entry.path().string(), "python3", def, &error)) << error;
    EXPECT_EQ(def.proto.history_every(), 10u);
  }
}

TEST(LadderFile, MistakesAreRefusedWithTheFileAndLine) {
  EXPECT_EQ(
      load_error("name: \"c\"\nformat: FORMAT_TWO_PLAYERS\nround_oponents: 3\n").substr(0, 13),
      "l.txtpb:3:1: ");
  EXPECT_NE(load_error("name: \"c\"\nformat: FORMAT_TWO_PLAYERS\nround_oponents: 3\n")
                .find("round_opponents"),
            std::string::npos);
  EXPECT_NE(load_error("name: \"c\"\n").find("format is required"), std::string::npos);
  EXPECT_NE(load_error("name: \"a b\"\nformat: FORMAT_TWO_PLAYERS\n").find("l.txtpb:1: name"),
            std::string::npos);
  EXPECT_NE(load_error("name: \"c\"\nformat: FORMAT_TWO_PLAYERS\nmove_time_ms: 99999999\n")
                .find("move_time_ms must be"),
            std::string::npos);
  EXPECT_NE(load_error("name: \"c\"\nformat: FORMAT_PARTNERSHIPS\nplacement_opponents: 65\n")
                .find("l.txtpb:3: placement_opponents must be 1..64"),
            std::string::npos);
}

TEST(LadderFile, ARoundIsAGauntletOfOneDealPerPairingInEveryRotation) {
  TempDir d("ladder-file");
  std::ofstream(d.file("l.txtpb")) << "name: \"club\"\nformat: FORMAT_FOUR_PLAYERS\n"
                                   << "move_time_ms: 100\nlimits { memory_mib: 300 }\n";
  LadderDef def;
  std::string error;
  ASSERT_TRUE(load_ladder(d.file("l.txtpb"), "python3", def, &error)) << error;
  const v1::Tournament t = round_tournament(
      def.proto, "club-r000007", 99,
      {{"me@2", {"/x/bot"}}, {"a@1", {"/y/bot", "--depth", "3"}}, {"b@1", {"/z"}}, {"c@4", {"/w"}}},
      d.file("out"), 2);
  const std::string text = round_file_text(t, &error);
  TournamentDef round;
  ASSERT_TRUE(load_tournament_text(text, d.file("r.txtpb"), round, &error, {},
                                   LoadOptions{.check_programs = false}))
      << error << "\n"
      << text;
  EXPECT_EQ(round.proto.candidates_size(), 1);
  EXPECT_EQ(round.proto.candidates(0), "me@2");
  EXPECT_EQ(round.proto.matches_per_pairing(), 4u);  // one deal in each of 4 rotations
  EXPECT_EQ(round.proto.seed(), 99u);
  EXPECT_EQ(round.bots[1].command, (std::vector<std::string>{"/y/bot", "--depth", "3"}));
  EXPECT_EQ(round.proto.bots(2).limits().memory_mib(), 300u);
}

}  // namespace
}  // namespace allfives::referee
