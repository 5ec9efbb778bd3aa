#include "replay/verify.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

#include <google/protobuf/util/message_differencer.h>

#include "allfives/core/rng.h"
#include "log/json_text.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "replay/ordered_pool.h"
#include "replay/replay.h"
#include "replay/timing_signal.h"
#include "review/review_file.h"
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
    if (p.extension() != ".jsonl" || p.filename() == kIndexFile ||
        is_review_path(p.filename().string()))
      continue;
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
  bool missing = false;  // no regular file to verify (an index line's log only)
  int hands = 0;
  int plays = 0;
  std::string text;  // the line to print
  // What a tournament's index is checked against (set when ok).
  v1::LogHeader header;
  v1::LogMatchEnd match_end;
  std::array<std::vector<TimedDecision>, kMaxPlayers> decisions;  // each seat's (set when ok)
};

Verdict verify_one(const std::string& path) {
  Replay replay;
  LogError error;
  Verdict v;
  v.ok = load_replay_file(path, replay, error,
                          ReplayOptions{.keep_steps = false, .keep_decisions = true});
  if (v.ok) {
    v.header = std::move(replay.header);
    v.match_end = std::move(replay.match_end);
    if (v.header.bots_size() >= 3) v.decisions = std::move(replay.decisions);
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

// A folder's path as a key: normal, without a trailing '/'.
std::string folder_key(const fs::path& p) {
  std::string s = normal(p);
  if (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// What a run prints and counts: one line per log and per problem, and the summary's numbers.
// At most kKeptDecisions of a bot's decisions, a uniform sample of all it made (Algorithm R,
// with a fixed seed: the logs come in the index's order, so the sample is the same at any -j),
// so verify's memory stays flat in the size of a tournament.
struct TimedSample {
  static constexpr size_t kKeptDecisions = 20000;
  std::vector<TimedDecision> kept;
  uint64_t seen = 0;
  SplitMix64 rng{1};

  void add(const TimedDecision& d) {
    ++seen;
    if (kept.size() < kKeptDecisions) {
      kept.push_back(d);
    } else if (const uint64_t j = rng.below64(seen); j < kKeptDecisions) {
      kept[j] = d;
    }
  }
};

struct Report {
  std::ostream& out;
  bool quiet = false;
  size_t logs = 0;
  int failed = 0, unfinished = 0, index_failures = 0;
  long long hands = 0, plays = 0;
  size_t indexes = 0;
  std::map<std::string, TimedSample> timed{};  // by bot display name

  // A log's own verdict, counted and printed (an OK line only without quiet).
  void verdict(const Verdict& v) {
    ++logs;
    if (v.ok) {
      hands += v.hands;
      plays += v.plays;
      keep_timed(v);
    } else {
      ++failed;
    }
    if (!v.ok || !quiet) out << v.text << "\n";
  }
  // An OK log's decisions under each seat's bot, at tables of 3 or 4 only: at a table of 2
  // there is no partner to signal to and no third player to collude against.
  void keep_timed(const Verdict& v) {
    const int seats = v.header.bots_size();
    if (seats < 3) return;
    for (int s = 0; s < seats && s < kMaxPlayers; ++s) {
      TimedSample& sample = timed[v.header.bots(s).display_name()];
      for (const TimedDecision& d : v.decisions[static_cast<size_t>(s)]) sample.add(d);
    }
  }
  // A file that is counted as a log and fails for what it is, not for its content.
  void failed_log(const std::string& path, const std::string& why) {
    ++logs;
    ++failed;
    out << "FAIL " << path << ": " << why << "\n";
  }
  // A problem of a tournament folder as a whole ("PATH:LINE: why", "FILE is missing", ...).
  void folder_problem(const std::string& text) {
    ++index_failures;
    out << "FAIL " << text << "\n";
  }
};

// The names of a tournament output folder's files: a folder holding any of them is one.

bool is_tournament_folder(const fs::path& dir) {
  for (const std::string_view name : {kDefinitionFile, kIndexFile, kLockFile}) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / name, ec))) return true;
  }
  return false;
}

