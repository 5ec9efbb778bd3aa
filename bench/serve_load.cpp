// What `referee serve` costs the matches it shows: one match worth watching (the strong bot,
// searching a fixed 10,000 simulations per decision so it is deterministic and busy on a CPU,
// against greedy; about 100 decisions) is played again and again with the same seed and match
// id, alternately alone and while 50 watchers follow it live (each opens the replay page and
// its event stream, as a browser does) and page requests arrive at 200 per second; the match's
// own duration (the log's duration_ms) is compared. Then 10,000 page requests, with the
// server's resident memory sampled every 1,000.
//
//   bench_serve [--trials N] [--simulations S] [--watchers W] [--rate R] [--requests N]
//
// Everything runs on this machine, over the loopback; each load is bounded in count and time.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "serve/serve_util.h"

namespace {

using namespace std::chrono_literals;
using allfives::e2e::Child;
using allfives::e2e::http_get;
using allfives::e2e::read_events;

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kGreedy = ALLFIVES_GREEDY_BOT;
const std::string kRandom = ALLFIVES_RANDOM_BOT;
const std::string kStrong = ALLFIVES_STRONG_BOT;

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// CPU time (user + system) of a process so far, in ms.
double cpu_ms(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return 1000.0 * static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The match's own figures from its log's match_end line.
bool match_figures(const std::string& log, double& duration_ms, long& decisions) {
  std::ifstream in(log);
  std::string line, end;
  decisions = 0;
  while (std::getline(in, line)) {
    if (line.find("\"play\"") != std::string::npos || line.find("\"pass\"") != std::string::npos)
      ++decisions;
    if (line.find("\"match_end\"") != std::string::npos) end = line;
  }
  const size_t at = end.find("\"duration_ms\":");
  if (at == std::string::npos) return false;
  duration_ms = std::atof(end.c_str() + at + 14 + (end[at + 14] == '"'));
  return true;
}

struct Load {
  std::atomic<bool> stop{false};
  std::atomic<long> requests{0}, bad{0}, messages{0}, finished_watchers{0};
  std::vector<std::thread> threads;
  double request_seconds = 0;  // how long the page requests went on
};

}  // namespace

int main(int argc, char** argv) {
  int trials = 5, simulations = 10000, watchers = 50, rate = 200, requests = 10000;
  const std::pair<const char*, int*> flags[] = {{"--trials", &trials},
                                                {"--simulations", &simulations},
                                                {"--watchers", &watchers},
                                                {"--rate", &rate},
                                                {"--requests", &requests}};
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    const int v = i + 1 < argc ? std::atoi(argv[i + 1]) : 0;
    int* target = nullptr;
    for (const auto& [name, value] : flags)
      if (k == name) target = value;
    if (target == nullptr || v <= 0) {
      std::fprintf(stderr,
                   "usage: bench_serve [--trials N] [--simulations S] [--watchers W] [--rate R] "
                   "[--requests N]\n(every value a positive number)\n");
      return k == "-h" || k == "--help" ? 0 : 2;
    }
    *target = v;
  }
  char tmpl[] = "/tmp/bench-serve-XXXXXX";
  const std::string work = ::mkdtemp(tmpl);
  const std::string tour = work + "/tournament", live = work + "/live";
  std::filesystem::create_directories(live);
  // A small tournament, for the pages a visitor asks for.
  std::ofstream(work + "/t.txtpb")
      << "name: \"bench\"\nformat: FORMAT_TWO_PLAYERS\nbots { name: \"greedy\" command: \""
      << kGreedy << "\" }\nbots { name: \"random\" command: \"" << kRandom
      << "\" }\nmatches_per_pairing: 20\nseed: 3\n";
  {
    Child t({kReferee, "tournament", work + "/t.txtpb", "--out", tour, "-j", "1"});
    if (t.wait_exit(120s) != 0) {
      std::fprintf(stderr, "the tournament failed:\n%s", t.output().c_str());
      return 1;
    }
  }
  std::string some_log;
  for (const auto& e : std::filesystem::directory_iterator(tour + "/matches"))
    if (some_log.empty() || e.path().filename().string() < some_log)
      some_log = e.path().filename().string();

