#include "cli/standings_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "tournament/index_file.h"
#include "tournament/standings.h"

namespace allfives::referee {
namespace {

struct StandingsOptions {
  std::vector<std::string> dirs;
  std::string out_dir;
};

int run_standings(const StandingsOptions& o) {
  std::vector<IndexSource> sources;
  std::vector<std::string> notes;
  for (const std::string& dir : o.dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      std::cerr << "referee standings: " << dir << " is not a folder\n";
      return 1;
    }
    const std::string path = (std::filesystem::path(dir) / "index.jsonl").string();
    if (!std::filesystem::exists(path, ec))
      notes.push_back(path + " does not exist: no finished matches there");
    IndexSource source{dir, {}};
    std::string error;
    if (!read_index(path, /*repair=*/false, source.entries, notes, &error)) {
      std::cerr << "referee standings: " << error << "\n";
      return 1;
    }
    sources.push_back(std::move(source));
  }
  std::vector<v1::IndexEntry> merged;
  std::string error;
  if (!merge_indexes(sources, merged, notes, &error)) {
    std::cerr << "referee standings: " << error << "\n";
    return 1;
  }
  for (const std::string& note : notes) std::cerr << "referee standings: " << note << "\n";
  const Standings standings = compute_standings(merged);
  std::cout << format_standings_table(standings);
  if (!o.out_dir.empty()) {
    if (!write_standings_files(o.out_dir, standings, &error)) {
      std::cerr << "referee standings: " << error << "\n";
      return 1;
    }
    std::cerr << "referee standings: wrote standings.txt, standings.csv and standings.json in "
              << o.out_dir << "\n";
  }
  return 0;
}

}  // namespace

void add_standings_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StandingsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "standings",
      "Print the standings of a tournament from the index.jsonl of its output folders: per bot\n"
      "matches, wins, losses, draws, forfeits by kind, average points, an Elo rating with a\n"
      "95% interval, and a head-to-head cross table. Several folders of the same tournament\n"
      "(e.g. parts run on different machines) are merged, each match counted once.");
  cmd->add_option("dirs", o->dirs,
                  "Tournament output folders (each holds index.jsonl); all must come from the "
                  "same tournament definition")
      ->required()
      ->expected(1, -1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--out,-o", o->out_dir,
                  "Also write standings.txt, standings.csv and standings.json in this folder");
  cmd->callback([o, &exit_code] { exit_code = run_standings(*o); });
}

}  // namespace allfives::referee