// A tournament output folder (one holding tournament.txtpb, index.jsonl or referee.lock),
// checked as a stream: its index is read line by line and each line's log verified as it
// comes, so what is held is a bit or two per scheduled match, never the entries.
struct TournamentFolder {
  std::string dir;
  std::string index_path;
  std::vector<std::string> misplaced;  // *.jsonl inside it but outside matches/ (the walk's)
  TournamentDef def;
  bool def_ok = false;
  int problems_before = 0;  // Report::index_failures when the folder's check began
  // The schedule of each definition the index's lines were played with, generated from the
  // ordinal (never listed): the file itself, and the file before bots were appended to it
  // (filled as needed, by schedule_of). A map's nodes stay put, so each Schedule's definition
  // does too.
  std::map<std::string, std::pair<TournamentDef, std::unique_ptr<Schedule>>> schedules;
  // By ordinal in the file's schedule (ids are stable as bots are appended, so every line has
  // one): a line named the match (a second one is a duplicate), a line's log was verified.
  std::vector<bool> seen, claimed;
  uint64_t lines = 0;
  std::vector<std::pair<uint64_t, std::string>> duplicates;  // (line, match id)

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

  // The ordinal in the file's schedule of the match called exactly `id`, or nothing.
  std::optional<uint64_t> ordinal_of(const std::string& id) {
    const Schedule* s = schedule_of(def.hash);
    if (!s) return std::nullopt;
    const std::optional<uint64_t> o = s->ordinal_of_id(id);
    if (!o || s->at(*o).match_id() != id) return std::nullopt;
    return o;
  }
};

// The folders and logs one path names: the logs outside any tournament folder, sorted, and
// every tournament folder at or under it (a tournament's matches/ is read by its own check).
struct Found {
  std::vector<std::string> logs;
  std::vector<TournamentFolder> tournaments;
};

// The tournament folder that holds `p`: the deepest of those found so far (a walk meets a
// folder before what it holds), or null.
TournamentFolder* owner_of(std::vector<TournamentFolder>& tournaments, const fs::path& p) {
  const std::string n = normal(p);
  TournamentFolder* best = nullptr;
  for (TournamentFolder& t : tournaments) {
    const std::string prefix = folder_key(t.dir) + "/";
    if (n.rfind(prefix, 0) == 0 && (!best || t.dir.size() > best->dir.size())) best = &t;
  }
  return best;
}

TournamentFolder tournament_at(const fs::path& dir) {
  TournamentFolder t;
  t.dir = dir.string();
  if (t.dir.size() > 1 && t.dir.back() == '/') t.dir.pop_back();
  t.index_path = (fs::path(t.dir) / kIndexFile).string();
  return t;
}

void walk(const std::string& path, Found& found) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    found.logs.push_back(path);
    return;
  }
  if (is_tournament_folder(path)) found.tournaments.push_back(tournament_at(path));
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      if (it->is_symlink(type_ec)) continue;
      TournamentFolder* t = owner_of(found.tournaments, p);
      if (t && p.filename() == kMatchesFolder && folder_key(p.parent_path()) == folder_key(t->dir))
        it.disable_recursion_pending();  // checked by the tournament's own scan
      else if (is_tournament_folder(p))
        found.tournaments.push_back(tournament_at(p));
      continue;
    }
    if (p.extension() != ".jsonl" || p.filename() == kIndexFile || !it->is_regular_file(type_ec))
      continue;
    if (TournamentFolder* t = owner_of(found.tournaments, p))
      t->misplaced.push_back(p.string());
    else
      found.logs.push_back(p.string());
  }
  std::sort(found.logs.begin(), found.logs.end());
  std::sort(found.tournaments.begin(), found.tournaments.end(),
            [](const TournamentFolder& a, const TournamentFolder& b) { return a.dir < b.dir; });
}

// Whether `path` is something to verify: a file, a folder holding a *.jsonl log at any depth,
// or a tournament folder (checked as a whole even before its first log). Says why not.
bool check_path(const std::string& path, std::string& why) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    why = path + ": no such file or folder";
    return false;
  }
  if (!fs::is_directory(st) || is_tournament_folder(path)) return true;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code file_ec;
    if (it->path().extension() == ".jsonl" && it->path().filename() != kIndexFile &&
        it->is_regular_file(file_ec))
      return true;
  }
  why = ec ? path + ": cannot list the folder: " + ec.message()
           : path + ": no *.jsonl logs in this folder";
  return false;
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

