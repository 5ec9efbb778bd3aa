// `referee review` on a tournament folder, as its user runs it: a review beside every log, the
// summary of one bot with the commands that open its costliest decisions, reviews reused until
// a log changes, and `referee verify` still accepting the folder (and refusing a review file
// the referee never wrote).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"
#include "review/review_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

std::string tournament_folder(const std::string& name) {
  const std::string dir = temp_dir(name);
  std::ofstream(dir + "/t.txtpb")
      << "name: \"r\"\nformat: FORMAT_TWO_PLAYERS\nmatches_per_pairing: 4\nseed: 3\n"
      << "target_score: 100\nmove_time_ms: 2000\n"
      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
      << "bots { name: \"random\" command: \"" << kRandom << "\" }\n";
  const RunResult r =
      run({kReferee, "tournament", dir + "/t.txtpb", "--out", dir + "/out", "-j", "1", "-q"},
          std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

int count_files(const std::string& folder, bool reviews) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(folder))
    n += referee::is_review_path(e.path().string()) == reviews;
  return n;
}

TEST(ReviewCommand, ReviewsEveryLogOfAFolderAndSummarisesOneBot) {
  const std::string out = tournament_folder("review-cli");
  const RunResult r =
      run({kReferee, "review", out, "--bot", "greedy", "-j", "2", "--worlds", "200", "--top", "5"},
          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_files(out + "/matches", true), 4);
  EXPECT_TRUE(contains(r.output, "Reviewed 4 logs")) << r.output;
  EXPECT_TRUE(contains(r.output, "kind of loss")) << r.output;
  EXPECT_TRUE(contains(r.output, "against")) << r.output;
  EXPECT_TRUE(contains(r.output, "costliest decisions:")) << r.output;
  EXPECT_TRUE(contains(r.output, "referee replay " + out + "/matches/")) << r.output;
  EXPECT_FALSE(contains(r.output, "\nrandom\n")) << "only the bot asked for";

  // Reviewed again with the same settings: every review is current and reused.
  const RunResult again =
      run({kReferee, "review", out, "--bot", "greedy", "--worlds", "200", "--top", "5"});
  EXPECT_TRUE(contains(again.output, "(4 reused")) << again.output;

  const RunResult verified = run({kReferee, "verify", out});
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  std::ofstream(out + "/matches/junk.review.jsonl") << "not a review\n";
  const RunResult junk = run({kReferee, "verify", out});
  EXPECT_EQ(junk.exit_code, 1) << junk.output;
  EXPECT_TRUE(contains(junk.output, "junk.review.jsonl:1: not a review record")) << junk.output;
}

TEST(ReviewCommand, SaysWhatIsWrongWithItsInput) {
  const std::string dir = temp_dir("review-cli-bad");
  const RunResult missing = run({kReferee, "review", dir + "/nothing.jsonl"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(contains(missing.output, "no such file")) << missing.output;
  std::ofstream(dir + "/bad.jsonl") << "{\"header\":{}}\n";
  const RunResult bad = run({kReferee, "review", dir + "/bad.jsonl"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_TRUE(contains(bad.output, "FAIL " + dir + "/bad.jsonl:1:")) << bad.output;
  const RunResult both = run({kReferee, "review", dir, "--seat", "0", "--bot", "x"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

}  // namespace
}  // namespace allfives::e2e
