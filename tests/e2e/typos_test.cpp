// Typos on the command line and in a tournament file, end to end: every command answers an
// unknown flag with its nearest flag, an unknown command with the nearest command and the
// list, and a tournament file's unknown names with the names meant; all exit 2.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

void expect_refused(const std::vector<std::string>& args, const std::string& words) {
  std::vector<std::string> argv = {kReferee};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << "missing: " << words << "\nin:\n"
                                                     << r.output;
}

TEST(Typos, EveryCommandNamesTheNearestFlag) {
  expect_refused({"match", "--seeed", "3", "a", "b"},
                 "referee match: unknown flag --seeed; did you mean --seed?");
  expect_refused({"tournament", "--reusme", "t.txtpb"},
                 "referee tournament: unknown flag --reusme; did you mean --resume?");
  expect_refused({"verify", "--quit", "x.jsonl"},
                 "referee verify: unknown flag --quit; did you mean --quiet?");
  expect_refused({"demo", "--formt", "3p"},
                 "referee demo: unknown flag --formt; did you mean "
                 "--format?");
  expect_refused({"replay", "--htlm", "x.html", "x.jsonl"},
                 "referee replay: unknown flag --htlm; did you mean --html?");
  expect_refused({"standings", "--ancor", "a=0", "out"},
                 "referee standings: unknown flag --ancor; did you mean --anchor?");
  expect_refused({"serve", "--lisen", "127.0.0.1:0"},
                 "referee serve: unknown flag --lisen; did you mean --listen?");
  expect_refused({"check-bot", "--moev-time-ms", "3", "./bot"},
                 "referee check-bot: unknown flag --moev-time-ms; did you mean --move-time-ms?");
  // The flag's value is not taken for a stray argument; a real stray is named.
  expect_refused({"demo", "--seeed=3"}, "unknown flag --seeed; did you mean --seed?");
  expect_refused({"replay", "--html", "x.html", "a.jsonl", "b.jsonl"},
                 "referee replay: unexpected argument 'b.jsonl'");
}

TEST(Typos, AnUnknownCommandNamesTheNearestAndTheList) {
  expect_refused({"tournamnt", "t.txtpb"},
                 "referee: unknown command 'tournamnt'; did you mean 'tournament'?");
  expect_refused({"chek-bot"}, "did you mean 'check-bot'?");
  expect_refused({},
                 "Commands: demo, match, tournament, standings, verify, replay, review, serve, "
                 "check-bot, ladder, new-bot or tune");
  expect_refused({"ladder", "sumbit"}, "did you mean 'submit'?");
  expect_refused({"--verbose"},
                 "referee: unknown flag --verbose (flags of a command come after "
                 "it)");
}

TEST(Typos, ATournamentFileTypoNamesTheFieldMeant) {
  const std::string dir = temp_dir("typo-file");
  std::ofstream(dir + "/t.txtpb") << "name: \"x\"\nformat: PARTNERSHIPS\n";
  expect_refused({"tournament", dir + "/t.txtpb"},
                 "t.txtpb:2:9: Unknown enumeration value of \"PARTNERSHIPS\" for field "
                 "\"format\". Did you mean FORMAT_PARTNERSHIPS?");
}

}  // namespace
}  // namespace allfives::e2e