// Reads the folder's definition; without it no line can be checked against a schedule, and
// without the index no log can be told finished: either is a failure, never a pass by default.
void read_definition(TournamentFolder& t, Report& report) {
  const std::string file = (fs::path(t.dir) / kDefinitionFile).string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    report.folder_problem(file +
                          " is missing: the index and the logs cannot be checked against the "
                          "tournament's schedule");
    return;
  }
  std::string why;
  t.def_ok = load_tournament(file, t.def, &why, {}, LoadOptions{.check_programs = false});
  if (!t.def_ok) {
    report.folder_problem(why);
    return;
  }
  const uint64_t size = t.schedule_of(t.def.hash)->size();
  t.seen.assign(size, false);
  t.claimed.assign(size, false);
}

// One index line on its way through the pool: the entry, and the log it claims ("" if none).
struct IndexLine {
  uint64_t line = 0;
  v1::IndexEntry entry;
  std::string log;         // DIR/matches/ID.jsonl as the walk names it
  bool duplicate = false;  // its match was named by an earlier line
};

// An index line's log, if it is one: a line whose match id is a match of the file's schedule
// named for the first time, with the log named for that match, claims it (it is verified
// with the line). A second line of a match is a duplicate (reported after the index is read,
// with the first one's line number).
void claim_log(TournamentFolder& t, IndexLine& l) {
  const std::string& id = l.entry.match().match_id();
  if (!t.def_ok || !check_safe_name(id, "match id", kMaxMatchIdLength, nullptr)) return;
  const std::optional<uint64_t> o = t.ordinal_of(id);
  if (!o) return;
  if (t.seen[*o]) {
    l.duplicate = true;
    t.duplicates.emplace_back(l.line, id);
    return;
  }
  t.seen[*o] = true;
  if (l.entry.log_file() != "matches/" + id + ".jsonl") return;
  t.claimed[*o] = true;
  l.log = (fs::path(t.dir) / l.entry.log_file()).string();
}

// The scheduled match an index line must be, or why it is none ("" with a match).
std::string scheduled_problem(TournamentFolder& t, const v1::IndexEntry& e, v1::ScheduledMatch& m) {
  const std::string& id = e.match().match_id();
  std::string why;
  if (!check_safe_name(id, "match id", kMaxMatchIdLength, &why)) return why;
  const Schedule* schedule = t.schedule_of(e.tournament_hash());
  if (!schedule)
    return "tournament_hash '" + printable(e.tournament_hash()) + "' is not the hash of " + t.dir +
           "/" + std::string(kDefinitionFile) + " ('" + t.def.hash +
           "') nor of that file before bots were appended";
  const std::optional<uint64_t> ordinal = schedule->ordinal_of_id(id);
  if (!ordinal)
    return "match " + id + " is not in the schedule of " + t.dir + "/" +
           std::string(kDefinitionFile) +
           (e.tournament_hash() == t.def.hash ? "" : " (with the bots it had then)");
  m = schedule->at(*ordinal);
  return "";
}

// How an index line's match differs from the scheduled one ("" if it does not).
std::string match_difference(const v1::ScheduledMatch& got, const v1::ScheduledMatch& m) {
  if (google::protobuf::util::MessageDifferencer::Equals(got, m)) return "";
  std::string diff;
  if (got.ordinal() != m.ordinal())
    diff +=
        "; ordinal " + std::to_string(got.ordinal()) + ", scheduled " + std::to_string(m.ordinal());
  if (got.seed() != m.seed())
    diff += "; seed " + std::to_string(got.seed()) + ", scheduled " + std::to_string(m.seed());
  if (!std::equal(got.seat_bots().begin(), got.seat_bots().end(), m.seat_bots().begin(),
                  m.seat_bots().end()))
    diff += "; seats " + printable(list(got.seat_bots())) + ", scheduled " + list(m.seat_bots());
  if (diff.empty()) diff = "; pairing, deal or rotation differ";
  return "match " + got.match_id() + " is not the scheduled one" + diff;
}

// How a verified log differs from its index line and its scheduled match ("" if it does not).
std::string log_difference(const Verdict& v, const v1::IndexEntry& e, const v1::ScheduledMatch& m) {
  const v1::LogHeader& h = v.header;
  const v1::LogMatchEnd& end = v.match_end;
  std::vector<std::string> log_seats;
  for (const v1::LogBot& b : h.bots()) log_seats.push_back(b.display_name());
  std::string diff;
  if (h.match_id() != e.match().match_id())
    diff += "; the log's match id is " + printable(h.match_id());
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
  return diff;
}

