// A test bot that tries, outside the protocol, what a hostile bot author would: spy on the
// referee, read its files, hurt other processes, escape, exhaust the machine, reach the
// network. It plays legal moves (the first legal play) and, at its first decision, does what
// --mode says and reports every attempt on stderr, one line each:
//   "GOT <what>: <data>"      the attempt succeeded (and what it learned)
//   "BLOCKED <what>: <why>"   the attempt failed
// The end-to-end tests (tests/e2e/sandbox_test.cpp) read those lines in the match log's
// captured output, and check from outside that nothing was hurt.
//
//   hostile_bot --listen ADDRESS --mode MODE [--targets-file F] [--marker M] [--think-ms N]
// Targets (paths or addresses) come one per line from --targets-file, not as arguments: the
// sandbox lets a bot read the folder of every path among its arguments, as the user who wrote
// the command line meant.
// Modes:
//   spy            read the parent's and every visible process's cmdline and environ
//   read-files     list and read every --target and logs/ (folders, with all they hold
//                  three levels down, and files)
//   kill-others    SIGKILL every visible process but itself and its sandbox's init, and its
//                  parent
//   escape         double-fork a child that calls setsid, ignores SIGTERM and sleeps forever
//                  under the argv "hostile_bot --escapee --marker M" (the test looks for M)
//   fork-bomb      fork children that wait, until fork fails (at most --max-forks), then
//                  report and abort
//   eat-memory     allocate and touch 64 MiB blocks on a thread until allocation fails (at
//                  most --max-mib), then let std::bad_alloc end the process
//   eat-memory-in-handler  the same in choose_play itself, so the SDK sees the std::bad_alloc
//   forge-limit    write to stderr and stdout the words runtimes write when an allocation or a
//                  fork fails at a limit (std::bad_alloc, MemoryError, "Cannot allocate
//                  memory", "fork: Resource temporarily unavailable"...), far from any limit,
//                  then abort: a referee that read them would name a limit never reached
//   forge-limit-illegal  the same words, then answer with a tile it does not hold (a fault that
//                  is not a crash, whose reason a referee reading them would extend)
//   forge-limit-fork-bomb  the words of a failed allocation, then fork-bomb: a referee that read
//                  them would name the memory limit and hide the process limit reached
//   connect        connect to each --target: host:port (TCP) or a Unix socket path, or send a
//                  datagram to dgram:PATH (a Unix datagram socket, reached without connect)
//   write-files    create a file in each --target folder, then one in /tmp
//   link-socket    before it serves, put a symbolic link to the first --target (a Unix socket
//                  outside its sandbox) where its --listen socket should be, and serve on
//                  another socket in the same folder: a referee that followed the link would
//                  talk to that target instead
//   fill-socket-folder  write files of 2 MiB into the folder of its own --listen socket (the
//                  one folder outside /tmp it may write), up to --max-mib in all or until a
//                  write fails, and keep them; reports how much it wrote
//   new-namespace  make a user namespace of its own (unshare(CLONE_NEWUSER)), the way in to much
//                  of the kernel's namespace code
//   host-activity  read the host-wide /proc files that change with what other processes do
//                  (/proc/loadavg, /proc/meminfo, /proc/stat, /proc/vmstat, /proc/pressure/cpu,
//                  /proc/uptime's idle time, /proc/sys/fs's counts of files, inodes, dentries
//                  and AIO contexts):
//                  a partner could signal through them by loading the machine; and the command
//                  line of its /proc's first process (the sandbox's bwrap: are the host paths it
//                  binds and covers there?)
//   hog            from its first match on, keep --threads threads spinning: a CPU thief, they
//                  run while its opponents think unless the referee stops them (the tests read
//                  the referee's count of its CPU during other seats' turns in the log)
//   print          at every decision and at each match's end, print a line naming the match and
//                  the decision to stdout (with printf, as a bot author would) and to stderr;
//                  at its process's first decision also a line that looks like the capture's
//                  mark of dropped bytes, "[... 999999 bytes dropped]"
//   hello-escapes  say a Hello whose name and version carry terminal escape sequences (window
//                  title, clipboard, clear screen)
//   startup-escapes  write those sequences to stderr and exit before serving (a start-up
//                  failure quotes what the bot printed)
//   remember-deals remember, across the matches its process plays, every hand it was dealt and
//                  every tile each other seat held (played or revealed at the hand's end); at
//                  each hand start, a hand dealt before (the same deals again, at the same seat)
//                  or a hand another seat held before (the other rotation of a mirrored pair)
//                  means it knows its opponents' tiles: "GOT known hand: ..." for each, and at
//                  the match's end "GOT hands known: K of N in match ID" or "BLOCKED hands known:
//                  0 of N in match ID"
#include <allfives/bot/bot.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string mode = "none";
  std::string targets_file;
  std::vector<std::string> targets;
  std::string marker;
  int max_forks = 400;
  int max_mib = 8192;
  int think_ms = 0;
  std::string data;
  int threads = 4;
};
Options g_options;

