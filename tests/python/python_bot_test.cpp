// End-to-end tests of the Python bot SDK: the real referee against Python bot processes
// started through the launchers the build writes (build/sample_bots/greedy_py and
// build/python/run_bot), next to the C++ sample bots.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "allfives/bot/server.h"
#include "allfives/core/rng.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kRunBot = ALLFIVES_RUN_PYTHON_BOT;
const std::string kRaisingBot = ALLFIVES_RAISING_BOT_PY;
const std::string kForkBombBot = ALLFIVES_FORK_BOMB_BOT_PY;

// `referee match` with the given bots and seed; returns the run and the parsed log.
struct Match {
  RunResult run;
  std::vector<v1::LogRecord> log;
};
Match play(const std::string& dir, std::vector<std::string> bots, int seed,
           const std::string& format = "2p", const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {kReferee, "match", "--seed", std::to_string(seed), "--format",
                                   format, "--log", dir + "/match.jsonl", "--move-time-ms", "2000",
                                   "--startup-timeout-ms", "20000",
                                   // Bots seed themselves from the match id: fix it per seed.
                                   "--match-id", "python-" + std::to_string(seed)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), bots.begin(), bots.end());
  Match m;
  m.run = run(argv, std::chrono::seconds(120));
  m.log = read_log(dir + "/match.jsonl");
  return m;
}

// Every play of a log as comparable text: seat, tile, end, count and points.
std::string plays_of(const std::vector<v1::LogRecord>& log) {
  std::string out;
  for (const auto& r : log) {
    if (!r.has_play()) continue;
    const auto& p = r.play();
    out += std::to_string(p.hand_index()) + ":" + std::to_string(p.seat()) + " " +
           std::to_string(p.play().tile().high()) + "-" + std::to_string(p.play().tile().low()) +
           " " + v1::End_Name(p.play().end()) + " " + std::to_string(p.count()) + "/" +
           std::to_string(p.points()) + "\n";
  }
  return out;
}

