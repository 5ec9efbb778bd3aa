// The referee's cost per bot decision next to a raw echo over the same transport.
//
//   build/bench/bench_referee [--rounds 7] [--matches 20] [--echoes 4000] [--bot sdk|raw]
//                             [--no-sandbox] [--connect ADDRESS,ADDRESS]
//
// Two trivial bots serve on Unix sockets in a private directory, sandboxed as the referee
// starts bots (--no-sandbox: not): by default the SDK's sample random_bot (what bot authors
// run: the SDK's server, a uniform random legal play), or with --bot raw
// `misbehaving_bot --mode normal` (gRPC's synchronous server written against the raw protocol,
// answering legal_play_index 0). --connect plays two bots already serving at those addresses
// instead (to run either side under valgrind, which cannot start sandboxed bots). Each round
// measures:
//   referee  whole 2-player matches through play_match (handshakes, the JSON log written to a
//            new file per match, MatchEnd and close), per decision (MatchResult::decisions);
//   echo     one MatchStream (same class, same socket kind) to one of the same bots, sending a
//            realistic mid-hand TurnRequest and reading the answer, per round trip (after a
//            first TurnRequest that brings the hand's start);
//   echo2    the same, alternating between two streams to the two bots as a 2-player match
//            does: what the transport alone costs in the referee's pattern;
//   and, once per round, a bare 64-byte ping-pong with a forked child over a socketpair: what a
//   wake-up costs on this machine without gRPC.
// Each is measured as wall time, CPU time of this process (all threads) and CPU time of the two
// bots (every process of each bot's tree: a sandboxed bot is bubblewrap's child), and as the
// voluntary context switches (each one a thread going to sleep, to be woken later) of both. The
// order of the three rotates from round to round; the medians over rounds and the ratio of the
// wall-time medians are printed. The target: referee <= 1.25 x echo. referee / echo2 is the
// referee's own overhead beyond the transport in the same pattern.
//
// Wall times on a small VM swing with the load of other processes and with which CPUs the
// three processes land on; `taskset -c 0 bench_referee` (the bots inherit the mask) measures
// them all on one CPU, where wall time is close to the sum of the CPU times.
//
// A plain program rather than Google Benchmark: the figures must be interleaved round by round
// and compared in the same run, which Google Benchmark's one-benchmark-at-a-time runs do not
// express. It is a benchmark, not a test, and is not registered with ctest.
#include <absl/synchronization/mutex.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"
#include "allfives/wire/match_terms.h"
#include "bots/bot_endpoint.h"
#include "log/match_log.h"
#include "match/match_runner.h"
#include "process/private_dir.h"
#include "transport/match_stream.h"

#if !defined(ALLFIVES_MISBEHAVING_BOT) || !defined(ALLFIVES_RANDOM_BOT)
#error "ALLFIVES_MISBEHAVING_BOT and ALLFIVES_RANDOM_BOT must name the bot programs"
#endif

namespace {

using namespace allfives;
using namespace allfives::referee;

using Bots = std::vector<std::unique_ptr<BotEndpoint>>;

struct Options {
  int rounds = 7;
  int matches = 20;   // per round
  int echoes = 4000;  // round trips per round, for each echo
  std::string only;   // "referee", "echo" or "echo2": run just that one (for profiling)
  std::string bot = "sdk";
  bool sandbox = true;
  bool warm_up = true;
  std::vector<std::string> connect;  // addresses of two running bots, instead of starting them
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_referee: %s\n", what.c_str());
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      std::printf(
          "usage: bench_referee [--rounds N] [--matches N] [--echoes N] [--only WHICH] [--bot "
          "KIND]\n"
          "                     [--no-sandbox] [--connect A,B] [--no-warm-up]\n"
          "  --rounds N   rounds, each timing all three (default 7)\n"
          "  --matches N  referee matches per round (default 20)\n"
          "  --echoes N   round trips per round for echo and for echo2 (default 4000)\n"
          "  --only referee|echo|echo2  measure just that one (to profile it); no ratio\n"
          "  --bot sdk|raw  the SDK's random_bot (default) or the raw-protocol "
          "misbehaving_bot\n"
          "  --no-sandbox   start the bots without the sandbox (default: sandboxed, as the "
          "referee does)\n"
          "  --connect A,B  play two bots already serving at addresses A and B (unix:PATH or "
          "host:port)\n"
          "                 instead of starting them; their CPU is then not measured\n"
          "  --no-warm-up   measure from the first match and round trip on (for instruction "
          "counts)\n");
      std::exit(0);
    }
    if (k == "--no-warm-up") {
      o.warm_up = false;
      continue;
    }
    if (k == "--no-sandbox") {
      o.sandbox = false;
      continue;
    }
    if (i + 1 >= argc) fail("missing value after " + k);
    if (k == "--only") {
      o.only = argv[++i];
      if (o.only != "referee" && o.only != "echo" && o.only != "echo2")
        fail("--only takes referee, echo or echo2");
      continue;
    }
    if (k == "--bot") {
      o.bot = argv[++i];
      if (o.bot != "sdk" && o.bot != "raw") fail("--bot takes sdk or raw");
      continue;
    }
    if (k == "--connect") {
      const std::string list = argv[++i];
      const size_t comma = list.find(',');
      if (comma == std::string::npos) fail("--connect takes two addresses: A,B");
      o.connect = {list.substr(0, comma), list.substr(comma + 1)};
      continue;
    }
    const int v = std::atoi(argv[++i]);
    if (v <= 0) fail(k + " must be a positive number");
    if (k == "--rounds")
      o.rounds = v;
    else if (k == "--matches")
      o.matches = v;
    else if (k == "--echoes")
      o.echoes = v;
    else
      fail("unknown flag " + k);
  }
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// CPU time (µs) and voluntary context switches of a set of processes, all their threads.
struct Usage {
  double cpu_us = 0;
  double switches = 0;
};

