// Per-bot cgroups (process/cgroup.h): reading what the kernel says, and real bots in their own
// memory and pids cgroups, killed and named at the memory limit, leaving no folder behind. On a
// machine that offers cgroup v1 as root (ours and CI's), the cgroup tests must use them; where
// none can be made they check the setrlimit fallback instead.
#include "process/cgroup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "common/temp_dir.h"
#include "process/bot_process.h"
#include "process/referee_names.h"
#include "process_test_util.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// --- Reading what the kernel says -----------------------------------------------------------

TEST(CgroupFiles, ProcSelfCgroupGivesEachControllersPath) {
  const auto m = parse_proc_cgroup(
      "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/70a8\n2:cpu,cpuacct:/x\n0::/user.slice\n");
  EXPECT_EQ(m.at("memory"), "/process_api/70a8");
  EXPECT_EQ(m.at("pids"), "/");
  EXPECT_EQ(m.at("cpu"), "/x");
  EXPECT_EQ(m.at("cpuacct"), "/x");
  EXPECT_EQ(m.at(""), "/user.slice");  // cgroup v2
}

TEST(CgroupFiles, MountinfoGivesTheCgroupFileSystems) {
  const auto mounts = parse_cgroup_mounts(
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
      "41 31 0:38 /ns /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n"
      "23 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n");
  ASSERT_EQ(mounts.size(), 3u);
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/memory");
  EXPECT_EQ(mounts[0].controllers, std::vector<std::string>{"memory"});
  EXPECT_FALSE(mounts[0].v2);
  EXPECT_TRUE(mounts[1].controllers.empty());  // a named hierarchy has no controller
  EXPECT_TRUE(mounts[2].v2);
  EXPECT_EQ(mounts[2].root, "/ns");
}