// An index line with its log's verdict: the log's own line, then the line against the schedule
// and against the log. Every line's match is the scheduled one, its log exists, is named for
// it, verifies, and tells the same match and result.
void check_line(TournamentFolder& t, IndexLine& l, const Verdict& v, Report& report) {
  if (!l.log.empty() && !v.missing) report.verdict(v);
  if (!t.def_ok || l.duplicate) return;
  const v1::IndexEntry& e = l.entry;
  const std::string& id = e.match().match_id();
  const std::string at = t.index_path + ":" + std::to_string(l.line) + ": ";
  auto fail = [&](const std::string& why) { report.folder_problem(at + why); };
  v1::ScheduledMatch m;
  if (const std::string why = scheduled_problem(t, e, m); !why.empty()) return fail(why);
  if (const std::string diff = match_difference(e.match(), m); !diff.empty()) fail(diff);
  const std::string expected_file = "matches/" + id + ".jsonl";
  if (e.log_file() != expected_file)
    return fail("log_file '" + printable(e.log_file()) + "' is not named for match " + id +
                " (expected " + expected_file + ")");
  // Ids are stable as bots are appended: a match of any schedule the lines may come from is
  // one of the file's, so only a line the checks above failed claims no log.
  if (l.log.empty())
    return fail("match " + id + " is not in the schedule of " + t.dir + "/" +
                std::string(kDefinitionFile));
  const std::string log = normal(fs::path(t.dir) / e.log_file());
  if (v.missing) return fail("the log of match " + id + " is missing (" + log + ")");
  if (!v.ok) return fail("the log of match " + id + " does not verify (see its FAIL line)");
  if (const std::string diff = log_difference(v, e, m); !diff.empty())
    fail("match " + id + " disagrees with its log " + log + diff);
}

// A claimed log's verdict ("missing" if no regular file is there); none for a line without.
Verdict verify_claimed(const IndexLine& l) {
  Verdict v;
  if (l.log.empty()) return v;
  std::error_code ec;
  if (!fs::is_regular_file(l.log, ec)) {
    v.missing = true;
    return v;
  }
  return verify_one(l.log);
}

// Each duplicate line, with the line that first named its match (found by reading the index
// again: duplicates are rare, and remembering every line's number would cost a word a match).
void report_duplicates(TournamentFolder& t, Report& report) {
  if (t.duplicates.empty()) return;
  std::map<std::string, uint64_t> first;  // match id -> line
  for (const auto& [line, id] : t.duplicates) first.emplace(id, 0);
  uint64_t line = 0;
  std::vector<std::string> notes;
  read_index_stream(
      t.index_path, /*repair=*/false,
      [&](v1::IndexEntry&& e) {
        ++line;
        auto it = first.find(e.match().match_id());
        if (it != first.end() && it->second == 0) it->second = line;
      },
      notes, nullptr);
  for (const auto& [line_no, id] : t.duplicates)
    report.folder_problem(t.index_path + ":" + std::to_string(line_no) + ": match " + id +
                          " is already in the index at line " + std::to_string(first[id]));
}

// The index read line by line, each line's log verified on `jobs` threads as it comes.
void check_index(TournamentFolder& t, Report& report, int jobs) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(t.index_path, ec))) {
    report.folder_problem(t.index_path + " is missing: no match of " + t.dir +
                          " can be vouched for as finished");
    return;
  }
  OrderedPool<IndexLine, Verdict> pool(
      jobs, verify_claimed, [&](IndexLine& l, Verdict& v) { check_line(t, l, v, report); });
  std::vector<std::string> notes;
  std::string why;
  const bool read = read_index_stream(
      t.index_path, /*repair=*/false,
      [&](v1::IndexEntry&& e) {
        IndexLine l{++t.lines, std::move(e), ""};
        claim_log(t, l);
        pool.push(std::move(l));
      },
      notes, &why);
  pool.finish();
  report_duplicates(t, report);
  for (const std::string& note : notes) report.out << "NOTE " << note << "\n";
  if (!read) report.folder_problem(why);
}

