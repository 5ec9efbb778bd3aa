// End-to-end tests of what the referee promises about its output: every write is checked (a
// full disk or a file-size limit stops a tournament cleanly and a resume then finishes it with
// the same results), one referee per output folder, a torn index line is repaired the same way
// by fresh and resumed runs, socket folders of killed referees are removed, and command-line
// mistakes exit 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// A small 2-player tournament between deterministic bots. A low target makes short matches
// (short logs), so the index outgrows a file-size limit before any log does.
std::string write_tournament(const std::string& dir, int matches_per_pairing, int target = 0) {
  const std::string path = dir + "/t.txtpb";
  std::ofstream(path) << "name: \"durable\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                      << "bots { name: \"random\" command: \"" << kRandom
                      << "\" args: \"--seed\" args: \"4\" }\n"
                      << "bots { name: \"first\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                      << "\" }\n"
                      << "matches_per_pairing: " << matches_per_pairing << "\nseed: 5\n"
                      << (target > 0 ? "target_score: " + std::to_string(target) + "\n" : "")
                      << "move_time_ms: 2000\n";
  return path;
}

RunResult tournament(const std::string& file, const std::string& out,
                     std::vector<std::string> extra = {}, const std::string& fsize = "") {
  std::vector<std::string> argv = {kReferee, "tournament", file, "--out", out, "-q"};
  // prlimit sets the soft RLIMIT_FSIZE in bytes (the hard one stays, so the sandbox may still set
  // the bots' own limits): a write past it fails with EFBIG, like a full disk.
  if (!fsize.empty()) argv.insert(argv.begin(), {"/usr/bin/prlimit", "--fsize=" + fsize + ":"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(240));
}

// Every line of the index is complete, and every log it names verifies (the logs of the
// matches the stopped run did not index are unfinished: a resume plays them again).
void expect_index_and_logs_whole(const std::string& out) {
  const std::string index = read_file(out + "/index.jsonl");
  EXPECT_TRUE(index.empty() || index.back() == '\n') << "the index ends with a torn line";
  const RunResult v = run({kReferee, "verify", "-q", "--allow-unfinished", out});
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

// A file-size limit hit by a match's log: the run stops naming the log and the error, the
// incomplete match is not indexed, and a resume without the limit gives the same results as an
// uninterrupted run.
TEST(Durability, ALogThatCannotBeWrittenStopsTheRunAndResumeFinishesIt) {
  const std::string d = temp_dir("log-full");
  const std::string file = write_tournament(d, 4);
  const RunResult whole = tournament(file, d + "/whole", {"-j", "1"});
  ASSERT_EQ(whole.exit_code, 0) << whole.output;

  const std::string out = d + "/out";
  RunResult r = tournament(file, out, {"-j", "2"}, "6000");  // every log is longer than 6 kB
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write " + out + "/matches/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("is not indexed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--resume --out " + out), std::string::npos) << r.output;
  EXPECT_EQ(read_file(out + "/index.jsonl"), "") << "a match with a cut log was indexed";

  r = tournament(file, out, {"--resume", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(normalized_index(out), normalized_index(d + "/whole"));
  EXPECT_EQ(read_file(out + "/standings.csv"), read_file(d + "/whole/standings.csv"));
  expect_index_and_logs_whole(out);
}

// The same when the index is what cannot grow: the index keeps only complete lines (the groups
// committed before; a group is written whole or not at all), and the resume plays the rest.
TEST(Durability, AnIndexThatCannotBeWrittenStopsTheRunAndResumeFinishesIt) {
  const std::string d = temp_dir("index-full");
  const std::string file = write_tournament(d, 16, 5);  // 48 short matches
  const RunResult whole = tournament(file, d + "/whole", {"-j", "1"});
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const std::string whole_index = read_file(d + "/whole/index.jsonl");
  size_t biggest_log = 0;
  for (const auto& e : fs::directory_iterator(d + "/whole/matches"))
    biggest_log = std::max<size_t>(biggest_log, fs::file_size(e.path()));
  // A limit every log fits under but the index outgrows halfway.
  const size_t limit = std::max(biggest_log + 1, whole_index.size() / 2);
  ASSERT_LT(limit, whole_index.size()) << "the logs are too long for this test";

  const std::string out = d + "/out";
  RunResult r = tournament(file, out, {"-j", "2"}, std::to_string(limit));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write " + out + "/index.jsonl: File too large"),
            std::string::npos)
      << r.output;
  const std::string index = read_file(out + "/index.jsonl");
  EXPECT_LT(index.size(), whole_index.size());
  EXPECT_LE(index.size(), limit);
  expect_index_and_logs_whole(out);

  r = tournament(file, out, {"--resume", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(normalized_index(out), normalized_index(d + "/whole"));
  EXPECT_EQ(read_file(out + "/standings.csv"), read_file(d + "/whole/standings.csv"));
}

TEST(Durability, AMatchLogThatCannotBeWrittenFailsTheMatchCommand) {
  const std::string d = temp_dir("match-full");
  const RunResult r = run({"/usr/bin/prlimit", "--fsize=4000:", kReferee, "match", "--seed", "3",
                           "--log", d + "/m.jsonl", kGreedy, kRandom});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write " + d + "/m.jsonl: File too large"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the log is incomplete"), std::string::npos) << r.output;
}

TEST(Durability, WritingResultsToAFullDeviceIsAnError) {
  const std::string d = temp_dir("stdout-full");
  RunResult r = run({kReferee, "match", "--seed", "3", "--log", d + "/m.jsonl", kGreedy, kRandom});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"verify", d + "/m.jsonl"},
        std::vector<std::string>{"replay", "--print", d + "/m.jsonl"}}) {
    std::string line = "exec " + kReferee;
    for (const std::string& a : command) line += " '" + a + "'";
    r = run({"/bin/sh", "-c", line + " > /dev/full"});
    EXPECT_NE(r.exit_code, 0) << command[0] << ": " << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos)
        << command[0] << ": " << r.output;
  }
}

