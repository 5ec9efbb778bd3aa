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
#include "ladder/child_process.h"
#include "ladder/matchmaking.h"
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

std::string read_capped(const std::string& path, size_t cap) {
  std::ifstream in(path, std::ios::binary);
  std::string text(cap, '\0');
  in.read(text.data(), static_cast<std::streamsize>(cap));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

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

// A round's files: its tournament file, its output folder and what its players printed.
struct RoundFiles {
  std::string file, folder, output;
};

// What plays a round's matches: a child `referee tournament` here, or a Slurm job array.
class RoundPlayer {
 public:
  virtual ~RoundPlayer() = default;
  // The output folders whose indexes receive the round's matches.
  virtual std::vector<std::string> folders() const = 0;
  // Nothing while it plays; then "" if every match was played, else why not.
  virtual std::optional<std::string> poll() = 0;
  virtual void stop() = 0;
  virtual std::string job() const { return ""; }
};

class LocalRound final : public RoundPlayer {
 public:
  static std::unique_ptr<RoundPlayer> start(const LadderRunOptions& o, const RoundFiles& f,
                                            std::string* why) {
    std::error_code ec;
    std::vector<std::string> argv = {
        o.referee, "tournament", f.file, "--out", f.folder, "-j", std::to_string(o.concurrency),
        "--quiet"};
    if (fs::exists(f.folder, ec)) argv.push_back("--resume");
    std::optional<ChildProcess> child =
        ChildProcess::start(argv, f.output, why, empty_folder(o.dir));
    if (!child) return nullptr;
    return std::unique_ptr<RoundPlayer>(new LocalRound(f, std::move(*child)));
  }
  std::vector<std::string> folders() const override { return {f_.folder}; }
  std::optional<std::string> poll() override {
    const std::optional<int> code = child_.poll();
    if (!code) return std::nullopt;
    if (*code == 0 || (stopped_ && (*code == 130 || *code == 143))) return "";
    return "referee tournament exited with " + std::to_string(*code) + "; its output: " + f_.output;
  }
  void stop() override {
    child_.signal(SIGTERM);
    stopped_ = true;
  }

 private:
  LocalRound(RoundFiles f, ChildProcess child) : f_(std::move(f)), child_(std::move(child)) {}
  RoundFiles f_;
  ChildProcess child_;
  bool stopped_ = false;
};

// A program's exit code and output (at most 64 KiB), run to its end.
int run_command(const std::vector<std::string>& argv, const std::string& scratch,
                std::string& text) {
  std::error_code ec;
  fs::remove(scratch, ec);
  std::optional<ChildProcess> child = ChildProcess::start(argv, scratch, &text);
  if (!child) return 127;
  const int code = child->wait();
  text = read_capped(scratch, 64 << 10);
  fs::remove(scratch, ec);
  return code;
}

// A word for sh, in single quotes.
std::string shell_word(const std::string& w) {
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The round as a Slurm job array (docs/CLUSTER.md): task I plays shard I/N of the round's
// tournament into FOLDER/shard-I with --resume, so a task that is requeued, or a round
// submitted again after the ladder was cut off, keeps what it played. The ladder stays the
// only writer of its database: it reads the shards' indexes as they grow.
class SlurmRound final : public RoundPlayer {
 public:
  static std::unique_ptr<RoundPlayer> start(const LadderRunOptions& o, const RoundFiles& f,
                                            const std::string& earlier_job, std::string* why) {
    TournamentDef def;
    if (!load_tournament(f.file, def, why)) return nullptr;
    const Schedule schedule(def);
    const uint64_t groups = schedule.size() / schedule.rotations();
    const int tasks = static_cast<int>(std::max<uint64_t>(
        1, std::min<uint64_t>(groups,
                              o.slurm_tasks > 0 ? static_cast<uint64_t>(o.slurm_tasks) : groups)));
    std::unique_ptr<SlurmRound> round(new SlurmRound(o, f, tasks, schedule.size()));
    std::error_code ec;
    fs::create_directories(f.folder, ec);
    if (!earlier_job.empty() && round->queued(earlier_job)) {
      round->job_ = earlier_job;  // the array the cut-off run submitted still plays
      return round;
    }
    if (!round->submit(why)) return nullptr;
    return round;
  }
  std::vector<std::string> folders() const override {
    std::vector<std::string> out;
    for (int i = 0; i < tasks_; ++i) out.push_back(f_.folder + "/shard-" + std::to_string(i));
    return out;
  }
  std::optional<std::string> poll() override {
    if (Clock::now() < next_look_) return std::nullopt;
    next_look_ = Clock::now() + std::chrono::seconds(1);
    if (queued(job_)) return std::nullopt;
    if (stopped_) return "";
    const uint64_t played = count_played();
    if (played >= matches_) return "";
    if (++attempts_ <= kAttempts) {  // requeue what is missing (a node lost, a task killed)
      std::string why;
      if (submit(&why)) return std::nullopt;
      return why;
    }
    return "Slurm job " + job_ + " ended with " + std::to_string(played) + " of " +
           std::to_string(matches_) + " matches played; its tasks' output: " + f_.folder +
           "/task-*.out";
  }
  void stop() override {
    std::string text;
    run_command({"scancel", job_}, f_.output + ".scancel", text);
    stopped_ = true;
  }
  std::string job() const override { return job_; }

 private:
  static constexpr int kAttempts = 2;
  static constexpr int kSqueueFailures = 120;  // looks a second apart
  SlurmRound(const LadderRunOptions& o, RoundFiles f, int tasks, uint64_t matches)
      : o_(o), f_(std::move(f)), tasks_(tasks), matches_(matches) {}

  bool submit(std::string* why) {
    const std::string task = "${SLURM_ARRAY_TASK_ID}";
    const std::string wrap =
        "exec " + shell_word(o_.referee) + " tournament " + shell_word(f_.file) + " --shard " +
        task + "/" + std::to_string(tasks_) + " --out " + shell_word(f_.folder) + "/shard-" + task +
        " --resume --quiet --no-affinity -j " + "${SLURM_CPUS_PER_TASK:-1}";
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--array=0-" + std::to_string(tasks_ - 1),
                                     "--job-name=" + fs::path(f_.file).stem().string(),
                                     "--output=" + f_.folder + "/task-%a.out",
                                     "--chdir=" + empty_folder(o_.dir)};
    argv.insert(argv.end(), o_.sbatch_args.begin(), o_.sbatch_args.end());
    argv.insert(argv.end(), {"--wrap", wrap});
    std::string text;
    const int code = run_command(argv, f_.output + ".sbatch", text);
    if (code != 0) {
      *why = "sbatch failed (exit " + std::to_string(code) + "): " + text;
      return false;
    }
    job_ = text.substr(0, text.find_first_of(";\n"));
    return !job_.empty();
  }

  bool queued(const std::string& job) {
    std::string text;
    if (run_command({"squeue", "-h", "-j", job, "-o", "%i"}, f_.output + ".squeue", text) != 0) {
      // The controller briefly away: the job counts as queued and the next look decides, for
      // a bounded number of looks.
      if (text.find("Invalid job id") != std::string::npos || ++squeue_failures_ > kSqueueFailures)
        return false;
      return true;
    }
    squeue_failures_ = 0;
    return text.find_first_not_of(" \n") != std::string::npos;
  }

  uint64_t count_played() const {
    uint64_t n = 0;
    for (const std::string& folder : folders()) {
      std::vector<std::string> notes;
      std::string why;
      read_index_stream(
          output_path(folder, kIndexFile), false, [&](v1::IndexEntry&&) { ++n; }, notes, &why);
    }
    return n;
  }

  const LadderRunOptions& o_;
  RoundFiles f_;
  int tasks_;
  uint64_t matches_;
  std::string job_;
  bool stopped_ = false;
  int attempts_ = 0;
  int squeue_failures_ = 0;
  Clock::time_point next_look_{};
};

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
    std::unique_ptr<RoundPlayer> player = o_.slurm ? SlurmRound::start(o_, files, r.slurm_job, &why)
                                                   : LocalRound::start(o_, files, &why);
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
