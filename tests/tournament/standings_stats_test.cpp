// What the standings add for bot authors: pair statistics per pairing, statistical ties in the
// ranking, per-bot decision times from the entries' timing summaries, and anchored ratings.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "match/decision_timing.h"
#include "test_entries.h"
#include "tournament/standings.h"

namespace allfives::referee {
namespace {

using testing::two_player;

// A mirrored pair: `a` in seat 0 of rotation 0 and seat 1 of rotation 1; `a_wins` of the two
// matches won by `a` (0, 1 or 2; with 1 it wins the first).
void add_pair(std::vector<v1::IndexEntry>& out, const std::string& a, const std::string& b,
              uint32_t deal, int a_wins) {
  for (uint32_t r = 0; r < 2; ++r) {
    const bool a_won = a_wins == 2 || (a_wins == 1 && r == 0);
    std::string id = a;
    id += '-';
    id += b;
    id += '-';
    id += std::to_string(deal);
    id += '-';
    id += std::to_string(r);
    v1::IndexEntry e =
        r == 0 ? two_player(id, a, b, a_won ? 0 : 1) : two_player(id, b, a, a_won ? 1 : 0);
    e.mutable_match()->set_deal(deal);
    e.mutable_match()->set_rotation(r);
    e.mutable_match()->set_seed(1000 + deal);
    out.push_back(e);
  }
}

TEST(StandingsStats, PairingsCarryPentanomialCountsAndTheVerdict) {
  std::vector<v1::IndexEntry> entries;
  // strong wins 18 pairs twice and splits 2 against weak; weak and weaker split all 20.
  for (uint32_t d = 0; d < 20; ++d) add_pair(entries, "strong", "weak", d, d < 18 ? 2 : 1);
  for (uint32_t d = 0; d < 20; ++d) add_pair(entries, "weak", "weaker", d, 1);
  const Standings s = compute_standings(entries);
  ASSERT_EQ(s.pairings.size(), 2u);
  const PairingStats& top = s.pairings[0];
  EXPECT_EQ(top.bot, "strong");
  EXPECT_EQ(top.opponent, "weak");
  EXPECT_TRUE(top.pentanomial);
  EXPECT_EQ(top.pairs, (Pentanomial{{0, 0, 2, 0, 18}}));
  EXPECT_FALSE(top.estimate.indistinguishable());
  EXPECT_GT(top.estimate.los, 0.999);
  const PairingStats& even = s.pairings[1];
  EXPECT_EQ(even.pairs.pairs(), 20);
  EXPECT_TRUE(even.estimate.indistinguishable());
  // The ranking: strong is clear of weak; weak and weaker cannot be told apart.
  ASSERT_EQ(s.bots.size(), 3u);
  EXPECT_EQ(s.bots[0].name, "strong");
  EXPECT_FALSE(s.bots[0].tied);
  EXPECT_TRUE(s.bots[1].tied);
  EXPECT_TRUE(s.bots[2].tied);
  const std::string table = format_standings_table(s);
  EXPECT_NE(table.find("strong vs weak"), std::string::npos) << table;
  EXPECT_NE(table.find("0/0/2/0/18"), std::string::npos) << table;
  EXPECT_NE(table.find("cannot be told apart"), std::string::npos) << table;
  EXPECT_NE(table.find(" 2=  "), std::string::npos) << table;
  EXPECT_EQ(table.find("Why these may differ"), std::string::npos)
      << "the ranking and the pairing lines agree here: " << table;
  EXPECT_NE(pairings_csv(s).find("strong,weak,pentanomial,0,0,2,0,18,"), std::string::npos)
      << pairings_csv(s);
  EXPECT_NE(standings_json(s).find("\"model\": \"pentanomial\", \"pairs\": [0, 0, 2, 0, 18]"),
            std::string::npos);
}

// The ranking's `=` (one fit over single games) and a pairing line (its mirrored pairs) can
// disagree: 4 pairs won twice and 6 split 1-1 are 14-6 in games, which the fit cannot tell
// from equal, while the pairs, whose luck is shared, can. The table says in one line why.
TEST(StandingsStats, TheTableSaysWhyTheRankingAndAPairingLineDisagree) {
  std::vector<v1::IndexEntry> entries;
  for (uint32_t d = 0; d < 10; ++d) add_pair(entries, "a", "b", d, d < 4 ? 2 : 1);
  const Standings s = compute_standings(entries);
  ASSERT_EQ(s.bots.size(), 2u);
  EXPECT_TRUE(s.bots[0].tied_with_next);
  ASSERT_EQ(s.pairings.size(), 1u);
  EXPECT_EQ(s.pairings[0].estimate.verdict(), EloEstimate::Verdict::kFirstStronger);
  const std::string table = format_standings_table(s);
  EXPECT_NE(table.find("Why these may differ: the ranking's = comes from one Bradley-Terry fit"),
            std::string::npos)
      << table;
}

TEST(StandingsStats, AnchorShiftsRatingsAndGivesDifferenceIntervals) {
  std::vector<v1::IndexEntry> entries;
  for (uint32_t d = 0; d < 20; ++d) add_pair(entries, "a", "b", d, d < 12 ? 2 : 1);
  for (uint32_t d = 0; d < 20; ++d) add_pair(entries, "b", "c", d, d < 6 ? 2 : 1);
  Standings s = compute_standings(entries);
  const double gap = s.bots[0].elo - s.bots[2].elo;
  std::string error;
  ASSERT_TRUE(anchor_ratings(s, "c", 100, &error)) << error;
  EXPECT_EQ(s.bots[2].name, "c");
  EXPECT_NEAR(s.bots[2].elo, 100, 1e-9);
  EXPECT_EQ(s.bots[2].elo_ci95, 0);
  EXPECT_NEAR(s.bots[0].elo - s.bots[2].elo, gap, 1e-9);
  // a is two pairings away from c: its difference is less certain than b's.
  EXPECT_GT(s.bots[0].elo_ci95, s.bots[1].elo_ci95);
  EXPECT_NE(format_standings_table(s).find("Anchored: c = 100"), std::string::npos);
  EXPECT_FALSE(anchor_ratings(s, "nobody", 0, &error));
  EXPECT_NE(error.find("'nobody'"), std::string::npos);
}

TEST(DecisionTiming, MeanQuantilesMaxAndNearDeadline) {
  DecisionTiming t;
  for (uint32_t i = 1; i <= 100; ++i) t.add(i * 1000, 100000);  // 1..100 ms of 100 ms
  EXPECT_EQ(t.decisions, 100u);
  EXPECT_NEAR(t.mean_us(), 50500, 1e-9);
  EXPECT_EQ(t.max_us, 100000u);
  EXPECT_NEAR(t.quantile_us(0.5), 50000, 50000 * 0.045);
  EXPECT_NEAR(t.quantile_us(0.99), 99000, 99000 * 0.045);
  EXPECT_EQ(t.near_deadline, 11u);  // 90..100 ms
  DecisionTiming other;
  other.add(5, 1000);
  other.max_bank_used_ms = 70;
  t.merge(other);
  EXPECT_EQ(t.decisions, 101u);
  EXPECT_EQ(t.max_bank_used_ms, 70u);
  EXPECT_NEAR(t.quantile_us(0.001), 5, 5 * 0.1);
  EXPECT_EQ(DecisionTiming{}.quantile_us(0.5), 0);
}

TEST(StandingsStats, DecisionTimesComeFromTheEntries) {
  std::vector<v1::IndexEntry> entries;
  add_pair(entries, "a", "b", 0, 1);
  for (v1::IndexEntry& e : entries)
    for (int seat = 0; seat < 2; ++seat) {
      v1::SeatTiming* st = e.add_timing();
      const bool is_a = e.match().seat_bots(seat) == "a";
      st->set_decisions(10);
      st->set_total_us(is_a ? 20000 : 1000);
      st->set_max_us(is_a ? 9000 : 200);
      st->set_near_deadline(is_a ? 1 : 0);
      st->set_bank_used_ms(is_a ? 40 : 0);
      st->add_bucket(timing_bucket(is_a ? 2000 : 100));
      st->add_bucket_count(10);
    }
  const Standings s = compute_standings(entries);
  for (const BotStanding& b : s.bots) {
    EXPECT_EQ(b.timing.decisions, 20u) << b.name;
    if (b.name == "a") {
      EXPECT_NEAR(b.timing.mean_us(), 2000, 1e-9);
      EXPECT_EQ(b.timing.max_us, 9000u);
      EXPECT_EQ(b.timing.near_deadline, 2u);
      EXPECT_EQ(b.timing.max_bank_used_ms, 40u);
      EXPECT_NEAR(b.timing.quantile_us(0.5), 2000, 2000 * 0.045);
    }
  }
  const std::string table = format_standings_table(s);
  EXPECT_NE(table.find("Decision times (ms)"), std::string::npos) << table;
  EXPECT_NE(standings_json(s).find("\"max_bank_used_ms\": 40"), std::string::npos);
}

TEST(StandingsStats, WritesPairingsAndTimingFiles) {
  testing::TempDir dir;
  std::vector<v1::IndexEntry> entries;
  add_pair(entries, "a", "b", 0, 2);
  const Standings s = compute_standings(entries);
  std::string error;
  ASSERT_TRUE(write_standings_files(dir.file("out"), s, &error)) << error;
  for (const auto& [name, text] :
       {std::pair{"pairings.csv", pairings_csv(s)}, std::pair{"timing.csv", timing_csv(s)}}) {
    std::ifstream f(dir.file(std::string("out/") + name));
    std::ostringstream got;
    got << f.rdbuf();
    EXPECT_EQ(got.str(), text) << name;
  }
  EXPECT_EQ(timing_csv(s).substr(0, 14), "bot,decisions,");
}

}  // namespace
}  // namespace allfives::referee
