#include "process/sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>

#include "process/bot_process.h"
#include "process/spawn.h"

namespace allfives::referee {

namespace fs = std::filesystem;

namespace {

// Top-level system folders a dynamically linked program (C++ or Python) needs. On merged-/usr
// systems most are symlinks into /usr and are recreated as symlinks.
constexpr const char* kSystemDirs[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                       "/lib32", "/lib64", "/libx32"};
// The files of /etc a program needs to start and to name things: the dynamic loader's cache
// and configuration, user and group names, name-service and locale basics. Not /etc/hosts or
// resolv.conf (there is no network), nothing secret (no shadow, no ssl keys).
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/ld.so.conf",  "/etc/ld.so.conf.d",
                                     "/etc/passwd",      "/etc/group",       "/etc/nsswitch.conf",
                                     "/etc/localtime",   "/etc/alternatives"};
// Each may be copied (add_etc_file), from a descriptor of its own.
static_assert(std::size(kEtcFiles) <= spawn::kMaxSandboxCopied);

// Host-wide counters of /proc that move with what other processes do (load, CPU ticks and
// forks, idle time, memory, paging, I/O, interrupts, locks, open files, inodes and dentries,
// AIO contexts): a bot reading them sees its partner's, or anyone's, activity. Covered in the
// sandbox (bwrap_argv) where the bot could read them (a bot that is not root cannot read
// root's own files of them). What stays: sysinfo(2), and time.
constexpr const char* kHostActivityFiles[] = {"/proc/loadavg",
                                              "/proc/stat",
                                              "/proc/meminfo",
                                              "/proc/vmstat",
                                              "/proc/diskstats",
                                              "/proc/interrupts",
                                              "/proc/softirqs",
                                              "/proc/schedstat",
                                              "/proc/buddyinfo",
                                              "/proc/zoneinfo",
                                              "/proc/pagetypeinfo",
                                              "/proc/slabinfo",
                                              "/proc/locks",
                                              "/proc/swaps",
                                              "/proc/vmallocinfo",
                                              "/proc/key-users",
                                              "/proc/timer_list",
                                              "/proc/uptime",
                                              "/proc/sys/fs/aio-nr",
                                              "/proc/sys/fs/file-nr",
                                              "/proc/sys/fs/inode-nr",
                                              "/proc/sys/fs/inode-state",
                                              "/proc/sys/fs/dentry-state"};

std::string absolute_in(const std::string& path, const std::string& working_dir) {
  fs::path p(path);
  if (p.is_relative()) p = (working_dir.empty() ? fs::current_path() : fs::path(working_dir)) / p;
  return p.lexically_normal().string();
}

void add_folder_of(const std::string& path, std::vector<std::string>& out) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return;
  const fs::path p(path);
  out.push_back(fs::is_directory(st) ? p.string() : p.parent_path().string());
  // The real place too, when a symlink leads elsewhere.
  const fs::path real = fs::canonical(p, ec);
  if (!ec) out.push_back(fs::is_directory(st) ? real.string() : real.parent_path().string());
}

std::string strip_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Whether `path` lies strictly inside `folder` (both absolute and normal, no trailing '/').
bool is_inside(const std::string& path, const std::string& folder) {
  if (folder == "/") return path.size() > 1 && path[0] == '/';
  return path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         path[folder.size()] == '/';
}

// The path with every symlink resolved; a part that does not exist yet is taken as written.
std::string real_path(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) real = fs::absolute(path, ec).lexically_normal();
  return strip_trailing_slash(real.lexically_normal().string());
}

// The file of /etc `file` (which exists) in `layout`: see add_system_paths().
void add_etc_file(SandboxLayout& layout, const std::string& file) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(file, ec))) {
    const std::string target = real_path(file);
    for (const std::string& dir : layout.system_dirs)
      if (is_inside(target, dir)) {
        layout.system_links.emplace_back(file, target);
        return;
      }
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && copied_into_sandbox(st)) {
    layout.copied_files.push_back(file);
  } else {
    layout.system_files.push_back(file);
  }
}

}  // namespace

