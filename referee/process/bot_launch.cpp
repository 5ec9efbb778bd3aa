// Preparing a bot's launch, on the caller's thread before anything is forked: its program
// found, its environment, its sandbox's folders and options, and its limits (cgroups or
// setrlimit); and the program look-ups that start() and the commands share.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "process/bot_process_impl.h"
#include "process/seccomp.h"

extern char** environ;

namespace allfives::referee {

namespace {

using spawn::errno_text;
using spawn::Prepared;

bool is_executable_file(const std::string& path, std::string* why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *why = errno_text(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *why = "it is a directory";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = "it is not a regular file";
    return false;
  }
  if (::access(path.c_str(), X_OK) != 0) {
    *why = "it is not executable (" + errno_text(errno) + ")";
    return false;
  }
  return true;
}

std::optional<std::string> resolve_program(const std::string& name, const std::string& path_env,
                                           const std::string& working_dir, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.find('/') != std::string::npos) {
    fs::path path(name);
    if (path.is_relative() && !working_dir.empty()) path = fs::path(working_dir) / path;
    path = fs::absolute(path, ec);
    if (ec) {
      *error = "cannot resolve '" + name + "': " + ec.message();
      return std::nullopt;
    }
    std::string why;
    if (!is_executable_file(path.string(), &why)) {
      *error = "cannot run '" + path.string() + "': " + why;
      return std::nullopt;
    }
    return path.string();
  }
  std::string not_executable;  // the first match that exists but cannot be run
  size_t begin = 0;
  while (begin <= path_env.size()) {
    size_t end = path_env.find(':', begin);
    if (end == std::string::npos) end = path_env.size();
    const std::string dir = path_env.substr(begin, end - begin);
    begin = end + 1;
    if (dir.empty()) continue;  // an empty PATH entry ("current directory") is not honoured
    const fs::path candidate = fs::absolute(fs::path(dir) / name, ec);
    if (ec) continue;
    std::string why;
    if (is_executable_file(candidate.string(), &why)) return candidate.string();
    if (not_executable.empty() && ::access(candidate.c_str(), F_OK) == 0) {
      not_executable = candidate.string() + ": " + why;
    }
  }
  if (!not_executable.empty()) {
    *error = "cannot run '" + name + "': found " + not_executable;
  } else {
    *error = "program '" + name + "' not found in PATH (" + path_env + ")";
  }
  return std::nullopt;
}

// The folders of a sandbox's layout for `argv` started in `working_dir`: the system's, those
// bound read-only, and the masks over the referee's own paths; the one place they are decided
// (prepare_launch() and hidden_paths_refusal()). Why a mask cannot be made, or nullopt.
std::optional<std::string> lay_out_folders(SandboxLayout& layout,
                                           const std::vector<std::string>& argv,
                                           const std::string& working_dir, const LaunchSpec& spec) {
  // A bot runs as root only when the referee does and gives it no user id of its own.
  add_system_paths(layout, ::getuid() == 0 && !spec.own_user);
  layout.read_only = read_only_folders(argv, working_dir, spec.read_only_dirs);
  return mask_hidden_paths(layout, needed_folders(argv, working_dir, spec.read_only_dirs),
                           spec.hidden);
}

// The environment: ours (or, with clean_environment, the short list of bot_environment()),
// with extra_env added or replacing same-named variables. Returns the PATH it holds.
std::string set_environment(const LaunchSpec& spec, Prepared& p) {
  std::string path_env = "/usr/local/bin:/usr/bin:/bin";
  if (const char* ours = std::getenv("PATH"); ours != nullptr && *ours != '\0') path_env = ours;
  if (spec.clean_environment) {
    p.env_storage = bot_environment(path_env, spec.extra_env);
  } else {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      p.env_storage.emplace_back(*entry);
    }
    for (const auto& [key, value] : spec.extra_env) {
      const std::string prefix = key + "=";
      std::erase_if(p.env_storage, [&](const std::string& e) { return e.starts_with(prefix); });
      p.env_storage.push_back(prefix + value);
    }
  }
  for (const std::string& entry : p.env_storage) {
    if (entry.starts_with("PATH=")) path_env = entry.substr(5);
  }
  return path_env;
}

