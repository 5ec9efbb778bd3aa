// The tune file: each mistake named with its line and the fix; the tournament of an iteration
// and of the confirming SPRT as `referee tournament` will read them.
#include "tune/tune_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/temp_dir.h"
#include "rounds/round_player.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

using allfives::testing::TempDir;

const std::string kBot = ALLFIVES_RANDOM_BOT;

std::string good_text() {
  return "name: \"t\"\n"
         "format: FORMAT_TWO_PLAYERS\n"
         "bot { name: \"b\" command: \"" +
         kBot +
         "\" params { key: \"fixed\" value: 2 } }\n"
         "params { name: \"x\" start: 0.9 min: 0 max: 1 c_end: 0.1 r_end: 0.02 }\n"
         "pairs: 10\n"
         "pairs_per_iteration: 4\n"
         "seed: 5\n";
}

// Loads `text` written to a file of a fresh folder; "" or the error.
std::string load(const std::string& text, TuneDef* out = nullptr) {
  TempDir dir;
  const std::string path = dir.file("t.txtpb");
  std::ofstream(path) << text;
  TuneDef d;
  std::string error;
  if (!load_tune(path, d, &error)) return error.substr(error.find("t.txtpb"));
  if (out) *out = d;
  return "";
}

TEST(TuneFile, AGoodFileLoadsWithItsDefaults) {
  TuneDef d;
  ASSERT_EQ(load(good_text(), &d), "");
  ASSERT_EQ(d.params.size(), 1u);
  EXPECT_EQ(d.params[0].name, "x");
  EXPECT_EQ(d.schedule.pairs, 10u);
  EXPECT_EQ(d.schedule.pairs_per_iteration, 4u);
  EXPECT_DOUBLE_EQ(d.schedule.alpha, 0.602);
  EXPECT_DOUBLE_EQ(d.schedule.gamma, 0.101);
  EXPECT_DOUBLE_EQ(d.schedule.big_a, 1.0);  // a_ratio 0.1 of 10 pairs
  EXPECT_EQ(d.out_dir, "tunes-out/t");
  ASSERT_EQ(d.bots.size(), 1u);
  EXPECT_EQ(d.bots[0].command(), kBot);
}

TEST(TuneFile, MistakesAreNamedWithTheirLine) {
  const std::string base = good_text();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = base;
    t.replace(t.find(from), from.size(), to);
    return load(t);
  };
  EXPECT_EQ(with("min: 0 max: 1", "min: 1 max: 0"), "t.txtpb:4: params 'x': min must be below max");
  EXPECT_EQ(with("start: 0.9", "start: 2"), "t.txtpb:4: params 'x': start must lie in [min, max]");
  EXPECT_NE(with("c_end: 0.1", "c_end: 0").find("c_end and r_end must be > 0"), std::string::npos);
  EXPECT_EQ(with("pairs: 10", "pairs: 0"), "t.txtpb: pairs must be 1..1000000");
  EXPECT_NE(with("FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS").find("t.txtpb:2: format must be"),
            std::string::npos);
  EXPECT_NE(with("name: \"x\"", "name: \"fixed\"").find("also in bot.params"), std::string::npos);
  EXPECT_NE(with("pairs_per_iteration: 4", "pairs_per_iteraton: 4").find("pairs_per_iteration"),
            std::string::npos);  // the typo's likely meaning
  EXPECT_NE(with(kBot, "/no/such/bot").find("t.txtpb: the bots or the match terms"),
            std::string::npos);
}

TEST(TuneFile, AMissingFileIsNamedAsATuneFile) {
  TempDir dir;
  TuneDef d;
  std::string error;
  EXPECT_FALSE(load_tune(dir.file("none.txtpb"), d, &error));
  EXPECT_NE(error.find("none.txtpb"), std::string::npos) << error;
  EXPECT_NE(error.find("(the tune file)"), std::string::npos) << error;
}

TEST(TuneFile, AnIterationIsATournamentOfThePlusAndMinusBots) {
  TuneDef d;
  ASSERT_EQ(load(good_text(), &d), "");
  const v1::Tournament t = iteration_tournament(d, 2, 3, {0.95}, {0.85}, 2);
  ASSERT_EQ(t.bots_size(), 2);
  EXPECT_EQ(t.bots(0).name(), "t-plus");
  EXPECT_EQ(t.bots(1).name(), "t-minus");
  EXPECT_DOUBLE_EQ(t.bots(0).params().at("x"), 0.95);
  EXPECT_DOUBLE_EQ(t.bots(1).params().at("x"), 0.85);
  EXPECT_DOUBLE_EQ(t.bots(1).params().at("fixed"), 2);  // the bot's own values kept
  EXPECT_EQ(t.matches_per_pairing(), 6u);               // 3 mirrored pairs
  EXPECT_NE(t.seed(), iteration_tournament(d, 3, 3, {0.95}, {0.85}, 2).seed());
  EXPECT_EQ(t.seed(), iteration_tournament(d, 2, 3, {0.5}, {0.5}, 2).seed());
  // The tournament loader reads it as it is written to the iteration's file.
  std::string why;
  TempDir dir;
  TournamentDef def;
  ASSERT_TRUE(
      load_tournament_text(tournament_file_text(t, "", &why), dir.file("i.txtpb"), def, &why))
      << why;
  EXPECT_EQ(def.bots[0].params.at("x"), 0.95);
}

TEST(TuneFile, OpponentsMakeAGauntletAndTheConfirmIsAnSprt) {
  const std::string text =
      good_text() + "opponents { name: \"o\" command: \"" + kBot + "\" }\nconfirm { }\n";
  TuneDef d;
  ASSERT_EQ(load(text, &d), "");
  const v1::Tournament t = iteration_tournament(d, 0, 1, {1}, {0.8}, 1);
  ASSERT_EQ(t.bots_size(), 3);
  EXPECT_EQ(t.candidates_size(), 2);
  const v1::Tournament c = confirm_tournament(d, {0.3}, 1);
  ASSERT_EQ(c.bots_size(), 2);
  EXPECT_DOUBLE_EQ(c.bots(0).params().at("x"), 0.3);
  EXPECT_DOUBLE_EQ(c.bots(1).params().at("x"), 0.9);
  EXPECT_DOUBLE_EQ(c.sprt().elo1(), 10);
  EXPECT_EQ(c.sprt().max_pairs(), 2000u);
}

}  // namespace
}  // namespace allfives::referee