// Adds the usage of process `pid`: its CPU time from /proc/PID/stat (all its threads, those
// that have exited too: gRPC's synchronous server starts and ends threads, whose time would
// vanish from a sum over the live ones; clock ticks, 10 ms, fine over a round of seconds),
// and the voluntary context switches of its live threads (/proc/PID/task/*/status).
void add_process_usage(int pid, Usage& u) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream stat(proc + "/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces and ')'
  unsigned long utime = 0, stime = 0;
  if (close != std::string::npos &&
      std::sscanf(text.c_str() + close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                  &utime, &stime) == 2)
    u.cpu_us +=
        static_cast<double>(utime + stime) * 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
  const std::string tasks = proc + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (!dir) return;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(tasks + "/" + e->d_name + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0)
        u.switches += std::atof(line.c_str() + line.find(':') + 1);
  }
  closedir(dir);
}

// The processes descended from `root` (and `root`): a sandboxed bot is bubblewrap's child.
std::vector<int> process_tree(int root) {
  std::vector<std::pair<int, int>> parent_of;  // (pid, ppid) of every process
  DIR* dir = opendir("/proc");
  if (!dir) return {root};
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');  // the command name may hold spaces and ')'
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) == 2)
      parent_of.emplace_back(std::atoi(e->d_name), ppid);
  }
  closedir(dir);
  std::vector<int> tree = {root};
  for (size_t i = 0; i < tree.size(); ++i)
    for (const auto& [pid, ppid] : parent_of)
      if (ppid == tree[i]) tree.push_back(pid);
  return tree;
}

// This process's own usage, to the microsecond (getrusage: every thread, exited ones too).
Usage self_usage() {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  const auto us = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + t.tv_usec; };
  return Usage{us(r.ru_utime) + us(r.ru_stime), static_cast<double>(r.ru_nvcsw)};
}

// The usage of the bots' process trees (nothing for bots reached at an address).
Usage bots_usage(const Bots& bots) {
  Usage u;
  for (const auto& b : bots)
    if (b->process())
      for (int pid : process_tree(b->process()->pid())) add_process_usage(pid, u);
  return u;
}

// What one unit (a decision, a round trip) cost: wall time, CPU time of this process (the
// referee or the echo client) and of the two bots, in µs, and the voluntary context switches
// of each side.
struct Cost {
  double wall = 0, cpu = 0, bots_cpu = 0, switches = 0, bots_switches = 0;
};

class Meter {
 public:
  explicit Meter(const Bots& bots)
      : bots_(bots), wall_(Clock::now()), self_(self_usage()), bots_start_(bots_usage(bots)) {}
  Cost per(long units) const {
    const double n = static_cast<double>(units);
    const double wall = std::chrono::duration<double, std::micro>(Clock::now() - wall_).count();
    const Usage self = self_usage(), bots = bots_usage(bots_);
    const bool measured = bots_[0]->process() != nullptr;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return Cost{wall / n, (self.cpu_us - self_.cpu_us) / n,
                measured ? (bots.cpu_us - bots_start_.cpu_us) / n : nan,
                (self.switches - self_.switches) / n,
                measured ? (bots.switches - bots_start_.switches) / n : nan};
  }

