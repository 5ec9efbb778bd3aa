#include "replay/verify.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <system_error>
#include <thread>

#include "replay/replay.h"

namespace allfives::referee {

bool collect_logs(const std::string& path, std::vector<std::string>& logs, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    if (error) *error = path + ": no such file or folder";
    return false;
  }
  if (!fs::is_directory(st)) {
    logs.push_back(path);
    return true;
  }
  std::vector<std::string> found;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".jsonl" || p.filename() == "index.jsonl") continue;
    std::error_code file_ec;
    if (it->is_regular_file(file_ec)) found.push_back(p.string());
  }
  if (ec) {
    if (error) *error = path + ": cannot list the folder: " + ec.message();
    return false;
  }
  if (found.empty()) {
    if (error) *error = path + ": no *.jsonl logs in this folder";
    return false;
  }
  std::sort(found.begin(), found.end());
  logs.insert(logs.end(), found.begin(), found.end());
  return true;
}

namespace {

struct Verdict {
  bool ok = false;
  int hands = 0;
  int plays = 0;
  std::string text;  // the line to print
};

Verdict verify_one(const std::string& path) {
  Replay replay;
  LogError error;
  Verdict v;
  v.ok = load_replay_file(path, replay, error, ReplayOptions{.keep_steps = false});
  if (v.ok) {
    v.hands = replay.hands;
    v.plays = replay.plays;
    v.text = "OK  " + path + "  (" + std::to_string(replay.hands) + " hands, " +
             std::to_string(replay.plays) + " plays)";
  } else {
    v.text = "FAIL " + error.describe();
  }
  return v;
}

}  // namespace

int verify_logs(const std::vector<std::string>& paths, bool quiet, std::ostream& out,
                std::ostream& err, int jobs) {
  std::vector<std::string> logs;
  for (const std::string& p : paths) {
    std::string why;
    if (!collect_logs(p, logs, &why)) {
      err << "referee verify: " << why << "\n";
      return 2;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  // Workers take logs in order; the results are printed in order as they come in.
  const size_t n = logs.size();
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), n));
  std::vector<Verdict> verdicts(n);
  std::vector<char> ready(n, 0);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int j = 1; j < jobs; ++j)
    workers.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        Verdict v = verify_one(logs[i]);
        std::lock_guard<std::mutex> lock(mu);
        verdicts[i] = std::move(v);
        ready[i] = 1;
        cv.notify_all();
      }
    });
  int failed = 0;
  long long hands = 0, plays = 0;
  for (size_t i = 0; i < n; ++i) {
    if (jobs == 1) {
      verdicts[i] = verify_one(logs[i]);
    } else {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[i] != 0; });
    }
    const Verdict& v = verdicts[i];
    if (v.ok) {
      hands += v.hands;
      plays += v.plays;
    } else {
      ++failed;
    }
    if (!v.ok || !quiet) out << v.text << "\n";
  }
  for (std::thread& t : workers) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out << n << (n == 1 ? " log" : " logs") << " verified: " << n - static_cast<size_t>(failed)
      << " OK, " << failed << " failed (" << hands << " hands, " << plays
      << " plays in the logs that are OK) in " << seconds << " s\n";
  out.flush();
  return failed ? 1 : 0;
}

}  // namespace allfives::referee
