#include "ladder/ladder_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include "allfives/wire/convert.h"
#include "ladder/matchmaking.h"
#include "rounds/child_process.h"
#include "rounds/round_player.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The fit is redone after a round once this many times its own cost has passed since the last.
constexpr int kRefitShare = 50;
// How often a running round's index is read for finished matches.
constexpr std::chrono::milliseconds kImportInterval{200};
// The most of a gate's output kept in the database (the file keeps all of it).
constexpr size_t kMaxReportBytes = 64 << 10;
// How long a resumed round waits for the processes of the cut-off one to let go of its folder.
constexpr std::chrono::seconds kLockWait{20};

uint64_t random_seed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
    seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  return seed & ((uint64_t{1} << 63) - 1);  // kept as SQLite's signed integer
}

void add_flag(std::vector<std::string>& argv, const char* flag, uint32_t value) {
  if (value) argv.insert(argv.end(), {flag, std::to_string(value)});
}

// DIR/empty, made if missing.
std::string empty_folder(const std::string& dir) {
  const fs::path p = fs::path(dir) / kLadderEmpty;
  std::error_code ec;
  if (fs::create_directory(p, ec)) fs::permissions(p, fs::perms(0555), ec);
  return p.string();
}

// One ladder run: the store, the fit, and the rounds.
class LadderLoop {
 public:
  LadderLoop(const LadderRunOptions& o, const std::atomic<bool>& stop, std::ostream& out,
             std::ostream& err)
      : o_(o),
        stop_(stop),
        out_(out),
        err_(err),
        store_(LadderStore::open(o.dir, false)),
        def_(load_ladder_folder(o.dir)) {
    Format f;
    if (wire::from_proto(def_.proto.format(), f, nullptr)) seats_ = bots_per_pairing(f);
  }

  int run() {
    if (const std::string bad = store_->integrity_problem(); !bad.empty()) {
      err_ << "referee ladder run: " << bad << "\n";
      return 1;
    }
    store_->for_each_match([&](v1::IndexEntry&& e) { fit_.add(e); });
    refit(true);
    const int code = play_rounds();
    // The ratings the run ends with count every match it recorded.
    if (last_fit_matches_ != fitted_matches_) refit(true);
    return code;
  }

 private:
  RoundOptions round_options() const {
    return {o_.referee, empty_folder(o_.dir), o_.concurrency,
            o_.slurm,   o_.slurm_tasks,       o_.sbatch_args,
            {}};
  }

  int play_rounds() {
    if (std::optional<Round> cut = store_->unfinished_round()) {
      if (!o_.quiet) out_ << "ladder: resuming round " << cut->id << ", cut off\n" << std::flush;
      if (!play(*cut, true)) return 1;
    }
    int64_t rounds = 0;
    bool said_waiting = false;
    while (!stop_ && (o_.max_rounds == 0 || rounds < o_.max_rounds)) {
      if (!gate_waiting()) return 1;
      const auto choosing = Clock::now();
      const std::optional<RoundChoice> choice = choose_round(matchmaking_input());
      work_ = Clock::now() - choosing;
      if (!choice) {
        if (!said_waiting && !o_.quiet)
          out_ << "ladder: waiting for versions (a round needs " << seats_ << " active)\n"
               << std::flush;
        said_waiting = true;
        sleep_for(std::chrono::seconds(1));
        continue;
      }
      said_waiting = false;
      Round r{0, choice->version, choice->placement, random_seed(), {choice->version}, ""};
      r.versions.insert(r.versions.end(), choice->opponents.begin(), choice->opponents.end());
      r.id = store_->begin_round(r);
      if (!play(r, false)) return 1;
      ++rounds;
    }
    return 0;
  }