bool copied_into_sandbox(const struct stat& st) {
  return S_ISREG(st.st_mode) && (st.st_mode & S_IROTH) != 0 &&
         static_cast<uint64_t>(st.st_size) <= kMaxCopiedBytes;
}

bool readable_by_non_root(const struct stat& st) {
  return st.st_uid != 0 || (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
}

void add_system_paths(SandboxLayout& layout, bool bot_is_root) {
  for (const char* dir : kSystemDirs) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      layout.system_links.emplace_back(dir, fs::read_symlink(dir, ec).string());
    } else if (fs::is_directory(st)) {
      layout.system_dirs.emplace_back(dir);
    }
  }
  for (const char* file : kEtcFiles) {
    std::error_code ec;
    if (fs::exists(file, ec)) add_etc_file(layout, file);
  }
  // The sandbox's /proc has what the host's has (one kernel): cover those that exist and that
  // the bot could read there.
  for (const char* file : kHostActivityFiles) {
    struct stat st {};
    if (::stat(file, &st) == 0 && (bot_is_root || readable_by_non_root(st)))
      layout.host_activity_files.emplace_back(file);
  }
  std::error_code ec;
  if (fs::is_directory("/proc/pressure", ec))
    layout.host_activity_dirs.emplace_back("/proc/pressure");
}

