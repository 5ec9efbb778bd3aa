// End-to-end tests of fair play in the setup the README recommends (mirrored deals, reused bot
// processes, the sandbox, -j 2): a hostile bot (tests/bots/hostile_bot, tests/bots/
// misbehaving_bot) tries to win by other means than play, and each test checks from outside
// that it learned nothing the protocol does not give it, and slowed or blamed no one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// A tournament's logs, each with the output of the seats played by the bot named `bot`.
struct PlayedLog {
  std::string path;
  std::vector<v1::LogRecord> log;
  std::string output;  // what the `bot`'s seats printed, as the log keeps it
};

std::vector<PlayedLog> logs_of(const std::string& out_dir, const std::string& bot) {
  std::vector<PlayedLog> logs;
  for (const auto& entry : fs::directory_iterator(out_dir + "/matches")) {
    PlayedLog l{entry.path().string(), read_log(entry.path().string()), ""};
    const auto& header = only(l.log, v1::LogRecord::kHeader).header();
    std::set<uint32_t> seats;
    for (const auto& b : header.bots())
      if (b.display_name() == bot) seats.insert(b.seat());
    for (const uint32_t seat : seats) l.output += printed_by(l.log, static_cast<int>(seat));
    logs.push_back(std::move(l));
  }
  return logs;
}

// Runs the tournament file `text` (in a fresh folder named after `name`), expecting exit status
// `expected_exit`; returns its output folder.
std::string run_tournament(const std::string& name, const std::string& text,
                           const std::vector<std::string>& flags, int expected_exit = 0) {
  const std::string dir = temp_dir(name);
  std::ofstream(dir + "/t.txtpb") << text;
  std::vector<std::string> argv = {kReferee, "tournament", dir + "/t.txtpb",
                                   "--out",  dir + "/out", "-q"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const RunResult r = run(argv, std::chrono::seconds(240));
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  return dir + "/out";
}

// --- 1. Memory across mirrored matches ------------------------------------------------------

std::string bot_entry(const std::string& name, const std::string& command,
                      const std::vector<std::string>& args = {}) {
  std::string text = "bots { name: \"" + name + "\" command: \"" + command + "\"";
  for (const std::string& a : args) text += " args: \"" + a + "\"";
  return text + " }\n";
}

// The hostile bot remembers every hand it was dealt and every tile another seat held, in every
// match its process plays: in the README's setup the other rotation of a mirrored pair, or the
// same deals against another opponent, would show it its opponents' hands. In every format and
// at -j 1 and -j 2, no instance of it ever meets deals it has seen, and what it is told of a
// match (its id) names neither the deal nor the rotation.
TEST(FairPlay, NoInstancePlaysTheSameDealsTwice) {
  struct Case {
    std::string format;
    int bots;
    int matches_per_pairing;
    std::string jobs;
  };
  for (const Case& c :
       {Case{"FORMAT_TWO_PLAYERS", 3, 6, "1"}, Case{"FORMAT_TWO_PLAYERS", 3, 6, "2"},
        Case{"FORMAT_FOUR_PLAYERS", 4, 8, "2"}, Case{"FORMAT_PARTNERSHIPS", 2, 4, "1"}}) {
    SCOPED_TRACE(c.format + " -j " + c.jobs);
    std::string text = "name: \"memory\"\nformat: " + c.format + "\n" +
                       bot_entry("hostile", kHostile, {"--mode", "remember-deals"});
    for (int b = 1; b < c.bots; ++b) text += bot_entry("greedy" + std::to_string(b), kGreedy);
    text += "matches_per_pairing: " + std::to_string(c.matches_per_pairing) +
            "\nseed: 5\nmax_hands: 3\n";
    const std::string out =
        run_tournament("memory-" + c.format + "-" + c.jobs, text, {"-j", c.jobs});
    const std::vector<PlayedLog> logs = logs_of(out, "hostile");
    EXPECT_EQ(static_cast<int>(logs.size()), c.matches_per_pairing * (c.bots == 3 ? 3 : 1));
    int tried = 0;
    std::set<std::string> told;
    for (const PlayedLog& l : logs) {
      const auto& header = only(l.log, v1::LogRecord::kHeader).header();
      if (!contains(l.output, "hands known")) continue;  // not one of the hostile's matches
      ++tried;
      EXPECT_FALSE(contains(l.output, "GOT known hand")) << l.path << "\n" << l.output;
      EXPECT_TRUE(contains(l.output, "BLOCKED hands known: 0 of")) << l.path << "\n" << l.output;
      // It was told the opaque id, never the real one (which names the deal and rotation).
      EXPECT_TRUE(contains(l.output, "in match " + header.bot_match_id())) << l.output;
      EXPECT_FALSE(contains(l.output, header.match_id())) << l.output;
      EXPECT_NE(header.bot_match_id(), header.match_id());
      EXPECT_FALSE(contains(header.bot_match_id(), "-d")) << header.bot_match_id();
      EXPECT_TRUE(told.insert(header.bot_match_id()).second) << header.bot_match_id();
    }
    // Every match the hostile bot played was checked (partnerships: both its seats report).
    EXPECT_EQ(tried, c.matches_per_pairing * (c.bots == 3 ? 2 : 1));
  }
}

// --- 2. Folders a bot may read are what they look like ---------------------------------------

// A fresh folder holding a copy of the hostile bot, and a file of `targets` (one per line)
// kept elsewhere (the sandbox lets a bot read the folder of every path among its arguments).
struct BotFolder {
  std::string dir;
  std::string targets;
};
BotFolder folder_with_hostile(const std::string& name, const std::vector<std::string>& targets) {
  BotFolder f{temp_dir(name), targets_file(name, targets)};
  fs::copy_file(kHostile, f.dir + "/hostile_bot");
  return f;
}

// `referee match` run in `dir` with `hostile` (its arguments after ./hostile_bot) against
// greedy; its log at dir/../NAME.jsonl, outside the bot's folder.
struct MatchInDir {
  RunResult run;
  std::vector<v1::LogRecord> log;
  std::string hostile_output;
};
MatchInDir match_in(const std::string& dir, const std::string& hostile,
                    const std::vector<std::string>& extra = {}) {
  const std::string log = temp_dir(fs::path(dir).filename().string() + "-log") + "/m.jsonl";
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "-C",
                                   dir,
                                   kReferee,
                                   "match",
                                   "--seed",
                                   "11",
                                   "--max-hands",
                                   "1",
                                   "--startup-timeout-ms",
                                   "20000",
                                   "--log",
                                   log};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("hostile=./hostile_bot " + hostile);
  argv.push_back("greedy=" + kGreedy);
  MatchInDir m;
  m.run = run(argv, std::chrono::seconds(120));
  if (fs::exists(log)) {
    m.log = read_log(log);
    m.hostile_output = printed_by(m.log, 0);
  }
  return m;
}

