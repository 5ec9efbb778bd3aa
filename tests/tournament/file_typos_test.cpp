// Typos get the name that was meant: the nearest-name rule, and a tournament file's unknown
// field or enum value answered with "Did you mean ...?", the valid names and the position of
// the word itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "allfives/v1/tournament.pb.h"
#include "common/temp_dir.h"
#include "text/did_you_mean.h"
#include "tournament/file_typos.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

TEST(DidYouMean, TheNearestNameWithinAThirdOfTheWord) {
  const std::vector<std::string> flags = {"--seed", "--format", "--move-time-ms", "--log"};
  EXPECT_EQ(nearest_name("--seeed", flags), "--seed");
  EXPECT_EQ(nearest_name("--sede", flags), "--seed");          // two letters swapped: one edit
  EXPECT_EQ(nearest_name("--FORMAT", flags), "--format");      // letter case ignored
  EXPECT_EQ(nearest_name("--moev", flags), "--move-time-ms");  // the start of a long name
  EXPECT_EQ(nearest_name("--colour", flags), std::nullopt);    // nothing near
  const std::vector<std::string> formats = {"FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS",
                                            "FORMAT_FOUR_PLAYERS", "FORMAT_PARTNERSHIPS"};
  EXPECT_EQ(nearest_name("TWO_PLAYERS", formats), "FORMAT_TWO_PLAYERS");  // the shared prefix
  EXPECT_EQ(nearest_name("FORMAT_PARTNERS", formats), "FORMAT_PARTNERSHIPS");
  EXPECT_EQ(nearest_name("PARTNERSHIP", formats), "FORMAT_PARTNERSHIPS");
  EXPECT_EQ(name_list({"a", "b", "c"}), "a, b or c");
  EXPECT_EQ(name_list({"a", "b"}, "and"), "a and b");
}

// Loads `text` as a tournament file (in a folder of this test's own) and returns the error.
std::string error_of(const std::string& text) {
  const allfives::testing::TempDir tmp("allfives-typos");
  const fs::path dir = tmp.path();
  std::ofstream(dir / "t.txtpb") << text;
  TournamentDef t;
  std::string error;
  EXPECT_FALSE(load_tournament((dir / "t.txtpb").string(), t, &error)) << text;
  return error;
}

void expect_has(const std::string& text, const std::string& words) {
  EXPECT_NE(text.find(words), std::string::npos) << "missing: " << words << "\nin: " << text;
}

TEST(TournamentFileTypos, AnUnknownFieldNamesTheFieldMeantAndEveryField) {
  const std::string e = error_of(
      "name: \"x\"\nformat: FORMAT_TWO_PLAYERS\n"
      "bots { name: \"a\" comand: \"./bot\" }\n");
  expect_has(e,
             "t.txtpb:3:18: Message type \"allfives.v1.TournamentBot\" has no field named "
             "\"comand\". Did you mean command? Its fields: name, command, args, address,");
  expect_has(e, "read_only_dirs");
}

TEST(TournamentFileTypos, AnUnknownEnumValueNamesTheValueMeantAtItsOwnLine) {
  const std::string e = error_of(
      "name: \"x\"\nformat: TWO_PLAYERS  # typed from memory\n"
      "bots { name: \"a\" command: \"./bot\" }\n");
  expect_has(e,
             "t.txtpb:2:9: Unknown enumeration value of \"TWO_PLAYERS\" for field \"format\". "
             "Did you mean FORMAT_TWO_PLAYERS? Its values: FORMAT_TWO_PLAYERS, "
             "FORMAT_THREE_PLAYERS, FORMAT_FOUR_PLAYERS or FORMAT_PARTNERSHIPS.");
  EXPECT_EQ(e.find("UNSPECIFIED"), std::string::npos) << e;  // not a value to choose
}

TEST(TournamentFileTypos, NestedMessagesAndWordsFarFromAnyName) {
  std::string e = error_of("format: FORMAT_TWO_PLAYERS\nsprt { elo0: 0 elo1: 5 alfa: 0.05 }\n");
  expect_has(e,
             "t.txtpb:2:24: Message type \"allfives.v1.Sprt\" has no field named \"alfa\". "
             "Did you mean alpha? Its fields: elo0, elo1, alpha, beta, max_pairs or against.");
  e = error_of("format: FORMAT_TWO_PLAYERS\ncolour: 3\n");
  expect_has(e, "has no field named \"colour\". Its fields: name, bots, format,");
  EXPECT_EQ(e.find("Did you mean"), std::string::npos) << e;
}

TEST(TournamentFileTypos, OtherParseErrorsAreLeftAsTheParserSaysThem) {
  const ParseProblem p{2, 10, "Need space between number and identifier."};
  const ParseProblem q = explain_typo(p, "x\nformat: 2P\n", v1::Tournament::descriptor());
  EXPECT_EQ(q.message, p.message);
  EXPECT_EQ(q.line, 2);
  EXPECT_EQ(q.column, 10);
}

}  // namespace
}  // namespace allfives::referee
