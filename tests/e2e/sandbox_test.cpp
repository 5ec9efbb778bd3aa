// End-to-end tests of the sandbox and the resource limits: the real referee starts
// tests/bots/hostile_bot, which tries at its first decision what a hostile author would, and
// reports each attempt on stderr ("GOT ..." or "BLOCKED ..."); the match log keeps that
// output. Each test checks from outside that nothing was learned or hurt, and the exact fault
// where the bot must commit one. Where the protection is the sandbox itself, a twin test runs
// the same bot with --no-sandbox and shows the attack then succeeds, so the first test can
// fail.
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
#include "process/bot_process.h"
#include "process/process_test_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// A seed and an environment variable only the referee knows: a bot that prints either has
// spied successfully.
constexpr const char* kSeed = "918273645";
constexpr const char* kSecretVar = "ALLFIVES_TEST_SECRET";
constexpr const char* kSecret = "s3cr3t-of-the-referee";

struct Match {
  RunResult run;
  std::vector<v1::LogRecord> log;
  std::string log_path;
  std::string hostile_output;  // seat 0's captured output
};

// `referee match` with the hostile bot (seat 0, `hostile_args`) against greedy; `extra` flags
// go to the referee, `env` (NAME=VALUE) into its environment.
Match play(const std::string& name, const std::string& hostile_args,
           const std::vector<std::string>& extra = {}, const std::vector<std::string>& env = {}) {
  const std::string dir = temp_dir(name);
  Match m;
  m.log_path = dir + "/logs/match.jsonl";
  std::vector<std::string> argv = {"/usr/bin/env",
                                   std::string(kSecretVar) + "=" + kSecret,
                                   kReferee,
                                   "match",
                                   "--seed",
                                   kSeed,
                                   "--log",
                                   m.log_path,
                                   "--move-time-ms",
                                   "3000",
                                   "--startup-timeout-ms",
                                   "20000",
                                   "--max-hands",
                                   "2"};
  argv.insert(argv.begin() + 2, env.begin(), env.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("hostile=" + kHostile + " " + hostile_args);
  argv.push_back("greedy=" + kGreedy);
  m.run = run(argv, std::chrono::seconds(120));
  m.log = read_log(m.log_path);
  m.hostile_output = printed_by(m.log, 0);
  return m;
}

const v1::LogMatchEnd& match_end(const Match& m) {
  return only(m.log, v1::LogRecord::kMatchEnd).match_end();
}

const v1::LogConfinement& hostile_confinement(const Match& m) {
  return only(m.log, v1::LogRecord::kHeader).header().bots(0).confinement();
}

// The mechanism the header must record for a limit: a cgroup where the machine offers v1
// cgroups to root (ours and CI's: these tests then exercise them, not the fallback), else
// whatever the referee found (a v2 cgroup or setrlimit), which must still be one of them.
void expect_limit_by(v1::LimitMechanism recorded, bool cgroups_allowed) {
  if (!cgroups_allowed) {
    EXPECT_EQ(recorded, v1::LIMIT_MECHANISM_RLIMIT);
  } else if (referee::testing::machine_offers_v1_cgroups()) {
    EXPECT_EQ(recorded, v1::LIMIT_MECHANISM_CGROUP_V1);
  } else {
    EXPECT_NE(recorded, v1::LIMIT_MECHANISM_NONE);
  }
}

// A bot's cgroup folders (from the header) must be gone once the referee has exited.
void expect_cgroups_removed(const v1::LogConfinement& c) {
  for (const std::string& folder : c.cgroups()) EXPECT_FALSE(fs::exists(folder)) << folder;
}

// The match ended as a game, not by anyone's fault.
void expect_no_fault(const Match& m) {
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), -1) << m.run.output;
  EXPECT_NE(match_end(m).reason(), v1::MATCH_END_REASON_FAULT) << m.run.output;
}

