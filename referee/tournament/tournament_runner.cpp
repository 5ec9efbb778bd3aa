#include "tournament/tournament_runner.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "bots/bot_pool.h"
#include "log/match_log.h"
#include "match/match_runner.h"
#include "match/match_terms.h"
#include "process/cgroup.h"
#include "process/private_dir.h"
#include "tournament/gauntlet.h"
#include "tournament/index_entry.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/progress.h"
#include "tournament/schedule.h"
#include "tournament/shard_peers.h"
#include "tournament/sprt.h"
#include "tournament/sprt_run.h"
#include "tournament/standings.h"
#include "tournament/worker_messages.h"
#include "tournament/worker_processes.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// The referee's own peak resident memory (bots not included), from /proc.
long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(4096, '\n');
  }
  return -1;
}

// Replaces `path` with `text`, checking every write. It reaches the disk with the first group of
// matches the index commits (IndexWriter::sync_with_next_commit).
bool write_file_checked(const std::string& path, const std::string& text, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = 0;
  if (fd < 0 || !write_fully(fd, text)) err = errno;
  if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
  if (err != 0 && error) *error = "cannot write " + path + ": " + std::strerror(err);
  return err == 0;
}

using BotIndex = std::map<std::string, int>;

// The CPUs this process may run on, in order.
std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Plays one scheduled match with instances from `pool` and logs it. Returns its index entry,
// or nullopt if it was aborted by `stop` (not a result: a resume plays it again) or could not
// be logged (then `fatal` says why).
std::optional<v1::IndexEntry> play_scheduled(const TournamentRun& run, const BotIndex& bot_index,
                                             BotPool& pool, const v1::ScheduledMatch& m,
                                             const std::atomic<bool>& stop, std::string* fatal) {
  const TournamentDef& def = run.def;
  MatchSpec spec;
  spec.match_id = m.match_id();
  spec.bot_match_id = bot_match_id(def.proto.seed(), m.match_id());
  spec.config = def.config;
  spec.seed = m.seed();
  spec.time = def.time;
  std::vector<int> seat_bots;
  for (const std::string& name : m.seat_bots()) seat_bots.push_back(bot_index.at(name));
  std::vector<std::string> why;
  std::vector<v1::LogConfinement> confinements;
  std::vector<std::unique_ptr<BotEndpoint>> held =
      pool.acquire(seat_bots, m.seed(), &why, &confinements);
  for (size_t seat = 0; seat < seat_bots.size(); ++seat) {
    const auto b = static_cast<size_t>(seat_bots[seat]);
    spec.seats.push_back(SeatSpec{&def.bots[b], held[seat].get(), why[seat], std::nullopt,
                                  std::nullopt, std::nullopt});
    if (!held[seat] && confinements[seat].ByteSizeLong() > 0)
      spec.seats.back().confinement = confinements[seat];
    if (b < def.bot_time.size()) {
      spec.seats.back().move_time = def.bot_time[b].move_time;
      spec.seats.back().time_bank = def.bot_time[b].time_bank;
    }
  }
  const std::string log_file = match_log_name(m.match_id());
  auto log = MatchLog::create((fs::path(run.out_dir) / log_file).string(), fatal);
  if (!log) return std::nullopt;
  const MatchResult r = play_match(spec, *log, &stop);
  for (int seat = 0; seat < m.seat_bots_size(); ++seat) {
    const BotPool::Outcome outcome = r.reason == v1::MATCH_END_REASON_ABORTED
                                         ? BotPool::Outcome::kAborted
                                     : r.fault && r.fault->seat == seat ? BotPool::Outcome::kFaulted
                                                                        : BotPool::Outcome::kPlayed;
    pool.release(seat_bots[static_cast<size_t>(seat)], std::move(held[static_cast<size_t>(seat)]),
                 outcome);
  }
  // A log that could not be written completely (a full disk...) must never be indexed. The
  // fsync comes later, grouped, from the index's writer (IndexWriter).
  if (!log->close(/*sync=*/false, fatal)) {
    *fatal += " (match " + m.match_id() + " is not indexed)";
    return std::nullopt;
  }
  if (r.reason == v1::MATCH_END_REASON_ABORTED) return std::nullopt;
  return index_entry(run.def, m, r, log_file);
}

