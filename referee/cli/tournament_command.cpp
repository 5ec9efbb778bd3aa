#include "cli/tournament_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/stop_signal.h"
#include "tournament/tournament_runner.h"

namespace allfives::referee {
namespace {

struct TournamentOptions {
  std::string file;
  std::string out;
  int concurrency = 0;
  bool resume = false;
  std::string shard;
  bool quiet = false;
  bool affinity = true;
  int idle_bots = static_cast<int>(BotPool::kDefaultMaxIdle);
  int sync_interval_ms = static_cast<int>(IndexWriter::kCommitInterval.count());
};

// "I/N" with 0 <= I < N.
bool parse_shard(const std::string& text, int& index, int& count) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return false;
    count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  return count >= 1 && index >= 0 && index < count;
}

int run(const TournamentOptions& o) {
  if (o.concurrency < 0 || o.concurrency > static_cast<int>(kMaxConcurrency)) {
    std::cerr << "referee tournament: --concurrency must be 1.." << kMaxConcurrency << ", not "
              << o.concurrency << "\n";
    return 2;
  }
  TournamentRun run;
  std::string error;
  if (!load_tournament(o.file, run.def, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return 2;
  }
  if (!o.shard.empty() && !parse_shard(o.shard, run.shard_index, run.shard_count)) {
    std::cerr << "referee tournament: --shard must be I/N with 0 <= I < N, not '" << o.shard
              << "'\n";
    return 2;
  }
  run.out_dir = !o.out.empty() ? o.out : run.def.out_dir;
  if (o.out.empty() && run.shard_count > 1)
    run.out_dir +=
        "/shard-" + std::to_string(run.shard_index) + "-of-" + std::to_string(run.shard_count);
  run.concurrency = o.concurrency > 0 ? o.concurrency : run.def.concurrency;
  run.resume = o.resume;
  run.quiet = o.quiet;
  run.affinity = o.affinity;
  if (o.idle_bots < 0 || o.idle_bots > 10000) {
    std::cerr << "referee tournament: --idle-bots must be 0..10000, not " << o.idle_bots << "\n";
    return 2;
  }
  run.idle_bots = static_cast<size_t>(o.idle_bots);
  if (o.sync_interval_ms < 0 || o.sync_interval_ms > 60000) {
    std::cerr << "referee tournament: --sync-interval-ms must be 0..60000, not "
              << o.sync_interval_ms << "\n";
    return 2;
  }
  run.sync_interval = std::chrono::milliseconds(o.sync_interval_ms);
  const std::atomic<bool>& stop = install_stop_signals();
  const int code = run_tournament(run, stop);
  if (code == 130 && stop_signal()) return 128 + stop_signal();
  return code;
}

}  // namespace

void add_tournament_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TournamentOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tournament",
      "Play a round-robin tournament from a definition file (protobuf text format, see\n"
      "proto/allfives/v1/tournament.proto and tournaments/*.txtpb), log every match and print\n"
      "the standings. Ctrl-C stops cleanly; --resume continues in the same output folder.");
  cmd->add_option("file", o->file, "The tournament definition")->required();
  cmd->add_option("--out,-o", o->out, "Output folder (default: the file's out_dir)");
  cmd->add_option("--concurrency,-j", o->concurrency,
                  "Matches at once, each in a worker process of its own (default: the file's "
                  "value, else the number of cores)");
  cmd->add_flag("--resume", o->resume,
                "Continue an interrupted run in the same output folder: finished matches are "
                "kept, unfinished ones are played again");
  cmd->add_option("--shard", o->shard,
                  "Play only slice I of N of the schedule (e.g. 3/8), into its own folder; "
                  "merge the folders with `referee standings`");
  cmd->add_flag("--quiet,-q", o->quiet, "No progress line");
  cmd->add_flag(
      "--affinity,!--no-affinity", o->affinity,
      "Pin each worker, with its bots, to one CPU (worker i to the i-th usable CPU, round "
      "robin; default on): a match's processes wake each other in turn, which is much "
      "cheaper on one CPU, and matches stop competing for cores. --no-affinity for bots "
      "that think on several threads");
  cmd->add_option("--idle-bots", o->idle_bots,
                  "Bot processes each worker keeps running between matches, for reuse; beyond "
                  "that the least recently used is stopped. More saves start-ups when a "
                  "tournament has many bots, at the cost of memory (one process per bot and "
                  "worker at most)")
      ->capture_default_str();
  cmd->add_option("--sync-interval-ms", o->sync_interval_ms,
                  "Finished matches count once their log and index line are on disk (fsync); "
                  "the syncs are made together for the matches of this interval. 0 syncs as "
                  "soon as a match ends (slower: a sync costs more than a match); a crash of "
                  "the machine loses at most the matches of one interval (resume replays them)")
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace allfives::referee
