// A bot that does not start says what to do: the real referee against misbehaving programs
// (sandboxed, as every started bot is by default), each start-up mistake of a newcomer turned
// into a fault reason that names the cause and the fix; and the pieces those messages are
// built from (where a process listens, the virtual environment of an interpreter).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bots/startup_failure.h"
#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

std::string bad(const std::string& mode, int ms = 0) {
  return kBadBot + " --mode " + mode + " --ms " + std::to_string(ms);
}

// The reason of the start-up fault of seat 0, after checking that it is one.
std::string startup_reason(const std::string& name, const std::string& bot,
                           const std::vector<std::string>& extra = {}) {
  const PlayedMatch m = play_match(kReferee, name, {bot, kRandom}, 300, 200, extra);
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  const v1::LogFault& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.kind(), v1::FAULT_KIND_STARTUP_FAILURE) << f.reason();
  EXPECT_EQ(f.seat(), 0u);
  // The terminal shows the same words.
  EXPECT_NE(m.run.output.find("seat 0 failed to start: " + f.reason().substr(0, 40)),
            std::string::npos)
      << m.run.output;
  return f.reason();
}

void expect_has(const std::string& text, const std::string& words) {
  EXPECT_NE(text.find(words), std::string::npos) << "missing: " << words << "\nin: " << text;
}

const std::string kPassed = "the referee passed `--listen unix:/run/bot/seat0.sock`";

TEST(StartupFailure, ASlowStartNamesTheLimitAndItsFlags) {
  const std::string r =
      startup_reason("slow", bad("slow-start", 5000), {"--startup-timeout-ms", "700"});
  expect_has(r, "The referee passed `--listen unix:/run/bot/seat0.sock`");
  expect_has(r,
             "the start-up timeout of 700 ms (--startup-timeout-ms of referee match and "
             "check-bot, startup_timeout_ms in a tournament file)");
  expect_has(r, "was never created");
}

TEST(StartupFailure, ABotOnTcpInsteadOfTheListenAddressIsToldTheAddressPassed) {
  const std::string r = startup_reason("tcp", bad("listen-tcp"), {"--startup-timeout-ms", "1500"});
  expect_has(r, "It did not listen on the address passed: " + kPassed);
  expect_has(r, ":50051 (TCP)");
  expect_has(r, "Serve on the address --listen gives");
  // Not a slow start: raising the timeout would not help.
  EXPECT_EQ(r.find("raise it"), std::string::npos) << r;
}

TEST(StartupFailure, ABotOnItsOwnUnixSocketIsToldTheAddressPassed) {
  const std::string r =
      startup_reason("ownunix", bad("listen-own-unix"), {"--startup-timeout-ms", "1500"});
  expect_has(r, "It did not listen on the address passed: " + kPassed +
                    ", but it listens on unix:/tmp/misbehaving.sock");
}

TEST(StartupFailure, ABotWithoutTheHealthServiceIsToldToServeIt) {
  const std::string r =
      startup_reason("nohealth", bad("no-health"), {"--startup-timeout-ms", "1000"});
  expect_has(r, "It listens on the address passed, but its health check never answered SERVING");
  expect_has(r, "grpc.health.v1.Health");
  expect_has(r, "UNIMPLEMENTED");
}

TEST(StartupFailure, AProgramThatRefusesListenIsToldItMustTakeIt) {
  const std::string r = startup_reason("nolisten", bad("no-listen-flag"));
  expect_has(r, "exited with code 2");
  expect_has(r, "It seems not to accept --listen (" + kPassed + ")");
  expect_has(r, "unrecognized arguments: --listen unix:/run/bot/seat0.sock");  // its output
}

// A folder with a pyvenv.cfg, an interpreter in its bin/ (a copy of a shell: only its path
// matters) and a script whose #! line names it, directly or through env.
struct FakeVenv {
  std::string root, python, script, env_script;
};

FakeVenv make_venv(const std::string& dir) {
  FakeVenv v{dir + "/venv", dir + "/venv/bin/python3", dir + "/venv/bin/allfives-bot",
             dir + "/tool"};
  fs::create_directories(v.root + "/bin");
  std::ofstream(v.root + "/pyvenv.cfg") << "home = /usr/bin\n";
  fs::copy_file("/bin/sh", v.python);
  std::ofstream(v.script) << "#!" << v.python << "\nprint('hi')\n";
  fs::permissions(v.script, fs::perms::owner_all);
  return v;
}