void report(bool got, const std::string& what, const std::string& detail) {
  std::string line = (got ? "GOT " : "BLOCKED ") + what + ": " + detail + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::string errno_text() {
  return std::strerror(errno);
}

// A file's content with NULs as spaces (cmdline and environ are NUL-separated), or nullopt.
bool read_whole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  for (char& c : *out)
    if (c == '\0') c = ' ';
  return true;
}

std::vector<int> visible_pids() {
  std::vector<int> pids;
  DIR* d = opendir("/proc");
  if (d == nullptr) return pids;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0') pids.push_back(static_cast<int>(pid));
  }
  closedir(d);
  return pids;
}

void spy() {
  const int parent = getppid();
  for (const char* file : {"cmdline", "environ"}) {
    const std::string path = "/proc/" + std::to_string(parent) + "/" + file;
    std::string data;
    if (read_whole(path, &data)) {
      report(true, "parent " + path, data);
    } else {
      report(false, "parent " + path, errno_text());
    }
  }
  std::string all;
  for (int pid : visible_pids()) {
    std::string cmdline;
    std::string environ;
    if (read_whole("/proc/" + std::to_string(pid) + "/cmdline", &cmdline))
      all += "[" + std::to_string(pid) + "] " + cmdline + "\n";
    if (read_whole("/proc/" + std::to_string(pid) + "/environ", &environ) && !environ.empty())
      all += "[" + std::to_string(pid) + " env] " + environ + "\n";
  }
  report(true, "processes seen", std::to_string(visible_pids().size()) + "\n" + all);
}

// Lists a folder and everything in it (`depth` levels down), reads a file.
void read_target(const std::string& target, int depth) {
  if (DIR* d = opendir(target.c_str())) {
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) names.emplace_back(e->d_name);
    closedir(d);
    std::string listed;
    for (const std::string& name : names) listed += name + " ";
    report(true, "list " + target, listed);
    if (depth > 0)
      for (const std::string& name : names)
        if (name != "." && name != "..") read_target(target + "/" + name, depth - 1);
    return;
  }
  std::string data;
  bool read = read_whole(target, &data);
  // A match log the referee has not written to yet is empty: a spy waits for it (up to 1 s).
  const bool log = target.size() > 6 && target.ends_with(".jsonl");
  for (int i = 0; log && read && data.empty() && i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    read = read_whole(target, &data);
  }
  if (read) {
    report(true, "read " + target, data.substr(0, 4096));
  } else {
    report(false, "open " + target, errno_text());
  }
}

void read_files() {
  // The default log folder of `referee match` is logs/ in its working folder, which is the
  // bot's too.
  std::vector<std::string> targets = g_options.targets;
  targets.push_back("logs");
  for (const std::string& target : targets) read_target(target, 3);
}

