// Standings: results per format, forfeits, points, the Elo fit and its intervals, the cross
// table, the writers, and merging folders.
#include "tournament/standings.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_entries.h"
#include "tournament/index_file.h"

namespace allfives::referee {
namespace {

using testing::entry;
using testing::TempDir;
using testing::two_player;

const BotStanding& row(const Standings& s, const std::string& name) {
  for (const BotStanding& b : s.bots)
    if (b.name == name) return b;
  ADD_FAILURE() << "no row for " << name;
  static const BotStanding none;
  return none;
}

size_t rank_of(const Standings& s, const std::string& name) {
  for (size_t i = 0; i < s.bots.size(); ++i)
    if (s.bots[i].name == name) return i;
  ADD_FAILURE() << "no row for " << name;
  return 0;
}

const HeadToHead& h2h(const Standings& s, const std::string& a, const std::string& b) {
  return s.cross[rank_of(s, a)][rank_of(s, b)];
}

// `a` against `b`: `wins` wins of a, `losses` wins of b, `draws` draws, seats alternating.
void add_pairing(std::vector<v1::IndexEntry>& out, const std::string& a, const std::string& b,
                 int wins, int losses, int draws) {
  auto add = [&](int result_for_a) {  // 1 a wins, 0 b wins, -1 a draw
    const size_t id = out.size();
    std::string match_id = "m";
    match_id += std::to_string(id);
    const int winner_seat_if_a_first = result_for_a == 1 ? 0 : result_for_a == 0 ? 1 : -1;
    if (id % 2 == 0) {
      out.push_back(two_player(match_id, a, b, winner_seat_if_a_first));
    } else {
      const int winner = winner_seat_if_a_first < 0 ? -1 : 1 - winner_seat_if_a_first;
      out.push_back(two_player(match_id, b, a, winner));
    }
  };
  for (int i = 0; i < wins; ++i) add(1);
  for (int i = 0; i < losses; ++i) add(0);
  for (int i = 0; i < draws; ++i) add(-1);
}

TEST(Standings, TwoPlayersWinsLossesDrawsAndForfeits) {
  std::vector<v1::IndexEntry> entries = {
      two_player("m0", "alpha", "beta", 0),   // alpha wins 250-120
      two_player("m1", "beta", "alpha", 0),   // beta wins 250-120
      two_player("m2", "alpha", "beta", -1),  // 180-180 draw at the hand limit
      // beta times out while ahead: still a loss for beta and a win for alpha.
      entry("m3", v1::FORMAT_TWO_PLAYERS, {"alpha", "beta"}, {40, 90}, {1, 2}, 1,
            v1::FAULT_KIND_TIMEOUT),
      // alpha crashes; no placements in the entry: computed like the referee does.
      entry("m4", v1::FORMAT_TWO_PLAYERS, {"beta", "alpha"}, {10, 20}, {}, 1,
            v1::FAULT_KIND_CRASH)};
  const Standings s = compute_standings(entries);
  EXPECT_EQ(s.matches, 5);
  EXPECT_EQ(s.format, v1::FORMAT_TWO_PLAYERS);
  EXPECT_EQ(s.tournament_hash, "hash-1");
  EXPECT_TRUE(s.notes.empty());
  const BotStanding& a = row(s, "alpha");
  const BotStanding& b = row(s, "beta");
  EXPECT_EQ(a.matches, 5);
  EXPECT_EQ(a.wins, 2);
  EXPECT_EQ(a.losses, 2);
  EXPECT_EQ(a.draws, 1);
  EXPECT_EQ(b.wins, 2);
  EXPECT_EQ(b.losses, 2);
  EXPECT_EQ(b.draws, 1);
  EXPECT_EQ(a.forfeits_total, 1);
  EXPECT_EQ(a.forfeits[v1::FAULT_KIND_CRASH], 1);
  EXPECT_EQ(b.forfeits_total, 1);
  EXPECT_EQ(b.forfeits[v1::FAULT_KIND_TIMEOUT], 1);
  EXPECT_EQ(b.forfeits[v1::FAULT_KIND_CRASH], 0);
  EXPECT_DOUBLE_EQ(a.points_for, 250 + 120 + 180 + 40 + 20);
  EXPECT_DOUBLE_EQ(a.points_against, 120 + 250 + 180 + 90 + 10);
  EXPECT_DOUBLE_EQ(b.points_for, a.points_against);
  EXPECT_DOUBLE_EQ(a.avg_points_for(), 610.0 / 5);
  EXPECT_EQ(a.games, 5);
  EXPECT_DOUBLE_EQ(a.game_score, 2.5);
  EXPECT_EQ(h2h(s, "alpha", "beta").wins, 2);
  EXPECT_EQ(h2h(s, "alpha", "beta").losses, 2);
  EXPECT_EQ(h2h(s, "alpha", "beta").draws, 1);
  EXPECT_EQ(h2h(s, "beta", "alpha").wins, 2);
  EXPECT_EQ(h2h(s, "alpha", "alpha").games(), 0);
  EXPECT_NEAR(a.elo, 0, 1e-6);
  EXPECT_NEAR(b.elo, 0, 1e-6);
}

TEST(Standings, PartnershipsCountEachBotOncePerMatch) {
  const std::vector<v1::IndexEntry> entries = {
      entry("p0", v1::FORMAT_PARTNERSHIPS, {"red", "blue", "red", "blue"}, {250, 100}, {1, 2}),
      entry("p1", v1::FORMAT_PARTNERSHIPS, {"blue", "red", "blue", "red"}, {250, 240}, {1, 2}),
      entry("p2", v1::FORMAT_PARTNERSHIPS, {"red", "blue", "red", "blue"}, {200, 200}, {1, 1}),
      // seat 3 (blue, side 1) makes an illegal play while its side leads.
      entry("p3", v1::FORMAT_PARTNERSHIPS, {"red", "blue", "red", "blue"}, {30, 100}, {1, 2}, 3,
            v1::FAULT_KIND_ILLEGAL_PLAY)};
  const Standings s = compute_standings(entries);
  EXPECT_EQ(s.format, v1::FORMAT_PARTNERSHIPS);
  const BotStanding& red = row(s, "red");
  const BotStanding& blue = row(s, "blue");
  EXPECT_EQ(red.matches, 4);
  EXPECT_EQ(red.wins, 2);
  EXPECT_EQ(red.losses, 1);
  EXPECT_EQ(red.draws, 1);
  EXPECT_EQ(blue.matches, 4);
  EXPECT_EQ(blue.wins, 1);
  EXPECT_EQ(blue.losses, 2);
  EXPECT_EQ(blue.draws, 1);
  EXPECT_EQ(blue.forfeits[v1::FAULT_KIND_ILLEGAL_PLAY], 1);
  EXPECT_EQ(red.forfeits_total, 0);
  EXPECT_DOUBLE_EQ(red.points_for, 250 + 240 + 200 + 30);
  EXPECT_DOUBLE_EQ(red.points_against, 100 + 250 + 200 + 100);
  EXPECT_EQ(red.games, 4) << "one pairwise game per match";
  EXPECT_EQ(h2h(s, "red", "blue").wins, 2);
  EXPECT_GT(red.elo, blue.elo);
  EXPECT_EQ(s.bots[0].name, "red");
}

TEST(Standings, ThreePlayersPlacementRules) {
  const std::vector<v1::IndexEntry> entries = {
      // sole first: x wins; y and z lose; y and z draw their pairwise game.
      entry("t0", v1::FORMAT_THREE_PLAYERS, {"x", "y", "z"}, {200, 150, 150}, {1, 2, 2}),
      // shared first: x and y draw; z loses.
      entry("t1", v1::FORMAT_THREE_PLAYERS, {"y", "z", "x"}, {200, 100, 200}, {1, 3, 1}),
      // z faults while leading: z is last; y (2nd by score among the others) beats x.
      entry("t2", v1::FORMAT_THREE_PLAYERS, {"z", "x", "y"}, {190, 50, 60}, {3, 2, 1}, 0,
            v1::FAULT_KIND_DISCONNECT)};
  const Standings s = compute_standings(entries);
  const BotStanding& x = row(s, "x");
  const BotStanding& y = row(s, "y");
  const BotStanding& z = row(s, "z");
  EXPECT_EQ(x.wins, 1);
  EXPECT_EQ(x.draws, 1);
  EXPECT_EQ(x.losses, 1);
  EXPECT_EQ(y.wins, 1);
  EXPECT_EQ(y.draws, 1);
  EXPECT_EQ(y.losses, 1);
  EXPECT_EQ(z.wins, 0);
  EXPECT_EQ(z.draws, 0);
  EXPECT_EQ(z.losses, 3);
  EXPECT_EQ(z.forfeits[v1::FAULT_KIND_DISCONNECT], 1);
  // Against: the mean of the other two players' scores.
  EXPECT_DOUBLE_EQ(x.points_for, 200 + 200 + 50);
  EXPECT_DOUBLE_EQ(x.points_against, (150 + 150) / 2.0 + (200 + 100) / 2.0 + (190 + 60) / 2.0);
  // Pairwise games: 3 per match, 2 per bot per match.
  EXPECT_EQ(x.games, 6);
  const HeadToHead& xy = h2h(s, "x", "y");
  EXPECT_EQ(xy.wins, 1);
  EXPECT_EQ(xy.draws, 1);
  EXPECT_EQ(xy.losses, 1);
  const HeadToHead& yz = h2h(s, "y", "z");
  EXPECT_EQ(yz.wins, 2);
  EXPECT_EQ(yz.draws, 1);
  EXPECT_EQ(yz.losses, 0);
  EXPECT_EQ(h2h(s, "z", "x").losses, 3);
  // Same opponents, x scored 4.5 of 6 pairwise points and y 4: x ranks above y.
  EXPECT_DOUBLE_EQ(x.game_score, 4.5);
  EXPECT_DOUBLE_EQ(y.game_score, 4.0);
  EXPECT_EQ(s.bots[0].name, "x");
  EXPECT_EQ(s.bots[1].name, "y");
  EXPECT_EQ(s.bots[2].name, "z");
}

TEST(Standings, FourPlayersSixGamesPerMatch) {
  const std::vector<v1::IndexEntry> entries = {entry(
      "f0", v1::FORMAT_FOUR_PLAYERS, {"a", "b", "c", "d"}, {200, 150, 150, 10}, {1, 2, 2, 4})};
  const Standings s = compute_standings(entries);
  EXPECT_EQ(row(s, "a").wins, 1);
  EXPECT_EQ(row(s, "b").losses, 1);
  EXPECT_EQ(row(s, "a").games, 3);
  EXPECT_EQ(h2h(s, "b", "c").draws, 1);
  EXPECT_EQ(h2h(s, "b", "d").wins, 1);
  EXPECT_DOUBLE_EQ(row(s, "d").points_against, (200 + 150 + 150) / 3.0);
  EXPECT_EQ(s.bots[0].name, "a");
  EXPECT_EQ(s.bots[3].name, "d");
}

TEST(Standings, SkipsAbortedAndInconsistentEntries) {
  v1::IndexEntry aborted = two_player("m1", "a", "b", 0);
  aborted.set_reason(v1::MATCH_END_REASON_ABORTED);
  v1::IndexEntry bad = two_player("m2", "a", "b", 0);
  bad.add_scores(7);  // three scores for two sides
  const Standings s = compute_standings({two_player("m0", "a", "b", 0), aborted, bad});
  EXPECT_EQ(s.matches, 1);
  EXPECT_EQ(row(s, "a").matches, 1);
  ASSERT_EQ(s.notes.size(), 2u);
  EXPECT_NE(s.notes[0].find("m1"), std::string::npos);
  EXPECT_NE(s.notes[1].find("m2"), std::string::npos);
}

// Elo: a 75% score is odds of 3, a rating gap of 400 log10(3) = 190.8, so +/-95.4 around 0.
TEST(Elo, SeventyFivePercentIsA191PointGap) {
  const double half_gap = 200.0 * std::log10(3.0);
  std::vector<v1::IndexEntry> few, many;
  add_pairing(few, "strong", "weak", 300, 100, 0);
  add_pairing(many, "strong", "weak", 1200, 400, 0);
  const Standings s1 = compute_standings(few);
  const Standings s4 = compute_standings(many);
  for (const Standings* s : {&s1, &s4}) {
    EXPECT_EQ(s->bots[0].name, "strong");
    EXPECT_NEAR(s->bots[0].elo, half_gap, 2.0);  // the prior shrinks it a little
    EXPECT_NEAR(s->bots[1].elo, -half_gap, 2.0);
    EXPECT_NEAR(s->bots[0].elo - s->bots[1].elo, 400 * std::log10(3.0), 2.0);
    EXPECT_NEAR(s->bots[0].elo + s->bots[1].elo, 0, 1e-9) << "centred";
    EXPECT_LT(s->bots[0].elo, half_gap) << "shrunk towards 0, not away";
  }
  // The interval of a centred rating is half that of the gap:
  // 1.96 * (400 / ln 10) / (2 sqrt(N p (1 - p))) with p = 3/4.
  const double expected400 = 1.959964 * 400 / std::log(10.0) / (2 * std::sqrt(400 * 0.1875));
  EXPECT_NEAR(s1.bots[0].elo_ci95, expected400, 0.5);
  EXPECT_NEAR(s1.bots[1].elo_ci95, s1.bots[0].elo_ci95, 1e-6);
  // Four times the games: half the width.
  EXPECT_NEAR(s4.bots[0].elo_ci95 / s1.bots[0].elo_ci95, 0.5, 0.02);
  EXPECT_NEAR(s4.bots[0].elo, s1.bots[0].elo, 1.0);
}

TEST(Elo, DrawsCountHalf) {
  // Half wins, half draws and no losses score 75%, like 75% wins and 25% losses.
  std::vector<v1::IndexEntry> draws, wins;
  add_pairing(draws, "p", "q", 500, 0, 500);
  add_pairing(wins, "p", "q", 750, 250, 0);
  EXPECT_NEAR(compute_standings(draws).bots[0].elo, compute_standings(wins).bots[0].elo, 1e-6);
}

TEST(Elo, SymmetricResultsGiveEqualRatings) {
  std::vector<v1::IndexEntry> entries;
  // A rock-paper-scissors cycle: each bot beats one and loses to the other, 6-4.
  add_pairing(entries, "rock", "scissors", 6, 4, 0);
  add_pairing(entries, "scissors", "paper", 6, 4, 0);
  add_pairing(entries, "paper", "rock", 6, 4, 0);
  const Standings s = compute_standings(entries);
  ASSERT_EQ(s.bots.size(), 3u);
  for (const BotStanding& b : s.bots) {
    EXPECT_NEAR(b.elo, 0, 1e-6) << b.name;
    EXPECT_NEAR(b.elo_ci95, s.bots[0].elo_ci95, 1e-6) << b.name;
    EXPECT_GT(b.elo_ci95, 0);
  }
  // Equal ratings are ordered by name.
  EXPECT_EQ(s.bots[0].name, "paper");
  EXPECT_EQ(s.bots[1].name, "rock");
  EXPECT_EQ(s.bots[2].name, "scissors");
}

TEST(Elo, PerfectScoreGetsAFiniteRating) {
  std::vector<v1::IndexEntry> entries;
  add_pairing(entries, "winner", "loser", 20, 0, 0);
  add_pairing(entries, "loser", "third", 10, 10, 0);
  const Standings s = compute_standings(entries);
  const BotStanding& w = row(s, "winner");
  EXPECT_TRUE(std::isfinite(w.elo));
  EXPECT_TRUE(std::isfinite(w.elo_ci95));
  EXPECT_GT(w.elo, 200);
  EXPECT_LT(w.elo, 2000);
  EXPECT_GT(w.elo_ci95, 50) << "a perfect score says little about how much stronger";
  EXPECT_EQ(s.bots[0].name, "winner");
  double sum = 0;
  for (const BotStanding& b : s.bots) sum += b.elo;
  EXPECT_NEAR(sum, 0, 1e-6);
}

// Entries that cannot be results of the tournament are refused, each with its reason; the same
// entries are counted when they fit.
TEST(Standings, EntriesThatContradictTheTournamentAreRefused) {
  EntryExpectations t;
  t.format = v1::FORMAT_TWO_PLAYERS;
  t.target = 250;
  t.max_hands = 200;
  t.bots = {"a", "b"};
  EXPECT_EQ(entry_problem(two_player("m", "a", "b", 0), t), "");
  EXPECT_EQ(entry_problem(two_player("m", "a", "b", -1), t), "");  // a draw at the hand limit
  auto problem = [&](v1::IndexEntry e) { return entry_problem(e, t); };
  v1::IndexEntry e = two_player("m", "a", "b", 0);
  e.set_placements(0, 7);
  e.set_placements(1, 7);
  EXPECT_NE(problem(e).find("placements [7, 7] do not follow from the scores [250, 120]"),
            std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_scores(0, 1000);
  EXPECT_NE(problem(e).find("scored 1000, more than a match can score (419"), std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_scores(1, 260);  // both at the target
  EXPECT_NE(problem(e).find("do not fit its end MATCH_END_REASON_TARGET"), std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_winner_side(1);
  EXPECT_NE(problem(e).find("winner_side 1 does not follow"), std::string::npos);
  e = two_player("m", "a", "c", 0);
  EXPECT_NE(problem(e).find("'c' is not a bot of the tournament"), std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_format(v1::FORMAT_PARTNERSHIPS);
  EXPECT_NE(problem(e).find("is not the tournament's, FORMAT_TWO_PLAYERS"), std::string::npos);
  EXPECT_NE(entry_problem(e).find("has 4 seats and 2 sides"), std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_reason(v1::MATCH_END_REASON_ABORTED);
  EXPECT_NE(problem(e).find("is no result"), std::string::npos);
  e = two_player("m", "a", "b", 0);
  e.set_fault_seat(1);  // a fault, but the reason says the target was reached
  e.set_fault_kind(v1::FAULT_KIND_TIMEOUT);
  EXPECT_NE(problem(e).find("go together"), std::string::npos);
  e = two_player("m", "a", "b", -1);
  e.set_hands_played(201);
  EXPECT_NE(problem(e).find("beyond the limit of 200"), std::string::npos);
  // The accumulator skips such an entry with a note instead of counting a draw.
  e = two_player("m", "a", "b", 0);
  e.set_placements(0, 7);
  e.set_placements(1, 7);
  const Standings s = compute_standings({e, two_player("n", "a", "b", 0)});
  EXPECT_EQ(s.matches, 1);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("skipped match 'm'"), std::string::npos);
}

// Names come from index lines anyone can edit: the table never prints a newline or an escape
// sequence of one.
TEST(Standings, TheTableEscapesNames) {
  const std::string evil = "x\n\x1b[31mred";
  const std::string table = format_standings_table(
      compute_standings({two_player("m0", evil, "b", 0), two_player("m1", "b", evil, 1)}));
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_NE(table.find("x\\x0a\\x1b[31mred"), std::string::npos) << table;
}

TEST(Standings, NoEntries) {
  const Standings empty = compute_standings({});
  EXPECT_TRUE(empty.bots.empty());
  EXPECT_EQ(empty.matches, 0);
  EXPECT_EQ(format_standings_table(empty).find("nan"), std::string::npos);
  const std::string csv = standings_csv(empty);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1) << "the header alone";
  google::protobuf::Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(standings_json(empty), &parsed).ok());
}

// standings.json's "sprt": an empty array without an SPRT, one object per reference with the
// test's settings, counts, LLR against its bounds, state and words.
TEST(Writers, JsonHoldsEachSprtsStateAndVerdict) {
  Standings s = compute_standings({});
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(standings_json(s), &parsed).ok());
  ASSERT_EQ(parsed.fields().at("sprt").kind_case(), google::protobuf::Value::kListValue);
  EXPECT_EQ(parsed.fields().at("sprt").list_value().values_size(), 0);
  SprtSummary t;
  t.candidate = "new";
  t.against = "old";
  t.params = SprtParams{0, 10, 0.05, 0.05};
  t.pairs.n = {1, 2, 30, 4, 5};
  t.llr = 3.1;
  t.state = SprtSummary::State::kAcceptH1;
  t.pairs_at_end = 40;
  t.llr_at_end = 2.95;
  s.sprt.push_back(t);
  t.against = "greedy";  // a second reference, still running
  t.state = SprtSummary::State::kRunning;
  t.llr = -0.5;
  t.pairs_at_end = 0;
  t.llr_at_end = 0;
  s.sprt.push_back(t);
  parsed.Clear();
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(standings_json(s), &parsed).ok())
      << standings_json(s);
  const auto& tests = parsed.fields().at("sprt").list_value();
  ASSERT_EQ(tests.values_size(), 2);
  const auto& f = tests.values(0).struct_value().fields();
  EXPECT_EQ(f.at("candidate").string_value(), "new");
  EXPECT_EQ(f.at("against").string_value(), "old");
  EXPECT_EQ(f.at("state").string_value(), "h1_accepted");
  EXPECT_EQ(f.at("pairs_at_end").number_value(), 40);
  EXPECT_EQ(f.at("pairs").list_value().values(2).number_value(), 30);
  EXPECT_NEAR(f.at("upper_bound").number_value(), std::log(0.95 / 0.05), 1e-4);
  EXPECT_NEAR(f.at("llr").number_value(), 3.1, 1e-4);
  EXPECT_NEAR(f.at("llr_at_end").number_value(), 2.95, 1e-4);
  EXPECT_EQ(f.at("status").string_value(), "LLR +2.95 ≥ +2.94: H1 accepted after 40 pairs");
  EXPECT_EQ(f.at("verdict").string_value().rfind("new is stronger than old (", 0), 0u)
      << f.at("verdict").string_value();
  const auto& g = tests.values(1).struct_value().fields();
  EXPECT_EQ(g.at("against").string_value(), "greedy");
  EXPECT_EQ(g.at("state").string_value(), "running");
  EXPECT_EQ(g.at("verdict").string_value(), "");
  s.sprt.resize(1);
  s.sprt[0].state = SprtSummary::State::kMaxPairs;  // over at its maximum
  s.sprt[0].max_pairs = 42;
  EXPECT_NE(standings_json(s).find("\"state\": \"max_pairs\""), std::string::npos);
  EXPECT_NE(standings_json(s).find("undecided: the maximum of 42 pairs"), std::string::npos);
}

TEST(Writers, CsvHeaderAndRows) {
  std::vector<v1::IndexEntry> entries;
  add_pairing(entries, "good", "bad,name", 3, 1, 0);
  entries.push_back(entry("fault", v1::FORMAT_TWO_PLAYERS, {"good", "bad,name"}, {0, 5}, {1, 2}, 1,
                          v1::FAULT_KIND_STARTUP_FAILURE));
  const std::string csv = standings_csv(compute_standings(entries));
  std::istringstream in(csv);
  std::string header, first, second, extra;
  ASSERT_TRUE(std::getline(in, header));
  ASSERT_TRUE(std::getline(in, first));
  ASSERT_TRUE(std::getline(in, second));
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header,
            "rank,bot,matches,wins,losses,draws,forfeits,forfeit_timeout,forfeit_crash,"
            "forfeit_disconnect,forfeit_illegal_play,forfeit_malformed_answer,"
            "forfeit_protocol_violation,forfeit_startup_failure,points_for,points_against,"
            "avg_points_for,avg_points_against,games,game_score,elo,elo_ci95,statistical_tie");
  EXPECT_EQ(first.rfind("1,good,5,4,1,0,0,0,0,0,0,0,0,0,", 0), 0u) << first;
  EXPECT_EQ(second.rfind("2,\"bad,name\",5,1,4,0,1,0,0,0,0,0,0,1,", 0), 0u) << second;
  const auto columns = [](const std::string& line) {
    size_t n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  EXPECT_EQ(columns(first), columns(header));
  EXPECT_EQ(columns(second), columns(header));
}

TEST(Writers, JsonIsValidAndTableHasEveryBot) {
  std::vector<v1::IndexEntry> entries;
  add_pairing(entries, "quote\"bot", "plain", 3, 1, 1);
  const Standings s = compute_standings(entries);
  google::protobuf::Struct parsed;
  const auto status = google::protobuf::util::JsonStringToMessage(standings_json(s), &parsed);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << standings_json(s);
  EXPECT_EQ(parsed.fields().at("matches").number_value(), 5);
  const auto& bots = parsed.fields().at("bots").list_value();
  ASSERT_EQ(bots.values_size(), 2);
  EXPECT_EQ(bots.values(0).struct_value().fields().at("name").string_value(), "quote\"bot");
  EXPECT_EQ(parsed.fields().at("head_to_head").list_value().values_size(), 2);

  const std::string table = format_standings_table(s);
  EXPECT_NE(table.find("quote\"bot"), std::string::npos) << table;
  EXPECT_NE(table.find("3-1-1"), std::string::npos) << table;
  EXPECT_NE(table.find("1-3-1"), std::string::npos) << table;
  EXPECT_NE(table.find("±"), std::string::npos) << table;
}

TEST(Writers, WritesTheThreeFiles) {
  TempDir dir;
  std::vector<v1::IndexEntry> entries;
  add_pairing(entries, "a", "b", 2, 1, 0);
  const Standings s = compute_standings(entries);
  std::string error;
  ASSERT_TRUE(write_standings_files(dir.file("out"), s, &error)) << error;
  for (const char* name : {"standings.txt", "standings.csv", "standings.json"}) {
    std::ifstream f(dir.file(std::string("out/") + name));
    std::ostringstream text;
    text << f.rdbuf();
    EXPECT_FALSE(text.str().empty()) << name;
  }
  std::ifstream csv(dir.file("out/standings.csv"));
  std::ostringstream text;
  text << csv.rdbuf();
  EXPECT_EQ(text.str(), standings_csv(s));
}

TEST(Merge, StandingsOfMergedFoldersEqualThoseOfTheUnion) {
  TempDir dir;
  std::vector<v1::IndexEntry> all;
  add_pairing(all, "a", "b", 7, 3, 2);
  add_pairing(all, "b", "c", 5, 5, 0);
  add_pairing(all, "a", "c", 8, 1, 1);
  // Folder 1 holds the first two thirds, folder 2 the last two thirds: the middle third twice.
  const size_t third = all.size() / 3;
  const std::string one = dir.file("one/index.jsonl");
  const std::string two = dir.file("two/index.jsonl");
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < 2 * third) {
      ASSERT_TRUE(append_index(one, all[i]));
    }
    if (i >= third) {
      ASSERT_TRUE(append_index(two, all[i]));
    }
  }
  std::vector<IndexSource> sources(2);
  std::vector<std::string> notes;
  std::string error;
  sources[0].name = dir.file("one");
  sources[1].name = dir.file("two");
  ASSERT_TRUE(read_index(one, false, sources[0].entries, notes, &error)) << error;
  ASSERT_TRUE(read_index(two, false, sources[1].entries, notes, &error)) << error;
  std::vector<v1::IndexEntry> merged;
  ASSERT_TRUE(merge_indexes(sources, merged, notes, &error)) << error;
  EXPECT_EQ(merged.size(), all.size());
  const Standings a = compute_standings(merged);
  const Standings b = compute_standings(all);
  EXPECT_EQ(a.matches, static_cast<int>(all.size()));
  EXPECT_EQ(standings_csv(a), standings_csv(b));
  EXPECT_EQ(standings_json(a), standings_json(b));
  EXPECT_EQ(format_standings_table(a), format_standings_table(b));

  // A folder of another tournament is refused.
  sources.push_back({dir.file("other"), {two_player("x0", "a", "b", 0, "hash-other")}});
  EXPECT_FALSE(merge_indexes(sources, merged, notes, &error));
  EXPECT_NE(error.find(dir.file("one")), std::string::npos) << error;
  EXPECT_NE(error.find(dir.file("other")), std::string::npos) << error;
}

}  // namespace
}  // namespace allfives::referee