TEST(StartupFailure, TheVirtualEnvironmentOfAnInterpreterOrAScript) {
  const FakeVenv v = make_venv(temp_dir("venv-of"));
  EXPECT_EQ(referee::virtual_environment_of({v.python, "bot.py"}), v.root);
  EXPECT_EQ(referee::virtual_environment_of({v.script}), v.root);
  // Through env, the interpreter found on PATH (the referee's, which bots get too).
  const std::string env_dir = temp_dir("venv-of-env");
  std::ofstream(env_dir + "/run") << "#!/usr/bin/env -S python3 -u\n";
  fs::permissions(env_dir + "/run", fs::perms::owner_all);
  const std::string saved = std::getenv("PATH");
  ::setenv("PATH", (v.root + "/bin:" + saved).c_str(), 1);
  EXPECT_EQ(referee::virtual_environment_of({env_dir + "/run"}), v.root);
  ::setenv("PATH", saved.c_str(), 1);
  // Debian's own interpreter belongs to none; nor does a program that is not Python.
  EXPECT_EQ(referee::virtual_environment_of({"/usr/bin/python3"}), std::nullopt);
  EXPECT_EQ(referee::virtual_environment_of({"/bin/sh"}), std::nullopt);
  EXPECT_EQ(referee::virtual_environment_of({"no-such-program-here"}), std::nullopt);
}

TEST(StartupFailure, TheMessageForAMissingModuleOfAHiddenVirtualEnvironment) {
  const FakeVenv v = make_venv(temp_dir("venv-msg"));
  referee::StartupFailure f;
  f.why = "the bot process exited before it was ready";
  f.exit = "exited with code 1";
  f.command = {v.python, "/home/me/bots/first.py"};
  f.listen = "unix:/run/bot/seat0.sock";
  f.sandboxed = true;
  f.visible_dirs = {v.root + "/bin", "/home/me/bots"};
  f.output = "ModuleNotFoundError: No module named 'allfives_bot'\n";
  const std::string hidden = referee::describe_startup_failure(f);
  expect_has(hidden,
             "Python found no module 'allfives_bot': the interpreter belongs to the "
             "virtual environment " +
                 v.root);
  expect_has(hidden, "Add `--read-only " + v.root + "` right after `referee match`");
  expect_has(hidden, "`read_only_dirs: \"" + v.root + "\"`");
  // From a command line, the whole corrected command: the flag right after the command's name.
  referee::set_invocation({"build/referee/referee", "check-bot", v.python + " first.py"});
  expect_has(referee::describe_startup_failure(f),
             "Run it as: build/referee/referee check-bot --read-only " + v.root + " '" + v.python +
                 " first.py'");
  referee::set_invocation({"r", "match", "a", "b", "--seed", "7"});
  expect_has(referee::describe_startup_failure(f),
             "Run it as: r match --read-only " + v.root + " a b --seed 7");
  referee::set_invocation({});
  // Shown (the user gave it), or no sandbox: the module is really missing; nothing is said.
  f.visible_dirs.push_back(v.root);
  EXPECT_EQ(referee::describe_startup_failure(f).find("pyvenv.cfg"), std::string::npos);
  f.visible_dirs.pop_back();
  f.sandboxed = false;
  EXPECT_EQ(referee::describe_startup_failure(f).find("pyvenv.cfg"), std::string::npos);
}

// Debian's python3 without the SDK (the README's check-bot line as a newcomer first types it):
// the runner of this build, or a virtual environment with --read-only.
TEST(StartupFailure, TheMessageForASystemPythonWithoutTheSdk) {
  referee::StartupFailure f;
  f.why = "the bot process exited before it was ready";
  f.exit = "exited with code 1";
  f.command = {"/usr/bin/python3", "/home/me/bots/first.py"};
  f.sandboxed = true;
  f.output = "ModuleNotFoundError: No module named 'allfives_bot'\n";
  const std::string text = referee::describe_startup_failure(f);
  expect_has(text, "This Python has no allfives_bot (the Python SDK): start the bot with ");
  expect_has(text, "--read-only on that environment");
  f.output = "ModuleNotFoundError: No module named 'numpy'\n";
  EXPECT_EQ(referee::describe_startup_failure(f).find("allfives_bot"), std::string::npos);
}

