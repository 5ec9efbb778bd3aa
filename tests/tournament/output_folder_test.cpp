// A tournament output folder's names, and the one capped reader of its copy of the definition.
#include "tournament/output_folder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/temp_dir.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

TEST(OutputFolder, PathsAndLogNames) {
  EXPECT_EQ(output_path("out", kIndexFile), "out/index.jsonl");
  EXPECT_EQ(output_path("out/", kDefinitionFile), "out/tournament.txtpb");
  EXPECT_EQ(output_path("/a/b", kMatchesFolder), "/a/b/matches");
  EXPECT_EQ(output_path("/a/b", kLockFile), "/a/b/referee.lock");
  EXPECT_EQ(match_log_name("m00001"), "matches/m00001.jsonl");
}

class TournamentText : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = output_path(dir_, name);
    std::ofstream(path) << text;
    return path;
  }
  allfives::testing::TempDir temp_{"output-folder-test"};
  std::string dir_ = temp_.path();
};

TEST_F(TournamentText, ReadsAFileWhole) {
  const std::string path = write("tournament.txtpb", "name: \"t\"\n");
  std::string text = "left over", why;
  ASSERT_TRUE(read_tournament_text(path, text, &why)) << why;
  EXPECT_EQ(text, "name: \"t\"\n");
}

TEST_F(TournamentText, RefusesAFileOverTheCapAndSaysWhich) {
  const std::string path = write("tournament.txtpb", std::string(kMaxTournamentFileBytes + 1, '#'));
  std::string text, why;
  EXPECT_FALSE(read_tournament_text(path, text, &why));
  EXPECT_NE(why.find(path + ": the file is larger than"), std::string::npos) << why;
}

TEST_F(TournamentText, RefusesAFolderOrAMissingFile) {
  std::string text, why;
  EXPECT_FALSE(read_tournament_text(dir_, text, &why));
  EXPECT_NE(why.find("(the tournament file)"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(read_tournament_text(output_path(dir_, "missing.txtpb"), text, &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace allfives::referee
