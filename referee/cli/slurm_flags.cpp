#include "cli/slurm_flags.h"

namespace allfives::referee {

void add_slurm_flags(CLI::App* c, SlurmFlags& f, const std::string& slurm_help,
                     const std::string& tasks_help) {
  c->add_flag("--slurm", f.slurm, slurm_help);
  c->add_option("--slurm-tasks", f.tasks, tasks_help)->check(CLI::Range(1, 10000));
  c->add_option("--sbatch", f.sbatch,
                "An option for sbatch, e.g. --sbatch=--partition=cpu (repeat for more)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

}  // namespace allfives::referee
