// Gauntlets (candidates against baselines), the schedule's stability under appending bots, the
// sprt block and per-bot time controls of the tournament file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/temp_dir.h"
#include "tournament/gauntlet.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

class Files {
 public:
  Files() {
    std::ofstream(dir_ / "bot.sh") << "#!/bin/sh\nexit 0\n";
    fs::permissions(dir_ / "bot.sh", fs::perms::owner_all);
  }
  bool load(const std::string& text, TournamentDef& out, std::string& error) {
    const fs::path path = dir_ / "t.txtpb";
    std::ofstream(path) << text;
    return load_tournament(path.string(), out, &error);
  }
  TournamentDef must_load(const std::string& text) {
    TournamentDef t;
    std::string error;
    EXPECT_TRUE(load(text, t, error)) << error;
    return t;
  }

 private:
  testing::TempDir tmp_{"allfives-gauntlet"};
  fs::path dir_ = tmp_.path();
};

std::string bot(const std::string& name, const std::string& extra = "") {
  return "bots { name: \"" + name + "\" command: \"./bot.sh\" " + extra + "}\n";
}

std::set<std::set<std::string>> pairing_names(const std::vector<v1::ScheduledMatch>& s) {
  std::set<std::set<std::string>> out;
  for (const auto& m : s) out.insert({m.seat_bots().begin(), m.seat_bots().end()});
  return out;
}

TEST(Gauntlet, CandidatesPlayOnlyBaselines) {
  Files f;
  const TournamentDef t =
      f.must_load("format: FORMAT_TWO_PLAYERS\n" + bot("new", "candidate: true") + bot("b1") +
                  bot("b2") + bot("b3") + "matches_per_pairing: 4\n");
  const auto s = make_schedule(t);
  EXPECT_EQ(pairing_names(s),
            (std::set<std::set<std::string>>{{"new", "b1"}, {"new", "b2"}, {"new", "b3"}}));
  EXPECT_EQ(s.size(), 12u);
  // Two candidates named in the list: each against the baselines, not against each other.
  const TournamentDef two = f.must_load(
      "format: FORMAT_TWO_PLAYERS\ncandidates: \"x\"\n"
      "candidates: \"y\"\n" +
      bot("x") + bot("y") + bot("b1") + bot("b2"));
  EXPECT_EQ(pairing_names(make_schedule(two)),
            (std::set<std::set<std::string>>{{"x", "b1"}, {"x", "b2"}, {"y", "b1"}, {"y", "b2"}}));
}

TEST(Gauntlet, FourPlayersSeatTheCandidateWithBaselinesInEveryRotation) {
  Files f;
  const TournamentDef t =
      f.must_load("format: FORMAT_FOUR_PLAYERS\ncandidates: \"new\"\n" + bot("b1") + bot("b2") +
                  bot("b3") + bot("b4") + bot("new") + "matches_per_pairing: 4\n");
  const auto s = make_schedule(t);
  // C(4, 3) = 4 pairings of the candidate with three of the four baselines, 4 rotations each.
  EXPECT_EQ(s.size(), 16u);
  std::map<int, int> candidate_seats;
  for (const auto& m : s) {
    EXPECT_EQ(std::count(m.seat_bots().begin(), m.seat_bots().end(), "new"), 1);
    for (int seat = 0; seat < 4; ++seat)
      if (m.seat_bots(seat) == "new") ++candidate_seats[seat];
  }
  EXPECT_EQ(candidate_seats, (std::map<int, int>{{0, 4}, {1, 4}, {2, 4}, {3, 4}}));
}

TEST(Gauntlet, BadCandidates) {
  Files f;
  TournamentDef t;
  std::string error;
  EXPECT_FALSE(f.load("format: FORMAT_TWO_PLAYERS\ncandidates: \"ghost\"\n" + bot("a") + bot("b"),
                      t, error));
  EXPECT_NE(error.find("t.txtpb:2: candidate 'ghost' is not one of the bots"), std::string::npos)
      << error;
  EXPECT_FALSE(f.load("format: FORMAT_THREE_PLAYERS\n" + bot("a", "candidate: true") +
                          bot("b", "candidate: true") + bot("c"),
                      t, error));
  EXPECT_NE(error.find("needs at least 2 baseline"), std::string::npos) << error;
}

