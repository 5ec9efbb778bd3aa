// A tournament file played to its end by child processes: a child `referee tournament` here,
// or a Slurm job array whose tasks play its shards (docs/CLUSTER.md). The ladder plays each
// round so, and `referee tune` each iteration; both only read the indexes the children write.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"

namespace allfives::referee {

struct RoundOptions {
  std::string referee;      // the referee program the children run
  std::string working_dir;  // where they run (an empty folder, so bots find nothing there)
  int concurrency = 1;      // matches at once in a local round
  // Each round as a Slurm job array (sbatch), its tasks playing shards of it.
  bool slurm = false;
  int slurm_tasks = 0;                   // tasks per round; 0: one per deal group of the round
  std::vector<std::string> sbatch_args;  // extra sbatch options (--partition=..., --time=...)
  std::vector<std::string> hide;  // paths kept from every bot, besides the round's own (--hide)
};

// A round's files: its tournament file, its output folder and what its players printed.
struct RoundFiles {
  std::string file, folder, output;
};

class RoundPlayer {
 public:
  virtual ~RoundPlayer() = default;
  // The output folders whose indexes receive the round's matches.
  virtual std::vector<std::string> folders() const = 0;
  // Nothing while it plays; then "" if every match was played, else why not.
  virtual std::optional<std::string> poll() = 0;
  virtual void stop() = 0;
  // The Slurm job playing it; empty for a local round.
  virtual std::string job() const { return ""; }
};

// Starts playing `f`: locally (resuming the folder if it exists), or with o.slurm as a job
// array; a round whose earlier array `earlier_job` still runs is followed, not submitted again.
// Nothing and *why if it cannot start.
std::unique_ptr<RoundPlayer> start_round(const RoundOptions& o, const RoundFiles& f,
                                         const std::string& earlier_job, std::string* why);

// A program's exit code and output (at most 64 KiB, through the file `scratch`), run to its end.
int run_command(const std::vector<std::string>& argv, const std::string& scratch,
                std::string& text);

// At most `cap` bytes from the start of a file.
std::string read_capped(const std::string& path, size_t cap);

// The match terms of a file that plays rounds (a ladder, a tune: their fields of the same
// names) copied into a round's tournament.
template <class Terms>
void copy_match_terms(const Terms& from, v1::Tournament& t) {
  t.set_format(from.format());
  t.set_move_time_ms(from.move_time_ms());
  t.set_time_bank_ms(from.time_bank_ms());
  t.set_startup_timeout_ms(from.startup_timeout_ms());
  t.set_target_score(from.target_score());
  t.set_max_hands(from.max_hands());
  t.set_think_on_opponent_time(from.think_on_opponent_time());
}

// A tournament file's text: `heading` (comment lines), then `t` with each bot's command quoted,
// so a path with spaces stays one program. Empty and *error for a path holding both quotes.
std::string tournament_file_text(const v1::Tournament& t, const std::string& heading,
                                 std::string* error);

}  // namespace allfives::referee
