// The ladder end to end, as an organiser and two participants use it: init, users, a Python
// file, a C++ program folder and an archive submitted, a broken bot refused with its
// check-bot report, rounds played by the real referee with sandboxed bots, a new version
// climbing past its old one, `kill -9` of the ladder at any moment losing no finished match
// and recording none twice, and the leaderboard equal to `referee standings` over its rounds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "common/temp_dir.h"
#include "e2e/e2e_util.h"
#include "ladder/sqlite_db.h"
#include "process/bot_process.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

bool wait_for(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

// A ladder folder made by `referee ladder init`, with helpers for its commands.
class Ladder {
 public:
  explicit Ladder(int round_opponents = 1, const std::string& format = "FORMAT_TWO_PLAYERS")
      : root_("ladder", TempDir::kOpenToAll), dir_(root_.file("L")) {
    std::ofstream(root_.file("club.txtpb"))
        << "name: \"club\"\nformat: " << format << "\nmove_time_ms: 300\ntime_bank_ms: 3000\n"
        << "check_decisions: 20\nplacement_opponents: 2\nhistory_every: 4\n"
        << "round_opponents: " << round_opponents << "\n";
    const RunResult r = cmd({"init", dir_, root_.file("club.txtpb")});
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  RunResult cmd(std::vector<std::string> args,
                std::chrono::seconds limit = std::chrono::seconds(120)) const {
    args.insert(args.begin(), {kReferee, "ladder"});
    return run(args, limit);
  }
  std::string add_user(const std::string& name) const {
    const RunResult r = cmd({"add-user", dir_, name});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::istringstream lines(r.output);
    std::string line;
    std::getline(lines, line);
    std::getline(lines, line);
    return line;
  }
  RunResult submit(const std::string& token, const std::string& bot, const std::string& path,
                   std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"submit", dir_, "--token", token, bot, path};
    args.insert(args.end(), extra.begin(), extra.end());
    return cmd(args);
  }
  // A folder holding `program` copied as `name`, for a submission.
  std::string program_folder(const std::string& folder, const std::string& program,
                             const std::string& name) const {
    const std::string f = root_.file(folder);
    fs::create_directories(f);
    fs::copy_file(program, f + "/" + name);
    return f;
  }
  // Version -> Elo, from `referee ladder standings --csv`.
  std::map<std::string, std::string> ladder_elo() const {
    return elo_column(cmd({"standings", dir_, "--csv"}).output, 1, 4);
  }
  // Version -> Elo from `referee standings` over every round folder.
  std::map<std::string, std::string> referee_elo() const {
    std::vector<std::string> args = {kReferee, "standings", "--out", root_.file("S")};
    for (const std::string& r : round_folders()) args.push_back(r);
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return elo_column(read_file(root_.file("S/standings.csv")), 1, 20);
  }
  std::vector<std::string> round_folders() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_ + "/rounds"))
      if (e.is_directory()) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  // Every (round, match id) the rounds' indexes hold; fails on a duplicate within a round.
  std::set<std::string> indexed_matches() const {
    std::set<std::string> out;
    for (const std::string& r : round_folders()) {
      std::vector<std::string> notes;
      std::string error;
      std::set<std::string> ids;
      referee::read_index_stream(
          r + "/index.jsonl", false,
          [&](v1::IndexEntry&& e) {
            EXPECT_TRUE(ids.insert(e.match().match_id()).second)
                << "twice in " << r << ": " << e.match().match_id();
            out.insert(r + "/" + e.match().match_id());
          },
          notes, &error);
    }
    return out;
  }
  int64_t recorded_matches() const {
    const std::string text = cmd({"standings", dir_}).output;
    const size_t at = text.rfind(" matches; Elo");
    size_t from = text.rfind('\n', at);
    from = from == std::string::npos ? 0 : from + 1;
    return at == std::string::npos ? -1 : std::stoll(text.substr(from, at - from));
  }
  const std::string& dir() const { return dir_; }
  const TempDir& root() const { return root_; }

 private:
  static std::map<std::string, std::string> elo_column(const std::string& csv, size_t name_col,
                                                       size_t elo_col) {
    std::map<std::string, std::string> out;
    std::istringstream lines(csv);
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
      std::vector<std::string> cells;
      std::stringstream s(line);
      for (std::string c; std::getline(s, c, ',');) cells.push_back(c);
      if (cells.size() > std::max(name_col, elo_col)) out[cells[name_col]] = cells[elo_col];
    }
    return out;
  }
  TempDir root_;
  std::string dir_;
};

