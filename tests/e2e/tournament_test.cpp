// End-to-end tests of `referee tournament` and `referee standings`: determinism across
// concurrency, resume after SIGKILL and Ctrl-C, shards merged into the same standings.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// A small 2-player tournament between deterministic bots.
std::string write_tournament(const std::string& dir, int matches_per_pairing,
                             const std::string& format = "FORMAT_TWO_PLAYERS", int seed = 3) {
  const std::string path = dir + "/t.txtpb";
  std::ofstream(path) << "name: \"e2e\"\nformat: " << format << "\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"4\" }\n"
                      << "bots { name: \"first\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                      << "\" }\n"
                      << (format == "FORMAT_FOUR_PLAYERS"
                              ? std::string("bots { name: \"random2\" command: \"") +
                                    ALLFIVES_RANDOM_BOT + "\" }\n"
                              : std::string())
                      << "matches_per_pairing: " << matches_per_pairing << "\nseed: " << seed
                      << "\nmove_time_ms: 2000\n";
  return path;
}

size_t lines_in(const std::string& path) {
  const std::string text = read_file(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

RunResult tournament(const std::string& file, const std::string& out,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {kReferee, "tournament", file, "--out", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(240));
}

// The reference: one uninterrupted run at concurrency 1, computed once for several tests.
const std::string& baseline_dir() {
  static const std::string dir = [] {
    const std::string d = temp_dir("baseline");
    const std::string file = write_tournament(d, 8);
    const RunResult r = tournament(file, d + "/out", {"-j", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return d;
  }();
  return dir;
}

TEST(Tournament, PrintsStandingsAndWritesEveryFile) {
  const std::string out = baseline_dir() + "/out";
  for (const char* f :
       {"index.jsonl", "standings.txt", "standings.csv", "standings.json", "tournament.txtpb"})
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  EXPECT_EQ(lines_in(out + "/index.jsonl"), 24u);  // 3 pairings x 8
  size_t logs = 0;
  for (const auto& e : fs::directory_iterator(out + "/matches")) {
    ++logs;
    const auto log = read_log(e.path().string());
    expect_log_follows_rules(log);
  }
  EXPECT_EQ(logs, 24u);
  const std::string table = read_file(out + "/standings.txt");
  EXPECT_NE(table.find("greedy"), std::string::npos) << table;
  EXPECT_NE(table.find("Elo"), std::string::npos) << table;
}

TEST(Tournament, ResultsDoNotDependOnConcurrency) {
  const std::string d = temp_dir("concurrency");
  const std::string file = write_tournament(d, 8);
  const RunResult r = tournament(file, d + "/out", {"-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(normalized_index(d + "/out"), normalized_index(baseline_dir() + "/out"));
  EXPECT_EQ(read_file(d + "/out/standings.csv"), read_file(baseline_dir() + "/out/standings.csv"));
}

// `referee tournament FILE --out OUT EXTRA...` running in the background.
std::unique_ptr<referee::BotProcess> start_tournament(const std::string& file,
                                                      const std::string& out,
                                                      std::vector<std::string> extra) {
  referee::LaunchSpec spec;
  // Each match counts at once (no grouped syncs), so a test can stop a run midway.
  spec.argv = {kReferee, "tournament", file, "--out", out, "--sync-interval-ms", "0"};
  spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
  std::string error;
  auto ref = referee::BotProcess::start(spec, &error);
  EXPECT_TRUE(ref) << error;
  return ref;
}

// Waits (up to a minute) until `out` has `n` finished matches.
void wait_for_matches(const std::string& out, size_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines_in(out + "/index.jsonl") < n && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// Waits (up to 20 s) for a stopped referee to exit; true if it did.
bool wait_exit(referee::BotProcess& ref) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (ref.running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !ref.running();
}

// The baseline tournament with its "first" bot taking a few milliseconds a move (the same
// plays): a run interrupted after its first matches still has many to play, so the
// interruption lands before the end even on a busy machine.
std::string write_slow_tournament(const std::string& dir) {
  const std::string file = write_tournament(dir, 8);
  std::string text = read_file(file);
  const std::string first = std::string("command: \"") + ALLFIVES_MISBEHAVING_BOT + "\"";
  text.replace(text.find(first), first.size(),
               first + " args: \"--mode\" args: \"slow\" args: \"--ms\" args: \"4\"");
  std::ofstream(file) << text;
  return file;
}

// The index without the tournament file's hash, which the slow bot's arguments change.
std::string results_of(const std::string& out_dir) {
  static const std::regex hash("\"tournament_hash\":\"[0-9a-f]+\"");
  return std::regex_replace(normalized_index(out_dir), hash, "");
}

// A long 2-player tournament between two raw-protocol bots that append "PID PGID" to `pids`
// when they start, so a test can find every bot process. `a_args` are more arguments of the
// first bot, as text format (` args: "--mode" args: "late"`). The bots run unsandboxed
// (`sandbox: false`): a sandboxed bot could neither write the file nor see its real pid; these
// tests are about the process groups, which apply either way.
std::string write_pid_tournament(const std::string& dir, const std::string& pids,
                                 const std::string& a_args = "") {
  const std::string file = dir + "/t.txtpb";
  std::ofstream(file) << "name: \"pids\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"a\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                      << "\" args: \"--pid-file\" args: \"" << pids << "\"" << a_args
                      << " sandbox: false }\n"
                      << "bots { name: \"b\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                      << "\" args: \"--pid-file\" args: \"" << pids << "\" sandbox: false }\n"
                      << "matches_per_pairing: 2000\nseed: 1\n";
  return file;
}

// The "PID PGID" lines of `pids` once there are `n` (waiting up to a minute), as pairs.
std::vector<std::pair<int, int>> wait_for_bots(const std::string& pids, size_t n) {
  std::vector<std::pair<int, int>> bots;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    bots.clear();
    std::ifstream in(pids);
    for (int pid, pgid; in >> pid >> pgid;) bots.emplace_back(pid, pgid);
    if (bots.size() >= n) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return bots;
}

TEST(Tournament, ResumeAfterSigkillEqualsAnUninterruptedRun) {
  const std::string d = temp_dir("sigkill");
  const std::string file = write_slow_tournament(d);
  const std::string out = d + "/out";
  auto ref = start_tournament(file, out, {"-j", "2"});
  ASSERT_TRUE(ref);
  wait_for_matches(out, 6);
  // The referee and its workers at once: killing the referee alone would let stop()'s SIGTERM
  // to the group reach the workers before their parent-death signal, a clean stop.
  ::kill(-ref->pid(), SIGKILL);
  ref->stop();
  const size_t kept = lines_in(out + "/index.jsonl");
  ASSERT_GE(kept, 6u);
  ASSERT_LT(kept, 24u) << "the run finished before it could be killed; the test proves nothing";
  // A kill in the middle of a write leaves a torn last line: the resume must drop it.
  std::ofstream(out + "/index.jsonl", std::ios::app) << "{\"match\":{\"ordinal\":";
  const RunResult r = tournament(file, out, {"--resume", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(results_of(out), results_of(baseline_dir() + "/out"));
  EXPECT_EQ(read_file(out + "/standings.csv"), read_file(baseline_dir() + "/out/standings.csv"));
}

TEST(Tournament, CtrlCStopsCleanlyAndResumeFinishes) {
  const std::string d = temp_dir("sigint");
  const std::string file = write_slow_tournament(d);
  const std::string out = d + "/out";
  auto ref = start_tournament(file, out, {"-j", "1"});
  ASSERT_TRUE(ref);
  wait_for_matches(out, 3);
  ::kill(ref->pid(), SIGINT);
  ASSERT_TRUE(wait_exit(*ref)) << "Ctrl-C must stop the tournament";
  const auto status = ref->exit_status();
  ref->stop();
  ASSERT_TRUE(status);
  const std::string said = ref->take_stderr();
  EXPECT_EQ(status->code, 130) << said;
  // The matches cut off by Ctrl-C are nobody's fault: no bot is said to have been replaced.
  EXPECT_EQ(said.find("replaced after a fault"), std::string::npos) << said;
  const RunResult r = tournament(file, out, {"--resume"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(results_of(out), results_of(baseline_dir() + "/out"));
}

// The processes of a running tournament: this process's children named `referee` (its match
// workers), from /proc.
std::vector<int> worker_pids(int referee_pid) {
  std::vector<int> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos || text.find("(referee)") == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == referee_pid) pids.push_back(std::stoi(name));
  }
  return pids;
}

// Alive and not a zombie.
bool process_running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

// Concurrent matches run in forked worker processes; a SIGKILLed referee takes them and every
// bot they started with it at once. Bot a takes 4 s over its first move of every match, so a
// worker left to itself would still be waiting for it.
TEST(Tournament, NoProcessOutlivesAKilledReferee) {
  const std::string d = temp_dir("kill-workers");
  const std::string pids = d + "/pids";
  const std::string slow =
      R"( args: "--mode" args: "late" args: "--at" args: "1" args: "--ms" args: "4000")";
  auto ref = start_tournament(write_pid_tournament(d, pids, slow), d + "/out", {"-j", "2", "-q"});
  ASSERT_TRUE(ref);
  // Two workers, each in a match with an instance of both bots.
  std::vector<int> pgids;
  for (const auto& [pid, pgid] : wait_for_bots(pids, 4)) pgids.push_back(pgid);
  ASSERT_EQ(pgids.size(), 4u);
  const std::vector<int> workers = worker_pids(ref->pid());
  ASSERT_EQ(workers.size(), 2u);
  ::kill(ref->pid(), SIGKILL);
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool any = true;
  while (any && std::chrono::steady_clock::now() < gone_by) {
    any = false;
    for (int pid : workers) any |= process_running(pid);
    if (any) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(any) << "a worker process survived the referee";
  EXPECT_TRUE(wait_groups_gone(pgids, std::chrono::seconds(5)));
  ref->stop();
}

// Cpus_allowed_list of a process ("0-1", "1", ...), or "" if it is gone.
std::string cpus_of(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0)
      return line.substr(line.find_first_not_of(" \t", 18));
  return "";
}

// The parent of a process, from /proc (0 if it is gone).
int parent_of(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  char state = 0;
  int ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

// By default each worker and both bots of its matches run on one CPU (worker i on the i-th CPU
// the referee may use, round robin); --no-affinity leaves workers and bots on every CPU.
TEST(Tournament, AffinityPinsEachWorkerWithItsBotsToOneCpu) {
  const std::string mine = cpus_of(::getpid());
  for (const bool pinned : {true, false}) {
    const std::string d = temp_dir(pinned ? "affinity" : "no-affinity");
    const std::string pids = d + "/pids";
    std::vector<std::string> extra = {"-j", "2", "-q"};
    if (!pinned) extra.push_back("--no-affinity");
    auto ref = start_tournament(write_pid_tournament(d, pids), d + "/out", extra);
    ASSERT_TRUE(ref);
    std::vector<int> bots;
    for (const auto& [pid, pgid] : wait_for_bots(pids, 4)) bots.push_back(pid);
    ASSERT_EQ(bots.size(), 4u);
    const std::vector<int> workers = worker_pids(ref->pid());
    ASSERT_EQ(workers.size(), 2u);
    std::map<int, std::set<std::string>> cpus_by_worker;  // (unsandboxed: a worker's children)
    for (int b : bots) cpus_by_worker[parent_of(b)].insert(cpus_of(b));
    EXPECT_EQ(cpus_by_worker.size(), 2u);
    std::set<std::string> used;
    for (const auto& [worker, cpus] : cpus_by_worker) {
      EXPECT_EQ(std::count(workers.begin(), workers.end(), worker), 1) << "bot of " << worker;
      ASSERT_EQ(cpus.size(), 1u) << "the bots of worker " << worker << " on different CPUs";
      const std::string& cpu = *cpus.begin();
      used.insert(cpu);
      EXPECT_EQ(cpus_of(worker), cpu) << "worker " << worker << " away from its bots";
      if (pinned) {
        EXPECT_EQ(cpu.find_first_of("-,"), std::string::npos) << "bots on " << cpu;
      } else {
        EXPECT_EQ(cpu, mine);
      }
    }
    // Two workers' bots on two CPUs when there are two to use.
    if (pinned && mine.find_first_of("-,") != std::string::npos) {
      EXPECT_EQ(used.size(), 2u);
    }
    ::kill(ref->pid(), SIGTERM);
    EXPECT_TRUE(wait_exit(*ref));
    ref->stop();
  }
}

// A worker that dies fails the run with the reason and the way to resume; the resumed run
// ends as an uninterrupted one.
TEST(Tournament, ADeadWorkerFailsTheRunAndResumeFinishesIt) {
  const std::string d = temp_dir("dead-worker");
  const std::string file = write_slow_tournament(d);
  const std::string out = d + "/out";
  auto ref = start_tournament(file, out, {"-j", "2", "-q"});
  ASSERT_TRUE(ref);
  wait_for_matches(out, 1);
  const std::vector<int> workers = worker_pids(ref->pid());
  ASSERT_EQ(workers.size(), 2u);
  ::kill(workers[0], SIGSEGV);
  ASSERT_TRUE(wait_exit(*ref));
  const auto status = ref->exit_status();
  const std::string output = ref->take_stderr();
  ref->stop();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 1) << output;
  EXPECT_NE(
      output.find("worker process " + std::to_string(workers[0]) + " was killed by signal 11"),
      std::string::npos)
      << output;
  EXPECT_NE(output.find("--resume --out " + out), std::string::npos) << output;
  const RunResult r = tournament(file, out, {"--resume"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(results_of(out), results_of(baseline_dir() + "/out"));
}

TEST(Tournament, ShardsMergeIntoTheSameStandings) {
  const std::string d = temp_dir("shards");
  const std::string file = write_tournament(d, 8);
  for (int i = 0; i < 3; ++i) {
    const RunResult r =
        tournament(file, d + "/shard" + std::to_string(i), {"--shard", std::to_string(i) + "/3"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const RunResult merged = run(
      {kReferee, "standings", d + "/shard0", d + "/shard1", d + "/shard2", "--out", d + "/merged"});
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(read_file(d + "/merged/standings.csv"),
            read_file(baseline_dir() + "/out/standings.csv"));
}

TEST(Tournament, RefusesToMixResults) {
  const std::string d = temp_dir("refuse");
  const std::string file = write_tournament(d, 2);
  ASSERT_EQ(tournament(file, d + "/out").exit_code, 0);
  RunResult again = tournament(file, d + "/out");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.output.find("--resume"), std::string::npos) << again.output;
  const std::string other = write_tournament(d, 2, "FORMAT_TWO_PLAYERS", 99);
  again = tournament(other, d + "/out", {"--resume"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.output.find("another tournament"), std::string::npos) << again.output;
}

TEST(Tournament, FourPlayersAndPartnerships) {
  for (const std::string format : {"FORMAT_FOUR_PLAYERS", "FORMAT_PARTNERSHIPS"}) {
    const std::string d = temp_dir(format);
    const std::string file = write_tournament(d, format == "FORMAT_FOUR_PLAYERS" ? 4 : 2, format);
    const RunResult r = tournament(file, d + "/out", {"-j", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Elo"), std::string::npos) << r.output;
    for (const auto& e : fs::directory_iterator(d + "/out/matches"))
      expect_log_follows_rules(read_log(e.path().string()));
  }
}

TEST(Tournament, BadFileIsReportedBeforeAnythingRuns) {
  const std::string d = temp_dir("badfile");
  std::ofstream(d + "/bad.txtpb")
      << "format: FORMAT_TWO_PLAYERS\nbots { name: \"a\" command: \"/nonexistent/bot\" }\n";
  const RunResult r = tournament(d + "/bad.txtpb", d + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("bad.txtpb:2"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(d + "/out"));
}

}  // namespace
}  // namespace allfives::e2e

namespace allfives::e2e {
namespace {

// A bot that crashes in every match: each crash is a forfeit, its process is replaced for the
// next match, and the tournament still plays every match.
TEST(Tournament, ACrashingBotIsRestartedAndItsForfeitsCounted) {
  const std::string d = temp_dir("crashing");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"crash\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"crasher\" command: \"" << ALLFIVES_MISBEHAVING_BOT
                      << "\" args: \"--mode\" args: \"crash\" args: \"--at\" args: \"2\" }\n"
                      << "matches_per_pairing: 6\nseed: 1\n";
  const RunResult r = tournament(file, d + "/out", {"-j", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bot crasher: 6 instances replaced"), std::string::npos) << r.output;
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(referee::read_index(d + "/out/index.jsonl", false, entries, notes, &error)) << error;
  ASSERT_EQ(entries.size(), 6u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.fault_kind(), v1::FAULT_KIND_CRASH) << e.fault_reason();
    EXPECT_EQ(e.match().seat_bots(e.fault_seat()), "crasher");
  }
  // standings.csv: rank,bot,matches,wins,losses,draws,forfeits,forfeit_timeout,forfeit_crash,...
  const std::string csv = read_file(d + "/out/standings.csv");
  EXPECT_NE(csv.find("2,crasher,6,0,6,0,6,0,6,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("1,greedy,6,6,0,0,0,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace allfives::e2e