// What changed in the bot list since the definition last run in the output folder (its
// tournament.txtpb), bot by bot by name: removed, inserted before the end, moved, changed.
std::string removed_bots_hint(const TournamentRun& run) {
  std::string text;
  v1::Tournament before;
  if (!read_tournament_text(output_path(run.out_dir, kDefinitionFile), text, nullptr) ||
      !google::protobuf::TextFormat::ParseFromString(text, &before))
    return "";
  const v1::Tournament& now = run.def.proto;
  auto position = [](const v1::Tournament& t, const std::string& name) {
    for (int i = 0; i < t.bots_size(); ++i)
      if (t.bots(i).name() == name) return i;
    return -1;
  };
  std::string hint;
  for (int i = 0; i < before.bots_size(); ++i) {
    const std::string& name = before.bots(i).name();
    const int j = position(now, name);
    if (j < 0) {
      hint += " Bot '" + name + "' was removed.";
      continue;
    }
    if (j != i)
      hint += " Bot '" + name + "' moved from position " + std::to_string(i + 1) + " to " +
              std::to_string(j + 1) + ".";
    v1::TournamentBot a = before.bots(i), b = now.bots(j);
    a.clear_candidate();
    b.clear_candidate();
    if (a.SerializeAsString() != b.SerializeAsString()) hint += " Bot '" + name + "' was changed.";
  }
  for (int j = 0; j < std::min(now.bots_size(), before.bots_size()); ++j)
    if (position(before, now.bots(j).name()) < 0)
      hint += " Bot '" + now.bots(j).name() + "' was inserted at position " +
              std::to_string(j + 1) + " (a new bot goes at the end of the list).";
  return hint;
}

// How often a shard with an SPRT reads the other shards' indexes (ShardPeers).
constexpr std::chrono::milliseconds kPeerPollInterval{250};

// What a worker counted over its run (worker_messages.proto), once its bots are stopped.
worker::WorkerReport worker_report(const BotPool& pool, size_t bots) {
  worker::WorkerReport report;
  report.set_peak_rss_kib(peak_rss_kib());
  uint32_t started = 0, for_new_deals = 0;
  for (size_t b = 0; b < bots; ++b) {
    report.add_replaced(static_cast<uint32_t>(pool.replaced(static_cast<int>(b))));
    started += static_cast<uint32_t>(pool.started(static_cast<int>(b)));
    for_new_deals += static_cast<uint32_t>(pool.started_for_new_deals(static_cast<int>(b)));
  }
  report.set_started(started);
  report.set_started_for_new_deals(for_new_deals);
  return report;
}

// Pins the calling thread to `cpu`, and so every thread and process it starts later: gRPC's
// threads and the worker's bots, which inherit the mask through fork and exec.
void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);  // a CPU taken away meanwhile: the run goes on unpinned
}

