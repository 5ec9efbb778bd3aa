// A tournament on a real Slurm cluster: scripts/cluster/slurm_local.sh starts munged,
// slurmctld and slurmd for this machine in a folder of the test's own, sbatch submits the job
// array that docs/CLUSTER.md shows (scripts/cluster/slurm_array.sh) for a sandboxed tournament
// in 4 shards, `referee standings` merges the shards' folders, and the merge must equal one
// unsharded run of the same file: every match exactly once, with the same results. Skipped
// only where this machine cannot run Slurm (not root, or its programs missing).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "process/bot_process.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kReferee = ALLFIVES_REFEREE;
constexpr int kShards = 4;

// Why Slurm cannot run on this machine, or "" if it can.
std::string why_no_slurm() {
  if (::geteuid() != 0) return "not root: munged, slurmctld and slurmd are started as root";
  for (const char* program :
       {"munged", "mungekey", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"}) {
    std::string error;
    if (!referee::find_program(program, "", &error))
      return std::string(program) + " not found (scripts/setup.sh installs slurm-wlm and munge)";
  }
  return "";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// standings.txt without its decision times (wall-clock figures, which differ run to run).
std::string without_decision_times(const std::string& standings) {
  std::string out;
  bool skipping = false;
  for (const std::string& line : lines_of(standings)) {
    if (line.rfind("Decision times (", 0) == 0) skipping = true;
    if (!skipping) out += line + "\n";
    if (line.empty()) skipping = false;
  }
  return out;
}

// The private cluster of one test, stopped when it goes out of scope; a watcher started with
// --owner stops it too if this test process dies first.
class LocalSlurm {
 public:
  explicit LocalSlurm(std::string dir) : dir_(std::move(dir)) {
    start_ = run(
        {"/bin/bash", ALLFIVES_SLURM_LOCAL, "start", dir_, "--owner", std::to_string(::getpid())},
        150s);
  }
  ~LocalSlurm() { stop(); }
  bool up() const { return start_.exit_code == 0; }
  const std::string& start_output() const { return start_.output; }
  std::string conf() const { return dir_ + "/slurm.conf"; }

  // The PIDs the helper recorded (munged, slurmctld, slurmd, its watcher).
  std::vector<int> pids() const {
    std::vector<int> out;
    for (const char* name : {"munged", "slurmctld", "slurmd", "watcher"}) {
      std::ifstream in(dir_ + "/pids/" + name);
      int pid = 0;
      if (in >> pid) out.push_back(pid);
    }
    return out;
  }
  RunResult stop() {
    if (stopped_ || !fs::exists(dir_ + "/pids")) return {0, ""};
    stopped_ = true;
    return run({"/bin/bash", ALLFIVES_SLURM_LOCAL, "stop", dir_}, 120s);
  }

 private:
  std::string dir_;
  RunResult start_;
  bool stopped_ = false;
};

// Whether a process is gone (or a zombie its parent has not reaped yet), waiting up to 5 s.
bool process_gone(int pid) {
  for (int i = 0; i < 50; ++i, std::this_thread::sleep_for(100ms)) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state) || state == "Z") return true;
  }
  return false;
}

std::string write_tournament(const std::string& dir) {
  const std::string path = dir + "/t.txtpb";
  std::ofstream(path) << "name: \"slurm\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"heavy\" command: \"" << ALLFIVES_HEAVY_BOT << "\" }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"5\" }\n"
                      << "matches_per_pairing: 8\nseed: 11\nmove_time_ms: 2000\n";
  return path;
}