  Child server({kReferee, "serve", tour, live, "--listen", "127.0.0.1:0"});
  const std::string line = server.wait_for_line("Serving", 10s);
  int port = 0;
  std::string target_path;
  allfives::e2e::split_url(allfives::e2e::between(line + " ", "at ", " "), port, target_path);
  if (port <= 0) {
    std::fprintf(stderr, "referee serve did not start:\n%s", server.output().c_str());
    return 1;
  }
  const std::vector<std::string> pages = {"/", "/t/0/", "/m/0/matches/" + some_log,
                                          "/m/0/matches/" + some_log + "?seat=1", "/standings/0/"};
  std::printf(
      "bench_serve: one match strong (%d simulations per decision) vs greedy, %d trials "
      "alone and %d with %d live watchers + %d page requests/s; server on port %d\n",
      simulations, trials, trials, watchers, rate, port);
  std::vector<double> alone_ms, loaded_ms;
  long decisions = 0;
  for (int trial = 0; trial < 2 * trials; ++trial) {
    const bool loaded = trial % 2 == 1;
    const std::string name = "trial-" + std::to_string(trial) + ".jsonl";
    const std::string log = live + "/" + name;
    Load load;
    if (loaded) {
      for (int w = 0; w < watchers; ++w)
        load.threads.emplace_back([&, w] {
          // Like a browser: the replay page once the log is there, then its event stream.
          while (!load.stop && http_get(port, "/m/1/" + name).status != 200)
            std::this_thread::sleep_for(2ms);
          bool done = false;
          read_events(
              port, "/live/1/" + name + "?seat=" + (w % 3 ? "" : "0") + "&from=0",
              [&](const std::string& data) {
                ++load.messages;
                done = data.find("\"finished\":true") != std::string::npos;
                return !done;
              },
              120s);
          if (done) ++load.finished_watchers;
        });
      load.threads.emplace_back([&] {
        const auto period = std::chrono::microseconds(1000000 / std::max(1, rate));
        const auto began = std::chrono::steady_clock::now();
        auto next = began;
        for (long i = 0; !load.stop && i < 200L * 120; ++i) {
          const int status = http_get(port, pages[static_cast<size_t>(i) % pages.size()]).status;
          ++load.requests;
          if (status != 200) ++load.bad;
          next += period;
          std::this_thread::sleep_until(next);
        }
        load.request_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      });
    }
    const double server_cpu_before = cpu_ms(server.pid());
    const auto start = std::chrono::steady_clock::now();
    Child match({kReferee, "match", "--seed", "77", "--match-id", "bench-serve", "--move-time-ms",
                 "30000", "--log", log,
                 "strong=" + kStrong + " --seed 1 --simulations " + std::to_string(simulations),
                 "greedy=" + kGreedy});
    const int code = match.wait_exit(300s);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::this_thread::sleep_for(300ms);  // the watchers get the end
    load.stop = true;
    for (auto& t : load.threads) t.join();
    const double server_cpu = cpu_ms(server.pid()) - server_cpu_before;
    double ms = 0;
    if (code != 0 || !match_figures(log, ms, decisions)) {
      std::fprintf(stderr, "trial %d: the match failed (exit %d):\n%s", trial, code,
                   match.output().c_str());
      return 1;
    }
    (loaded ? loaded_ms : alone_ms).push_back(ms);
    std::printf("  trial %2d %-6s match %7.0f ms (%ld decisions, %.0f /s; %.2f s wall)", trial,
                loaded ? "loaded" : "alone", ms, decisions, decisions / (ms / 1000), wall);
    if (loaded)
      std::printf(
          "  watchers to the end %ld/%d, %ld messages; %ld page requests (%.0f/s), %ld not 200",
          load.finished_watchers.load(), watchers, load.messages.load(), load.requests.load(),
          load.requests / load.request_seconds, load.bad.load());
    std::printf("; server CPU %.0f ms\n", server_cpu);
    std::filesystem::remove(log);
  }
  const double a = median(alone_ms), l = median(loaded_ms);
  std::vector<double> ratios;
  for (size_t i = 0; i < loaded_ms.size() && i < alone_ms.size(); ++i)
    ratios.push_back(loaded_ms[i] / alone_ms[i]);
  std::printf(
      "match duration, median: alone %.0f ms, under load %.0f ms: loaded/alone %.3f (median of "
      "paired ratios %.3f; target <= 1.05)\n",
      a, l, l / a, median(ratios));

  // Memory over many requests: the same mix, as fast as one client goes.
  std::printf("server memory over %d page requests (VmRSS, KiB):", requests);
  long first = -1, last = -1, worst = 0;
  for (int i = 0; i < requests; ++i) {
    if (http_get(port, pages[static_cast<size_t>(i) % pages.size()]).status != 200) {
      std::fprintf(stderr, "\nrequest %d failed\n", i);
      return 1;
    }
    if ((i + 1) % 1000 == 0) {
      const long r = rss_kib(server.pid());
      std::printf(" %ld", r);
      std::fflush(stdout);
      if (first < 0) first = r;
      last = r;
      worst = std::max(worst, r);
    }
  }
  std::printf(
      "\nafter 1,000 requests %ld KiB, after %d %ld KiB (x%.3f), peak of the samples %ld KiB\n",
      first, requests, last, static_cast<double>(last) / static_cast<double>(first), worst);
  server.interrupt();
  std::filesystem::remove_all(work);
  return 0;
}