// One worker process: its own bot pool (the worker and its bots pinned to `cpu` if >= 0),
// matches in (one ScheduledMatch per line, as JSON), a record per finished match out
// (worker_messages.proto), then its report.
int worker_main(int jobs_fd, int results_fd, const TournamentRun& run, const BotIndex& bot_index,
                int cpu, const std::atomic<bool>& stop) {
  if (cpu >= 0) pin_to(cpu);
  std::string error;
  auto socket_dir = PrivateDir::create(&error);
  if (!socket_dir) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  BotPool pool(run.def.bots, socket_dir->path(), run.def.startup_timeout, run.idle_bots);
  FILE* in = ::fdopen(jobs_fd, "r");
  char* line = nullptr;
  size_t capacity = 0;
  int code = 0;
  while (in && !stop.load()) {
    errno = 0;
    const ssize_t length = ::getline(&line, &capacity, in);
    if (length < 0) {
      if (errno == EINTR && !stop.load()) {
        std::clearerr(in);
        continue;
      }
      break;  // no more jobs
    }
    v1::ScheduledMatch m;
    if (!from_json_line(std::string(line, static_cast<size_t>(length)), &m, &error)) {
      std::cerr << "referee tournament: a worker got a job it cannot read: " << error << "\n";
      code = 1;
      break;
    }
    std::string fatal;
    const std::optional<v1::IndexEntry> e = play_scheduled(run, bot_index, pool, m, stop, &fatal);
    if (!fatal.empty()) {
      std::cerr << "referee tournament: " << fatal << "\n";
      code = 1;
      break;
    }
    if (!e || !write_record(results_fd, result_record(*e))) break;
  }
  std::free(line);
  if (in) std::fclose(in);
  pool.shutdown();
  write_record(results_fd, report_record(worker_report(pool, run.def.bots.size())));
  ::close(results_fd);
  return stop.load() ? 130 : code;
}

// Every match already in the index must belong to this definition: played with the same
// file, or with the same file before bots were appended to it (def.earlier_hashes), and be a
// match of the schedule (found by its id, without building the list). Explains on stderr and
// returns false otherwise.
bool check_earlier_matches(const TournamentRun& run, const std::vector<v1::IndexEntry>& earlier,
                           const Schedule& schedule, const std::string& index_path) {
  const TournamentDef& def = run.def;
  std::set<std::string> hashes(def.earlier_hashes.begin(), def.earlier_hashes.end());
  hashes.insert(def.hash);
  for (const v1::IndexEntry& e : earlier) {
    if (!hashes.count(e.tournament_hash())) {
      std::cerr << "referee tournament: " << index_path << " holds matches of another tournament "
                << "definition (hash " << e.tournament_hash() << ", this file " << def.hash
                << "). Resume needs the same file, or the same file with bots appended at the "
                   "end of its list: a bot may not be removed, renamed, moved or changed, nor "
                   "may the format, seed, time control or limits change."
                << removed_bots_hint(run) << "\n";
      return false;
    }
    if (!schedule.ordinal_of(e.match())) {
      std::cerr << "referee tournament: " << index_path << " holds match '" << e.match().match_id()
                << "', which is not in this file's schedule (a folder written by an older "
                   "referee, whose match ids began with the match's position?); use another "
                   "--out\n";
      return false;
    }
  }
  return true;
}

// Bots that have not started once in this run. A start-up fault of such a bot is held back
// instead of recorded: if the bot starts in a later match its held faults are real forfeits
// and are recorded then; if it fails kTries times without ever starting (or the run ends with
// its faults held), the run stops: a bot that never played gets no verdict, and its matches
// are left unrecorded for a resume after the fix.
class StartupWatch {
 public:
  static constexpr size_t kTries = 3;

  // Bots of the index's entries (a resume) that started there.
  void add_earlier(const v1::IndexEntry& e) {
    if (!startup_fault(e))
      for (const std::string& bot : e.match().seat_bots()) started_.insert(bot);
  }
  // The entries to record now, in order: none while `e` is held back.
  std::vector<v1::IndexEntry> take(v1::IndexEntry e) {
    std::vector<v1::IndexEntry> out;
    if (startup_fault(e)) {
      const std::string& bot = e.match().seat_bots(e.fault_seat());
      if (!started_.count(bot)) {
        held_[bot].push_back(std::move(e));
        return out;
      }
    } else {
      for (const std::string& bot : e.match().seat_bots()) {
        if (!started_.insert(bot).second) continue;
        auto it = held_.find(bot);
        if (it == held_.end()) continue;
        for (v1::IndexEntry& h : it->second) out.push_back(std::move(h));
        held_.erase(it);
      }
    }
    out.push_back(std::move(e));
    return out;
  }
  // "bot 'X' never started: ..." once a bot has failed kTries times (or, at the end, at all)
  // without ever starting; "" otherwise.
  std::string never_started(bool at_end) const {
    for (const auto& [bot, faults] : held_)
      if (faults.size() >= kTries || (at_end && !faults.empty()))
        return "bot '" + bot + "' never started: its " + std::to_string(faults.size()) +
               " match(es) of this run all ended at its start-up (the first: " +
               faults.front().fault_reason() +
               "). The run stops without a verdict, and those matches are not recorded; fix the "
               "bot (try it alone with `referee match`), then resume";
    return "";
  }