// The JavaScript kit's packages hidden by the sandbox get their fix as Python's do: the folder
// its runner's NODE_PATH names, with --read-only, in the whole corrected command.
TEST(StartupFailure, TheMessageForANodePackageTheSandboxHides) {
  const std::string d = temp_dir("node-hidden");
  fs::create_directories(d + "/kit/node_modules/@grpc/grpc-js");
  std::ofstream(d + "/run_bot") << "#!/bin/sh\nNODE_PATH=\"" << d << "/kit/node_modules\"\n"
                                << "export NODE_PATH\nexec /usr/bin/node \"$@\"\n";
  referee::StartupFailure f;
  f.why = "the bot process exited before it was ready";
  f.command = {d + "/run_bot", d + "/first.js"};
  f.sandboxed = true;
  f.visible_dirs = {d};
  f.output = "Error: Cannot find module '@grpc/grpc-js'\nRequire stack:\n- " + d + "/x.js\n";
  // The folder of the runner is shown, so its node_modules would be too: nothing to say.
  EXPECT_EQ(referee::describe_startup_failure(f).find("Node found no package"), std::string::npos);
  f.visible_dirs = {};
  referee::set_invocation({"r", "match", d + "/run_bot " + d + "/first.js", "random"});
  expect_has(referee::describe_startup_failure(f),
             "Node found no package '@grpc/grpc-js': it is in " + d +
                 "/kit/node_modules, which the sandbox does not show. Run it as: r match "
                 "--read-only " +
                 d + "/kit/node_modules '");
  referee::set_invocation({});
}

TEST(StartupFailure, ListeningAddressesOfAProcessAreItsOwnOnly) {
  const std::string dir = temp_dir("listening");
  const std::string path = dir + "/mine.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::vector<std::string> before = referee::listening_addresses(::getpid());
  EXPECT_EQ(std::count(before.begin(), before.end(), "unix:" + path), 0);  // bound, not listening
  ASSERT_EQ(::listen(fd, 1), 0);
  const std::vector<std::string> after = referee::listening_addresses(::getpid());
  EXPECT_EQ(std::count(after.begin(), after.end(), "unix:" + path), 1);
  ::close(fd);
}

// The scan reads /proc/PID/stat of every process on the machine, and any of them may exit
// between the file's open and its read, which then fails with ESRCH. Read through an
// istreambuf_iterator, that failure is an exception, which would abort the referee while it
// describes why a bot did not start. Here processes start and exit without pause while the scan
// runs again and again for two seconds; read that way, a scan threw within the first second.
TEST(StartupFailure, ListeningAddressesSurviveProcessesThatExitDuringTheScan) {
  std::atomic<bool> done{false};
  std::atomic<long> exited{0};
  // 64 children at a time, each exiting after 0.1 to 1.6 ms: some always die mid-scan.
  std::thread churn([&] {
    int alive = 0;
    for (unsigned k = 0; !done || alive > 0; ++k) {
      if (!done && alive < 64) {
        const pid_t pid = ::fork();
        if (pid == 0) {
          ::usleep(100 + (k * 7919u) % 1500u);
          ::_exit(0);
        }
        if (pid > 0) ++alive;
        continue;
      }
      if (::waitpid(-1, nullptr, 0) > 0) {
        --alive;
        ++exited;
      }
    }
  });
  long scans = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::string thrown;
  while (thrown.empty() && std::chrono::steady_clock::now() < until) {
    try {
      referee::listening_addresses(::getpid());
    } catch (const std::exception& e) {
      thrown = e.what();
    }
    ++scans;
  }
  done = true;
  churn.join();
  EXPECT_EQ(thrown, "") << "after " << scans << " scans";
  EXPECT_GT(scans, 10);
  EXPECT_GT(exited, 100);
}

}  // namespace
}  // namespace allfives::e2e
