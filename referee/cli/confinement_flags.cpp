#include "cli/confinement_flags.h"

#include "process/limit_ranges.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

namespace allfives::referee {

namespace {

std::string range_text(const LimitRange& r) {
  return std::to_string(r.min) + ".." + std::to_string(r.max) + r.unit;
}

// What the machine lets this process grant a bot: the hard limit of `resource`, in the limit's
// own unit (`scale` of them per rlimit unit), or nothing when unlimited.
std::optional<uint64_t> hard_limit(int resource, uint64_t scale) {
  rlimit r{};
  if (::getrlimit(resource, &r) != 0 || r.rlim_max == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(r.rlim_max) / scale;
}

struct MachineLimit {
  int resource;
  uint64_t scale;
  const char* what;    // "file size"
  const char* ulimit;  // "ulimit -Hf"
  const char* option;  // "--max-file-size-mib / limits.file_size_mib"
  const char* unit;
  uint64_t ResourceLimits::*field64;
  uint32_t ResourceLimits::*field32;
};

uint64_t value_of(const ResourceLimits& l, const MachineLimit& m) {
  return m.field64 ? l.*(m.field64) : l.*(m.field32);
}

const MachineLimit kMachineLimits[] = {
    {RLIMIT_FSIZE, 1 << 20, "file size", "ulimit -Hf", "--max-file-size-mib / limits.file_size_mib",
     " MiB", &ResourceLimits::file_size_mib, nullptr},
    {RLIMIT_NOFILE, 1, "open files", "ulimit -Hn", "--max-open-files / limits.open_files", "",
     nullptr, &ResourceLimits::open_files},
    {RLIMIT_AS, 1 << 20, "address space", "ulimit -Hv", "--memory-mib / limits.memory_mib", " MiB",
     &ResourceLimits::memory_mib, nullptr},
};

// The first limit that a bot (or, with sandboxed bots, the trial sandbox with the default
// limits) asks for above the machine's hard limit, in words.
std::optional<std::string> machine_limit_problem(const std::vector<BotSpec>& bots,
                                                 bool any_sandboxed) {
  for (const MachineLimit& m : kMachineLimits) {
    const std::optional<uint64_t> hard = hard_limit(m.resource, m.scale);
    if (!hard) continue;
    const std::string limit = "this machine's hard limit on " + std::string(m.what) +
                              " for the referee and what it starts (" + m.ulimit + ") is " +
                              std::to_string(*hard) + m.unit;
    for (const BotSpec& b : bots) {
      const uint64_t asked = b.started() ? value_of(b.confinement.limits, m) : 0;
      if (asked > *hard)
        return "bot '" + b.display_name + "' is to get " + std::to_string(asked) + m.unit + " (" +
               m.option + "), but " + limit +
               ", which nothing the referee starts may exceed: give the bot at most that, or raise "
               "the hard limit (as root, or in /etc/security/limits.conf)";
    }
    if (any_sandboxed && value_of(ResourceLimits{}, m) > *hard)
      return limit + ", below the default limits (" + ResourceLimits{}.describe() +
             ") that the sandbox is tried with before any bot starts: raise the hard limit (as "
             "root, or in /etc/security/limits.conf), or run without the sandbox";
  }
  return std::nullopt;
}

}  // namespace

void add_confinement_flags(CLI::App* cmd, ConfinementFlags& flags) {
  cmd->add_flag("!--no-sandbox", flags.sandbox,
                "Start bots without the bubblewrap sandbox (only for bots you trust): they can "
                "then read your files, see other processes and use the network, and they run as "
                "the referee's user. The resource limits (but for the process limit where no pids "
                "cgroup can be made) and "
                "process groups still apply");
  cmd->add_option("--memory-mib", flags.memory_mib,
                  "Memory per bot, " + range_text(kMemoryMibRange) +
                      "; 0 = no limit. Where the machine lets the referee make a "
                      "memory cgroup per bot, it is the resident memory of all the bot's processes "
                      "together (no swap), and a bot over it is killed by the kernel; else it is "
                      "each process's virtual address space (RLIMIT_AS), which counts reserved "
                      "memory too, so runtimes that reserve large areas may fail under it. The log "
                      "header says which applied (memory_limit_by)")
      ->capture_default_str();
  cmd->add_option("--max-processes", flags.processes,
                  "Processes and threads per bot, all together, " + range_text(kProcessesRange) +
                      "; 0 = no limit. A pids cgroup per "
                      "bot where the machine allows it; else RLIMIT_NPROC, which the kernel counts "
                      "per user and so is only applied to sandboxed bots of a referee run as root "
                      "(each gets a user id of its own)")
      ->capture_default_str();
  cmd->add_flag("!--no-cgroups", flags.cgroups,
                "Limit memory and processes by setrlimit only (RLIMIT_AS, RLIMIT_NPROC), even "
                "where cgroups per bot could be made");
  cmd->add_option("--max-open-files", flags.open_files,
                  "Open files per bot process (RLIMIT_NOFILE), " + range_text(kOpenFilesRange) +
                      "; 0 = no limit")
      ->capture_default_str();
  cmd->add_option("--max-file-size-mib", flags.file_size_mib,
                  "Largest file a bot may write (RLIMIT_FSIZE), " + range_text(kFileSizeMibRange) +
                      "; 0 = no limit. Core dumps are always off")
      ->capture_default_str();
  cmd->add_option("--cpu-percent", flags.cpu_percent,
                  "CPU per bot, all its processes together, in percent of one CPU (100: one "
                  "CPU's worth, however many threads), by a cpu cgroup of its own; 0 = none. "
                  "Default: none, or " +
                      std::to_string(kPonderCpuPercent) + " with --think-on-opponent-time")
      ->check(CLI::Range(0u, 6400u))
      ->each([&flags](const std::string&) { flags.cpu_percent_given = true; });
  cmd->add_flag("--think-on-opponent-time", flags.think_on_opponent_time,
                "Let bots think while their opponents do (ponder). By default a bot gets CPU "
                "only while the referee waits on it: a bot seen using more than 1 ms of CPU "
                "during another's turn is frozen whenever it is not its turn, and every bot "
                "between its matches, so none can slow its opponent (docs/SANDBOX.md). With "
                "this flag nothing is frozen and each bot's CPU is bounded by its quota "
                "(--cpu-percent)");
  // One folder per flag in every command, so the flag reads the same before or after the bots
  // and never takes a bot for a folder.
  cmd->add_option("--read-only", flags.read_only,
                  "A folder every started bot may read in the sandbox, besides its program's "
                  "folder and the folders of its path arguments: one folder per --read-only "
                  "(repeat it)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--hide", flags.hide,
                  "A file or folder no started bot may see in the sandbox, even where a folder "
                  "it may read holds it (a file of seeds or notes beside the bots): one path "
                  "per --hide (repeat it)")
      ->type_name("PATH")
      ->check(CLI::ExistingPath)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::string confinement_flags_problem(const ConfinementFlags& flags) {
  for (const std::string& why :
       {limit_problem(kMemoryMibRange, flags.memory_mib, "--memory-mib", "no limit"),
        limit_problem(kProcessesRange, flags.processes, "--max-processes", "no limit"),
        limit_problem(kOpenFilesRange, flags.open_files, "--max-open-files", "no limit"),
        limit_problem(kFileSizeMibRange, flags.file_size_mib, "--max-file-size-mib", "no limit")})
    if (!why.empty()) return why;
  return "";
}

Confinement confinement_from(const ConfinementFlags& flags) {
  Confinement c;
  c.sandbox = flags.sandbox;
  c.limits.memory_mib = static_cast<uint64_t>(flags.memory_mib);
  c.limits.processes = static_cast<uint32_t>(flags.processes);
  c.limits.open_files = static_cast<uint32_t>(flags.open_files);
  c.limits.file_size_mib = static_cast<uint64_t>(flags.file_size_mib);
  c.limits.cpu_percent = flags.cpu_percent;
  c.cgroups = flags.cgroups;
  c.think_on_opponent_time = flags.think_on_opponent_time;
  if (flags.think_on_opponent_time && !flags.cpu_percent_given)
    c.limits.cpu_percent = kPonderCpuPercent;
  for (const std::string& dir : flags.read_only)
    c.read_only_dirs.push_back(std::filesystem::absolute(dir).lexically_normal().string());
  for (const std::string& path : flags.hide) {
    std::string absolute = std::filesystem::absolute(path).lexically_normal().string();
    while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
    std::error_code ec;
    // A folder may hold the bot itself: then only the referee's files in it stay hidden.
    c.hidden.push_back({absolute, "a --hide path",
                        std::filesystem::is_directory(absolute, ec)
                            ? HiddenPath::Kind::kSharedFolder
                            : HiddenPath::Kind::kFile});
  }
  return c;
}

std::vector<HiddenPath> own_output_files() {
  std::vector<HiddenPath> out;
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::error_code ec;
    const std::filesystem::path path =
        std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    struct stat named {};
    // The name it had when opened; if it is gone or another file now, nothing to cover.
    if (ec || ::stat(path.c_str(), &named) != 0 || named.st_ino != st.st_ino ||
        named.st_dev != st.st_dev)
      continue;
    out.push_back(
        {path.string(),
         fd == STDOUT_FILENO ? "the referee's standard output" : "the referee's standard error",
         HiddenPath::Kind::kFile});
  }
  return out;
}

bool check_confinement(const std::vector<BotSpec>& bots, const std::string& program) {
  bool any_sandboxed = false;
  bool any_unsandboxed = false;
  for (const BotSpec& b : bots) {
    if (!b.started()) continue;
    (b.confinement.sandbox ? any_sandboxed : any_unsandboxed) = true;
  }
  if (const std::optional<std::string> problem = machine_limit_problem(bots, any_sandboxed)) {
    std::cerr << program << ": cannot start the bots: " << *problem << ".\n";
    return false;
  }
  if (any_sandboxed) {
    if (const std::optional<std::string> problem = sandbox_problem()) {
      std::cerr << sandbox_refusal(*problem, program);
      return false;
    }
  }
  for (const BotSpec& b : bots) {
    if (!b.started() || !b.confinement.sandbox) continue;
    LaunchSpec launch;
    launch.argv = b.command;
    launch.sandbox = true;
    launch.read_only_dirs = b.confinement.read_only_dirs;
    launch.hidden = b.confinement.hidden;
    if (const std::optional<std::string> refusal = given_paths_refusal(launch)) {
      std::cerr << program << ": cannot start bot '" << b.display_name << "' (" << b.describe()
                << ") in its sandbox: " << *refusal
                << ".\nThe sandbox binds what a path given to a bot leads to, so a symbolic "
                   "link there may not lead out of the folders the bot was given "
                   "(docs/SANDBOX.md).\n";
      return false;
    }
    if (const std::optional<std::string> refusal = hidden_paths_refusal(launch)) {
      std::cerr << program << ": cannot start bot '" << b.display_name << "' (" << b.describe()
                << ") in its sandbox: " << *refusal
                << ".\nKeep the referee's output apart from the folders a bot may read (its "
                   "program's folder, the folders of its path arguments, --read-only folders): "
                   "move the bot's files elsewhere, or write the output elsewhere (--log for a "
                   "match, --out or out_dir for a tournament).\n";
      return false;
    }
  }
  if (any_unsandboxed) std::cerr << no_sandbox_warning(program);
  return true;
}

}  // namespace allfives::referee
