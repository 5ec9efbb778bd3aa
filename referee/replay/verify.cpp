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

#include <google/protobuf/util/message_differencer.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "log/json_text.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "replay/replay.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

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
    if (p.extension() != ".jsonl" || p.filename() == kIndexFile) continue;
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

namespace fs = std::filesystem;

struct Verdict {
  bool ok = false;
  int hands = 0;
  int plays = 0;
  std::string text;  // the line to print
  // What a tournament's index is checked against (set when ok).
  v1::LogHeader header;
  v1::LogMatchEnd match_end;
};

Verdict verify_one(const std::string& path) {
  Replay replay;
  LogError error;
  Verdict v;
  v.ok = load_replay_file(path, replay, error, ReplayOptions{.keep_steps = false});
  if (v.ok) {
    v.header = replay.header;
    v.match_end = replay.match_end;
    v.hands = replay.hands;
    v.plays = replay.plays;
    v.text = "OK  " + path + "  (" + std::to_string(replay.hands) + " hands, " +
             std::to_string(replay.plays) + " plays)";
  } else {
    v.text = "FAIL " + error.describe();
  }
  return v;
}

std::string normal(const fs::path& p) {
  return p.lexically_normal().string();
}

// A tournament output folder (one holding tournament.txtpb): its index and the logs it names.
struct TournamentFolder {
  std::string dir;
  std::string index_path;
  std::vector<v1::IndexEntry> entries;  // index line i + 1 is entries[i]
  std::set<std::string> indexed_logs;   // normal() paths of the logs the index names
  std::vector<std::string> failures;    // "PATH:LINE: why"
  std::vector<std::string> notes;
  TournamentDef def;
  bool def_ok = false;
  // The schedule of each definition the index's lines were played with, generated from the
  // ordinal (never listed): the file itself, and the file before bots were appended to it
  // (filled as needed, by schedule_of). A map's nodes stay put, so each Schedule's definition
  // does too.
  std::map<std::string, std::pair<TournamentDef, std::unique_ptr<Schedule>>> schedules;

  // The schedule of the definition with this hash, or null if it is neither the file's nor
  // that of the file before bots were appended.
  const Schedule* schedule_of(const std::string& hash) {
    if (!def_ok) return nullptr;
    if (auto it = schedules.find(hash); it != schedules.end()) return it->second.second.get();
    std::optional<TournamentDef> d;
    if (hash == def.hash)
      d = def;
    else
      d = earlier_definition(def, hash);
    if (!d) return nullptr;
    auto& entry = schedules[hash];
    entry.first = std::move(*d);
    entry.second = std::make_unique<Schedule>(entry.first);
    return entry.second.get();
  }
};

// A folder holding any of a tournament output folder's files is one.
bool is_tournament_folder(const fs::path& dir) {
  for (const std::string_view name : {kDefinitionFile, kIndexFile, kLockFile}) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / name, ec))) return true;
  }
  return false;
}

// Every folder at or under `path` that is a tournament output folder (holds its definition, its
// index or its lock, whatever their state: a missing definition or index is a failure).
std::vector<std::string> tournament_folders(const std::string& path) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return out;
  if (is_tournament_folder(path)) out.push_back(path);
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code dir_ec;
    if (it->is_directory(dir_ec) && !it->is_symlink(dir_ec) && is_tournament_folder(it->path()))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Reads the folder's definition and index (the logs come later).
TournamentFolder read_tournament_folder(const std::string& dir) {
  TournamentFolder t;
  t.dir = dir;
  t.index_path = output_path(dir, kIndexFile);
  const std::string file = (fs::path(dir) / kDefinitionFile).string();
  std::string why;
  std::error_code ec;
  // Without the definition no line can be checked against a schedule; without the index no
  // log can be told finished: either is a failure, never a pass by default.
  if (!fs::exists(fs::symlink_status(file, ec))) {
    t.failures.push_back(file +
                         " is missing: the index and the logs cannot be checked against the "
                         "tournament's schedule");
  } else {
    t.def_ok = load_tournament(file, t.def, &why, {}, LoadOptions{.check_programs = false});
    if (!t.def_ok) t.failures.push_back(why);
  }
  if (!fs::exists(fs::symlink_status(t.index_path, ec))) {
    t.failures.push_back(t.index_path + " is missing: no match of " + dir +
                         " can be vouched for as finished");
  } else if (!read_index(t.index_path, /*repair=*/false, t.entries, t.notes, &why)) {
    t.failures.push_back(why);
    t.entries.clear();
  }
  for (const v1::IndexEntry& e : t.entries)
    if (check_safe_name(e.match().match_id(), "match id", kMaxMatchIdLength, nullptr))
      t.indexed_logs.insert(normal(fs::path(dir) / e.log_file()));
  return t;
}

