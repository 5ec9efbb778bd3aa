// How fast `referee verify` checks a tournament's logs, next to how long playing them took.
//
//   build/referee/referee tournament tournaments/demo.txtpb --out /tmp/demo
//   build/bench/bench_verify /tmp/demo [--passes N] [--wall-seconds S]
//
// FOLDER is a tournament output folder (its index.jsonl gives each match's duration_ms) or any
// folder of logs. For every *.jsonl under it but index.jsonl, it times, best of N passes
// (default 5; the first pass also reads the files from disk if they are not cached):
//   read     reading the files into memory, nothing else (the I/O floor)
//   parse    reading every line into a LogRecord (parse_log_line), from memory
//   verify   load_replay without steps, from memory: what `referee verify` does after reading
//   files    load_replay_file without steps: reading and verifying, exactly `referee verify`
//   replay   load_replay_file keeping every step, as `referee replay` does
//   -j N     `referee verify -j N` (verify_logs, output discarded) with N = the number of cores
// and prints logs/s, records/s (every line is one event of the match), MB/s, and the ratio of
// the `files` time to the summed duration_ms of the matches (and to --wall-seconds, the
// tournament's wall time, if given). Exit status 1 if a log fails to verify.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <thread>

#include "replay/replay.h"
#include "replay/verify.h"
#include "tournament/index_file.h"

namespace {

using namespace allfives;
using Clock = std::chrono::steady_clock;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Best wall time in seconds of `passes` runs of `f`.
double best_of(int passes, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < passes; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

int usage() {
  std::cerr << "usage: bench_verify FOLDER [--passes N] [--wall-seconds S]\n"
               "  FOLDER: a tournament output folder (referee tournament ... --out FOLDER)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    usage();
    return argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") ? 0 : 2;
  }
  const std::string folder = argv[1];
  int passes = 5;
  double wall_seconds = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--passes" && i + 1 < argc) {
      passes = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--wall-seconds" && i + 1 < argc) {
      wall_seconds = std::atof(argv[++i]);
    } else {
      return usage();
    }
  }

  std::vector<std::string> logs;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".jsonl" && it->path().filename() != "index.jsonl" &&
        it->is_regular_file())
      logs.push_back(it->path().string());
  std::sort(logs.begin(), logs.end());
  if (ec || logs.empty()) {
    std::cerr << "bench_verify: no logs under " << folder << (ec ? ": " + ec.message() : "")
              << "\n";
    return 2;
  }

  // The time it took to play them, from the index.
  uint64_t played_ms = 0;
  {
    std::vector<v1::IndexEntry> entries;
    std::vector<std::string> notes;
    std::string error;
    const std::string index = folder + "/index.jsonl";
    if (std::filesystem::exists(index) && referee::read_index(index, false, entries, notes, &error))
      for (const auto& e : entries) played_ms += e.duration_ms();
  }

  // One pass that also checks every log, counting records and bytes.
  std::vector<std::string> texts;
  size_t bytes = 0, records = 0;
  long hands = 0, plays = 0;
  int failed = 0;
  const auto first_t0 = Clock::now();
  for (const std::string& path : logs) {
    referee::Replay r;
    referee::LogError error;
    if (!referee::load_replay_file(path, r, error, referee::ReplayOptions{.keep_steps = false})) {
      std::cerr << "FAIL " << error.describe() << "\n";
      ++failed;
    }
    hands += r.hands;
    plays += r.plays;
  }
  const double first_pass = std::chrono::duration<double>(Clock::now() - first_t0).count();
  for (const std::string& path : logs) {
    texts.push_back(read_all(path));
    bytes += texts.back().size();
    records += static_cast<size_t>(std::count(texts.back().begin(), texts.back().end(), '\n'));
  }

  size_t sink = 0;  // keeps the compiler from dropping work
  const double t_read = best_of(passes, [&] {
    for (const std::string& path : logs) sink += read_all(path).size();
  });
  const double t_parse = best_of(passes, [&] {
    v1::LogRecord rec;
    std::string error;
    for (const std::string& text : texts) {
      size_t pos = 0;
      while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        sink += referee::parse_log_line(std::string_view(text).substr(pos, nl - pos), rec, &error);
        pos = nl + 1;
      }
    }
  });
  const double t_verify = best_of(passes, [&] {
    referee::Replay r;
    referee::LogError error;
    for (size_t i = 0; i < texts.size(); ++i)
      sink += referee::load_replay(texts[i], logs[i], r, error,
                                   referee::ReplayOptions{.keep_steps = false});
  });
  const double t_files = best_of(passes, [&] {
    referee::Replay r;
    referee::LogError error;
    for (const std::string& path : logs)
      sink +=
          referee::load_replay_file(path, r, error, referee::ReplayOptions{.keep_steps = false});
  });
  const double t_replay = best_of(passes, [&] {
    referee::Replay r;
    referee::LogError error;
    for (const std::string& path : logs) sink += referee::load_replay_file(path, r, error);
  });
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double t_jobs = best_of(passes, [&] {
    std::ostringstream out, err;
    sink += static_cast<size_t>(referee::verify_logs({folder}, true, out, err, cores));
  });

  const double mb = static_cast<double>(bytes) / 1e6;
  const auto n = static_cast<double>(logs.size());
  const auto ev = static_cast<double>(records);
  std::printf("%zu logs, %zu records (%ld hands, %ld plays), %.1f MB in %s; %d failed\n",
              logs.size(), records, hands, plays, mb, folder.c_str(), failed);
  std::printf("best of %d passes (first pass, read + verify, possibly uncached: %.1f ms)\n", passes,
              first_pass * 1e3);
  std::printf("%-8s %9s %12s %14s %10s\n", "phase", "ms", "logs/s", "events/s", "MB/s");
  const auto row = [&](const char* name, double t) {
    std::printf("%-8s %9.2f %12.0f %14.0f %10.1f\n", name, t * 1e3, n / t, ev / t, mb / t);
  };
  row("read", t_read);
  row("parse", t_parse);
  row("verify", t_verify);
  row("files", t_files);
  row("replay", t_replay);
  const std::string jobs = "-j " + std::to_string(cores);
  row(jobs.c_str(), t_jobs);
  const auto share = [&](double total_seconds) {
    std::printf("verifying (files) took %.3f%% of that, %.3f%% with -j %d\n",
                100.0 * t_files / total_seconds, 100.0 * t_jobs / total_seconds, cores);
  };
  if (played_ms > 0) {
    std::printf("playing took %.3f s (the sum of duration_ms in index.jsonl); ",
                static_cast<double>(played_ms) / 1e3);
    share(static_cast<double>(played_ms) / 1e3);
  }
  if (wall_seconds > 0) {
    std::printf("the tournament's wall time was %.3f s; ", wall_seconds);
    share(wall_seconds);
  }
  if (sink == 0) std::printf(" \n");
  return failed ? 1 : 0;
}
