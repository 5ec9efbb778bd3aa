// `referee check-bot` end to end: the real referee checks real programs, sandboxed as a match
// starts them, and every mistake of a newcomer comes out as a failed check that names its fix;
// a conforming bot passes every check and the command exits 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "process/bot_process.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

struct Check {
  int exit_code = -1;
  std::string text;  // the report with its line breaks and indentation folded into spaces
  std::string raw;
};

Check check(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kReferee, "check-bot"};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run(argv, std::chrono::seconds(90));
  return {r.exit_code, std::regex_replace(r.output, std::regex("\n *"), " "), r.output};
}

// The misbehaving bot in `mode`, after short time limits so a failure is quick.
Check check_bad(const std::string& mode, const std::vector<std::string>& more = {},
                const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args = {"--move-time-ms",       "300", "--time-bank-ms", "300",
                                   "--startup-timeout-ms", "1500"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(kBadBot);
  args.push_back("--mode");
  args.push_back(mode);
  args.insert(args.end(), more.begin(), more.end());
  return check(args);
}

void expect_has(const Check& c, const std::string& words) {
  EXPECT_NE(c.text.find(words), std::string::npos) << "missing: " << words << "\nin:\n" << c.raw;
}

// The report line of `name` starts with this mark.
void expect_line(const Check& c, const std::string& mark, const std::string& name) {
  const std::string head = "\n" + mark + "  " + name + " ";
  EXPECT_NE(("\n" + c.raw).find(head), std::string::npos)
      << "no line '" << head.substr(1) << "' in:\n"
      << c.raw;
}

// Lines of the report that hold `part`.
int lines_with(const Check& c, const std::string& part) {
  int n = 0;
  std::istringstream lines(c.raw);
  for (std::string line; std::getline(lines, line);) n += contains(line, part);
  return n;
}

// Times `part` occurs in the report, its lines folded.
int times_in(const Check& c, const std::string& part) {
  int n = 0;
  for (size_t at = c.text.find(part); at != std::string::npos; at = c.text.find(part, at + 1)) ++n;
  return n;
}

// `text` with each run of spaces made one space.
std::string squeezed(const std::string& text) {
  return std::regex_replace(text, std::regex(" +"), " ");
}

// The report's one line for a kind of failure, `label` ("time-out ×2"), says `detail`.
void expect_failure(const Check& c, const std::string& label, const std::string& detail) {
  EXPECT_EQ(lines_with(c, "  " + label + " "), 1) << "no one line for " << label << " in:\n"
                                                  << c.raw;
  EXPECT_TRUE(contains(squeezed(c.text), label + " " + detail))
      << "missing: " << label << " " << detail << "\nin:\n"
      << c.raw;
}

// The text of every fix in the report, each folded into one line.
std::vector<std::string> fixes(const Check& c) {
  std::vector<std::string> out;
  const std::regex fix("\n {19}fix: ([^\n]*(\n {24}[^\n]*)*)");
  for (auto m = std::sregex_iterator(c.raw.begin(), c.raw.end(), fix); m != std::sregex_iterator();
       ++m)
    out.push_back(std::regex_replace((*m)[1].str(), std::regex("\n *"), " "));
  return out;
}

// The match logs in `dir`: one per match the check played.
int logs_in(const std::string& dir) {
  int logs = 0;
  for (const auto& e : fs::directory_iterator(dir)) logs += e.path().extension() == ".jsonl";
  return logs;
}

const char* const kEveryCheck[] = {"start",     "Hello",        "2 players", "3 players",
                                   "4 players", "partnerships", "reuse",     "time"};

TEST(CheckBot, ASampleBotConformsInEveryCheck) {
  const Check c = check({"--decisions", "60", kGreedy});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  for (const char* name : kEveryCheck) expect_line(c, "ok  ", name);
  expect_line(c, "ok  ", "stop");
  expect_has(c, "(sandboxed; memory 1024 MiB");
  expect_has(c,
             "serving at unix:/run/bot/seat0.sock (the --listen address passed), health check "
             "SERVING");
  expect_has(c, "name \"greedy\", version \"1.0\", protocol version");
  expect_has(c, "seat 3 of 4 (its partner, seat 1, built in)");
  expect_has(c, "matches on one process, as a tournament plays them");
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(c.text, found,
                      std::regex("median [0-9.]+ ms, max [0-9.]+ ms over ([0-9]+) "
                                 "decisions; move time 1000 ms"));
    return found;
  }();
  ASSERT_FALSE(m.empty()) << c.raw;
  EXPECT_GE(std::stoi(m[1]), 60);
  expect_has(c, "| greedy 1.0 listening on unix:/run/bot/seat0.sock");  // what it printed
  expect_has(c, "The bot conforms.");
}

