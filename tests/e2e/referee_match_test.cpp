// End-to-end tests of `referee match`: the real referee binary against real bot processes.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "allfives/wire/convert.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "process/capped_output.h"

namespace allfives::e2e {
namespace {

using Match = PlayedMatch;
using referee::CappedOutput;

// Runs `referee match` with short time limits and returns its output and parsed log.
Match play(const std::string& name, const std::vector<std::string>& bots,
           const std::vector<std::string>& extra = {}) {
  return play_match(kReferee, name, bots, 300, 200, extra);
}

std::string bad(const std::string& mode, int at = 3, int ms = 0) {
  return kBadBot + " --mode " + mode + " --at " + std::to_string(at) + " --ms " +
         std::to_string(ms);
}

// Asserts the match ended by a fault of `kind` at seat 0, with the reason containing `words`.
void expect_fault(const Match& m, v1::FaultKind kind, const std::string& words) {
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.seat(), 0u);
  EXPECT_EQ(f.kind(), kind) << f.reason();
  EXPECT_NE(f.reason().find(words), std::string::npos) << f.reason();
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(end.fault_seat(), 0);
  EXPECT_EQ(end.fault_kind(), kind);
  EXPECT_EQ(end.winner_side(), 1);
  EXPECT_EQ(end.placements(0), 2u);
  EXPECT_EQ(end.placements(1), 1u);
  EXPECT_NE(m.run.output.find("Fault: seat 0"), std::string::npos) << m.run.output;
  // Whatever happened before the fault still follows the rules.
  expect_log_follows_rules(m.log);
}

TEST(RefereeMatch, SampleBotsPlayACleanMatch) {
  const Match m = play("clean", {"greedy=" + kGreedy, "random=" + kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_NE(m.run.output.find("Winner: side"), std::string::npos) << m.run.output;
  EXPECT_NE(m.run.output.find("Log: "), std::string::npos);
  const auto& h = only(m.log, v1::LogRecord::kHeader).header();
  EXPECT_EQ(h.seed(), 7u);
  EXPECT_EQ(h.bots(0).name(), "greedy");
  EXPECT_EQ(h.bots(1).name(), "random");
  EXPECT_EQ(h.protocol_version(), wire::kProtocolVersion);
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_TARGET);
  EXPECT_GE(end.scores(end.winner_side()), 250u);
  for (const auto& r : m.log) {
    if (r.has_play()) {
      EXPECT_GT(r.play().legal_play_count(), 0u);
    }
  }
  expect_log_follows_rules(m.log);
}

TEST(RefereeMatch, ThreePlayers) {
  const Match m = play("three", {kGreedy, kRandom, kGreedy}, {"--format", "3p"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_TARGET);
  EXPECT_EQ(end.scores_size(), 3);
  EXPECT_GE(end.scores(end.winner_side()), 200u);
  expect_log_follows_rules(m.log);
}

TEST(RefereeMatch, PartnershipsWithOneBotPerSide) {
  const Match m = play("partners", {kGreedy, kRandom}, {"--format", "partners"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& h = only(m.log, v1::LogRecord::kHeader).header();
  ASSERT_EQ(h.bots_size(), 4);
  EXPECT_EQ(h.bots(2).name(), "greedy");  // seats 0 and 2 are one side
  EXPECT_EQ(h.bots(3).name(), "random");
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.scores_size(), 2);
  EXPECT_GE(end.scores(end.winner_side()), 250u);
  expect_log_follows_rules(m.log);
}

TEST(RefereeMatch, BotsWithoutANameGoByTheNameInTheirHello) {
  // The programs are greedy_bot and random_bot; their Hellos say "greedy" and "random".
  const Match m = play("hello-names", {kGreedy, "mine=" + kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& h = only(m.log, v1::LogRecord::kHeader).header();
  EXPECT_EQ(h.bots(0).display_name(), "greedy");
  EXPECT_EQ(h.bots(1).display_name(), "mine");  // a name the user gives wins
  EXPECT_EQ(h.bots(1).name(), "random");
  EXPECT_NE(m.run.output.find("side 0 (greedy)"), std::string::npos) << m.run.output;
  EXPECT_NE(m.run.output.find("side 1 (mine)"), std::string::npos) << m.run.output;
}

// common.proto: a tile in an answer may name its halves in either order.
TEST(RefereeMatch, ReversedTileInAnAnswerIsTheSameTile) {
  const Match m = play("reversed", {bad("reversed-tiles"), kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  for (const auto& r : m.log) EXPECT_FALSE(r.has_fault()) << r.fault().reason();
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_TARGET);
  int reversed = 0;  // plays of seat 0 whose answer was reversed: every non-double
  for (const auto& r : m.log) {
    if (!r.has_play() || r.play().seat() != 0) continue;
    const v1::Tile& t = r.play().play().tile();
    EXPECT_GE(t.high(), t.low()) << "the log spells every tile high half first";
    reversed += t.high() != t.low();
  }
  EXPECT_GT(reversed, 0);
  expect_log_follows_rules(m.log);
}

TEST(RefereeMatch, ConnectsToABotStartedByTheTest) {
  const std::string dir = temp_dir("connect");
  referee::LaunchSpec spec;
  spec.argv = {kGreedy, "--listen", "unix:" + dir + "/greedy.sock"};
  std::string error;
  auto bot = referee::BotProcess::start(spec, &error);
  ASSERT_TRUE(bot) << error;
  const Match m = play("connect-run", {"served=unix:" + dir + "/greedy.sock", kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& h = only(m.log, v1::LogRecord::kHeader).header();
  EXPECT_EQ(h.bots(0).command(), "");
  EXPECT_EQ(h.bots(0).address(), "unix:" + dir + "/greedy.sock");
  EXPECT_EQ(h.bots(0).display_name(), "served");
  expect_log_follows_rules(m.log);
  EXPECT_TRUE(bot->running()) << "the referee must not stop a bot it did not start";
  bot->stop();
}

TEST(RefereeFaults, CrashAtMoveK) {
  expect_fault(play("crash", {bad("crash"), kRandom}), v1::FAULT_KIND_CRASH, "exited with code 3");
}

TEST(RefereeFaults, Hang) {
  expect_fault(play("hang", {bad("hang"), kRandom}), v1::FAULT_KIND_TIMEOUT, "no answer");
}

TEST(RefereeFaults, AnswerAfterTheDeadline) {
  // 300 ms per move + 200 ms bank: an answer after 700 ms is late even if the stream lives.
  expect_fault(play("late", {bad("late", 3, 700), kRandom}), v1::FAULT_KIND_TIMEOUT, "ms");
}

TEST(RefereeFaults, SlowMoveSpendsTheBankInsteadOfFaulting) {
  // A 700 ms answer is over the 300 ms move time by 400 ms, so only the bank can cover it; the
  // 3000 ms bank leaves 2.3 s for a busy machine's scheduling delays (a 200 ms bank, tried
  // first, failed under load: the margin was then what was measured).
  const Match m = play("bank", {bad("late", 2, 700), kRandom}, {"--time-bank-ms", "3000"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_NE(end.reason(), v1::MATCH_END_REASON_FAULT) << m.run.output;
  // The slow decision really went over the move time (it needed the bank).
  uint32_t slowest_us = 0;
  for (const v1::LogRecord& r : m.log)
    if (r.has_play() && r.play().seat() == 0)
      slowest_us = std::max(slowest_us, r.play().decision_time_us());
  EXPECT_GE(slowest_us, 700'000u);
  expect_log_follows_rules(m.log);
}

TEST(RefereeFaults, IllegalPlay) {
  expect_fault(play("illegal", {bad("illegal"), kRandom}), v1::FAULT_KIND_ILLEGAL_PLAY,
               "does not hold");
}

TEST(RefereeFaults, MalformedPlay) {
  expect_fault(play("malformed", {bad("malformed"), kRandom}), v1::FAULT_KIND_MALFORMED_ANSWER,
               "0..6");
}

TEST(RefereeFaults, WrongProtocolVersionIsRefusedNamingBothVersions) {
  const Match m = play("version", {bad("wrong-version"), kRandom});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION, "version 99");
  EXPECT_EQ(only(m.log, v1::LogRecord::kFault).fault().reason(),
            "the bot speaks protocol version 99 but this referee speaks version 3 only: use a "
            "referee that speaks version 99, or a bot that speaks version 3");
}

TEST(RefereeFaults, WrongMessageKind) {
  expect_fault(play("kind", {bad("wrong-kind"), kRandom}), v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "instead of PlayAnswer");
}

TEST(RefereeFaults, StreamClosedEarly) {
  expect_fault(play("closed", {bad("close-stream"), kRandom}), v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "ended the stream");
}

TEST(RefereeFaults, ExitDuringStartup) {
  const Match m = play("exit", {bad("exit-at-startup"), kRandom});
  expect_fault(m, v1::FAULT_KIND_STARTUP_FAILURE, "exited with code 7");
}

TEST(RefereeFaults, NeverOpensItsSocket) {
  const Match m = play("nosocket", {bad("no-socket"), kRandom}, {"--startup-timeout-ms", "1000"});
  expect_fault(m, v1::FAULT_KIND_STARTUP_FAILURE, "start-up timeout");
  EXPECT_NE(only(m.log, v1::LogRecord::kFault).fault().reason().find("was never created"),
            std::string::npos);
}

// The play records of `seat`, in order.
std::vector<const v1::LogPlay*> plays_of(const std::vector<v1::LogRecord>& log, uint32_t seat) {
  std::vector<const v1::LogPlay*> plays;
  for (const auto& r : log)
    if (r.has_play() && r.play().seat() == seat) plays.push_back(&r.play());
  return plays;
}

// Bytes of the bot's own in a decision's output: its text without the capture's marker.
uint64_t kept_bytes(const v1::LogOutput& o) {
  const size_t marker = o.dropped_bytes() > 0 && !o.text().empty()
                            ? CappedOutput::marker(o.dropped_bytes()).size()
                            : 0;
  return o.text().size() - marker;
}

TEST(RefereeFaults, StderrFloodIsCappedIntoTheLog) {
  // 4 MiB of noise at decision 2 (4096 lines of 1024 x's): that decision keeps the first and
  // the last 4096 bytes and counts the rest; the bot then plays on normally, printing nothing.
  const Match m = play("flood", {bad("flood-stderr", 2, 4 << 20), kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  std::string flood;
  for (int i = 0; i < 4096; ++i) flood += std::string(1024, 'x') + "\n";
  const auto plays = plays_of(m.log, 0);
  ASSERT_GE(plays.size(), 3u);
  EXPECT_FALSE(plays[0]->has_output());
  const v1::LogOutput& o = plays[1]->output();
  EXPECT_EQ(o.dropped_bytes(), flood.size() - 8192);
  EXPECT_EQ(o.text(), flood.substr(0, 4096) + CappedOutput::marker(flood.size() - 8192) +
                          flood.substr(flood.size() - 4096));
  for (size_t i = 2; i < plays.size(); ++i) EXPECT_FALSE(plays[i]->has_output()) << i;
  for (const auto& r : m.log)
    EXPECT_FALSE(r.has_bot_output() && r.bot_output().seat() == 0) << r.ShortDebugString();
  expect_log_follows_rules(m.log);
}

// A bot printing 6150 bytes at every decision: each decision keeps them all until its
// process's records of the match hold 128 KiB; the decision that reaches the cap keeps what
// was left, the later ones nothing; every byte not kept is counted under its decision.
TEST(DecisionOutput, AMatchKeeps128KiBOfABotsOutputInAll) {
  const Match m = play("flood-every", {bad("flood-every", 0, 6144), kRandom}, {"--max-hands", "8"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto plays = plays_of(m.log, 0);
  ASSERT_GT(plays.size(), 23u);
  const uint64_t printed = 6 * 1025, cap = 128 * 1024, full = cap / printed;  // 21 decisions
  uint64_t kept_total = 0;
  for (size_t i = 0; i < plays.size(); ++i) {
    ASSERT_TRUE(plays[i]->has_output()) << i;
    const v1::LogOutput& o = plays[i]->output();
    const uint64_t kept = kept_bytes(o);
    EXPECT_EQ(kept + o.dropped_bytes(), printed) << "decision " << i + 1;
    EXPECT_EQ(kept, i < full ? printed : i == full ? cap - full * printed : 0u) << i + 1;
    kept_total += kept;
  }
  EXPECT_EQ(kept_total, cap);
  for (const auto& r : m.log)
    EXPECT_FALSE(r.has_bot_output() && r.bot_output().seat() == 0) << r.ShortDebugString();
  expect_log_follows_rules(m.log);
}

// The log's line and the text of the frame `referee replay --print` shows for it (its rule
// ends with "log line N ──").
std::string frame_of_line(const std::string& replay, size_t log_line) {
  const std::string mark = " log line " + std::to_string(log_line) + " ──";
  const size_t at = replay.find(mark);
  if (at == std::string::npos) return "";
  const size_t end = replay.find("\n──", at);
  return replay.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// A bot that prints a line to stdout and one to stderr at every decision (and three at
// start-up): each decision's record holds exactly its two lines, the start-up lines are in
// the match's bot_output record, and `referee replay` shows each decision's lines under its
// play, for everyone and for the bot's own seat, never for another seat, and not with
// --no-output or --no-decisions; the HTML replay the same.
TEST(DecisionOutput, EachDecisionCarriesTheLinesItsBotPrintedWhileItWasPending) {
  const Match m = play("chatty", {bad("chatty"), kRandom}, {"--max-hands", "2"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto plays = plays_of(m.log, 0);
  ASSERT_GT(plays.size(), 3u);
  const auto lines = [&](size_t k, const v1::LogPlay& p) {
    return "chatty: thinking about decision " + std::to_string(k) + "\nchatty: decision " +
           std::to_string(k) + ", " + std::to_string(p.options_size()) + " legal plays\n";
  };
  for (size_t k = 1; k <= plays.size(); ++k) {
    EXPECT_EQ(plays[k - 1]->output().text(), lines(k, *plays[k - 1])) << k;
    EXPECT_EQ(plays[k - 1]->output().dropped_bytes(), 0u);
  }
  for (const v1::LogPlay* p : plays_of(m.log, 1)) EXPECT_FALSE(p->has_output());
  std::string startup;  // seat 0's bot_output record
  for (const auto& r : m.log)
    if (r.has_bot_output() && r.bot_output().seat() == 0) startup += r.bot_output().stderr();
  EXPECT_EQ(startup,
            "chatty: hello on stdout\nchatty: hello on stderr\nchatty: \x1b[2J\x1b[Hcleared\n");
  expect_log_follows_rules(m.log);

  const auto replay = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {kReferee, "replay", m.log_path, "--print", "--color", "never"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  };
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{}, {"--seat", "0"}}) {
    const std::string text = replay(flags);
    size_t k = 0;
    for (size_t i = 0; i < m.log.size(); ++i) {
      if (!m.log[i].has_play() || m.log[i].play().seat() != 0) continue;
      ++k;
      const std::string frame = frame_of_line(text, i + 1);
      const std::string n = std::to_string(k);
      EXPECT_NE(frame.find("printed 2 lines:\n  │ chatty: thinking about decision " + n +
                           "\n  │ chatty: decision " + n + ", "),
                std::string::npos)
          << "decision " << k << " at log line " << i + 1 << ":\n"
          << frame;
    }
  }
  EXPECT_EQ(replay({"--seat", "1"}).find("thinking about decision"), std::string::npos);
  EXPECT_EQ(replay({"--no-output"}).find("thinking about decision"), std::string::npos);
  EXPECT_EQ(replay({"--no-decisions"}).find("thinking about decision"), std::string::npos);
  EXPECT_NE(replay({"--no-output"}).find("had "), std::string::npos);  // the rest stays
  const std::string dir = temp_dir("chatty-html");
  for (const char* seat : {"", "0", "1"}) {
    std::vector<std::string> argv = {kReferee, "replay", m.log_path, "--html", dir + "/r.html"};
    if (*seat) argv.insert(argv.end(), {"--seat", seat});
    const RunResult r = run(argv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_file(dir + "/r.html").find("chatty: thinking about decision 1\\n") !=
                  std::string::npos,
              std::string(seat) != "1")
        << "--seat " << seat;
  }
}

// A bot that crashes at its third decision after saying why: the fault record carries its
// last words (the decision that ended in the fault), and the replay shows them under the
// fault, except to another seat.
TEST(DecisionOutput, AFaultCarriesWhatItsBotPrintedInTheDecisionThatEndedInIt) {
  const Match m = play("last-words", {bad("crash"), kRandom});
  expect_fault(m, v1::FAULT_KIND_CRASH, "exited with code 3");
  const v1::LogFault& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.output().text(), "crash: giving up at decision 3\n");
  EXPECT_EQ(f.output().dropped_bytes(), 0u);
  for (const v1::LogPlay* p : plays_of(m.log, 0)) EXPECT_FALSE(p->has_output());
  RunResult r = run({kReferee, "replay", m.log_path, "--print", "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("commits a fault (crash)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("printed 1 line:\n  │ crash: giving up at decision 3\n"),
            std::string::npos)
      << r.output;
  r = run({kReferee, "replay", m.log_path, "--print", "--seat", "1"});
  EXPECT_EQ(r.output.find("giving up"), std::string::npos) << r.output;
}

// Starts a referee whose bots each start a grandchild, and returns the pgids they reported.
// These bots run unsandboxed (--no-sandbox): a sandboxed bot could neither write the pid file
// nor see its real pid; the process groups tested here apply either way.
struct Running {
  std::unique_ptr<referee::BotProcess> referee;
  std::string pid_file;
};

Running start_referee_with_children(const std::string& name) {
  const std::string dir = temp_dir(name);
  Running r;
  r.pid_file = dir + "/pids";
  const std::string bot = kBadBot + " --mode spawn-child --pid-file " + r.pid_file;
  referee::LaunchSpec spec;
  spec.argv = {kReferee,
               "match",
               "--log",
               dir + "/m.jsonl",
               "--no-sandbox",
               "--move-time-ms",
               "300",
               bot,
               bad("hang", 1) + " --pid-file " + r.pid_file};
  std::string error;
  r.referee = referee::BotProcess::start(spec, &error);
  EXPECT_TRUE(r.referee) << error;
  return r;
}

std::vector<int> pgids_in(const std::string& pid_file, size_t want) {
  std::vector<int> pgids;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < until) {
    pgids.clear();
    std::ifstream in(pid_file);
    int pid, pgid;
    while (in >> pid >> pgid) pgids.push_back(pgid);
    if (pgids.size() >= want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pgids;
}

TEST(RefereeNoOrphans, NormalExit) {
  const std::string dir = temp_dir("orphans-normal");
  const std::string pids = dir + "/pids";
  const Match m =
      play("orphans-normal-run",
           {kBadBot + " --mode spawn-child --pid-file " + pids, kBadBot + " --pid-file " + pids},
           {"--no-sandbox"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto pgids = pgids_in(pids, 3);
  ASSERT_EQ(pgids.size(), 3u);
  EXPECT_TRUE(wait_groups_gone(pgids, std::chrono::seconds(5)));
}

TEST(RefereeNoOrphans, Sigterm) {
  Running r = start_referee_with_children("orphans-term");
  const auto pgids = pgids_in(r.pid_file, 3);
  ASSERT_EQ(pgids.size(), 3u);
  ::kill(r.referee->pid(), SIGTERM);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (r.referee->running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(r.referee->running()) << "the referee must stop on SIGTERM";
  EXPECT_TRUE(wait_groups_gone(pgids, std::chrono::seconds(5)));
  r.referee->stop();
}

TEST(RefereeNoOrphans, Sigkill) {
  Running r = start_referee_with_children("orphans-kill");
  const auto pgids = pgids_in(r.pid_file, 3);
  ASSERT_EQ(pgids.size(), 3u);
  ::kill(r.referee->pid(), SIGKILL);
  EXPECT_TRUE(wait_groups_gone(pgids, std::chrono::seconds(5)));
  r.referee->stop();
}

// Collects every Tile anywhere inside a message, with the path of fields that led to it.
void collect_tiles(const google::protobuf::Message& m, const std::string& path,
                   std::vector<std::pair<std::string, Tile>>& out) {
  if (const auto* t = dynamic_cast<const v1::Tile*>(&m)) {
    out.emplace_back(path, Tile::of(static_cast<int>(t->high()), static_cast<int>(t->low())));
    return;
  }
  const auto* refl = m.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < refl->FieldSize(m, f); ++i)
        collect_tiles(refl->GetRepeatedMessage(m, f, i), path + "." + f->name(), out);
    } else {
      collect_tiles(refl->GetMessage(m, f), path + "." + f->name(), out);
    }
  }
}

TEST(RefereeHiddenInformation, NoMessageShowsAnotherSeatsTiles) {
  const std::string dir = temp_dir("hidden");
  const std::string rec0 = dir + "/seat0.jsonl", rec1 = dir + "/seat1.jsonl";
  // Unsandboxed, so the bots may write their records into the test's folder.
  const Match m = play("hidden-run", {kBadBot + " --record " + rec0, kBadBot + " --record " + rec1},
                       {"--seed", "987654321987", "--no-sandbox"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  // What each seat may know in each hand: its dealt tiles, its own draws, and public tiles
  // (the line, plays, and hands revealed at a hand's end).
  std::map<int, std::array<TileSet, 2>> own;  // hand -> seat -> dealt + drawn
  for (const auto& r : m.log) {
    if (r.has_hand_start())
      for (int s = 0; s < 2; ++s)
        for (const auto& t : r.hand_start().hands(s).tiles())
          own[static_cast<int>(r.hand_start().hand_index())][s].add(
              Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low())));
    if (r.has_draw())
      for (const auto& t : r.draw().tiles())
        own[static_cast<int>(r.draw().hand_index())][r.draw().seat()].add(
            Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low())));
  }
  int checked = 0;
  for (int seat = 0; seat < 2; ++seat) {
    // Every tile in `m` must be public or one seat `seat` held in hand `hand`.
    const auto check = [&](const google::protobuf::Message& m, int hand) {
      std::vector<std::pair<std::string, Tile>> tiles;
      collect_tiles(m, "", tiles);
      for (const auto& [path, t] : tiles) {
        ++checked;
        const bool public_tile = path.find(".line") != std::string::npos ||
                                 path.find(".play.play") != std::string::npos ||
                                 path.find("open_with") != std::string::npos;
        if (public_tile) continue;
        EXPECT_TRUE(own[hand][seat].contains(t))
            << "seat " << seat << " was sent " << to_string(t) << " at " << path << " in hand "
            << hand << ", a tile it never held";
      }
    };
    std::ifstream in(seat == 0 ? rec0 : rec1);
    std::string line;
    int hand = -1;
    while (std::getline(in, line)) {
      EXPECT_EQ(line.find("987654321987"), std::string::npos)
          << "seat " << seat << " was sent the match seed: " << line;
      v1::RefereeMessage msg;
      std::string error;
      ASSERT_TRUE(referee::from_json_line(line, &msg, &error)) << error;
      const auto* events = msg.has_turn_request() ? &msg.turn_request().events()
                           : msg.has_match_end()  ? &msg.match_end().events()
                                                  : nullptr;
      if (!events) continue;
      for (const v1::Event& e : *events) {
        if (e.has_hand_start()) hand = static_cast<int>(e.hand_start().hand_index());
        if (e.has_hand_end()) continue;  // every hand is revealed at the end
        if (e.has_draw() && e.draw().seat() != static_cast<uint32_t>(seat)) {
          EXPECT_EQ(e.draw().tiles_size(), 0) << "another seat's draw shows its tiles";
        }
        check(e, hand);
      }
      if (!msg.has_turn_request()) continue;
      v1::TurnRequest request = msg.turn_request();
      EXPECT_EQ(static_cast<int>(request.hand_index()), hand);
      request.clear_events();
      check(request, hand);
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(RefereeCli, RejectsBadArgumentsWithClearErrors) {
  auto r = run({kReferee, "match", "--format", "5p", kGreedy, kRandom});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--format must be 2p, 3p, 4p or partners"), std::string::npos)
      << r.output;
  r = run({kReferee, "match", "--format", "3p", kGreedy, kRandom});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs 3 bots"), std::string::npos) << r.output;
  r = run({kReferee, "match", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--move-time-ms"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace allfives::e2e
