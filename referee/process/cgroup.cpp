#include "process/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "process/referee_names.h"

namespace allfives::referee {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;
// How long remove() keeps killing what is left before it gives up on a folder: processes
// already sent SIGKILL leave their cgroup within milliseconds.
constexpr auto kRemoveTimeout = std::chrono::seconds(2);

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` in one write() (what cgroup files expect); 0 or the errno.
int write_text(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string words(int err) {
  const char* text = strerrordesc_np(err);
  return text != nullptr ? text : "error " + std::to_string(err);
}

std::string next_name() {
  static std::atomic<uint64_t> counter{0};
  return referee_name(std::to_string(counter++));
}

// Kills what is left in `folder` and removes it; false if it is still there after
// kRemoveTimeout (a process stuck in the kernel).
bool kill_and_rmdir(const std::string& folder) {
  const auto deadline = std::chrono::steady_clock::now() + kRemoveTimeout;
  // The processes just killed are usually gone within a millisecond: retry soon, then less often.
  auto pause = std::chrono::microseconds(250);
  for (;;) {
    if (::rmdir(folder.c_str()) == 0 || errno == ENOENT) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // v2 kills everything in one step; on v1 each process is killed by its pid.
    if (write_text(folder + "/cgroup.kill", "1") != 0) {
      std::istringstream procs(read_text(folder + "/cgroup.procs").value_or(""));
      for (long pid = 0; procs >> pid;)
        if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(5));
  }
}

// Folders allfives-<pid>-... in `parent` left by a referee process that is gone (one killed by
// SIGKILL cannot remove its own): removed if empty, as every bot in them died with it. Only
// folders kStaleAfter old: a referee in another PID namespace sharing this cgroup (its pid looks
// gone from here) may have just made one and not yet put its bot in.
void remove_stale(const std::string& parent) {
  DIR* d = ::opendir(parent.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  const time_t made_before = ::time(nullptr) - kStaleAfter.count();
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::optional<RefereeName> made = parse_referee_name(name);
    if (!made) continue;
    struct stat st {};
    if (::kill(made->pid, 0) != 0 && errno == ESRCH &&
        ::stat((parent + "/" + name).c_str(), &st) == 0 && st.st_mtime < made_before)
      stale.push_back(parent + "/" + name);
  }
  ::closedir(d);
  for (const std::string& folder : stale) ::rmdir(folder.c_str());  // EBUSY if not empty: kept
}

// On cgroup v1 the kernel (6.1 and later) turns its freezer's checks on when the first cgroup
// starts freezing and off when the last one thaws, and each turn rewrites kernel code on every
// CPU (a jump label): on this project's VM a freeze and thaw took 2.2 ms that way against 3 µs
// otherwise, with the other CPU interrupted too. So while a referee process runs it keeps one
// empty cgroup of its own frozen: freezing and thawing bots then never turns the checks off
// and on (they stay on, as whenever any bot is frozen). Removed by its maker at exit (a
// forked worker leaves its parent's alone), or swept by remove_stale() once its maker is gone.
class FrozenKeeper {
 public:
  // The folder kept frozen in `parent`, or "" if none could be (freezes are only slower).
  std::string keep(const std::string& parent) {
    const std::string folder = parent + "/" + referee_name("frozen");
    if (::mkdir(folder.c_str(), 0755) != 0) return "";
    if (write_text(folder + "/freezer.state", "FROZEN") != 0) {
      ::rmdir(folder.c_str());
      return "";
    }
    folder_ = folder;
    maker_ = ::getpid();
    return folder;
  }
  ~FrozenKeeper() {
    if (folder_.empty() || ::getpid() != maker_) return;
    write_text(folder_ + "/freezer.state", "THAWED");
    ::rmdir(folder_.c_str());
  }

 private:
  std::string folder_;
  pid_t maker_ = 0;
};

// Whether a cgroup for a bot can be made in `parent`, given a limit through `limit_file`, and
// joined as a bot joins it (a child writing "0" to `join_file`, see join_files()): makes one,
// tries, removes it. "" if so, else why not.
std::string try_cgroup(const std::string& parent, const std::string& limit_file,
                       const std::string& value, const std::string& join_file) {
  const std::string trial = parent + "/" + next_name();
  if (::mkdir(trial.c_str(), 0755) != 0)
    return "cannot make a cgroup in " + parent + ": " + words(errno);
  std::string why;
  if (const int err = write_text(trial + "/" + limit_file, value); err != 0) {
    why = "cannot set " + limit_file + " in a cgroup of " + parent + ": " + words(err);
  } else {
    const std::string join = trial + "/" + join_file;
    const pid_t child = ::fork();  // the child makes only async-signal-safe calls
    if (child == 0) {
      const int fd = ::open(join.c_str(), O_WRONLY | O_CLOEXEC);
      ::_exit(fd >= 0 && ::write(fd, "0", 1) == 1 ? 0 : (fd < 0 ? 1 : 2));
    }
    int status = 0;
    if (child < 0) {
      why = "cannot fork to try a cgroup: " + words(errno);
    } else if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
               WEXITSTATUS(status) != 0) {
      why = "a process cannot join a cgroup of " + parent + " (" + join_file + ")";
    }
  }
  ::rmdir(trial.c_str());
  return why;
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

// cgroup v2: the referee's own cgroup `own` must give the memory (and pids) controllers to
// its children, which it cannot while it holds processes: then the referee moves into a leaf
// of its own there first.
void detect_v2(const std::string& own, CgroupPlaces& places) {
  const std::string controllers = read_text(own + "/cgroup.controllers").value_or("");
  if (!has_word(controllers, "memory")) {
    places.why_not = "cgroup v2: the memory controller is not available in " + own;
    return;
  }
  const bool pids = has_word(controllers, "pids");
  const bool cpu = has_word(controllers, "cpu");
  const std::string enable = std::string("+memory") + (pids ? " +pids" : "") + (cpu ? " +cpu" : "");
  remove_stale(own);
  int err = write_text(own + "/cgroup.subtree_control", enable);
  if (err == EBUSY) {
    const std::string leaf = own + "/" + referee_name("referee");
    if (::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) {
      places.why_not = "cgroup v2: cannot make a cgroup in " + own + ": " + words(errno);
      return;
    }
    err = write_text(leaf + "/cgroup.procs", std::to_string(::getpid()));
    if (err == 0) err = write_text(own + "/cgroup.subtree_control", enable);
    if (err != 0) {
      write_text(own + "/cgroup.procs", std::to_string(::getpid()));  // back where it was
      ::rmdir(leaf.c_str());
    }
  }
  if (err != 0) {
    places.why_not = "cgroup v2: cannot give the memory controller to cgroups in " + own + ": " +
                     words(err) + " (other processes share the referee's cgroup?)";
    return;
  }
  places.why_not = try_cgroup(own, "memory.max", std::to_string(64 * kMiB), "cgroup.procs");
  if (!places.why_not.empty()) return;
  places.version = 2;
  places.memory_parent = own;
  if (pids) places.pids_parent = own;
  // Every cgroup below the root has cpu.stat and cgroup.freeze (Linux 5.2 and later; checked
  // again when a bot's cgroup is made).
  places.cpuacct_parent = own;
  places.freezer_parent = own;
  if (cpu) places.cpu_parent = own;
}

CgroupPlaces detect() {
  CgroupPlaces places;
  const auto proc = parse_proc_cgroup(read_text("/proc/self/cgroup").value_or(""));
  const auto mounts = parse_cgroup_mounts(read_text("/proc/self/mountinfo").value_or(""));
  // v1, where the memory controller is mounted as a v1 hierarchy (then it is not on v2).
  auto v1_folder = [&](const std::string& controller) -> std::string {
    const auto own = proc.find(controller);
    if (own == proc.end()) return "";
    for (const CgroupMount& m : mounts) {
      if (m.v2) continue;
      for (const std::string& c : m.controllers)
        if (c == controller) return cgroup_folder(m, own->second);
    }
    return "";
  };
  const std::string memory = v1_folder("memory");
  if (!memory.empty()) {
    remove_stale(memory);
    places.why_not =
        try_cgroup(memory, "memory.limit_in_bytes", std::to_string(64 * kMiB), "tasks");
    if (!places.why_not.empty()) return places;
    places.version = 1;
    places.memory_parent = memory;
    // The CPU guard's hierarchies and the CPU quota's, where they are mounted and usable.
    const auto usable = [&](const std::string& controller, const char* file, const char* value) {
      const std::string parent = v1_folder(controller);
      if (parent.empty()) return std::string();
      remove_stale(parent);
      return try_cgroup(parent, file, value, "tasks").empty() ? parent : std::string();
    };
    places.cpuacct_parent = usable("cpuacct", "cpuacct.usage", "0");
    places.freezer_parent = usable("freezer", "freezer.state", "THAWED");
    if (!places.freezer_parent.empty()) {
      static FrozenKeeper keeper;
      places.kept_frozen = keeper.keep(places.freezer_parent);
    }
    places.cpu_parent = usable("cpu", "cpu.cfs_period_us", "100000");
    const std::string pids = v1_folder("pids");
    if (pids.empty()) return places;
    remove_stale(pids);
    const std::string why = try_cgroup(pids, "pids.max", "64", "tasks");
    if (why.empty()) {
      places.pids_parent = pids;
    } else {
      places.why_not = why;
    }
    return places;
  }
  const auto unified = proc.find("");
  if (unified != proc.end()) {
    for (const CgroupMount& m : mounts) {
      if (!m.v2) continue;
      const std::string own = cgroup_folder(m, unified->second);
      if (own.empty()) continue;
      detect_v2(own, places);
      return places;
    }
  }
  places.why_not = "no memory cgroup hierarchy is mounted (/proc/self/mountinfo)";
  return places;
}

}  // namespace

void remove_stale_cgroups(const std::string& parent) {
  remove_stale(parent);
}

const CgroupPlaces& cgroup_places() {
  static const CgroupPlaces places = detect();
  return places;
}

std::map<std::string, std::string> parse_proc_cgroup(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string list = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (list.empty()) {
      out[""] = path;
      continue;
    }
    std::istringstream names(list);
    for (std::string name; std::getline(names, name, ',');) out[name] = path;
  }
  return out;
}

std::vector<CgroupMount> parse_cgroup_mounts(const std::string& mountinfo) {
  // "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
  std::vector<CgroupMount> out;
  std::istringstream in(mountinfo);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    std::string word;
    while (fields >> word && word != "-") {
    }
    std::string type, source, super;
    if (!(fields >> type >> source >> super)) continue;
    if (type != "cgroup" && type != "cgroup2") continue;
    CgroupMount m;
    m.root = root;
    m.mount_point = point;
    m.v2 = type == "cgroup2";
    if (!m.v2) {
      std::istringstream options(super);
      for (std::string o; std::getline(options, o, ',');)
        if (o != "rw" && o != "ro" && !o.starts_with("name=") && o.find('=') == std::string::npos)
          m.controllers.push_back(o);
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string cgroup_folder(const CgroupMount& mount, const std::string& path) {
  std::string rest;
  if (mount.root == "/") {
    rest = path;
  } else if (path == mount.root) {
    rest = "/";
  } else if (path.starts_with(mount.root + "/")) {
    rest = path.substr(mount.root.size());
  } else {
    return "";
  }
  while (rest.size() > 1 && rest.back() == '/') rest.pop_back();
  return rest == "/" ? mount.mount_point : mount.mount_point + rest;
}

uint64_t counter_in(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string k;
    uint64_t value = 0;
    if (fields >> k >> value && k == key) return value;
  }
  return 0;
}

std::unique_ptr<BotCgroup> BotCgroup::create(const CgroupPlaces& places, uint64_t memory_mib,
                                             uint32_t processes, const CpuCgroupOptions& cpu,
                                             std::string* error) {
  std::unique_ptr<BotCgroup> g(new BotCgroup());
  g->version_ = places.version;
  const bool want_memory = memory_mib != 0 && !places.memory_parent.empty();
  const bool want_pids = processes != 0 && !places.pids_parent.empty();
  const bool want_watch =
      cpu.watch && !places.cpuacct_parent.empty() && !places.freezer_parent.empty();
  const bool want_quota = cpu.cpu_percent != 0 && !places.cpu_parent.empty();
  const std::string name = next_name();
  auto make = [&](const std::string& parent) -> std::string {
    const std::string folder = parent + "/" + name;
    for (const std::string& f : g->folders_)
      if (f == folder) return folder;
    if (::mkdir(folder.c_str(), 0755) != 0) {
      *error = "cannot make the cgroup " + folder + ": " + words(errno);
      return "";
    }
    g->folders_.push_back(folder);
    return folder;
  };
  auto set = [&](const std::string& folder, const std::string& file, const std::string& value) {
    const int err = write_text(folder + "/" + file, value);
    if (err != 0) *error = "cannot set " + folder + "/" + file + " to " + value + ": " + words(err);
    return err == 0;
  };
  const std::string bytes = std::to_string(memory_mib * kMiB);
  if (want_memory) {
    g->memory_ = make(places.memory_parent);
    if (g->memory_.empty()) return nullptr;
    if (places.version == 1) {
      // The swap limit counts memory and swap together: equal to the memory limit, no swap.
      if (!set(g->memory_, "memory.limit_in_bytes", bytes)) return nullptr;
      if (exists(g->memory_ + "/memory.memsw.limit_in_bytes") &&
          !set(g->memory_, "memory.memsw.limit_in_bytes", bytes))
        return nullptr;
    } else {
      if (!set(g->memory_, "memory.max", bytes)) return nullptr;
      if (exists(g->memory_ + "/memory.swap.max") && !set(g->memory_, "memory.swap.max", "0"))
        return nullptr;
    }
  }
  if (want_pids) {
    g->pids_ = make(places.pids_parent);
    if (g->pids_.empty() || !set(g->pids_, "pids.max", std::to_string(processes))) return nullptr;
  }
  if (want_watch) {
    g->cpuacct_ = make(places.cpuacct_parent);
    g->freezer_ = make(places.freezer_parent);
    if (g->cpuacct_.empty() || g->freezer_.empty()) return nullptr;
    const bool v2 = places.version == 2;
    g->usage_fd_ =
        ::open((g->cpuacct_ + (v2 ? "/cpu.stat" : "/cpuacct.usage")).c_str(), O_RDONLY | O_CLOEXEC);
    g->freeze_fd_ = ::open((g->freezer_ + (v2 ? "/cgroup.freeze" : "/freezer.state")).c_str(),
                           O_WRONLY | O_CLOEXEC);
    if (g->usage_fd_ < 0 || g->freeze_fd_ < 0) {
      // A kernel without them (v2 before 5.2): the bot goes unwatched.
      g->cpuacct_.clear();
      g->freezer_.clear();
    }
  }
  if (want_quota) {
    g->cpu_ = make(places.cpu_parent);
    if (g->cpu_.empty()) return nullptr;
    const std::string quota = std::to_string(uint64_t{cpu.cpu_percent} * 1000);
    if (places.version == 2 ? !set(g->cpu_, "cpu.max", quota + " 100000")
                            : !set(g->cpu_, "cpu.cfs_period_us", "100000") ||
                                  !set(g->cpu_, "cpu.cfs_quota_us", quota))
      return nullptr;
  }
  return g;  // on a failure above, the destructor removed what was made
}

LimitMechanism BotCgroup::freezer_by() const {
  if (freezer_.empty()) return LimitMechanism::kNone;
  return version_ == 2 ? LimitMechanism::kCgroupV2 : LimitMechanism::kCgroupV1;
}

LimitMechanism BotCgroup::cpu_by() const {
  if (cpu_.empty()) return LimitMechanism::kNone;
  return version_ == 2 ? LimitMechanism::kCgroupV2 : LimitMechanism::kCgroupV1;
}

std::optional<uint64_t> BotCgroup::cpu_time_us() const {
  if (usage_fd_ < 0 || removed_) return std::nullopt;
  char buffer[256];
  const ssize_t n = ::pread(usage_fd_, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return std::nullopt;
  buffer[n] = '\0';
  if (version_ == 2) return counter_in(buffer, "usage_usec");
  return std::strtoull(buffer, nullptr, 10) / 1000;  // cpuacct.usage counts nanoseconds
}

bool BotCgroup::set_frozen(bool frozen) {
  if (freeze_fd_ < 0 || removed_) return false;
  if (frozen == frozen_) return true;
  const char* text = version_ == 2 ? (frozen ? "1" : "0") : (frozen ? "FROZEN" : "THAWED");
  if (::pwrite(freeze_fd_, text, std::strlen(text), 0) < 0) return false;
  frozen_ = frozen;
  return true;
}

std::string BotCgroup::thaw_file() const {
  if (freezer_.empty()) return "";
  return freezer_ + (version_ == 2 ? "/cgroup.freeze" : "/freezer.state");
}

const char* BotCgroup::thaw_text() const {
  return version_ == 2 ? "0" : "THAWED";
}

BotCgroup::~BotCgroup() {
  remove();
}

LimitMechanism BotCgroup::memory_by() const {
  if (memory_.empty()) return LimitMechanism::kNone;
  return version_ == 2 ? LimitMechanism::kCgroupV2 : LimitMechanism::kCgroupV1;
}

LimitMechanism BotCgroup::processes_by() const {
  if (pids_.empty()) return LimitMechanism::kNone;
  return version_ == 2 ? LimitMechanism::kCgroupV2 : LimitMechanism::kCgroupV1;
}

std::vector<std::string> BotCgroup::procs_files() const {
  std::vector<std::string> out;
  for (const std::string& f : folders_) out.push_back(f + "/cgroup.procs");
  return out;
}

uint64_t BotCgroup::oom_kills() const {
  if (removed_ || memory_.empty()) return final_oom_kills_;
  const std::string file = version_ == 2 ? "/memory.events" : "/memory.oom_control";
  return counter_in(read_text(memory_ + file).value_or(""), "oom_kill");
}

uint64_t BotCgroup::process_limit_hits() const {
  if (removed_ || pids_.empty()) return final_limit_hits_;
  return counter_in(read_text(pids_ + "/pids.events").value_or(""), "max");
}

std::vector<std::string> BotCgroup::join_files() const {
  std::vector<std::string> out;
  for (const std::string& f : folders_)
    out.push_back(f + (version_ == 2 ? "/cgroup.procs" : "/tasks"));
  return out;
}

void BotCgroup::remove() {
  if (removed_) return;
  final_oom_kills_ = oom_kills();
  final_limit_hits_ = process_limit_hits();
  // A frozen process cannot die (v1): thawed first, to be killed with the rest.
  set_frozen(false);
  for (int* fd : {&usage_fd_, &freeze_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  removed_ = true;
  for (const std::string& folder : folders_) kill_and_rmdir(folder);
}

}  // namespace allfives::referee
