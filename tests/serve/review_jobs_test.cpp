// The background reviews of the served pages (serve/review_jobs.h): one job per log, a bound on
// jobs at once with a refusal in words beyond it, progress up to every decision, and a server
// that stops abandons its reviews without writing them.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "review/review_file.h"
#include "serve/review_jobs.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;
using referee::serve::ReviewJobs;
using referee::serve::ReviewJobStatus;

std::string played_log(const std::string& dir, const std::string& name, int seed) {
  const std::string log = dir + "/" + name + ".jsonl";
  const RunResult m = run({kReferee, "match", "--seed", std::to_string(seed), "--log", log,
                           "--no-sandbox", "greedy=" + kGreedy, "random=" + kRandom});
  EXPECT_EQ(m.exit_code, 0) << m.output;
  return log;
}

ReviewJobStatus wait_done(const ReviewJobs& jobs, const std::string& log) {
  ReviewJobStatus s = jobs.status(log);
  for (const auto until = std::chrono::steady_clock::now() + 60s;
       s.state == "running" && std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(20ms))
    s = jobs.status(log);
  return s;
}

TEST(ReviewJobsTest, OneJobPerLogAndABoundOnJobsAtOnce) {
  const std::string dir = temp_dir("review-jobs");
  const std::string a = played_log(dir, "a", 31), b = played_log(dir, "b", 32);
  ReviewJobs jobs(1);
  EXPECT_EQ(jobs.status(a).state, "none");
  EXPECT_EQ(jobs.start(a, -1).state, "running");
  // The same log again joins the job running; another log waits for a free place.
  EXPECT_EQ(jobs.start(a, -1).state, "running");
  const ReviewJobStatus refused = jobs.start(b, -1);
  EXPECT_EQ(refused.state, "refused");
  EXPECT_NE(refused.error.find("try again"), std::string::npos) << refused.error;
  const ReviewJobStatus done = wait_done(jobs, a);
  ASSERT_EQ(done.state, "done") << done.error;
  EXPECT_GT(done.total, 0);
  EXPECT_EQ(done.done, done.total);
  EXPECT_TRUE(std::filesystem::exists(referee::review_path_for(a)));
  // Room again: the other log is reviewed, its seat 1 only.
  EXPECT_EQ(jobs.start(b, 1).state, "running");
  ASSERT_EQ(wait_done(jobs, b).state, "done");
  referee::ReviewFile review;
  std::string why;
  ASSERT_TRUE(referee::read_review_file(referee::review_path_for(b), review, &why)) << why;
  for (const v1::ReviewDecision& d : review.decisions) EXPECT_EQ(d.seat(), 1u);
}

TEST(ReviewJobsTest, ANotALogFailsInWords) {
  const std::string dir = temp_dir("review-jobs-bad");
  const std::string bad = dir + "/bad.jsonl";
  std::filesystem::create_directories(dir);
  { std::ofstream(bad) << "not a log\n"; }
  ReviewJobs jobs;
  jobs.start(bad, -1);
  const ReviewJobStatus s = wait_done(jobs, bad);
  EXPECT_EQ(s.state, "failed");
  EXPECT_FALSE(s.error.empty());
}

TEST(ReviewJobsTest, StoppingAbandonsTheRunningReviews) {
  const std::string dir = temp_dir("review-jobs-stop");
  const std::string log = played_log(dir, "c", 33);
  const auto started = std::chrono::steady_clock::now();
  {
    ReviewJobs jobs;
    EXPECT_EQ(jobs.start(log, -1).state, "running");
  }  // stops here: the review ends at its next decision, unwritten
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_FALSE(std::filesystem::exists(referee::review_path_for(log)));
}

}  // namespace
}  // namespace allfives::e2e
