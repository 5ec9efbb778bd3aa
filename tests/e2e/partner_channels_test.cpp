// End-to-end tests of the channels two instances of one bot could talk through in a sandbox:
// tests/bots/partner_bot spells its dealt hand into kernel state attached to files both its
// sandboxes read (locks, the page cache, inotify watches, futex waiters) and reads its
// colleague's back; each test counts, against the log's deals, the hands it recovered exactly.
// Sandboxed (the referee's defaults), nothing is recovered; the same tournament with
// --no-sandbox, where the system-call filter is absent, recovers hands through every channel,
// so each channel is real and each test fails without the filter.
#include <gtest/gtest.h>

#include <allfives/wire/convert.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kChannels = {"flock",  "fcntl",   "ofd",       "futex",  "inotify",
                                            "nowait", "mincore", "cachestat", "pageout"};

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::string talker(const std::string& name, const std::string& files, bool individual) {
  std::string text = "bots { name: \"" + name + "\" command: \"" + kPartnerBot +
                     "\" args: \"--files\" args: \"" + files + "\" args: \"--channels\" args: \"" +
                     joined(kChannels) + "\"";
  if (individual) text += " args: \"--colleague\" args: \"talker\"";
  return text + " }\n";
}

// What the talkers got: per channel, the hands of a colleague recovered exactly, and the
// hands a talker could have recovered (each talking seat's hands).
struct Recovered {
  std::map<std::string, int> exact;
  int lines = 0;  // RECOVERED lines, right or wrong
  int hands = 0;
};

// A seat's dealt tiles in every hand of a log.
std::map<int, std::vector<uint32_t>> deals_of(const std::vector<v1::LogRecord>& log) {
  std::map<int, std::vector<uint32_t>> deals;
  for (const v1::LogRecord& r : log) {
    if (r.kind_case() != v1::LogRecord::kHandStart) continue;
    for (const v1::SeatTiles& s : r.hand_start().hands()) {
      TileSet tiles;
      std::string error;
      EXPECT_TRUE(wire::from_proto(s.tiles(), tiles, &error)) << error;
      deals[static_cast<int>(r.hand_start().hand_index())].push_back(tiles.bits());
    }
  }
  return deals;
}

void count_log(const std::vector<v1::LogRecord>& log, Recovered& got) {
  std::vector<int> talkers;
  for (const auto& b : only(log, v1::LogRecord::kHeader).header().bots())
    if (b.display_name().rfind("talker", 0) == 0) talkers.push_back(static_cast<int>(b.seat()));
  ASSERT_EQ(talkers.size(), 2u);
  const auto deals = deals_of(log);
  for (const int seat : talkers) {
    const int colleague = seat == talkers[0] ? talkers[1] : talkers[0];
    got.hands += static_cast<int>(deals.size());
    std::istringstream lines(printed_by(log, seat));
    for (std::string line; std::getline(lines, line);) {
      char channel[32];
      int hand = 0;
      unsigned bits = 0;
      if (std::sscanf(line.c_str(), "RECOVERED %31s hand %d: %u", channel, &hand, &bits) != 3)
        continue;
      ++got.lines;
      if (deals.count(hand) && deals.at(hand)[colleague] == bits) ++got.exact[channel];
    }
  }
}

// Two matches of partner_bot's instances against greedy ones, six hands each, one at a time
// (two matches at once would share the files).
Recovered play(const std::string& name, bool individual, bool sandboxed) {
  const std::string dir = temp_dir(name);
  const std::string files = dir + "/files";
  const RunResult prepared = run({kPartnerBot, "--prepare", files});
  EXPECT_EQ(prepared.exit_code, 0) << prepared.output;
  std::string text = "name: \"channels\"\n";
  if (individual) {
    text += "format: FORMAT_FOUR_PLAYERS\n" + talker("talker_a", files, true) +
            talker("talker_b", files, true) + "bots { name: \"greedy_a\" command: \"" + kGreedy +
            "\" }\nbots { name: \"greedy_b\" command: \"" + kGreedy + "\" }\n";
  } else {
    text += "format: FORMAT_PARTNERSHIPS\n" + talker("talker", files, false) +
            "bots { name: \"greedy\" command: \"" + kGreedy + "\" }\n";
  }
  text += std::string("matches_per_pairing: ") + (individual ? "4" : "2") +
          "\nmax_hands: 6\nconcurrency: 1\nseed: 44\n";
  std::ofstream(dir + "/t.txtpb") << text;
  std::vector<std::string> argv = {kReferee, "tournament", dir + "/t.txtpb",
                                   "--out",  dir + "/out", "-q"};
  if (!sandboxed) argv.push_back("--no-sandbox");
  const RunResult r = run(argv, std::chrono::seconds(240));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Recovered got;
  for (const auto& entry : fs::directory_iterator(dir + "/out/matches"))
    count_log(read_log(entry.path().string()), got);
  std::cout << name << ": " << got.hands << " hands, " << got.lines << " lines\n";
  for (const auto& [channel, n] : got.exact) std::cout << "  " << channel << " " << n << "\n";
  return got;
}

