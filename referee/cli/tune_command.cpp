#include "cli/tune_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/slurm_flags.h"
#include "cli/stop_signal.h"
#include "rounds/child_process.h"
#include "tune/tune_runner.h"

namespace allfives::referee {
namespace {

struct TuneFlags {
  std::string file, out;
  int concurrency = 0;
  bool resume = false, quiet = false;
  int progress_seconds = 10;
  SlurmFlags slurm;
};

int tune(const TuneFlags& f) {
  TuneRun run;
  std::string error;
  if (!load_tune(f.file, run.def, &error)) {
    std::cerr << "referee tune: " << error << "\n";
    return 1;
  }
  run.out_dir = f.out.empty() ? run.def.out_dir : f.out;
  run.def.out_dir = run.out_dir;
  run.resume = f.resume;
  run.quiet = f.quiet;
  run.progress_every = std::chrono::seconds(f.progress_seconds);
  const uint32_t file_concurrency = run.def.proto.concurrency();
  run.rounds.concurrency =
      f.concurrency > 0  ? f.concurrency
      : file_concurrency ? static_cast<int>(file_concurrency)
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  run.rounds.referee = own_program();
  apply_slurm_flags(f.slurm, run.rounds);
  const std::atomic<bool>& stop = install_stop_signals();
  const int code = run_tune(run, stop, std::cout, std::cerr);
  return code == 130 && stop_signal() ? 128 + stop_signal() : code;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<TuneFlags>();
  CLI::App* c = app.add_subcommand(
      "tune",
      "Tune a bot's numeric parameters by SPSA, as engine authors do on fishtest: each\n"
      "iteration plays the bot with its parameters nudged up against it nudged down and moves\n"
      "them along the measured gradient (docs/TUNING.md). Every match is logged; --resume after\n"
      "a stop loses nothing; the values to use and a confirming SPRT come at the end.");
  c->add_option("file", f->file, "The tune file (proto/allfives/v1/tune.proto)")->required();
  c->add_option("--out", f->out,
                "The output folder (default: the file's out_dir, else tunes-out/NAME)");
  c->add_option("--concurrency,-j", f->concurrency,
                "Matches at once (default: the file's, else the cores)")
      ->check(CLI::Range(1, 1024));
  c->add_flag("--resume", f->resume, "Continue the tune in the output folder");
  c->add_flag("--quiet,-q", f->quiet, "No line per iteration");
  c->add_option("--progress-seconds", f->progress_seconds,
                "Inside a long iteration, a line of the matches played this often (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 86400));
  add_slurm_flags(c, f->slurm,
                  "Play each iteration as a Slurm job array (sbatch); all of an iteration's pairs "
                  "count in one update, so give it pairs_per_iteration to share (docs/TUNING.md)",
                  "Tasks per iteration's array (default: one per deal of the iteration)");
  c->callback([f, &exit_code] {
    try {
      exit_code = tune(*f);
    } catch (const std::exception& e) {
      std::cerr << "referee tune: " << e.what() << "\n";
      exit_code = 1;
    }
  });
}

}  // namespace allfives::referee
