// `referee ladder run` and the gate: the loop that checks new versions, chooses each round
// (matchmaking.h), plays it as a tournament in a child `referee tournament` (so every match
// goes through the runner, the sandbox, the bot pool, the logs and `verify` like any
// tournament's), imports each finished match as it lands (its log is on disk, then one
// transaction records it) and refits the ratings with the standings' own Bradley-Terry fit.
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "ladder/ladder_file.h"
#include "ladder/ladder_store.h"

namespace allfives::referee {

struct LadderRunOptions {
  std::string dir;
  int concurrency = 1;     // matches at once in a round
  std::string referee;     // the referee program its children run
  int64_t max_rounds = 0;  // rounds to play, then stop; 0: until stopped
  bool quiet = false;      // no line per round
  // Each round as a Slurm job array (sbatch), its tasks playing shards of it.
  bool slurm = false;
  int slurm_tasks = 0;                   // tasks per round; 0: one per deal group of the round
  std::vector<std::string> sbatch_args;  // extra sbatch options (--partition=..., --time=...)
};

// DIR/ladder.txtpb, as `referee ladder init` wrote it.
LadderDef load_ladder_folder(const std::string& dir);

// Runs `referee check-bot` on `v` with the ladder's terms, its output kept in
// DIR/checks/NAME@N.txt, and records the verdict: active, or refused with the report. Returns
// the report; `ran` false if the check could not run at all (no sandbox here...), in which
// case the version stays waiting for its gate.
std::string gate_version(LadderStore& store, const LadderDef& def, const Version& v,
                         const std::string& referee, bool& ran);

// Plays until `stop` is raised (or max_rounds). Returns 0, or 1 having said why on `err`.
int run_ladder(const LadderRunOptions& o, const std::atomic<bool>& stop, std::ostream& out,
               std::ostream& err);

}  // namespace allfives::referee
