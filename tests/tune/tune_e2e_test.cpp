// `referee tune` with real bot programs: it finds peak_bot's hidden optimum, a stopped and
// resumed tune ends where an unstopped one does, and strong_bot's rollout epsilon is moved from
// a bad start to values that its confirming SPRT accepts.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "allfives/v1/tune.pb.h"
#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

extern char** environ;

namespace allfives::e2e {
namespace {

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kPeak = ALLFIVES_PEAK_BOT;
constexpr double kPeakOptimum = 0.3;  // tests/bots/peak_bot.cpp's hidden optimum

std::vector<v1::TuneIteration> iterations(const std::string& out) {
  std::vector<v1::TuneIteration> done;
  std::ifstream in(out + "/tune.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    v1::TuneIteration it;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(line, &it).ok()) << line;
    done.push_back(it);
  }
  return done;
}

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string peak_tune(uint32_t pairs, uint32_t per_iteration, double start) {
  std::ostringstream t;
  t << "name: \"peak\"\nformat: FORMAT_TWO_PLAYERS\ntarget_score: 100\nseed: 11\n"
    << "bot { name: \"peak\" command: \"" << kPeak << "\" }\n"
    << "params { name: \"x\" start: " << start << " min: 0 max: 1 c_end: 0.1 r_end: 0.2 }\n"
    << "pairs: " << pairs << "\npairs_per_iteration: " << per_iteration << "\n";
  return t.str();
}

TEST(Tune, FindsPeakBotsHiddenOptimum) {
  const std::string dir = temp_dir("tune-peak");
  const std::string file = write_file(dir, "peak.txtpb", peak_tune(160, 8, 0.8));
  const RunResult r =
      run({kReferee, "tune", file, "--out", dir + "/out", "-j", "2"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<v1::TuneIteration> done = iterations(dir + "/out");
  ASSERT_EQ(done.size(), 20u);
  EXPECT_EQ(done.back().pairs_done(), 160u);
  const double x = done.back().theta().at("x");
  EXPECT_NEAR(x, kPeakOptimum, 0.15) << r.output;
  // Every iteration played all its matches: 8 mirrored pairs.
  for (const v1::TuneIteration& it : done) EXPECT_EQ(it.wins() + it.losses() + it.draws(), 16u);
  EXPECT_TRUE(contains(r.output, "Values to use: x ")) << r.output;
  EXPECT_TRUE(contains(read_file(dir + "/out/tune.svg"), "<polyline"));
  // The matches are logged and verify like any tournament's.
  const RunResult v = run({kReferee, "verify", dir + "/out/iterations/0"});
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

// Starts argv; its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& output) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

TEST(Tune, AResumedTuneEndsWhereAnUnstoppedOneDoes) {
  const std::string dir = temp_dir("tune-resume");
  const std::string file = write_file(dir, "peak.txtpb", peak_tune(12, 2, 0.6));
  const RunResult whole =
      run({kReferee, "tune", file, "--out", dir + "/whole", "-j", "2"}, std::chrono::seconds(120));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  // Stopped once its second iteration is recorded, then resumed.
  const std::string cut = dir + "/cut";
  const pid_t pid = spawn({kReferee, "tune", file, "--out", cut, "-j", "2"}, dir + "/cut.out");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (iterations(cut).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const size_t before = iterations(cut).size();
  ASSERT_GE(before, 2u);
  if (before < 6) {
    EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(dir + "/cut.out");
  }
  const RunResult again = run({kReferee, "tune", file, "--out", cut, "-j", "2"});
  EXPECT_NE(again.exit_code, 0);  // not without --resume
  EXPECT_TRUE(contains(again.output, "--resume")) << again.output;
  const RunResult resumed =
      run({kReferee, "tune", file, "--out", cut, "-j", "2", "--resume"}, std::chrono::seconds(120));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const std::vector<v1::TuneIteration> a = iterations(dir + "/whole"), b = iterations(cut);
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].result(), b[i].result()) << i;
    EXPECT_DOUBLE_EQ(a[i].theta().at("x"), b[i].theta().at("x")) << i;
  }
  // Another file in the same folder is refused.
  const std::string other = write_file(dir, "other.txtpb", peak_tune(12, 2, 0.5));
  const RunResult mixed = run({kReferee, "tune", other, "--out", cut, "--resume"});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_TRUE(contains(mixed.output, "started with another tune file")) << mixed.output;
}

// A bad start (fully random rollouts, a far too wide search) tuned to values that the chained
// SPRT finds stronger than the start. (Alone, epsilon moves strong_bot by about 20 Elo between
// 0.1 and 1 at 64 worlds a decision, too little for an SPRT of a few hundred pairs; the
// exploration constant, 8 against its default 0.3, costs about 150.)
TEST(Tune, StrongBotsEpsilonIsTunedAndConfirmed) {
  const std::string dir = temp_dir("tune-strong");
  const std::string file = write_file(
      dir, "strong.txtpb",
      "name: \"strong\"\nformat: FORMAT_TWO_PLAYERS\nseed: 3\n"
      "bot { name: \"strong\" command: \"" +
          kStrong +
          "\" args: [\"--simulations\", \"64\"] }\n"
          "params { name: \"epsilon\" start: 1 min: 0 max: 1 c_end: 0.1 r_end: 0.1 }\n"
          "params { name: \"exploration\" start: 8 min: 0 max: 10 c_end: 1 r_end: 0.05 }\n"
          "pairs: 96\npairs_per_iteration: 8\n"
          "confirm { elo0: 0 elo1: 20 max_pairs: 1000 }\n");
  const RunResult r =
      run({kReferee, "tune", file, "--out", dir + "/out", "-j", "2"}, std::chrono::seconds(540));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<v1::TuneIteration> done = iterations(dir + "/out");
  ASSERT_EQ(done.size(), 12u);
  EXPECT_LT(done.back().theta().at("epsilon"), 0.9) << r.output;
  EXPECT_LT(done.back().theta().at("exploration"), 7) << r.output;
  EXPECT_TRUE(contains(r.output, "H1 accepted")) << r.output;
  EXPECT_TRUE(contains(r.output, "strong-tuned is stronger than strong-start")) << r.output;
}

// A long iteration is not silent: with --progress-seconds 1, lines of the matches played so far
// come while it runs (one iteration of 200 pairs to 250, about 5 s), before its own line.
TEST(Tune, ALongIterationShowsItsProgress) {
  const std::string dir = temp_dir("tune-progress");
  std::string text = peak_tune(200, 200, 0.5);
  text.replace(text.find("target_score: 100\n"), 18, "");
  const std::string file = write_file(dir, "peak.txtpb", text);
  const RunResult r =
      run({kReferee, "tune", file, "--out", dir + "/out", "-j", "1", "--progress-seconds", "1"},
          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t progress = r.output.find("tune peak: iteration 1/1, ");
  ASSERT_NE(progress, std::string::npos) << r.output;
  EXPECT_TRUE(contains(r.output.substr(progress), "played so far")) << r.output;
  EXPECT_LT(progress, r.output.find("1/1, 200/200 pairs")) << r.output;
}

// `referee serve` lists a tune folder and draws its page from tune.jsonl; what the folder's
// files say is escaped, never run, and a tune.txtpb the tune command would refuse (a name of
// markup, min == max, which would draw at NaN) is refused with its reason, not drawn.
TEST(Tune, ServeShowsATunesPathAndIterations) {
  const std::string dir = temp_dir("tune-serve");
  const std::string file = write_file(dir, "peak.txtpb", peak_tune(4, 2, 0.6));
  const RunResult r = run({kReferee, "tune", file, "--out", dir + "/tunes/peak", "-j", "2"},
                          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Hand-written folders: a confirming report of markup, then two files the tune refuses.
  const std::string odd = dir + "/tunes/odd";
  std::filesystem::create_directories(odd + "/confirm");
  std::filesystem::copy_file(dir + "/tunes/peak/tune.txtpb", odd + "/tune.txtpb");
  write_file(odd + "/confirm", "sprt.txt", "<script>x</script>\n");
  const std::string param = "params { name: \"p\" start: 1 min: 1 max: 1 c_end: 1 r_end: 1 }\n";
  for (const auto& [folder, text] : {std::pair{"markup", "name: \"<b>m</b>\"\n" + param},
                                     std::pair{"flat", "name: \"flat\"\n" + param}}) {
    std::filesystem::create_directories(dir + "/tunes/" + folder);
    write_file(dir + "/tunes/" + folder, "tune.txtpb",
               "pairs: 4\nbot { name: \"b\" command: \"b\" }\n" + text);
  }
  ServeProcess s = start_serve(kReferee, {dir + "/tunes"});
  ASSERT_GT(s.port, 0);
  const HttpReply list = http_get(s.port, "/");
  EXPECT_TRUE(contains(list.body, "tune peak")) << list.body;
  EXPECT_TRUE(contains(list.body, "/tune/0/peak")) << list.body;
  EXPECT_FALSE(contains(list.body, "/tune/0/flat")) << list.body;
  const HttpReply page = http_get(s.port, "/tune/0/peak");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_TRUE(contains(page.body, "<polyline")) << page.body;
  EXPECT_TRUE(contains(page.body, "4 of 4 pairs played")) << page.body;
  EXPECT_TRUE(contains(page.body, "/t/0/peak/iterations/1")) << page.body;
  EXPECT_EQ(http_get(s.port, "/t/0/peak/iterations/1").status, 200);
  const HttpReply escaped = http_get(s.port, "/tune/0/odd");
  ASSERT_EQ(escaped.status, 200) << escaped.body;
  EXPECT_FALSE(contains(escaped.body, "<script>x")) << escaped.body;
  EXPECT_TRUE(contains(escaped.body, "&lt;script&gt;x")) << escaped.body;
  const HttpReply markup = http_get(s.port, "/tune/0/markup");
  EXPECT_EQ(markup.status, 404);
  EXPECT_EQ(markup.headers.at("content-type"), "text/plain; charset=utf-8")
      << "never drawn as HTML";
  const HttpReply flat = http_get(s.port, "/tune/0/flat");
  EXPECT_EQ(flat.status, 404);
  EXPECT_TRUE(contains(flat.body, "tune.txtpb:")) << flat.body;
  EXPECT_TRUE(contains(flat.body, "min must be below max")) << flat.body;
  EXPECT_FALSE(contains(flat.body, "NaN")) << flat.body;
  EXPECT_EQ(http_get(s.port, "/tune/0/nothing").status, 404);
}

// With opponents each iteration is a gauntlet of theta+ and theta- against them, and R is half
// of theta+'s (wins - losses) minus theta-'s, recounted here from the iteration's index.
TEST(Tune, AgainstOpponentsRIsTheDifferenceOfTheirResults) {
  const std::string dir = temp_dir("tune-opponents");
  const std::string file =
      write_file(dir, "opp.txtpb",
                 "name: \"opp\"\nformat: FORMAT_TWO_PLAYERS\ntarget_score: 100\nseed: 2\n"
                 "bot { name: \"peak\" command: \"" +
                     kPeak +
                     "\" }\n"
                     "opponents { name: \"greedy\" command: \"" +
                     kGreedy +
                     "\" }\n"
                     "params { name: \"x\" start: 0.7 min: 0 max: 1 c_end: 0.1 r_end: 0.2 }\n"
                     "pairs: 8\npairs_per_iteration: 4\n");
  const RunResult r =
      run({kReferee, "tune", file, "--out", dir + "/out", "-j", "2"}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<v1::TuneIteration> done = iterations(dir + "/out");
  ASSERT_EQ(done.size(), 2u);
  for (const v1::TuneIteration& it : done) {
    int plus = 0, minus = 0, matches = 0;
    std::ifstream in(dir + "/out/" + it.folder() + "/index.jsonl");
    for (std::string line; std::getline(in, line);) {
      v1::IndexEntry e;
      ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &e).ok()) << line;
      ++matches;
      for (int seat = 0; seat < 2; ++seat) {
        const std::string& bot = e.match().seat_bots(seat);
        const int score = e.winner_side() < 0 ? 0 : e.winner_side() == seat ? 1 : -1;
        if (bot == "opp-plus") plus += score;
        if (bot == "opp-minus") minus += score;
      }
    }
    EXPECT_EQ(matches, 16) << it.folder();  // 4 pairs of each against the opponent
    EXPECT_DOUBLE_EQ(it.result(), (plus - minus) / 2.0) << it.folder();
  }
}

}  // namespace
}  // namespace allfives::e2e