TEST(CheckBot, ABotOnTcpIsToldTheAddressPassed) {
  const Check c = check_bad("listen-tcp");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "FAIL", "start");
  expect_has(c,
             "It did not listen on the address passed: the referee passed `--listen "
             "unix:/run/bot/seat0.sock`, but it listens on [::]:50051 (TCP).");
  for (const char* name : {"Hello", "2 players", "time", "stop"}) expect_line(c, "--  ", name);
  expect_has(c, "The bot does not conform: 1 check failed.");
}

TEST(CheckBot, ABotOnItsOwnUnixSocketIsToldTheAddressPassed) {
  const Check c = check_bad("listen-own-unix");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c,
             "the referee passed `--listen unix:/run/bot/seat0.sock`, but it listens on "
             "unix:/tmp/misbehaving.sock");
}

TEST(CheckBot, ASlowStartIsToldTheLimitAndItsFlag) {
  const Check c = check_bad("slow-start", {"--ms", "5000"}, {"--startup-timeout-ms", "700"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "FAIL", "start");
  expect_has(c,
             "The limit is the start-up timeout of 700 ms (--startup-timeout-ms of referee "
             "match and check-bot, startup_timeout_ms in a tournament file); raise it if the "
             "bot is only slow to start.");
}

TEST(CheckBot, ABotWithoutTheHealthServiceIsToldToServeIt) {
  const Check c = check_bad("no-health");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c,
             "its health check never answered SERVING: serve the standard "
             "grpc.health.v1.Health service");
}

TEST(CheckBot, AProgramThatRefusesListenIsToldToTakeIt) {
  const Check c = check_bad("no-listen-flag");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c, "(exited with code 2). It seems not to accept --listen");
  expect_has(c, "unrecognized arguments: --listen unix:/run/bot/seat0.sock");
}

TEST(CheckBot, AProgramThatExitsAtOnceShowsItsCodeAndOutput) {
  const Check c = check_bad("exit-at-startup");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c, "exited with code 7");
  expect_has(c, "misbehaving_bot: exiting at startup as asked");
}

TEST(CheckBot, AWrongProtocolVersionFailsHello) {
  const Check c = check_bad("wrong-version");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "ok  ", "start");
  expect_line(c, "FAIL", "Hello");
  expect_has(c,
             "protocol_violation: the bot speaks protocol version 99 but this referee speaks "
             "version");
  expect_has(c, "fix: answer MatchStart with Hello (protocol_version PROTOCOL_VERSION_CURRENT)");
}

TEST(CheckBot, ABotThatServesOneMatchOnlyFailsReuse) {
  const Check c = check_bad("exit-after-match");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  for (const char* name : {"2 players", "3 players", "4 players", "partnerships"})
    expect_line(c, "ok  ", name);
  expect_line(c, "FAIL", "reuse");
  expect_has(c, "the bot process exited with code 0 after its match 1 ended");
  expect_has(c,
             "fix: a tournament plays match after match on one process: keep serving until "
             "SIGTERM");
}

