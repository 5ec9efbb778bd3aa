// What the sandbox costs a bot's start-up: the time from starting the program to its health
// service answering SERVING (BotEndpoint::start, as the referee starts every bot), sandboxed
// and not, interleaved; prints the medians and their difference (target: at most 20 ms more
// per bot). A third interleaved run starts it sandboxed without its cgroups (--no-cgroups),
// for what making and removing them costs where the machine offers them. Then, with --options,
// where bubblewrap's own time goes: /bin/true run by the referee's machinery (its user id,
// limits, guardian) in the bot's sandbox with one namespace after another added, the mounts
// kept the same, interleaved.
//   bench_sandbox_startup [--reps N] [--options] [BOT_PROGRAM...]   (default: the sample
//   greedy_bot)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bots/bot_endpoint.h"
#include "process/bot_process.h"
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

// Milliseconds from starting `argv` (as the referee starts a sandboxed bot, minus the sandbox,
// which `argv` brings itself) until it has exited; negative if it failed.
double run_once(const std::vector<std::string>& argv) {
  LaunchSpec spec;
  spec.argv = argv;
  spec.clean_environment = true;
  spec.own_user = true;
  spec.limits = ResourceLimits{};
  const auto t0 = Clock::now();
  std::string error;
  auto p = BotProcess::start(spec, &error);
  if (!p || !p->wait_for_exit(Clock::now() + std::chrono::seconds(10))) return -1;
  const auto t1 = Clock::now();
  p->stop(std::chrono::milliseconds(0));
  const std::optional<ExitStatus> status = p->exit_status();
  if (!status || status->signaled || status->code != 0) {
    std::fprintf(stderr, "%s failed: %s\n", argv[0].c_str(), p->take_stderr().c_str());
    return -1;
  }
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// bwrap's start by option: the bot's own sandbox around /bin/true, with "--unshare-all"
// replaced by the namespaces one at a time (mounts unchanged), and a bare /bin/true.
int time_options(int reps) {
  SandboxLayout layout;
  layout.bwrap = bwrap_path();
  add_system_paths(layout, false);
  // Bound here, not copied: BotProcess::start passes no descriptors to a plain program.
  layout.system_files.insert(layout.system_files.end(), layout.copied_files.begin(),
                             layout.copied_files.end());
  layout.copied_files.clear();
  const std::vector<std::string> full = bwrap_argv(layout, {"/bin/true"});
  // A /proc can only be mounted by a sandbox with a PID namespace of its own.
  auto with = [&](std::vector<std::string> unshare, bool proc = true) {
    std::vector<std::string> a;
    for (size_t i = 0; i < full.size(); ++i) {
      if (full[i] == "--unshare-all") {
        a.insert(a.end(), unshare.begin(), unshare.end());
      } else if (full[i] == "--proc" && !proc) {
        ++i;
      } else {
        a.push_back(full[i]);
      }
    }
    return a;
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> variants = {
      {"/bin/true, no sandbox", {"/bin/true"}},
      {"bwrap: user + mount namespaces, the bot's mounts but /proc",
       with({"--unshare-user"}, false)},
      {"  + PID namespace (and its /proc)", with({"--unshare-user", "--unshare-pid"})},
      {"  + IPC, UTS, cgroup namespaces", with({"--unshare-user", "--unshare-pid", "--unshare-ipc",
                                                "--unshare-uts", "--unshare-cgroup-try"})},
      {"  + network namespace (= --unshare-all, the bot's sandbox)", full},
  };
  std::vector<std::vector<double>> ms(variants.size());
  for (int rep = 0; rep < reps; ++rep) {
    for (size_t k = 0; k < variants.size(); ++k) {
      // Alternate the order, so that no variant always follows the same one.
      const size_t v = rep % 2 == 0 ? k : variants.size() - 1 - k;
      const double t = run_once(variants[v].second);
      if (t < 0) return 1;
      ms[v].push_back(t);
    }
  }
  std::printf("bwrap's own start, /bin/true until it exits, median of %d interleaved runs:\n",
              reps);
  double before = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const double m = median(ms[v]);
    std::printf("  %-60s %7.2f ms (%+.2f)\n", variants[v].first.c_str(), m,
                v == 0 ? 0.0 : m - before);
    before = m;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  bool options = false;
  std::vector<std::string> programs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf(
          "bench_sandbox_startup [--reps N] [--options] [BOT_PROGRAM...]\n"
          "Times a bot's start until it serves: sandboxed, not sandboxed and sandboxed without\n"
          "its cgroups, N interleaved runs each (default 21), and prints the medians and the\n"
          "sandbox's extra cost. --options also times bubblewrap's start by namespace. Default\n"
          "program: the sample greedy_bot.\n");
      return 0;
    }
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      if (reps < 1) {
        std::fprintf(stderr, "--reps needs a positive number, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (a == "--options") {
      options = true;
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
  return options ? time_options(reps) : 0;
}