// Pids of the hostile bot's escaped grandchildren (argv "... --escapee --marker MARKER"; the
// referee's and the bot's own command lines hold the marker too, but not "--escapee").
std::vector<int> processes_with(const std::string& marker) {
  std::vector<int> found;
  DIR* d = opendir("/proc");
  while (dirent* e = d ? readdir(d) : nullptr) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    if (contains(s.str(), marker) && contains(s.str(), "--escapee")) found.push_back(pid);
  }
  if (d) closedir(d);
  return found;
}

std::vector<int> wait_survivors_gone(const std::string& marker, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  std::vector<int> left = processes_with(marker);
  while (!left.empty() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = processes_with(marker);
  }
  return left;
}

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

// --- Resource limits ------------------------------------------------------------------------

TEST(Sandbox, AForkBombIsTheBotsOwnProcessLimitFault) {
  if (getuid() != 0 && !referee::testing::machine_offers_v1_cgroups())
    GTEST_SKIP() << "without a pids cgroup the process limit is per bot only when the referee is "
                    "root";
  // At most 200 forks even without a limit, so the test stays bounded on any machine.
  const Match m = play("fork-bomb", "--mode fork-bomb --max-forks 200", {"--max-processes", "32"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  // Named where the pids cgroup counted the refused forks; under RLIMIT_NPROC nothing counts
  // them and the crash is described by its end.
  if (hostile_confinement(m).processes_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(fault.reason(), "reached its limit of 32 processes and threads"))
        << fault.reason();
  } else {
    EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
  }
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED fork bomb")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).processes_limit_by(), true);
  expect_cgroups_removed(hostile_confinement(m));
}

TEST(Sandbox, EatingMemoryIsAMemoryLimitFault) {
  const Match m = play("eat-memory", "--mode eat-memory --max-mib 2048", {"--memory-mib", "512"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_FALSE(contains(m.hostile_output, "without a limit")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).memory_limit_by(), true);
  if (hostile_confinement(m).memory_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(fault.reason(), "exceeded its memory limit of 512 MiB")) << fault.reason();
    // Killed by the kernel at the cgroup's limit: no word of its own tells, the cgroup's count
    // does.
    EXPECT_TRUE(contains(fault.reason(), "(killed by signal 9 (SIGKILL))")) << fault.reason();
    EXPECT_FALSE(contains(m.hostile_output, "bad_alloc")) << m.hostile_output;
  }
  expect_cgroups_removed(hostile_confinement(m));
}

// Under the address-space limit a failed allocation is counted nowhere the referee can read:
// the crash is described by its end (std::bad_alloc aborts), the bot's words stay its output.
TEST(Sandbox, EatingMemoryUnderTheAddressSpaceLimitIsACrashDescribedByItsEnd) {
  const Match m = play("eat-memory-rlimit", "--mode eat-memory --max-mib 2048",
                       {"--memory-mib", "512", "--no-cgroups"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
  EXPECT_FALSE(contains(fault.reason(), "limit")) << fault.reason();
  EXPECT_TRUE(contains(m.hostile_output, "bad_alloc")) << m.hostile_output;
  EXPECT_FALSE(contains(m.hostile_output, "without a limit")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).memory_limit_by(), false);
  EXPECT_TRUE(hostile_confinement(m).cgroups().empty());
}

// A C++ bot whose choose_play itself runs out of memory: a crash, not a handler error (a
// disconnect), under either mechanism; the memory cgroup's count names the limit.
TEST(Sandbox, AnSdkBotOutOfMemoryInItsHandlerIsACrash) {
  for (const bool cgroups : {true, false}) {
    std::vector<std::string> flags = {"--memory-mib", "512"};
    if (!cgroups) flags.push_back("--no-cgroups");
    const Match m = play(cgroups ? "eat-memory-handler" : "eat-memory-handler-rlimit",
                         "--mode eat-memory-in-handler --max-mib 2048", flags);
    SCOPED_TRACE(cgroups ? "cgroups allowed" : "--no-cgroups");
    EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
    EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
    EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
    const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
    expect_limit_by(hostile_confinement(m).memory_limit_by(), cgroups);
    if (hostile_confinement(m).memory_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
      EXPECT_TRUE(contains(fault.reason(), "exceeded its memory limit of 512 MiB"))
          << fault.reason();
    } else {
      EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
      EXPECT_TRUE(
          contains(m.hostile_output, "the bot ran out of memory (std::bad_alloc) in choose_play"))
          << m.hostile_output;
    }
  }
}

// A bot that writes the words runtimes write at a failed allocation or fork (std::bad_alloc,
// MemoryError, "fork: Resource temporarily unavailable"...) far from any limit, then aborts,
// or plays a tile it does not hold: its fault is described by what the referee saw (the
// signal, the illegal play), naming no limit. A fork bomb that writes the words of a failed
// allocation first is named by its pids cgroup's count, not as the memory limit.
TEST(Sandbox, ABotsOwnWordsNeverNameALimit) {
  const Match crash = play("forge-limit", "--mode forge-limit", {"--memory-mib", "512"});
  EXPECT_EQ(crash.run.exit_code, 0) << crash.run.output;
  ASSERT_TRUE(contains(crash.hostile_output, "GOT forged limit words")) << crash.hostile_output;
  EXPECT_TRUE(contains(crash.hostile_output, "std::bad_alloc")) << crash.hostile_output;
  EXPECT_EQ(match_end(crash).fault_kind(), v1::FAULT_KIND_CRASH);
  const std::string crashed = only(crash.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_TRUE(contains(crashed, "killed by signal 6 (SIGABRT)")) << crashed;
  EXPECT_FALSE(contains(crashed, "limit")) << crashed;

  const Match illegal = play("forge-limit-illegal", "--mode forge-limit-illegal");
  EXPECT_EQ(illegal.run.exit_code, 0) << illegal.run.output;
  ASSERT_TRUE(contains(illegal.hostile_output, "GOT forged limit words")) << illegal.hostile_output;
  EXPECT_EQ(match_end(illegal).fault_kind(), v1::FAULT_KIND_ILLEGAL_PLAY);
  const std::string played = only(illegal.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_FALSE(contains(played, "limit")) << played;

  if (getuid() != 0 && !referee::testing::machine_offers_v1_cgroups()) return;
  const Match bomb = play("forge-limit-fork-bomb", "--mode forge-limit-fork-bomb --max-forks 200",
                          {"--max-processes", "32"});
  EXPECT_EQ(bomb.run.exit_code, 0) << bomb.run.output;
  EXPECT_TRUE(contains(bomb.hostile_output, "BLOCKED fork bomb")) << bomb.hostile_output;
  const std::string bombed = only(bomb.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_FALSE(contains(bombed, "memory limit")) << bombed;
  if (hostile_confinement(bomb).processes_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(bombed, "reached its limit of 32 processes and threads")) << bombed;
  }
  expect_cgroups_removed(hostile_confinement(bomb));
}

// --- Network and sockets --------------------------------------------------------------------

struct Listener {
  int fd = -1;
  ~Listener() {
    if (fd >= 0) close(fd);
  }
  // True if someone connected (a pending connection is there to accept).
  bool was_reached() const {
    const int c = accept4(fd, nullptr, nullptr, SOCK_NONBLOCK);
    if (c >= 0) close(c);
    return c >= 0;
  }
};

Listener tcp_listener(int* port) {
  Listener l;
  l.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(listen(l.fd, 8), 0);
  socklen_t len = sizeof addr;
  getsockname(l.fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return l;
}

Listener unix_listener(const std::string& path) {
  Listener l;
  l.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  EXPECT_EQ(bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  chmod(path.c_str(), 0777);  // only the sandbox, not the permissions, keeps the bot out
  EXPECT_EQ(listen(l.fd, 8), 0);
  return l;
}

TEST(Sandbox, NoNetworkAndNoSocketOutsideItsFolder) {
  int port = 0;
  Listener tcp = tcp_listener(&port);
  const std::string socket_path = temp_dir("connect-socket") + "/outside.sock";
  Listener unix_socket = unix_listener(socket_path);
  const Match m = play(
      "connect", "--mode connect --targets-file " +
                     targets_file("connect", {"127.0.0.1:" + std::to_string(port), socket_path}));
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED connect tcp 127.0.0.1:")) << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED connect unix " + socket_path))
      << m.hostile_output;
  EXPECT_FALSE(tcp.was_reached());
  EXPECT_FALSE(unix_socket.was_reached());
}

// The bot owns its socket's folder: a symbolic link it puts where its socket should be (to
// a socket of the host's; the referee would resolve an absolute link from its own root) makes
// it fail to start, and the referee connects neither to the link's target nor to the socket
// the bot serves on instead. (Before the referee opened the socket with O_NOFOLLOW, it
// followed the link: it reached the listener below and found no gRPC server there.)
TEST(Sandbox, ALinkInPlaceOfItsSocketLeadsTheRefereeNowhere) {
  const std::string socket_path = temp_dir("link-socket") + "/outside.sock";
  Listener outside = unix_listener(socket_path);
  const Match m =
      play("link", "--mode link-socket --targets-file " + targets_file("link", {socket_path}));
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_STARTUP_FAILURE) << m.run.output;
  EXPECT_TRUE(contains(m.run.output,
                       "its socket /run/bot/seat0.sock (inside its sandbox) is not a socket but a "
                       "symbolic link"))
      << m.run.output;
  EXPECT_TRUE(
      contains(m.run.output, "GOT link socket /run/bot/seat0.sock: links to " + socket_path))
      << m.run.output;
  EXPECT_FALSE(outside.was_reached());
}

TEST(Sandbox, WithoutTheSandboxTheNetworkIsOpen) {
  int port = 0;
  Listener tcp = tcp_listener(&port);
  const Match m =
      play("connect-unsandboxed",
           "--mode connect --targets-file " +
               targets_file("connect-unsandboxed", {"127.0.0.1:" + std::to_string(port)}),
           {"--no-sandbox"});
  EXPECT_TRUE(contains(m.hostile_output, "GOT connect tcp")) << m.hostile_output;
  EXPECT_TRUE(tcp.was_reached());
}

// --- Writing --------------------------------------------------------------------------------

// A --marker for write-files unique to this run and test (the folder's parent holds this
// process's id), so no other test or run writes or removes the file it names.
std::string marker_of(const std::string& dir) {
  const fs::path p(dir);
  return p.parent_path().filename().string() + "-" + p.filename().string();
}

TEST(Sandbox, WritesOnlyIntoItsOwnTmp) {
  const std::string dir = temp_dir("write");
  chmod(dir.c_str(), 0777);  // only the sandbox, not the permissions, keeps the bot out
  const std::string marker = marker_of(dir);
  const std::string name = "hostile-was-here-" + marker;
  const Match m = play("write", "--mode write-files --marker " + marker + " --targets-file " +
                                    targets_file("write", {dir, "/"}));
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED write " + dir)) << m.hostile_output;
  // Nor into the sandbox's own root (a tmpfs of no size limit, read-only once it is made).
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED write /" + name + ": Read-only file system"))
      << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "GOT write /tmp/" + name)) << m.hostile_output;
  EXPECT_FALSE(fs::exists(dir + "/" + name));
  EXPECT_FALSE(fs::exists("/tmp/" + name));  // its /tmp was its own
}

TEST(Sandbox, WithoutTheSandboxItWritesOutside) {
  const std::string dir = temp_dir("write-unsandboxed");
  chmod(dir.c_str(), 0777);
  const std::string marker = marker_of(dir);
  const std::string name = "hostile-was-here-" + marker;
  const Match m = play("write-unsandboxed",
                       "--mode write-files --marker " + marker + " --targets-file " +
                           targets_file("write-unsandboxed", {dir}),
                       {"--no-sandbox"});
  EXPECT_TRUE(fs::exists(dir + "/" + name)) << m.hostile_output;
  EXPECT_TRUE(fs::exists("/tmp/" + name)) << m.hostile_output;
  std::error_code ec;
  fs::remove("/tmp/" + name, ec);  // the host's /tmp: the one file this test put there
}

// The files of /etc a program needs are copies of the host's (no mount each), which the bot
// reads whole and can neither change nor add to.
TEST(Sandbox, ItsEtcHoldsReadOnlyCopiesOfTheHostsFiles) {
  const std::string dir = temp_dir("etc-copies");
  const Match read = play("etc-copies", "--mode read-files --targets-file " +
                                            targets_file("etc-copies", {"/etc/passwd"}));
  expect_no_fault(read);
  std::ifstream host("/etc/passwd");
  std::string first;
  std::getline(host, first);
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(contains(read.hostile_output, "GOT read /etc/passwd: " + first))
      << read.hostile_output;
  const std::string marker = marker_of(dir);
  const Match write =
      play("etc-write", "--mode write-files --marker " + marker + " --targets-file " +
                            targets_file("etc-write", {"/etc"}));
  expect_no_fault(write);
  EXPECT_TRUE(contains(write.hostile_output,
                       "BLOCKED write /etc/hostile-was-here-" + marker + ": Read-only file system"))
      << write.hostile_output;
}

// The most bytes the regular files under `folder` held at once while `work` ran (checked
// every 5 ms): what the referee's socket folders, made in its $TMPDIR, put on the host's disk.
// (The referee removes them when it exits, so looking afterwards would see nothing.)
template <typename Work>
uintmax_t peak_bytes_under(const std::string& folder, Work work) {
  std::atomic<bool> done{false};
  std::atomic<uintmax_t> peak{0};
  std::thread watcher([&] {
    while (!done.load()) {
      uintmax_t total = 0;
      std::error_code ec;
      for (fs::recursive_directory_iterator
               it(folder, fs::directory_options::skip_permission_denied, ec),
           end;
           !ec && it != end; it.increment(ec)) {
        std::error_code size_ec;
        if (it->is_regular_file(size_ec)) {
          const uintmax_t size = it->file_size(size_ec);
          if (!size_ec) total += size;
        }
      }
      peak = std::max(peak.load(), total);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  work();
  done = true;
  watcher.join();
  return peak.load();
}

// "... wrote N MiB (...)" in the hostile bot's report: N.
int reported_mib(const std::string& output) {
  const size_t at = output.find(": wrote ");
  return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + 8);
}

// A sandboxed bot's socket folder is a small tmpfs inside its sandbox: writing 64 MiB of files
// there stops at its size with "No space left on device" (the bot goes on playing: a failed
// write is no fault), and the referee's $TMPDIR, where an unsandboxed bot's socket folder
// would be, gets nothing.
TEST(Sandbox, FillingItsSocketFolderPutsNothingOnTheHostsDisk) {
  const std::string tmpdir = temp_dir("fill-tmpdir");
  Match m;
  const uintmax_t peak = peak_bytes_under(tmpdir, [&] {
    m = play("fill", "--mode fill-socket-folder --max-mib 64 --think-ms 20", {},
             {"TMPDIR=" + tmpdir});
  });
  expect_no_fault(m);
  EXPECT_EQ(match_end(m).hands_played(), 2u) << m.run.output;
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED fill socket folder " +
                                             std::string(referee::kSandboxSocketDir) + ": wrote "))
      << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "No space left on device")) << m.hostile_output;
  const int mib = reported_mib(m.hostile_output);
  EXPECT_GE(mib, 0) << m.hostile_output;
  EXPECT_LE(mib, static_cast<int>(referee::kSocketDirSizeMib)) << m.hostile_output;
  // Nothing of what it wrote reached the host (1 MiB: far below one of its 2 MiB files).
  EXPECT_LT(peak, uintmax_t{1} << 20) << m.hostile_output;
  const v1::LogConfinement& c = hostile_confinement(m);
  EXPECT_EQ(c.writable_dir(), referee::kSandboxSocketDir);
  EXPECT_EQ(c.writable_dir_tmpfs_mib(), referee::kSocketDirSizeMib);
}