 private:
  static bool startup_fault(const v1::IndexEntry& e) {
    return e.fault_seat() >= 0 && e.fault_seat() < e.match().seat_bots_size() &&
           e.fault_kind() == v1::FAULT_KIND_STARTUP_FAILURE;
  }
  std::set<std::string> started_;
  std::map<std::string, std::vector<v1::IndexEntry>> held_;
};

// The output folder made ready for a run: matches/ created, and the folder's lock, held for the
// whole run (two referees would play every match twice). Explains on stderr and returns
// nothing when it cannot be.
std::unique_ptr<FolderLock> open_output_folder(const TournamentRun& run) {
  const fs::path out(run.out_dir);
  std::error_code ec;
  fs::create_directories(out / kMatchesFolder, ec);
  if (ec) {
    std::cerr << "referee tournament: cannot create " << (out / kMatchesFolder).string() << ": "
              << ec.message() << "\n";
    return nullptr;
  }
  std::string error;
  std::unique_ptr<FolderLock> lock = FolderLock::acquire(run.out_dir, &error);
  if (!lock) {
    std::cerr << "referee tournament: " << error << "\n";
    return nullptr;
  }
  // Socket folders of referees that died (kill -9) are removed, ours are made anew; said only
  // when asked (they are not this run's, and may be another run's of the same user).
  for (const std::string& note : sweep_stale_private_dirs())
    if (run.verbose) std::cerr << "referee tournament: " << note << "\n";
  return lock;
}

// The matches of the schedule already finished in the output folder.
struct Finished {
  std::vector<v1::IndexEntry> entries;  // each once, in the index's order
  std::vector<bool> by_ordinal;         // one bit a match of the schedule
  uint64_t mine = 0;                    // how many of them are this shard's
};