TEST(PythonBot, PlaysATournamentWithTheCppBots) {
  const std::string d = temp_dir("tournament");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"python\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy_py\" command: \"" << kGreedyPy << "\" }\n"
                      << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                      << "bots { name: \"random\" command: \"" << kRandom
                      << "\" args: \"--seed\" args: \"4\" }\n"
                      << "matches_per_pairing: 4\nseed: 5\nmove_time_ms: 2000\n"
                      << "startup_timeout_ms: 20000\n";
  const std::string out = d + "/out";
  const RunResult r =
      run({kReferee, "tournament", file, "--out", out, "-j", "2"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const std::string table = read_file(out + "/standings.txt");
  EXPECT_NE(table.find("greedy_py"), std::string::npos) << table;
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(referee::read_index(out + "/index.jsonl", false, entries, notes, &error)) << error;
  EXPECT_EQ(entries.size(), 12u);  // 3 pairings x 4
  int python_matches = 0;
  for (const auto& e : entries) {
    EXPECT_EQ(e.fault_seat(), -1) << e.fault_reason();
    EXPECT_NE(e.reason(), v1::MATCH_END_REASON_FAULT) << e.fault_reason();
    const auto log = read_log(out + "/" + e.log_file());
    expect_log_follows_rules(log);
    const auto& header = only(log, v1::LogRecord::kHeader).header();
    for (const auto& bot : header.bots()) {
      if (bot.display_name() != "greedy_py") continue;
      ++python_matches;
      EXPECT_EQ(bot.name(), "greedy_py");  // what the Python bot said in its Hello
      EXPECT_EQ(bot.version(), "1.0");
    }
  }
  EXPECT_EQ(python_matches, 8);  // 2 pairings x 4
}

// The Python greedy is the C++ greedy decision for decision: against the same random bot on
// the same deals (same match seed, so the same random choices), every play is the same.
TEST(PythonBot, MakesTheSameChoicesAsTheCppGreedy) {
  for (const int seed : {11, 12}) {
    for (const bool python_first : {true, false}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + (python_first ? ", seat 0" : ", seat 1"));
      const std::string tag = std::to_string(seed) + (python_first ? "a" : "b");
      auto bots = [&](const std::string& greedy) {
        return python_first ? std::vector<std::string>{"greedy=" + greedy, "random=" + kRandom}
                            : std::vector<std::string>{"random=" + kRandom, "greedy=" + greedy};
      };
      const std::string py_dir = temp_dir("same-py-" + tag);
      const Match py = play(py_dir, bots(kGreedyPy), seed);
      const Match cpp = play(temp_dir("same-cpp-" + tag), bots(kGreedy), seed);
      ASSERT_EQ(py.run.exit_code, 0) << py.run.output;
      ASSERT_EQ(cpp.run.exit_code, 0) << cpp.run.output;
      expect_log_follows_rules(py.log);
      const std::string plays = plays_of(py.log);
      EXPECT_GT(plays.size(), 100u);
      EXPECT_EQ(plays, plays_of(cpp.log));
      // The line it prints at each decision is under that decision's play, exactly.
      const uint32_t seat = python_first ? 0 : 1;
      int decisions = 0;
      for (const auto& r : py.log) {
        if (!r.has_play() || r.play().seat() != seat) continue;
        ++decisions;
        const v1::LogPlay& p = r.play();
        const int n = p.options_size();
        const std::string end = p.play().end() == v1::END_RIGHT ? "right" : "left";
        EXPECT_EQ(p.output().text(), "chose " + std::to_string(p.play().tile().high()) + "-" +
                                         std::to_string(p.play().tile().low()) + " " + end +
                                         " for " + std::to_string(p.points()) + " (" +
                                         std::to_string(n) + " legal play" + (n == 1 ? "" : "s") +
                                         ")\n")
            << "decision " << decisions;
        EXPECT_EQ(p.output().dropped_bytes(), 0u);
      }
      EXPECT_GT(decisions, 40);
      // `referee replay` prints each of those lines under its play.
      const RunResult shown = run({kReferee, "replay", py_dir + "/match.jsonl", "--print"});
      ASSERT_EQ(shown.exit_code, 0) << shown.output;
      int lines = 0;
      for (size_t at = shown.output.find("printed 1 line:\n  │ chose "); at != std::string::npos;
           at = shown.output.find("printed 1 line:\n  │ chose ", at + 1))
        ++lines;
      EXPECT_EQ(lines, decisions) << shown.output;
      EXPECT_EQ(only(py.log, v1::LogRecord::kMatchEnd).match_end().scores_size(), 2);
      EXPECT_EQ(only(py.log, v1::LogRecord::kMatchEnd).match_end().scores(0),
                only(cpp.log, v1::LogRecord::kMatchEnd).match_end().scores(0));
    }
  }
}

TEST(PythonBot, PlaysFourPlayersAndPartnerships) {
  for (const std::string format : {"4p", "partners"}) {
    SCOPED_TRACE(format);
    std::vector<std::string> bots = {"py=" + kGreedyPy, "random=" + kRandom};
    if (format == "4p") bots = {"py=" + kGreedyPy, kRandom, kGreedy, kRandom};
    const Match m = play(temp_dir("format-" + format), bots, 21, format);
    ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
    expect_log_follows_rules(m.log);
    EXPECT_NE(only(m.log, v1::LogRecord::kMatchEnd).match_end().reason(),
              v1::MATCH_END_REASON_FAULT);
  }
}

// An exception inside a Python bot ends its match (the SDK ends the stream with status
// INTERNAL, the process lives on) as a DISCONNECT fault whose reason carries the exception's
// message; the traceback is in the bot's captured output.
TEST(PythonBot, AnExceptionIsADisconnectFaultWithItsMessage) {
  const Match m =
      play(temp_dir("raising"), {"raising=" + kRunBot + " " + kRaisingBot, "random=" + kRandom}, 3);
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.seat(), 0u);
  EXPECT_EQ(f.kind(), v1::FAULT_KIND_DISCONNECT) << f.reason();
  EXPECT_NE(f.reason().find("gRPC status INTERNAL (13): the bot raised in choose_play"),
            std::string::npos)
      << f.reason();
  EXPECT_NE(f.reason().find("deliberate failure at decision 3"), std::string::npos) << f.reason();
  EXPECT_NE(f.reason().find("ValueError"), std::string::npos) << f.reason();
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(end.fault_seat(), 0);
  EXPECT_EQ(end.fault_kind(), v1::FAULT_KIND_DISCONNECT);
  EXPECT_EQ(end.placements(0), 2u);
  EXPECT_EQ(end.placements(1), 1u);
  int plays = 0;
  for (const auto& r : m.log) plays += r.has_play() && r.play().seat() == 0;
  EXPECT_EQ(plays, 2);  // the third decision raised
  // The traceback it printed is the output of the decision that ended in the fault.
  const std::string& output = f.output().text();
  EXPECT_NE(output.find("Traceback"), std::string::npos) << output;
  EXPECT_NE(output.find("deliberate failure at decision 3"), std::string::npos) << output;
  expect_log_follows_rules(m.log);
}