// Appending bots keeps every match of the smaller file: same id, seed and seats; and the
// smaller file's hash is among the larger one's earlier hashes (so --resume accepts it).
TEST(Gauntlet, ScheduleIsStableUnderAppendingBots) {
  Files f;
  for (const std::string format : {"FORMAT_TWO_PLAYERS", "FORMAT_THREE_PLAYERS",
                                   "FORMAT_FOUR_PLAYERS", "FORMAT_PARTNERSHIPS"}) {
    SCOPED_TRACE(format);
    const std::string head = "format: " + format + "\nseed: 5\nmatches_per_pairing: 12\n";
    const TournamentDef small = f.must_load(head + bot("a") + bot("b") + bot("c") + bot("d"));
    const TournamentDef large =
        f.must_load(head + bot("a") + bot("b") + bot("c") + bot("d") + bot("e") + bot("f"));
    std::map<std::string, const v1::ScheduledMatch*> in_large;
    const auto large_schedule = make_schedule(large);
    for (const auto& m : large_schedule) in_large[m.match_id()] = &m;
    const auto small_schedule = make_schedule(small);
    for (const auto& m : small_schedule) {
      const auto it = in_large.find(m.match_id());
      ASSERT_NE(it, in_large.end()) << m.match_id();
      EXPECT_EQ(it->second->seed(), m.seed());
      EXPECT_EQ(
          std::vector<std::string>(it->second->seat_bots().begin(), it->second->seat_bots().end()),
          std::vector<std::string>(m.seat_bots().begin(), m.seat_bots().end()));
      EXPECT_EQ(it->second->rotation(), m.rotation());
    }
    EXPECT_NE(small.hash, large.hash);
    EXPECT_NE(std::find(large.earlier_hashes.begin(), large.earlier_hashes.end(), small.hash),
              large.earlier_hashes.end());
    // Removing or changing a bot is not appending.
    const TournamentDef other = f.must_load(head + bot("a") + bot("c") + bot("d") + bot("e"));
    EXPECT_EQ(std::find(large.earlier_hashes.begin(), large.earlier_hashes.end(), other.hash),
              large.earlier_hashes.end());
  }
  // The same for a gauntlet growing by a baseline and by a candidate.
  const std::string head = "format: FORMAT_TWO_PLAYERS\nmatches_per_pairing: 6\n";
  const TournamentDef g1 =
      f.must_load(head + bot("new", "candidate: true") + bot("b1") + bot("b2"));
  const TournamentDef g2 = f.must_load(head + bot("new", "candidate: true") + bot("b1") +
                                       bot("b2") + bot("b3") + bot("newer", "candidate: true"));
  std::set<std::string> ids2;
  for (const auto& m : make_schedule(g2)) ids2.insert(m.match_id());
  for (const auto& m : make_schedule(g1)) EXPECT_EQ(ids2.count(m.match_id()), 1u) << m.match_id();
  EXPECT_NE(std::find(g2.earlier_hashes.begin(), g2.earlier_hashes.end(), g1.hash),
            g2.earlier_hashes.end());
}

