#include "cli/standings_command.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "allfives/wire/convert.h"
#include "log/json_text.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
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

// "NAME=ELO" with a finite ELO in -100000..100000.
bool parse_anchor(const std::string& text, std::string& name, double& elo) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  try {
    size_t used = 0;
    elo = std::stod(text.substr(eq + 1), &used);
    if (used != text.size() - eq - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  name = text.substr(0, eq);
  return std::isfinite(elo) && std::abs(elo) <= 100000;
}

// One folder's index, each line checked against the folder's tournament.txtpb (if it has one:
// its format, target, hand limit and bots); its definition's hashes for merging.
bool read_folder(const std::string& dir, IndexSource& source,
                 std::vector<DefinitionHashes>& definitions, std::vector<std::string>& notes,
                 std::string* error) {
  namespace fs = std::filesystem;
  const std::string file = output_path(dir, kDefinitionFile);
  EntryExpectations expected;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(file, ec))) {
    TournamentDef def;
    std::string why;
    if (!load_tournament(file, def, &why, {}, LoadOptions{.check_programs = false})) {
      notes.push_back("cannot read " + why + "; the lines of " + dir +
                      " are checked against their own format only");
    } else {
      definitions.push_back({def.hash, def.earlier_hashes});
      expected.format = wire::to_proto(def.config.format);
      expected.target = def.config.target;
      expected.max_hands = def.config.max_hands;
      for (const BotSpec& b : def.bots) expected.bots.insert(b.display_name);
    }
  } else {
    notes.push_back(dir +
                    " has no tournament.txtpb: its lines are checked against their own "
                    "format only");
  }
  const std::string path = output_path(dir, kIndexFile);
  if (!fs::exists(path, ec)) notes.push_back(path + " does not exist: no finished matches there");
  source = IndexSource{dir, {}};
  if (!read_index(path, /*repair=*/false, source.entries, notes, error)) return false;
  for (size_t i = 0; i < source.entries.size(); ++i)
    if (const std::string why = entry_problem(source.entries[i], expected); !why.empty()) {
      *error = path + ":" + std::to_string(i + 1) + ": this line cannot be a result of " +
               (expected.bots.empty() ? std::string("a tournament") : file) + ": " + printable(why);
      return false;
    }
  return true;
}

int run_standings(const StandingsOptions& o) {
  std::string anchor;
  double anchor_elo = 0;
  if (!o.anchor.empty() && !parse_anchor(o.anchor, anchor, anchor_elo)) {
    std::cerr << "referee standings: --anchor must be NAME=ELO with ELO a number in "
                 "-100000..100000 (e.g. random=0), not '"
              << printable(o.anchor) << "'\n";
    return 2;
  }
  std::vector<IndexSource> sources;
  std::vector<std::string> notes;
  // Folders of a tournament that grew by appended bots hold entries with its earlier hashes.
  std::vector<DefinitionHashes> definitions;
  for (const std::string& dir : o.dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      std::cerr << "referee standings: " << printable(dir) << " is not a folder\n";
      return 2;
    }
    IndexSource source;
    std::string error;
    if (!read_folder(dir, source, definitions, notes, &error)) {
      std::cerr << "referee standings: " << error << "\n";
      return 1;
    }
    sources.push_back(std::move(source));
  }
  if (const size_t n = adopt_grown_hashes(sources, definitions); n > 0)
    notes.push_back(std::to_string(n) +
                    " match(es) played before bots were appended count as matches of the grown "
                    "tournament");
  std::vector<v1::IndexEntry> merged;
  std::string error;
  if (!merge_across(sources, merged, notes, &error)) {
    std::cerr << "referee standings: " << printable(error) << "\n";
    return 1;
  }
  for (const std::string& note : notes)
    std::cerr << "referee standings: " << printable(note) << "\n";
  Standings standings = compute_standings(merged);
  // An SPRT's state needs its definition: the folder's tournament.txtpb.
  if (o.dirs.size() == 1) {
    if (!add_sprt_from_folder(standings, o.dirs[0], merged, &error))
      std::cerr << "referee standings: no SPRT state: " << error << "\n";
  }
  if (!anchor.empty() && !anchor_ratings(standings, anchor, anchor_elo, &error)) {
    std::cerr << "referee standings: --anchor: " << printable(error) << "\n";
    return 2;
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