// A bot's folder holds links among its files: one to the host's /proc, one to a folder of the
// host's the user never gave it, one to the folder beside it. The referee refuses the first two
// before any bot starts (naming the bot, the argument and where it leads), in `referee match`
// and in a tournament file; the third, a link within the bot's own folders, is bound and read.
// (Bound from their targets, the first would show the bot the host's processes and the
// referee's --seed.)
TEST(FairPlay, ALinkLeadingOutOfTheBotsFoldersIsRefused) {
  const std::string secret = temp_dir("link-secret");
  std::ofstream(secret + "/secret.txt") << "only-the-host-knows-4d2a\n";
  const BotFolder f = folder_with_hostile(
      "link-args", {"./bots/proc/1/cmdline", "./bots/secret/secret.txt", "./bots/model/w.bin"});
  fs::create_directories(f.dir + "/bots/v2");
  std::ofstream(f.dir + "/bots/v2/w.bin") << "weights-v2\n";
  fs::create_directory_symlink("/proc", f.dir + "/bots/proc");
  fs::create_directory_symlink(secret, f.dir + "/bots/secret");
  fs::create_directory_symlink("v2", f.dir + "/bots/model");
  const std::string attack = "--mode read-files --targets-file " + f.targets;
  for (const auto& [arg, leads_to] : std::vector<std::pair<std::string, std::string>>{
           {"./bots/proc", "/proc"}, {"./bots/secret", secret}}) {
    SCOPED_TRACE(arg);
    const MatchInDir m = match_in(f.dir, attack + " --data " + arg);
    EXPECT_EQ(m.run.exit_code, 1) << m.run.output;
    EXPECT_TRUE(contains(m.run.output, "cannot start bot 'hostile' (./hostile_bot"))
        << m.run.output;
    EXPECT_TRUE(contains(m.run.output, "argument '" + arg + "' goes through the symbolic link " +
                                           f.dir + arg.substr(1) + ", which leads to " + leads_to))
        << m.run.output;
    EXPECT_TRUE(m.log.empty()) << "a match was played";
    EXPECT_FALSE(contains(m.hostile_output, "GOT")) << m.hostile_output;
  }
  // The same in a tournament file, and for a read-only folder naming /proc itself.
  std::ofstream(f.dir + "/t.txtpb")
      << "name: \"links\"\nformat: FORMAT_TWO_PLAYERS\n"
      << bot_entry("hostile", "./hostile_bot", {"--data", "./bots/proc"})
      << bot_entry("greedy", kGreedy) << "seed: 1\n";
  RunResult r = run({kReferee, "tournament", f.dir + "/t.txtpb", "--out", f.dir + "/../links-out"},
                    std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "referee tournament: cannot start bot 'hostile'")) << r.output;
  // (A tournament file's paths are made absolute against its folder.)
  EXPECT_TRUE(contains(r.output, "bots/proc' goes through the symbolic link")) << r.output;
  const MatchInDir proc = match_in(f.dir, attack, {"--read-only", "/proc"});
  EXPECT_EQ(proc.run.exit_code, 1) << proc.run.output;
  EXPECT_TRUE(contains(proc.run.output, "read-only folder '/proc' is /proc, the host's /proc"))
      << proc.run.output;
  // A link within its own folders is what it looks like: bound, and read.
  const MatchInDir ok = match_in(f.dir, attack + " --data ./bots/model");
  EXPECT_EQ(ok.run.exit_code, 0) << ok.run.output;
  EXPECT_TRUE(contains(ok.hostile_output, "GOT read ./bots/model/w.bin: weights-v2"))
      << ok.hostile_output;
  EXPECT_FALSE(contains(ok.hostile_output, "only-the-host-knows")) << ok.hostile_output;
  // The link to /proc inside its folder leads to the sandbox's own /proc: not the referee's.
  EXPECT_FALSE(contains(ok.hostile_output, "--seed 11")) << ok.hostile_output;
}

