// What the sandbox costs a bot's start-up: the time from starting the program to its health
// service answering SERVING (BotEndpoint::start, as the referee starts every bot), sandboxed
// and not, interleaved; prints the medians and their difference (target: at most 20 ms more
// per bot). A third interleaved run starts it sandboxed without its cgroups (--no-cgroups),
// for what making and removing them costs where the machine offers them.
//   bench_sandbox_startup [--reps N] [BOT_PROGRAM...]   (default: the sample greedy_bot)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bots/bot_endpoint.h"
#include "process/cgroup.h"
#include "process/private_dir.h"
#include "process/sandbox.h"

using namespace allfives::referee;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Milliseconds from launch to SERVING, or a negative number if the bot did not start.
double start_once(const std::string& program, bool sandbox, bool cgroups, int rep) {
  std::string error;
  auto dir = PrivateDir::create(&error);
  if (!dir) return -1;
  BotSpec spec;
  spec.display_name = "bot";
  spec.command = {program};
  spec.confinement.sandbox = sandbox;
  spec.confinement.cgroups = cgroups;
  const auto t0 = Clock::now();
  // snprintf, not concatenation: GCC 12 warns falsely (-Wrestrict) on the latter here.
  char name[32];
  std::snprintf(name, sizeof name, "b%d.sock", rep);
  auto bot = BotEndpoint::start(spec, dir->path(), name, std::chrono::seconds(20), &error);
  const auto t1 = Clock::now();
  if (!bot) {
    std::fprintf(stderr, "%s did not start: %s\n", program.c_str(), error.c_str());
    return -1;
  }
  bot->stop(std::chrono::milliseconds(2000));
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  std::vector<std::string> programs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else {
      programs.push_back(a);
    }
  }
  if (programs.empty()) programs.push_back(ALLFIVES_GREEDY_BOT);
  if (auto problem = sandbox_problem()) {
    std::fprintf(stderr, "no sandbox here: %s\n", problem->c_str());
    return 1;
  }
  std::printf("bot start-up until SERVING, %d interleaved runs each, %s\n", reps,
              bwrap_version().c_str());
  for (const std::string& program : programs) {
    std::vector<double> sandboxed;
    std::vector<double> bare;
    std::vector<double> no_cgroups;
    for (int rep = 0; rep < reps; ++rep) {
      // Rotate which goes first, so none always gets the warmer caches.
      for (int k = 0; k < 3; ++k) {
        const int variant = (rep + k) % 3;
        const double ms = start_once(program, variant != 1, variant != 2, rep * 3 + k);
        if (ms < 0) return 1;
        (variant == 0 ? sandboxed : variant == 1 ? bare : no_cgroups).push_back(ms);
      }
    }
    std::vector<double> diffs;
    std::vector<double> cgroup_diffs;
    for (int rep = 0; rep < reps; ++rep) {
      diffs.push_back(sandboxed[rep] - bare[rep]);
      cgroup_diffs.push_back(sandboxed[rep] - no_cgroups[rep]);
    }
    std::printf(
        "%s\n  median: sandboxed %.2f ms, not sandboxed %.2f ms; extra per bot %.2f ms "
        "(median of the paired differences; target <= 20 ms)\n"
        "  sandboxed without cgroups %.2f ms; the cgroups (%s) cost %.2f ms per bot\n",
        program.c_str(), median(sandboxed), median(bare), median(diffs), median(no_cgroups),
        cgroup_places().version == 0   ? "none made here"
        : cgroup_places().version == 1 ? "v1"
                                       : "v2",
        median(cgroup_diffs));
  }
  return 0;
}