// A long tournament between two raw-protocol bots, in the background.
std::unique_ptr<referee::BotProcess> start_long_tournament(const std::string& dir,
                                                           const std::string& out) {
  const std::string file = dir + "/long.txtpb";
  std::ofstream(file) << "name: \"long\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << ALLFIVES_MISBEHAVING_BOT << "\" }\n"
                      << "bots { name: \"b\" command: \"" << ALLFIVES_MISBEHAVING_BOT << "\" }\n"
                      << "matches_per_pairing: 20000\nseed: 1\n";
  referee::LaunchSpec spec;
  spec.argv = {kReferee, "tournament", file, "--out", out, "-q", "-j", "1"};
  std::string error;
  auto ref = referee::BotProcess::start(spec, &error);
  EXPECT_TRUE(ref) << error;
  return ref;
}

bool wait_for(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

TEST(Durability, ASecondRefereeOnTheSameFolderIsRefusedWithTheHoldersPid) {
  const std::string d = temp_dir("locked");
  const std::string out = d + "/out";
  auto first = start_long_tournament(d, out);
  ASSERT_TRUE(first);
  ASSERT_TRUE(
      wait_for([&] { return !read_file(out + "/index.jsonl").empty(); }, std::chrono::seconds(60)));
  const RunResult second =
      run({kReferee, "tournament", d + "/long.txtpb", "--out", out, "--resume", "-q"});
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_NE(second.output.find(out + " is in use by another referee (process " +
                               std::to_string(first->pid()) + ","),
            std::string::npos)
      << second.output;
  ::kill(first->pid(), SIGINT);
  ASSERT_TRUE(wait_for([&] { return !first->running(); }, std::chrono::seconds(20)));
  first->stop();
  // The lock went with its holder: a resume now starts (and is stopped at once).
  referee::LaunchSpec spec;
  spec.argv = {kReferee, "tournament", d + "/long.txtpb", "--out", out, "--resume", "-q",
               "-j",     "1"};
  auto again = referee::BotProcess::start(spec, nullptr);
  ASSERT_TRUE(again);
  const size_t before = read_file(out + "/index.jsonl").size();
  EXPECT_TRUE(wait_for([&] { return read_file(out + "/index.jsonl").size() > before; },
                       std::chrono::seconds(60)));
  ::kill(again->pid(), SIGINT);
  EXPECT_TRUE(wait_for([&] { return !again->running(); }, std::chrono::seconds(20)));
  again->stop();
}

TEST(Durability, AFreshRunRepairsATornIndexLineLikeAResume) {
  const std::string d = temp_dir("torn-fresh");
  const std::string file = write_tournament(d, 2);
  const RunResult whole = tournament(file, d + "/whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const std::string out = d + "/out";
  fs::create_directories(out);
  std::ofstream(out + "/index.jsonl") << "{\"match\":{\"ordinal\":";  // a kill mid-write
  const RunResult r = tournament(file, out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("repaired " + out + "/index.jsonl"), std::string::npos) << r.output;
  EXPECT_EQ(normalized_index(out), normalized_index(d + "/whole"));
  const RunResult standings = run({kReferee, "standings", out});
  EXPECT_EQ(standings.exit_code, 0) << standings.output;
}

// Stopping idle bots (the LRU limit) changes nothing but the number of processes: a run that
// keeps none gives the same results as one that keeps them all.
TEST(Durability, FewerIdleBotsGiveTheSameResults) {
  const std::string d = temp_dir("idle-bots");
  const std::string file = write_tournament(d, 4);
  RunResult r = tournament(file, d + "/none", {"--idle-bots", "0", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = tournament(file, d + "/all", {"--idle-bots", "100", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(normalized_index(d + "/none"), normalized_index(d + "/all"));
  r = tournament(file, d + "/bad", {"--idle-bots", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// Socket folders of a referee killed with SIGKILL are removed by the next run.
TEST(Durability, SocketFoldersOfAKilledRefereeAreRemovedOnResume) {
  const std::string d = temp_dir("sockets");
  const std::string tmp = d + "/tmp";
  fs::create_directories(tmp);
  const std::string out = d + "/out";
  const std::string file = d + "/long.txtpb";
  std::ofstream(file) << "name: \"long\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << ALLFIVES_MISBEHAVING_BOT << "\" }\n"
                      << "bots { name: \"b\" command: \"" << ALLFIVES_MISBEHAVING_BOT << "\" }\n"
                      << "matches_per_pairing: 20000\nseed: 1\n";
  auto count_folders = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(tmp))
      n += e.path().filename().string().rfind("allfives-", 0) == 0;
    return n;
  };
  auto start = [&](const std::string& jobs) {
    referee::LaunchSpec spec;
    spec.argv = {kReferee, "tournament", file, "--out", out, "-q", "-j", jobs, "--resume"};
    spec.extra_env = {{"TMPDIR", tmp}};
    return referee::BotProcess::start(spec, nullptr);
  };
  auto killed = start("2");
  ASSERT_TRUE(killed);
  ASSERT_TRUE(wait_for([&] { return count_folders() == 2; }, std::chrono::seconds(60)));
  // Once a match is done both workers' bots are up: the kill finds no bot half started.
  ASSERT_TRUE(wait_for([&] { return read_file(out + "/index.jsonl").size() > 0; },
                       std::chrono::seconds(60)));
  // The whole group at once (the referee and its workers, as `kill -9` of a job does): no
  // process of it may clean up, whatever order the kernel tears them down in.
  ::kill(-killed->pid(), SIGKILL);
  killed->stop();
  // Two workers died with their referee: their folders stay behind.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(count_folders(), 2u);
  auto resumed = start("1");
  ASSERT_TRUE(resumed);
  // The resume removed both stale folders and made one of its own.
  EXPECT_TRUE(wait_for([&] { return count_folders() == 1; }, std::chrono::seconds(30)))
      << count_folders();
  EXPECT_TRUE(wait_for([&] { return read_file(out + "/index.jsonl").size() > 0; },
                       std::chrono::seconds(60)));
  ::kill(resumed->pid(), SIGINT);
  EXPECT_TRUE(wait_for([&] { return !resumed->running(); }, std::chrono::seconds(20)));
  resumed->stop();
  EXPECT_EQ(count_folders(), 0u);
}

TEST(RefereeCliErrors, MistakesOnTheCommandLineExit2WithTheReason) {
  struct Case {
    std::vector<std::string> args;
    std::string words;
  };
  const std::vector<Case> cases = {
      {{"match", kGreedy, kRandom, kGreedy, kRandom, kGreedy}, "At Most 4"},
      {{"match", "--seed", "-1", kGreedy, kRandom}, "a seed is a whole number from 0 to"},
      {{"match", "--seed", "18446744073709551616", kGreedy, kRandom}, "18446744073709551615"},
      {{"match", "--match-id", "../escape", kGreedy, kRandom}, "--match-id '../escape'"},
      {{"match", "--match-id", std::string(250, 'a'), kGreedy, kRandom}, "250 characters"},
      {{"demo", "--seed", "-1"}, "a seed is a whole number from 0 to 18446744073709551615"},
      {{"demo", "--seed", "18446744073709551616"}, "(2^64 - 1), not '18446744073709551616'"},
      {{"tournament", "t.txtpb", "-j", "100000"}, "--concurrency must be 1..1024"},
      {{"verify"}, "paths is required"},
      {{"standings"}, "dirs is required"},
      {{"tournament"}, "file is required"},
      {{"nonsense"}, "unknown command 'nonsense'"},
      {{"match", "--no-such-flag", kGreedy, kRandom}, "--no-such-flag"},
      // Seat names are names as a tournament's bot names are.
      {{"match", "a/b=" + kGreedy, kRandom}, "the seat name 'a/b' contains '/'"},
      {{"match", "..=" + kGreedy, kRandom}, "must start with a letter or a digit"},
      {{"match", "x\ny=" + kGreedy, kRandom}, "contains the byte 10"},
      {{"match", std::string(250, 'n') + "=" + kGreedy, kRandom}, "250 characters long"},
      {{"match", "x\ny=human", kRandom}, "contains the byte 10"},
      // Limits and times in their ranges, the same as a tournament file's, never wrapped.
      {{"match", "--memory-mib", "-1", kGreedy, kRandom},
       "--memory-mib must be 32..1048576 MiB (or 0: no limit), got -1"},
      {{"match", "--max-open-files", "1", kGreedy, kRandom}, "--max-open-files must be 32.."},
      {{"match", "--max-processes", "-3", kGreedy, kRandom}, "--max-processes must be 8.."},
      {{"match", "--max-file-size-mib", "99999999", kGreedy, kRandom},
       "--max-file-size-mib must be 1..1048576 MiB"},
      {{"match", "--move-time-ms", "700000", kGreedy, kRandom}, "--move-time-ms must be 1..600000"},
      {{"match", "--time-bank-ms", "-1", kGreedy, kRandom}, "--time-bank-ms 0..86400000"},
      // A program that cannot be run is refused before anything starts.
      {{"match", "/no/such/bot", kRandom}, "seat 0 (/no/such/bot): cannot run '/no/such/bot'"},
      {{"match", kGreedy, "/tmp"}, "seat 1 (/tmp): cannot run '/tmp': it is a directory"},
      {{"match", "127.0.0.1:99999", kRandom}, "must be 1..65535"},
      // An empty value never silently means the default.
      {{"match", "--log", "", kGreedy, kRandom}, "argument 3 is empty"},
      {{"match", "--log=", kGreedy, kRandom}, "argument 2 (--log=) is empty"},
      {{"tournament", "t.txtpb", "-j", ""}, "argument 4 is empty"},
      {{"tournament", "t.txtpb", "--out", ""}, "argument 4 is empty"},
      {{"verify", "-j", "5000", "x.jsonl"}, "--jobs must be 0..1024"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kReferee};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << c.words << ": " << r.output;
    EXPECT_NE(r.output.find(c.words), std::string::npos) << r.output;
  }
  EXPECT_EQ(run({kReferee, "--help"}).exit_code, 0);
  EXPECT_EQ(run({kReferee, "tournament", "--help"}).exit_code, 0);
  const RunResult help = run({kReferee, "match", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("Exit status: 0 the match was played"), std::string::npos)
      << help.output;
}

// The same mistakes in a tournament's flags and file: exit 2 with the range, before anything
// runs. A FIFO given as a bot's program is refused by `referee match` as by the file.
TEST(RefereeCliErrors, TournamentFlagsAndFileValuesOutOfRangeExit2) {
  const std::string d = temp_dir("cli-ranges");
  const std::string file = d + "/t.txtpb";
  struct Case {
    std::string extra;  // appended to the file
    std::vector<std::string> flags;
    std::string words;
  };
  const Case cases[] = {
      {"sprt { elo1: 10 }\n",
       {"--sprt-max-pairs", "-5"},
       "--sprt-max-pairs must be 0..1000000 (0: until the schedule ends), not -5"},
      {"", {"--max-file-size-mib", "-1"}, "--max-file-size-mib must be 1.."},
      {"name: \"../../etc\"\n", {}, "the tournament name '../../etc'"},
      {"name: \"" + std::string(300, 't') + "\"\n", {}, "is 300 characters long; at most 64"},
      {"sprt { elo1: 10 alpha: nan }\n", {}, "sprt alpha must be in (0, 1)"},
      {"bots { name: \"far\" address: \"127.0.0.1:99999\" }\n",
       {},
       "the port of address '127.0.0.1:99999' must be 1..65535"},
      {"bots { name: \"big\" command: \"" + kGreedy + "\" move_time_ms: 4294967295 }\n",
       {},
       "bot 'big': move_time_ms must be 1..600000"},
      {"bots { name: \"tiny\" command: \"" + kGreedy + "\" limits { open_files: 1 } }\n",
       {},
       "bot 'tiny': limits.open_files must be 32..1048576 (or 0: the referee's --max-open-files)"},
  };
  for (const Case& c : cases) {
    std::ofstream(file, std::ios::trunc)
        << (c.extra.rfind("name:", 0) == 0 ? "" : "name: \"ranges\"\n")
        << "format: FORMAT_TWO_PLAYERS\n"
        << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
        << "bots { name: \"random\" command: \"" << kRandom << "\" }\n"
        << c.extra;
    std::vector<std::string> argv = {kReferee, "tournament", file, "--out", d + "/out"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << c.words << ": " << r.output;
    EXPECT_NE(r.output.find(c.words), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(d + "/out")) << c.words;
  }
  ASSERT_EQ(::mkfifo((d + "/fifo").c_str(), 0700), 0);
  const RunResult fifo = run({kReferee, "match", d + "/fifo", kRandom, "--log", d + "/m.jsonl"});
  EXPECT_EQ(fifo.exit_code, 2) << fifo.output;
  EXPECT_NE(fifo.output.find("it is not a regular file"), std::string::npos) << fifo.output;
  EXPECT_FALSE(fs::exists(d + "/m.jsonl"));
}

// A limit the machine itself prevents (the referee's own hard RLIMIT_FSIZE below the bots'
// file-size limit) is named as such, not reported as a missing bubblewrap.
TEST(RefereeCliErrors, ALimitTheMachinePreventsIsNamed) {
  const std::string d = temp_dir("hard-limit");
  const RunResult r = run({"/usr/bin/prlimit", "--fsize=1048576:1048576", kReferee, "match",
                           kGreedy, kRandom, "--log", d + "/m.jsonl"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("this machine's hard limit on file size for the referee and what it "
                          "starts (ulimit -Hf) is 1 MiB"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("install bubblewrap"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace allfives::e2e