void kill_others() {
  const int self = getpid();
  int killed = 0;
  std::string failed;
  for (int pid : visible_pids()) {
    if (pid == self || pid == 1) continue;
    if (kill(pid, SIGKILL) == 0) {
      ++killed;
      report(true, "kill " + std::to_string(pid), "SIGKILL sent");
    } else {
      failed += std::to_string(pid) + " (" + errno_text() + ") ";
    }
  }
  const int parent = getppid();
  if (parent != 1 && kill(parent, SIGKILL) == 0) {
    report(true, "kill parent " + std::to_string(parent), "SIGKILL sent");
  } else {
    report(false, "kill parent " + std::to_string(parent),
           parent == 1 ? "it is init" : errno_text());
  }
  report(killed > 0, "kill others", std::to_string(killed) + " killed; failed: " + failed);
}

[[noreturn]] void escapee() {
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  for (;;) pause();
}

void escape(const char* self) {
  const pid_t child = fork();
  if (child < 0) {
    report(false, "fork", errno_text());
    return;
  }
  if (child == 0) {
    setsid();
    if (fork() != 0) _exit(0);  // the grandchild is re-parented, in a session of its own
    signal(SIGTERM, SIG_IGN);
    // Under an argv the test can find from outside.
    const std::string marker = g_options.marker;
    execl(self, self, "--escapee", "--marker", marker.c_str(), static_cast<char*>(nullptr));
    escapee();
  }
  waitpid(child, nullptr, 0);
  report(true, "escape", "a setsid grandchild ignoring SIGTERM is running");
}

[[noreturn]] void fork_bomb() {
  int forked = 0;
  for (; forked < g_options.max_forks; ++forked) {
    const pid_t pid = fork();
    if (pid < 0) {
      const std::string why = errno_text();
      report(false, "fork bomb", "fork number " + std::to_string(forked + 1) + " failed: " + why);
      std::fprintf(stderr, "fork: %s\n", why.c_str());
      std::abort();
    }
    if (pid == 0) {
      for (;;) pause();  // waits, using no CPU, until the sandbox or the group is killed
    }
  }
  report(true, "fork bomb", std::to_string(forked) + " processes forked without a limit");
  std::abort();
}

void forge_limit_words() {
  const char* words =
      "terminate called after throwing an instance of 'std::bad_alloc'\n"
      "  what():  std::bad_alloc\n"
      "MemoryError\n"
      "Cannot allocate memory\n"
      "out of memory\n"
      "fork: Resource temporarily unavailable\n"
      "BlockingIOError: [Errno 11] Resource temporarily unavailable (thread, clone, "
      "system_error)\n";
  std::fputs(words, stderr);
  std::fflush(stderr);
  std::fputs(words, stdout);
  std::fflush(stdout);
  report(true, "forged limit words", "written");
}

// A tile the seat does not hold.
allfives::Play not_held(const allfives::View& view) {
  for (int i = 0; i < allfives::kNumTiles; ++i) {
    const allfives::Tile t = allfives::Tile::from_index(i);
    if (!view.hand().contains(t)) return allfives::Play{t, allfives::End::kRight};
  }
  return view.legal_plays()[0];
}

// On a thread of its own (eat-memory), as in a bot's own worker thread, the std::bad_alloc at
// an address-space limit ends the process uncaught; in choose_play (eat-memory-in-handler) the
// SDK catches it and ends the process itself. Under a memory cgroup the kernel kills the
// process first.
[[noreturn]] void eat_memory_now() {
  constexpr size_t kBlock = 64u << 20;
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int mib = 0; mib < g_options.max_mib; mib += 64) {
    blocks.emplace_back(new char[kBlock]);  // throws std::bad_alloc at the limit: not caught
    std::memset(blocks.back().get(), 1, kBlock);
    if (blocks.size() % 4 == 0) report(true, "memory", std::to_string(mib + 64) + " MiB in use");
  }
  report(true, "memory", std::to_string(g_options.max_mib) + " MiB allocated without a limit");
  std::abort();
}