// A log of folder `t` that its index does not name. "" if it is one of the tournament's
// scheduled matches, stopped (or finished but not yet indexed): matches/ID.jsonl for a
// scheduled ID whose header is that match's (a log copied from elsewhere has another seed or
// other seats). Otherwise why it is no log of this tournament.
std::string why_not_unfinished(TournamentFolder& t, const std::string& log) {
  const std::string where =
      "not a log of a scheduled match of " + t.dir + "/" + std::string(kDefinitionFile);
  const Schedule* schedule = t.schedule_of(t.def.hash);
  if (!schedule) return where + " (the definition cannot be read)";
  const std::string id = fs::path(log).stem().string();
  const std::optional<uint64_t> ordinal = schedule->ordinal_of_id(id);
  if (!ordinal) return where + " ('" + id + "' is no match id of its schedule)";
  const v1::ScheduledMatch m = schedule->at(*ordinal);
  std::string text, why;
  if (!read_log_file(log, text, &why)) return why;
  v1::LogRecord first;
  if (!parse_log_line(std::string_view(text).substr(0, text.find('\n')), first, &why) ||
      first.kind_case() != v1::LogRecord::kHeader)
    return "its first line is not a log header" + (why.empty() ? "" : ": " + why);
  const v1::LogHeader& h = first.header();
  std::vector<std::string> seats;
  for (const v1::LogBot& b : h.bots()) seats.push_back(b.display_name());
  if (h.match_id() != id || h.seed() != m.seed() ||
      !std::equal(seats.begin(), seats.end(), m.seat_bots().begin(), m.seat_bots().end()))
    return "a foreign log: its header's match id, seed or seats are not those of scheduled "
           "match " +
           id;
  return "";
}

// A log under DIR/matches that no index line claimed: its verdict and why it is not a log of
// a scheduled match ("" if it is one: an unfinished match).
struct StrayVerdict {
  Verdict verdict;
  std::string why_not_unfinished;
};

// Not a result: a stopped match, or one whose index line never made it (resume replays it),
// if it is a scheduled match at all.
void report_stray(const TournamentFolder& t, const std::string& log, const StrayVerdict& s,
                  Report& report) {
  if (!s.why_not_unfinished.empty()) return report.failed_log(log, s.why_not_unfinished);
  ++report.logs;
  ++report.unfinished;
  const Verdict& v = s.verdict;
  report.out << "UNFINISHED " << log << "  (not in " << t.index_path
             << (v.ok ? "" : "; the log itself: " + v.text.substr(5)) << ")\n";
}

// DIR/matches, entry by entry: what is not a log file (*.jsonl) is junk that nothing vouches
// for; a log no index line claimed is unfinished or fails. Without a readable definition no
// log can be told from another tournament's, and each is verified as a log alone.
void scan_matches_folder(TournamentFolder& t, Report& report, int jobs) {
  const fs::path folder = fs::path(t.dir) / kMatchesFolder;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(folder, ec))) return;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) {
    report.folder_problem(folder.string() + " is not a folder");
    return;
  }
  // The threads only read the file's schedule, made before they start.
  t.schedule_of(t.def.hash);
  OrderedPool<std::string, StrayVerdict> pool(
      jobs,
      [&](const std::string& log) {
        return StrayVerdict{verify_one(log), t.def_ok ? why_not_unfinished(t, log) : ""};
      },
      [&](std::string& log, StrayVerdict& s) {
        if (!t.def_ok) return report.verdict(s.verdict);
        report_stray(t, log, s, report);
      });
  for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code type_ec;
    if (is_review_path(p.string()) && fs::is_regular_file(fs::symlink_status(p, type_ec))) {
      // A review beside its log (`referee review DIR`) is the reviewer's, not the match's.
      ReviewFile review;
      std::string why;
      if (!read_review_file(p.string(), review, &why)) report.folder_problem(why);
      continue;
    }
    if (p.extension() != ".jsonl" || !fs::is_regular_file(fs::symlink_status(p, type_ec))) {
      report.folder_problem(p.string() +
                            ": not a match log (a folder of match logs holds only "
                            "MATCH_ID.jsonl files and their reviews, MATCH_ID.review.jsonl)");
      continue;
    }
    if (const auto o = t.ordinal_of(p.stem().string()); o && t.claimed[*o]) continue;
    pool.push(p.string());
  }
}

