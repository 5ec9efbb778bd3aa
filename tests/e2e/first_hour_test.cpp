// What a newcomer meets in their first hour with the referee, each as they met it: the version;
// --read-only one folder per flag, before or after the bots; programs whose paths hold spaces,
// on the command line and in a tournament file, and the rule named when one is not found; an
// unfinished log replayed as far as it goes; "1 hand", not "1 hands".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

TEST(FirstHour, TheVersionNamesTheProtocolAndTheFormats) {
  const RunResult r = run({kReferee, "--version"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "(bot protocol version 3, match log version 3, ladder "
                       "database schema "))
      << r.output;
}

TEST(FirstHour, ReadOnlyTakesOneFolderBeforeOrAfterTheBots) {
  const std::string d = temp_dir("read-only");
  fs::create_directories(d + "/venv");
  for (const std::vector<std::string>& order :
       {std::vector<std::string>{"--read-only", d + "/venv", kGreedy, kRandom},
        std::vector<std::string>{kGreedy, "--read-only", d + "/venv", kRandom},
        std::vector<std::string>{kGreedy, kRandom, "--read-only", d + "/venv"}}) {
    std::vector<std::string> argv = {kReferee, "match", "--seed", "7", "--log", d + "/m.jsonl"};
    argv.insert(argv.end(), order.begin(), order.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Winner")) << r.output;
  }
}

// check-bot reads its flags before the bot's command; one written after it is named with the
// whole command corrected (the bot would have received it and failed to start).
TEST(FirstHour, CheckBotsFlagsAfterTheCommandAreMovedInTheAnswer) {
  const std::string d = temp_dir("check-bot-order");
  const RunResult r = run({kReferee, "check-bot", kGreedy, "--read-only", d, "--decisions", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--read-only comes after the bot's command")) << r.output;
  EXPECT_TRUE(contains(
      r.output, kReferee + " check-bot --read-only " + d + " --decisions 5 " + kGreedy + "\n"))
      << r.output;
  // Quoted, the words are the bot's own.
  EXPECT_NE(run({kReferee, "check-bot", "--decisions", "5", kGreedy + " --decisions 5"}).exit_code,
            2);
}

TEST(FirstHour, ProgramsWhosePathsHoldSpacesRun) {
  const std::string d = temp_dir("spaces");
  fs::create_directories(d + "/my bots/v 2");
  fs::copy_file(kGreedy, d + "/my bots/v 2/first bot");
  const RunResult m = run({kReferee, "match", "--seed", "7", "--log", d + "/m.jsonl",
                           d + "/my bots/v 2/first bot", kRandom});
  EXPECT_EQ(m.exit_code, 0) << m.output;
  EXPECT_TRUE(contains(m.output, "first bot")) << m.output;

  std::ofstream(d + "/my bots/t.txtpb")
      << "name: \"spaces\"\nformat: FORMAT_TWO_PLAYERS\nseed: 3\nmatches_per_pairing: 2\n"
      << "bots { name: \"first\" command: \"v 2/first bot\" }\n"
      << "bots { name: \"random\" command: \"" << kRandom << "\" }\n";
  const RunResult t =
      run({kReferee, "tournament", d + "/my bots/t.txtpb", "--out", d + "/out", "-q"});
  EXPECT_EQ(t.exit_code, 0) << t.output;

  // Not a file: split on spaces, and the message says how to write it.
  const RunResult missing = run({kReferee, "match", d + "/my bots/v 3/first bot", kRandom});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(contains(missing.output,
                       "a command is split on spaces unless it is the path of an "
                       "existing file"))
      << missing.output;
}

TEST(FirstHour, AnUnfinishedLogIsReplayedAsFarAsItGoes) {
  const std::string d = temp_dir("unfinished");
  ASSERT_EQ(
      run({kReferee, "match", "--seed", "7", "--log", d + "/m.jsonl", kGreedy, kRandom}).exit_code,
      0);
  const std::string whole = read_file(d + "/m.jsonl");
  size_t cut = whole.size();
  for (int lines = 0; lines < 12; ++lines) cut = whole.rfind('\n', cut - 1);
  std::ofstream(d + "/cut.jsonl") << whole.substr(0, cut + 1);
  const RunResult r = run({kReferee, "replay", d + "/cut.jsonl", "--print", "--color", "never"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "before the match ended")) << r.output;
  EXPECT_TRUE(contains(r.output, "the match has no end in this log")) << r.output;
  EXPECT_TRUE(contains(r.output, "Hand 1")) << r.output;
  // A log that breaks a rule is still refused.
  std::string bad = whole;
  bad.replace(bad.find("\"seed\""), 6, "\"sead\"");
  std::ofstream(d + "/bad.jsonl") << bad;
  EXPECT_EQ(run({kReferee, "replay", d + "/bad.jsonl", "--print"}).exit_code, 1);
}

TEST(FirstHour, OneHandIsOneHand) {
  const std::string d = temp_dir("one-hand");
  const RunResult r = run({kReferee, "match", "--seed", "7", "--target", "1", "--log",
                           d + "/m.jsonl", kGreedy, kRandom});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, " after 1 hand, ")) << r.output;
  EXPECT_FALSE(contains(r.output, "1 hands")) << r.output;
}

}  // namespace
}  // namespace allfives::e2e