void send_datagram(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (fd < 0) {
    report(false, "datagram socket for " + path, errno_text());
    return;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  const char message[] = "hostile";
  if (sendto(fd, message, sizeof message, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) >=
      0) {
    report(true, "send datagram " + path, "sent");
  } else {
    report(false, "send datagram " + path, errno_text());
  }
  close(fd);
}

void connect_to(const std::string& target) {
  if (target.rfind("dgram:", 0) == 0) {
    send_datagram(target.substr(6));
    return;
  }
  const auto colon = target.rfind(':');
  if (target[0] != '/' && colon != std::string::npos) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
      report(false, "tcp socket", errno_text());
      return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(std::atoi(target.c_str() + colon + 1)));
    inet_pton(AF_INET, target.substr(0, colon).c_str(), &addr.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      report(true, "connect tcp " + target, "connected");
    } else {
      report(false, "connect tcp " + target, errno_text());
    }
    close(fd);
    return;
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", target.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    report(true, "connect unix " + target, "connected");
  } else {
    report(false, "connect unix " + target, errno_text());
  }
  close(fd);
}

void write_files() {
  std::vector<std::string> folders = g_options.targets;
  folders.push_back("/tmp");
  for (const std::string& folder : folders) {
    // --marker makes the name one no other test or run writes (the unsandboxed twin's lands
    // in the host's /tmp).
    const std::string name =
        "hostile-was-here" + (g_options.marker.empty() ? "" : "-" + g_options.marker);
    const std::string path = (folder == "/" ? "" : folder) + "/" + name;
    if (std::FILE* f = std::fopen(path.c_str(), "w")) {
      std::fputs("hostile\n", f);
      std::fclose(f);
      report(true, "write " + path, "written");
    } else {
      report(false, "write " + path, errno_text());
    }
  }
}

std::string g_self;
std::string g_listen;  // --listen's value

void fill_socket_folder() {
  if (g_listen.rfind("unix:", 0) != 0) {
    report(false, "fill socket folder", "not listening on a Unix socket: " + g_listen);
    return;
  }
  const std::string path = g_listen.substr(5);
  const std::string folder = path.substr(0, path.rfind('/'));
  constexpr size_t kFile = 2u << 20;
  const std::vector<char> block(kFile, 'x');
  size_t written = 0;
  std::string stopped = "nothing stopped it";
  for (int i = 0; written < static_cast<size_t>(g_options.max_mib) << 20; ++i) {
    const std::string file = folder + "/fill-" + std::to_string(i);
    std::FILE* f = std::fopen(file.c_str(), "w");
    if (f == nullptr) {
      stopped = "file " + std::to_string(i) + ": " + errno_text();
      break;
    }
    const size_t n = std::fwrite(block.data(), 1, block.size(), f);
    const int err = n == block.size() && std::fflush(f) == 0 ? 0 : errno;
    std::fclose(f);
    written += n;
    if (err != 0) {
      stopped = "file " + std::to_string(i) + ": " + std::strerror(err);
      break;
    }
  }
  // Whole MiB written, rounded down, so a test can compare it with the folder's size.
  const std::string mib = std::to_string(written >> 20);
  report(written >= static_cast<size_t>(g_options.max_mib) << 20, "fill socket folder " + folder,
         "wrote " + mib + " MiB (" + stopped + ")");
}

// remember-deals: what every match of this process showed it, kept across matches.
struct DealMemory {
  std::mutex mu;
  std::vector<allfives::TileSet> dealt;  // its own hands, as dealt
  std::vector<allfives::TileSet> held;   // another seat's tiles in one hand: played or revealed
};
DealMemory g_memory;