std::vector<std::string> needed_folders(const std::vector<std::string>& argv,
                                        const std::string& working_dir,
                                        const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    // Flags like --listen unix:... are not paths; neither is an empty argument.
    if (argv[i].empty() || argv[i][0] == '-') continue;
    add_folder_of(i == 0 ? argv[i] : absolute_in(argv[i], working_dir), out);
  }
  for (const std::string& dir : extra) out.push_back(absolute_in(dir, working_dir));
  for (std::string& dir : out) dir = strip_trailing_slash(fs::path(dir).lexically_normal());
  // The system folders are there anyway (and /bin may be a symlink that cannot be bound over).
  // "/" is never bound.
  std::erase_if(out, [](const std::string& dir) {
    return dir == "/" ||
           std::any_of(std::begin(kSystemDirs), std::end(kSystemDirs),
                       [&](const char* sys) { return dir == sys || is_inside(dir, sys); });
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> read_only_folders(const std::vector<std::string>& argv,
                                           const std::string& working_dir,
                                           const std::vector<std::string>& extra) {
  // A folder inside one already listed is bound with it (sorted, a folder comes first).
  std::vector<std::string> kept;
  for (const std::string& dir : needed_folders(argv, working_dir, extra)) {
    const bool inside = std::any_of(kept.begin(), kept.end(),
                                    [&](const std::string& k) { return is_inside(dir, k); });
    if (!inside) kept.push_back(dir);
  }
  return kept;
}

namespace {

// Where the sandbox has its own and never shows the host's.
constexpr const char* kForbiddenDirs[] = {"/proc", "/sys", "/dev", "/run"};

bool is_or_inside(const std::string& path, const std::string& folder) {
  return path == folder || is_inside(path, folder);
}

bool in_system_folder(const std::string& path) {
  return std::any_of(std::begin(kSystemDirs), std::end(kSystemDirs),
                     [&](const char* sys) { return is_or_inside(path, sys); });
}

// The real path of lexical `path` (absolute, normal), following it component by component; at
// the first symbolic link that leads where `allowed` says it may not, sets *link and *target
// and stops. Returns false if the path does not exist (a dangling link included).
bool walk(const std::string& path,
          const std::function<bool(const std::string& holder, const std::string& target)>& allowed,
          std::string* real, std::string* link, std::string* target) {
  std::string cur = "/";
  for (const fs::path& part : fs::path(path).relative_path()) {
    const std::string next = (cur == "/" ? "" : cur) + "/" + part.string();
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(next, ec);
    if (ec || !fs::exists(st)) return false;
    if (!fs::is_symlink(st)) {
      cur = next;
      continue;
    }
    const fs::path resolved = fs::canonical(next, ec);
    if (ec) return false;
    const std::string t = strip_trailing_slash(resolved.lexically_normal().string());
    if (cur != "/" && !allowed(cur, t)) {
      *link = next;
      *target = t;
      return true;
    }
    cur = t;
  }
  *real = cur;
  return true;
}

}  // namespace

std::optional<std::string> link_refusal(const std::vector<std::string>& argv,
                                        const std::string& working_dir,
                                        const std::vector<std::string>& extra,
                                        const std::vector<HiddenPath>& hidden) {
  // What the bot was given, by the words given, and each as an absolute lexical path.
  std::vector<std::pair<std::string, std::string>> given;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].empty() || argv[i][0] == '-') continue;
    const std::string abs = i == 0 ? argv[i] : absolute_in(argv[i], working_dir);
    std::error_code ec;
    if (i != 0 && !fs::exists(fs::symlink_status(abs, ec))) continue;  // a word, not a path
    given.emplace_back(i == 0 ? "its program '" + argv[0] + "'" : "argument '" + argv[i] + "'",
                       strip_trailing_slash(abs));
  }
  for (const std::string& dir : extra)
    given.emplace_back("read-only folder '" + dir + "'",
                       strip_trailing_slash(absolute_in(dir, working_dir)));
  // The folders given without a link on the way (but in / itself): a link may lead into them.
  std::vector<std::string> plain;
  for (const auto& [words, path] : given) {
    std::string real, link, target;
    const auto none = [](const std::string&, const std::string&) { return false; };
    if (!walk(path, none, &real, &link, &target) || !link.empty()) continue;
    std::error_code ec;
    plain.push_back(fs::is_directory(real, ec) ? real : fs::path(real).parent_path().string());
  }
  for (const auto& [words, path] : given) {
    const auto allowed = [&](const std::string& holder, const std::string& target) {
      return is_or_inside(target, holder) || in_system_folder(target) ||
             std::any_of(plain.begin(), plain.end(),
                         [&](const std::string& p) { return is_or_inside(target, p); });
    };
    std::string real, link, target;
    if (!walk(path, allowed, &real, &link, &target)) continue;
    if (!link.empty())
      return words + " goes through the symbolic link " + link + ", which leads to " + target +
             ", outside the folder that holds the link and every folder given to the bot; give "
             "the bot that folder itself (read_only_dirs, --read-only) if it may read it";
    for (const char* dir : kForbiddenDirs)
      if (is_or_inside(real, dir))
        return words + (real == path ? " is " : " leads to ") + real + ", the host's " + dir +
               ": the sandbox has its own and never shows the host's";
    for (const HiddenPath& h : hidden) {
      const std::string h_real = real_path(h.path);
      if (real != path && is_or_inside(real, h_real))
        return words + " leads to " + real + ", " +
               (real == h_real ? std::string("which is ") : "inside ") + h.what + " " + h.path;
    }
  }
  return std::nullopt;
}