// Waits (at most `limit`) until job `id` has left the queue, i.e. every task has ended.
bool wait_job_done(const std::string& id, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const RunResult q = run({"squeue", "-h", "-j", id, "-o", "%i"}, 30s);
    if (q.exit_code == 0 && q.output.find_first_not_of(" \n") == std::string::npos) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

// Waits (at most `limit`) until no task of job `id` is pending: each one has started.
bool all_tasks_started(const std::string& id, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const RunResult q = run({"squeue", "-h", "-j", id, "-t", "PENDING", "-o", "%i"}, 30s);
    if (q.exit_code == 0 && q.output.find_first_not_of(" \n") == std::string::npos) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

// Every match log of a folder: each bot ran in the sandbox.
void expect_sandboxed(const std::string& out_dir) {
  for (const auto& e : fs::directory_iterator(out_dir + "/matches")) {
    const auto log = read_log(e.path().string());
    for (const auto& bot : only(log, v1::LogRecord::kHeader).header().bots())
      EXPECT_TRUE(bot.confinement().sandboxed()) << e.path() << ": " << bot.name();
  }
}

// An SPRT file: greedy against random, which greedy beats by far, so that the test decides
// long before its 200 pairs (a shard's 50 alone suffice); `sprt` false plays the same matches (the
// same definition hash: an sprt block only says when to stop) to the end.
std::string write_sprt_tournament(const std::string& dir, bool sprt) {
  const std::string path = dir + (sprt ? "/sprt.txtpb" : "/all.txtpb");
  std::ofstream(path) << "name: \"slurm-sprt\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                      << "\" args: \"--seed\" args: \"5\" }\n"
                      << "matches_per_pairing: 400\nseed: 12\nmove_time_ms: 2000\n"
                      << (sprt ? "sprt { elo0: 0 elo1: 40 alpha: 0.05 beta: 0.05 }\n" : "");
  return path;
}

// The "sprt" entries of a standings.json, as text.
std::string sprt_json(const std::string& standings_json) {
  const size_t from = standings_json.find("\"sprt\": ");
  const size_t to = standings_json.find("\"notes\"", from);
  if (from == std::string::npos || to == std::string::npos) return "";
  return standings_json.substr(from, to - from);
}

std::vector<v1::IndexEntry> index_of(const std::string& dir) {
  std::vector<v1::IndexEntry> out;
  for (const std::string& line : lines_of(read_file(dir + "/index.jsonl"))) {
    v1::IndexEntry e;
    std::string why;
    EXPECT_TRUE(referee::from_json_line(line, &e, &why)) << dir << ": " << why;
    out.push_back(e);
  }
  return out;
}

TEST(Slurm, ArrayOfFourShardsMergesIntoTheStandingsOfOneRun) {
  if (const std::string why = why_no_slurm(); !why.empty()) GTEST_SKIP() << "no Slurm: " << why;
  const std::string d = temp_dir("slurm");
  const std::string file = write_tournament(d);
  LocalSlurm cluster(d + "/cluster");
  ASSERT_TRUE(cluster.up()) << cluster.start_output();
  ASSERT_EQ(::setenv("SLURM_CONF", cluster.conf().c_str(), 1), 0);
  ASSERT_EQ(::setenv("REFEREE", kReferee, 1), 0);

  // Task I plays shard I/4; --no-affinity: this cluster does not bind tasks to CPUs, and every
  // referee would pin its bots to the first one.
  const std::string results = d + "/results";
  const RunResult submitted =
      run({"sbatch", "--parsable", "--array=0-" + std::to_string(kShards - 1), "--cpus-per-task=1",
           "--time=5", "--chdir=" + d, "--output=" + d + "/task-%a.out", ALLFIVES_SLURM_ARRAY, file,
           results, "--no-affinity"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  const std::string job = submitted.output.substr(0, submitted.output.find_first_of(";\n"));
  ASSERT_FALSE(job.empty()) << submitted.output;

  // The reference, played here while Slurm schedules the array.
  const RunResult single =
      run({kReferee, "tournament", file, "--out", d + "/single", "-j", "1", "-q", "--no-affinity"},
          240s);
  ASSERT_EQ(single.exit_code, 0) << single.output;

  ASSERT_TRUE(wait_job_done(job, 240s)) << "job " << job << " still queued after 240 s";
  const RunResult tasks = run({"scontrol", "show", "job", job, "-o"});
  ASSERT_EQ(tasks.exit_code, 0) << tasks.output;
  const std::vector<std::string> task_lines = lines_of(tasks.output);
  ASSERT_EQ(task_lines.size(), size_t{kShards}) << tasks.output;
  for (const std::string& line : task_lines) {
    EXPECT_NE(line.find("JobState=COMPLETED"), std::string::npos) << line;
    EXPECT_NE(line.find("ExitCode=0:0"), std::string::npos) << line;
  }

  std::vector<std::string> shard_lines;
  std::vector<std::string> merge = {kReferee, "standings"};
  for (int i = 0; i < kShards; ++i) {
    const std::string shard = results + "/shard-" + std::to_string(i);
    const std::string task_out = read_file(d + "/task-" + std::to_string(i) + ".out");
    EXPECT_NE(task_out.find("job " + job + " task " + std::to_string(i) + " on "),
              std::string::npos)
        << task_out;
    EXPECT_NE(task_out.find("in shard " + std::to_string(i) + "/4"), std::string::npos) << task_out;
    const std::vector<std::string> lines = lines_of(normalized_index(shard));
    EXPECT_EQ(lines.size(), 6u) << shard;  // 24 matches in 4 shards
    shard_lines.insert(shard_lines.end(), lines.begin(), lines.end());
    expect_sandboxed(shard);
    const RunResult verified = run({kReferee, "verify", "-q", shard});
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
    merge.push_back(shard);
  }
  merge.insert(merge.end(), {"--out", results});
  const RunResult merged = run(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.output;

  // Every match of the schedule exactly once, with the same result, and the same standings.
  std::vector<std::string> single_lines = lines_of(normalized_index(d + "/single"));
  std::sort(shard_lines.begin(), shard_lines.end());
  std::sort(single_lines.begin(), single_lines.end());
  EXPECT_EQ(single_lines.size(), 24u);
  EXPECT_EQ(shard_lines, single_lines);
  EXPECT_EQ(read_file(results + "/standings.csv"), read_file(d + "/single/standings.csv"));
  EXPECT_EQ(without_decision_times(read_file(results + "/standings.txt")),
            without_decision_times(read_file(d + "/single/standings.txt")));

  const std::vector<int> daemons = cluster.pids();
  EXPECT_EQ(daemons.size(), 4u);  // munged, slurmctld, slurmd and the watcher
  const RunResult stopped = cluster.stop();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.output;
  for (int pid : daemons) EXPECT_TRUE(process_gone(pid)) << "pid " << pid << " still runs";
}

// The SPRT across shards: 4 array tasks of one SPRT file under one results folder read each
// other's finished pairs and stop when the merged test decides, long before the schedule's
// end; the merged standings give the verdict that the same pairs give in one folder, and the
// verdict of one unsharded run.
TEST(Slurm, SprtOverFourShardsStopsEarlyWithTheVerdictOfOneRun) {
  if (const std::string why = why_no_slurm(); !why.empty()) GTEST_SKIP() << "no Slurm: " << why;
  const std::string d = temp_dir("slurm-sprt");
  const std::string file = write_sprt_tournament(d, true);
  LocalSlurm cluster(d + "/cluster");
  ASSERT_TRUE(cluster.up()) << cluster.start_output();
  ASSERT_EQ(::setenv("SLURM_CONF", cluster.conf().c_str(), 1), 0);
  ASSERT_EQ(::setenv("REFEREE", kReferee, 1), 0);
  const std::string results = d + "/results";
  // A shard's pairs reach its peers once committed: every 100 ms here, not every second, since
  // a shard's own pairs decide within about a second of play on this node.
  const RunResult submitted =
      run({"sbatch", "--parsable", "--array=0-" + std::to_string(kShards - 1), "--cpus-per-task=1",
           "--oversubscribe", "--time=5", "--chdir=" + d, "--output=" + d + "/task-%a.out",
           ALLFIVES_SLURM_ARRAY, file, results, "--no-affinity", "--no-sandbox",
           "--sync-interval-ms", "100"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  const std::string job = submitted.output.substr(0, submitted.output.find_first_of(";\n"));

  // The 4 tasks share the node's cores (--oversubscribe), so they play side by side as on a
  // cluster of 4 free CPUs and read each other's pairs (a 2-CPU node would run 2 at a time).
  ASSERT_TRUE(all_tasks_started(job, 60s)) << "the 4 tasks did not run side by side";

  // References played here meanwhile: the SPRT file unsharded, and every match of the schedule.
  const RunResult single = run({kReferee, "tournament", file, "--out", d + "/single", "-j", "1",
                                "-q", "--no-affinity", "--no-sandbox"},
                               240s);
  ASSERT_EQ(single.exit_code, 0) << single.output;
  const RunResult all = run({kReferee, "tournament", write_sprt_tournament(d, false), "--out",
                             d + "/all", "-j", "2", "-q", "--no-affinity", "--no-sandbox"},
                            240s);
  ASSERT_EQ(all.exit_code, 0) << all.output;

  ASSERT_TRUE(wait_job_done(job, 240s)) << "job " << job << " still queued after 240 s";
  const RunResult tasks = run({"scontrol", "show", "job", job, "-o"});
  for (const std::string& line : lines_of(tasks.output)) {
    EXPECT_NE(line.find("JobState=COMPLETED"), std::string::npos) << line;
    EXPECT_NE(line.find("ExitCode=0:0"), std::string::npos) << line;
  }
  std::vector<std::string> merge = {kReferee, "standings"};
  size_t played = 0;
  size_t read_peers = 0;  // shards whose decision counted pairs that other shards played
  for (int i = 0; i < kShards; ++i) {
    const std::string shard = results + "/shard-" + std::to_string(i);
    const std::string task_out = read_file(d + "/task-" + std::to_string(i) + ".out");
    // Each shard ended with the test decided: none played its 100 matches (alone, a shard's
    // whole pairs decide within 50 of them; read with its peers', within fewer).
    const std::string sprt = read_file(shard + "/sprt.txt");
    const size_t at = sprt.find("accepted after ");
    ASSERT_NE(at, std::string::npos) << sprt << task_out;
    const size_t own = index_of(shard).size();
    played += own;
    EXPECT_LT(own, 100u) << task_out;
    if (2 * std::stoul(sprt.substr(at + 15)) > own) ++read_peers;
    merge.push_back(shard);
  }
  EXPECT_GT(read_peers, 0u) << "no shard counted another shard's pairs";
  EXPECT_LT(played, 200u) << "stopped early: the schedule has 400 matches";
  merge.insert(merge.end(), {"--out", results});
  const RunResult merged = run(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const std::string merged_sprt = sprt_json(read_file(results + "/standings.json"));
  ASSERT_FALSE(merged_sprt.empty()) << read_file(results + "/standings.json");

  // The same pairs in one folder, in schedule order, with the results one machine got for them.
  std::set<std::string> ids;
  for (int i = 0; i < kShards; ++i)
    for (const v1::IndexEntry& e : index_of(results + "/shard-" + std::to_string(i)))
      ids.insert(e.match().match_id());
  EXPECT_EQ(ids.size(), played) << "every match once";
  const std::string same = d + "/same-pairs";
  fs::create_directories(same);
  fs::copy_file(results + "/shard-0/tournament.txtpb", same + "/tournament.txtpb");
  {
    std::ofstream index(same + "/index.jsonl");
    std::vector<v1::IndexEntry> reference = index_of(d + "/all");
    std::sort(reference.begin(), reference.end(), [](const auto& a, const auto& b) {
      return a.match().ordinal() < b.match().ordinal();
    });
    for (const v1::IndexEntry& e : reference)
      if (ids.count(e.match().match_id())) index << referee::to_json_line(e) << "\n";
  }
  // The shards' results are one machine's results.
  std::vector<std::string> shard_lines, same_lines = lines_of(normalized_index(same));
  for (int i = 0; i < kShards; ++i)
    for (const std::string& l : lines_of(normalized_index(results + "/shard-" + std::to_string(i))))
      shard_lines.push_back(l);
  std::sort(shard_lines.begin(), shard_lines.end());
  std::sort(same_lines.begin(), same_lines.end());
  EXPECT_EQ(shard_lines, same_lines);
  const RunResult one = run({kReferee, "standings", same, "--out", same});
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(merged_sprt, sprt_json(read_file(same + "/standings.json")));
  // And the verdict of one unsharded run of the SPRT file.
  const std::string single_sprt = sprt_json(read_file(d + "/single/standings.json"));
  for (const char* state : {"\"state\": \"h1_accepted\"", "\"state\": \"h0_accepted\""})
    EXPECT_EQ(merged_sprt.find(state) != std::string::npos,
              single_sprt.find(state) != std::string::npos)
        << merged_sprt << "\n"
        << single_sprt;
  EXPECT_NE(merged_sprt.find("\"state\": \"h1_accepted\""), std::string::npos) << merged_sprt;

  const RunResult stopped = cluster.stop();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.output;
}

// A ladder whose rounds are Slurm job arrays (`referee ladder run --slurm`): every round's
// matches are played by the array's tasks, sandboxed, and recorded once by the ladder, the only
// writer of its database; its leaderboard equals `referee standings` over the shards' folders.
TEST(Slurm, ALadderPlaysItsRoundsAsJobArrays) {
  if (const std::string why = why_no_slurm(); !why.empty()) GTEST_SKIP() << "no Slurm: " << why;
  const std::string d = temp_dir("slurm-ladder");
  LocalSlurm cluster(d + "/cluster");
  ASSERT_TRUE(cluster.up()) << cluster.start_output();
  ASSERT_EQ(::setenv("SLURM_CONF", cluster.conf().c_str(), 1), 0);

  std::ofstream(d + "/club.txtpb") << "name: \"club\"\nformat: FORMAT_TWO_PLAYERS\n"
                                   << "move_time_ms: 500\ncheck_decisions: 10\n"
                                   << "placement_opponents: 2\nround_opponents: 2\n";
  const std::string ladder = d + "/L";
  RunResult r = run({kReferee, "ladder", "init", ladder, d + "/club.txtpb"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run({kReferee, "ladder", "add-user", ladder, "alice"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string token = lines_of(r.output).at(1);
  for (const auto& [name, program] :
       {std::pair{"g", ALLFIVES_GREEDY_BOT}, std::pair{"h", ALLFIVES_HEAVY_BOT},
        std::pair{"r", ALLFIVES_RANDOM_BOT}}) {
    fs::create_directories(d + "/" + name);
    fs::copy_file(program, d + "/" + name + "/bot");
    r = run({kReferee, "ladder", "submit", ladder, "--token", token, name, d + "/" + name});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  r = run({kReferee, "ladder", "run", ladder, "--slurm", "--rounds", "3", "--sbatch=--time=5",
           "--sbatch=--cpus-per-task=1"},
          300s);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // Every shard of every round: its index, its logs verified and sandboxed.
  std::vector<std::string> shards;
  size_t indexed = 0;
  for (const auto& round : fs::directory_iterator(ladder + "/rounds")) {
    if (!round.is_directory()) continue;
    for (const auto& shard : fs::directory_iterator(round.path())) {
      if (!shard.is_directory()) continue;
      shards.push_back(shard.path().string());
      indexed += index_of(shard.path().string()).size();
      expect_sandboxed(shard.path().string());
      const RunResult v = run({kReferee, "verify", "-q", shard.path().string()});
      EXPECT_EQ(v.exit_code, 0) << v.output;
    }
  }
  // Three rounds: placements of 2 + 1 + 1 opponents, a mirrored pair each.
  EXPECT_EQ(indexed, 8u);
  EXPECT_GE(shards.size(), 4u);
  const RunResult board = run({kReferee, "ladder", "standings", ladder});
  EXPECT_NE(board.output.find(std::to_string(indexed) + " matches; Elo"), std::string::npos)
      << board.output;
  std::vector<std::string> merge = {kReferee, "standings", "--out", d + "/S"};
  merge.insert(merge.end(), shards.begin(), shards.end());
  ASSERT_EQ(run(merge).exit_code, 0);
  // Elo per version, from both CSVs.
  auto elo = [](const std::string& csv, size_t name_col, size_t elo_col) {
    std::map<std::string, std::string> out;
    for (const std::string& line : lines_of(csv)) {
      std::vector<std::string> cells;
      std::stringstream s(line);
      for (std::string c; std::getline(s, c, ',');) cells.push_back(c);
      if (cells.size() > elo_col && cells[0] != "rank") out[cells[name_col]] = cells[elo_col];
    }
    return out;
  };
  EXPECT_EQ(elo(run({kReferee, "ladder", "standings", ladder, "--csv"}).output, 1, 4),
            elo(read_file(d + "/S/standings.csv"), 1, 20));
  const RunResult stopped = cluster.stop();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.output;
}


// A tune whose iterations are Slurm job arrays (`referee tune --slurm`): each iteration's pairs
// are shared by the array's tasks, and theta moves once from all of them, to exactly the values
// of the same tune played here.
TEST(Slurm, ATunesIterationsAreJobArraysWithOneTheta) {
  if (const std::string why = why_no_slurm(); !why.empty()) GTEST_SKIP() << "no Slurm: " << why;
  const std::string d = temp_dir("slurm-tune");
  LocalSlurm cluster(d + "/cluster");
  ASSERT_TRUE(cluster.up()) << cluster.start_output();
  ASSERT_EQ(::setenv("SLURM_CONF", cluster.conf().c_str(), 1), 0);
  std::ofstream(d + "/peak.txtpb")
      << "name: \"peak\"\nformat: FORMAT_TWO_PLAYERS\ntarget_score: 100\nseed: 4\n"
      << "bot { name: \"peak\" command: \"" << ALLFIVES_PEAK_BOT << "\" }\n"
      << "params { name: \"x\" start: 0.6 min: 0 max: 1 c_end: 0.1 r_end: 0.2 }\n"
      << "pairs: 8\npairs_per_iteration: 4\n";
  RunResult r = run({kReferee, "tune", d + "/peak.txtpb", "--out", d + "/slurm", "--slurm",
                     "--slurm-tasks", "2", "--sbatch=--time=5", "--sbatch=--cpus-per-task=1"},
                    300s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const RunResult here = run({kReferee, "tune", d + "/peak.txtpb", "--out", d + "/here", "-j", "2"},
                             120s);
  ASSERT_EQ(here.exit_code, 0) << here.output;
  EXPECT_EQ(read_file(d + "/slurm/tune.jsonl").size(), read_file(d + "/here/tune.jsonl").size());
  for (const char* i : {"0", "1"}) {
    EXPECT_TRUE(fs::is_directory(d + "/slurm/iterations/" + i + "/shard-1")) << i;
    size_t matches = 0;
    for (const char* shard : {"/shard-0", "/shard-1"})
      matches += index_of(d + "/slurm/iterations/" + i + shard).size();
    EXPECT_EQ(matches, 8u) << i;
  }
  // The same matches, so the same theta after every iteration.
  const auto thetas = [](const std::string& jsonl) {
    std::vector<std::string> out;
    for (const std::string& line : lines_of(jsonl))
      out.push_back(line.substr(line.find("\"theta\"")));
    return out;
  };
  EXPECT_EQ(thetas(read_file(d + "/slurm/tune.jsonl")), thetas(read_file(d + "/here/tune.jsonl")));
  const RunResult stopped = cluster.stop();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.output;
}

}  // namespace
}  // namespace allfives::e2e