// The twin: unsandboxed, the socket folder is a real folder in the referee's $TMPDIR, and all
// the bot writes there lands on the host's disk (so the test above can fail).
TEST(Sandbox, WithoutTheSandboxFillingItsSocketFolderFillsTheHostsTmpdir) {
  const std::string tmpdir = temp_dir("fill-tmpdir-unsandboxed");
  Match m;
  const uintmax_t peak = peak_bytes_under(tmpdir, [&] {
    m = play("fill-unsandboxed", "--mode fill-socket-folder --max-mib 16 --think-ms 20",
             {"--no-sandbox"}, {"TMPDIR=" + tmpdir});
  });
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "GOT fill socket folder " + tmpdir + "/"))
      << m.hostile_output;
  EXPECT_EQ(reported_mib(m.hostile_output), 16) << m.hostile_output;
  EXPECT_GE(peak, uintmax_t{16} << 20) << m.hostile_output;
  const v1::LogConfinement& c = hostile_confinement(m);
  EXPECT_TRUE(c.writable_dir().starts_with(tmpdir + "/")) << c.writable_dir();
  EXPECT_EQ(c.writable_dir_tmpfs_mib(), 0u);
}

// --- The sample bots, sandboxed, and the log header ------------------------------------------

TEST(Sandbox, ThePythonAndStrongBotsPlaySandboxedAndTheHeaderSaysHow) {
  if (kGreedyPy.empty()) GTEST_SKIP() << "the Python SDK is not built";
  const std::string dir = temp_dir("sample-bots");
  const RunResult r = run({kReferee, "match", "--seed", "5", "--log", dir + "/m.jsonl",
                           "--max-hands", "3", "--move-time-ms", "3000", "--startup-timeout-ms",
                           "20000", "greedy_py=" + kGreedyPy, "strong=" + kStrong},
                          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "WITHOUT the sandbox")) << r.output;
  const auto log = read_log(dir + "/m.jsonl");
  const auto& end = only(log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.fault_seat(), -1) << r.output;
  EXPECT_EQ(end.hands_played(), 3u);
  const auto& header = only(log, v1::LogRecord::kHeader).header();
  ASSERT_EQ(header.bots_size(), 2);
  for (const auto& bot : header.bots()) {
    const auto& c = bot.confinement();
    EXPECT_TRUE(c.sandboxed()) << bot.display_name();
    EXPECT_TRUE(contains(c.sandbox(), "bubblewrap")) << c.sandbox();
    EXPECT_EQ(c.memory_mib(), 1024u);
    EXPECT_EQ(c.open_files(), 256u);
    EXPECT_EQ(c.file_size_mib(), 64u);
    EXPECT_FALSE(c.core_dumps());
    // Applied by a pids cgroup, or as root by RLIMIT_NPROC under a user id of its own.
    EXPECT_EQ(c.processes(), c.processes_limit_by() == v1::LIMIT_MECHANISM_NONE ? 0u : 64u);
    if (getuid() == 0) expect_limit_by(c.processes_limit_by(), true);
    expect_limit_by(c.memory_limit_by(), true);
    expect_cgroups_removed(c);
    EXPECT_FALSE(c.writable_dir().empty());
    EXPECT_FALSE(c.read_only_dirs().empty());
  }
  EXPECT_EQ(header.bots(0).name(), "greedy_py");  // the Python bot's own Hello
}