// bwrap's options go in a memory file (--args): its own command line, which is the sandbox's
// /proc/1/cmdline, then shows the bot's command (the bot's own anyway) and none of the host's
// paths it binds or covers (bwrap takes the command from its real argv). The seccomp filter goes
// in another. p's command becomes bwrap's.
bool pass_bwrap_options(SandboxLayout& layout, Prepared& p, std::string* error) {
  const std::string filter = sandbox_seccomp_filter();
  if (!filter.empty()) {
    p.passed.push_back(spawn::memory_file("allfives-seccomp", filter, error));
    if (p.passed.back().get() < 0) return false;
    layout.seccomp_fd = spawn::kSandboxSeccompFd;
  } else {
    p.passed.emplace_back();  // keeps the arguments at kSandboxArgsFd
  }
  layout.copied_fd = spawn::kSandboxCopiedFd;
  const std::vector<std::string> full = bwrap_argv(layout, p.argv_storage);
  const auto command = std::find(full.begin(), full.end(), std::string("--"));
  std::string options;
  for (auto it = full.begin() + 1; it != command; ++it) options.append(*it).push_back('\0');
  p.passed.push_back(spawn::memory_file("allfives-bwrap-args", options, error));
  if (p.passed.back().get() < 0) return false;
  for (const std::string& file : layout.copied_files) {
    p.passed.emplace_back(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (p.passed.back().get() < 0 || ::fstat(p.passed.back().get(), &st) != 0) {
      *error = "cannot open " + file + " to copy it into the sandbox: " + errno_text(errno);
      return false;
    }
    if (!copied_into_sandbox(st)) {  // changed since the layout was made
      *error = file + " changed while the bot's sandbox was being made: start it again";
      return false;
    }
  }
  std::vector<std::string> argv = {layout.bwrap, "--args", std::to_string(spawn::kSandboxArgsFd)};
  argv.insert(argv.end(), command, full.end());
  p.argv_storage = std::move(argv);
  p.exec_path = layout.bwrap;
  p.working_dir.clear();  // bwrap changes into it inside the sandbox
  return true;
}

// The command `p` holds run inside a sandbox of its own (sandbox.h), bwrap's command in its
// place.
bool prepare_sandbox(const LaunchSpec& spec, Prepared& p, std::string* error) {
  SandboxLayout layout;
  layout.bwrap = find_bwrap();
  if (layout.bwrap.empty()) {
    *error = "the bwrap program (bubblewrap) is not installed (not found in PATH)";
    return false;
  }
  std::error_code ec;
  const std::string working_dir =
      p.working_dir.empty() ? std::filesystem::current_path(ec).string() : p.working_dir;
  layout.working_dir = working_dir;
  // The program by its absolute path: PATH inside the sandbox may not lead to it.
  p.argv_storage[0] = p.exec_path;
  if (const std::optional<std::string> refusal =
          link_refusal(p.argv_storage, working_dir, spec.read_only_dirs, spec.hidden)) {
    *error = "the sandbox would not be what it looks like: " + *refusal;
    return false;
  }
  if (const std::optional<std::string> refusal =
          lay_out_folders(layout, p.argv_storage, working_dir, spec)) {
    *error = "the sandbox would show it the referee's own files: " + *refusal;
    return false;
  }
  p.read_only = layout.read_only;
  // Bound from their real paths, resolved here once: bwrap binds what was checked.
  for (const std::string& dir : layout.read_only) {
    std::error_code real_ec;
    const std::filesystem::path real = std::filesystem::canonical(dir, real_ec);
    layout.read_only_sources.push_back(real_ec ? dir : real.string());
  }
  // A mask needs something to cover: a folder made after the bot started would show through.
  for (const HiddenPath& m : layout.masks) {
    if (!std::filesystem::exists(m.path, ec)) {
      *error = m.what + " " + m.path + " does not exist yet, so it cannot be hidden from the bot";
      return false;
    }
  }
  layout.writable = spec.writable_dir;
  layout.info_fd = spawn::kSandboxInfoFd;
  p.info_pipe = true;
  layout.disable_userns = bwrap_disables_userns();
  return pass_bwrap_options(layout, p, error);
}

// Memory and processes: by cgroups of the bot's own where they can be made. RLIMIT_AS is then
// not set as well: it would count virtual memory again, per process, and fail runtimes that
// reserve more address space than they use. Where a cgroup cannot be made after all, the
// limits fall back to setrlimit; the log header says which applied. The rest by setrlimit.
void apply_limits(const LaunchSpec& spec, Prepared& p) {
  const ResourceLimits& l = spec.limits;
  constexpr rlim_t kMiB = 1024 * 1024;
  if (spec.cgroups) {
    const CgroupPlaces& places = cgroup_places();
    const CpuCgroupOptions cpu{spec.watch_cpu, l.cpu_percent};
    if ((l.memory_mib != 0 && !places.memory_parent.empty()) ||
        (l.processes != 0 && !places.pids_parent.empty()) ||
        (cpu.watch && !places.freezer_parent.empty()) ||
        (cpu.cpu_percent != 0 && !places.cpu_parent.empty())) {
      std::string why;
      p.cgroup = BotCgroup::create(places, l.memory_mib, l.processes, cpu, &why);
    }
  }
  if (p.cgroup) {
    p.memory_by = p.cgroup->memory_by();
    p.processes_by = p.cgroup->processes_by();
    p.cgroup_folders = p.cgroup->folders();
    p.cgroup_procs = p.cgroup->procs_files();
    p.cgroup_join = p.cgroup->join_files();
    p.cgroup_thaw_file = p.cgroup->thaw_file();
    p.cgroup_thaw_text = p.cgroup->thaw_text();
  }
  if (l.memory_mib != 0 && p.memory_by == LimitMechanism::kNone) {
    p.rlimits.emplace_back(RLIMIT_AS, l.memory_mib * kMiB);
    p.memory_by = LimitMechanism::kRlimit;
  }
  if (l.open_files != 0) p.rlimits.emplace_back(RLIMIT_NOFILE, l.open_files);
  if (l.file_size_mib != 0) p.rlimits.emplace_back(RLIMIT_FSIZE, l.file_size_mib * kMiB);
  if (l.no_core_dumps) p.rlimits.emplace_back(RLIMIT_CORE, 0);
  if (spec.own_user) {
    p.uid_base = bot_uid_base();
    // Only a per-bot count under a user id of the bot's own (see ResourceLimits::processes).
    if (p.uid_base != 0 && l.processes != 0 && p.processes_by == LimitMechanism::kNone) {
      p.rlimits.emplace_back(RLIMIT_NPROC, l.processes);
      p.processes_by = LimitMechanism::kRlimit;
    }
  }
}

// The bot's argv with its program's absolute path, and its working folder, as start() sees
// them; nullopt if the program cannot be found (start() will say why).
std::optional<std::pair<std::vector<std::string>, std::string>> resolved_command(
    const LaunchSpec& spec) {
  if (spec.argv.empty()) return std::nullopt;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base =
      spec.working_dir.empty() ? fs::current_path(ec) : fs::path(spec.working_dir);
  std::string working_dir = fs::absolute(base, ec).string();
  std::string why;
  const std::optional<std::string> program = find_program(spec.argv[0], working_dir, &why);
  if (!program) return std::nullopt;
  std::vector<std::string> argv = spec.argv;
  argv[0] = *program;
  return std::make_pair(std::move(argv), std::move(working_dir));
}

}  // namespace