// A tournament folder as a whole: its definition, its index line by line with the logs the
// lines name, the logs it holds elsewhere, and what else its matches/ holds.
void check_tournament(TournamentFolder& t, Report& report, int jobs) {
  ++report.indexes;
  t.problems_before = report.index_failures;
  read_definition(t, report);
  check_index(t, report, jobs);
  const std::string where =
      "not a log of a scheduled match of " + t.dir + "/" + std::string(kDefinitionFile);
  for (const std::string& log : t.misplaced)
    report.failed_log(log, where + " (its logs are matches/MATCH_ID.jsonl)");
  scan_matches_folder(t, report, jobs);
  if (report.index_failures == t.problems_before && !report.quiet)
    report.out << "OK  " << t.index_path << "  (" << t.lines
               << " finished matches, each the scheduled match of " << t.dir
               << "/tournament.txtpb with a log that agrees)\n";
}

std::string format_number(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// One bot's timing test in words (docs/STATISTICS.md, "Decision times and hidden tiles").
std::string timing_line(const std::string& bot, const TimingSignal& s) {
  std::string line = "decision times of " + printable(bot) + ": " + std::to_string(s.decisions) +
                     (s.decisions == 1 ? " decision" : " decisions") + " at tables of 3 or 4";
  if (s.decisions < kMinTimedDecisions)
    return line + ": too few decisions (N < " + std::to_string(kMinTimedDecisions) + ") to test";
  line += ", p = " + format_number("%.2g", s.p);
  if (!s.flagged) return line + ": nothing found";
  return line + ": FLAGGED (decision " + std::to_string(s.index) + " of a hand against tile " +
         to_string(Tile::from_index(s.tile)) + ", z = " + format_number("%.1f", s.z) +
         "); its seats' times predict their hidden tiles";
}

// A line per bot that sat at a table of 3 or 4; with quiet only the flagged ones. A flag is
// information, not a failure: the exit status does not change.
void print_timings(const Report& r) {
  for (const auto& [bot, sample] : r.timed) {
    const TimingSignal s = timing_signal(sample.kept);
    if (s.flagged || !r.quiet) r.out << timing_line(bot, s) << "\n";
  }
}

void print_summary(const Report& r, double seconds, bool allow_unfinished) {
  const size_t ok = r.logs - static_cast<size_t>(r.failed) - static_cast<size_t>(r.unfinished);
  r.out << r.logs << (r.logs == 1 ? " log" : " logs") << " verified: " << ok << " OK, " << r.failed
        << " failed (" << r.hands << " hands, " << r.plays << " plays in the logs that are OK) in "
        << seconds << " s";
  if (r.unfinished > 0)
    r.out << "; " << r.unfinished << " unfinished (not in an index"
          << (allow_unfinished ? ", accepted by --allow-unfinished)"
                               : "; a run still in progress? --allow-unfinished accepts them)");
  if (r.indexes > 0)
    r.out << "; " << r.indexes << (r.indexes == 1 ? " index" : " indexes") << " checked, "
          << r.index_failures << " problems";
  r.out << "\n";
  r.out.flush();
}

}  // namespace

int verify_logs(const std::vector<std::string>& paths, bool quiet, std::ostream& out,
                std::ostream& err, int jobs, bool allow_unfinished) {
  for (const std::string& p : paths) {
    std::string why;
    if (!check_path(p, why)) {
      err << "referee verify: " << why << "\n";
      return 2;
    }
  }
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto started = std::chrono::steady_clock::now();
  Report report{out, quiet};
  for (const std::string& p : paths) {
    Found found;
    walk(p, found);
    OrderedPool<std::string, Verdict> pool(jobs, verify_one,
                                           [&](std::string&, Verdict& v) { report.verdict(v); });
    for (std::string& log : found.logs) pool.push(std::move(log));
    pool.finish();
    for (TournamentFolder& t : found.tournaments) check_tournament(t, report, jobs);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  print_timings(report);
  print_summary(report, seconds, allow_unfinished);
  return report.failed || report.index_failures || (report.unfinished > 0 && !allow_unfinished) ? 1
                                                                                                : 0;
}

}  // namespace allfives::referee