TEST(Ladder, FromInitToStandingsWithEveryKindOfSubmission) {
  Ladder l;
  const std::string alice = l.add_user("alice");
  const std::string bob = l.add_user("bob");
  ASSERT_NE(alice, bob);

  // Alice: a C++ program folder (an executable named bot).
  RunResult r = l.submit(alice, "fox", l.program_folder("fox1", kRandom, "bot"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fox@1 passed its check")) << r.output;
  // Bob: an archive whose program is named by --command.
  const std::string arch = l.program_folder("arch/owl", kGreedy, "greedy_bot");
  ASSERT_EQ(
      run({"/bin/tar", "-czf", l.root().file("owl.tar.gz"), "-C", l.root().file("arch"), "owl"})
          .exit_code,
      0);
  r = l.submit(bob, "owl", l.root().file("owl.tar.gz"), {"--command", "greedy_bot"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Bob: a Python file, run with the Python SDK, where this build has it.
  if (!std::string(ALLFIVES_GREEDY_PY_SOURCE).empty()) {
    r = l.submit(bob, "snake", ALLFIVES_GREEDY_PY_SOURCE);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "snake@1 passed its check")) << r.output;
  }
  // A broken bot: refused, with the report that says why, and never plays.
  const std::string broken = l.root().file("broken");
  fs::create_directories(broken);
  std::ofstream(broken + "/bot") << "#!/bin/sh\necho 'cannot load my weights' >&2\nexit 3\n";
  fs::permissions(broken + "/bot",
                  fs::perms::owner_all | fs::perms::others_exec | fs::perms::others_read);
  r = l.submit(alice, "wreck", broken);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "wreck@1 was refused")) << r.output;
  const RunResult report = l.cmd({"report", l.dir(), "wreck@1"});
  EXPECT_TRUE(contains(report.output, "refused")) << report.output;
  EXPECT_TRUE(contains(report.output, "FAIL  start")) << report.output;
  EXPECT_TRUE(contains(report.output, "cannot load my weights")) << report.output;
  // Someone else's bot name, and a bad token, are refused.
  EXPECT_EQ(l.submit(bob, "fox", broken).exit_code, 1);
  EXPECT_TRUE(contains(l.submit("1.0123456789abcdef0123456789abcdef", "x", broken).output,
                       "token is not valid"));

  r = l.cmd({"run", l.dir(), "-j", "2", "--rounds", "6"}, std::chrono::seconds(240));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "round 1 (placement)")) << r.output;
  const RunResult list = l.cmd({"list", l.dir()});
  EXPECT_TRUE(contains(list.output, "wreck@1")) << list.output;
  // The refused version never played.
  for (const std::string& m : l.indexed_matches()) EXPECT_FALSE(contains(m, "wreck")) << m;
  EXPECT_EQ(l.recorded_matches(), static_cast<int64_t>(l.indexed_matches().size()));
  const auto ladder = l.ladder_elo();
  EXPECT_EQ(ladder, l.referee_elo());
  EXPECT_GE(ladder.size(), 2u);
  EXPECT_EQ(ladder.count("wreck@1"), 0u);
  // Every round's logs verify.
  for (const std::string& round : l.round_folders()) {
    const RunResult v = run({kReferee, "verify", "-q", round});
    EXPECT_EQ(v.exit_code, 0) << round << "\n" << v.output;
  }
  const RunResult history = l.cmd({"history", l.dir(), "owl@1"});
  EXPECT_TRUE(contains(history.output, "matches,elo,elo_ci95,at\n4,")) << history.output;
}

TEST(Ladder, ANewVersionClimbsPastItsOldOne) {
  Ladder l;
  const std::string alice = l.add_user("alice");
  const std::string bob = l.add_user("bob");
  ASSERT_EQ(l.submit(alice, "fox", l.program_folder("f1", kRandom, "bot")).exit_code, 0);
  ASSERT_EQ(l.submit(bob, "owl", l.program_folder("o1", kRandom, "bot")).exit_code, 0);
  ASSERT_EQ(
      l.cmd({"run", l.dir(), "-j", "2", "--rounds", "3"}, std::chrono::seconds(240)).exit_code, 0);
  ASSERT_EQ(l.submit(alice, "fox", l.program_folder("f2", kGreedy, "bot")).exit_code, 0);
  const RunResult r =
      l.cmd({"run", l.dir(), "-j", "2", "--rounds", "8"}, std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "(placement) fox@2")) << r.output;
  const RunResult s = l.cmd({"standings", l.dir()});
  const size_t v2 = s.output.find("fox@2"), v1 = s.output.find("fox@1");
  ASSERT_NE(v2, std::string::npos) << s.output;
  ASSERT_NE(v1, std::string::npos) << s.output;
  EXPECT_LT(v2, v1) << "greedy (fox@2) ranks above random (fox@1):\n" << s.output;
  // Retired, the old version keeps its record and plays no more.
  ASSERT_EQ(l.cmd({"retire", l.dir(), "fox@1"}).exit_code, 0);
  const std::set<std::string> played = l.indexed_matches();
  ASSERT_EQ(
      l.cmd({"run", l.dir(), "-j", "2", "--rounds", "2"}, std::chrono::seconds(240)).exit_code, 0);
  for (const std::string& m : l.indexed_matches()) {
    if (!played.count(m)) {
      EXPECT_FALSE(contains(m, "fox@1")) << m;
    }
  }
  EXPECT_TRUE(contains(l.cmd({"standings", l.dir()}).output, "fox@1 (retired)"));
}