 private:
  const Bots& bots_;
  Clock::time_point wall_;
  Usage self_, bots_start_;
};

// Plays `count` whole matches with seeds from `*seed` on, each logged to a new file in
// `log_dir` as the referee does; returns the cost per decision. (Reusing one file would time
// the file system instead: truncating a file just written waits for its blocks, ~3 ms.)
Cost referee_round(const Bots& bots, const std::vector<SeatSpec>& seats, const std::string& log_dir,
                   int count, uint64_t* seed, long* decisions_out) {
  long decisions = 0;
  const Meter meter(bots);
  for (int i = 0; i < count; ++i) {
    MatchSpec spec;
    spec.config = Config::standard(Format::kTwoPlayers);
    spec.seed = (*seed)++;
    spec.match_id = "bench-" + std::to_string(spec.seed);
    spec.seats = seats;
    std::string why;
    auto log = MatchLog::create(log_dir + "/" + spec.match_id + ".jsonl", &why);
    if (!log) fail(why);
    const MatchResult r = play_match(spec, *log, nullptr);
    if (r.fault) fail("match " + spec.match_id + " ended by a fault: " + r.fault->reason);
    if (r.reason != v1::MATCH_END_REASON_TARGET && r.reason != v1::MATCH_END_REASON_HAND_LIMIT)
      fail("match " + spec.match_id + " did not end normally");
    decisions += r.decisions;
  }
  const Cost cost = meter.per(decisions);
  *decisions_out += decisions;
  return cost;
}

// What an echo stream sends: the handshake, a first turn request that starts the hand, and the
// turn request timed over and over, as the referee sends it a few plays into a hand (the
// seat's view with its legal plays, the opponent's last play as an event, and the clocks).
struct EchoScript {
  v1::RefereeMessage match_start, first_turn, turn_request;
};

EchoScript realistic_script() {
  EventList events;
  const Config config = Config::standard(Format::kTwoPlayers);
  State state = State::new_match(config, 42, &events);
  const Event hand_start = events[0];  // the first event of a match starts its first hand
  for (int i = 0; i < 5 && !state.is_terminal(); ++i) {
    events.clear();
    state.apply(state.legal_plays()[0], &events);
  }
  if (state.is_terminal() || state.hand_index() != 0) fail("the sample hand ended early");
  const int seat = state.seat_to_move();
  const TimeControl time;

  EchoScript script;
  const std::string names[] = {"echo0", "echo1"};
  *script.match_start.mutable_match_start() =
      wire::match_start("bench-echo", config, seat, time.move_time, time.time_bank, names);

  v1::TurnRequest* tr = script.turn_request.mutable_turn_request();
  const std::vector<int> scores(2, 0);
  for (const Event& e : events) {
    if (e.kind != EventKind::kPlay) continue;
    *tr->add_events() = wire::seat_event(e, seat, Format::kTwoPlayers, scores);
  }
  wire::fill_turn_request(state.view(seat), tr);
  tr->set_move_time_ms(static_cast<uint32_t>(time.move_time.count()));
  tr->set_time_bank_ms(static_cast<uint32_t>(time.time_bank.count()));
  // The first turn is the timed one with the hand's start in front of its events (the bots
  // check only the events' order, not that the hand's plays add up).
  v1::TurnRequest* first = script.first_turn.mutable_turn_request();
  *first = *tr;
  first->clear_events();
  *first->add_events() = wire::seat_event(hand_start, seat, Format::kTwoPlayers, scores);
  for (const v1::Event& e : tr->events()) *first->add_events() = e;
  return script;
}

