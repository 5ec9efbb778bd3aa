// End-to-end tests of the bot author's loop: an SPRT that stops early with H1 (the strong bot
// as candidate against greedy) and with H0 (two identical greedy bots), a resumed decided test
// that plays nothing more, a finished tournament that grows by appended bots without replaying
// its matches (removing a bot is refused), ratings across tournaments with an anchor, time odds
// and decision times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

std::vector<v1::IndexEntry> index_of(const std::string& out) {
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_TRUE(referee::read_index(out + "/index.jsonl", false, entries, notes, &error)) << error;
  return entries;
}

RunResult tournament(const std::string& file, const std::string& out,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {kReferee, "tournament", file, "--out", out, "-j", "2"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(300));
}

// The strong bot with a fixed, small search (--simulations: deterministic, a few ms a
// decision) is far stronger than greedy, so H1 (nElo 20) is accepted after a few dozen pairs.
TEST(Sprt, StrongCandidateAgainstGreedyAcceptsH1) {
  const std::string d = temp_dir("sprt-h1");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"sprt-h1\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"strong\" candidate: true command: \""
                      << ALLFIVES_STRONG_BOT
                      << "\" args: \"--seed\" args: \"1\" args: \"--simulations\" args: \"300\" }\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "seed: 11\nmove_time_ms: 2000\n"
                      << "sprt { elo0: 0 elo1: 20 alpha: 0.05 beta: 0.05 max_pairs: 2000 }\n";
  const RunResult r = tournament(file, d + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("H1 accepted"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("LLR "), std::string::npos) << r.output;
  const size_t matches = index_of(d + "/out").size();
  std::printf("strong (candidate) vs greedy, SPRT nElo [0, 20]: H1 accepted after %zu matches\n",
              matches);
  EXPECT_LT(matches, 400u) << "the test should stop long before its maximum of 4000 matches";
  EXPECT_NE(read_file(d + "/out/sprt.txt").find("H1 accepted"), std::string::npos);
  // The pair statistics are in the standings.
  const std::string table = read_file(d + "/out/standings.txt");
  EXPECT_NE(table.find("strong vs greedy"), std::string::npos) << table;
  EXPECT_NE(read_file(d + "/out/standings.json").find("\"model\": \"pentanomial\""),
            std::string::npos);

  // Resumed, the decided test plays nothing more.
  const RunResult again = tournament(file, d + "/out", {"--resume"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("already over"), std::string::npos) << again.output;
  EXPECT_EQ(index_of(d + "/out").size(), matches);
}

// Two instances of the same deterministic bot: a mirrored pair always splits 1-1, so the pairs
// carry no evidence of a difference and H0 is accepted (after about 450 pairs for nElo
// [0, 20]; docs/STATISTICS.md). A low target score keeps each match short; it does not change
// how many pairs the test needs.
TEST(Sprt, IdenticalGreedyBotsAcceptH0) {
  const std::string d = temp_dir("sprt-h0");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"sprt-h0\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"greedy2\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "seed: 12\ntarget_score: 61\n"
                      << "sprt { elo0: 0 elo1: 20 max_pairs: 3000 }\n";
  const RunResult r = tournament(file, d + "/out", {"--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("H0 accepted"), std::string::npos) << r.output;
  const size_t matches = index_of(d + "/out").size();
  std::printf("greedy vs greedy, SPRT nElo [0, 20]: H0 accepted after %zu matches\n", matches);
  EXPECT_LT(matches, 6000u);
  EXPECT_NE(read_file(d + "/out/standings.txt").find("cannot be told apart"), std::string::npos);
}

// The defect this guards against: with a reference and a weak bot in one gauntlet, pooling the
// candidate's pairs against both made "is it better than the reference?" answer yes from the
// weak bot's pairs alone. Here the candidate is identical to its reference (every pair splits)
// and crushes random: the test must answer about the reference only, and random's pairs get a
// pairing line of their own. Without `against`, the question is ambiguous and refused.
TEST(Sprt, TestsTheCandidateAgainstItsReferenceOnly) {
  const std::string d = temp_dir("sprt-reference");
  auto file = [&](const std::string& against) {
    const std::string path = d + "/t.txtpb";
    std::ofstream(path) << "name: \"sprt-reference\"\nformat: FORMAT_TWO_PLAYERS\n"
                        << "bots { name: \"new\" candidate: true command: \"" << ALLFIVES_GREEDY_BOT
                        << "\" }\n"
                        << "bots { name: \"old\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                        << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                        << "\" args: \"--seed\" args: \"5\" }\n"
                        << "seed: 13\ntarget_score: 61\n"
                        << "sprt { elo0: 0 elo1: 40 max_pairs: 3000 " << against << "}\n";
    return path;
  };
  const RunResult ambiguous = tournament(file(""), d + "/refused");
  EXPECT_EQ(ambiguous.exit_code, 2) << ambiguous.output;
  EXPECT_NE(ambiguous.output.find("sprt tests 'new' against one reference, and it meets 2 bots "
                                  "('old', 'random')"),
            std::string::npos)
      << ambiguous.output;
  EXPECT_FALSE(fs::exists(d + "/refused/index.jsonl"));

  const RunResult r = tournament(file("against: \"old\" "), d + "/out", {"--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("SPRT: is new stronger than old?"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("H0 accepted after"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("H1 accepted"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict: new is not stronger than old by nElo 40"), std::string::npos)
      << r.output;
  // Every pair against the reference split; the pairs against random are on their own line.
  const std::string report = read_file(d + "/out/sprt.txt");
  EXPECT_NE(report.find("pair scores 0/½/1/1½/2: 0/0/"), std::string::npos) << report;
  const std::string table = read_file(d + "/out/standings.txt");
  EXPECT_NE(table.find("new vs random"), std::string::npos) << table;
  EXPECT_NE(table.find("Why these may differ"), std::string::npos) << table;
  const std::string json = read_file(d + "/out/standings.json");
  EXPECT_NE(json.find("\"candidate\": \"new\", \"against\": \"old\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"state\": \"h0_accepted\""), std::string::npos) << json;
  // `referee standings` on the folder tells the same story, from its tournament.txtpb.
  const RunResult again = run({kReferee, "standings", d + "/out"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find(report.substr(0, report.find('\n'))), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("H0 accepted after"), std::string::npos) << again.output;
}

// The progress line as a person at a terminal sees it, every redraw: the SPRT's pairs never run
// ahead of the matches counted (both count committed results), and the ETA is for the matches
// the test is expected to need, not for the schedule's maximum (2 x max_pairs matches).
TEST(Sprt, ProgressLineCountsPairsWithMatchesAndEstimatesTheTestsEnd) {
  const std::string d = temp_dir("sprt-progress");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"sprt-progress\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"greedy2\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "seed: 12\ntarget_score: 61\n"
                      << "sprt { elo0: 0 elo1: 20 max_pairs: 5000 }\n";
  const RunResult r = run_in_terminal(
      {kReferee, "tournament", file, "--out", d + "/out", "-j", "2", "--sync-interval-ms", "20"},
      std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The first line says the schedule is a ceiling, not 10000 matches to play.
  EXPECT_NE(r.output.find("an SPRT that stops once the evidence decides (at most 10000 matches, "
                          "10000 of them left)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("10000 to play"), std::string::npos) << r.output;
  const std::regex line_re(
      "(\\d+) matches \\(at most (\\d+)\\)  ([0-9.]+)/s  ETA (\\S+) .*LLR [-+0-9.]+ .*[ ,] (\\d+) "
      "pairs");
  int lines = 0;
  bool checked_eta = false;
  for (const std::string& text : {r.output}) {
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, '\r')) {
      std::smatch m;
      if (!std::regex_search(part, m, line_re)) continue;
      ++lines;
      const long matches = std::stol(m[1]), most = std::stol(m[2]), pairs = std::stol(m[5]);
      EXPECT_LE(2 * pairs, matches) << part;
      EXPECT_EQ(most, 10000) << part;
      if (!checked_eta && m[4] != "-" && matches > 20) {
        checked_eta = true;
        const double rate = std::stod(m[3]);
        const double eta = std::stod(m[4].str().substr(0, m[4].str().size() - 1));
        // About 1,300 pairs (2,600 matches) are expected from LLR 0 for nElo [0, 20]; the
        // schedule's maximum would be 10,000 - matches.
        EXPECT_LT(eta * rate, 0.5 * static_cast<double>(most - matches)) << part;
        EXPECT_GT(eta * rate, 1000) << part;
      }
    }
  }
  EXPECT_GT(lines, 10) << r.output;
  EXPECT_TRUE(checked_eta) << r.output;
}

// A candidate that never starts (its every match a start-up fault) gave "H0 accepted" after
// 71 pairs of forfeits. Now the run stops after a few tries, names the bot and its first
// error, exits 1, prints no verdict and records none of those matches (a resume after the fix
// plays them). The same in a plain round robin.
TEST(Sprt, ABotThatNeverStartsStopsTheRunWithoutAVerdict) {
  const std::string d = temp_dir("sprt-never-starts");
  for (const bool with_sprt : {true, false}) {
    const std::string file = d + "/t.txtpb";
    std::ofstream(file) << "name: \"never\"\nformat: FORMAT_TWO_PLAYERS\n"
                        << "bots { name: \"broken\" candidate: true command: \""
                        << ALLFIVES_MISBEHAVING_BOT
                        << "\" args: \"--mode\" args: \"exit-at-startup\" }\n"
                        << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                        << "seed: 21\ntarget_score: 61\n"
                        << (with_sprt ? "sprt { elo0: 0 elo1: 20 max_pairs: 500 }\n"
                                      : "matches_per_pairing: 40\n");
    const std::string out = d + (with_sprt ? "/sprt" : "/plain");
    const RunResult r = tournament(file, out, {"--quiet"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("bot 'broken' never started"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("exiting at startup as asked"), std::string::npos)
        << "the first error, with the bot's own words: " << r.output;
    for (const char* verdict : {"accepted", "verdict:", "Rank", "nElo"})
      EXPECT_EQ(r.output.find(verdict), std::string::npos) << verdict << ": " << r.output;
    EXPECT_FALSE(fs::exists(out + "/standings.txt"));
    EXPECT_FALSE(fs::exists(out + "/sprt.txt"));
    for (const v1::IndexEntry& e : index_of(out))
      EXPECT_NE(e.fault_kind(), v1::FAULT_KIND_STARTUP_FAILURE) << e.match().match_id();
  }
}

std::string grow_file(const std::string& dir, const std::vector<std::string>& bots) {
  const std::string file = dir + "/t.txtpb";
  std::ofstream out(file);
  out << "name: \"grow\"\nformat: FORMAT_TWO_PLAYERS\nseed: 4\nmatches_per_pairing: 4\n";
  for (const std::string& b : bots)
    out << "bots { name: \"" << b << "\" command: \""
        << (b == "greedy" ? ALLFIVES_GREEDY_BOT : ALLFIVES_RANDOM_BOT) << "\""
        << (b == "greedy" ? "" : " args: \"--seed\" args: \"" + std::to_string(b.size()) + "\"")
        << " }\n";
  return file;
}

TEST(Tournament, AppendedBotsPlayOnlyTheirNewPairings) {
  const std::string d = temp_dir("grow");
  const std::string out = d + "/out";
  RunResult r = tournament(grow_file(d, {"greedy", "random"}), out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, std::string> logs;  // match id -> log text
  for (const v1::IndexEntry& e : index_of(out))
    logs[e.match().match_id()] = read_file(out + "/" + e.log_file());
  ASSERT_EQ(logs.size(), 4u);

  r = tournament(grow_file(d, {"greedy", "random", "random_b"}), out, {"--resume"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("12 matches, 8 to play"), std::string::npos) << r.output;
  const auto entries = index_of(out);
  EXPECT_EQ(entries.size(), 12u);
  for (const auto& [id, text] : logs)
    EXPECT_EQ(read_file(out + "/matches/" + id + ".jsonl"), text) << id << " was played again";
  EXPECT_NE(read_file(out + "/standings.txt").find("random_b"), std::string::npos);

  // The grown folder verifies: each line against the schedule of the definition it was played
  // with (the earlier lines' ordinals are those of the two-bot schedule).
  const RunResult verified = run({kReferee, "verify", out, "-q"});
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  // Merged with a fresh run of the grown file, every match counts once: 12, not 16.
  const std::string fresh = d + "/fresh";
  ASSERT_EQ(tournament(grow_file(d, {"greedy", "random", "random_b"}), fresh).exit_code, 0);
  const RunResult merged = run({kReferee, "standings", out, fresh});
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_NE(merged.output.find("grow: 2 players, 12 matches"), std::string::npos) << merged.output;
  EXPECT_NE(merged.output.find("12 duplicate match(es) ignored"), std::string::npos)
      << merged.output;
  EXPECT_EQ(merged.output.find("rated 2 tournament definitions"), std::string::npos)
      << merged.output;

  // Removing a bot is refused, and names the bot removed.
  r = tournament(grow_file(d, {"greedy", "random_b"}), out, {"--resume"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("Bot 'random' was removed."), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Bot 'random_b' was removed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("appended"), std::string::npos) << r.output;
  EXPECT_EQ(index_of(out).size(), 12u);
}

std::string two_bot_file(const std::string& dir, const std::string& name, const std::string& format,
                         const std::string& second, const std::string& extra = "") {
  const std::string file = dir + "/" + name + ".txtpb";
  std::ofstream(file) << "name: \"" << name << "\"\nformat: " << format << "\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"" << second << "\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"" << second.size() << "\" }\n"
                      << "matches_per_pairing: 4\nseed: 8\n"
                      << extra;
  return file;
}

// Two tournaments (a ladder: the same greedy against two random bots) rated as one pool,
// anchored on one bot; a third of another format is refused.
TEST(Standings, DifferentTournamentsRateTogetherWithAnAnchor) {
  const std::string d = temp_dir("ladder");
  ASSERT_EQ(
      tournament(two_bot_file(d, "week1", "FORMAT_TWO_PLAYERS", "random"), d + "/w1").exit_code, 0);
  ASSERT_EQ(
      tournament(two_bot_file(d, "week2", "FORMAT_TWO_PLAYERS", "random_v2"), d + "/w2").exit_code,
      0);
  const RunResult r = run(
      {kReferee, "standings", d + "/w1", d + "/w2", "--anchor", "random=0", "--out", d + "/all"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rated 2 tournament definitions together"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Anchored: random = 0"), std::string::npos) << r.output;
  for (const char* bot : {"greedy", "random_v2", "random"})
    EXPECT_NE(r.output.find(bot), std::string::npos) << bot;
  EXPECT_NE(read_file(d + "/all/standings.json").find("\"anchor\": \"random = 0\""),
            std::string::npos);

  ASSERT_EQ(
      tournament(two_bot_file(d, "pairs", "FORMAT_PARTNERSHIPS", "random"), d + "/p").exit_code, 0);
  const RunResult mixed = run({kReferee, "standings", d + "/w1", d + "/p"});
  EXPECT_EQ(mixed.exit_code, 1) << mixed.output;
  EXPECT_NE(mixed.output.find("different formats"), std::string::npos) << mixed.output;
  // A mistake in --anchor is a command-line mistake: exit 2, the range in the message.
  for (const char* anchor : {"nobody=3", "random=nan", "random=inf", "random=1e9", "=4"}) {
    const RunResult bad = run({kReferee, "standings", d + "/w1", "--anchor", anchor});
    EXPECT_EQ(bad.exit_code, 2) << anchor << ": " << bad.output;
  }
  EXPECT_NE(run({kReferee, "standings", d + "/w1", "--anchor", "random=nan"})
                .output.find("ELO a number in -100000..100000"),
            std::string::npos);
  EXPECT_EQ(run({kReferee, "standings", d + "/no-such-folder"}).exit_code, 2);

  // Lines that contradict the tournament are refused with the file and the line, not dropped.
  const std::string index = d + "/w1/index.jsonl";
  const std::string good = read_file(index);
  std::vector<std::string> lines;
  std::istringstream in(good);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u);
  const auto tampered = [&](size_t at, const std::function<void(v1::IndexEntry&)>& edit) {
    v1::IndexEntry e;
    EXPECT_TRUE(referee::from_json_line(lines[at], &e, nullptr));
    edit(e);
    std::ofstream out(index, std::ios::trunc);
    for (size_t i = 0; i < lines.size(); ++i)
      out << (i == at ? referee::to_json_line(e) : lines[i]) << "\n";
  };
  const std::pair<std::function<void(v1::IndexEntry&)>, std::string> cases[] = {
      {[](v1::IndexEntry& e) {
         e.set_placements(0, 7);
         e.set_placements(1, 7);
       },
       "placements [7, 7] do not follow from the scores"},
      {[](v1::IndexEntry& e) { e.set_scores(0, 1000); }, "scored 1000, more than a match can"},
      {[](v1::IndexEntry& e) { e.set_format(v1::FORMAT_THREE_PLAYERS); },
       "is not the tournament's, FORMAT_TWO_PLAYERS"},
      {[](v1::IndexEntry& e) { e.mutable_match()->add_seat_bots("greedy"); }, "seats and 2 sides"},
      {[](v1::IndexEntry& e) { e.mutable_match()->set_seat_bots(0, "evil\n\x1b[2J"); },
       "'evil\\x0a\\x1b[2J' is not a bot of the tournament"},
  };
  for (const auto& [edit, why] : cases) {
    tampered(1, edit);
    const RunResult r = run({kReferee, "standings", d + "/w1"});
    EXPECT_EQ(r.exit_code, 1) << why << ": " << r.output;
    EXPECT_NE(r.output.find(index + ":2: this line cannot be a result of " + d +
                            "/w1/tournament.txtpb: "),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  }
  // Without a definition a name is still never printed raw.
  tampered(1, [](v1::IndexEntry& e) { e.mutable_match()->set_seat_bots(0, "evil\n\x1b[2J"); });
  fs::remove(d + "/w1/tournament.txtpb");
  const RunResult raw = run({kReferee, "standings", d + "/w1"});
  EXPECT_EQ(raw.exit_code, 0) << raw.output;
  EXPECT_EQ(raw.output.find('\x1b'), std::string::npos) << raw.output;
  EXPECT_NE(raw.output.find("evil\\x0a\\x1b[2J"), std::string::npos) << raw.output;
}

// A bot's own time control reaches its seat (the log's header records it per seat), and every
// index entry carries each seat's decision times, which the standings and the replay show.
TEST(Tournament, TimeOddsAndDecisionTimes) {
  const std::string d = temp_dir("odds");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"odds\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT
                      << "\" move_time_ms: 300 time_bank_ms: 700 }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT << "\" }\n"
                      << "matches_per_pairing: 2\nmove_time_ms: 1500\ntime_bank_ms: 4000\n";
  const RunResult r = tournament(file, d + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Decision times (ms)"), std::string::npos) << r.output;
  const auto entries = index_of(d + "/out");
  ASSERT_EQ(entries.size(), 2u);
  for (const v1::IndexEntry& e : entries) {
    ASSERT_EQ(e.timing_size(), 2);
    for (int seat = 0; seat < 2; ++seat) EXPECT_GT(e.timing(seat).decisions(), 0u);
    const auto log = read_log(d + "/out/" + e.log_file());
    const v1::LogHeader& h = only(log, v1::LogRecord::kHeader).header();
    for (const v1::LogBot& b : h.bots()) {
      const bool greedy = b.display_name() == "greedy";
      EXPECT_EQ(b.move_time_ms(), greedy ? 300u : 1500u) << b.display_name();
      EXPECT_EQ(b.time_bank_ms(), greedy ? 700u : 4000u) << b.display_name();
    }
  }
  const RunResult replay =
      run({kReferee, "replay", d + "/out/" + entries[0].log_file(), "--print"});
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("(decided in "), std::string::npos);
}

}  // namespace
}  // namespace allfives::e2e