// What is already finished here: nothing for a fresh run; the index for a resume. A torn last
// line (a kill mid-write) is dropped and cut off the same way in both cases, so nothing is ever
// appended to it. Explains on stderr and returns nothing when the folder cannot be resumed.
std::optional<Finished> read_finished(const TournamentRun& run, const Schedule& schedule,
                                      const ShardSlice& shard) {
  const std::string index_path = output_path(run.out_dir, kIndexFile);
  Finished f;
  std::vector<std::string> notes;
  std::string error;
  if (!read_index(index_path, /*repair=*/true, f.entries, notes, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return std::nullopt;
  }
  for (const std::string& note : notes) std::cerr << note << "\n";
  if (!f.entries.empty() && !run.resume) {
    std::cerr << "referee tournament: " << run.out_dir << " already holds " << f.entries.size()
              << " finished matches; add --resume to continue that tournament, or choose another "
                 "--out\n";
    return std::nullopt;
  }
  if (!check_earlier_matches(run, f.entries, schedule, index_path)) return std::nullopt;
  // The schedule is generated match by match from its ordinal, never stored: what grows with
  // it is one bit a match, which of this shard's matches are finished. An index that holds a
  // match twice (written without the folder lock) counts it once.
  f.by_ordinal.assign(schedule.size(), false);
  std::erase_if(f.entries, [&](const v1::IndexEntry& e) {
    const uint64_t ordinal = *schedule.ordinal_of(e.match());
    if (f.by_ordinal[ordinal]) return true;
    f.by_ordinal[ordinal] = true;
    f.mine += shard.holds(ordinal) ? 1 : 0;
    return false;
  });
  return f;
}

// The definition as run (its seed included) into the output folder's tournament.txtpb.
bool write_definition_copy(const TournamentRun& run) {
  std::string text, error;
  google::protobuf::TextFormat::PrintToString(run.def.proto, &text);
  if (!write_file_checked(output_path(run.out_dir, kDefinitionFile),
                          "# As run; hash " + run.def.hash + "\n" + text, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return false;
  }
  return true;
}

// The run's first line: how many matches, how many left, the seed's origin, the folder.
void announce(const TournamentRun& run, uint64_t mine, uint64_t finished_mine) {
  const TournamentDef& def = run.def;
  // With an SPRT the schedule is only a ceiling: the run ends once the evidence decides.
  const std::string shard = run.shard_count > 1 ? " in shard " + std::to_string(run.shard_index) +
                                                      "/" + std::to_string(run.shard_count)
                                                : "";
  const std::string left = std::to_string(mine - finished_mine);
  std::cerr << "tournament " << def.proto.name() << ": "
            << (def.sprt
                    ? "an SPRT that stops once the evidence decides (at most " +
                          std::to_string(mine) + " matches" + shard + ", " + left + " of them left)"
                    : std::to_string(mine) + (mine == 1 ? " match" : " matches") + shard + ", " +
                          left + " to play")
            << ", " << run.concurrency << " at once, seed " << def.proto.seed()
            << (run.seed_origin.empty() ? "" : " (" + run.seed_origin + ")") << " -> "
            << run.out_dir << "\n";
}

// One run of the tournament once its folder is ready: the finished matches folded in, the rest
// played by worker processes, each result recorded as it arrives, and the end reported.
class TournamentPlay {
 public:
  TournamentPlay(const TournamentRun& run, const Schedule& schedule, const ShardSlice& shard,
                 Finished finished, const std::atomic<bool>& stop)
      : run_(run),
        def_(run.def),
        schedule_(schedule),
        shard_(shard),
        index_path_(output_path(run.out_dir, kIndexFile)),
        finished_(std::move(finished.by_ordinal)),
        finished_mine_(finished.mine),
        stop_(stop),
        progress_(static_cast<int>(shard.size()), static_cast<int>(finished.mine)),
        sprt_(run.def, schedule.pairings(), finished.mine, shard.size()),
        totals_(run.def.bots.size()) {
    for (size_t i = 0; i < def_.bots.size(); ++i)
      bot_index_[def_.bots[i].display_name] = static_cast<int>(i);
    fold_in(finished.entries);
  }

  // Plays what is left; the process exit code of run_tournament.
  int play();

 private:
  void fold_in(const std::vector<v1::IndexEntry>& earlier);
  bool follow_peers_first();
  void poll_peers();
  void count_committed();
  std::optional<std::string> job(size_t i);
  bool on_record(const std::string& record);
  WorkerOutcome play_rest(bool nothing_left);
  void report_bots() const;
  void resume_hint(const char* prefix) const;
  void print_peak() const;
  int write_standings();

  const TournamentRun& run_;
  const TournamentDef& def_;
  const Schedule& schedule_;
  const ShardSlice& shard_;
  const std::string index_path_;
  const std::vector<bool> finished_;  // by ordinal
  const uint64_t finished_mine_;
  const std::atomic<bool>& stop_;
  BotIndex bot_index_;
  Progress progress_;
  // Standings grow with the bots, not the matches: each result is folded in as it arrives.
  StandingsAccumulator standings_;
  SprtRun sprt_;
  StartupWatch startups_;
  std::unique_ptr<ShardPeers> peers_;
  std::chrono::steady_clock::time_point last_poll_ =
      std::chrono::steady_clock::now() - std::chrono::hours(1);
  std::unique_ptr<IndexWriter> index_;
  WorkerTotals totals_;
  bool failed_ = false;
};

void TournamentPlay::fold_in(const std::vector<v1::IndexEntry>& earlier) {
  for (const v1::IndexEntry& e : earlier) {
    progress_.add_earlier(e);
    standings_.add(e);
    sprt_.add_earlier(e);
    startups_.add_earlier(e);
  }
}

// A sharded SPRT follows the merged test: the other shards' finished matches count too. True
// when the SPRT was already over (a resumed test that was decided plays nothing more).
bool TournamentPlay::follow_peers_first() {
  if (sprt_.active() && run_.shard_count > 1)
    peers_ = std::make_unique<ShardPeers>(def_, run_.out_dir);
  poll_peers();
  if (!sprt_.active()) return false;
  sprt_.show(progress_);
  if (!sprt_.over()) return false;
  std::cerr << "the SPRT was already over in " << index_path_
            << (peers_ ? " and the other shards' folders (" + std::to_string(peers_->reading()) +
                             " read)"
                       : std::string())
            << "; nothing left to play\n";
  return true;
}

void TournamentPlay::poll_peers() {
  if (!peers_ || std::chrono::steady_clock::now() - last_poll_ < kPeerPollInterval) return;
  last_poll_ = std::chrono::steady_clock::now();
  std::vector<std::string> peer_notes;
  for (const v1::IndexEntry& e : peers_->poll(peer_notes)) sprt_.add_peer(e);
  for (const std::string& note : peer_notes) std::cerr << "referee tournament: " << note << "\n";
  if (!run_.quiet) sprt_.show(progress_);
}

// Results count once IndexWriter has their log and index line on disk: the standings, the
// SPRT and the progress line all count the same matches.
void TournamentPlay::count_committed() {
  for (const v1::IndexEntry& e : index_->take_committed()) {
    standings_.add(e);
    sprt_.add_committed(e);
    if (!run_.quiet) {
      if (sprt_.active()) sprt_.show(progress_);
      progress_.add(e);
    }
  }
}

// The job line of the shard's i-th match; nothing for a finished one or one of a pairing whose
// test is over (it gets no new match).
std::optional<std::string> TournamentPlay::job(size_t i) {
  if (finished_[shard_.ordinal(i)]) return std::nullopt;
  const v1::ScheduledMatch m = schedule_.at(shard_.ordinal(i));
  poll_peers();
  if (sprt_.skips(m)) return std::nullopt;
  return to_json_line(m);
}

// A worker's record: a result is recorded, a report added up. False: hand out no more matches.
bool TournamentPlay::on_record(const std::string& record) {
  worker::WorkerMessage message;
  std::string why;
  if (!parse_worker_message(record, &message, &why) ||
      (message.has_report() && !totals_.add(message.report(), &why))) {
    std::cerr << "referee tournament: a worker's message cannot be read: " << why << "\n";
    failed_ = true;
    return false;
  }
  if (message.has_report()) return true;
  for (v1::IndexEntry& x : startups_.take(std::move(*message.mutable_result()))) {
    sprt_.add_arrived(x);
    index_->submit(std::move(x));
  }
  count_committed();
  poll_peers();
  // Once every test is over no new match is handed out; matches under way finish and are kept.
  return !sprt_.over() && index_->failed().empty() && startups_.never_started(false).empty();
}

WorkerOutcome TournamentPlay::play_rest(bool nothing_left) {
  const uint64_t mine = shard_.size();
  const uint64_t todo = nothing_left ? 0 : mine - finished_mine_;
  const int n = static_cast<int>(
      std::max<uint64_t>(1, std::min<uint64_t>(static_cast<uint64_t>(run_.concurrency), todo)));
  const std::vector<int> cpus = run_.affinity ? usable_cpus() : std::vector<int>{};
  // The bots' cgroups are found once, here: the workers then share this process's places and
  // the empty cgroup it keeps frozen (process/cgroup.h), which each worker, ending with _exit,
  // would otherwise make and leave behind.
  if (std::any_of(def_.bots.begin(), def_.bots.end(),
                  [](const BotSpec& b) { return b.started() && b.confinement.cgroups; }))
    cgroup_places();
  // Worker w plays this shard's matches w, w + n, w + 2n... (JobDealer), and the schedule
  // cycles through its (pairing, rotation) lanes in the same order on every deal: so each
  // worker keeps to the same few lanes deal after deal (unsharded at -j 2 in two-side formats,
  // worker 0 plays rotation 0 of every pairing and worker 1 rotation 1), and its pool reuses each
  // instance on every deal without ever giving it a deal it has played (bots/bot_pool.h).
  // Worker w and its bots run on the w-th usable CPU (round robin): a match's three processes
  // take turns, and a turn handed over on one CPU is a plain switch where one handed to another
  // CPU wakes it (bench/README.md, "Where the worker runs").
  return run_workers(
      todo == 0 ? 0 : n, todo == 0 ? 0 : mine, lane_period(schedule_, run_.shard_count, n),
      [&](size_t i) { return job(i); },
      [&](int worker, int jobs_fd, int results_fd) {
        const int cpu = cpus.empty() ? -1 : cpus[static_cast<size_t>(worker) % cpus.size()];
        return worker_main(jobs_fd, results_fd, run_, bot_index_, cpu, stop_);
      },
      [&](const std::string& record) { return on_record(record); }, stop_);
}

// The seed (only now: it deals every match, and the referee's output may be a file a bot can
// read; it is hidden from the sandboxes as well, but not a copy a pipe makes), then what the
// workers reported of the bots' instances.
void TournamentPlay::report_bots() const {
  std::cerr << "seed " << def_.proto.seed()
            << (run_.seed_origin.empty() ? "" : " (" + run_.seed_origin + ")") << "\n";
  for (size_t b = 0; b < def_.bots.size(); ++b)
    if (totals_.replaced[b] > 0)
      std::cerr << "bot " << def_.bots[b].display_name << ": " << totals_.replaced[b]
                << (totals_.replaced[b] == 1 ? " instance" : " instances")
                << " replaced after a fault or crash\n";
  if (totals_.started > 0)
    std::cerr << "bot processes started: " << totals_.started << " ("
              << totals_.started_for_new_deals
              << " because every idle instance of the bot had played the match's deals)\n";
}

void TournamentPlay::resume_hint(const char* prefix) const {
  std::cerr << prefix << "Finished matches are kept in " << index_path_
            << "; continue with: referee tournament " << def_.path << " --resume --out "
            << run_.out_dir << "\n";
}

void TournamentPlay::print_peak() const {
  const long own_peak_kib = peak_rss_kib();
  const long worker_peak_kib = totals_.peak_rss_kib;
  std::cerr << "referee peak memory: " << std::max(own_peak_kib, worker_peak_kib)
            << " KiB (the largest of this process and its match workers; this process "
            << own_peak_kib << " KiB, "
            << (worker_peak_kib > 0
                    ? "the largest worker " + std::to_string(worker_peak_kib) + " KiB"
                    : std::string("no worker reported"))
            << ")\n";
}

// The standings on stdout and in the folder's files, and each SPRT's report in sprt.txt.
int TournamentPlay::write_standings() {
  std::string error;
  Standings table = standings_.finish();
  table.sprt = sprt_.summaries();
  std::cout << format_standings_table(table);
  if (!write_standings_files(run_.out_dir, table, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  if (sprt_.active()) {
    std::string report;
    for (const SprtSummary& t : table.sprt) report += sprt_report(t);
    if (!write_file_checked(output_path(run_.out_dir, "sprt.txt"), report, &error)) {
      std::cerr << "referee tournament: " << error << "\n";
      return 1;
    }
  }
  std::cout << "Logs and standings: " << run_.out_dir << "\n";
  print_peak();
  return 0;
}

int TournamentPlay::play() {
  const bool nothing_left = follow_peers_first();
  std::string error;
  index_ = IndexWriter::open(index_path_, run_.out_dir, &error, run_.sync_interval);
  if (!index_) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  index_->sync_with_next_commit(output_path(run_.out_dir, kDefinitionFile));
  const WorkerOutcome outcome = play_rest(nothing_left);
  if (!index_->close(&error)) {
    std::cerr << "referee tournament: " << error
              << "; the run stopped (matches not on disk will be played again)\n";
    failed_ = true;
  }
  count_committed();
  if (!outcome.ok) {
    std::cerr << "referee tournament: " << outcome.error << "\n";
    failed_ = true;
  }
  if (!run_.quiet) progress_.finish();
  report_bots();
  if (failed_) {
    resume_hint("");
    return 1;
  }
  if (const std::string never = startups_.never_started(true); !never.empty() && !stop_.load()) {
    std::cerr << "referee tournament: " << never << ".\n";
    resume_hint("");
    return 1;
  }
  if (stop_.load()) {
    resume_hint("stopped. ");
    print_peak();
    return 130;
  }
  return write_standings();
}

}  // namespace

void settle_seed(TournamentRun& run) {
  if (run.def.proto.has_seed()) return;
  const std::string copy = output_path(run.out_dir, kDefinitionFile);
  if (run.resume) {
    std::string text;
    v1::Tournament recorded;
    if (read_tournament_text(copy, text, nullptr) &&
        google::protobuf::TextFormat::ParseFromString(text, &recorded)) {
      set_seed(run.def, recorded.seed());
      run.seed_origin = "recorded in " + copy;
      return;
    }
  }
  set_seed(run.def, draw_seed());
  run.seed_origin = "drawn at random; recorded in " + copy;
}

std::vector<HiddenPath> tournament_hidden_paths(const TournamentRun& run) {
  using Kind = HiddenPath::Kind;
  const auto absolute = [](const fs::path& path) {
    std::string s = fs::absolute(path).lexically_normal().string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
  };
  const std::string out = absolute(run.out_dir);
  std::vector<HiddenPath> hidden = {
      {out, "the tournament's output folder", Kind::kSharedFolder},
      {output_path(out, kMatchesFolder), "the tournament's match log folder", Kind::kFolder},
      {output_path(out, kIndexFile), "the tournament's index", Kind::kFile},
      {output_path(out, kLockFile), "the tournament's lock file", Kind::kFile},
      {output_path(out, kDefinitionFile), "the tournament's copy of its file", Kind::kFile},
      {absolute(run.def.path), "the tournament file", Kind::kFile}};
  // Folders above it that hold other runs' output: the file's out_dir above a shard's own
  // folder, and tournaments-out/ above the default out_dir.
  const std::string file_out = absolute(run.def.out_dir);
  for (const std::string& folder :
       {file_out, run.def.proto.out_dir().empty() ? absolute(fs::path(file_out).parent_path())
                                                  : std::string()}) {
    if (!folder.empty() && out.size() > folder.size() && out.starts_with(folder) &&
        out[folder.size()] == '/')
      hidden.push_back({folder, "a folder of tournament outputs", Kind::kSharedFolder});
  }
  // A shard's siblings (ShardPeers reads them): their tournament.txtpb holds the seed, which
  // names every deal, and their logs show the bots' hands.
  const std::string shards = absolute(fs::path(out).parent_path());
  if (run.shard_count > 1 && shards != out &&
      std::none_of(hidden.begin(), hidden.end(),
                   [&](const HiddenPath& h) { return h.path == shards; }))
    hidden.push_back({shards, "the folder of the tournament's shards", Kind::kSharedFolder});
  return hidden;
}

int run_tournament(const TournamentRun& run, const std::atomic<bool>& stop) {
  const std::unique_ptr<FolderLock> lock = open_output_folder(run);
  if (!lock) return 1;
  const Schedule schedule(run.def);
  const ShardSlice shard(schedule.size(), schedule.rotations(), run.shard_index, run.shard_count);
  std::optional<Finished> finished = read_finished(run, schedule, shard);
  if (!finished || !write_definition_copy(run)) return 1;
  announce(run, shard.size(), finished->mine);
  TournamentPlay play(run, schedule, shard, std::move(*finished), stop);
  return play.play();
}

}  // namespace allfives::referee
