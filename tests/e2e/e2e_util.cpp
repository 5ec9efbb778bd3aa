#include "e2e/e2e_util.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/temp_dir.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "replay/replay.h"
#include "tournament/index_file.h"

namespace allfives::e2e {

RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds deadline) {
  referee::LaunchSpec spec;
  spec.argv = argv;
  spec.stderr_cap_bytes = 1 << 20;
  std::string error;
  auto p = referee::BotProcess::start(spec, &error);
  RunResult r;
  if (!p) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << error;
    return r;
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (p->running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool exited = !p->running();
  p->stop(std::chrono::milliseconds(500));
  r.output = p->take_stderr();
  if (!exited) {
    ADD_FAILURE() << argv[0] << " did not finish within " << deadline.count() << " ms; output:\n"
                  << r.output;
    return r;
  }
  const auto st = p->exit_status();
  r.exit_code = st && !st->signaled ? st->code : 128 + (st ? st->signal : 0);
  return r;
}

RunResult run_in_terminal(const std::vector<std::string>& argv,
                          std::chrono::milliseconds deadline) {
  RunResult r;
  winsize ws{};
  ws.ws_row = 50;
  ws.ws_col = 200;
  int fd = -1;
  const pid_t pid = ::forkpty(&fd, nullptr, nullptr, &ws);
  if (pid < 0) {
    ADD_FAILURE() << "forkpty: " << std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 100))) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the program and its children closed the terminal
    r.output.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  bool exited = false;
  while (!(exited = ::waitpid(pid, &status, WNOHANG) == pid) &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << argv[0] << " did not finish within " << deadline.count() << " ms; output:\n"
                  << r.output;
    ::close(fd);
    return r;
  }
  ::close(fd);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string temp_dir(const std::string& name) {
  // One folder for the run's tests, removed at exit; bots running as their own users enter it.
  static const allfives::testing::TempDir base("allfives-e2e",
                                               allfives::testing::TempDir::kOpenToAll);
  const std::string dir = base.file(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string targets_file(const std::string& name, const std::vector<std::string>& targets) {
  const std::string path = temp_dir(name + "-targets") + "/targets.txt";
  std::ofstream out(path);
  for (const std::string& t : targets) out << t << "\n";
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string normalized_index(const std::string& out_dir) {
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_TRUE(referee::read_index(out_dir + "/index.jsonl", false, entries, notes, &error))
      << error;
  EXPECT_TRUE(notes.empty()) << notes.front();
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.match().ordinal() < b.match().ordinal(); });
  std::string out;
  for (auto& e : entries) {
    e.clear_duration_ms();
    e.clear_timing();  // wall-clock decision times
    out += referee::to_json_line(e) + "\n";
  }
  return out;
}

std::vector<v1::LogRecord> read_log(const std::string& path) {
  std::vector<v1::LogRecord> out;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no log at " << path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    v1::LogRecord r;
    std::string error;
    EXPECT_TRUE(referee::from_json_line(line, &r, &error))
        << path << ":" << number << ": " << error << "\n"
        << line;
    EXPECT_NE(r.kind_case(), v1::LogRecord::KIND_NOT_SET) << path << ":" << number;
    out.push_back(r);
  }
  return out;
}

const v1::LogRecord& only(const std::vector<v1::LogRecord>& log, v1::LogRecord::KindCase kind) {
  const v1::LogRecord* found = nullptr;
  int count = 0;
  for (const auto& r : log)
    if (r.kind_case() == kind) {
      found = &r;
      ++count;
    }
  EXPECT_EQ(count, 1) << "records of kind " << kind;
  static const v1::LogRecord empty;
  return found ? *found : empty;
}

// The check is referee verify's: the log, written back line by line exactly as the referee
// writes it, is re-played with the rules core by load_replay, which checks every deal, play,
// draw, pass, score, hand end and the match end, and names the first disagreement.
void expect_log_follows_rules(const std::vector<v1::LogRecord>& log) {
  std::string text;
  for (const auto& r : log) text += referee::to_json_line(r) + "\n";
  referee::Replay replay;
  referee::LogError error;
  EXPECT_TRUE(referee::load_replay(text, "log", replay, error)) << error.describe();
}

bool group_alive(int pgid) {
  return ::kill(-pgid, 0) == 0 || errno != ESRCH;
}

bool wait_groups_gone(const std::vector<int>& pgids, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    bool any = false;
    for (int g : pgids) any |= group_alive(g);
    if (!any) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string printed_by(const std::vector<v1::LogRecord>& log, int seat) {
  const auto mine = [seat](uint32_t s) { return seat < 0 || s == static_cast<uint32_t>(seat); };
  std::string out;
  for (const auto& r : log)
    if (r.has_play() && mine(r.play().seat())) out += r.play().output().text();
  for (const auto& r : log)
    if (r.has_fault() && mine(r.fault().seat())) out += r.fault().output().text();
  for (const auto& r : log)
    if (r.has_bot_output() && mine(r.bot_output().seat())) out += r.bot_output().stderr();
  return out;
}

PlayedMatch play_match(const std::string& referee, const std::string& name,
                       const std::vector<std::string>& bots, int move_time_ms, int time_bank_ms,
                       const std::vector<std::string>& extra) {
  const std::string dir = temp_dir(name);
  std::vector<std::string> argv = {referee,
                                   "match",
                                   "--seed",
                                   "7",
                                   "--move-time-ms",
                                   std::to_string(move_time_ms),
                                   "--time-bank-ms",
                                   std::to_string(time_bank_ms),
                                   "--startup-timeout-ms",
                                   "5000",
                                   "--log",
                                   dir + "/match.jsonl"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), bots.begin(), bots.end());
  PlayedMatch m;
  m.run = run(argv);
  m.log_path = dir + "/match.jsonl";
  m.log = read_log(m.log_path);
  return m;
}

}  // namespace allfives::e2e
