// `referee verify` end to end: the real binary on log files, folders and a tournament's output.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "allfives/core/types.h"
#include "allfives/v1/tournament.pb.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "replay_test_util.h"

namespace allfives::replay_test {
namespace {

namespace fs = std::filesystem;

const std::string kReferee = ALLFIVES_REFEREE;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A folder of logs (no tournament: no tournament.txtpb, index or lock) with two good logs (in
// a subfolder), a bad one and a file that is not a log.
std::string mixed_folder() {
  const std::string dir = e2e::temp_dir("verify-mixed");
  fs::create_directories(dir + "/matches");
  std::ofstream(dir + "/matches/a.jsonl") << real_logs().at("2p");
  std::ofstream(dir + "/matches/b.jsonl") << real_logs().at("partners");
  auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().points() > 0; });
  edit(lines, at, [](v1::LogRecord& r) { r.mutable_play()->set_points(r.play().points() + 5); });
  std::ofstream(dir + "/c.jsonl") << join(lines);
  std::ofstream(dir + "/notes.txt") << "not a log\n";
  return dir;
}

TEST(VerifyCommand, OneLinePerLogAndTheFirstDisagreement) {
  const std::string dir = mixed_folder();
  const e2e::RunResult r = e2e::run({kReferee, "verify", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("OK  " + dir + "/matches/a.jsonl  ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("OK  " + dir + "/matches/b.jsonl  ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" hands, "), std::string::npos) << r.output;
  const auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& rec) { return rec.has_play() && rec.play().points() > 0; });
  EXPECT_NE(r.output.find("FAIL " + dir + "/c.jsonl:" + std::to_string(at + 1) + ": play of "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the log says points"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("index.jsonl"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("notes.txt"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 logs verified: 2 OK, 1 failed"), std::string::npos) << r.output;
}

