// `referee verify` end to end: the real binary on log files, folders and a tournament's output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "replay_test_util.h"

namespace allfives::replay_test {
namespace {

namespace fs = std::filesystem;

const std::string kReferee = ALLFIVES_REFEREE;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A folder with two good logs (one in a subfolder), a bad one and an index.jsonl to skip.
std::string mixed_folder() {
  const std::string dir = e2e::temp_dir("verify-mixed");
  fs::create_directories(dir + "/matches");
  std::ofstream(dir + "/matches/a.jsonl") << real_logs().at("2p");
  std::ofstream(dir + "/matches/b.jsonl") << real_logs().at("partners");
  auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().points() > 0; });
  edit(lines, at, [](v1::LogRecord& r) { r.mutable_play()->set_points(r.play().points() + 5); });
  std::ofstream(dir + "/c.jsonl") << join(lines);
  std::ofstream(dir + "/index.jsonl") << "not a log\n";
  std::ofstream(dir + "/notes.txt") << "not a log either\n";
  return dir;
}

TEST(VerifyCommand, OneLinePerLogAndTheFirstDisagreement) {
  const std::string dir = mixed_folder();
  const e2e::RunResult r = e2e::run({kReferee, "verify", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("OK  " + dir + "/matches/a.jsonl  ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("OK  " + dir + "/matches/b.jsonl  ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" hands, "), std::string::npos) << r.output;
  const auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& rec) { return rec.has_play() && rec.play().points() > 0; });
  EXPECT_NE(r.output.find("FAIL " + dir + "/c.jsonl:" + std::to_string(at + 1) + ": play of "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the log says points"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("index.jsonl"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("notes.txt"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 logs verified: 2 OK, 1 failed"), std::string::npos) << r.output;
}

TEST(VerifyCommand, FilesAndQuiet) {
  const std::string dir = mixed_folder();
  e2e::RunResult r = e2e::run({kReferee, "verify", dir + "/matches/a.jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "OK  "), 1u) << r.output;
  r = e2e::run({kReferee, "verify", "--quiet", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(count(r.output, "OK  "), 0u) << r.output;
  EXPECT_EQ(count(r.output, "FAIL "), 1u) << r.output;
  EXPECT_NE(r.output.find("3 logs verified"), std::string::npos) << r.output;
  r = e2e::run({kReferee, "verify", "-q", dir + "/matches"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(split_lines(r.output).size(), 1u) << r.output;
}

TEST(VerifyCommand, ParallelKeepsTheOrder) {
  const std::string dir = mixed_folder();
  for (int i = 0; i < 6; ++i)
    std::ofstream(dir + "/matches/copy" + std::to_string(i) + ".jsonl") << real_logs().at("4p");
  const e2e::RunResult one = e2e::run({kReferee, "verify", "-j", "1", dir});
  const e2e::RunResult four = e2e::run({kReferee, "verify", "--jobs", "4", dir});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(four.exit_code, 1);
  auto a = split_lines(one.output), b = split_lines(four.output);
  ASSERT_EQ(a.size(), 10u) << one.output;
  ASSERT_EQ(b.size(), 10u) << four.output;
  a.pop_back();  // the summary holds the time taken
  b.pop_back();
  EXPECT_EQ(a, b);
  EXPECT_EQ(e2e::run({kReferee, "verify", "-j", "-1", dir}).exit_code, 2);
}

TEST(VerifyCommand, BadArguments) {
  e2e::RunResult r = e2e::run({kReferee, "verify"});
  EXPECT_EQ(r.exit_code, 106) << r.output;  // CLI11: a required argument is missing
  r = e2e::run({kReferee, "verify", "/no/such/log.jsonl"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/no/such/log.jsonl: no such file or folder"), std::string::npos)
      << r.output;
  const std::string empty = e2e::temp_dir("verify-empty");
  r = e2e::run({kReferee, "verify", empty});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no *.jsonl logs"), std::string::npos) << r.output;
  r = e2e::run({kReferee, "verify", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--quiet"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("index.jsonl"), std::string::npos) << r.output;
}

TEST(VerifyCommand, AnUnfinishedLog) {
  const std::string dir = e2e::temp_dir("verify-unfinished");
  auto lines = split_lines(real_logs().at("2p"));
  lines.resize(40);
  std::ofstream(dir + "/cut.jsonl") << join(lines);
  const e2e::RunResult r = e2e::run({kReferee, "verify", dir + "/cut.jsonl"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir +
                          "/cut.jsonl:40: the log ends at line 40 before the "
                          "match ended"),
            std::string::npos)
      << r.output;
}

// A whole tournament's output folder: every match log verifies, the index is skipped.
TEST(VerifyCommand, ATournamentFolder) {
  const std::string dir = e2e::temp_dir("verify-tournament");
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "name: \"verify\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"4\" }\n"
                      << "matches_per_pairing: 4\nseed: 3\n";
  e2e::RunResult r =
      e2e::run({kReferee, "tournament", file, "--out", dir + "/out"}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir + "/out/index.jsonl"));
  r = e2e::run({kReferee, "verify", dir + "/out"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "OK  " + dir + "/out/matches/"), 4u) << r.output;
  EXPECT_NE(r.output.find("4 logs verified: 4 OK, 0 failed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace allfives::replay_test