TEST(CgroupFiles, AFolderIsThePathUnderTheMount) {
  CgroupMount m;
  m.root = "/";
  m.mount_point = "/sys/fs/cgroup/memory";
  EXPECT_EQ(cgroup_folder(m, "/a/b"), "/sys/fs/cgroup/memory/a/b");
  EXPECT_EQ(cgroup_folder(m, "/"), "/sys/fs/cgroup/memory");
  m.root = "/ns";  // only part of the hierarchy is mounted
  EXPECT_EQ(cgroup_folder(m, "/ns/c"), "/sys/fs/cgroup/memory/c");
  EXPECT_EQ(cgroup_folder(m, "/ns"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(cgroup_folder(m, "/nsx/c"), "");
}

TEST(CgroupFiles, CountersByName) {
  EXPECT_EQ(counter_in("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill"), 3u);
  EXPECT_EQ(counter_in("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n", "max"), 7u);
  EXPECT_EQ(counter_in("max 11\n", "oom_kill"), 0u);
}

TEST(LimitFaults, WhatTheCgroupsCountedNamesTheLimitWithoutAWord) {
  const ResourceLimits limits;
  ExitStatus killed;
  killed.signaled = true;
  killed.signal = SIGKILL;
  LimitEvidence oom;
  oom.oom_kills = 1;
  EXPECT_EQ(describe_exit_with_limits(killed, limits, oom),
            "exceeded its memory limit of 1024 MiB (killed by signal 9 (SIGKILL))");
  LimitEvidence forks;
  forks.process_limit_hits = 5;
  ExitStatus failed;
  failed.code = 1;
  EXPECT_EQ(describe_exit_with_limits(failed, limits, forks),
            "reached its limit of 64 processes and threads (exited with code 1)");
  // Without the evidence the same end is the exit alone; a clean exit never names a limit.
  EXPECT_EQ(describe_exit_with_limits(killed, limits), "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(describe_exit_with_limits(ExitStatus{}, limits, oom), "exited with code 0");
}

// --- Real bots in their cgroups -------------------------------------------------------------

TEST(BotCgroups, MadeWhereTheMachineOffersThem) {
  const CgroupPlaces& places = cgroup_places();
  if (testing::machine_offers_v1_cgroups()) {
    EXPECT_EQ(places.version, 1) << places.why_not;
    EXPECT_FALSE(places.memory_parent.empty()) << places.why_not;
    EXPECT_FALSE(places.pids_parent.empty()) << places.why_not;
  }
  if (places.version == 0) {
    EXPECT_FALSE(places.why_not.empty());
  }
}

std::unique_ptr<BotProcess> start_sandboxed(const std::string& script, ResourceLimits limits,
                                            bool cgroups = true) {
  std::string error;
  auto p = testing::start_sandboxed(script, limits, cgroups, &error);
  EXPECT_NE(p, nullptr) << error;
  return p;
}

TEST(BotCgroups, ABotRunsInItsOwnWithItsLimitsAndTheyAreRemovedAfter) {
  ResourceLimits limits;
  limits.memory_mib = 300;
  limits.processes = 20;
  auto p = start_sandboxed("ulimit -v; sleep 30", limits);
  ASSERT_NE(p, nullptr);
  const CgroupPlaces& places = cgroup_places();
  if (places.memory_parent.empty()) {
    // The fallback: the address-space limit, and no folder.
    EXPECT_EQ(p->memory_limit_by(), LimitMechanism::kRlimit);
    EXPECT_TRUE(p->cgroups().empty());
    return;
  }
  const LimitMechanism expected =
      places.version == 2 ? LimitMechanism::kCgroupV2 : LimitMechanism::kCgroupV1;
  EXPECT_EQ(p->memory_limit_by(), expected);
  ASSERT_FALSE(p->cgroups().empty());
  const std::string memory = p->cgroups()[0];
  EXPECT_TRUE(memory.starts_with(places.memory_parent + "/allfives-")) << memory;
  const std::string limit_file = places.version == 2 ? "/memory.max" : "/memory.limit_in_bytes";
  EXPECT_EQ(read(memory + limit_file), std::to_string(300ull << 20) + "\n");
  if (!places.pids_parent.empty()) {
    EXPECT_EQ(p->processes_limit_by(), expected);
    const std::string pids = p->cgroups().back();
    EXPECT_EQ(read(pids + "/pids.max"), "20\n");
  }
  // No address-space limit besides the cgroup (and by then sh runs and starts sleep).
  ASSERT_TRUE(
      testing::wait_until([&] { return p->take_stderr() == "unlimited\n"; }, milliseconds(10000)));
  // Every folder holds the bot's process (bwrap) and what it started (bwrap's init, sh, sleep).
  for (const std::string& folder : p->cgroups()) {
    std::vector<long> pids;
    auto listed = [&] {
      pids.clear();
      std::istringstream procs(read(folder + "/cgroup.procs"));
      for (long pid = 0; procs >> pid;) pids.push_back(pid);
      return pids.size() >= 4;
    };
    EXPECT_TRUE(testing::wait_until(listed, milliseconds(10000))) << folder << ": " << pids.size();
    EXPECT_NE(std::find(pids.begin(), pids.end(), p->pid()), pids.end()) << folder;
  }
  const std::vector<std::string> folders = p->cgroups();
  p->stop(milliseconds(100));
  for (const std::string& folder : folders) EXPECT_FALSE(fs::exists(folder)) << folder;
}

TEST(BotCgroups, OverTheMemoryLimitTheBotIsKilledAndTheLimitNamed) {
  ResourceLimits limits;
  limits.memory_mib = 64;
  // 256 MiB in one string, touched: python3 fails to allocate under RLIMIT_AS (MemoryError,
  // counted nowhere: the exit alone describes it), and is killed by the kernel under the
  // memory cgroup, whose count names the limit. Both ways, whatever this machine offers:
  // --no-cgroups tests the fallback here too.
  for (const bool cgroups : {true, false}) {
    SCOPED_TRACE(cgroups ? "cgroups allowed" : "no cgroups");
    auto p = start_sandboxed("exec /usr/bin/python3 -c 'x = bytearray(256 << 20); print(len(x))'",
                             limits, cgroups);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(testing::wait_until([&] { return !p->running(); }, milliseconds(20000)));
    const std::string words = p->describe_exit();
    if (p->memory_limit_by() != LimitMechanism::kRlimit) {
      EXPECT_EQ(words, "exceeded its memory limit of 64 MiB (killed by signal 9 (SIGKILL))");
    } else {  // a failed allocation is counted nowhere: the exit alone, whatever it printed
      EXPECT_EQ(words, "exited with code 1");
    }
    if (!cgroups) {
      EXPECT_EQ(p->memory_limit_by(), LimitMechanism::kRlimit);
    } else if (testing::machine_offers_v1_cgroups()) {
      EXPECT_EQ(p->memory_limit_by(), LimitMechanism::kCgroupV1);
    }
    p->stop(milliseconds(100));
    EXPECT_EQ(p->describe_exit(), words);  // the count survives the cgroup's removal
    if (p->memory_limit_by() == LimitMechanism::kRlimit) {
      EXPECT_NE(p->take_stderr().find("MemoryError"), std::string::npos);
    }
  }
}

TEST(BotCgroups, AForkBombMeetsItsProcessLimitWhoeverTheRefereeIs) {
  ResourceLimits limits;
  limits.processes = 16;
  // Not as its own user: with a pids cgroup the limit holds anyway.
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "for i in $(seq 40); do sleep 30 & done; wait"};
  spec.sandbox = true;
  spec.clean_environment = true;
  spec.limits = limits;
  std::string error;
  auto p = BotProcess::start(spec, &error);
  ASSERT_NE(p, nullptr) << error;
  if (cgroup_places().pids_parent.empty()) {
    EXPECT_EQ(p->processes_limit_by(), LimitMechanism::kNone);  // RLIMIT_NPROC needs own_user
    return;
  }
  ASSERT_FALSE(p->cgroups().empty());
  const std::string pids = p->cgroups().back();
  ASSERT_TRUE(testing::wait_until(
      [&] { return counter_in(read(pids + "/pids.events"), "max") > 0; }, milliseconds(10000)));
  std::istringstream current(read(pids + "/pids.current"));
  uint64_t count = 0;
  current >> count;
  EXPECT_LE(count, 16u);
  p->stop(milliseconds(100));
  EXPECT_FALSE(fs::exists(pids));
}

// A folder made in `parent` named `name_start` and six characters that mkdtemp picks so that no
// folder there holds the name (another checkout testing at once makes its own), or "".
std::string unique_folder(const std::string& parent, const std::string& name_start) {
  std::string path = parent + "/" + name_start + "XXXXXX";
  return ::mkdtemp(path.data()) != nullptr ? path : "";
}

TEST(BotCgroups, EmptyFoldersOfAGoneRefereeAreRemovedOnceAMinuteOld) {
  const std::string parent = cgroup_places().memory_parent;
  if (parent.empty()) GTEST_SKIP() << "no cgroups here: " << cgroup_places().why_not;
  // pid_max is at most 2^22: no process has pid 4999999.
  const std::string old_one = unique_folder(parent, "allfives-4999999-old-");
  const std::string fresh = unique_folder(parent, "allfives-4999999-fresh-");
  const std::string ours = unique_folder(parent, referee_name("kept-"));
  for (const std::string& f : {old_one, fresh, ours}) ASSERT_FALSE(f.empty()) << parent;
  const auto two_hours_ago = fs::last_write_time(old_one) - std::chrono::hours(2);
  fs::last_write_time(old_one, two_hours_ago);
  fs::last_write_time(ours, two_hours_ago);
  remove_stale_cgroups(parent);
  EXPECT_FALSE(fs::exists(old_one));
  EXPECT_TRUE(fs::exists(fresh));  // maybe just made by a referee this one cannot see
  EXPECT_TRUE(fs::exists(ours));   // its referee lives
  for (const std::string& f : {old_one, fresh, ours}) ::rmdir(f.c_str());
}

// On v1 the referee keeps one empty cgroup frozen while it runs (cgroup.cpp, FrozenKeeper):
// otherwise the kernel rewrites its code each time the first bot is frozen or the last thawed.
TEST(BotCgroups, OnV1AnEmptyCgroupStaysFrozenWhileItsMakerRuns) {
  const CgroupPlaces& places = cgroup_places();
  if (places.version != 1 || places.freezer_parent.empty())
    GTEST_SKIP() << "no v1 freezer here: " << places.why_not;
  const std::string kept = places.kept_frozen;
  EXPECT_EQ(kept, places.freezer_parent + "/" + referee_name("frozen"));
  EXPECT_EQ(read(kept + "/freezer.state"), "FROZEN\n");
  EXPECT_EQ(read(kept + "/tasks"), "");
  // A forked worker that ends normally (static destructors run) leaves its parent's alone.
  const pid_t child = ::fork();
  if (child == 0) std::exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(read(kept + "/freezer.state"), "FROZEN\n");
}

TEST(BotCgroupsDeathTest, TheFrozenCgroupGoesWithItsMaker) {
  const CgroupPlaces& places = cgroup_places();
  if (places.version != 1 || places.freezer_parent.empty())
    GTEST_SKIP() << "no v1 freezer here: " << places.why_not;
  // Threadsafe style: the child runs this test again in a new process, which makes its own
  // cgroups; it finds the file to say where in the environment its parent set.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr const char* kTold = "ALLFIVES_TEST_KEPT_FROZEN_FILE";
  std::optional<allfives::testing::TempDir> dir;
  if (std::getenv(kTold) == nullptr) {
    dir.emplace();
    ::setenv(kTold, dir->file("kept").c_str(), 1);
  }
  const std::string told = std::getenv(kTold);
  EXPECT_EXIT(
      {
        std::ofstream(told) << cgroup_places().kept_frozen;
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  ::unsetenv(kTold);
  const std::string kept = read(told);
  ASSERT_TRUE(kept.starts_with(places.freezer_parent + "/" + std::string(kRefereeNamePrefix)))
      << kept;
  EXPECT_NE(kept, places.kept_frozen);
  EXPECT_FALSE(fs::exists(kept)) << kept;
}

TEST(BotCgroups, WithoutCgroupsTheAddressSpaceLimitApplies) {
  ResourceLimits limits;
  limits.memory_mib = 300;
  auto p = start_sandboxed("ulimit -v", limits, /*cgroups=*/false);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->memory_limit_by(), LimitMechanism::kRlimit);
  EXPECT_TRUE(p->cgroups().empty());
  ASSERT_TRUE(testing::wait_until([&] { return !p->running(); }, milliseconds(10000)));
  p->stop(milliseconds(100));
  EXPECT_EQ(p->take_stderr(), std::to_string(300 * 1024) + "\n");
}

}  // namespace
}  // namespace allfives::referee
