// The ladder's costs (docs/LADDER.md), printed as figures:
//   bench_ladder overhead REFEREE PROGRAM... [--versions 100] [--rounds 30]
//     a ladder of VERSIONS active versions (the PROGRAMs in turn, entered directly, without
//     their gate) plays ROUNDS rounds through the real `referee ladder run -j 2`; from its
//     round lines: the ladder's own work (choosing, recording, rating) against the round's
//     time, and against the median match's time;
//   bench_ladder store [--versions 1000] [--matches 1000000]
//     a database of that many versions and synthetic mirrored-pair matches recorded through
//     LadderStore::import_match (a transaction each): the time a match takes to record, the
//     file's size per 10^6 matches, the leaderboard's and a version's history's read time
//     (median of 21), the fit over every match, and the peak memory of streaming and fitting
//     10^4, 10^5 and all matches, each in a fresh process. The synthetic pairs are of versions
//     within 10 ranks of each other, as matchmaking chooses them: the fit's memory grows with
//     the pairs of versions that met (at most versions^2 / 2), not with the matches.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ladder/ladder_store.h"
#include "rounds/child_process.h"

namespace {

namespace fs = std::filesystem;
using namespace allfives;
using namespace allfives::referee;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

long peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

std::string temp_folder() {
  std::string t = (fs::temp_directory_path() / "bench-ladder-XXXXXX").string();
  if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
  fs::permissions(t, fs::perms(0755));
  return t;
}

// `n` versions of user "bench", active, each with the command `programs[i % size]`.
std::vector<Version> add_versions(LadderStore& s, const std::string& dir, int n,
                                  const std::vector<std::string>& programs) {
  fs::create_directories(dir + "/" + kLadderBots);
  const int64_t user = *s.user_of_token(s.add_user("bench"));
  std::vector<Version> out;
  for (int i = 0; i < n; ++i) {
    const std::string staged = dir + "/staged-" + std::to_string(i);
    fs::create_directories(staged);
    std::vector<std::string> argv;
    if (!programs.empty()) {
      const std::string& p = programs[static_cast<size_t>(i) % programs.size()];
      fs::copy_file(p, staged + "/bot");
      argv = {staged + "/bot"};
    }
    out.push_back(s.add_version(user, std::string("v").append(std::to_string(i)), staged, argv));
    s.set_state(out.back().id, VersionState::kActive, "entered by bench_ladder");
  }
  return out;
}

int overhead(const std::string& referee, const std::vector<std::string>& programs, int versions,
             int rounds) {
  const std::string root = temp_folder();
  std::ofstream(root + "/l.txtpb") << "name: \"bench\"\nformat: FORMAT_TWO_PLAYERS\n"
                                   << "move_time_ms: 1000\nplacement_opponents: 4\n"
                                   << "round_opponents: 2\n";
  std::string text;
  const std::string dir = root + "/L";
  ChildProcess init = *ChildProcess::start({referee, "ladder", "init", dir, root + "/l.txtpb"},
                                           root + "/init.out", &text);
  if (init.wait() != 0) {
    std::cerr << "ladder init failed: see " << root << "/init.out\n";
    return 1;
  }
  {
    auto s = LadderStore::open(dir, false);
    add_versions(*s, dir, versions, programs);
  }
  const auto start = Clock::now();
  ChildProcess run = *ChildProcess::start(
      {referee, "ladder", "run", dir, "-j", "2", "--rounds", std::to_string(rounds)},
      root + "/run.out", &text);
  const int code = run.wait();
  const double wall = ms_since(start) / 1000;
  std::ifstream out(root + "/run.out");
  const std::regex line(R"(: (\d+) matches in ([0-9.]+) s \(the ladder's own work (\d+) ms)");
  double work_ms = 0, round_s = 0;
  int matches = 0, n = 0;
  for (std::string l; std::getline(out, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    matches += std::stoi(m[1]);
    round_s += std::stod(m[2]);
    work_ms += std::stod(m[3]);
    ++n;
  }
  // The median match's own time, from the rounds' indexes.
  std::vector<double> durations;
  for (const auto& e : fs::recursive_directory_iterator(dir + "/rounds")) {
    if (e.path().filename() != "index.jsonl") continue;
    std::ifstream in(e.path());
    const std::regex d(R"("duration_ms":"?(\d+))");
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (std::regex_search(l, m, d)) durations.push_back(std::stod(m[1]));
    }
  }
  double played_ms = 0;
  for (const double d : durations) played_ms += d;
  std::printf(
      "overhead: %d active versions, %d rounds (%d matches) in %.1f s, exit %d\n"
      "  the ladder's own work (choosing, recording, rating): %.1f ms a round\n"
      "  = %.2f%% of the rounds' time (%.2f s a round, bots started included)\n"
      "  = %.2f%% of the matches' own play time (%.0f ms a match, median %.0f ms)\n",
      versions, n, matches, wall, code, n ? work_ms / n : 0,
      round_s ? 100 * work_ms / 1000 / round_s : 0, n ? round_s / n : 0,
      played_ms ? 100 * work_ms / played_ms : 0, matches ? played_ms / matches : 0,
      median(durations));
  std::error_code ec;
  fs::remove_all(root, ec);
  return code == 0 ? 0 : 1;
}

v1::IndexEntry synthetic(const std::string& a, const std::string& b, uint64_t seed, int rotation,
                         bool a_wins) {
  v1::IndexEntry e;
  auto* m = e.mutable_match();
  m->set_match_id(a + "-" + b + "-d0-r" + std::to_string(rotation));
  m->set_rotation(static_cast<uint32_t>(rotation));
  m->set_seed(seed);
  m->set_pairing(1);
  m->add_seat_bots(rotation ? b : a);
  m->add_seat_bots(rotation ? a : b);
  const bool seat0_wins = a_wins != (rotation == 1);
  e.set_reason(v1::MATCH_END_REASON_TARGET);
  e.set_format(v1::FORMAT_TWO_PLAYERS);
  e.set_winner_side(seat0_wins ? 0 : 1);
  e.add_scores(seat0_wins ? 255 : 140);
  e.add_scores(seat0_wins ? 140 : 255);
  e.add_placements(seat0_wins ? 1 : 2);
  e.add_placements(seat0_wins ? 2 : 1);
  e.set_fault_seat(-1);
  e.set_duration_ms(1800);
  e.set_hands_played(9);
  e.set_tournament_name("bench-r" + std::to_string(seed / 1000));
  e.set_tournament_hash("0123456789abcdef");
  e.set_log_file("matches/" + m->match_id() + ".jsonl");
  return e;
}

// `bench_ladder fit DIR N`, run as a program of its own: streams the first N matches of the
// ladder in DIR into the fit, as `ladder run` does when it starts, and prints its peak RSS
// (KiB) and the seconds taken.
int fit(const std::string& dir, int64_t limit) {
  const auto t = Clock::now();
  auto s = LadderStore::open(dir, false);
  StandingsAccumulator acc;
  Statement st = s->db().prepare("SELECT entry FROM matches ORDER BY id LIMIT ?");
  st.bind(1, limit);
  while (st.step()) {
    v1::IndexEntry e;
    if (e.ParseFromString(st.blob(0))) acc.add(e);
  }
  const Standings result = acc.finish();
  std::printf("%ld %.2f %zu\n", peak_rss_kib(), ms_since(t) / 1000, result.bots.size());
  return 0;
}

long fit_memory(const std::string& dir, int64_t limit, double& seconds) {
  std::string text;
  const std::string out = dir + "/fit.out";
  std::optional<ChildProcess> child =
      ChildProcess::start({own_program(), "fit", dir, std::to_string(limit)}, out, &text);
  if (!child || child->wait() != 0) return -1;
  std::ifstream in(out);
  long rss = -1;
  in >> rss >> seconds;
  std::error_code ec;
  fs::remove(out, ec);
  return rss;
}

int store(int versions, int64_t matches) {
  const std::string dir = temp_folder();
  auto s = LadderStore::open(dir, true);
  const std::vector<Version> vs = add_versions(*s, dir, versions, {});
  std::mt19937_64 rng(7);
  std::vector<double> record_us;
  const int64_t pairs = matches / 2;
  int64_t round = 0;
  const auto start = Clock::now();
  for (int64_t p = 0; p < pairs; ++p) {
    if (p % 500 == 0) {
      const Version& a = vs[rng() % vs.size()];
      round = s->begin_round(Round{0, a.id, false, static_cast<uint64_t>(p), {a.id}, ""});
    }
    // Opponents within 10 ranks, as matchmaking chooses them (close, uncertain differences).
    const size_t i = rng() % vs.size();
    const size_t j = (i + 1 + rng() % 10) % vs.size();
    // Stronger versions (lower numbers) win more often: a spread of ratings.
    const bool a_wins = static_cast<double>(rng() % 1000) / 1000 <
                        0.5 + 0.4 * (static_cast<double>(j) - static_cast<double>(i)) / versions;
    for (int rot = 0; rot < 2; ++rot) {
      const auto t = Clock::now();
      s->import_match(
          round,
          synthetic(vs[i].name(), vs[j].name(),
                    1000 * static_cast<uint64_t>(round) + static_cast<uint64_t>(p), rot, a_wins));
      if ((p * 2 + rot) % 997 == 0) record_us.push_back(ms_since(t) * 1000);
    }
    // A rating point for every version every tenth of the matches (history_every).
    if ((p + 1) % (pairs / 10) == 0) {
      StandingsAccumulator fit;
      const auto tf = Clock::now();
      s->for_each_match([&](v1::IndexEntry&& e) { fit.add(e); });
      const double stream_ms = ms_since(tf);
      const Standings st = fit.finish();
      const double fit_ms = ms_since(tf) - stream_ms;
      const auto ts = Clock::now();
      s->save_ratings(st, 1);
      std::printf("  at %lld matches: stream %.0f ms, fit %.0f ms, save ratings %.0f ms\n",
                  static_cast<long long>((p + 1) * 2), stream_ms, fit_ms, ms_since(ts));
      std::fflush(stdout);
    }
  }
  const double import_s = ms_since(start) / 1000;
  s->db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const double mib = static_cast<double>(fs::file_size(dir + "/" + kLadderDatabase)) / (1 << 20);
  std::vector<double> board_ms, history_ms;
  auto fresh = LadderStore::open(dir, false);
  size_t rows = 0, points = 0;
  for (int k = 0; k < 21; ++k) {
    auto t = Clock::now();
    rows = fresh->leaderboard().size();
    board_ms.push_back(ms_since(t));
    t = Clock::now();
    points = fresh->history(vs[static_cast<size_t>(k) % vs.size()].id).size();
    history_ms.push_back(ms_since(t));
  }
  std::printf(
      "store: %d versions, %lld matches recorded in %.0f s: median %.0f us a match (a transaction "
      "each)\n"
      "  database %.0f MiB: %.0f MiB per 10^6 matches\n"
      "  leaderboard (%zu rows) %.2f ms, a version's history (%zu points) %.2f ms (medians of "
      "21)\n",
      versions, static_cast<long long>(pairs * 2), import_s, median(record_us), mib,
      mib * 1e6 / static_cast<double>(pairs * 2), rows, median(board_ms), points,
      median(history_ms));
  for (const int64_t n : {int64_t{10000}, int64_t{100000}, pairs * 2}) {
    double secs = 0;
    const long rss = fit_memory(dir, n, secs);
    std::printf("  stream and fit %lld matches in a fresh process: peak RSS %ld KiB, %.1f s\n",
                static_cast<long long>(n), rss, secs);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto flag = [&](const std::string& name, int64_t def) {
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == name) return std::stoll(args[i + 1]);
    return static_cast<long long>(def);
  };
  if (args.size() >= 3 && args[0] == "overhead") {
    std::vector<std::string> programs;
    for (size_t i = 2; i < args.size() && !args[i].starts_with("--"); ++i)
      programs.push_back(args[i]);
    return overhead(args[1], programs, static_cast<int>(flag("--versions", 100)),
                    static_cast<int>(flag("--rounds", 30)));
  }
  if (args.size() == 3 && args[0] == "fit") return fit(args[1], std::stoll(args[2]));
  if (!args.empty() && args[0] == "store")
    return store(static_cast<int>(flag("--versions", 1000)), flag("--matches", 1000000));
  std::cerr << "usage: bench_ladder overhead REFEREE PROGRAM... [--versions N] [--rounds N]\n"
               "       bench_ladder store [--versions N] [--matches N]\n";
  return 2;
}
