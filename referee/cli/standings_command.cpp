#include "cli/standings_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <unordered_set>

#include "allfives/wire/convert.h"
#include "log/json_text.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/schedule.h"
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

// One folder as the merge sees it before its index is read: its definition, if it has one.
struct Folder {
  std::string dir;
  EntryExpectations expected;
  std::optional<TournamentDef> def;
};

// The folder's tournament.txtpb (if it has one: its format, target, hand limit and bots check
// every line of the index).
Folder read_definition(const std::string& dir, std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  Folder f{dir, {}, std::nullopt};
  const std::string file = output_path(dir, kDefinitionFile);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    notes.push_back(dir + " has no " + std::string(kDefinitionFile) +
                    ": its lines are checked against their own format only");
    return f;
  }
  TournamentDef def;
  std::string why;
  if (!load_tournament(file, def, &why, {}, LoadOptions{.check_programs = false})) {
    notes.push_back("cannot read " + why + "; the lines of " + dir +
                    " are checked against their own format only");
    return f;
  }
  f.expected.format = wire::to_proto(def.config.format);
  f.expected.target = def.config.target;
  f.expected.max_hands = def.config.max_hands;
  for (const BotSpec& b : def.bots) f.expected.bots.insert(b.display_name);
  f.def = std::move(def);
  return f;
}

// Counts each match once per definition while the indexes stream by: by ordinal, one bit a
// match of the schedule, for a definition whose file was read; by id otherwise.
class SeenMatches {
 public:
  void add_definition(const TournamentDef& def) {
    if (by_hash_.count(def.hash)) return;
    Known& k = by_hash_[def.hash];
    k.def = def;
    k.schedule = std::make_unique<Schedule>(k.def);
  }
  bool first_time(const v1::IndexEntry& e) {
    if (auto it = by_hash_.find(e.tournament_hash()); it != by_hash_.end()) {
      Known& k = it->second;
      if (const std::optional<uint64_t> ordinal = k.schedule->ordinal_of(e.match())) {
        if (k.seen.empty()) k.seen.assign(k.schedule->size(), false);
        if (k.seen[*ordinal]) return false;
        k.seen[*ordinal] = true;
        return true;
      }
    }
    return ids_.insert(e.tournament_hash() + '\n' + e.match().match_id()).second;
  }

 private:
  struct Known {
    TournamentDef def;
    std::unique_ptr<Schedule> schedule;
    std::vector<bool> seen;
  };
  std::map<std::string, Known> by_hash_;
  std::unordered_set<std::string> ids_;
};

// The hash a line of an earlier definition counts under: that of the largest definition among
// the folders' that it grew into by appended bots (entries keep the id, seed and seats).
class GrownHashes {
 public:
  explicit GrownHashes(const std::vector<Folder>& folders) {
    for (const Folder& f : folders)
      if (f.def)
        for (const std::string& h : f.def->earlier_hashes)
          if (h != f.def->hash) grew_into_[h] = f.def->hash;
  }
  // Relabels e; true if it did.
  bool adopt(v1::IndexEntry& e) const {
    std::string h = e.tournament_hash();
    // Each step adds bots, so it cannot loop; the bound only guards against hostile files.
    for (size_t step = 0; step <= grew_into_.size(); ++step) {
      const auto it = grew_into_.find(h);
      if (it == grew_into_.end()) break;
      h = it->second;
    }
    if (h == e.tournament_hash()) return false;
    e.set_tournament_hash(h);
    return true;
  }

 private:
  std::map<std::string, std::string> grew_into_;
};

// Every folder's index read once as a stream, each line checked against its folder's
// definition, counted once per definition and folded into the standings: memory grows with the
// bots and pairings, not the matches (beyond one bit a scheduled match, and the SPRT's matches
// when shards are merged). Several definitions (different tournaments, or one that grew by
// appended bots) are rated as one pool; they must share a format.
struct Merge {
  StandingsAccumulator standings;
  std::vector<std::string> hashes;  // in order of appearance
  std::string names;                // "NAME (HASH), ..."
  v1::Format format = v1::FORMAT_UNSPECIFIED;
  std::string first_name;
  size_t duplicates = 0, relabelled = 0;
  std::vector<v1::IndexEntry> sprt_entries;  // the SPRT's matches, for a replay in order
};