TEST(VerifyCommand, FilesAndQuiet) {
  const std::string dir = mixed_folder();
  e2e::RunResult r = e2e::run({kReferee, "verify", dir + "/matches/a.jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "OK  "), 1u) << r.output;
  r = e2e::run({kReferee, "verify", "--quiet", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(count(r.output, "OK  "), 0u) << r.output;
  EXPECT_EQ(count(r.output, "FAIL "), 1u) << r.output;
  EXPECT_NE(r.output.find("3 logs verified"), std::string::npos) << r.output;
  r = e2e::run({kReferee, "verify", "-q", dir + "/matches"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(split_lines(r.output).size(), 1u) << r.output;
}

TEST(VerifyCommand, ParallelKeepsTheOrder) {
  const std::string dir = mixed_folder();
  for (int i = 0; i < 6; ++i)
    std::ofstream(dir + "/matches/copy" + std::to_string(i) + ".jsonl") << real_logs().at("4p");
  const e2e::RunResult one = e2e::run({kReferee, "verify", "-j", "1", dir});
  const e2e::RunResult four = e2e::run({kReferee, "verify", "--jobs", "4", dir});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(four.exit_code, 1);
  auto a = split_lines(one.output), b = split_lines(four.output);
  // A line per log, one per bot at tables of 3 or 4 (its decision times), the summary.
  const size_t bots = count(one.output, "\ndecision times of ");
  EXPECT_GT(bots, 0u) << one.output;
  ASSERT_EQ(a.size(), 10u + bots) << one.output;
  ASSERT_EQ(b.size(), 10u + bots) << four.output;
  a.pop_back();  // the summary holds the time taken
  b.pop_back();
  EXPECT_EQ(a, b);
  EXPECT_EQ(e2e::run({kReferee, "verify", "-j", "-1", dir}).exit_code, 2);
}

TEST(VerifyCommand, BadArguments) {
  e2e::RunResult r = e2e::run({kReferee, "verify"});
  EXPECT_EQ(r.exit_code, 2) << r.output;  // a required argument is missing
  r = e2e::run({kReferee, "verify", "/no/such/log.jsonl"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/no/such/log.jsonl: no such file or folder"), std::string::npos)
      << r.output;
  const std::string empty = e2e::temp_dir("verify-empty");
  r = e2e::run({kReferee, "verify", empty});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no *.jsonl logs"), std::string::npos) << r.output;
  r = e2e::run({kReferee, "verify", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--quiet"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("index.jsonl"), std::string::npos) << r.output;
}

// A partnership log with the decision times of seats 0 and 2 rewritten to tell their dealt
// hands (holding tile 4d: 0.3 s slower at decision d of a hand), within the move time so every
// clock still agrees.
std::string talking_log(const std::string& text) {
  auto lines = split_lines(text);
  std::array<TileSet, kMaxPlayers> dealt{};
  std::array<int, kMaxPlayers> made{};
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    const v1::LogRecord r = parse(lines[static_cast<size_t>(i)]);
    if (r.has_hand_start()) {
      for (const v1::SeatTiles& st : r.hand_start().hands()) {
        dealt[st.seat()] = TileSet{};
        for (const v1::Tile& t : st.tiles())
          dealt[st.seat()].add(Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low())));
      }
      made = {};
    }
    if (!r.has_play()) continue;
    const uint32_t seat = r.play().seat();
    const int d = std::min(made[seat]++, 5);
    if (seat % 2 != 0) continue;
    const bool held = dealt[seat].contains(Tile::from_index(4 * d));
    const uint32_t time = 2000 + (held ? 300000u : 0u) + static_cast<uint32_t>(i * 7919 % 1000);
    edit(lines, i, [&](v1::LogRecord& rec) { rec.mutable_play()->set_decision_time_us(time); });
  }
  return join(lines);
}

TEST(VerifyCommand, DecisionTimesThatTellTheHandAreFlaggedWithoutFailing) {
  const std::string dir = e2e::temp_dir("verify-timing");
  fs::create_directories(dir + "/played");
  fs::create_directories(dir + "/logs");
  for (int seed = 20; seed < 30; ++seed) {
    const std::string played = dir + "/played/" + std::to_string(seed) + ".jsonl";
    const e2e::RunResult m = e2e::run(
        {kReferee, "match", "--log", played, "--move-time-ms", "1000", "--format", "partners",
         "--seed", std::to_string(seed), "talker=" + std::string(ALLFIVES_GREEDY_BOT),
         "honest=" + std::string(ALLFIVES_RANDOM_BOT)},
        std::chrono::seconds(60));
    ASSERT_EQ(m.exit_code, 0) << m.output;
    std::ofstream(dir + "/logs/" + std::to_string(seed) + ".jsonl")
        << talking_log(e2e::read_file(played));
  }
  std::ofstream(dir + "/logs/2p.jsonl") << real_logs().at("2p");
  e2e::RunResult r = e2e::run({kReferee, "verify", dir + "/logs"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto lines = split_lines(r.output);
  ASSERT_EQ(lines.size(), 11u + 2u + 1u) << r.output;  // logs, the two bots, the summary
  EXPECT_EQ(lines[11].rfind("decision times of honest: ", 0), 0u) << r.output;
  EXPECT_NE(lines[11].find(": nothing found"), std::string::npos) << r.output;
  const std::string& flagged = lines[12];
  EXPECT_EQ(flagged.rfind("decision times of talker: ", 0), 0u) << r.output;
  EXPECT_NE(flagged.find(" decisions at tables of 3 or 4, p = "), std::string::npos) << flagged;
  EXPECT_NE(flagged.find("; its seats' times predict their hidden tiles"), std::string::npos)
      << flagged;
  bool tile_named = false;
  for (int d = 0; d <= 5; ++d)
    tile_named |=
        flagged.find(": FLAGGED (decision " + std::to_string(d) + " of a hand against tile " +
                     to_string(Tile::from_index(4 * d)) + ", z = ") != std::string::npos;
  EXPECT_TRUE(tile_named) << flagged;
  // Quiet: the flag and the summary.
  r = e2e::run({kReferee, "verify", "-q", dir + "/logs"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(split_lines(r.output).size(), 2u) << r.output;
  EXPECT_EQ(split_lines(r.output)[0], flagged);
}

TEST(VerifyCommand, AnUnfinishedLog) {
  const std::string dir = e2e::temp_dir("verify-unfinished");
  auto lines = split_lines(real_logs().at("2p"));
  lines.resize(40);
  std::ofstream(dir + "/cut.jsonl") << join(lines);
  const e2e::RunResult r = e2e::run({kReferee, "verify", dir + "/cut.jsonl"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir +
                          "/cut.jsonl:40: the log ends at line 40 before the "
                          "match ended"),
            std::string::npos)
      << r.output;
}

// A whole tournament's output folder: every match log verifies, the index is skipped.
TEST(VerifyCommand, ATournamentFolder) {
  const std::string dir = e2e::temp_dir("verify-tournament");
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "name: \"verify\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"4\" }\n"
                      << "matches_per_pairing: 4\nseed: 3\n";
  e2e::RunResult r =
      e2e::run({kReferee, "tournament", file, "--out", dir + "/out"}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir + "/out/index.jsonl"));
  r = e2e::run({kReferee, "verify", dir + "/out"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "OK  " + dir + "/out/matches/"), 4u) << r.output;
  EXPECT_NE(r.output.find("4 logs verified: 4 OK, 0 failed"), std::string::npos) << r.output;
}

// A tournament's folder is checked as a whole: the index against the schedule that its
// tournament.txtpb gives and against the logs. Each tampering is caught with the file and line.
class VerifyTournament : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    source_ = new std::string(e2e::temp_dir("verify-tampering"));
    const std::string file = *source_ + "/t.txtpb";
    std::ofstream(file) << "name: \"tamper\"\nformat: FORMAT_TWO_PLAYERS\n"
                        << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                        << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                        << "\" args: \"--seed\" args: \"4\" }\n"
                        << "bots { name: \"first\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                        << "\" }\nmatches_per_pairing: 12\nseed: 3\n";
    const e2e::RunResult r =
        e2e::run({kReferee, "tournament", file, "--out", *source_ + "/out", "-q"},
                 std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() { delete source_; }

  // A fresh copy of the tournament's output folder.
  std::string copy(const std::string& name) {
    const std::string dir = e2e::temp_dir(name) + "/out";
    fs::copy(*source_ + "/out", dir, fs::copy_options::recursive);
    return dir;
  }
  static std::vector<std::string> index_lines(const std::string& dir) {
    std::ifstream in(dir + "/index.jsonl");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  static void write_index(const std::string& dir, const std::vector<std::string>& lines) {
    std::ofstream out(dir + "/index.jsonl", std::ios::trunc);
    for (const std::string& line : lines) out << line << "\n";
  }
  static v1::IndexEntry entry(const std::string& line) {
    v1::IndexEntry e;
    EXPECT_TRUE(referee::from_json_line(line, &e, nullptr));
    return e;
  }
  static std::string* source_;
};
std::string* VerifyTournament::source_ = nullptr;

TEST_F(VerifyTournament, AnUntouchedFolderPasses) {
  const std::string dir = copy("untouched");
  const e2e::RunResult r = e2e::run({kReferee, "verify", dir});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("OK  " + dir + "/index.jsonl  (36 finished matches"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 index checked, 0 problems"), std::string::npos) << r.output;
}

TEST_F(VerifyTournament, FlippedResultsInTheIndexAreCaught) {
  const std::string dir = copy("flipped");
  auto lines = index_lines(dir);
  std::vector<int> flipped;
  for (size_t i = 0; i < lines.size(); i += 3) {
    v1::IndexEntry e = entry(lines[i]);
    if (e.winner_side() < 0) continue;
    e.set_winner_side(1 - e.winner_side());
    std::swap(*e.mutable_scores()->Mutable(0), *e.mutable_scores()->Mutable(1));
    std::swap(*e.mutable_placements()->Mutable(0), *e.mutable_placements()->Mutable(1));
    lines[i] = referee::to_json_line(e);
    flipped.push_back(static_cast<int>(i + 1));
  }
  ASSERT_GE(flipped.size(), 5u);
  write_index(dir, lines);
  const e2e::RunResult r = e2e::run({kReferee, "verify", "-q", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const int line : flipped)
    EXPECT_NE(r.output.find("FAIL " + dir + "/index.jsonl:" + std::to_string(line) + ": match "),
              std::string::npos)
        << line << "\n"
        << r.output;
  EXPECT_NE(r.output.find("winner_side: the index says"), std::string::npos) << r.output;
  EXPECT_EQ(count(r.output, "FAIL "), flipped.size()) << r.output;
}

TEST_F(VerifyTournament, SwappedLogsAreCaught) {
  const std::string dir = copy("swapped");
  const auto lines = index_lines(dir);
  const std::string a = dir + "/" + entry(lines[0]).log_file();
  const std::string b = dir + "/" + entry(lines[1]).log_file();
  fs::rename(a, dir + "/tmp");
  fs::rename(b, a);
  fs::rename(dir + "/tmp", b);
  const e2e::RunResult r = e2e::run({kReferee, "verify", "-q", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/index.jsonl:1: match " +
                          entry(lines[0]).match().match_id() + " disagrees with its log " + a +
                          "; the log's match id is " + entry(lines[1]).match().match_id()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/index.jsonl:2: "), std::string::npos) << r.output;
}

TEST_F(VerifyTournament, ADeletedLogIsCaught) {
  const std::string dir = copy("deleted");
  const auto lines = index_lines(dir);
  const std::string log = dir + "/" + entry(lines[4]).log_file();
  fs::remove(log);
  const e2e::RunResult r = e2e::run({kReferee, "verify", "-q", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/index.jsonl:5: the log of match " +
                          entry(lines[4]).match().match_id() + " is missing (" + log + ")"),
            std::string::npos)
      << r.output;
}

TEST_F(VerifyTournament, AnIndexLineThatIsNotTheScheduledMatchIsCaught) {
  const std::string dir = copy("reseeded");
  auto lines = index_lines(dir);
  v1::IndexEntry e = entry(lines[2]);
  e.mutable_match()->set_seed(e.match().seed() + 1);
  lines[2] = referee::to_json_line(e);
  v1::IndexEntry s = entry(lines[3]);
  std::swap(*s.mutable_match()->mutable_seat_bots()->Mutable(0),
            *s.mutable_match()->mutable_seat_bots()->Mutable(1));
  lines[3] = referee::to_json_line(s);
  v1::IndexEntry renamed = entry(lines[6]);
  renamed.set_log_file("matches/other.jsonl");
  lines[6] = referee::to_json_line(renamed);
  lines.push_back(lines[7]);  // a match counted twice
  write_index(dir, lines);
  const e2e::RunResult r = e2e::run({kReferee, "verify", "-q", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(dir + "/index.jsonl:3: match " + e.match().match_id() +
                          " is not the scheduled one; seed " + std::to_string(e.match().seed())),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir + "/index.jsonl:4: match " + s.match().match_id() +
                          " is not the scheduled one; seats"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir + "/index.jsonl:7: log_file 'matches/other.jsonl' is not named for"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir + "/index.jsonl:37: match " + entry(lines[7]).match().match_id() +
                          " is already in the index at line 8"),
            std::string::npos)
      << r.output;
}

// A log of a scheduled match that the index does not name (a deleted index line looks the
// same as a stopped match): UNFINISHED, which fails unless --allow-unfinished says the run is
// still going.
TEST_F(VerifyTournament, LogsOutsideTheIndexFailUnlessUnfinishedMatchesAreAllowed) {
  const std::string dir = copy("unfinished");
  auto lines = index_lines(dir);
  const std::string log = dir + "/" + entry(lines.back()).log_file();
  lines.pop_back();
  write_index(dir, lines);
  e2e::RunResult r = e2e::run({kReferee, "verify", "-q", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("UNFINISHED " + log + "  (not in " + dir + "/index.jsonl"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 unfinished"), std::string::npos) << r.output;
  r = e2e::run({kReferee, "verify", "-q", "--allow-unfinished", dir});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("accepted by --allow-unfinished"), std::string::npos) << r.output;
}

// Without its definition nothing in the folder can be checked against a schedule: a flipped
// result then passed. A deleted or replaced (FIFO) tournament.txtpb fails, as does a deleted
// index.
TEST_F(VerifyTournament, AMissingOrUnreadableDefinitionOrIndexFails) {
  const std::string deleted = copy("no-definition");
  auto lines = index_lines(deleted);
  v1::IndexEntry e = entry(lines[0]);
  ASSERT_GE(e.winner_side(), 0);
  e.set_winner_side(1 - e.winner_side());
  std::swap(*e.mutable_scores()->Mutable(0), *e.mutable_scores()->Mutable(1));
  std::swap(*e.mutable_placements()->Mutable(0), *e.mutable_placements()->Mutable(1));
  lines[0] = referee::to_json_line(e);
  write_index(deleted, lines);
  fs::remove(deleted + "/tournament.txtpb");
  e2e::RunResult r = e2e::run({kReferee, "verify", "-q", deleted});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + deleted + "/tournament.txtpb is missing"), std::string::npos)
      << r.output;

  const std::string fifo = copy("fifo-definition");
  fs::remove(fifo + "/tournament.txtpb");
  ASSERT_EQ(::mkfifo((fifo + "/tournament.txtpb").c_str(), 0600), 0);
  r = e2e::run({kReferee, "verify", "-q", fifo}, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("is a FIFO"), std::string::npos) << r.output;

  const std::string no_index = copy("no-index");
  fs::remove(no_index + "/index.jsonl");
  r = e2e::run({kReferee, "verify", "-q", "--allow-unfinished", no_index});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + no_index + "/index.jsonl is missing"), std::string::npos)
      << r.output;
}

// Files under matches/ that the index does not name and that are no log of a scheduled match
// fail, even with --allow-unfinished: a log copied under an unscheduled id, a foreign log under
// a scheduled id (another tournament's: its seed differs), junk bytes, a stray log elsewhere.
TEST_F(VerifyTournament, ForeignUnscheduledAndJunkFilesFail) {
  const std::string dir = copy("foreign");
  auto lines = index_lines(dir);
  const v1::IndexEntry last = entry(lines.back());
  lines.pop_back();
  write_index(dir, lines);
  // The scheduled match whose line is gone gets another tournament's log of the same bots.
  const std::string foreign = dir + "/" + last.log_file();
  auto other = split_lines(real_logs().at("2p"));
  std::ofstream(foreign, std::ios::trunc) << join(other);
  const std::string first = dir + "/" + entry(lines[0]).log_file();
  fs::copy_file(first, dir + "/matches/greedy-random-d99-r0.jsonl");
  std::ofstream(dir + "/matches/junk.jsonl", std::ios::binary)
      << std::string("\x7f\x00\xff\x13", 4);
  std::ofstream(dir + "/matches/junk.bin", std::ios::binary) << std::string("\x00\x01", 2);
  fs::copy_file(first, dir + "/stray.jsonl");
  const e2e::RunResult r = e2e::run({kReferee, "verify", "-q", "--allow-unfinished", dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + foreign + ": a foreign log"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir +
                          "/matches/greedy-random-d99-r0.jsonl: not a log of a "
                          "scheduled match"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/matches/junk.jsonl: not a log of a scheduled match"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/matches/junk.bin: not a match log"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/stray.jsonl: not a log of a scheduled match"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("UNFINISHED"), std::string::npos) << r.output;
}

// The index is read as a stream, each line's log verified on other threads as it comes: any
// number of jobs prints the same lines in the same order (index order, then the logs no line
// names), and a folder named with a trailing '/' is the same folder.
TEST_F(VerifyTournament, ParallelStreamingKeepsTheOrder) {
  const std::string dir = copy("parallel");
  auto lines = index_lines(dir);
  v1::IndexEntry e = entry(lines[4]);
  e.set_hands_played(e.hands_played() + 1);
  lines[4] = referee::to_json_line(e);
  lines.push_back(lines[2]);  // a duplicate
  const std::string unfinished = dir + "/" + entry(lines[9]).log_file();
  lines.erase(lines.begin() + 9);
  write_index(dir, lines);
  const e2e::RunResult one = e2e::run({kReferee, "verify", "-j", "1", dir});
  const e2e::RunResult three = e2e::run({kReferee, "verify", "-j", "3", dir + "/"});
  EXPECT_EQ(one.exit_code, 1) << one.output;
  EXPECT_EQ(three.exit_code, 1) << three.output;
  auto a = split_lines(one.output), b = split_lines(three.output);
  ASSERT_EQ(a.size(), 36u + 2u + 1u) << one.output;  // 36 logs, 2 index problems, the summary
  a.pop_back();
  b.pop_back();
  EXPECT_EQ(a, b);
  EXPECT_NE(one.output.find(dir + "/index.jsonl:5: match " + e.match().match_id() +
                            " disagrees with its log"),
            std::string::npos)
      << one.output;
  EXPECT_NE(one.output.find(dir + "/index.jsonl:36: match " + entry(lines[2]).match().match_id() +
                            " is already in the index at line 3"),
            std::string::npos)
      << one.output;
  EXPECT_NE(one.output.find("UNFINISHED " + unfinished), std::string::npos) << one.output;
  EXPECT_NE(one.output.find("36 logs verified: 35 OK, 0 failed"), std::string::npos) << one.output;
}

TEST(VerifyCommand, AFifoIsRefusedAtOnce) {
  const std::string dir = e2e::temp_dir("verify-fifo");
  ASSERT_EQ(::mkfifo((dir + "/x.jsonl").c_str(), 0600), 0);
  const e2e::RunResult r =
      e2e::run({kReferee, "verify", dir + "/x.jsonl"}, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL " + dir + "/x.jsonl: is a FIFO, not a regular file"),
            std::string::npos)
      << r.output;
  const e2e::RunResult replay =
      e2e::run({kReferee, "replay", "--print", dir + "/x.jsonl"}, std::chrono::seconds(20));
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
  fs::create_directories(dir + "/out");
  ASSERT_EQ(::mkfifo((dir + "/out/index.jsonl").c_str(), 0600), 0);
  const e2e::RunResult standings =
      e2e::run({kReferee, "standings", dir + "/out"}, std::chrono::seconds(20));
  EXPECT_EQ(standings.exit_code, 1) << standings.output;
  EXPECT_NE(standings.output.find("is a FIFO"), std::string::npos) << standings.output;
}

}  // namespace
}  // namespace allfives::replay_test