std::optional<Prepared> prepare_launch(const LaunchSpec& spec, std::string* error) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    *error = "no program to run (empty argv)";
    return std::nullopt;
  }
  Prepared p;
  if (!spec.working_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.working_dir, ec)) {
      *error = "working directory '" + spec.working_dir + "' is not a directory" +
               (ec ? " (" + ec.message() + ")" : "");
      return std::nullopt;
    }
    p.working_dir = std::filesystem::absolute(spec.working_dir, ec).string();
  }
  const std::string path_env = set_environment(spec, p);
  auto exec_path = resolve_program(spec.argv[0], path_env, p.working_dir, error);
  if (!exec_path) return std::nullopt;
  p.exec_path = std::move(*exec_path);
  p.argv_storage = spec.argv;
  if (spec.sandbox && !prepare_sandbox(spec, p, error)) return std::nullopt;
  apply_limits(spec, p);

  for (std::string& arg : p.argv_storage) p.argv.push_back(arg.data());
  p.argv.push_back(nullptr);
  for (std::string& entry : p.env_storage) p.envp.push_back(entry.data());
  p.envp.push_back(nullptr);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    p.max_fd = static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536));
  }
  return p;
}

std::optional<std::string> given_paths_refusal(const LaunchSpec& spec) {
  if (!spec.sandbox) return std::nullopt;
  const auto command = resolved_command(spec);
  if (!command) return std::nullopt;
  return link_refusal(command->first, command->second, spec.read_only_dirs, spec.hidden);
}

std::optional<std::string> hidden_paths_refusal(const LaunchSpec& spec) {
  if (!spec.sandbox || spec.hidden.empty()) return std::nullopt;
  const auto command = resolved_command(spec);
  if (!command) return std::nullopt;
  const std::vector<std::string>& argv = command->first;
  const std::string& working_dir = command->second;
  SandboxLayout layout;
  return lay_out_folders(layout, argv, working_dir, spec);
}

std::optional<std::string> find_program(const std::string& name, const std::string& base_dir,
                                        std::string* error) {
  const char* path_env = std::getenv("PATH");
  return resolve_program(name, path_env ? path_env : "/usr/local/bin:/usr/bin:/bin", base_dir,
                         error);
}

}  // namespace allfives::referee