// Opens a stream to each of the first `streams` bots, shakes hands (MatchStart -> Hello) and
// starts the hand, then times `count` TurnRequest -> PlayAnswer round trips, taking the streams
// in turn, with the referee's per-operation deadlines and transport calls; returns the cost
// per round trip.
Cost echo_round(const Bots& bots, int streams, const EchoScript& script, int count) {
  const TimeControl time;
  // The referee's CPU guard freezes every bot between matches (cpu_guard.h); the echo is no
  // match, so it thaws them as a match's start does.
  for (const auto& bot : bots)
    if (BotProcess* p = bot->process()) p->set_frozen(false);
  std::vector<std::unique_ptr<MatchStream>> open;
  // Each request carries a fresh nonce that its answer must carry back, as with the referee
  // (bot.proto, "Unasked answers").
  v1::RefereeMessage start = script.match_start, first = script.first_turn,
                     request = script.turn_request;
  for (int k = 0; k < streams; ++k) {
    const auto deadline = Clock::now() + time.handshake;
    auto stream = MatchStream::start(bots[k]->channel(), nullptr);
    start.set_nonce(stream->new_nonce());
    if (stream->exchange(start, deadline) != IoStatus::kOk || !stream->answer().has_hello())
      fail("echo: no Hello in answer to MatchStart");
    first.set_nonce(stream->new_nonce());
    if (stream->exchange(first, deadline) != IoStatus::kOk || !stream->answer().has_play())
      fail("echo: no PlayAnswer to the first TurnRequest");
    open.push_back(std::move(stream));
  }

  const Meter meter(bots);
  for (int i = 0; i < count; ++i) {
    MatchStream& stream = *open[static_cast<size_t>(i % streams)];
    const auto deadline = Clock::now() + time.move_time + time.time_bank + time.transport_slack;
    request.set_nonce(stream.new_nonce());
    const IoStatus st = stream.exchange(request, deadline);
    if (st != IoStatus::kOk || !stream.answer().has_play())
      fail("echo: round trip " + std::to_string(i) +
           " failed: " + describe(stream.finish_status()));
  }
  const Cost cost = meter.per(count);
  v1::RefereeMessage end;
  end.mutable_match_end()->set_reason(v1::MATCH_END_REASON_ABORTED);
  for (auto& stream : open) stream->start_close(end);
  for (auto& stream : open) stream->wait_started(Clock::now() + std::chrono::seconds(1));
  return cost;
}