TEST(Sandbox, TheDemoTournamentRunsSandboxed) {
  const std::string out = temp_dir("demo") + "/out";
  const RunResult r =
      run({kReferee, "tournament", ALLFIVES_DEMO_TOURNAMENT, "--out", out, "-j", "2", "--quiet"},
          std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream index(out + "/index.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(index, line)) {
    ++lines;
    EXPECT_TRUE(contains(line, "\"fault_seat\": -1") || contains(line, "\"fault_seat\":-1"))
        << line;
  }
  EXPECT_EQ(lines, 120);
  const auto first = read_log(out + "/matches/" +
                              fs::directory_iterator(out + "/matches")->path().filename().string());
  EXPECT_TRUE(only(first, v1::LogRecord::kHeader).header().bots(0).confinement().sandboxed());
  // Not one of the bots' cgroups is left behind (each match's header names its bots').
  size_t cgroups = 0;
  for (const auto& entry : fs::directory_iterator(out + "/matches")) {
    const auto log = read_log(entry.path().string());
    for (const auto& bot : only(log, v1::LogRecord::kHeader).header().bots()) {
      expect_limit_by(bot.confinement().memory_limit_by(), true);
      cgroups += static_cast<size_t>(bot.confinement().cgroups_size());
      expect_cgroups_removed(bot.confinement());
    }
  }
  if (referee::testing::machine_offers_v1_cgroups()) {
    EXPECT_GT(cgroups, 0u);
  }
}

// Bots that die at their memory limit in a tournament are replaced match after match: the
// cgroups of every one of them are gone at the end.
TEST(Sandbox, ATournamentLeavesNoCgroupBehind) {
  const std::string dir = temp_dir("tournament-cgroups");
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "name: \"cgroups\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"hostile\" command: \"" << kHostile
                      << "\" args: \"--mode\" args: \"eat-memory\" args: \"--max-mib\" "
                         "args: \"1024\" limits { memory_mib: 256 } }\n"
                      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                      << "matches_per_pairing: 4\nseed: 3\nmax_hands: 1\n";
  const RunResult r = run({kReferee, "tournament", file, "--out", dir + "/out", "-j", "2", "-q"},
                          std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int logs = 0;
  size_t cgroups = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/out/matches")) {
    ++logs;
    const auto log = read_log(entry.path().string());
    const auto& header = only(log, v1::LogRecord::kHeader).header();
    for (const auto& bot : header.bots()) {
      cgroups += static_cast<size_t>(bot.confinement().cgroups_size());
      expect_cgroups_removed(bot.confinement());
    }
    const auto& fault = only(log, v1::LogRecord::kFault).fault();
    const auto& faulted = header.bots(static_cast<int>(fault.seat())).confinement();
    if (faulted.memory_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
      EXPECT_TRUE(contains(fault.reason(), "exceeded its memory limit of 256 MiB"))
          << fault.reason();
    }
  }
  EXPECT_EQ(logs, 4);
  if (referee::testing::machine_offers_v1_cgroups()) {
    EXPECT_GE(cgroups, 8u);  // a memory and a pids cgroup per bot
  }
}

// --- The tournament file's per-bot fields ---------------------------------------------------

TEST(Sandbox, ATournamentBotGetsItsReadOnlyFoldersLimitsAndSandboxSetting) {
  const std::string dir = temp_dir("tournament-fields");
  fs::create_directories(dir + "/weights");
  std::ofstream(dir + "/weights/w.bin") << "weights";
  const std::string targets = targets_file("tournament-fields", {dir + "/weights/w.bin"});
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "name: \"fields\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"hostile\" command: \"" << kHostile
                      << "\" args: \"--mode\" args: \"read-files\" args: \"--targets-file\" "
                         "args: \""
                      << targets
                      << "\" read_only_dirs: \"weights\" limits { memory_mib: 700 open_files: 99 } "
                         "}\n"
                      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" sandbox: false }\n"
                      << "matches_per_pairing: 2\nseed: 3\nmax_hands: 1\n";
  const RunResult r = run({kReferee, "tournament", file, "--out", dir + "/out", "-j", "1", "-q",
                           "--max-file-size-mib", "9"},
                          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "WITHOUT the sandbox")) << r.output;  // greedy's sandbox: false
  int logs = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/out/matches")) {
    ++logs;
    const auto log = read_log(entry.path().string());
    for (const auto& bot : only(log, v1::LogRecord::kHeader).header().bots()) {
      const auto& c = bot.confinement();
      if (bot.display_name() == "hostile") {
        EXPECT_TRUE(c.sandboxed());
        EXPECT_EQ(c.memory_mib(), 700u);
        EXPECT_EQ(c.open_files(), 99u);
        EXPECT_EQ(c.file_size_mib(), 9u);  // the flag, for what the file leaves unset
        EXPECT_EQ(
            std::count(c.read_only_dirs().begin(), c.read_only_dirs().end(), dir + "/weights"), 1);
      } else {
        EXPECT_FALSE(c.sandboxed());
        EXPECT_EQ(c.memory_mib(), 1024u);
      }
    }
    const std::string printed = printed_by(log, -1);
    if (contains(printed, "hostile 1.0")) {
      EXPECT_TRUE(contains(printed, "GOT read " + dir + "/weights/w.bin: weights")) << printed;
    }
  }
  EXPECT_EQ(logs, 2);
}

