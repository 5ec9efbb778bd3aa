#include "cli/verify_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <system_error>

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

int verify_logs(const std::vector<std::string>& paths, bool quiet, std::ostream& out,
                std::ostream& err) {
  std::vector<std::string> logs;
  for (const std::string& p : paths) {
    std::string why;
    if (!collect_logs(p, logs, &why)) {
      err << "referee verify: " << why << "\n";
      return 2;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  int failed = 0;
  long long hands = 0, plays = 0;
  Replay replay;
  LogError error;
  for (const std::string& path : logs) {
    if (load_replay_file(path, replay, error, ReplayOptions{.keep_steps = false})) {
      hands += replay.hands;
      plays += replay.plays;
      if (!quiet)
        out << "OK  " << path << "  (" << replay.hands << " hands, " << replay.plays << " plays)\n";
    } else {
      ++failed;
      out << "FAIL " << error.describe() << "\n";
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out << logs.size() << (logs.size() == 1 ? " log" : " logs")
      << " verified: " << logs.size() - static_cast<size_t>(failed) << " OK, " << failed
      << " failed (" << hands << " hands, " << plays << " plays in the logs that are OK) in "
      << seconds << " s\n";
  out.flush();
  return failed ? 1 : 0;
}

void add_verify_command(CLI::App& app, int& exit_code) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Re-play match logs with the rules core and check them: every deal against the seed, "
      "every play's legality, count and score, every draw, pass and hand end, and the result.\n"
      "Prints one line per log, 'OK  PATH  (N hands, M plays)' or 'FAIL PATH:LINE: what the "
      "log says; what the rules say' (the first disagreement), then a summary.\n"
      "Exit status: 0 every log is OK, 1 a log failed, 2 bad arguments.");
  cmd->add_option("paths", *paths,
                  "Log files, or folders: every *.jsonl under a folder except index.jsonl (so a "
                  "tournament's output folder gives all its matches)")
      ->required();
  cmd->add_flag("--quiet,-q", *quiet, "Print only the failures and the summary line");
  cmd->callback([paths, quiet, &exit_code] {
    exit_code = verify_logs(*paths, *quiet, std::cout, std::cerr);
  });
}

}  // namespace allfives::referee