// A Python bot that forks without bound inside its handler runs into its process limit there:
// os.fork() raises, the SDK ends the stream with an error and the process lives on. Whatever
// the fault's kind, its reason names the limit where the pids cgroup counted the refusals
// (under RLIMIT_NPROC nothing the referee reads counts them).
TEST(PythonBot, AForkBombInItsHandlerIsNamedAsTheProcessLimit) {
  const Match m =
      play(temp_dir("fork-bomb"), {"bomb=" + kRunBot + " " + kForkBombBot, "random=" + kRandom}, 3,
           "2p", {"--max-processes", "24"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.seat(), 0u);
  const auto& bomb = only(m.log, v1::LogRecord::kHeader).header().bots(0).confinement();
  if (bomb.processes_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_NE(f.reason().find("reached its limit of 24 processes and threads"), std::string::npos)
        << f.reason();
  }
}

// The flags of the C++ SDK, and SIGTERM: a graceful stop with status 0.
TEST(PythonBot, FlagsAndSigterm) {
  RunResult r = run({kGreedyPy, "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--listen"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--seed"), std::string::npos) << r.output;
  EXPECT_EQ(run({kGreedyPy}).exit_code, 2);  // --listen is required
  EXPECT_EQ(run({kGreedyPy, "--listen", "nowhere"}).exit_code, 2);
  EXPECT_EQ(run({kGreedyPy, "--listen", "unix:/tmp/x.sock", "--seed", "-3"}).exit_code, 2);
  r = run({kGreedyPy, "--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("greedy_py 1.0"), std::string::npos) << r.output;

  const std::string socket = temp_dir("sigterm") + "/bot.sock";
  referee::LaunchSpec spec;
  spec.argv = {kGreedyPy, "--listen", "unix:" + socket};
  std::string error;
  auto bot = referee::BotProcess::start(spec, &error);
  ASSERT_TRUE(bot) << error;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(socket) && bot->running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(socket)) << bot->take_stderr();
  ::kill(bot->pid(), SIGTERM);
  const auto stop_until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (bot->running() && std::chrono::steady_clock::now() < stop_until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(bot->running()) << "SIGTERM must stop the bot";
  const auto status = bot->exit_status();
  ASSERT_TRUE(status);
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 0);
  EXPECT_NE(bot->take_stderr().find("stop signal received"), std::string::npos);
}

// A virtual environment outside the bot's folder (the SDK installed there, the likeliest
// newcomer set-up): the sandbox does not show it, and the start-up fault says so and names the
// fix; with that fix the same bot plays.
struct VenvBot {
  std::string venv, command;
};
VenvBot venv_bot(const std::string& dir) {
  VenvBot v{dir + "/venv", ""};
  const RunResult made = run({ALLFIVES_PYTHON_EXECUTABLE, "-m", "venv", "--without-pip",
                              "--system-site-packages", v.venv});
  EXPECT_EQ(made.exit_code, 0) << made.output;
  // The SDK as pip would install it: the package in the environment's site-packages.
  const RunResult where = run(
      {v.venv + "/bin/python3", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"});
  const std::string site = where.output.substr(0, where.output.find('\n'));
  fs::copy(fs::path(kRunBot).parent_path() / "allfives_bot", site + "/allfives_bot",
           fs::copy_options::recursive);
  fs::create_directories(dir + "/mybots");
  std::ofstream(dir + "/mybots/first.py") << "import sys\nfrom allfives_bot import Bot, run\n\n"
                                             "class First(Bot):\n"
                                             "    def choose_play(self, view, clock):\n"
                                             "        return 0\n\n"
                                             "sys.exit(run(First, 'first', '1.0'))\n";
  v.command = v.venv + "/bin/python3 " + dir + "/mybots/first.py";
  return v;
}

TEST(PythonBot, AVirtualEnvironmentTheSandboxDoesNotShowIsNamedWithItsFix) {
  const std::string d = temp_dir("venv");
  const VenvBot v = venv_bot(d);
  Match m = play(d, {v.command, kRandom}, 1);
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const v1::LogFault& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.kind(), v1::FAULT_KIND_STARTUP_FAILURE);
  for (const std::string& words :
       {std::string("No module named 'allfives_bot'"),
        "the interpreter belongs to the virtual environment " + v.venv +
            " (its pyvenv.cfg), "
            "which the sandbox does not show",
        // The whole command, corrected: the flag right after the command's name.
        "Run it as: " + kReferee + " match --read-only " + v.venv + " ",
        "`read_only_dirs: \"" + v.venv + "\"`"})
    EXPECT_NE(f.reason().find(words), std::string::npos) << words << "\nin: " << f.reason();
  m = play(d, {v.command, kRandom, "--read-only", v.venv}, 1);
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(m.run.output.find("Fault:"), std::string::npos) << m.run.output;
  EXPECT_EQ(only(m.log, v1::LogRecord::kHeader).header().bots(0).name(), "first");
}

// `referee check-bot` on the same bot: the start fails naming the fix, then with the fix the
// Python bot passes every check (sandboxed, as a match starts it).
TEST(PythonBot, CheckBotNamesTheHiddenVirtualEnvironmentThenPasses) {
  const std::string d = temp_dir("venv-check");
  const VenvBot v = venv_bot(d);
  RunResult r = run({kReferee, "check-bot", v.command}, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string folded = std::regex_replace(r.output, std::regex("\n *"), " ");
  EXPECT_NE(folded.find("FAIL  start"), std::string::npos) << r.output;
  EXPECT_NE(folded.find("the interpreter belongs to the virtual environment " + v.venv +
                        " (its pyvenv.cfg), which the sandbox does not show. Run it as: " +
                        kReferee + " check-bot --read-only " + v.venv + " '" + v.command + "'"),
            std::string::npos)
      << r.output;
  r = run({kReferee, "check-bot", "--read-only", v.venv, v.command}, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("name \"first\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("The bot conforms."), std::string::npos) << r.output;
}

// MatchInfo.seed and SplitMix64 are bit for bit those of the C++ SDK and rules core.
TEST(PythonBot, SeedsAreTheCppSdkSeeds) {
  const RunResult r = run({kRunBot, "-c",
                           "from allfives_bot import rng\n"
                           "print(rng.match_seed(7, 'demo-0001', 2), rng.match_seed(0, '', 0))\n"
                           "g = rng.SplitMix64(42)\n"
                           "print(g.next(), g.below(7), g.below(1000003))\n"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  SplitMix64 g(42);
  const uint64_t first = g.next();
  const uint32_t a = g.below(7);
  const uint32_t b = g.below(1000003);
  std::ostringstream want;
  want << bot::match_seed(7, "demo-0001", 2) << " " << bot::match_seed(0, "", 0) << "\n"
       << first << " " << a << " " << b << "\n";
  EXPECT_EQ(r.output, want.str());
}

}  // namespace
}  // namespace allfives::e2e
