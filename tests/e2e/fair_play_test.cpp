// End-to-end tests of fair play in the setup the README recommends (mirrored deals, reused bot
// processes, the sandbox, -j 2): a hostile bot (tests/bots/hostile_bot, tests/bots/
// misbehaving_bot) tries to win by other means than play, and each test checks from outside
// that it learned nothing the protocol does not give it, and slowed or blamed no one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kHostile = ALLFIVES_HOSTILE_BOT;
const std::string kGreedy = ALLFIVES_GREEDY_BOT;
const std::string kMisbehaving = ALLFIVES_MISBEHAVING_BOT;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
    for (const auto& r : l.log)
      if (r.has_bot_output() && seats.count(r.bot_output().seat()))
        l.output += r.bot_output().stderr();
    logs.push_back(std::move(l));
  }
  return logs;
}

// Runs the tournament file `text` (in a fresh folder named after `name`); returns its output
// folder.
std::string run_tournament(const std::string& name, const std::string& text,
                           const std::vector<std::string>& flags) {
  const std::string dir = temp_dir(name);
  std::ofstream(dir + "/t.txtpb") << text;
  std::vector<std::string> argv = {kReferee, "tournament", dir + "/t.txtpb",
                                   "--out",  dir + "/out", "-q"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const RunResult r = run(argv, std::chrono::seconds(240));
  EXPECT_EQ(r.exit_code, 0) << r.output;
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
      std::vector<std::string> seats = {"late=" + kMisbehaving + " --mode late-ready --ms " +
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