// kill -9 of the ladder, again and again while rounds play: every match a round's index holds
// is recorded once, the database stays whole, and a rerun goes on from there.
TEST(Ladder, KillNineLosesNoFinishedMatchAndRecordsNoneTwice) {
  Ladder l(4);  // rounds of 8 matches: long enough to be cut in the middle
  const std::string alice = l.add_user("alice");
  for (const char* name : {"a", "b", "c", "d", "e"})
    ASSERT_EQ(l.submit(alice, name, l.program_folder(name, name[0] % 2 ? kRandom : kGreedy, "bot"))
                  .exit_code,
              0);
  auto start = [&] {
    referee::LaunchSpec spec;
    spec.argv = {kReferee, "ladder", "run", l.dir(), "-j", "2", "-q"};
    return referee::BotProcess::start(spec, nullptr);
  };
  // Whether the newest round has finished some of its matches but not all (each of its
  // opponents plays the candidate one mirrored pair).
  auto mid_round = [&] {
    const std::vector<std::string> rounds = l.round_folders();
    if (rounds.empty()) return false;
    const std::string file = read_file(rounds.back() + ".txtpb");
    size_t bots = 0;
    for (size_t at = 0; (at = file.find("bots {", at)) != std::string::npos; ++at) ++bots;
    const std::string index = read_file(rounds.back() + "/index.jsonl");
    const auto lines = static_cast<size_t>(std::count(index.begin(), index.end(), '\n'));
    return bots > 1 && lines < 2 * (bots - 1);
  };
  size_t seen = 0;
  for (int kill = 0; kill < 4; ++kill) {
    auto ladder = start();
    ASSERT_TRUE(ladder);
    // New matches finished, and the kill comes in the middle of a round: some of its matches
    // may be on disk, not yet recorded, others are being played.
    ASSERT_TRUE(wait_for([&] { return l.indexed_matches().size() > seen && mid_round(); },
                         std::chrono::seconds(90)));
    ::kill(ladder->pid(), SIGKILL);
    ladder->stop();
    seen = l.indexed_matches().size();
  }
  // The last run ends cleanly (Ctrl-C), importing what the cut-off rounds finished.
  auto last = start();
  ASSERT_TRUE(last);
  ASSERT_TRUE(wait_for([&] { return l.recorded_matches() >= static_cast<int64_t>(seen); },
                       std::chrono::seconds(90)));
  ::kill(last->pid(), SIGINT);
  ASSERT_TRUE(wait_for([&] { return !last->running(); }, std::chrono::seconds(60)));
  last->stop();
  EXPECT_EQ(l.recorded_matches(), static_cast<int64_t>(l.indexed_matches().size()));
  {
    auto db = referee::SqliteDb::open(l.dir() + "/ladder.db", false);
    referee::Statement check = db->prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
  }
  EXPECT_EQ(l.ladder_elo(), l.referee_elo());
  for (const std::string& round : l.round_folders()) {
    const RunResult v = run({kReferee, "verify", "-q", "--allow-unfinished", round});
    EXPECT_EQ(v.exit_code, 0) << round << "\n" << v.output;
  }
}