TEST(CheckBot, FaultsInMatchesNameTheKindAndTheFix) {
  Check c = check_bad("hang", {"--at", "3"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "FAIL", "2 players");
  expect_has(c, "seat 0 of 2: time-out in hand 1; it had answered 2 turn requests (see below)");
  expect_failure(c, "time-out ×2",
                 "in 2 decisions; the first (2 players, match 1, hand 1): no answer to the turn "
                 "request within 600 ms (move time 300 ms + bank 300 ms)");
  expect_has(c, "Clock::hard_deadline() in C++");
  c = check_bad("illegal", {"--at", "2"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c, "illegal play in hand 1; it had answered 2 turn requests");
  expect_failure(c, "illegal play ×4",
                 "in 4 decisions; the first (2 players, match 1, hand 1): played");
  expect_has(c, "fix: answer with one of the legal plays the turn request lists");
  c = check_bad("crash", {"--at", "2"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_has(c, "crash in hand 1; it had answered 1 turn request");
  expect_failure(c, "crash ×4",
                 "in 4 decisions; the first (2 players, match 1, hand 1): the bot process exited "
                 "with code 3");
  // Each format is still tried, on a fresh process after each fault.
  for (const char* name : {"2 players", "3 players", "4 players", "partnerships"})
    expect_line(c, "FAIL", name);
}

TEST(CheckBot, ARepeatedFailureIsOneLineWithItsCountAndOneFix) {
  Check c = check_bad("hang", {"--at", "3"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_failure(c, "time-out ×2", "in 2 decisions; the first (2 players, match 1, hand 1):");
  EXPECT_EQ(lines_with(c, "  time-out ×"), 1) << c.raw;  // no other line counts it again
  EXPECT_EQ(times_in(c, "no answer to the turn request within"), 1) << c.raw;
  EXPECT_EQ(fixes(c).size(), 1u) << c.raw;
  // Faults that cost no waiting are each still met in every format, and still said once.
  c = check_bad("crash", {"--at", "2"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_failure(c, "crash ×4", "in 4 decisions;");
  EXPECT_EQ(times_in(c, "exited with code 3"), 1) << c.raw;
  EXPECT_EQ(fixes(c).size(), 1u) << c.raw;
}

TEST(CheckBot, DecisionsThatTimedOutFailTheTimeLine) {
  const Check c = check_bad("hang", {"--at", "3"});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "FAIL", "time");
  EXPECT_EQ(lines_with(c, "ok    time"), 0) << c.raw;
  // Each of the two matches: two decisions answered, the third timed out.
  expect_has(c, "2 of 6 decisions timed out; the 4 answered in time: median");
}

TEST(CheckBot, ATimeOutsFixSaysWhereItHappened) {
  Check c = check_bad("hang", {"--at", "3"});
  ASSERT_EQ(fixes(c).size(), 1u) << c.raw;
  EXPECT_TRUE(contains(fixes(c)[0], "answer every turn request before the move time")) << c.raw;
  EXPECT_FALSE(contains(fixes(c)[0], "Hello")) << c.raw;
  c = check_bad("no-hello");
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  expect_line(c, "FAIL", "Hello");
  expect_has(c, "timeout: no Hello within 1500 ms of MatchStart");
  ASSERT_EQ(fixes(c).size(), 1u) << c.raw;
  EXPECT_TRUE(contains(fixes(c)[0], "answer MatchStart with Hello at once")) << c.raw;
  EXPECT_FALSE(contains(fixes(c)[0], "turn request")) << c.raw;
  expect_line(c, "--  ", "time");
  // A bot too slow to start is told the start-up timeout, not the move time.
  c = check_bad("slow-start", {"--ms", "5000"}, {"--startup-timeout-ms", "700"});
  expect_line(c, "FAIL", "start");
  expect_has(c, "The limit is the start-up timeout of 700 ms");
  EXPECT_EQ(lines_with(c, "turn request"), 0) << c.raw;
}

TEST(CheckBot, ARepeatedTimeOutStopsTheMatchesEarly) {
  const std::string dir = temp_dir("check-stop-early") + "/logs";
  const Check c = check_bad("hang", {"--at", "1"}, {"--log-dir", dir});
  EXPECT_EQ(c.exit_code, 1) << c.raw;
  EXPECT_EQ(logs_in(dir), 2) << c.raw;  // the two matches that timed out, no further one
  for (const char* name : {"2 players", "3 players"}) expect_line(c, "FAIL", name);
  for (const char* name : {"4 players", "partnerships"}) expect_line(c, "--  ", name);
  EXPECT_EQ(lines_with(c, "not played: the check stopped early, after time-out ×2"), 2) << c.raw;
  expect_has(c,
             "The check stopped early: after time-out ×2 it played no further match, since each "
             "would wait out the time limit again; not played: 4 players, partnerships.");
  expect_has(c, "2 of 2 decisions timed out; move time 300 ms");
  expect_line(c, "ok  ", "stop");  // the checks after the matches still run
}

TEST(CheckBot, SlowDecisionsAreAWarningNamingTheBank) {
  const Check c = check_bad("late", {"--at", "2", "--ms", "450"});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_line(c, "warn", "time");
  expect_has(c, "the slowest decisions drew on the time bank of 300 ms");
  expect_has(c, "The bot conforms (see the warnings above).");
}

TEST(CheckBot, WhatTheBotPrintedIsShownInExcerpts) {
  const Check c = check_bad("chatty");
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_has(c, "What it printed (stdout and stderr,");
  expect_has(c, "| chatty: hello on stdout");
  expect_has(c, "| chatty: hello on stderr");
  // The bot's escape sequences are shown, not obeyed by the terminal.
  expect_has(c, "| chatty: \\x1b[2J\\x1b[Hcleared");
  EXPECT_EQ(c.raw.find('\x1b'), std::string::npos);
  EXPECT_TRUE(std::regex_search(c.raw, std::regex("\\| \\[\\.\\.\\. [0-9]+ lines \\.\\.\\.\\]")))
      << c.raw;
}

TEST(CheckBot, WithoutTheSandboxTheStopCheckSeesTheBotItself) {
  Check c = check({"--no-sandbox", kGreedy});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_has(c, "ok    stop         exited with code 0");
  expect_has(c, "ms after SIGTERM");
  c = check_bad("ignore-sigterm", {}, {"--no-sandbox"});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_line(c, "warn", "stop");
  expect_has(c, "still running 2000 ms after SIGTERM: the referee then kills it (SIGKILL)");
}

TEST(CheckBot, KeptLogsAreRealMatchesThatVerify) {
  const std::string dir = temp_dir("check-logs") + "/logs";
  const Check c = check({"--decisions", "1", "--log-dir", dir, kGreedy});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_has(c, "The check matches' logs: " + dir);
  EXPECT_EQ(logs_in(dir), 4);  // one per format
  const RunResult v = run({kReferee, "verify", dir});
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

TEST(CheckBot, ABotAlreadyServingAtAnAddress) {
  const std::string socket = temp_dir("check-address") + "/bot.sock";
  referee::LaunchSpec spec;
  spec.argv = {kGreedy, "--listen", "unix:" + socket};
  std::string error;
  auto bot = referee::BotProcess::start(spec, &error);
  ASSERT_TRUE(bot) << error;
  const Check c = check({"unix:" + socket});
  EXPECT_EQ(c.exit_code, 0) << c.raw;
  expect_has(c, "ok    start        serving at unix:" + socket + ", health check SERVING");
  expect_has(c, "--    stop         a bot reached at an address is not the referee's to stop");
  EXPECT_TRUE(bot->running());
}

TEST(CheckBot, BadArgumentsExit2AndNoSandboxExits3) {
  Check c = check({});
  EXPECT_EQ(c.exit_code, 2) << c.raw;
  expect_has(c, "give the bot's command");
  c = check({"--decisions", "0", kGreedy});
  EXPECT_EQ(c.exit_code, 2) << c.raw;
  const std::string dir = temp_dir("check-no-bwrap");
  const RunResult r = run({"/usr/bin/env", "PATH=" + dir, kReferee, "check-bot", kGreedy});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("the bwrap program (bubblewrap) is not installed"), std::string::npos)
      << r.output;
}

TEST(CheckBot, HelpNamesEveryCheckAndTheExitCodes) {
  const RunResult r = run({kReferee, "check-bot", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : kEveryCheck) EXPECT_NE(r.output.find(name), std::string::npos) << name;
  EXPECT_NE(r.output.find("Exit status: 0 the bot conforms"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--read-only"), std::string::npos) << r.output;  // the sandbox flags
}

}  // namespace
}  // namespace allfives::e2e
