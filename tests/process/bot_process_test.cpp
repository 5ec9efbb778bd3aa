// BotProcess with real programs. Every bot is held by a unique_ptr, whose destructor stops it,
// so a failing assertion still cleans up; every wait has a deadline.
#include "process/bot_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "process/capped_output.h"
#include "process/private_dir.h"
#include "process_test_util.h"

namespace allfives::referee {
namespace {

using namespace std::chrono_literals;
using testing::group_gone;
using testing::live_group_members;
using testing::process_gone;
using testing::wait_until;

std::unique_ptr<BotProcess> start_sh(const std::string& script, size_t cap = 64 * 1024) {
  LaunchSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.stderr_cap_bytes = cap;
  std::string error;
  auto bot = BotProcess::start(spec, &error);
  EXPECT_NE(bot, nullptr) << error;
  EXPECT_EQ(error, "");
  return bot;
}

// Takes output until it contains `needle` (or the deadline passes); returns all of it.
std::string take_until(BotProcess& bot, const std::string& needle,
                       std::chrono::milliseconds timeout = 5s) {
  std::string all;
  wait_until(
      [&] {
        all += bot.take_stderr();
        return all.find(needle) != std::string::npos;
      },
      timeout);
  return all;
}

bool exited(BotProcess& bot) {
  return wait_until([&] { return !bot.running(); }, 5s);
}

std::string start_error(const LaunchSpec& spec) {
  std::string error;
  auto bot = BotProcess::start(spec, &error);
  EXPECT_EQ(bot, nullptr);
  return error;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(BotProcess, StartsInItsOwnGroupAndStopsWithSigterm) {
  auto bot = start_sh("exec sleep 1000");
  ASSERT_NE(bot, nullptr);
  const pid_t pid = bot->pid();
  EXPECT_GT(pid, 0);
  EXPECT_TRUE(bot->running());
  EXPECT_EQ(bot->describe_exit(), "running");
  EXPECT_FALSE(bot->exit_status().has_value());
  EXPECT_EQ(::getpgid(pid), pid);  // leader of its own process group
  EXPECT_NE(::getpgid(pid), ::getpgid(0));
  EXPECT_FALSE(process_gone(bot->guardian_pid()));

  const auto before = std::chrono::steady_clock::now();
  bot->stop(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);  // sleep dies on SIGTERM at once
  EXPECT_FALSE(bot->running());
  EXPECT_EQ(bot->describe_exit(), "killed by signal 15 (SIGTERM)");
  ASSERT_TRUE(bot->exit_status().has_value());
  EXPECT_TRUE(bot->exit_status()->signaled);
  EXPECT_EQ(bot->exit_status()->signal, SIGTERM);
  // Reaped, not a zombie: neither the bot nor its guardian is our child any more.
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(::waitpid(bot->guardian_pid(), nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_TRUE(group_gone(pid));
}

TEST(BotProcess, StopIsIdempotent) {
  auto bot = start_sh("exec sleep 1000");
  ASSERT_NE(bot, nullptr);
  bot->stop();
  const std::string first = bot->describe_exit();
  const auto before = std::chrono::steady_clock::now();
  bot->stop();
  bot->stop(0ms);
  // A second stop must not wait again (a wait would be the 2 s default grace); 1 s of margin
  // for a busy machine.
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  EXPECT_EQ(bot->describe_exit(), first);
}

TEST(BotProcess, DestructorStopsTheGroup) {
  pid_t pid = -1;
  pid_t guardian = -1;
  {
    auto bot = start_sh("sleep 1000 & exec sleep 1000");
    ASSERT_NE(bot, nullptr);
    pid = bot->pid();
    guardian = bot->guardian_pid();
    ASSERT_TRUE(wait_until([&] { return live_group_members(pid).size() == 2; }, 5s));
  }
  EXPECT_TRUE(process_gone(pid));
  EXPECT_TRUE(process_gone(guardian));
  EXPECT_TRUE(wait_until([&] { return live_group_members(pid).empty(); }, 5s));
}

TEST(BotProcess, IgnoringSigtermGetsSigkillAfterTheGrace) {
  // The trap makes both sh and sleep ignore SIGTERM (ignored signals survive exec).
  auto bot = start_sh("trap '' TERM; echo ready; sleep 1000; echo unreachable");
  ASSERT_NE(bot, nullptr);
  ASSERT_TRUE(contains(take_until(*bot, "ready"), "ready"));
  const auto before = std::chrono::steady_clock::now();
  bot->stop(300ms);
  const auto took = std::chrono::steady_clock::now() - before;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);  // the grace, then SIGKILL: far from never (margin for a busy machine)
  EXPECT_EQ(bot->describe_exit(), "killed by signal 9 (SIGKILL)");
  EXPECT_TRUE(group_gone(bot->pid()) ||
              wait_until([&] { return live_group_members(bot->pid()).empty(); }, 5s));
}

TEST(BotProcess, DescribesAnExitCode) {
  auto bot = start_sh("exit 3");
  ASSERT_NE(bot, nullptr);
  ASSERT_TRUE(exited(*bot));
  ASSERT_TRUE(bot->exit_status().has_value());
  EXPECT_FALSE(bot->exit_status()->signaled);
  EXPECT_EQ(bot->exit_status()->code, 3);
  EXPECT_EQ(bot->describe_exit(), "exited with code 3");
  // The exited bot is kept as a zombie (pinning its pgid) until stop() reaps it.
  EXPECT_FALSE(::kill(bot->pid(), 0) != 0 && errno == ESRCH);
  bot->stop();
  EXPECT_EQ(bot->describe_exit(), "exited with code 3");  // stop() does not overwrite it
  EXPECT_EQ(::waitpid(bot->pid(), nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(BotProcess, WaitForExitReturnsAtTheExitAndKeepsTheBotUnreaped) {
  // The bot exits only when told to (its stdin is /dev/null, so it waits for a file).
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  const std::string go = dir->path() + "/go";
  auto bot = start_sh("while [ ! -e " + go + " ]; do sleep 0.01; done; exit 7");
  ASSERT_NE(bot, nullptr);
  // Still running at the deadline: false, and it keeps running.
  EXPECT_FALSE(bot->wait_for_exit(std::chrono::steady_clock::now() + 50ms));
  EXPECT_TRUE(bot->running());
  std::ofstream(go) << "";
  // Generous: only a bot that never exits can make it wait this long.
  EXPECT_TRUE(bot->wait_for_exit(std::chrono::steady_clock::now() + 20s));
  EXPECT_FALSE(bot->running());
  ASSERT_TRUE(bot->exit_status().has_value());
  EXPECT_EQ(bot->exit_status()->code, 7);
  // Waiting did not reap it: its pid (and pgid) stays pinned until stop().
  EXPECT_FALSE(::kill(bot->pid(), 0) != 0 && errno == ESRCH);
  EXPECT_TRUE(bot->wait_for_exit(std::chrono::steady_clock::now()));  // already over
  bot->stop();
  EXPECT_TRUE(bot->wait_for_exit(std::chrono::steady_clock::now()));  // stopped
  EXPECT_EQ(bot->exit_status()->code, 7);
}

TEST(BotProcess, DescribesADeathBySignal) {
  auto bot = start_sh("kill -USR1 $$");
  ASSERT_NE(bot, nullptr);
  ASSERT_TRUE(exited(*bot));
  EXPECT_EQ(bot->describe_exit(), "killed by signal " + std::to_string(SIGUSR1) + " (SIGUSR1)");
  const ExitStatus segv{.signaled = true, .signal = SIGSEGV, .core_dumped = true};
  EXPECT_EQ(segv.describe(),
            "killed by signal " + std::to_string(SIGSEGV) + " (SIGSEGV), core dumped");
}

TEST(BotProcess, CapturesStdoutAndStderrTogether) {
  auto bot = start_sh("echo to-stdout; echo to-stderr >&2; exec sleep 1000");
  ASSERT_NE(bot, nullptr);
  const std::string out = take_until(*bot, "to-stderr");
  EXPECT_TRUE(contains(out, "to-stdout\n")) << out;
  EXPECT_TRUE(contains(out, "to-stderr\n")) << out;
  EXPECT_EQ(bot->take_stderr(), "");  // taken means gone
}

TEST(BotProcess, OutputAfterExitIsCollectedByStop) {
  auto bot = start_sh("echo last words >&2; exit 0");
  ASSERT_NE(bot, nullptr);
  ASSERT_TRUE(exited(*bot));
  bot->stop();
  // Whatever the reader had not taken before stop() is still there after it.
  std::string out = bot->take_stderr();
  EXPECT_EQ(out, "last words\n");
}

TEST(BotProcess, StdinIsDevNull) {
  auto bot = start_sh("cat; echo stdin-eof");
  ASSERT_NE(bot, nullptr);
  EXPECT_TRUE(exited(*bot));
  EXPECT_EQ(take_until(*bot, "stdin-eof"), "stdin-eof\n");
}

TEST(BotProcess, FloodIsCappedAndNeverBlocksTheBot) {
  // 20 MB to stderr through a 64 KiB cap; then a last line, which must arrive (the bot was never
  // blocked on a full pipe) and be kept (the tail of the window survives).
  constexpr size_t kCap = 64 * 1024;
  constexpr size_t kFlood = 20'000'000;
  auto bot = start_sh("yes 0123456789abcdef | head -c " + std::to_string(kFlood) +
                          " >&2; echo FINISHED >&2; exec sleep 1000",
                      kCap);
  ASSERT_NE(bot, nullptr);
  uint64_t kept = 0;
  uint64_t dropped = 0;
  bool finished = false;
  size_t largest = 0;
  wait_until(
      [&] {
        std::string chunk = bot->take_stderr();
        const size_t at = chunk.find("\n[... ");
        if (at != std::string::npos) {
          const size_t end = chunk.find(" bytes dropped]\n", at);
          EXPECT_NE(end, std::string::npos);
          const uint64_t n = std::stoull(chunk.substr(at + 6, end - at - 6));
          dropped += n;
          chunk.erase(at, CappedOutput::marker(n).size());
        }
        largest = std::max(largest, chunk.size());
        kept += chunk.size();
        finished = finished || chunk.find("FINISHED\n") != std::string::npos;
        return finished;
      },
      30s);
  EXPECT_TRUE(finished) << "the bot did not get through its flood";
  EXPECT_LE(largest, kCap);
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(kept + dropped, kFlood + std::string("FINISHED\n").size());
  EXPECT_TRUE(bot->running());
}

TEST(BotProcess, StopKillsABackgroundGrandchild) {
  auto bot = start_sh("sleep 1000 & echo grandchild=$!; wait");
  ASSERT_NE(bot, nullptr);
  const std::string out = take_until(*bot, "\n");
  const size_t at = out.find("grandchild=");
  ASSERT_NE(at, std::string::npos) << out;
  const pid_t grandchild = std::stoi(out.substr(at + 11));
  EXPECT_EQ(::getpgid(grandchild), bot->pid());
  EXPECT_FALSE(process_gone(grandchild));

  bot->stop();
  EXPECT_TRUE(process_gone(bot->pid()));
  // The grandchild is reparented to init (or a subreaper) when sh dies; it has been sent
  // SIGTERM and SIGKILL, so it is dead, though its new parent may reap it a moment later.
  EXPECT_TRUE(wait_until([&] { return process_gone(grandchild); }, 5s));
  EXPECT_TRUE(wait_until([&] { return live_group_members(bot->pid()).empty(); }, 5s));
}

TEST(BotProcess, GrandchildOutlivingTheBotIsKilledByStop) {
  // The main process exits at once; its child keeps the group (and the output pipe) alive.
  auto bot = start_sh("sleep 1000 & echo grandchild=$!");
  ASSERT_NE(bot, nullptr);
  const std::string out = take_until(*bot, "\n");
  const size_t at = out.find("grandchild=");
  ASSERT_NE(at, std::string::npos) << out;
  const pid_t grandchild = std::stoi(out.substr(at + 11));
  ASSERT_TRUE(exited(*bot));
  EXPECT_EQ(bot->describe_exit(), "exited with code 0");
  EXPECT_FALSE(process_gone(grandchild));
  bot->stop();
  EXPECT_TRUE(wait_until([&] { return process_gone(grandchild); }, 5s));
}

TEST(BotProcess, SurvivesTheThreadThatStartedIt) {
  // PR_SET_PDEATHSIG fires when the forking *thread* exits; starting from a short-lived thread
  // must not kill the bot.
  std::unique_ptr<BotProcess> bot;
  std::thread([&] { bot = start_sh("exec sleep 1000"); }).join();
  ASSERT_NE(bot, nullptr);
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(bot->running()) << bot->describe_exit();
}

TEST(BotProcess, ManyBotsFromManyThreads) {
  std::vector<std::unique_ptr<BotProcess>> bots(8);
  std::vector<std::thread> threads;
  for (auto& bot : bots) {
    threads.emplace_back([&bot] { bot = start_sh("echo hi; exec sleep 1000"); });
  }
  for (auto& t : threads) t.join();
  for (auto& bot : bots) {
    ASSERT_NE(bot, nullptr);
    EXPECT_EQ(take_until(*bot, "hi\n"), "hi\n");
    EXPECT_TRUE(bot->running());
  }
  std::vector<std::thread> stoppers;
  for (auto& bot : bots) stoppers.emplace_back([&bot] { bot->stop(); });
  for (auto& t : stoppers) t.join();
  for (auto& bot : bots) EXPECT_TRUE(process_gone(bot->pid()));
}

TEST(BotProcess, UsesPathEnvironmentAndWorkingDir) {
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "echo \"$ALLFIVES_GREETING\"; pwd -P"};
  spec.working_dir = dir->path();
  spec.extra_env = {{"ALLFIVES_GREETING", "hello bot"}};
  auto bot = BotProcess::start(spec, &error);
  ASSERT_NE(bot, nullptr) << error;
  ASSERT_TRUE(exited(*bot));
  bot->stop();
  EXPECT_EQ(bot->take_stderr(),
            "hello bot\n" + std::filesystem::canonical(dir->path()).string() + "\n");
}

TEST(BotProcess, RelativeProgramPathIsTakenFromWorkingDir) {
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  const std::string script = dir->path() + "/bot.sh";
  std::ofstream(script) << "#!/bin/sh\necho script-ran\n";
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  LaunchSpec spec;
  spec.argv = {"./bot.sh"};
  spec.working_dir = dir->path();
  auto bot = BotProcess::start(spec, &error);
  ASSERT_NE(bot, nullptr) << error;
  ASSERT_TRUE(exited(*bot));
  EXPECT_EQ(bot->describe_exit(), "exited with code 0");
  bot->stop();
  EXPECT_EQ(bot->take_stderr(), "script-ran\n");
}

TEST(BotProcess, DoesNotLeakDescriptorsIntoTheBot) {
  // Descriptors of the referee without O_CLOEXEC (a careless library's) must not reach the bot.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::dup2(fds[0], 100), 100);
  ASSERT_EQ(::dup2(fds[1], 101), 101);
  ::close(fds[0]);
  ::close(fds[1]);
  auto bot = start_sh("ls /proc/$$/fd; echo listed");
  ::close(100);
  ::close(101);
  ASSERT_NE(bot, nullptr);
  ASSERT_TRUE(exited(*bot));
  bot->stop();
  const std::string out = bot->take_stderr();
  EXPECT_TRUE(contains(out, "listed")) << out;
  EXPECT_FALSE(contains(out, "100")) << out;
  EXPECT_FALSE(contains(out, "101")) << out;
}

TEST(BotProcess, MissingProgramIsAClearError) {
  LaunchSpec spec;
  spec.argv = {"allfives-no-such-bot-xyz", "--port", "1"};
  const std::string error = start_error(spec);
  EXPECT_TRUE(contains(error, "allfives-no-such-bot-xyz")) << error;
  EXPECT_TRUE(contains(error, "not found in PATH")) << error;

  spec.argv = {"/nonexistent/dir/bot"};
  const std::string error2 = start_error(spec);
  EXPECT_TRUE(contains(error2, "/nonexistent/dir/bot")) << error2;
  EXPECT_TRUE(contains(error2, "No such file or directory")) << error2;
}

TEST(BotProcess, NonExecutableProgramIsAClearError) {
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  const std::string file = dir->path() + "/bot";
  std::ofstream(file) << "#!/bin/sh\n";
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  LaunchSpec spec;
  spec.argv = {file};
  error = start_error(spec);
  EXPECT_TRUE(contains(error, "not executable")) << error;
  spec.argv = {"/tmp"};
  EXPECT_TRUE(contains(start_error(spec), "is a directory"));
  spec.argv = {};
  EXPECT_TRUE(contains(start_error(spec), "empty argv"));
}

TEST(BotProcess, BadWorkingDirIsAClearError) {
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "true"};
  spec.working_dir = "/nonexistent/workdir";
  const std::string error = start_error(spec);
  EXPECT_TRUE(contains(error, "/nonexistent/workdir")) << error;
}

TEST(BotProcess, MissingInterpreterIsReportedFromExec) {
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  const std::string script = dir->path() + "/bot.py";
  std::ofstream(script) << "#!/nonexistent/python9\nprint('hi')\n";
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  LaunchSpec spec;
  spec.argv = {script};
  error = start_error(spec);
  EXPECT_TRUE(contains(error, "cannot execute '" + script + "'")) << error;
  EXPECT_TRUE(contains(error, "#!")) << error;
}

}  // namespace
}  // namespace allfives::referee
