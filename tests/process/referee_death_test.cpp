// The key guarantee: when the referee is SIGKILLed (no destructor, no handler runs), every bot
// it started dies, and so does everything those bots started.
//
// spawn_and_hang plays the referee. This test process makes itself a child subreaper for the
// duration, so the orphans (the bots, their children, the guardians) are reparented to it and it
// can reap them; otherwise zombies would wait on whatever init the machine has, and
// kill(-pgid, 0) would keep finding them.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "process/private_dir.h"
#include "process_test_util.h"

extern char** environ;

namespace allfives::referee {
namespace {

using namespace std::chrono_literals;
using testing::group_gone;
using testing::live_group_members;
using testing::wait_until;

struct BotIds {
  pid_t pid = -1;
  pid_t pgid = -1;
  pid_t guardian = -1;
};

// Runs spawn_and_hang and owns everything it started; the destructor kills and reaps whatever
// is left, so a failed assertion leaves nothing behind.
class HangingReferee {
 public:
  HangingReferee() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~HangingReferee() {
    if (helper_ > 0) ::kill(helper_, SIGKILL);
    for (const BotIds& bot : bots_) {
      if (bot.pgid > 0) ::kill(-bot.pgid, SIGKILL);
      if (bot.guardian > 0) ::kill(bot.guardian, SIGKILL);
    }
    wait_until(
        [&] {
          reap();
          bool all = helper_ <= 0;
          for (const BotIds& bot : bots_) all = all && group_gone(bot.pgid) && guardian_gone(bot);
          return all;
        },
        5s);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }

  // Starts the helper with `count` bots running `argv`, and waits for its pid file.
  bool start(int count, const std::vector<std::string>& argv) {
    std::string error;
    dir_ = PrivateDir::create(&error);
    if (!dir_) {
      ADD_FAILURE() << error;
      return false;
    }
    const std::string pidfile = dir_->path() + "/pids";
    std::vector<std::string> args = {ALLFIVES_SPAWN_AND_HANG, pidfile, std::to_string(count)};
    args.insert(args.end(), argv.begin(), argv.end());
    std::vector<char*> cargs;
    for (std::string& arg : args) cargs.push_back(arg.data());
    cargs.push_back(nullptr);
    if (::posix_spawn(&helper_, cargs[0], nullptr, nullptr, cargs.data(), environ) != 0) {
      ADD_FAILURE() << "cannot start " << cargs[0];
      helper_ = -1;
      return false;
    }
    const bool written = wait_until(
        [&] {
          std::ifstream in(pidfile);
          BotIds bot;
          bots_.clear();
          while (in >> bot.pid >> bot.pgid >> bot.guardian) bots_.push_back(bot);
          return static_cast<int>(bots_.size()) == count;
        },
        10s);
    if (!written) ADD_FAILURE() << "spawn_and_hang wrote no pid file";
    return written;
  }

  // SIGKILLs the helper and reaps it: the "referee" is gone without any cleanup.
  void kill_referee() {
    ::kill(helper_, SIGKILL);
    wait_until([&] { return ::waitpid(helper_, nullptr, WNOHANG) == helper_; }, 5s);
    helper_ = -1;
  }

  // Reaps every orphan that was reparented to us (bots, their children, guardians).
  void reap() {
    if (helper_ > 0 && ::waitpid(helper_, nullptr, WNOHANG) == helper_) helper_ = -1;
    for (const BotIds& bot : bots_) {
      siginfo_t info{};
      while (::waitid(P_PGID, static_cast<id_t>(bot.pgid), &info, WEXITED | WNOHANG) == 0 &&
             info.si_pid != 0) {
        info = {};
      }
      ::waitpid(bot.guardian, nullptr, WNOHANG);
    }
  }

  static bool guardian_gone(const BotIds& bot) {
    return ::kill(bot.guardian, 0) != 0 && errno == ESRCH;
  }

  const std::vector<BotIds>& bots() const { return bots_; }

 private:
  std::optional<PrivateDir> dir_;
  pid_t helper_ = -1;
  std::vector<BotIds> bots_;
};

// Starts bots running `script` under spawn_and_hang, checks each group has a grandchild, SIGKILLs
// the helper, and checks every group is empty within a few seconds.
void expect_referee_death_kills_everything(int count, const std::string& script) {
  HangingReferee referee;
  ASSERT_TRUE(referee.start(count, {"/bin/sh", "-c", script}));
  for (const BotIds& bot : referee.bots()) {
    EXPECT_EQ(bot.pgid, bot.pid);
    // The main process (sh, or the foreground sleep if sh execs it) and the background sleep: a
    // grandchild, which PDEATHSIG cannot reach.
    EXPECT_TRUE(wait_until([&] { return live_group_members(bot.pgid).size() >= 2; }, 5s))
        << "group " << bot.pgid << " never got its grandchildren";
    EXPECT_FALSE(group_gone(bot.pgid));
  }

  referee.kill_referee();

  const bool all_gone = wait_until(
      [&] {
        referee.reap();
        for (const BotIds& bot : referee.bots()) {
          if (!group_gone(bot.pgid)) return false;
        }
        return true;
      },
      5s);
  EXPECT_TRUE(all_gone);
  for (const BotIds& bot : referee.bots()) {
    EXPECT_TRUE(group_gone(bot.pgid)) << "group " << bot.pgid << " survived the referee";
    EXPECT_TRUE(live_group_members(bot.pgid).empty());
    EXPECT_TRUE(wait_until(
        [&] {
          referee.reap();
          return HangingReferee::guardian_gone(bot);
        },
        5s))
        << "guardian " << bot.guardian << " did not exit";
  }
}

TEST(RefereeDeath, SigkillOfTheRefereeKillsBotAndGrandchildren) {
  expect_referee_death_kills_everything(1, "sleep 1000 & sleep 1000");
}

TEST(RefereeDeath, GrandchildrenIgnoringSigtermAreSigkilled) {
  // The trap is inherited by both sleeps: the guardian's SIGTERM does nothing, its SIGKILL (after
  // its 1 s grace) must.
  expect_referee_death_kills_everything(1, "trap '' TERM; sleep 1000 & sleep 1000");
}

TEST(RefereeDeath, EveryGuardianFiresWithSeveralBots) {
  // Each guardian must see EOF: no other bot, grandchild or guardian may hold its pipe open.
  expect_referee_death_kills_everything(4, "sleep 1000 & sleep 1000");
}

}  // namespace
}  // namespace allfives::referee