class Rememberer {
 public:
  void start(const allfives::bot::MatchInfo& m) {
    id_ = m.match_id;
    seat_ = m.seat;
  }
  void hand_start(const allfives::bot::HandStartInfo& h) {
    played_ = {};
    ++hands_;
    std::lock_guard lock(g_memory.mu);
    const auto& d = g_memory.dealt;
    const bool again = std::find(d.begin(), d.end(), h.tiles) != d.end();
    const bool theirs = std::any_of(g_memory.held.begin(), g_memory.held.end(),
                                    [&](allfives::TileSet t) { return (h.tiles - t).empty(); });
    if (again || theirs) {
      ++known_;
      report(true, "known hand",
             "match " + id_ + " hand " + std::to_string(h.hand_index) +
                 (again ? ": dealt to me before" : ": held by another seat before"));
    }
    g_memory.dealt.push_back(h.tiles);
  }
  void event(const allfives::bot::PublicEvent& e) {
    if (e.kind == allfives::EventKind::kPlay && e.seat != seat_) played_[e.seat].add(e.play.tile);
  }
  void hand_end(const allfives::bot::HandEndInfo& h) {
    std::lock_guard lock(g_memory.mu);
    for (int seat = 0; seat < allfives::kMaxPlayers; ++seat)
      if (seat != seat_ && !(played_[seat] | h.hands[seat]).empty())
        g_memory.held.push_back(played_[seat] | h.hands[seat]);
  }
  void end() {
    report(known_ > 0, "hands known",
           std::to_string(known_) + " of " + std::to_string(hands_) + " in match " + id_);
  }

 private:
  std::string id_;
  int seat_ = 0;
  int hands_ = 0;
  int known_ = 0;
  std::array<allfives::TileSet, allfives::kMaxPlayers> played_{};
};

void new_namespace() {
  // In a child, so that the bot itself stays as it was.
  const pid_t child = fork();
  if (child == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
  int status = 0;
  waitpid(child, &status, 0);
  const int err = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  report(err == 0, "user namespace", err == 0 ? "made one" : std::strerror(err));
}

void read_host_activity() {
  for (const char* file :
       {"/proc/loadavg", "/proc/meminfo", "/proc/stat", "/proc/vmstat", "/proc/pressure/cpu",
        "/proc/uptime", "/proc/sys/fs/aio-nr", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
        "/proc/sys/fs/dentry-state", "/proc/timer_list", "/proc/slabinfo", "/proc/vmallocinfo",
        "/proc/pagetypeinfo"}) {
    std::string data;
    const bool got = read_whole(file, &data) && !data.empty();
    report(got, std::string("host activity ") + file,
           got ? data.substr(0, data.find('\n')) : errno_text());
  }
  std::string init;
  const bool got = read_whole("/proc/1/cmdline", &init);
  report(got, "init cmdline", got ? init : errno_text());
}

void start_hog_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int i = 0; i < g_options.threads; ++i)
      std::thread([] {
        volatile uint64_t spin = 0;
        for (;;) spin = spin + 1;
      }).detach();
  });
}

class Hostile final : public allfives::bot::Bot {
  void on_match_start(const allfives::bot::MatchInfo& m) override {
    memory_.start(m);
    id_ = m.match_id;
    if (g_options.mode == "hog") start_hog_threads();
  }
  void on_hand_start(const allfives::bot::HandStartInfo& h) override {
    if (g_options.mode == "remember-deals") memory_.hand_start(h);
  }
  void on_event(const allfives::bot::PublicEvent& e) override { memory_.event(e); }
  void on_hand_end(const allfives::bot::HandEndInfo& h) override {
    if (g_options.mode == "remember-deals") memory_.hand_end(h);
  }
  void on_match_end(const allfives::bot::MatchEndInfo&) override {
    if (g_options.mode == "remember-deals") memory_.end();
    if (g_options.mode == "print") std::printf("stdout: match %s over\n", id_.c_str());
  }
  Rememberer memory_;
  std::string id_;
  int decisions_ = 0;

  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    if (g_options.mode == "print") {
      static bool forged = false;
      if (!forged) std::fputs("\n[... 999999 bytes dropped]\n", stderr);
      forged = true;
      ++decisions_;
      std::printf("stdout: match %s decision %d\n", id_.c_str(), decisions_);
      std::fprintf(stderr, "stderr: match %s decision %d\n", id_.c_str(), decisions_);
    }
    static bool done = false;
    if (!done) {
      done = true;
      std::ifstream in(g_options.targets_file);
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) g_options.targets.push_back(line);
      const std::string& m = g_options.mode;
      if (m == "spy") spy();
      if (m == "read-files") read_files();
      if (m == "kill-others") kill_others();
      if (m == "escape") escape(g_self.c_str());
      if (m == "fork-bomb") fork_bomb();
      if (m.starts_with("forge-limit")) forge_limit_words();
      if (m == "forge-limit") std::abort();
      if (m == "forge-limit-illegal") return not_held(view);
      if (m == "forge-limit-fork-bomb") fork_bomb();
      if (m == "eat-memory") std::thread(eat_memory_now).join();
      if (m == "eat-memory-in-handler") eat_memory_now();
      if (m == "connect")
        for (const std::string& t : g_options.targets) connect_to(t);
      if (m == "write-files") write_files();
      if (m == "fill-socket-folder") fill_socket_folder();
      if (m == "new-namespace") new_namespace();
      if (m == "host-activity") read_host_activity();
    }
    if (g_options.think_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(g_options.think_ms));
    return view.legal_plays()[0];
  }
};

}  // namespace

