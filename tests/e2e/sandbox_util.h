// What the sandbox's end-to-end tests share (sandbox_test.cpp: spying, the referee's files,
// escaping; sandbox_limits_test.cpp: resource limits, the network, writing;
// sandbox_setup_test.cpp: sample bots, tournaments, the sandbox's fields and its absence): a
// match of tests/bots/hostile_bot against greedy, and checks of what its log says.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"

namespace allfives::e2e::sandbox {

// A seed and an environment variable only the referee knows: a bot that prints either has
// spied successfully.
inline constexpr const char* kSeed = "918273645";
inline constexpr const char* kSecretVar = "ALLFIVES_TEST_SECRET";
inline constexpr const char* kSecret = "s3cr3t-of-the-referee";

struct Match {
  RunResult run;
  std::vector<v1::LogRecord> log;
  std::string log_path;
  std::string hostile_output;  // seat 0's captured output
};

// `referee match` with the hostile bot (seat 0, `hostile_args`) against greedy; `extra` flags
// go to the referee, `env` (NAME=VALUE) into its environment.
Match play(const std::string& name, const std::string& hostile_args,
           const std::vector<std::string>& extra = {}, const std::vector<std::string>& env = {});

const v1::LogMatchEnd& match_end(const Match& m);
const v1::LogConfinement& hostile_confinement(const Match& m);

// The mechanism the header must record for a limit: a cgroup where the machine offers v1
// cgroups to root (ours and CI's: these tests then exercise them, not the fallback), else
// whatever the referee found (a v2 cgroup or setrlimit), which must still be one of them.
void expect_limit_by(v1::LimitMechanism recorded, bool cgroups_allowed);

// A bot's cgroup folders (from the header) must be gone once the referee has exited.
void expect_cgroups_removed(const v1::LogConfinement& c);

// The match ended as a game, not by anyone's fault.
void expect_no_fault(const Match& m);

// Pids of the hostile bot's escaped grandchildren (argv "... --escapee --marker MARKER"; the
// referee's and the bot's own command lines hold the marker too, but not "--escapee").
std::vector<int> processes_with(const std::string& marker);

// processes_with(marker) once it is empty or `limit` has passed.
std::vector<int> wait_survivors_gone(const std::string& marker, std::chrono::seconds limit);

}  // namespace allfives::e2e::sandbox