template <typename T>
std::string list(const T& values) {
  std::ostringstream s;
  s << '[';
  bool first = true;
  for (const auto& v : values) {
    s << (first ? "" : ", ") << v;
    first = false;
  }
  s << ']';
  return s.str();
}

// The index against the schedule and the logs: every line's match is the scheduled one, its log
// exists, is named for it, verifies, and tells the same match and result.
void check_index(TournamentFolder& t, const std::map<std::string, const Verdict*>& verdicts) {
  if (!t.def_ok) return;
  // Each line is checked against the schedule of its own hash, ordinal included.
  std::map<std::string, int> seen;  // match id -> index line
  for (size_t i = 0; i < t.entries.size(); ++i) {
    const v1::IndexEntry& e = t.entries[i];
    const std::string at = t.index_path + ":" + std::to_string(i + 1) + ": ";
    const std::string& id = e.match().match_id();
    auto fail = [&](const std::string& why) { t.failures.push_back(at + why); };
    std::string why;
    if (!check_safe_name(id, "match id", kMaxMatchIdLength, &why)) {
      fail(why);
      continue;
    }
    if (auto [it, fresh] = seen.emplace(id, static_cast<int>(i + 1)); !fresh) {
      fail("match " + id + " is already in the index at line " + std::to_string(it->second));
      continue;
    }
    const Schedule* schedule = t.schedule_of(e.tournament_hash());
    if (!schedule) {
      fail("tournament_hash '" + printable(e.tournament_hash()) + "' is not the hash of " +
           output_path(t.dir, kDefinitionFile) + " ('" + t.def.hash +
           "') nor of that file before bots were appended");
      continue;
    }
    const std::optional<uint64_t> ordinal = schedule->ordinal_of_id(id);
    if (!ordinal) {
      fail("match " + id + " is not in the schedule of " + output_path(t.dir, kDefinitionFile) +
           (e.tournament_hash() == t.def.hash ? "" : " (with the bots it had then)"));
      continue;
    }
    const v1::ScheduledMatch m = schedule->at(*ordinal);
    if (!google::protobuf::util::MessageDifferencer::Equals(e.match(), m)) {
      std::string diff;
      if (e.match().ordinal() != m.ordinal())
        diff += "; ordinal " + std::to_string(e.match().ordinal()) + ", scheduled " +
                std::to_string(m.ordinal());
      if (e.match().seed() != m.seed())
        diff += "; seed " + std::to_string(e.match().seed()) + ", scheduled " +
                std::to_string(m.seed());
      if (!std::equal(e.match().seat_bots().begin(), e.match().seat_bots().end(),
                      m.seat_bots().begin(), m.seat_bots().end()))
        diff += "; seats " + printable(list(e.match().seat_bots())) + ", scheduled " +
                list(m.seat_bots());
      if (diff.empty()) diff = "; pairing, deal or rotation differ";
      fail("match " + id + " is not the scheduled one" + diff);
    }
    const std::string expected_file = match_log_name(id);
    if (e.log_file() != expected_file) {
      fail("log_file '" + printable(e.log_file()) + "' is not named for match " + id +
           " (expected " + expected_file + ")");
      continue;
    }
    const std::string log = normal(fs::path(t.dir) / e.log_file());
    const auto v = verdicts.find(log);
    std::error_code ec;
    if (v == verdicts.end() || !fs::exists(log, ec)) {
      fail("the log of match " + id + " is missing (" + log + ")");
      continue;
    }
    if (!v->second->ok) {
      fail("the log of match " + id + " does not verify (see its FAIL line)");
      continue;
    }
    const v1::LogHeader& h = v->second->header;
    const v1::LogMatchEnd& end = v->second->match_end;
    std::vector<std::string> log_seats;
    for (const v1::LogBot& b : h.bots()) log_seats.push_back(b.display_name());
    std::string diff;
    if (h.match_id() != id) diff += "; the log's match id is " + printable(h.match_id());
    if (h.seed() != m.seed())
      diff += "; the log's seed is " + std::to_string(h.seed()) + ", scheduled " +
              std::to_string(m.seed());
    if (!std::equal(log_seats.begin(), log_seats.end(), m.seat_bots().begin(), m.seat_bots().end()))
      diff += "; the log's seats are " + printable(list(log_seats)) + ", scheduled " +
              list(m.seat_bots());
    if (end.reason() != e.reason())
      diff += std::string("; reason: the index says ") + v1::MatchEndReason_Name(e.reason()) +
              ", the log " + v1::MatchEndReason_Name(end.reason());
    if (end.winner_side() != e.winner_side())
      diff += "; winner_side: the index says " + std::to_string(e.winner_side()) + ", the log " +
              std::to_string(end.winner_side());
    if (!std::equal(end.scores().begin(), end.scores().end(), e.scores().begin(), e.scores().end()))
      diff += "; scores: the index says " + list(e.scores()) + ", the log " + list(end.scores());
    if (!std::equal(end.placements().begin(), end.placements().end(), e.placements().begin(),
                    e.placements().end()))
      diff += "; placements: the index says " + list(e.placements()) + ", the log " +
              list(end.placements());
    if (end.fault_seat() != e.fault_seat() ||
        (e.fault_seat() >= 0 && end.fault_kind() != e.fault_kind()))
      diff += "; fault: the index says seat " + std::to_string(e.fault_seat()) + " " +
              v1::FaultKind_Name(e.fault_kind()) + ", the log seat " +
              std::to_string(end.fault_seat()) + " " + v1::FaultKind_Name(end.fault_kind());
    if (end.hands_played() != e.hands_played())
      diff += "; hands_played: the index says " + std::to_string(e.hands_played()) + ", the log " +
              std::to_string(end.hands_played());
    if (!diff.empty()) fail("match " + id + " disagrees with its log " + log + diff);
  }
}

