#include "cli/standings_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "tournament/index_file.h"
#include "tournament/sprt.h"
#include "tournament/standings.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

struct StandingsOptions {
  std::vector<std::string> dirs;
  std::string out_dir;
  std::string anchor;  // NAME=ELO
};

// The entries of every source, merged per tournament definition (shards of one tournament
// count each match once) and then put together: several definitions (different tournaments,
// or one that grew by appended bots) are rated as one pool, a bot being the same bot wherever
// its name appears. They must share a format.
bool merge_across(const std::vector<IndexSource>& sources, std::vector<v1::IndexEntry>& merged,
                  std::vector<std::string>& notes, std::string* error) {
  std::map<std::string, std::vector<IndexSource>> by_hash;
  std::vector<std::string> order;
  for (const IndexSource& source : sources)
    for (const v1::IndexEntry& e : source.entries) {
      auto& group = by_hash[e.tournament_hash()];
      if (group.empty()) order.push_back(e.tournament_hash());
      if (group.empty() || group.back().name != source.name) group.push_back({source.name, {}});
      group.back().entries.push_back(e);
    }
  if (by_hash.size() <= 1) return merge_indexes(sources, merged, notes, error);
  merged.clear();
  std::string names;
  for (const std::string& hash : order) {
    std::vector<v1::IndexEntry> part;
    if (!merge_indexes(by_hash[hash], part, notes, error)) return false;
    if (!merged.empty() && !part.empty() && part[0].format() != merged[0].format()) {
      if (error)
        *error = "cannot rate tournaments of different formats together: '" +
                 merged[0].tournament_name() + "' is " + v1::Format_Name(merged[0].format()) +
                 ", '" + part[0].tournament_name() + "' " + v1::Format_Name(part[0].format());
      return false;
    }
    if (!part.empty()) {
      if (!names.empty()) names += ", ";
      names += part[0].tournament_name();
      names += " (";
      names += hash;
      names += ')';
    }
    merged.insert(merged.end(), part.begin(), part.end());
  }
  notes.push_back("rated " + std::to_string(order.size()) + " tournament definitions together (" +
                  names + "); a bot is the same bot wherever its name appears");
  return true;
}

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
  // Folders of a tournament that grew by appended bots hold entries with its earlier hashes.
  std::vector<DefinitionHashes> definitions;
  for (const std::string& dir : o.dirs) {
    const std::string file = (std::filesystem::path(dir) / "tournament.txtpb").string();
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) continue;
    TournamentDef def;
    std::string why;
    if (load_tournament(file, def, &why, {}, LoadOptions{.check_programs = false}))
      definitions.push_back({def.hash, def.earlier_hashes});
    else
      notes.push_back("cannot read " + file + " (" + why +
                      "); its folder is merged by its hashes alone");
  }
  if (const size_t n = adopt_grown_hashes(sources, definitions); n > 0)
    notes.push_back(std::to_string(n) +
                    " match(es) played before bots were appended count as matches of the grown "
                    "tournament");
  std::vector<v1::IndexEntry> merged;
  std::string error;
  if (!merge_across(sources, merged, notes, &error)) {
    std::cerr << "referee standings: " << error << "\n";
    return 1;
  }
  for (const std::string& note : notes) std::cerr << "referee standings: " << note << "\n";
  Standings standings = compute_standings(merged);
  // An SPRT's state needs its definition: the folder's tournament.txtpb.
  if (o.dirs.size() == 1) {
    if (!add_sprt_from_folder(standings, o.dirs[0], merged, &error))
      std::cerr << "referee standings: no SPRT state: " << error << "\n";
  }
  if (!o.anchor.empty()) {
    const size_t eq = o.anchor.find('=');
    double elo = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      try {
        size_t used = 0;
        elo = std::stod(o.anchor.substr(eq + 1), &used);
        ok = used == o.anchor.size() - eq - 1;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) {
      std::cerr << "referee standings: --anchor must be NAME=ELO (e.g. random=0), not '" << o.anchor
                << "'\n";
      return 2;
    }
    if (!anchor_ratings(standings, o.anchor.substr(0, eq), elo, &error)) {
      std::cerr << "referee standings: " << error << "\n";
      return 1;
    }
  }
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
      "95% interval, a head-to-head cross table, pair statistics and decision times. Several\n"
      "folders of the same tournament (e.g. parts run on different machines) are merged, each\n"
      "match counted once; folders of different tournaments of one format are rated together\n"
      "(a ladder of versions kept over weeks), a bot being the same wherever its name appears.");
  cmd->add_option("dirs", o->dirs,
                  "Tournament output folders (each holds index.jsonl), of one format")
      ->required()
      ->expected(1, -1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--anchor", o->anchor,
                  "NAME=ELO: give bot NAME this rating instead of centring the ratings on 0 "
                  "(e.g. random=0); intervals become those of the difference to NAME");
  cmd->add_option("--out,-o", o->out_dir,
                  "Also write standings.txt, standings.csv and standings.json in this folder");
  cmd->callback([o, &exit_code] { exit_code = run_standings(*o); });
}

}  // namespace allfives::referee