std::vector<HiddenPath> masks_for(const std::vector<BoundFolder>& bound,
                                  const std::vector<HiddenPath>& hidden, std::string* refusal) {
  std::vector<HiddenPath> masks;
  using Kind = HiddenPath::Kind;
  for (const HiddenPath& h : hidden) {
    if (h.kind != Kind::kFile) {
      const auto in_it = std::find_if(bound.begin(), bound.end(), [&](const BoundFolder& b) {
        return b.real == h.path || is_inside(b.real, h.path);
      });
      if (in_it != bound.end()) {
        // A shared folder stays open (the referee's files in it are hidden one by one);
        // covering it would also cover what the bot needs.
        if (h.kind == Kind::kSharedFolder) continue;
        if (refusal != nullptr)
          *refusal = "it may read the folder " + in_it->path +
                     (in_it->real != in_it->path ? " (" + in_it->real + ")" : "") + ", which " +
                     (in_it->real == h.path ? "is " : "lies inside ") + h.what + " " + h.path +
                     ": it would see what the referee writes there";
        return {};
      }
    }
    for (const BoundFolder& b : bound) {
      if (is_inside(h.path, b.real)) {
        const std::string below = h.path.substr(b.real == "/" ? 0 : b.real.size());
        masks.push_back({(b.path == "/" ? "" : b.path) + below, h.what,
                         h.kind == Kind::kFile ? Kind::kFile : Kind::kFolder});
      }
    }
  }
  std::sort(masks.begin(), masks.end(),
            [](const HiddenPath& a, const HiddenPath& b) { return a.path < b.path; });
  // Sorted, a folder comes before what lies inside it, which its empty tmpfs covers anyway
  // (and where a file could not be bound over).
  std::vector<HiddenPath> kept;
  for (const HiddenPath& m : masks) {
    const bool covered = std::any_of(kept.begin(), kept.end(), [&](const HiddenPath& k) {
      return k.path == m.path || (k.kind != HiddenPath::Kind::kFile && is_inside(m.path, k.path));
    });
    if (!covered) kept.push_back(m);
  }
  return kept;
}

std::optional<std::string> mask_hidden_paths(SandboxLayout& layout,
                                             const std::vector<std::string>& needed,
                                             const std::vector<HiddenPath>& hidden) {
  std::vector<BoundFolder> bound;
  for (const std::vector<std::string>* dirs :
       std::initializer_list<const std::vector<std::string>*>{&needed, &layout.read_only,
                                                              &layout.system_dirs})
    for (const std::string& dir : *dirs) bound.push_back({dir, real_path(dir)});
  std::vector<HiddenPath> real = hidden;
  for (HiddenPath& h : real) h.path = real_path(h.path);
  std::string refusal;
  layout.masks = masks_for(bound, real, &refusal);
  if (!refusal.empty()) return refusal;
  return std::nullopt;
}