bool stream_folder(const Folder& f, const GrownHashes& grown, SeenMatches& seen,
                   const std::function<bool(const v1::IndexEntry&)>& for_sprt, Merge& m,
                   std::vector<std::string>& notes, std::string* error) {
  namespace fs = std::filesystem;
  const std::string path = output_path(f.dir, kIndexFile);
  std::error_code ec;
  if (!fs::exists(path, ec)) notes.push_back(path + " does not exist: no finished matches there");
  size_t line = 0;
  std::string failed;
  const bool read = read_index_stream(
      path, /*repair=*/false,
      [&](v1::IndexEntry&& e) {
        ++line;
        if (!failed.empty()) return;
        if (const std::string why = entry_problem(e, f.expected); !why.empty()) {
          failed = path + ":" + std::to_string(line) + ": this line cannot be a result of " +
                   (f.def ? output_path(f.dir, kDefinitionFile) : std::string("a tournament")) +
                   ": " + printable(why);
          return;
        }
        m.relabelled += grown.adopt(e) ? 1 : 0;
        if (m.format == v1::FORMAT_UNSPECIFIED) {
          m.format = e.format();
          m.first_name = e.tournament_name();
        } else if (e.format() != m.format) {
          failed = printable("cannot rate tournaments of different formats together: '" +
                             m.first_name + "' is " + v1::Format_Name(m.format) + ", '" +
                             e.tournament_name() + "' " + v1::Format_Name(e.format()));
          return;
        }
        if (std::find(m.hashes.begin(), m.hashes.end(), e.tournament_hash()) == m.hashes.end()) {
          m.hashes.push_back(e.tournament_hash());
          m.names += (m.names.empty() ? "" : ", ") + e.tournament_name() + " (" +
                     e.tournament_hash() + ")";
        }
        if (!seen.first_time(e)) {
          ++m.duplicates;
          return;
        }
        m.standings.add(e);
        if (for_sprt(e)) {
          e.clear_timing();  // what the replay needs is the match and its result
          e.clear_fault_reason();
          m.sprt_entries.push_back(std::move(e));
        }
      },
      notes, error);
  if (!read) return false;
  if (!failed.empty()) *error = failed;
  return failed.empty();
}

// Each folder given, with its definition if it has one: false, having said why, when one is not
// a folder.
bool read_folders(const StandingsOptions& o, std::vector<Folder>& folders,
                  std::vector<std::string>& notes) {
  for (const std::string& dir : o.dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      std::cerr << "referee standings: " << printable(dir) << " is not a folder\n";
      return false;
    }
    folders.push_back(read_definition(dir, notes));
  }
  return true;
}

// What the merge did that a reader should know: relabelled, duplicate and mixed matches.
void add_merge_notes(const Merge& m, std::vector<std::string>& notes) {
  if (m.relabelled > 0)
    notes.push_back(std::to_string(m.relabelled) +
                    " match(es) played before bots were appended count as matches of the grown "
                    "tournament");
  if (m.duplicates > 0)
    notes.push_back(std::to_string(m.duplicates) +
                    " duplicate match(es) ignored (same match_id in more than one index; the "
                    "first copy counts)");
  if (m.hashes.size() > 1)
    notes.push_back("rated " + std::to_string(m.hashes.size()) +
                    " tournament definitions together (" + m.names +
                    "); a bot is the same bot wherever its name appears");
}

// The standings on stdout, anchored if asked, and in --out's files: the exit code.
int print_standings(const StandingsOptions& o, Standings& standings, const std::string& anchor,
                    double anchor_elo) {
  std::string error;
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

int run_standings(const StandingsOptions& o) {
  std::string anchor;
  double anchor_elo = 0;
  if (!o.anchor.empty() && !parse_anchor(o.anchor, anchor, anchor_elo)) {
    std::cerr << "referee standings: --anchor must be NAME=ELO with ELO a number in "
                 "-100000..100000 (e.g. random=0), not '"
              << printable(o.anchor) << "'\n";
    return 2;
  }
  std::vector<std::string> notes;
  std::vector<Folder> folders;
  if (!read_folders(o, folders, notes)) return 2;
  // An SPRT's state needs its definition: the folder's tournament.txtpb. One folder replays
  // its index in the order it was written; the shards of one definition (every folder holding
  // it) replay the merged matches in schedule order (ordinal), the order one machine plays them.
  std::vector<SprtMonitor> monitors;
  const bool one_definition =
      folders[0].def && std::all_of(folders.begin(), folders.end(), [&](const Folder& f) {
        return f.def && f.def->hash == folders[0].def->hash;
      });
  if (one_definition) monitors = make_sprt_monitors(*folders[0].def);
  const bool in_order = folders.size() == 1;
  auto for_sprt = [&](const v1::IndexEntry& e) {
    if (in_order) {
      for (SprtMonitor& m : monitors) m.add(e);
      return false;
    }
    return std::any_of(monitors.begin(), monitors.end(),
                       [&](const SprtMonitor& m) { return m.counts(e.match()); });
  };
  const GrownHashes grown(folders);
  SeenMatches seen;
  for (const Folder& f : folders)
    if (f.def) seen.add_definition(*f.def);
  Merge m;
  for (const Folder& f : folders) {
    std::string error;
    if (!stream_folder(f, grown, seen, for_sprt, m, notes, &error)) {
      std::cerr << "referee standings: " << error << "\n";
      return 1;
    }
  }
  add_merge_notes(m, notes);
  for (const std::string& note : notes)
    std::cerr << "referee standings: " << printable(note) << "\n";
  Standings standings = m.standings.finish();
  if (!in_order) {
    std::stable_sort(m.sprt_entries.begin(), m.sprt_entries.end(),
                     [](const v1::IndexEntry& a, const v1::IndexEntry& b) {
                       return a.match().ordinal() < b.match().ordinal();
                     });
    for (const v1::IndexEntry& e : m.sprt_entries)
      for (SprtMonitor& t : monitors) t.add(e);
  }
  if (!m.hashes.empty() || folders.size() == 1)
    for (const SprtMonitor& t : monitors) standings.sprt.push_back(t.summary());
  return print_standings(o, standings, anchor, anchor_elo);
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