int main(int argc, char** argv) {
  g_self = "/proc/self/exe";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--escapee") escapee();
  std::vector<char*> args(argv, argv + argc);
  std::string mode, targets_file, served;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--listen") g_listen = argv[i + 1];
    if (arg == "--mode") mode = argv[i + 1];
    if (arg == "--targets-file") targets_file = argv[i + 1];
  }
  if (mode == "link-socket" && g_listen.rfind("unix:", 0) == 0) {
    const std::string path = g_listen.substr(5);
    std::ifstream in(targets_file);
    std::string target;
    std::getline(in, target);
    served = "unix:" + path.substr(0, path.rfind('/')) + "/served.sock";
    // The report is written before the link takes the socket's place (a rename), so the
    // referee, which stops the bot on seeing the link, cannot stop it before it is written.
    const std::string staged = path + ".staged";
    if (symlink(target.c_str(), staged.c_str()) == 0) {
      report(true, "link socket " + path, "links to " + target);
      if (rename(staged.c_str(), path.c_str()) != 0)
        report(false, "link socket " + path + " (rename)", errno_text());
    } else {
      report(false, "link socket " + path, errno_text());
    }
    for (char*& a : args)
      if (a == g_listen) a = served.data();
  }
  // Escape sequences that set the window's title, write the clipboard (OSC 52) and clear the
  // screen of whoever reads the referee's output on a terminal.
  static const std::string escapes = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J";
  if (mode == "startup-escapes") {
    std::fputs(("dying words " + escapes + "\n").c_str(), stderr);
    return 1;
  }
  const allfives::bot::BotIdentity identity =
      mode == "hello-escapes" ? allfives::bot::BotIdentity{"evil" + escapes, "1.0" + escapes}
                              : allfives::bot::BotIdentity{"hostile", "1.0"};
  return allfives::bot::run(
      static_cast<int>(args.size()), args.data(), identity,
      [](const allfives::bot::MatchInfo&) { return std::make_unique<Hostile>(); },
      [](CLI::App& app) {
        app.add_option("--mode", g_options.mode, "What to try at the first decision");
        app.add_option("--targets-file", g_options.targets_file,
                       "A file of paths or addresses to try, one per line");
        app.add_option(
            "--marker", g_options.marker,
            "A word in the escaped child's argv, and in the name of the files write-files writes");
        app.add_option("--max-forks", g_options.max_forks, "fork-bomb: at most this many");
        app.add_option("--max-mib", g_options.max_mib,
                       "eat-memory, fill-socket-folder: at most this much");
        app.add_option("--think-ms", g_options.think_ms, "Wait this long at every decision");
        app.add_option("--data", g_options.data, "A data folder, as a bot's argument (unused)");
        app.add_option("--threads", g_options.threads, "hog: spinning threads");
      });
}