std::vector<std::string> bwrap_argv(const SandboxLayout& layout,
                                    const std::vector<std::string>& argv) {
  std::vector<std::string> a = {layout.bwrap,
                                // user, PID, IPC, UTS, mount, network and cgroup namespaces
                                "--unshare-all",
                                // everything in the sandbox dies with the bwrap we started
                                "--die-with-parent",
                                // No --new-session: a session of its own would put the bot in a
                                // scheduler autogroup of its own, which made every wake-up
                                // between referee and bot slower (matches/s fell to a third
                                // on 2026-11-30). The bot leaves the referee's terminal
                                // instead (TIOCNOTTY before exec, spawn.cpp), and its
                                // /dev has no terminal devices.
                                // no capabilities inside either, even for the namespace's root
                                "--cap-drop", "ALL"};
  // No user namespace inside: the kernel's namespace code is a large attack surface, and a
  // bot needs none.
  if (layout.disable_userns) a.insert(a.end(), {"--unshare-user", "--disable-userns"});
  if (layout.info_fd >= 0) a.insert(a.end(), {"--info-fd", std::to_string(layout.info_fd)});
  if (layout.seccomp_fd >= 0) a.insert(a.end(), {"--seccomp", std::to_string(layout.seccomp_fd)});
  for (const std::string& dir : layout.system_dirs) {
    a.insert(a.end(), {"--ro-bind", dir, dir});
  }
  for (const auto& [link, target] : layout.system_links) {
    a.insert(a.end(), {"--symlink", target, link});
  }
  for (const std::string& file : layout.system_files) {
    a.insert(a.end(), {"--ro-bind", file, file});
  }
  for (size_t i = 0; i < layout.copied_files.size(); ++i)
    a.insert(a.end(),
             {"--perms", "0444", "--file", std::to_string(layout.copied_fd + static_cast<int>(i)),
              layout.copied_files[i]});
  a.insert(a.end(), {"--proc", "/proc"});
  // The sandbox's /proc shows its own processes, but these files count the whole host's CPU,
  // memory, load and I/O: partners could signal through them by loading the machine (a
  // covert channel, docs/SANDBOX.md), and no bot needs them. Covered by /dev/null, which the
  // sandbox cannot open there (nodev); /proc/pressure by an empty folder.
  for (const std::string& file : layout.host_activity_files)
    a.insert(a.end(), {"--ro-bind", "/dev/null", file});
  for (const std::string& dir : layout.host_activity_dirs) a.insert(a.end(), {"--tmpfs", dir});
  // A minimal /dev: the four devices programs read or write, not bwrap's --dev (which also
  // mounts a tmpfs, a devpts and a shm and costs about 10 ms more per start).
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"})
    a.insert(a.end(), {"--dev-bind", dev, dev});
  a.insert(a.end(), {"--size", std::to_string(kTmpSizeMib * 1024 * 1024), "--tmpfs", "/tmp"});
  for (size_t i = 0; i < layout.read_only.size(); ++i) {
    const std::string& dir = layout.read_only[i];
    const bool resolved =
        i < layout.read_only_sources.size() && !layout.read_only_sources[i].empty();
    a.insert(a.end(), {"--ro-bind", resolved ? layout.read_only_sources[i] : dir, dir});
  }
  // The referee's own paths inside those folders, covered after them (a later mount hides
  // what is below it): a folder by an empty tmpfs, made read-only below once the socket
  // folder (which may lie inside one) has its mount point there; a file by /dev/null.
  for (const HiddenPath& m : layout.masks) {
    if (m.kind != HiddenPath::Kind::kFile) {
      a.insert(a.end(), {"--tmpfs", m.path});
    } else {
      a.insert(a.end(), {"--ro-bind", "/dev/null", m.path});
    }
  }
  // The working folder exists (empty unless bound), so relative paths resolve as outside.
  if (!layout.working_dir.empty()) a.insert(a.end(), {"--dir", layout.working_dir});
  if (!layout.writable.empty())
    a.insert(a.end(), {"--size", std::to_string(kSocketDirSizeMib * 1024 * 1024), "--tmpfs",
                       layout.writable});
  for (const HiddenPath& m : layout.masks)
    if (m.kind != HiddenPath::Kind::kFile) a.insert(a.end(), {"--remount-ro", m.path});
  // Last, the sandbox's root (bwrap's own tmpfs, of no size limit) becomes read-only: only /tmp
  // and the socket folder stay writable, and no folder on the way to the socket (/run) can be
  // replaced by a link the referee would follow.
  a.insert(a.end(), {"--remount-ro", "/"});
  a.insert(a.end(), {"--chdir", layout.working_dir.empty() ? "/tmp" : layout.working_dir, "--"});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

std::vector<std::string> bot_environment(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& extra) {
  // PYTHONUNBUFFERED: a Python bot's prints reach the capture as it prints them, so each lands
  // in the match that printed it (a pipe would hold them in a block buffer).
  std::vector<std::string> env = {"PATH=" + path, "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8",
                                  "PYTHONUNBUFFERED=1"};
  for (const auto& [key, value] : extra) {
    const std::string prefix = key + "=";
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(prefix); });
    env.push_back(prefix + value);
  }
  return env;
}

uint32_t bot_uid_base() {
  // Above every id an account or a container's mapping normally uses, below 2^31 (the kernel
  // takes ids up to 2^32 - 2) with room for every pid (pid_max is at most 2^22).
  return ::getuid() == 0 ? 0x60000000u : 0;
}