TEST(SprtFile, SettingsDefaultsAndErrors) {
  Files f;
  const TournamentDef t = f.must_load("format: FORMAT_TWO_PLAYERS\n" + bot("new") + bot("old") +
                                      "sprt { elo0: 0 elo1: 10 max_pairs: 500 }\n");
  ASSERT_TRUE(t.sprt.has_value());
  EXPECT_EQ(t.sprt->candidate, 0);
  EXPECT_EQ(t.sprt->params.alpha, 0.05);
  EXPECT_EQ(t.sprt->max_pairs, 500u);
  EXPECT_EQ(t.sprt->against, std::vector<int>{1}) << "the reference is the only other bot";
  EXPECT_EQ(t.proto.matches_per_pairing(), 1000u);
  // The test's settings do not change any match's result, so not the hash.
  const TournamentDef plain = f.must_load("format: FORMAT_TWO_PLAYERS\n" + bot("new") + bot("old"));
  EXPECT_EQ(plain.hash, t.hash);

  // With several baselines the question names its reference; the others are for information.
  const std::string gauntlet =
      "format: FORMAT_PARTNERSHIPS\n" + bot("b1") + bot("new", "candidate: true") + bot("b2");
  const TournamentDef g =
      f.must_load(gauntlet + "sprt { elo0: -1 elo1: 4 alpha: 0.1 beta: 0.2 against: \"b2\" }\n");
  EXPECT_EQ(g.sprt->candidate, 1);
  EXPECT_EQ(g.sprt->params.beta, 0.2);
  EXPECT_EQ(g.sprt->against, std::vector<int>{2});
  const TournamentDef both =
      f.must_load(gauntlet + "sprt { elo1: 4 against: \"b2\" against: \"b1\" }\n");
  EXPECT_EQ(both.sprt->against, (std::vector<int>{2, 0}));

  auto error_of = [&](const std::string& text) {
    TournamentDef d;
    std::string error;
    EXPECT_FALSE(f.load(text, d, error));
    return error;
  };
  EXPECT_NE(
      error_of("format: FORMAT_TWO_PLAYERS\n" + bot("a") + bot("b") + "sprt { elo0: 5 elo1: 5 }\n")
          .find("t.txtpb:4: sprt needs finite elo0 < elo1"),
      std::string::npos);
  // No reference named among several: ambiguous, refused, naming the bots to choose from.
  const std::string ambiguous = error_of(gauntlet + "sprt { elo1: 4 }\n");
  EXPECT_NE(ambiguous.find("t.txtpb:5: sprt tests 'new' against one reference, and it meets 2 "
                           "bots ('b1', 'b2'): name the one"),
            std::string::npos)
      << ambiguous;
  EXPECT_NE(error_of(gauntlet + "sprt { elo1: 4 against: \"nobody\" }\n")
                .find("sprt against 'nobody' is not a bot that 'new' meets ('b1', 'b2')"),
            std::string::npos);
  EXPECT_NE(error_of(gauntlet + "sprt { elo1: 4 against: \"new\" }\n").find("against 'new'"),
            std::string::npos);
  EXPECT_NE(
      error_of(gauntlet + "sprt { elo1: 4 against: \"b1\" against: \"b1\" }\n").find("named twice"),
      std::string::npos);
  // Error rates and the maximum are checked where they are read, the range in the message
  // (nan is not silently 0.05, nor is a negative rate).
  for (const char* rate : {"alpha: nan", "alpha: -0.1", "beta: 1", "beta: inf"})
    EXPECT_NE(error_of("format: FORMAT_TWO_PLAYERS\n" + bot("a") + bot("b") + "sprt { elo1: 5 " +
                       rate + " }\n")
                  .find("must be in (0, 1) (or 0: 0.05)"),
              std::string::npos)
        << rate;
  EXPECT_NE(error_of("format: FORMAT_TWO_PLAYERS\n" + bot("a") + bot("b") +
                     "sprt { elo1: 5 max_pairs: 1000001 }\n")
                .find("sprt max_pairs must be 0..1000000"),
            std::string::npos);
  EXPECT_NE(error_of("format: FORMAT_TWO_PLAYERS\n" + bot("a") + bot("b") +
                     "sprt { elo1: 5 alpha: 0.6 beta: 0.5 }\n")
                .find("alpha + beta < 1"),
            std::string::npos);
  EXPECT_NE(error_of("format: FORMAT_THREE_PLAYERS\n" + bot("a") + bot("b") + bot("c") +
                     "sprt { elo1: 5 }\n")
                .find("sprt needs two sides"),
            std::string::npos);
  EXPECT_NE(error_of("format: FORMAT_TWO_PLAYERS\n" + bot("a") + bot("b") + bot("c") +
                     "sprt { elo1: 5 }\n")
                .find("name exactly one candidate"),
            std::string::npos);
}

// The README's template for "is the new version better than the old one?" asks exactly that:
// its one test is of strong-new against strong-old, and greedy's pairs are only informative.
TEST(SprtFile, TheTestAChangeTemplateTestsNewAgainstOld) {
  for (const auto& entry : fs::directory_iterator(ALLFIVES_TOURNAMENTS_DIR)) {
    TournamentDef t;
    std::string error;
    EXPECT_TRUE(
        load_tournament(entry.path().string(), t, &error, {}, LoadOptions{.check_programs = false}))
        << error;
  }
  TournamentDef t;
  std::string error;
  ASSERT_TRUE(load_tournament(std::string(ALLFIVES_TOURNAMENTS_DIR) + "/test_a_change.txtpb", t,
                              &error, {}, LoadOptions{.check_programs = false}))
      << error;
  ASSERT_TRUE(t.sprt.has_value());
  EXPECT_EQ(t.bots[static_cast<size_t>(t.sprt->candidate)].display_name, "strong-new");
  ASSERT_EQ(t.sprt->against.size(), 1u);
  EXPECT_EQ(t.bots[static_cast<size_t>(t.sprt->against[0])].display_name, "strong-old");
}

TEST(TimeOdds, PerBotTimeControlOverridesTheTournaments) {
  Files f;
  const TournamentDef t =
      f.must_load("format: FORMAT_TWO_PLAYERS\nmove_time_ms: 300\ntime_bank_ms: 900\n" +
                  bot("fast", "move_time_ms: 50 time_bank_ms: 100") + bot("plain"));
  ASSERT_EQ(t.bot_time.size(), 2u);
  EXPECT_EQ(t.bot_time[0].move_time.count(), 50);
  EXPECT_EQ(t.bot_time[0].time_bank.count(), 100);
  EXPECT_EQ(t.bot_time[1].move_time.count(), 300);
  EXPECT_EQ(t.bot_time[1].time_bank.count(), 900);
  const TournamentDef even = f.must_load(
      "format: FORMAT_TWO_PLAYERS\nmove_time_ms: 300\n"
      "time_bank_ms: 900\n" +
      bot("fast") + bot("plain"));
  EXPECT_NE(even.hash, t.hash) << "a bot's own time control changes results";
}

}  // namespace
}  // namespace allfives::referee