std::string described(const Recovered& got) {
  std::string s = std::to_string(got.hands) + " hands; recovered exactly:";
  for (const std::string& c : kChannels)
    s += " " + c + " " + std::to_string(got.exact.count(c) ? got.exact.at(c) : 0);
  return s;
}

TEST(PartnerChannels, SandboxedPartnersRecoverNoHandThroughKernelState) {
  const Recovered got = play("channels-sandboxed", false, true);
  EXPECT_GE(got.hands, 12) << described(got);
  EXPECT_EQ(got.lines, 0) << described(got);
  EXPECT_TRUE(got.exact.empty()) << described(got);
}

// The same bots without the sandbox: every channel carries hands, so the test above would fail
// without the protection.
TEST(PartnerChannels, UnsandboxedPartnersRecoverHandsThroughEveryChannel) {
  const Recovered got = play("channels-unsandboxed", false, false);
  for (const std::string& c : kChannels)
    EXPECT_GE(got.exact.count(c) ? got.exact.at(c) : 0, got.hands / 4)
        << c << ": " << described(got);
}

// Individual formats: two entries of one author's bot at a table of four (collusion against the
// others) meet the same filter.
TEST(PartnerChannels, SandboxedColleaguesInAnIndividualFormatRecoverNothing) {
  const Recovered got = play("channels-individual", true, true);
  EXPECT_GE(got.hands, 12) << described(got);
  EXPECT_EQ(got.lines, 0) << described(got);
}

TEST(PartnerChannels, UnsandboxedColleaguesInAnIndividualFormatRecoverHands) {
  const Recovered got = play("channels-individual-unsandboxed", true, false);
  for (const std::string& c : kChannels)
    EXPECT_GE(got.exact.count(c) ? got.exact.at(c) : 0, got.hands / 4)
        << c << ": " << described(got);
}

// --- the timing channel, which stays open: `referee verify` looks for it --------------------

// `referee verify`'s lines about each bot after a partnership tournament of `bot_entry`
// against greedy.
std::map<std::string, std::string> verify_lines(const std::string& name,
                                                const std::string& bot_entry, int matches) {
  const std::string dir = temp_dir(name);
  std::ofstream(dir + "/t.txtpb") << "name: \"timing\"\nformat: FORMAT_PARTNERSHIPS\n"
                                  << bot_entry << "bots { name: \"greedy\" command: \"" << kGreedy
                                  << "\" }\nmatches_per_pairing: " << matches
                                  << "\nmax_hands: 8\nseed: 46\n";
  const RunResult played =
      run({kReferee, "tournament", dir + "/t.txtpb", "--out", dir + "/out", "-q"},
          std::chrono::seconds(240));
  EXPECT_EQ(played.exit_code, 0) << played.output;
  const RunResult verified = run({kReferee, "verify", dir + "/out"});
  EXPECT_EQ(verified.exit_code, 0) << verified.output;  // a flag is not a broken log
  std::map<std::string, std::string> by_bot;
  std::istringstream lines(verified.output);
  const std::string prefix = "decision times of ";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0)
      by_bot[line.substr(prefix.size(), line.find(':') - prefix.size())] = line;
  EXPECT_EQ(by_bot.size(), 2u) << verified.output;
  for (const auto& [bot, line] : by_bot) std::cout << line << "\n";
  return by_bot;
}

// A team that spells its dealt tiles into its answers' delays (2 ms a level) is flagged.
TEST(PartnerTiming, VerifyFlagsATeamThatTalksThroughItsDecisionTimes) {
  auto lines = verify_lines("timing-talker",
                            "bots { name: \"talker\" command: \"" + kPartnerBot +
                                "\" args: \"--timing-step-ms\" args: \"2\" }\n",
                            16);
  EXPECT_TRUE(contains(lines["talker"], "FLAGGED")) << lines["talker"];
  EXPECT_TRUE(contains(lines["greedy"], "nothing found")) << lines["greedy"];
}

// An honest team whose thinking depends on its hand (the strong bot's search) is not, at the
// detector's false-alarm rate of 0.001.
TEST(PartnerTiming, VerifyDoesNotFlagAStrongTeam) {
  auto lines = verify_lines("timing-strong",
                            "bots { name: \"strong\" command: \"" + kStrong +
                                "\" args: \"--simulations\" args: \"100\" }\n",
                            16);
  EXPECT_TRUE(contains(lines["strong"], "nothing found")) << lines["strong"];
  EXPECT_TRUE(contains(lines["greedy"], "nothing found")) << lines["greedy"];
}

}  // namespace
}  // namespace allfives::e2e
