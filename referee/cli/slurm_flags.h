// The Slurm flags of `referee ladder run` and `referee tune` (--slurm, --slurm-tasks, --sbatch),
// declared once so both commands read them alike.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace allfives::referee {

struct SlurmFlags {
  bool slurm = false;
  int tasks = 0;  // tasks per job array; 0: the command's default
  std::vector<std::string> sbatch;
};

// Adds the flags to `c`: `slurm_help` says what one job array plays, `tasks_help` what
// --slurm-tasks counts and its default.
void add_slurm_flags(CLI::App* c, SlurmFlags& f, const std::string& slurm_help,
                     const std::string& tasks_help);

// Copies the flags into a command's options (RoundOptions, LadderRunOptions).
template <class Options>
void apply_slurm_flags(const SlurmFlags& f, Options& o) {
  o.slurm = f.slurm;
  o.slurm_tasks = f.tasks;
  o.sbatch_args = f.sbatch;
}

}  // namespace allfives::referee