namespace {

// Whether bwrap takes --disable-userns: assumed until a trial sandbox says otherwise.
std::atomic<bool> g_disable_userns{true};

struct Probe {
  std::optional<std::string> problem;
  std::string bwrap;
  std::string version;
};

std::string find_in_path(const std::string& name) {
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(begin, end - begin);
    begin = end + 1;
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Runs `argv` as a bot would be run (sandbox settings of `spec`), waits for its exit and
// returns its output, or why it failed.
std::optional<std::string> trial(LaunchSpec spec, int* code, std::string* output) {
  std::string error;
  auto p = BotProcess::start(spec, &error);
  if (!p) return error;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  p->wait_for_exit(deadline);
  p->stop(std::chrono::milliseconds(0));
  *output = p->take_stderr();
  const std::optional<ExitStatus> status = p->exit_status();
  if (!status) return "the trial sandbox did not finish within 10 s";
  *code = status->signaled ? 128 + status->signal : status->code;
  return std::nullopt;
}

const Probe& probe() {
  static const Probe result = [] {
    Probe r;
    r.bwrap = find_bwrap();
    if (r.bwrap.empty()) {
      r.problem = "the bwrap program (bubblewrap) is not installed (not found in PATH)";
      return r;
    }
    // bwrap's version (for the logs) is asked while the trial sandbox runs: both are a
    // process start, and the referee waits for this before it starts any bot.
    LaunchSpec version;
    version.argv = {r.bwrap, "--version"};
    version.cgroups = false;
    int version_code = -1;
    std::string version_output;
    std::thread version_thread([&] {
      if (!trial(version, &version_code, &version_output)) {
        while (!version_output.empty() && version_output.back() == '\n') version_output.pop_back();
        r.version = version_output;
      }
    });
    LaunchSpec spec;
    spec.argv = {"/bin/true"};
    spec.sandbox = true;
    spec.clean_environment = true;
    spec.own_user = true;
    spec.limits = ResourceLimits{};
    // The trial asks whether bwrap works here; joining a v1 memory cgroup alone costs ~10 ms.
    spec.cgroups = false;
    int code = -1;
    std::string output;
    std::optional<std::string> why = trial(spec, &code, &output);
    if (!why && code != 0 && output.find("disable-userns") != std::string::npos) {
      // A bwrap before 0.8.0: without it, a user namespace stays possible inside.
      g_disable_userns = false;
      why = trial(spec, &code, &output);
    }
    version_thread.join();
    if (why) {
      r.problem = "a trial sandbox could not be started: " + *why;
    } else if (code != 0) {
      while (!output.empty() && output.back() == '\n') output.pop_back();
      r.problem = "a trial sandbox failed (" + r.bwrap + " exited with code " +
                  std::to_string(code) + (output.empty() ? "" : ": " + output) +
                  "); user namespaces are probably disabled or restricted on this machine";
    }
    return r;
  }();
  return result;
}

}  // namespace

std::string find_bwrap() {
  return find_in_path("bwrap");
}

bool bwrap_disables_userns() {
  return g_disable_userns.load();
}

std::optional<std::string> sandbox_problem() {
  return probe().problem;
}

std::string bwrap_path() {
  return probe().bwrap;
}

std::string bwrap_version() {
  return probe().version;
}

std::string sandbox_refusal(const std::string& problem, const std::string& program) {
  return program + ": cannot put the bots in a sandbox: " + problem +
         ".\nEvery bot the referee starts runs in a bubblewrap sandbox so that it cannot read "
         "the referee's files or the match logs, see or signal other processes, or use the "
         "network. To fix this, install bubblewrap (`apt-get install bubblewrap`; "
         "scripts/setup.sh does) and allow unprivileged user namespaces (sysctl "
         "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0). Only for bots "
         "you trust: --no-sandbox (or `sandbox: false` for a bot in a tournament file) starts "
         "them without it.\n";
}

std::string no_sandbox_warning(const std::string& program) {
  return program +
         ": warning: some bots run WITHOUT the sandbox (--no-sandbox or sandbox: false): they "
         "can read your files, see other processes and use the network. Their resource "
         "limits (but for the process limit where no pids cgroup can be made) and process "
         "groups still apply.\n";
}

}  // namespace allfives::referee
