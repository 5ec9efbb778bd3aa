// `referee tune`: the iterations of a tune file played one after another, each as a tournament
// of its own by child referees (rounds/round_player.h: here, or as a Slurm job array), theta
// moved after each (spsa.h) and kept in OUT/tune.jsonl, so a resume loses nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <ostream>
#include <string>

#include "rounds/round_player.h"
#include "tune/tune_file.h"

namespace allfives::referee {

struct TuneRun {
  TuneDef def;
  std::string out_dir;  // def.out_dir unless overridden
  bool resume = false;
  bool quiet = false;  // no line per iteration
  // A line of progress inside an iteration this often while its matches finish (0: none).
  std::chrono::seconds progress_every{10};
  RoundOptions rounds;  // rounds.working_dir is set by run_tune (OUT/empty)
};

// The output folder: tune.txtpb (the file as run, its seed included), tune.jsonl (a line per
// finished iteration: v1::TuneIteration), tune.svg (each parameter's path), iterations/I.txtpb
// and iterations/I/ (each iteration's tournament and its logs), confirm.txtpb (the confirming
// SPRT) and, with a confirm block, confirm/. Returns 0 done, 1 an error (said on `err`), 130
// stopped (--resume continues).
int run_tune(TuneRun& run, const std::atomic<bool>& stop, std::ostream& out, std::ostream& err);

}  // namespace allfives::referee