// A hostile participant's commands: naming another version's files, climbing out of its own
// folder, or an argument that names one of the ladder's files from the folder the organiser
// runs the ladder in. The paths of a command decide what its sandbox binds, so each would read
// what is not its own; none does.
TEST(Ladder, ACommandReadsNothingButItsOwnFolder) {
  Ladder l;
  const std::string alice = l.add_user("alice");
  const std::string mallory = l.add_user("mallory");
  ASSERT_EQ(l.submit(alice, "fox", l.program_folder("fox", kRandom, "bot")).exit_code, 0);
  const std::string fox = l.dir() + "/bots/fox@1/bot";
  ASSERT_TRUE(fs::exists(fox));
  const std::string spy = l.root().file("spy");
  fs::create_directories(spy);
  // Prints what it could read of the file its argument names, then fails its check (its
  // output is in the report the submitter sees).
  std::ofstream(spy + "/bot")
      << "#!/bin/sh\nif [ -r \"$1\" ]; then echo \"LEAKED $1: $(head -c 60 \"$1\")\"; "
         "else echo \"nothing at $1\"; fi >&2\nexit 3\n";
  fs::permissions(spy + "/bot", fs::perms(0755));
  RunResult r = l.submit(mallory, "spy", spy, {"--command", "/bin/cat " + fox});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "is outside the bot's folder")) << r.output;
  r = l.submit(mallory, "spy", spy, {"--command", "bot ../fox@1/bot"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "climbs out with ..")) << r.output;
  r = l.submit(mallory, "spy", spy, {"--command", "bot .."});
  EXPECT_TRUE(contains(r.output, "climbs out with ..")) << r.output;
  // From inside the ladder folder, "ladder.txtpb" names the ladder's file for the referee.
  r = run({"/usr/bin/env", "-C", l.dir(), kReferee, "ladder", "submit", ".", "--token", mallory,
           "spy", spy, "--command", "bot ladder.txtpb"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "nothing at ladder.txtpb")) << r.output;
  EXPECT_FALSE(contains(r.output, "LEAKED")) << r.output;
}

// A full disk (here a file-size limit, which fails writes the same way) stops the ladder with
// the file that says why; the database stays whole and a rerun resumes the cut-off round.
TEST(Ladder, AFullDiskStopsTheLadderAndARerunResumes) {
  Ladder l(2);
  const std::string alice = l.add_user("alice");
  for (const char* name : {"a", "b", "c"})
    ASSERT_EQ(l.submit(alice, name, l.program_folder(name, kRandom, "bot")).exit_code, 0);
  const RunResult full = run({"/usr/bin/prlimit", "--fsize=150000:", kReferee, "ladder", "run",
                              l.dir(), "-j", "2", "--rounds", "50"},
                             std::chrono::seconds(120));
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_TRUE(contains(full.output, "run again")) << full.output;
  const RunResult again = l.cmd({"run", l.dir(), "-j", "2", "--rounds", "2"});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  {
    auto db = referee::SqliteDb::open(l.dir() + "/ladder.db", false);
    referee::Statement check = db->prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
  }
  EXPECT_EQ(l.recorded_matches(), static_cast<int64_t>(l.indexed_matches().size()));
  EXPECT_EQ(l.ladder_elo(), l.referee_elo());
}

// Three players at a table: each round seats the version with two opponents in every rotation.
TEST(Ladder, ThreePlayerRoundsRotateEverySeat) {
  Ladder l(1, "FORMAT_THREE_PLAYERS");
  const std::string alice = l.add_user("alice");
  for (const char* name : {"a", "b", "c", "d"})
    ASSERT_EQ(l.submit(alice, name, l.program_folder(name, name[0] % 2 ? kRandom : kGreedy, "bot"))
                  .exit_code,
              0);
  const RunResult r =
      l.cmd({"run", l.dir(), "-j", "2", "--rounds", "3"}, std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The first placement round: a@1 with two opponents, the 3 rotations of one deal.
  const std::vector<std::string> rounds = l.round_folders();
  ASSERT_GE(rounds.size(), 3u);
  const std::string index = read_file(rounds[0] + "/index.jsonl");
  EXPECT_EQ(std::count(index.begin(), index.end(), '\n'), 3);
  EXPECT_EQ(l.ladder_elo(), l.referee_elo());
  EXPECT_EQ(l.ladder_elo().size(), 4u);
}

// `referee ladder demo`: the sample bots as three users, served and played, in one command.
TEST(Ladder, TheDemoServesAndPlaysTheSampleBots) {
  TempDir root("ladder-demo", TempDir::kOpenToAll);
  const std::string dir = root.file("D");
  const RunResult r =
      run({kReferee, "ladder", "demo", dir, "--listen", "127.0.0.1:0", "--rounds", "3", "-j", "2"},
          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line :
       {"alice (token 1.", "submitted greedy@1: active", "submitted heavy@1: active",
        "submitted random@1: active", "The ladder's leaderboard: http://127.0.0.1:", "round 3"})
    EXPECT_TRUE(contains(r.output, line)) << line << "\n" << r.output;
  const RunResult board = run({kReferee, "ladder", "standings", dir, "--csv"});
  for (const char* v : {"greedy@1", "heavy@1", "random@1"})
    EXPECT_TRUE(contains(board.output, v)) << board.output;
}

}  // namespace
}  // namespace allfives::e2e