// The tournament folder a log belongs to: the deepest one holding it, or null.
TournamentFolder* owner_of(std::vector<TournamentFolder>& tournaments, const std::string& log) {
  const std::string n = normal(log);
  TournamentFolder* best = nullptr;
  for (TournamentFolder& t : tournaments) {
    const std::string prefix = normal(t.dir) + "/";
    if (n.rfind(prefix, 0) == 0 && (!best || t.dir.size() > best->dir.size())) best = &t;
  }
  return best;
}

// A log of folder `t` that its index does not name. "" if it is one of the tournament's
// scheduled matches, stopped (or finished but not yet indexed): matches/ID.jsonl for a
// scheduled ID whose header is that match's (a log copied from elsewhere has another seed or
// other seats). Otherwise why it is no log of this tournament.
std::string why_not_unfinished(TournamentFolder& t, const std::string& log) {
  const fs::path rel = fs::path(normal(log)).lexically_relative(normal(t.dir));
  const std::string where =
      "not a log of a scheduled match of " + output_path(t.dir, kDefinitionFile);
  if (rel.parent_path() != fs::path(kMatchesFolder) || rel.extension() != ".jsonl")
    return where + " (its logs are matches/MATCH_ID.jsonl)";
  const Schedule* schedule = t.schedule_of(t.def.hash);
  if (!schedule) return where + " (the definition cannot be read)";
  const std::string id = rel.stem().string();
  const std::optional<uint64_t> ordinal = schedule->ordinal_of_id(id);
  if (!ordinal) return where + " ('" + id + "' is no match id of its schedule)";
  const v1::ScheduledMatch scheduled = schedule->at(*ordinal);
  const auto* m = &scheduled;
  std::string text, why;
  if (!read_log_file(log, text, &why)) return why;
  v1::LogRecord first;
  if (!parse_log_line(std::string_view(text).substr(0, text.find('\n')), first, &why) ||
      first.kind_case() != v1::LogRecord::kHeader)
    return "its first line is not a log header" + (why.empty() ? "" : ": " + why);
  const v1::LogHeader& h = first.header();
  std::vector<std::string> seats;
  for (const v1::LogBot& b : h.bots()) seats.push_back(b.display_name());
  if (h.match_id() != id || h.seed() != m->seed() ||
      !std::equal(seats.begin(), seats.end(), m->seat_bots().begin(), m->seat_bots().end()))
    return "a foreign log: its header's match id, seed or seats are not those of scheduled "
           "match " +
           id;
  return "";
}

