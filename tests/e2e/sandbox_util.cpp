#include "e2e/sandbox_util.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "process/process_test_util.h"

namespace allfives::e2e::sandbox {

namespace fs = std::filesystem;

// `referee match` with the hostile bot (seat 0, `hostile_args`) against greedy; `extra` flags
// go to the referee, `env` (NAME=VALUE) into its environment.
Match play(const std::string& name, const std::string& hostile_args,
           const std::vector<std::string>& extra, const std::vector<std::string>& env) {
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

}  // namespace allfives::e2e::sandbox
