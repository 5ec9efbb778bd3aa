// End-to-end tests of the sandbox against spying, reading the referee's files, hurting other
// processes and escaping (its limits: sandbox_limits_test.cpp; sample bots and tournaments:
// sandbox_setup_test.cpp). The real referee starts tests/bots/hostile_bot, which tries at its
// first decision what a hostile author would, and reports each attempt on stderr ("GOT ..." or
// "BLOCKED ..."); the match log keeps that output. Each test checks from outside that nothing
// was learned or hurt, and the exact fault where the bot must commit one. Where the protection
// is the sandbox itself, a twin test runs the same bot with --no-sandbox and shows the attack
// then succeeds, so the first test can fail.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "e2e/sandbox_util.h"
#include "process/bot_process.h"
#include "process/process_test_util.h"

namespace allfives::e2e {
namespace {

using namespace sandbox;
namespace fs = std::filesystem;

// --- Spying ---------------------------------------------------------------------------------

TEST(Sandbox, SpyLearnsNeitherTheSeedNorTheReferee) {
  const Match m = play("spy", "--mode spy");
  expect_no_fault(m);
  const std::string& out = m.hostile_output;
  ASSERT_TRUE(contains(out, "GOT processes seen")) << out;  // it did try
  EXPECT_FALSE(contains(out, kSeed)) << out;
  EXPECT_FALSE(contains(out, kSecret)) << out;
  EXPECT_FALSE(contains(out, "referee")) << out;  // no process of the referee is visible
  EXPECT_FALSE(contains(out, m.log_path)) << out;
  // Its /proc shows its own sandbox only: bwrap's init and the bot.
  const auto seen = out.find("GOT processes seen: ");
  EXPECT_LE(std::atoi(out.c_str() + seen + 20), 3) << out;
}

TEST(Sandbox, WithoutTheSandboxTheSpySeesTheSeed) {
  // The same bot unsandboxed reads the referee's command line: the test above can fail.
  const Match m = play("spy-unsandboxed", "--mode spy", {"--no-sandbox"});
  EXPECT_TRUE(contains(m.hostile_output, kSeed)) << m.hostile_output;
  EXPECT_TRUE(contains(m.run.output, "WITHOUT the sandbox")) << m.run.output;
}

// --- The referee's files --------------------------------------------------------------------

TEST(Sandbox, ReadsNeitherTheLogFolderNorTheOutputFolder) {
  const std::string dir = temp_dir("read-files-secrets");
  std::ofstream(dir + "/tournament.txtpb") << "seed: 1\n";
  const std::string logs = temp_dir("read-files") + "/logs";
  const Match m =
      play("read-files", "--mode read-files --targets-file " +
                             targets_file("read-files", {logs, logs + "/match.jsonl", dir,
                                                         dir + "/tournament.txtpb"}));
  expect_no_fault(m);
  const std::string& out = m.hostile_output;
  EXPECT_FALSE(contains(out, "GOT")) << out;
  EXPECT_TRUE(contains(out, "BLOCKED open " + logs + ": No such file or directory")) << out;
  EXPECT_TRUE(contains(out, "BLOCKED open " + dir + "/tournament.txtpb")) << out;
  EXPECT_FALSE(contains(out, kSeed)) << out;
}

TEST(Sandbox, WithoutTheSandboxTheLogFolderIsReadable) {
  const std::string logs = temp_dir("read-files-unsandboxed") + "/logs";
  const Match m =
      play("read-files-unsandboxed",
           "--mode read-files --targets-file " + targets_file("read-files-unsandboxed", {logs}),
           {"--no-sandbox"});
  EXPECT_TRUE(contains(m.hostile_output, "GOT list " + logs)) << m.hostile_output << m.run.output;
}

// --- The referee's output beside the bot ----------------------------------------------------
// Users keep bots in the folder they run the referee from, so the referee's output lands in a
// folder the bot may read (its program's). The bot lists and reads everything under its
// working folder ("." as its target), three levels down.

// A fresh folder holding a copy of the hostile bot.
std::string folder_with_hostile(const std::string& name) {
  const std::string dir = temp_dir(name);
  fs::copy_file(kHostile, dir + "/hostile_bot");
  return dir;
}

// Everything the started bots printed, from every log in `logs`.
std::string bot_outputs(const std::vector<std::string>& logs) {
  std::string out;
  for (const std::string& path : logs) out += printed_by(read_log(path), -1);
  return out;
}

// The names a "GOT list FOLDER: ..." line shows, "." and ".." left out; nullopt without one.
std::optional<std::set<std::string>> listed(const std::string& out, const std::string& folder) {
  const std::string head = "GOT list " + folder + ": ";
  const auto at = out.find(head);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream line(out.substr(at + head.size(), out.find('\n', at) - at - head.size()));
  std::set<std::string> names;
  for (std::string name; line >> name;)
    if (name != "." && name != "..") names.insert(name);
  return names;
}

// `referee match` run in `dir` with the hostile bot there (./hostile_bot) against greedy.
RunResult match_in(const std::string& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "-C",
                                   dir,
                                   kReferee,
                                   "match",
                                   "--seed",
                                   kSeed,
                                   "--match-id",
                                   "spied",
                                   "--max-hands",
                                   "2",
                                   "--move-time-ms",
                                   "3000",
                                   "--startup-timeout-ms",
                                   "20000"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("hostile=./hostile_bot --mode read-files --targets-file " +
                 targets_file(fs::path(dir).filename().string(), {"."}));
  argv.push_back("greedy=" + kGreedy);
  return run(argv, std::chrono::seconds(120));
}

TEST(Sandbox, ABotBesideTheLogCannotReadTheRunningMatch) {
  // The default logs/ folder next to the bot, and a --log file right beside it.
  for (const bool default_log : {true, false}) {
    SCOPED_TRACE(default_log ? "logs/" : "--log spied.jsonl");
    const std::string dir = folder_with_hostile(default_log ? "beside-logs" : "beside-log-file");
    const std::string log = dir + (default_log ? "/logs/spied.jsonl" : "/spied.jsonl");
    const RunResult r =
        match_in(dir, default_log ? std::vector<std::string>{}
                                  : std::vector<std::string>{"--log", "spied.jsonl"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto& end = only(read_log(log), v1::LogRecord::kMatchEnd).match_end();
    EXPECT_EQ(end.fault_seat(), -1) << r.output;
    EXPECT_EQ(end.hands_played(), 2u);
    const std::string out = bot_outputs({log});
    ASSERT_TRUE(listed(out, ".").has_value()) << out;  // it did look
    // It learned nothing of the match: not the seed, no line of the log.
    EXPECT_FALSE(contains(out, kSeed)) << out;
    EXPECT_FALSE(contains(out, "match_id")) << out;
    EXPECT_FALSE(contains(out, "GOT read ./" + fs::relative(log, dir).string())) << out;
    if (default_log) {
      EXPECT_EQ(listed(out, "./logs"), std::set<std::string>{}) << out;  // not even the name
      EXPECT_EQ(listed(out, "logs"), std::set<std::string>{}) << out;
    } else {
      EXPECT_TRUE(contains(out, "BLOCKED open ./spied.jsonl")) << out;
    }
  }
}

// --hide keeps a user's file and folder from the bot though they lie in its own folder; the
// same files unhidden are read (the bot would have learned them).
TEST(Sandbox, HiddenPathsBesideTheBotCannotBeRead) {
  constexpr const char* kSecret = "seeds-of-the-next-event-41d7";
  for (const bool hide : {true, false}) {
    SCOPED_TRACE(hide ? "--hide" : "not hidden");
    const std::string dir = folder_with_hostile(hide ? "hide-given" : "hide-not-given");
    std::ofstream(dir + "/notes.txt") << kSecret << "\n";
    fs::create_directories(dir + "/private");
    std::ofstream(dir + "/private/plan.txt") << kSecret << "\n";
    const RunResult r = match_in(
        dir, hide ? std::vector<std::string>{"--hide", "notes.txt", "--hide", dir + "/private"}
                  : std::vector<std::string>{});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string out = bot_outputs({dir + "/logs/spied.jsonl"});
    ASSERT_TRUE(listed(out, ".").has_value()) << out;  // it did look
    EXPECT_EQ(contains(out, kSecret), !hide) << out;
    if (hide) {
      EXPECT_TRUE(contains(out, "BLOCKED open ./notes.txt")) << out;
      EXPECT_EQ(listed(out, "./private"), std::set<std::string>{}) << out;
    }
  }
}

TEST(Sandbox, WithoutTheSandboxABotBesideTheLogReadsTheRunningMatch) {
  const std::string dir = folder_with_hostile("beside-logs-unsandboxed");
  const RunResult r = match_in(dir, {"--no-sandbox"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string out = bot_outputs({dir + "/logs/spied.jsonl"});
  EXPECT_TRUE(contains(out, "GOT read ./logs/spied.jsonl")) << out;
  EXPECT_TRUE(contains(out, kSeed)) << out;
}

TEST(Sandbox, ABotBesideTheTournamentOutputCannotReadItNorTheTournamentFile) {
  constexpr const char* kMarker = "only-in-the-tournament-file-5c1e";
  // The default output folder (tournaments-out/NAME) next to the bot, and the bot kept inside
  // the output folder itself (--out .).
  for (const bool out_here : {false, true}) {
    SCOPED_TRACE(out_here ? "--out ." : "default out_dir");
    const std::string dir = folder_with_hostile(out_here ? "in-out" : "beside-out");
    std::ofstream(dir + "/t.txtpb")
        << "# " << kMarker << "\nname: \"spying\"\nformat: FORMAT_TWO_PLAYERS\n"
        << "bots { name: \"hostile\" command: \"./hostile_bot\" args: \"--mode\" args: "
           "\"read-files\" args: \"--targets-file\" args: \""
        << targets_file(fs::path(dir).filename().string(), {"."}) << "\" }\n"
        << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
        << "matches_per_pairing: 2\nseed: 3\nmax_hands: 1\n";
    std::vector<std::string> argv = {"/usr/bin/env", "-C", dir, kReferee, "tournament",
                                     "t.txtpb",      "-j", "1", "-q"};
    if (out_here) argv.insert(argv.end(), {"--out", "."});
    const RunResult r = run(argv, std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string out_dir = out_here ? dir : dir + "/tournaments-out/spying";
    std::vector<std::string> logs;
    for (const auto& entry : fs::directory_iterator(out_dir + "/matches")) {
      logs.push_back(entry.path().string());
      const auto& end = only(read_log(logs.back()), v1::LogRecord::kMatchEnd).match_end();
      EXPECT_EQ(end.fault_seat(), -1) << logs.back();
    }
    EXPECT_EQ(logs.size(), 2u);
    const std::string out = bot_outputs(logs);
    ASSERT_TRUE(listed(out, ".").has_value()) << out;  // it did look
    // Neither the tournament file nor its copy, the index, the lock or a match log.
    EXPECT_FALSE(contains(out, kMarker)) << out;
    EXPECT_FALSE(contains(out, "matches_per_pairing")) << out;
    EXPECT_FALSE(contains(out, "match_id")) << out;
    EXPECT_FALSE(contains(out, "hostile-greedy")) << out;
    EXPECT_FALSE(contains(out, "greedy-hostile")) << out;
    if (out_here) {
      EXPECT_EQ(listed(out, "./matches"), std::set<std::string>{}) << out;
    } else {
      EXPECT_EQ(listed(out, "./tournaments-out"), std::set<std::string>{}) << out;
    }
  }
}

// A tune keeps its folder from the tuned bot as a tournament keeps its own: a bot beside the
// default output folder (tunes-out/NAME), or inside it (--out .), reads neither the tune file,
// nor its copy with the drawn seed, nor the iterations' results.
TEST(Sandbox, ABotBesideATunesOutputCannotReadItNorTheTuneFile) {
  constexpr const char* kMarker = "only-in-the-tune-file-9d2a";
  for (const bool out_here : {false, true}) {
    SCOPED_TRACE(out_here ? "--out ." : "default out_dir");
    const std::string dir = folder_with_hostile(out_here ? "tune-in-out" : "tune-beside-out");
    std::ofstream(dir + "/t.txtpb")
        << "# " << kMarker << "\nname: \"spying\"\nformat: FORMAT_TWO_PLAYERS\n"
        << "bot { name: \"hostile\" command: \"./hostile_bot\" args: \"--mode\" args: "
           "\"read-files\" args: \"--targets-file\" args: \""
        << targets_file(fs::path(dir).filename().string(), {dir}) << "\" }\n"
        << "params { name: \"x\" start: 0.5 min: 0 max: 1 c_end: 0.1 r_end: 0.2 }\n"
        << "pairs: 2\npairs_per_iteration: 1\nmax_hands: 1\nconcurrency: 1\n";
    std::vector<std::string> argv = {"/usr/bin/env", "-C", dir, kReferee, "tune", "t.txtpb", "-q"};
    if (out_here) argv.insert(argv.end(), {"--out", "."});
    const RunResult r = run(argv, std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string out_dir = out_here ? dir : dir + "/tunes-out/spying";
    std::vector<std::string> logs;
    for (const auto& entry : fs::recursive_directory_iterator(out_dir + "/iterations"))
      if (entry.path().parent_path().filename() == "matches") logs.push_back(entry.path());
    EXPECT_EQ(logs.size(), 4u) << "two iterations of one mirrored pair";
    const std::string out = bot_outputs(logs);
    ASSERT_TRUE(listed(out, dir).has_value()) << out;  // it did look
    // Neither the tune file, its copy (the seed), tune.jsonl, an iteration's file nor a log.
    EXPECT_FALSE(contains(out, kMarker)) << out;
    EXPECT_FALSE(contains(out, "pairs_per_iteration")) << out;
    EXPECT_FALSE(contains(out, "pairs_done")) << out;
    EXPECT_FALSE(contains(out, "spying-plus")) << out;
    EXPECT_FALSE(contains(out, "match_id")) << out;
  }
}

// Shards of one tournament share a results folder (docs/CLUSTER.md), where the neighbouring
// shard logs the mirror of a bot's match (the same deals, seats swapped) while it is played: a
// bot of one shard reads none of the other shards' folders.
RunResult play_shard(const std::string& dir, int shard, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "-C",
                                   dir,
                                   kReferee,
                                   "tournament",
                                   "t.txtpb",
                                   "-j",
                                   "1",
                                   "-q",
                                   "--shard",
                                   std::to_string(shard) + "/2",
                                   "--out",
                                   "results/shard-" + std::to_string(shard)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(120));
}

std::string shard_spy_output(const std::string& name, const std::vector<std::string>& extra) {
  const std::string dir = folder_with_hostile(name);
  std::ofstream(dir + "/t.txtpb")
      << "name: \"shards\"\nformat: FORMAT_TWO_PLAYERS\n"
      << "bots { name: \"hostile\" command: \"./hostile_bot\" args: \"--mode\" args: "
         "\"read-files\" args: \"--targets-file\" args: \""
      << targets_file(name, {"results"}) << "\" }\n"
      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
      << "matches_per_pairing: 4\nseed: 3\nmax_hands: 1\n";
  const RunResult first = play_shard(dir, 1, extra);
  EXPECT_EQ(first.exit_code, 0) << first.output;
  const RunResult second = play_shard(dir, 0, extra);
  EXPECT_EQ(second.exit_code, 0) << second.output;
  std::vector<std::string> logs;
  for (const auto& entry : fs::directory_iterator(dir + "/results/shard-0/matches"))
    logs.push_back(entry.path().string());
  EXPECT_EQ(logs.size(), 2u);
  return bot_outputs(logs);
}

TEST(Sandbox, ABotOfOneShardReadsNoneOfTheOtherShards) {
  const std::string out = shard_spy_output("shard-spy", {});
  ASSERT_TRUE(listed(out, "results").has_value()) << out;  // it did look
  EXPECT_EQ(listed(out, "results"), std::set<std::string>{}) << out;
  EXPECT_FALSE(contains(out, "match_id")) << out;
  EXPECT_FALSE(contains(out, "shard-1")) << out;
}

TEST(Sandbox, WithoutTheSandboxABotOfOneShardReadsTheOtherShards) {
  const std::string out = shard_spy_output("shard-spy-unsandboxed", {"--no-sandbox"});
  EXPECT_TRUE(contains(out, "shard-1")) << out;
  EXPECT_TRUE(contains(out, "match_id")) << out;  // the other shard's index and logs
}

TEST(Sandbox, RefusesABotThatCouldReadAFolderOfTheRefereesAlone) {
  const std::string dir = temp_dir("refuse-matches-folder");
  fs::create_directories(dir + "/out/matches");
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "format: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << kGreedy << "\" }\n"
                      << "bots { name: \"b\" command: \"" << kGreedy << "\" }\n";
  const RunResult r = run(
      {kReferee, "tournament", file, "--out", dir + "/out", "--read-only", dir + "/out/matches"},
      std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "referee tournament: cannot start bot 'a' (" + kGreedy +
                                     ") in its sandbox: it may read the folder " + dir +
                                     "/out/matches, which is the tournament's match log "
                                     "folder " +
                                     dir + "/out/matches"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "write the output elsewhere")) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/index.jsonl"));  // nothing was played
}

// --- Other processes ------------------------------------------------------------------------

TEST(Sandbox, KillingOthersHurtsNoOne) {
  const Match m = play("kill-others", "--mode kill-others");
  // The referee finished the match and greedy played it to the end: nobody was killed.
  expect_no_fault(m);
  EXPECT_EQ(match_end(m).hands_played(), 2u);
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED kill others: 0 killed")) << m.hostile_output;
}

// --- Escaping -------------------------------------------------------------------------------

std::string unique_marker(const std::string& what) {
  return "hostile-" + what + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

TEST(Sandbox, ASetsidGrandchildIgnoringSigtermDoesNotSurvive) {
  const std::string marker = unique_marker("escapee");
  const Match m = play("escape", "--mode escape --marker " + marker);
  expect_no_fault(m);
  ASSERT_TRUE(contains(m.hostile_output, "GOT escape"))  // it did escape
      << m.hostile_output << m.run.output;
  const std::vector<int> left = wait_survivors_gone(marker, std::chrono::seconds(5));
  EXPECT_TRUE(left.empty()) << left.size() << " survivors, first pid " << left[0];
  for (int pid : left) kill(pid, SIGKILL);
}

TEST(Sandbox, ASetsidGrandchildDiesWithASigkilledReferee) {
  const std::string marker = unique_marker("escapee-referee-killed");
  const std::string dir = temp_dir("escape-referee-killed");
  // The bot escapes at its first decision, then thinks 500 ms per decision: the match is still
  // running when the referee is killed.
  referee::LaunchSpec spec;
  spec.argv = {kReferee,
               "match",
               "--log",
               dir + "/m.jsonl",
               "--move-time-ms",
               "5000",
               "hostile=" + kHostile + " --mode escape --think-ms 500 --marker " + marker,
               "greedy=" + kGreedy};
  std::string error;
  auto ref = referee::BotProcess::start(spec, &error);
  ASSERT_TRUE(ref) << error;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (processes_with(marker).empty() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(processes_with(marker).empty()) << "the grandchild never started";
  ::kill(ref->pid(), SIGKILL);
  const std::vector<int> left = wait_survivors_gone(marker, std::chrono::seconds(5));
  EXPECT_TRUE(left.empty()) << left.size() << " survivors";
  for (int pid : left) kill(pid, SIGKILL);
  ref->stop();
  // The bots' guardians removed their cgroups too (the header, written at the start, names
  // them).
  const auto log = read_log(dir + "/m.jsonl");
  for (const auto& bot : only(log, v1::LogRecord::kHeader).header().bots()) {
    if (referee::testing::machine_offers_v1_cgroups()) {
      EXPECT_FALSE(bot.confinement().cgroups().empty());
    }
    for (const std::string& folder : bot.confinement().cgroups())
      EXPECT_TRUE(referee::testing::wait_until([&] { return !fs::exists(folder); },
                                               std::chrono::milliseconds(5000)))
          << folder;
  }
}

TEST(Sandbox, WithoutTheSandboxTheSetsidGrandchildSurvives) {
  const std::string marker = unique_marker("escapee-unsandboxed");
  // Without the bot's cgroups too: they would hold it (the next test).
  const Match m = play("escape-unsandboxed", "--mode escape --marker " + marker,
                       {"--no-sandbox", "--no-cgroups"});
  ASSERT_TRUE(contains(m.hostile_output, "GOT escape")) << m.hostile_output;
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the guardian's grace is 1 s
  const std::vector<int> left = processes_with(marker);
  EXPECT_FALSE(left.empty());  // the process group alone does not hold it
  for (int pid : left) kill(pid, SIGKILL);
}

// The bot's cgroups hold every process it started, in or out of the sandbox: when the referee
// stops the bot, what is left in them is killed, a setsid grandchild included.
TEST(Sandbox, WithoutTheSandboxTheBotsCgroupsStillEndTheSetsidGrandchild) {
  if (!referee::testing::machine_offers_v1_cgroups())
    GTEST_SKIP() << "no cgroup v1 hierarchies for root here";
  const std::string marker = unique_marker("escapee-cgroup");
  const Match m = play("escape-cgroup", "--mode escape --marker " + marker, {"--no-sandbox"});
  ASSERT_TRUE(contains(m.hostile_output, "GOT escape")) << m.hostile_output;
  EXPECT_EQ(hostile_confinement(m).memory_limit_by(), v1::LIMIT_MECHANISM_CGROUP_V1);
  // The referee has exited: the escapee was killed before its cgroup was removed.
  const std::vector<int> left = processes_with(marker);
  EXPECT_TRUE(left.empty()) << left.size() << " survivors";
  for (int pid : left) kill(pid, SIGKILL);
  expect_cgroups_removed(hostile_confinement(m));
}

}  // namespace
}  // namespace allfives::e2e