// Whatever DIR/matches holds that is not a log file (*.jsonl): junk that nothing vouches for.
void scan_matches_folder(TournamentFolder& t) {
  const fs::path folder = fs::path(t.dir) / kMatchesFolder;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(folder, ec))) return;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) {
    t.failures.push_back(folder.string() + " is not a folder");
    return;
  }
  for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code type_ec;
    const bool log_file = it->path().extension() == ".jsonl" &&
                          fs::is_regular_file(fs::symlink_status(it->path(), type_ec));
    if (!log_file)
      t.failures.push_back(it->path().string() +
                           ": not a match log (a folder of match logs holds only MATCH_ID.jsonl "
                           "files)");
  }
}

}  // namespace

int verify_logs(const std::vector<std::string>& paths, bool quiet, std::ostream& out,
                std::ostream& err, int jobs, bool allow_unfinished) {
  std::vector<std::string> logs;
  for (const std::string& p : paths) {
    std::string why;
    std::error_code ec;
    // A tournament folder without logs (nothing finished yet) is still checked as a whole.
    if (!collect_logs(p, logs, &why) && !(fs::is_directory(p, ec) && is_tournament_folder(p) &&
                                          why.find("no *.jsonl logs") != std::string::npos)) {
      err << "referee verify: " << why << "\n";
      return 2;
    }
  }
  // Tournament folders: their indexes are read first, so that logs outside an index can be
  // reported as unfinished as they are printed.
  std::vector<TournamentFolder> tournaments;
  for (const std::string& p : paths)
    for (const std::string& dir : tournament_folders(p))
      tournaments.push_back(read_tournament_folder(dir));
  for (TournamentFolder& t : tournaments) scan_matches_folder(t);
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
  int failed = 0, not_indexed = 0;
  long long hands = 0, plays = 0;
  for (size_t i = 0; i < n; ++i) {
    if (jobs == 1) {
      verdicts[i] = verify_one(logs[i]);
    } else {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[i] != 0; });
    }
    const Verdict& v = verdicts[i];
    TournamentFolder* t = owner_of(tournaments, logs[i]);
    if (t && !t->indexed_logs.count(normal(logs[i]))) {
      // Not a result: a stopped match, or one whose index line never made it (resume replays
      // it), if it is a scheduled match at all.
      if (const std::string why = why_not_unfinished(*t, logs[i]); !why.empty()) {
        ++failed;
        out << "FAIL " << logs[i] << ": " << why << "\n";
        continue;
      }
      ++not_indexed;
      out << "UNFINISHED " << logs[i] << "  (not in " << t->index_path
          << (v.ok ? "" : "; the log itself: " + v.text.substr(5)) << ")\n";
      continue;
    }
    if (v.ok) {
      hands += v.hands;
      plays += v.plays;
    } else {
      ++failed;
    }
    if (!v.ok || !quiet) out << v.text << "\n";
  }
  for (std::thread& t : workers) t.join();
  std::map<std::string, const Verdict*> by_path;
  for (size_t i = 0; i < n; ++i) by_path[normal(logs[i])] = &verdicts[i];
  int index_failures = 0;
  for (TournamentFolder& t : tournaments) {
    check_index(t, by_path);
    for (const std::string& note : t.notes) out << "NOTE " << note << "\n";
    for (const std::string& f : t.failures) out << "FAIL " << f << "\n";
    index_failures += static_cast<int>(t.failures.size());
    if (t.failures.empty() && !quiet)
      out << "OK  " << t.index_path << "  (" << t.entries.size()
          << " finished matches, each the scheduled match of " << t.dir
          << "/tournament.txtpb with a log that agrees)\n";
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out << n << (n == 1 ? " log" : " logs")
      << " verified: " << n - static_cast<size_t>(failed) - static_cast<size_t>(not_indexed)
      << " OK, " << failed << " failed (" << hands << " hands, " << plays
      << " plays in the logs that are OK) in " << seconds << " s";
  if (not_indexed > 0)
    out << "; " << not_indexed << " unfinished (not in an index"
        << (allow_unfinished ? ", accepted by --allow-unfinished)"
                             : "; a run still in progress? --allow-unfinished accepts them)");
  if (!tournaments.empty())
    out << "; " << tournaments.size() << (tournaments.size() == 1 ? " index" : " indexes")
        << " checked, " << index_failures << " problems";
  out << "\n";
  out.flush();
  return failed || index_failures || (not_indexed > 0 && !allow_unfinished) ? 1 : 0;
}

}  // namespace allfives::referee