  void sleep_for(std::chrono::milliseconds d) {
    const auto until = Clock::now() + d;
    while (!stop_ && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  bool gate_waiting() {
    for (const Version& v : store_->versions_in(VersionState::kChecking)) {
      if (stop_) return true;
      if (!o_.quiet) out_ << "ladder: checking " << v.name() << "\n" << std::flush;
      bool ran = false;
      const std::string report = gate_version(*store_, def_, v, o_.referee, ran);
      if (!ran) {
        err_ << "referee ladder run: the gate could not check " << v.name() << ":\n" << report;
        return false;
      }
      if (!o_.quiet)
        out_ << "ladder: " << v.name() << " "
             << (store_->version(v.name())->state == VersionState::kActive ? "passed" : "refused")
             << " its check\n"
             << std::flush;
    }
    return true;
  }

  MatchmakingInput matchmaking_input() {
    MatchmakingInput in;
    in.seats = seats_;
    in.placement_opponents = static_cast<int>(def_.proto.placement_opponents());
    in.round_opponents = static_cast<int>(def_.proto.round_opponents());
    in.covariance = standings_.elo_covariance;
    in.last_pairs = store_->last_round_pairs();
    std::map<std::string, int> index;
    for (size_t i = 0; i < standings_.bots.size(); ++i)
      index[standings_.bots[i].name] = static_cast<int>(i);
    for (const Version& v : store_->versions_in(VersionState::kActive)) {
      LadderEntrant e{v.id, v.matches, store_->rounds_of(v.id) > 0, 0, -1};
      if (const auto it = index.find(v.name()); it != index.end()) {
        e.index = it->second;
        e.elo = standings_.bots[static_cast<size_t>(it->second)].elo;
      }
      in.active.push_back(e);
    }
    return in;
  }

  // The fit costs O(versions^3) (about 5 s at 1,000 versions): after a round it is redone
  // only once the time since the last one is kRefitShare times what that one took, so it stays
  // within 1/kRefitShare of the ladder's time; `force` (at the start and the end of a run)
  // redoes it anyway. Matchmaking uses the latest fit meanwhile.
  void refit(bool force) {
    const auto now = Clock::now();
    if (!force && now - last_fit_ < kRefitShare * last_fit_cost_) return;
    standings_ = fit_.finish();
    store_->save_ratings(standings_, static_cast<int>(def_.proto.history_every()));
    last_fit_matches_ = fitted_matches_;
    last_fit_ = Clock::now();
    last_fit_cost_ = last_fit_ - now;
  }

  std::vector<RoundBot> round_bots(const Round& r) {
    std::map<int64_t, Version> by_id;
    for (Version& v : store_->versions()) by_id[v.id] = std::move(v);
    std::vector<RoundBot> bots;
    for (const int64_t id : r.versions) bots.push_back({by_id[id].name(), by_id[id].argv});
    return bots;
  }

  // Writes the round's tournament file (again, for a round cut off before it was written).
  bool write_round_file(const Round& r, const std::string& file, const std::string& folder) {
    std::error_code ec;
    if (fs::exists(file, ec)) return true;
    const std::vector<RoundBot> bots = round_bots(r);
    const v1::Tournament t =
        round_tournament(def_.proto, def_.proto.name() + "-r" + round_folder(r.id), r.seed, bots,
                         folder, o_.concurrency);
    std::string why;
    const std::string text = round_file_text(t, &why);
    const std::string staged = file + ".part";
    std::ofstream f(staged, std::ios::trunc);
    f << text;
    f.close();
    if (text.empty() || !f) {
      err_ << "referee ladder run: cannot write " << file << ": "
           << (why.empty() ? "write failed" : why) << "\n";
      return false;
    }
    fs::rename(staged, file, ec);
    return !ec;
  }

  bool wait_for_folder(const std::string& folder) {
    const auto until = Clock::now() + kLockWait;
    std::string why;
    while (Clock::now() < until) {
      std::error_code ec;
      if (!fs::exists(folder, ec) || FolderLock::acquire(folder, &why)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    err_ << "referee ladder run: " << why << "\n";
    return false;
  }

  // Imports the round's finished matches that are new since the last look.
  void import(const Round& r, const std::string& index, IndexReadPosition& at) {
    std::vector<std::string> notes;
    std::string why;
    std::error_code ec;
    if (!fs::exists(index, ec)) return;
    read_index_stream_from(
        index, at,
        [&](v1::IndexEntry&& e, uint64_t) {
          if (store_->import_match(r.id, e)) {
            fit_.add(e);
            ++imported_;
            ++fitted_matches_;
          }
        },
        notes, &why);
  }

  bool play(const Round& r, bool resumed) {
    const fs::path rounds = fs::path(o_.dir) / kLadderRounds;
    std::error_code ec;
    fs::create_directories(rounds, ec);
    const std::string label = round_folder(r.id);
    const RoundFiles files{(rounds / (label + ".txtpb")).string(), (rounds / label).string(),
                           (rounds / (label + ".out")).string()};
    if (!write_round_file(r, files.file, files.folder)) return false;
    if (resumed && !o_.slurm && !wait_for_folder(files.folder)) return false;
    std::string why;
    std::unique_ptr<RoundPlayer> player = start_round(round_options(), files, r.slurm_job, &why);
    if (!player) {
      err_ << "referee ladder run: " << why << "\n";
      return false;
    }
    const auto started = Clock::now();
    imported_ = 0;
    std::map<std::string, IndexReadPosition> at;
    auto import_all = [&] {
      const auto begun = Clock::now();
      for (const std::string& folder : player->folders())
        import(r, output_path(folder, kIndexFile), at[folder]);
      work_ += Clock::now() - begun;
    };
    bool told = false;
    std::optional<std::string> failure;
    while (!(failure = player->poll())) {
      if (o_.slurm && player->job() != r.slurm_job) store_->set_round_job(r.id, player->job());
      if (stop_ && !told) {
        player->stop();
        told = true;
      }
      std::this_thread::sleep_for(kImportInterval);
      import_all();
    }
    import_all();
    const auto fitting = Clock::now();
    refit(stop_ || failure->size() > 0);
    work_ += Clock::now() - fitting;
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (told && stop_) {
      if (!o_.quiet) out_ << "ladder: stopped; round " << r.id << " resumes with the next run\n";
      return true;
    }
    if (!failure->empty()) {
      // A failed write (a full disk), a folder in the way, a bot that never started: the
      // organiser fixes it and runs again, which resumes this round.
      err_ << "referee ladder run: round " << r.id << " stopped: " << *failure
           << "\nFix what it says and run again: the round resumes where it stopped.\n";
      return false;
    }
    store_->end_round(r.id, "");
    if (!o_.quiet) report(r, seconds);
    return true;
  }

  void report(const Round& r, double seconds) {
    const std::vector<RoundBot> bots = round_bots(r);
    out_ << "round " << r.id << (r.placement ? " (placement) " : " ") << bots[0].name << " vs ";
    for (size_t i = 1; i < bots.size(); ++i) out_ << (i > 1 ? ", " : "") << bots[i].name;
    out_ << ": " << imported_ << " matches in " << std::fixed << std::setprecision(1) << seconds
         << " s (the ladder's own work " << std::setprecision(0)
         << std::chrono::duration<double, std::milli>(work_).count() << " ms: choosing, "
         << "recording, rating); " << store_->match_count() << " in all";
    if (!standings_.bots.empty())
      out_ << "; first " << standings_.bots[0].name << " " << std::showpos << std::setprecision(0)
           << standings_.bots[0].elo << std::noshowpos << " +/- " << standings_.bots[0].elo_ci95;
    out_ << "\n" << std::flush;
  }

  const LadderRunOptions& o_;
  const std::atomic<bool>& stop_;
  std::ostream& out_;
  std::ostream& err_;
  std::unique_ptr<LadderStore> store_;
  LadderDef def_;
  int seats_ = 2;
  StandingsAccumulator fit_;
  Standings standings_;
  int64_t imported_ = 0;
  Clock::duration work_{};  // this round's matchmaking, recording and refit
  Clock::time_point last_fit_{};
  int64_t fitted_matches_ = 0, last_fit_matches_ = 0;  // matches added to fit_; at the last fit
  Clock::duration last_fit_cost_{};
};

}  // namespace

LadderDef load_ladder_folder(const std::string& dir) {
  LadderDef def;
  std::string why;
  if (!load_ladder((fs::path(dir) / kLadderDefinition).string(), "python3", def, &why))
    throw DbError(why);
  return def;
}

std::string gate_version(LadderStore& store, const LadderDef& def, const Version& v,
                         const std::string& referee, bool& ran) {
  const v1::Ladder& l = def.proto;
  const fs::path checks = fs::path(store.dir()) / kLadderChecks;
  std::error_code ec;
  fs::create_directories(checks / v.name(), ec);
  // The running ladder and the served pages may both take a new version to its gate: the
  // second waits for the first and takes its verdict.
  const int lock = ::open((checks / (v.name() + ".lock")).c_str(),
                          O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock >= 0) ::flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);
    }
  } unlock{lock};
  if (const std::optional<Version> now = store.version(v.name());
      now && now->state != VersionState::kChecking) {
    ran = true;
    return now->report;
  }
  const std::string output = (checks / (v.name() + ".txt")).string();
  fs::remove(output, ec);
  std::vector<std::string> argv = {referee,       "check-bot",
                                   "--decisions", std::to_string(l.check_decisions()),
                                   "--log-dir",   (checks / v.name()).string()};
  add_flag(argv, "--move-time-ms", l.move_time_ms());
  add_flag(argv, "--time-bank-ms", l.time_bank_ms());
  add_flag(argv, "--startup-timeout-ms", l.startup_timeout_ms());
  add_flag(argv, "--memory-mib", l.limits().memory_mib());
  add_flag(argv, "--max-processes", l.limits().processes());
  add_flag(argv, "--max-open-files", l.limits().open_files());
  add_flag(argv, "--max-file-size-mib", l.limits().file_size_mib());
  add_flag(argv, "--cpu-percent", l.limits().cpu_percent());
  if (l.think_on_opponent_time()) argv.push_back("--think-on-opponent-time");
  argv.insert(argv.end(), v.argv.begin(), v.argv.end());
  std::string why;
  std::optional<ChildProcess> child =
      ChildProcess::start(argv, output, &why, empty_folder(store.dir()));
  if (!child) {
    ran = false;
    return why;
  }
  const int code = child->wait();
  const std::string report = read_capped(output, kMaxReportBytes);
  ran = code == 0 || code == 1;
  if (ran)
    store.set_state(v.id, code == 0 ? VersionState::kActive : VersionState::kRefused, report);
  return report;
}

int run_ladder(const LadderRunOptions& o, const std::atomic<bool>& stop, std::ostream& out,
               std::ostream& err) {
  std::string why;
  const std::unique_ptr<FolderLock> lock = FolderLock::acquire(o.dir, &why);
  if (!lock) {
    err << "referee ladder run: " << why << "\n";
    return 1;
  }
  try {
    LadderRunOptions absolute = o;
    absolute.dir = fs::absolute(o.dir).lexically_normal().string();
    return LadderLoop(absolute, stop, out, err).run();
  } catch (const std::exception& e) {
    err << "referee ladder run: " << e.what()
        << "\nFix what it says (a full disk, a file-size limit...) and run again: every "
           "recorded match is kept, and the ladder resumes.\n";
    return 1;
  }
}

}  // namespace allfives::referee
