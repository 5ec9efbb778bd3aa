#include "rounds/round_player.h"

#include <google/protobuf/text_format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "rounds/child_process.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A word for sh, in single quotes.
std::string shell_word(const std::string& w) {
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class LocalRound final : public RoundPlayer {
 public:
  static std::unique_ptr<RoundPlayer> start(const RoundOptions& o, const RoundFiles& f,
                                            std::string* why) {
    std::error_code ec;
    std::vector<std::string> argv = {
        o.referee, "tournament", f.file, "--out", f.folder, "-j", std::to_string(o.concurrency),
        "--quiet"};
    if (fs::exists(f.folder, ec)) argv.push_back("--resume");
    for (const std::string& path : o.hide) argv.insert(argv.end(), {"--hide", path});
    std::optional<ChildProcess> child = ChildProcess::start(argv, f.output, why, o.working_dir);
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

// The round as a Slurm job array (docs/CLUSTER.md): task I plays shard I/N of the round's
// tournament into FOLDER/shard-I with --resume, so a task that is requeued, or a round
// submitted again after the ladder was cut off, keeps what it played. The ladder stays the
// only writer of its database: it reads the shards' indexes as they grow.
class SlurmRound final : public RoundPlayer {
 public:
  static std::unique_ptr<RoundPlayer> start(const RoundOptions& o, const RoundFiles& f,
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
  SlurmRound(const RoundOptions& o, RoundFiles f, int tasks, uint64_t matches)
      : o_(o), f_(std::move(f)), tasks_(tasks), matches_(matches) {}

  std::string hide_words() const {
    std::string words;
    for (const std::string& path : o_.hide) words += " --hide " + shell_word(path);
    return words;
  }

  bool submit(std::string* why) {
    const std::string task = "${SLURM_ARRAY_TASK_ID}";
    const std::string wrap =
        "exec " + shell_word(o_.referee) + " tournament " + shell_word(f_.file) + " --shard " +
        task + "/" + std::to_string(tasks_) + " --out " + shell_word(f_.folder) + "/shard-" + task +
        " --resume --quiet --no-affinity -j " + "${SLURM_CPUS_PER_TASK:-1}" + hide_words();
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--array=0-" + std::to_string(tasks_ - 1),
                                     "--job-name=" + fs::path(f_.file).stem().string(),
                                     "--output=" + f_.folder + "/task-%a.out",
                                     "--chdir=" + o_.working_dir};
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

  RoundOptions o_;
  RoundFiles f_;
  int tasks_;
  uint64_t matches_;
  std::string job_;
  bool stopped_ = false;
  int attempts_ = 0;
  int squeue_failures_ = 0;
  Clock::time_point next_look_{};
};

std::string quoted(const std::string& word, std::string* error) {
  if (word.find('\'') == std::string::npos) return "'" + word + "'";
  if (word.find('"') == std::string::npos) return "\"" + word + "\"";
  if (error) *error = "the path " + word + " holds both kinds of quotes";
  return "";
}

}  // namespace

std::string tournament_file_text(const v1::Tournament& t, const std::string& heading,
                                 std::string* error) {
  v1::Tournament copy = t;
  for (v1::TournamentBot& b : *copy.mutable_bots()) {
    const std::string q = quoted(b.command(), error);
    if (q.empty()) return "";
    b.set_command(q);
  }
  std::string body;
  google::protobuf::TextFormat::PrintToString(copy, &body);
  return heading + body;
}

std::unique_ptr<RoundPlayer> start_round(const RoundOptions& o, const RoundFiles& f,
                                         const std::string& earlier_job, std::string* why) {
  return o.slurm ? SlurmRound::start(o, f, earlier_job, why) : LocalRound::start(o, f, why);
}

std::string read_capped(const std::string& path, size_t cap) {
  std::ifstream in(path, std::ios::binary);
  std::string text(cap, '\0');
  in.read(text.data(), static_cast<std::streamsize>(cap));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

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

}  // namespace allfives::referee
