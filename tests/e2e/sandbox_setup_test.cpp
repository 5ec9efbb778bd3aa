// End-to-end tests of how the sandbox is set up: the sample bots and a whole tournament played
// sandboxed (the header says how), a tournament file's per-bot sandbox fields, and a machine
// where the sandbox cannot be made.
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