TEST(Sandbox, TheTournamentFileRefusesBadSandboxFields) {
  const std::string dir = temp_dir("tournament-bad-fields");
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "format: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << kGreedy << "\" }\n"
                      << "bots { name: \"b\" command: \"" << kGreedy
                      << "\" read_only_dirs: \"no-such-folder\" }\n";
  RunResult r =
      run({kReferee, "tournament", file, "--out", dir + "/out"}, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, file + ":3: bot 'b': read_only_dirs entry 'no-such-folder' is "
                                        "not a folder"))
      << r.output;
  std::ofstream(file) << "format: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << kGreedy << "\" }\n"
                      << "bots { name: \"b\" address: \"localhost:1\" limits { memory_mib: 9 } }\n";
  r = run({kReferee, "tournament", file, "--out", dir + "/out"}, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "apply only to a bot the referee starts")) << r.output;
}

// --- Where the sandbox cannot be made -------------------------------------------------------

TEST(Sandbox, RefusesToStartBotsWithoutBubblewrapAndSaysWhatToDo) {
  const std::string dir = temp_dir("refuse");
  // No bwrap on this PATH: the referee itself needs nothing from it (bots are absolute paths).
  const RunResult r = run({"/usr/bin/env", "PATH=" + dir, kReferee, "match", "--log",
                           dir + "/m.jsonl", kGreedy, kGreedy},
                          std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "cannot put the bots in a sandbox: the bwrap program "
                       "(bubblewrap) is not installed"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "apt-get install bubblewrap")) << r.output;
  EXPECT_TRUE(contains(r.output, "--no-sandbox")) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/m.jsonl"));  // no bot was started, no match played
}

TEST(Sandbox, NoSandboxStillAppliesTheLimitsAndWarnsOnce) {
  const std::string dir = temp_dir("no-sandbox");
  const RunResult r =
      run({"/usr/bin/env", "PATH=" + dir, kReferee, "match", "--no-sandbox", "--max-hands", "1",
           "--memory-mib", "700", "--log", dir + "/m.jsonl", kGreedy, kGreedy},
          std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto first = r.output.find("WITHOUT the sandbox");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("WITHOUT the sandbox", first + 1), std::string::npos) << r.output;
  const auto log = read_log(dir + "/m.jsonl");
  for (const auto& bot : only(log, v1::LogRecord::kHeader).header().bots()) {
    EXPECT_FALSE(bot.confinement().sandboxed());
    EXPECT_EQ(bot.confinement().memory_mib(), 700u);
  }
}

}  // namespace
}  // namespace allfives::e2e