// A socket of the host's inside a folder the bot may read (here its own program's folder, the
// one every sandbox binds), with a live listener: the bot can neither connect to it nor send it
// a datagram. The twin without the sandbox reaches both, so the test can fail.
TEST(FairPlay, AHostSocketInsideAFolderItMayReadIsNoWayOut) {
  for (const bool sandboxed : {true, false}) {
    SCOPED_TRACE(sandboxed ? "sandboxed" : "--no-sandbox");
    const std::string name = sandboxed ? "host-socket" : "host-socket-unsandboxed";
    const std::string dir = temp_dir(name + "-dir");
    const std::string stream_path = dir + "/host.sock", dgram_path = dir + "/host-dgram.sock";
    const BotFolder f = folder_with_hostile(name, {stream_path, "dgram:" + dgram_path});
    fs::rename(f.dir + "/hostile_bot", dir + "/hostile_bot");
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int receiver = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    for (const auto& [fd, path] :
         {std::pair{listener, stream_path}, std::pair{receiver, dgram_path}}) {
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
      ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
      ::chmod(path.c_str(), 0777);  // only the sandbox, not the permissions, keeps the bot out
    }
    ASSERT_EQ(::listen(listener, 8), 0);
    const MatchInDir m =
        match_in(dir, "--mode connect --targets-file " + f.targets,
                 sandboxed ? std::vector<std::string>{} : std::vector<std::string>{"--no-sandbox"});
    EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
    const int reached = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
    char buffer[64];
    const ssize_t got = ::recv(receiver, buffer, sizeof buffer, 0);
    if (reached >= 0) ::close(reached);
    ::close(listener);
    ::close(receiver);
    if (sandboxed) {
      EXPECT_TRUE(contains(m.hostile_output, "BLOCKED connect unix " + stream_path))
          << m.hostile_output;
      EXPECT_FALSE(contains(m.hostile_output, "GOT")) << m.hostile_output;
      EXPECT_LT(reached, 0) << "the bot connected to the host's socket";
      EXPECT_LT(got, 0) << "the bot's datagram reached the host's socket";
    } else {
      EXPECT_TRUE(contains(m.hostile_output, "GOT connect unix " + stream_path))
          << m.hostile_output;
      EXPECT_GE(reached, 0);
      EXPECT_GT(got, 0);
    }
  }
}

// --- 3. No seat learns the seed before the match is over ------------------------------------