// A bare round trip of 64 bytes each way over a socketpair between this process and a forked
// child, with no gRPC at all: what waking another process costs on this machine, the floor
// under every echo and decision above. Returns µs per round trip.
double pingpong_us(int count) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) fail("socketpair failed");
  const pid_t child = fork();
  if (child < 0) fail("fork failed");
  char buf[64] = {};
  if (child == 0) {  // only read, write and _exit: safe after fork in a threaded process
    close(sv[0]);    // so that the parent's close is the end of the stream
    while (recv(sv[1], buf, sizeof buf, MSG_WAITALL) == sizeof buf &&
           write(sv[1], buf, sizeof buf) == sizeof buf) {
    }
    _exit(0);
  }
  close(sv[1]);
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i)
    if (write(sv[0], buf, sizeof buf) != sizeof buf ||
        recv(sv[0], buf, sizeof buf, MSG_WAITALL) != sizeof buf)
      fail("ping-pong failed");
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  close(sv[0]);
  waitpid(child, nullptr, 0);
  return us / count;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef NDEBUG
  // As the referee's main() does (referee/cli/main.cpp): both sides measured here take gRPC's
  // locks, and the deadlock detector of Debian's absl would be charged to both.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
  const Options o = parse(argc, argv);
  std::string why;
  auto dir = PrivateDir::create(&why);
  if (!dir) fail(why);

  BotSpec spec[2];
  Bots bots;
  std::vector<SeatSpec> seats;
  for (int seat = 0; seat < 2; ++seat) {
    spec[seat].display_name = "normal" + std::to_string(seat);
    if (!o.connect.empty())
      spec[seat].address = o.connect[static_cast<size_t>(seat)];
    else
      spec[seat].command =
          o.bot == "raw" ? std::vector<std::string>{ALLFIVES_MISBEHAVING_BOT, "--mode", "normal"}
                         : std::vector<std::string>{ALLFIVES_RANDOM_BOT};
    spec[seat].confinement.sandbox = o.sandbox;
    bots.push_back(BotEndpoint::start(spec[seat], dir->path(),
                                      "seat" + std::to_string(seat) + ".sock",
                                      std::chrono::seconds(10), &why));
    if (!bots.back()) fail("cannot start " + spec[seat].describe() + ": " + why);
    seats.push_back(SeatSpec{&spec[seat], bots.back().get(), ""});
  }
  const EchoScript script = realistic_script();

  // Warm-up: connections, allocator, page cache.
  uint64_t seed = 1;
  long decisions = 0;
  if (o.warm_up) {
    referee_round(bots, seats, dir->path(), 2, &seed, &decisions);
    echo_round(bots, 2, script, 500);
  }
  decisions = 0;

  std::printf("2-player matches between two %s over unix sockets%s;\n",
              !o.connect.empty() ? "bots already serving"
              : o.bot == "raw"   ? "misbehaving_bot --mode normal (raw gRPC sync server)"
                                 : "random_bot (the SDK)",
              !o.connect.empty() ? ""
              : o.sandbox        ? ", sandboxed"
                                 : ", not sandboxed");
  std::printf("%d rounds of %d matches, %d echo and %d echo2 round trips; TurnRequest %zu bytes\n",
              o.rounds, o.matches, o.echoes, o.echoes, script.turn_request.ByteSizeLong());
  std::printf(
      "µs per decision (referee) or round trip (echo: one bot; echo2: alternating two bots):\n"
      "wall time, CPU time of this process, CPU time of the two bots\n\n");
  std::printf("%5s  %-26s  %-26s  %-26s  %s\n", "", "referee", "echo", "echo2", "referee/echo");
  std::printf("%5s ", "round");
  for (int k = 0; k < 3; ++k) std::printf(" %8s %8s %8s ", "wall", "cpu", "bots");
  std::printf(" %12s\n", "wall ratio");

  std::vector<double> columns[9], switches[6], pingpong;
  const auto started = Clock::now();
  auto print_row = [](const char* label, const double* row) {
    std::printf("%5s ", label);
    for (int c = 0; c < 9; ++c) std::printf(c % 3 == 0 ? "  %7.1f" : " %8.1f", row[c]);
    std::printf("  %12.3f\n", row[0] / row[3]);
    std::fflush(stdout);
  };
  for (int round = 0; round < o.rounds; ++round) {
    Cost cost[3];
    for (int k = 0; k < 3; ++k) {  // the order rotates: referee first, then echo, then echo2
      const int which = (round + k) % 3;
      if (!o.only.empty() && o.only != (which == 0 ? "referee" : which == 1 ? "echo" : "echo2"))
        continue;
      if (which == 0)
        cost[0] = referee_round(bots, seats, dir->path(), o.matches, &seed, &decisions);
      if (which == 1) cost[1] = echo_round(bots, 1, script, o.echoes);
      if (which == 2) cost[2] = echo_round(bots, 2, script, o.echoes);
    }
    double row[9];
    for (int k = 0; k < 3; ++k) {
      row[3 * k] = cost[k].wall;
      row[3 * k + 1] = cost[k].cpu;
      row[3 * k + 2] = cost[k].bots_cpu;
    }
    for (int c = 0; c < 9; ++c) columns[c].push_back(row[c]);
    for (int k = 0; k < 3; ++k) {
      switches[2 * k].push_back(cost[k].switches);
      switches[2 * k + 1].push_back(cost[k].bots_switches);
    }
    if (o.only.empty()) pingpong.push_back(pingpong_us(o.echoes));
    print_row(std::to_string(round + 1).c_str(), row);
  }
  double m[9];
  for (int c = 0; c < 9; ++c) m[c] = median(columns[c]);
  print_row("med", m);

  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::printf("\n%ld decisions in %d matches; measured part %.1f s\n", decisions,
              o.rounds * o.matches, seconds);
  std::printf(
      "referee_us_per_decision=%.2f  echo_us_per_round_trip=%.2f  ratio=%.3f  "
      "(target <= 1.25)\n",
      m[0], m[3], m[0] / m[3]);
  std::printf("referee_decisions_per_second=%.0f  echo_round_trips_per_second=%.0f\n", 1e6 / m[0],
              1e6 / m[3]);
  std::printf("echo2_us_per_round_trip=%.2f  referee/echo2=%.3f  echo2/echo=%.3f\n", m[6],
              m[0] / m[6], m[6] / m[3]);
  std::printf("cpu ratios referee/echo: this process %.3f, bots %.3f\n", m[1] / m[4], m[2] / m[5]);
  std::printf("cpu ratios referee/echo2: this process %.3f, bots %.3f\n", m[1] / m[7], m[2] / m[8]);
  std::printf(
      "voluntary context switches per decision or round trip (this process, bots): referee "
      "%.2f, %.2f; echo %.2f, %.2f; echo2 %.2f, %.2f\n",
      median(switches[0]), median(switches[1]), median(switches[2]), median(switches[3]),
      median(switches[4]), median(switches[5]));
  if (!pingpong.empty())
    std::printf(
        "bare socketpair ping-pong between two processes, no gRPC: %.1f us per round trip\n",
        median(pingpong));
  for (auto& b : bots) b->stop(std::chrono::seconds(2));
  return 0;
}
