// A whole tournament: the schedule played by N worker processes (worker_processes.h) with
// reused bot processes, every match logged, an index appended as matches finish, standings
// at the end, and resume.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "bots/bot_pool.h"
#include "tournament/index_file.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

struct TournamentRun {
  TournamentDef def;
  std::string out_dir;  // def.out_dir unless overridden
  int concurrency = 1;
  bool resume = false;
  int shard_index = 0;  // this run plays shard_index of shard_count
  int shard_count = 1;
  bool quiet = false;  // no progress line
  // Also housekeeping notes: the socket folders of referees that died, removed.
  bool verbose = false;
  // Pin worker i, and the bots it starts, to the i-th CPU this process may use (round robin).
  bool affinity = true;
  // How long finished matches gather before their logs and index lines are synced together
  // (IndexWriter's interval).
  std::chrono::milliseconds sync_interval = IndexWriter::kCommitInterval;
  // Bot processes each worker keeps waiting between matches (BotPool's max_idle).
  size_t idle_bots = BotPool::kDefaultMaxIdle;
  // Where def's seed came from when the file gives none ("drawn at random", "recorded in
  // DIR/tournament.txtpb"; settle_seed), printed with it; empty when the file gives it.
  std::string seed_origin;
};

// A file without `seed` plays by the rule of every command (draw_seed, match/match_terms.h):
// with `resume`, the seed recorded in the output folder's tournament.txtpb, so that the
// resumed run, or one with bots appended, plays the same matches (0 if that copy has no seed,
// which is what a folder without a recorded seed was played with); otherwise one drawn at random.
// run_tournament then records it there. Needs run.out_dir and run.resume; a no-op when the
// file gives a seed.
void settle_seed(TournamentRun& run);

// The output folder: matches/ID.jsonl (each match's log), index.jsonl (one line per finished
// match, on disk after its log, within about a second of its end: IndexWriter), tournament.txtpb
// (the definition as run, its seed included), referee.lock (held for the whole run: FolderLock),
// and at the end standings.txt / .csv / .json. Returns the process exit code: 0 done, 1 an error of
// the referee or the folder, a failed write included (explained on stderr, naming the file; resume
// continues once it is fixed), or a bot that never started (its start-up faults are then not
// recorded and no standings are printed), 130/143 stopped by a signal (resume continues).
int run_tournament(const TournamentRun& run, const std::atomic<bool>& stop);

// The paths of a run that no bot may see (sandbox.h): the output folder and each file and
// folder run_tournament() makes there before any bot starts (the folder may also hold the
// user's files, so they are named one by one), the folders above it that hold other runs'
// output (the file's out_dir above a shard's folder, tournaments-out/ above the default
// out_dir; with --shard, the folder holding the shards' folders), and the tournament file.
// Absolute.
std::vector<HiddenPath> tournament_hidden_paths(const TournamentRun& run);

}  // namespace allfives::referee