// The README's way to keep a run's messages: `2> run.log` (and `> out.txt`), here in the bot's
// own folder, which it may read. The hostile bot reads both at its first decision: neither
// shows it the seed (it is printed when the run is over, and both files are covered inside the
// sandbox anyway). Afterwards run.log does give the seed.
TEST(FairPlay, TheRefereesOutputInABotsFolderDoesNotShowTheSeed) {
  constexpr const char* kSecretSeed = "918273645";
  const BotFolder f = folder_with_hostile("seed-in-output", {"./run.log", "./out.txt"});
  std::ofstream(f.dir + "/t.txtpb")
      << "name: \"seed\"\nformat: FORMAT_TWO_PLAYERS\n"
      << bot_entry("hostile", "./hostile_bot",
                   {"--mode", "read-files", "--targets-file", f.targets})
      << bot_entry("greedy", kGreedy) << "matches_per_pairing: 2\nseed: " << kSecretSeed
      << "\nmax_hands: 1\n";
  const std::string out = temp_dir("seed-in-output-out");
  const RunResult r =
      run({"/bin/sh", "-c",
           "cd '" + f.dir + "' && exec '" + kReferee + "' tournament t.txtpb -j 1 --out '" + out +
               "' > out.txt 2> run.log"},
          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << read_file(f.dir + "/run.log");
  const std::vector<PlayedLog> logs = logs_of(out, "hostile");
  ASSERT_EQ(logs.size(), 2u);
  std::string seen;
  for (const PlayedLog& l : logs) seen += l.output;
  EXPECT_TRUE(contains(seen, "./run.log")) << seen;  // it did look
  EXPECT_FALSE(contains(seen, kSecretSeed)) << seen;
  EXPECT_TRUE(contains(read_file(f.dir + "/run.log"), std::string("seed ") + kSecretSeed));
}

// A seat's view of a match still being played never shows the seed (it deals every hand): the
// page `referee serve ?seat=` serves and the heading `human-tty` prints (the same code as
// `referee replay --seat`, which refuses an unfinished log), drawn from a real match's log cut
// in its first hand. Once the match is over the seat's view shows it, as does the view of
// everything (a spectator's) at any time.
TEST(FairPlay, ASeatsViewOfAMatchInPlayDoesNotShowTheSeed) {
  const PlayedMatch m = play_match(kReferee, "seed-seat-view", {kGreedy, kGreedy}, 1000, 1000);
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  std::string full, cut;
  bool in_play = true;
  for (const auto& r : m.log) {
    full += referee::to_json_line(r) + "\n";
    in_play = in_play && !r.has_hand_end();
    if (in_play) cut += referee::to_json_line(r) + "\n";
  }
  const std::string seed = std::to_string(only(m.log, v1::LogRecord::kHeader).header().seed());
  for (const bool over : {false, true}) {
    referee::Replay replay;
    referee::LogError error;
    EXPECT_EQ(referee::load_replay(over ? full : cut, "log", replay, error), over);
    EXPECT_EQ(replay.finished, over);
    for (const int viewer : {0, 1, -1}) {
      SCOPED_TRACE(std::string(over ? "finished" : "in play") + ", viewer " +
                   std::to_string(viewer));
      const bool shown = over || viewer < 0;
      referee::TerminalOptions t;
      t.viewer = viewer;
      EXPECT_EQ(contains(referee::render_heading(replay, t), "seed " + seed), shown);
      referee::HtmlOptions h;
      h.viewer = viewer;
      const std::string page =
          referee::render_html(replay, referee::build_frames(replay, viewer), h);
      EXPECT_EQ(contains(page, "\"seed\":\"" + seed + "\""), shown);
      EXPECT_FALSE(contains(page, "seed " + seed));
    }
  }
}

// --- 7. Every byte a bot writes is attributed to the match in which it wrote it ---------------

// Lines "stdout: match ID decision N" / "... over" (printf, stdout to a pipe) and the same on
// stderr, from a bot reused over 4 matches of a tournament at -j 1, and from a single match:
// every line is in the log of the match that printed it, all of them, none in another's, each
// decision's two lines under that decision's play; and a line that looks like the capture's
// dropped-bytes mark forges no count.
TEST(FairPlay, EveryByteABotWritesIsInTheLogOfItsMatch) {
  const auto check = [](const PlayedLog& l) {
    const auto& header = only(l.log, v1::LogRecord::kHeader).header();
    const std::string id = header.bot_match_id();
    int decisions = 0;
    for (const auto& r : l.log)
      if (r.has_play() &&
          header.bots(static_cast<int>(r.play().seat())).display_name() == "hostile") {
        ++decisions;
        const std::string mine = "stdout: match " + id + " decision " + std::to_string(decisions) +
                                 "\nstderr: match " + id + " decision " +
                                 std::to_string(decisions) + "\n";
        const std::string& text = r.play().output().text();
        // The forged mark comes at its process's first decision only.
        EXPECT_TRUE(text == mine || text == "\n[... 999999 bytes dropped]\n" + mine)
            << l.path << " decision " << decisions << ":\n"
            << text;
        EXPECT_EQ(r.play().output().dropped_bytes(), 0u) << l.path;
      }
    for (int d = 1; d <= decisions; ++d)
      for (const char* stream : {"stdout", "stderr"})
        EXPECT_TRUE(contains(l.output, std::string(stream) + ": match " + id + " decision " +
                                           std::to_string(d) + "\n"))
            << l.path << " lacks " << stream << " line " << d << ":\n"
            << l.output;
    EXPECT_TRUE(contains(l.output, "stdout: match " + id + " over\n")) << l.path << l.output;
    // No line of another match: every "match X" names this one.
    for (size_t at = l.output.find(": match "); at != std::string::npos;
         at = l.output.find(": match ", at + 1))
      EXPECT_EQ(l.output.compare(at + 8, id.size(), id), 0) << l.path << ":\n" << l.output;
    for (const auto& r : l.log) {
      if (r.has_bot_output()) {
        EXPECT_EQ(r.bot_output().dropped_bytes(), 0u) << l.path;
      }
    }
    return decisions;
  };
  const std::string text = "name: \"print\"\nformat: FORMAT_TWO_PLAYERS\n" +
                           bot_entry("hostile", kHostile, {"--mode", "print"}) +
                           bot_entry("greedy", kGreedy) +
                           "matches_per_pairing: 4\nseed: 4\nmax_hands: 2\n";
  const std::string out = run_tournament("print", text, {"-j", "1"});
  const std::vector<PlayedLog> logs = logs_of(out, "hostile");
  ASSERT_EQ(logs.size(), 4u);
  for (const PlayedLog& l : logs) EXPECT_GT(check(l), 0) << l.path;
  // A single match: what it printed to stdout is in its log too.
  const PlayedMatch m = play_match(kReferee, "print-match",
                                   {"hostile=" + kHostile + " --mode print", "greedy=" + kGreedy},
                                   1000, 1000, {"--max-hands", "2"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  PlayedLog single{"the single match", m.log, ""};
  single.output = printed_by(m.log, 0);
  EXPECT_GT(check(single), 0);
}

// --- 8. Smaller points -----------------------------------------------------------------------

// No user namespace can be made inside the sandbox (bwrap --disable-userns). Unsandboxed, the
// same bot makes one, so the test can fail.
TEST(FairPlay, NoUserNamespaceInsideTheSandbox) {
  for (const bool sandboxed : {true, false}) {
    SCOPED_TRACE(sandboxed ? "sandboxed" : "--no-sandbox");
    const BotFolder f = folder_with_hostile(sandboxed ? "userns" : "userns-unsandboxed", {});
    const MatchInDir m =
        match_in(f.dir, "--mode new-namespace",
                 sandboxed ? std::vector<std::string>{} : std::vector<std::string>{"--no-sandbox"});
    EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
    EXPECT_TRUE(contains(m.hostile_output,
                         sandboxed ? "BLOCKED user namespace" : "GOT user namespace: made one"))
        << m.hostile_output;
  }
}

// Every seat of every log says how its bot was confined (sandboxed, its limits), also in a
// match that ends at start-up because one seat's bot exits at once, alone (referee match, 4
// players) and in a tournament (whose pool starts the bots).
TEST(FairPlay, EverySeatOfEveryLogSaysHowItsBotWasConfined) {
  const auto check = [](const std::vector<v1::LogRecord>& log, const std::string& where) {
    const auto& end = only(log, v1::LogRecord::kMatchEnd).match_end();
    EXPECT_EQ(end.fault_kind(), v1::FAULT_KIND_STARTUP_FAILURE) << where;
    const auto& header = only(log, v1::LogRecord::kHeader).header();
    for (const auto& bot : header.bots()) {
      SCOPED_TRACE(where + ", seat " + std::to_string(bot.seat()) + " " + bot.display_name());
      ASSERT_TRUE(bot.has_confinement());
      EXPECT_TRUE(bot.confinement().sandboxed());
      EXPECT_FALSE(bot.confinement().sandbox().empty());
      EXPECT_EQ(bot.confinement().memory_mib(), 512u);
      EXPECT_EQ(bot.confinement().processes(), 32u);
    }
  };
  const PlayedMatch m =
      play_match(kReferee, "confined-at-startup",
                 {"greedy0=" + kGreedy, "greedy1=" + kGreedy,
                  "gone=" + kBadBot + " --mode exit-at-startup", "greedy3=" + kGreedy},
                 1000, 1000, {"--format", "4p", "--memory-mib", "512", "--max-processes", "32"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  check(m.log, "referee match");
  const std::string text = "name: \"confined\"\nformat: FORMAT_TWO_PLAYERS\n" +
                           bot_entry("greedy", kGreedy) +
                           bot_entry("gone", kBadBot, {"--mode", "exit-at-startup"}) +
                           "matches_per_pairing: 2\nseed: 3\nmax_hands: 1\n";
  // A bot that never starts stops the run (exit 1) once its matches are logged as forfeits.
  const std::string out = run_tournament(
      "confined", text, {"-j", "1", "--memory-mib", "512", "--max-processes", "32"}, 1);
  const std::vector<PlayedLog> logs = logs_of(out, "gone");
  ASSERT_EQ(logs.size(), 2u);
  for (const PlayedLog& l : logs) check(l.log, l.path);
}

// The sandbox's /proc shows no host-wide activity (load, CPU and fork counters, idle time,
// memory, pressure, counts of open files, inodes, dentries and AIO contexts, nor root's own
// timer, slab and vmalloc lists), through which partners could signal
// by loading the machine, and its first
// process's command line (bwrap's) holds none of the host paths bound or covered. The twin
// without the sandbox reads the host's counters, so the test can fail.
TEST(FairPlay, TheSandboxsProcShowsNeitherHostActivityNorHostPaths) {
  for (const bool sandboxed : {true, false}) {
    SCOPED_TRACE(sandboxed ? "sandboxed" : "--no-sandbox");
    const BotFolder f = folder_with_hostile(sandboxed ? "activity" : "activity-unsandboxed", {});
    const MatchInDir m =
        match_in(f.dir, "--mode host-activity",
                 sandboxed ? std::vector<std::string>{} : std::vector<std::string>{"--no-sandbox"});
    EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
    const std::string& out = m.hostile_output;
    for (const char* file :
         {"/proc/loadavg", "/proc/meminfo", "/proc/stat", "/proc/vmstat", "/proc/pressure/cpu",
          "/proc/uptime", "/proc/sys/fs/aio-nr", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
          "/proc/sys/fs/dentry-state"}) {
      const bool open = contains(out, std::string("GOT host activity ") + file);
      if (sandboxed) {
        EXPECT_FALSE(open) << out;
      } else if (std::string(file) != "/proc/pressure/cpu" || fs::exists(file)) {
        EXPECT_TRUE(open) << out;
      }
    }
    if (sandboxed) {
      // Root's own counters are left uncovered for a bot that is not root: it cannot open them.
      for (const char* file :
           {"/proc/timer_list", "/proc/slabinfo", "/proc/vmallocinfo", "/proc/pagetypeinfo"})
        EXPECT_FALSE(contains(out, std::string("GOT host activity ") + file)) << out;
      ASSERT_TRUE(contains(out, "GOT init cmdline: ")) << out;
      const std::string init = out.substr(out.find("GOT init cmdline: "));
      const std::string line = init.substr(0, init.find('\n'));
      for (const char* host : {"--ro-bind", "--tmpfs", "/dev/null", "--seccomp"})
        EXPECT_FALSE(contains(line, host)) << line;
    }
  }
}

// Terminal escapes (the window's title, the clipboard by OSC 52, a cleared screen) in a bot's
// Hello name and version, or in what it printed before failing to start, reach the operator's
// terminal through no command: match's result lines, replay's text and a tournament's output
// show them as \xNN. Without the escaping, each output holds the raw sequences.
bool drives_a_terminal(const std::string& out) {
  return contains(out, "\x1b]") || contains(out, "\x1b[2J") || contains(out, "\x07");
}

TEST(FairPlay, ABotsNameAndOutputNeverReachTheOperatorsTerminalRaw) {
  for (const std::string mode : {"hello-escapes", "startup-escapes"}) {
    SCOPED_TRACE(mode);
    const PlayedMatch m =
        play_match(kReferee, "escapes-" + mode, {kHostile + " --mode " + mode, kGreedy}, 1000,
                   5000, {"--max-hands", "1"});
    EXPECT_FALSE(drives_a_terminal(m.run.output)) << m.run.output;
    EXPECT_TRUE(contains(m.run.output, mode == "hello-escapes" ? "evil\\x1b]0;pwned"
                                                               : "dying words \\x1b]0;pwned"))
        << m.run.output;
    const RunResult replay = run({kReferee, "replay", m.log_path});
    EXPECT_EQ(replay.exit_code, 0) << replay.output;
    EXPECT_FALSE(drives_a_terminal(replay.output)) << replay.output;
  }
  const std::string dir = temp_dir("escapes-tournament");
  std::ofstream(dir + "/t.txtpb") << "name: \"escapes\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << bot_entry("dying", kHostile, {"--mode", "startup-escapes"})
                                  << bot_entry("greedy", kGreedy)
                                  << "matches_per_pairing: 2\nmax_hands: 1\n";
  const RunResult t = run({kReferee, "tournament", dir + "/t.txtpb", "--out", dir + "/out"},
                          std::chrono::seconds(120));
  EXPECT_FALSE(drives_a_terminal(t.output)) << t.output;
  EXPECT_TRUE(contains(t.output, "dying words \\x1b]0;pwned")) << t.output;
}

// --- 4. A bot cannot slow its opponent -------------------------------------------------------

// The hostile bot keeps four threads spinning from its first match on, while strong_bot
// thinks 20 000 simulations a decision: in the README's setup (a tournament, -j 2, reused
// processes, mirrored deals) the referee counts the hog's CPU during strong's turns, freezes it
// within milliseconds of its first theft, and from then on whenever it is not its turn and
// between its matches: over every match the hog took at most a few milliseconds of strong's
// time, strong was never frozen and never forfeited. With --think-on-opponent-time nothing is
// frozen, and the same count shows what the hog took (so the test can fail).
TEST(FairPlay, ABotThatHogsTheCpuWhileItsOpponentThinksIsFrozen) {
  for (const bool ponder : {false, true}) {
    SCOPED_TRACE(ponder ? "--think-on-opponent-time" : "the default");
    const std::string text = "name: \"hog\"\nformat: FORMAT_TWO_PLAYERS\n" +
                             bot_entry("hog", kHostile, {"--mode", "hog", "--threads", "4"}) +
                             bot_entry("strong", kStrong, {"--simulations", "20000"}) +
                             "matches_per_pairing: 4\nseed: 9\nmax_hands: 2\nmove_time_ms: 3000\n";
    std::vector<std::string> flags = {"-j", "2"};
    if (ponder) flags.push_back("--think-on-opponent-time");
    const std::string out = run_tournament(ponder ? "hog-ponder" : "hog", text, flags);
    uint64_t taken_us = 0;
    int logs = 0;
    for (const PlayedLog& l : logs_of(out, "hog")) {
      ++logs;
      const auto& header = only(l.log, v1::LogRecord::kHeader).header();
      const auto& end = only(l.log, v1::LogRecord::kMatchEnd).match_end();
      EXPECT_EQ(end.fault_seat(), -1) << l.path;  // nobody forfeited
      ASSERT_EQ(end.off_turn_cpu_us_size(), 2) << l.path;
      for (const auto& bot : header.bots()) {
        EXPECT_EQ(bot.confinement().think_on_opponent_time(), ponder);
        EXPECT_NE(bot.confinement().cpu_watched_by(), v1::LIMIT_MECHANISM_NONE);
        if (ponder) {
          EXPECT_EQ(bot.confinement().cpu_percent(), 100u);
        }
        const int seat = static_cast<int>(bot.seat());
        if (bot.display_name() == "hog") {
          taken_us += end.off_turn_cpu_us(seat);
          EXPECT_EQ(end.frozen_off_turn(seat), !ponder) << l.path;
        } else {
          // The off-turn CPU says which evidence froze it: over CpuGuard::kAllowance in one turn
          // or kMatchAllowance in the match.
          EXPECT_FALSE(end.frozen_off_turn(seat))
              << l.path << ": strong used " << end.off_turn_cpu_us(seat) << " us off turn";
        }
      }
    }
    EXPECT_EQ(logs, 4);
    std::cout << (ponder ? "pondering" : "guarded") << ": the hog used " << taken_us / 1000
              << " ms of CPU during strong's turns in 4 matches\n";
    if (ponder) {
      EXPECT_GT(taken_us, 200'000u);
    } else {
      EXPECT_LT(taken_us, 100'000u);  // a few ms once per hog process; 100 for a busy machine
    }
  }
}

// --- 5. Bounded before it is inflated ---------------------------------------------------------

// Runs `argv` (its output into `output_file`) and returns its exit code and peak resident
// memory in KiB, as the kernel counted it for that process alone (wait4).
std::pair<int, long> run_measured(const std::vector<std::string>& argv,
                                  const std::string& output_file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, usage.ru_maxrss};
}

// The zip-bomb bot answers its first turn request with 256 MiB of zeros gzip-compressed into
// about 256 KiB. Started by the referee (sandboxed) or reached at an address, it is refused
// before anything is inflated: the referee's peak memory stays far under 64 MiB (it reached
// 297 MiB when the referee accepted compressed answers), and the fault is the bomb's.
TEST(FairPlay, ACompressedAnswerIsRefusedBeforeItIsInflated) {
  for (const bool connect : {false, true}) {
    SCOPED_TRACE(connect ? "connect mode" : "launched");
    const std::string dir = temp_dir(connect ? "zip-bomb-connect" : "zip-bomb");
    std::unique_ptr<referee::BotProcess> server;
    std::string bomb = "bomb=" + kZipBomb + " --mib 256";
    if (connect) {
      referee::LaunchSpec spec;
      spec.argv = {kZipBomb, "--listen", "unix:" + dir + "/bomb.sock", "--mib", "256"};
      std::string error;
      server = referee::BotProcess::start(spec, &error);
      ASSERT_TRUE(server) << error;
      bomb = "bomb=unix:" + dir + "/bomb.sock";
    }
    const auto [code, peak_kib] =
        run_measured({kReferee, "match", "--seed", "3", "--max-hands", "1", "--log",
                      dir + "/m.jsonl", "--startup-timeout-ms", "30000", bomb, "greedy=" + kGreedy},
                     dir + "/out.txt");
    const std::string out = read_file(dir + "/out.txt");
    EXPECT_EQ(code, 0) << out;
    EXPECT_LT(peak_kib, 64 * 1024) << out;
    std::cout << (connect ? "connect" : "launched") << ": the referee's peak memory " << peak_kib
              << " KiB\n";
    const auto log = read_log(dir + "/m.jsonl");
    const auto& fault = only(log, v1::LogRecord::kFault).fault();
    EXPECT_EQ(fault.seat(), 0u);
    EXPECT_EQ(fault.kind(), v1::FAULT_KIND_PROTOCOL_VIOLATION) << fault.reason();
    EXPECT_TRUE(contains(fault.reason(), "compressed what it sent")) << fault.reason();
    if (server) server->stop(std::chrono::milliseconds(100));
  }
}

// --- 6. The start-up race ------------------------------------------------------------------

// Seat 0's bot answers NOT_SERVING until the start-up deadline is near, then SERVING a few
// milliseconds before it. The other seats (greedy, ready within milliseconds) are judged by
// their own start-up: they never fail because seat 0 took all the time. Either seat 0 made it
// and the match is played, or seat 0 is the one at fault. Several margins, so that some land
// right at the deadline, in 2 and 4 players.
TEST(FairPlay, AStartUpFaultLandsOnTheSeatThatFailed) {
  int played = 0, seat0_failed = 0;
  for (const int players : {2, 4}) {
    for (const int margin_ms : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE(std::to_string(players) + " players, SERVING " + std::to_string(margin_ms) +
                   " ms before the deadline");
      std::vector<std::string> seats = {"late=" + kBadBot + " --mode late-ready --ms " +
                                        std::to_string(margin_ms)};
      for (int s = 1; s < players; ++s)
        seats.push_back("greedy" + std::to_string(s) + "=" + kGreedy);
      const PlayedMatch m = play_match(
          kReferee, "late-ready-" + std::to_string(players) + "-" + std::to_string(margin_ms),
          seats, 1000, 1000,
          {"--format", players == 2 ? "2p" : "4p", "--max-hands", "1", "--startup-timeout-ms",
           "1500"});
      ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
      const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
      if (end.fault_seat() < 0) {
        ++played;
        EXPECT_EQ(end.hands_played(), 1u);
        continue;
      }
      EXPECT_EQ(end.fault_seat(), 0) << m.run.output;
      EXPECT_EQ(end.fault_kind(), v1::FAULT_KIND_STARTUP_FAILURE) << m.run.output;
      ++seat0_failed;
      // Every seat's log entry says how its bot was confined, the stopped ones' too.
      for (const auto& bot : only(m.log, v1::LogRecord::kHeader).header().bots())
        EXPECT_TRUE(bot.has_confinement()) << bot.display_name();
    }
  }
  std::cout << "late-ready: " << played << " matches played, " << seat0_failed
            << " with seat 0 at fault\n";
}

}  // namespace
}  // namespace allfives::e2e
