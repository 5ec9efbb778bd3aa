#include "tune/tune_runner.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <thread>

#include "allfives/core/types.h"
#include "allfives/wire/convert.h"
#include "match/match_terms.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tune/tune_plot.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using google::protobuf::TextFormat;

constexpr std::chrono::milliseconds kPollInterval{50};

std::string at(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

// Writes `text` to `path` through a temporary file and a rename, synced: the old file or the
// new one, never half of either.
bool replace_durably(const std::string& path, const std::string& text, std::string& why) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  ok = ok && ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) why = "cannot write " + path + ": " + std::strerror(err ? err : errno);
  return ok;
}

// One line appended and on disk before the next iteration starts.
bool append_durably(const std::string& path, const std::string& line, std::string& why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 &&
                  ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                  ::fdatasync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) why = "cannot append to " + path + ": " + std::strerror(err);
  return ok;
}

// What decides the results: the file without where or how fast it is played.
std::string identity(v1::Tune t) {
  t.clear_out_dir();
  t.clear_concurrency();
  std::string text;
  TextFormat::PrintToString(t, &text);
  return text;
}

// The folder made or reopened: its lock taken, its seed settled and the file as run recorded.
// A folder from another file, or one to be resumed without --resume, is refused.
bool open_folder(TuneRun& run, int& lock_fd, std::string& why) {
  std::error_code ec;
  const std::string recorded = at(run.out_dir, "tune.txtpb");
  const bool exists = fs::exists(recorded, ec);
  if (exists && !run.resume) {
    why =
        run.out_dir + " holds a tune already: add --resume to continue it, or --out another folder";
    return false;
  }
  fs::create_directories(at(run.out_dir, "iterations"), ec);
  lock_fd = ::open(at(run.out_dir, "tune.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    why =
        "cannot lock " + run.out_dir + " (another referee tune runs in it, or it is not writable)";
    return false;
  }
  v1::Tune& t = run.def.proto;
  if (exists) {
    std::ifstream in(recorded);
    std::stringstream text;
    text << in.rdbuf();
    v1::Tune before;
    if (!TextFormat::ParseFromString(text.str(), &before)) {
      why = recorded + ": not a tune file; remove the folder or --out another one";
      return false;
    }
    if (!t.has_seed()) t.set_seed(before.seed());
    if (identity(before) != identity(t)) {
      why = run.out_dir + " was started with another tune file (" + recorded +
            "); resume it with that file, or --out another folder";
      return false;
    }
  } else if (!t.has_seed()) {
    t.set_seed(draw_seed());
  }
  std::string text;
  TextFormat::PrintToString(t, &text);
  return replace_durably(recorded, "# As run by referee tune.\n" + text, why);
}

// The iterations already done, from tune.jsonl; a torn last line (a crash mid-write) is cut.
bool read_done(const std::string& path, std::vector<v1::TuneIteration>& done, std::string& why) {
  std::ifstream in(path);
  std::string line;
  uint64_t good_bytes = 0;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: torn
    v1::TuneIteration it;
    if (!google::protobuf::util::JsonStringToMessage(line, &it).ok() ||
        it.iteration() != done.size()) {
      why = path + ":" + std::to_string(done.size() + 1) +
            ": not the next iteration's line; the file was changed by hand";
      return false;
    }
    done.push_back(std::move(it));
    good_bytes += line.size() + 1;
  }
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) != good_bytes)
    fs::resize_file(path, good_bytes, ec);
  return true;
}

// A match's outcome for bot `name`: +1 won, -1 lost, 0 drawn; nothing if it did not play.
std::optional<int> outcome_for(const v1::IndexEntry& e, Format f, const std::string& name) {
  const auto& seats = e.match().seat_bots();
  for (int seat = 0; seat < seats.size(); ++seat) {
    if (seats[seat] != name) continue;
    if (e.winner_side() < 0) return 0;
    return e.winner_side() == side_of(f, seat) ? 1 : -1;
  }
  return std::nullopt;
}

struct Tally {
  uint32_t wins = 0, losses = 0, draws = 0;  // theta+'s
  int64_t plus = 0, minus = 0;               // wins minus losses of each
  uint64_t matches = 0;
};

Tally tally(const TuneDef& d, const std::vector<std::string>& folders) {
  Format f;
  wire::from_proto(d.proto.format(), f, nullptr);
  Tally t;
  for (const std::string& folder : folders) {
    std::vector<std::string> notes;
    std::string why;
    read_index_stream(
        output_path(folder, kIndexFile), false,
        [&](v1::IndexEntry&& e) {
          ++t.matches;
          if (const std::optional<int> p = outcome_for(e, f, plus_name(d))) {
            t.plus += *p;
            (*p > 0 ? t.wins : *p < 0 ? t.losses : t.draws) += 1;
          }
          if (const std::optional<int> m = outcome_for(e, f, minus_name(d))) t.minus += *m;
        },
        notes, &why);
  }
  return t;
}

// R: theta+'s wins minus losses against theta-, or half the difference of both against the
// opponents (each match then counts as one game of theta+ against theta-).
double result_of(const TuneDef& d, const Tally& t) {
  if (d.bots.size() == 1) return static_cast<double>(t.plus);
  return static_cast<double>(t.plus - t.minus) / 2.0;
}

std::string values_text(const TuneDef& d, const std::vector<double>& values) {
  std::ostringstream out;
  for (size_t j = 0; j < values.size(); ++j)
    out << (j ? ", " : "") << d.params[j].name << " " << std::setprecision(6) << values[j];
  return out.str();
}

// Plays one tournament file to its end with the round player; "" when every match was played.
// Matches finished so far in a round's folders: the lines of their indexes.
uint64_t matches_played(const std::vector<std::string>& folders) {
  uint64_t lines = 0;
  for (const std::string& folder : folders) {
    std::ifstream in(output_path(folder, kIndexFile), std::ios::binary);
    lines += static_cast<uint64_t>(
        std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
  }
  return lines;
}

std::string play_round(const TuneRun& run, const v1::Tournament& t, const std::string& stem,
                       const std::atomic<bool>& stop, std::vector<std::string>& folders,
                       const std::function<void(uint64_t)>& on_progress = {}) {
  std::string why;
  const std::string text = tournament_file_text(t, "# Written by referee tune.\n", &why);
  if (text.empty() || !replace_durably(stem + ".txtpb", text, why)) return why;
  const RoundFiles files{stem + ".txtpb", stem, stem + ".out"};
  std::unique_ptr<RoundPlayer> player = start_round(run.rounds, files, "", &why);
  if (!player) return why;
  std::optional<std::string> end;
  bool told = false;
  auto next_report = std::chrono::steady_clock::now() + run.progress_every;
  uint64_t reported = 0;
  while (!(end = player->poll())) {
    if (stop.load() && !told) {
      player->stop();
      told = true;
    }
    if (on_progress && run.progress_every.count() > 0 &&
        std::chrono::steady_clock::now() >= next_report) {
      next_report += run.progress_every;
      if (const uint64_t played = matches_played(player->folders()); played != reported)
        on_progress(reported = played);
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  if (stop.load()) return "stopped";
  if (!end->empty()) return *end;
  folders = player->folders();
  return "";
}

class TuneLoop {
 public:
  TuneLoop(TuneRun& run, const std::atomic<bool>& stop, std::ostream& out, std::ostream& err)
      : run_(run), d_(run.def), stop_(stop), out_(out), err_(err) {}

  int run(std::vector<v1::TuneIteration> done);

 private:
  bool iterate(uint64_t i);
  int finish();
  std::string jsonl() const { return at(run_.out_dir, "tune.jsonl"); }

  TuneRun& run_;
  const TuneDef& d_;
  const std::atomic<bool>& stop_;
  std::ostream& out_;
  std::ostream& err_;
  std::vector<double> theta_;
  std::vector<v1::TuneIteration> done_;
  bool stopped_ = false;
};

int TuneLoop::run(std::vector<v1::TuneIteration> done) {
  done_ = std::move(done);
  for (const SpsaParam& p : d_.params) theta_.push_back(p.start);
  if (!done_.empty())
    for (size_t j = 0; j < d_.params.size(); ++j)
      theta_[j] = done_.back().theta().at(d_.params[j].name);
  const uint64_t total = spsa_iterations(d_.schedule);
  if (!run_.quiet)
    err_ << "tune " << d_.proto.name() << ": " << total
         << (total == 1 ? " iteration" : " iterations") << " of " << d_.schedule.pairs_per_iteration
         << " pair" << (d_.schedule.pairs_per_iteration == 1 ? "" : "s") << ", "
         << total - done_.size() << " left, seed " << d_.proto.seed() << " -> " << run_.out_dir
         << "\n"
         << std::flush;
  for (uint64_t i = done_.size(); i < total; ++i)
    if (!iterate(i)) return stopped_ ? 130 : 1;
  return finish();
}

bool TuneLoop::iterate(uint64_t i) {
  const SpsaStep step = spsa_step(d_.params, d_.schedule, theta_, d_.proto.seed(), i);
  const uint32_t pairs = spsa_pairs_in(d_.schedule, i);
  const v1::Tournament t =
      iteration_tournament(d_, i, pairs, step.plus, step.minus, run_.rounds.concurrency);
  const std::string stem = at(at(run_.out_dir, "iterations"), std::to_string(i));
  std::vector<std::string> folders;
  const auto progress = [&](uint64_t played) {
    if (run_.quiet) return;
    err_ << "tune " << d_.proto.name() << ": iteration " << i + 1 << "/"
         << spsa_iterations(d_.schedule) << ", " << played << (played == 1 ? " match" : " matches")
         << " played so far\n"
         << std::flush;
  };
  if (const std::string why = play_round(run_, t, stem, stop_, folders, progress); !why.empty()) {
    stopped_ = why == "stopped";
    err_ << "referee tune: "
         << (stopped_ ? "stopped; `--resume` continues at iteration " + std::to_string(i)
                      : "iteration " + std::to_string(i) + ": " + why)
         << "\n";
    return false;
  }
  const Tally tl = tally(d_, folders);
  const double r = result_of(d_, tl);
  theta_ = spsa_update(d_.params, theta_, step, r);
  v1::TuneIteration it;
  it.set_iteration(static_cast<uint32_t>(i));
  it.set_pairs_done((done_.empty() ? 0 : done_.back().pairs_done()) + pairs);
  for (size_t j = 0; j < d_.params.size(); ++j) {
    const std::string& n = d_.params[j].name;
    (*it.mutable_flip())[n] = step.flip[j];
    (*it.mutable_c_k())[n] = step.c[j];
    (*it.mutable_a_k())[n] = step.a[j];
    (*it.mutable_plus())[n] = step.plus[j];
    (*it.mutable_minus())[n] = step.minus[j];
    (*it.mutable_theta())[n] = theta_[j];
  }
  it.set_wins(tl.wins);
  it.set_losses(tl.losses);
  it.set_draws(tl.draws);
  it.set_result(r);
  it.set_folder("iterations/" + std::to_string(i));
  std::string line, why;
  google::protobuf::util::JsonPrintOptions json;
  json.preserve_proto_field_names = true;
  json.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(it, &line, json);
  if (!append_durably(jsonl(), line + "\n", why)) {
    err_ << "referee tune: " << why << "; --resume plays iteration " << i << " again\n";
    return false;
  }
  done_.push_back(std::move(it));
  if (!replace_durably(at(run_.out_dir, "tune.svg"), tune_svg(d_, done_), why))
    err_ << "referee tune: " << why << "\n";
  if (!run_.quiet)
    err_ << "tune " << d_.proto.name() << ": iteration " << i + 1 << "/"
         << spsa_iterations(d_.schedule) << ", " << done_.back().pairs_done() << "/"
         << d_.schedule.pairs << " pairs: " << values_text(d_, theta_) << " (R " << std::showpos
         << r << std::noshowpos << ")\n"
         << std::flush;
  return true;
}

int TuneLoop::finish() {
  std::vector<double> start;
  for (const SpsaParam& p : d_.params) start.push_back(p.start);
  const v1::Tournament confirm = confirm_tournament(d_, theta_, run_.rounds.concurrency);
  std::string why;
  const std::string stem = at(run_.out_dir, "confirm");
  const std::string text =
      tournament_file_text(confirm, "# The confirming SPRT of referee tune.\n", &why);
  if (text.empty() || !replace_durably(stem + ".txtpb", text, why)) {
    err_ << "referee tune: " << why << "\n";
    return 1;
  }
  out_ << "Tuned " << d_.proto.name() << " over " << d_.schedule.pairs << " pairs.\n"
       << "Values to use: " << values_text(d_, theta_) << "\n"
       << "Started from:  " << values_text(d_, start) << "\n"
       << "Trajectory:    " << at(run_.out_dir, "tune.svg") << " and tune.jsonl\n";
  if (!d_.proto.has_confirm()) {
    out_ << "Confirm them:  referee tournament " << stem << ".txtpb --out " << stem << "\n";
    return 0;
  }
  out_ << "Confirming with an SPRT of the tuned values against the start values...\n" << std::flush;
  std::vector<std::string> folders;
  if (const std::string bad = play_round(run_, confirm, stem, stop_, folders); !bad.empty()) {
    err_ << "referee tune: the confirming SPRT: " << bad << "\n";
    return bad == "stopped" ? 130 : 1;
  }
  std::ifstream report(at(stem, "sprt.txt"));
  out_ << report.rdbuf();
  return 0;
}

// The tune file and the tune's own files in OUT, made before any bot starts, kept from every
// bot as a tournament keeps its own (the iterations' files name OUT as their out_dir, which
// hides OUT itself but not the tune's files where a bot may read OUT): the file and its copy
// name the seed of every deal, tune.jsonl and tune.svg the path so far.
bool hide_tune_files(TuneRun& run, const std::vector<v1::TuneIteration>& done, std::string& why) {
  const std::string& out = run.out_dir;
  if (!append_durably(at(out, "tune.jsonl"), "", why) ||
      !replace_durably(at(out, "tune.svg"), tune_svg(run.def, done), why))
    return false;
  if (!run.def.path.empty()) run.rounds.hide.push_back(run.def.path);
  for (const char* name : {"tune.txtpb", "tune.lock", "tune.jsonl", "tune.svg", "iterations"})
    run.rounds.hide.push_back(at(out, name));
  // tunes-out/ above the default folder holds other tunes (their seeds), as tournaments-out/.
  const fs::path fallback = fs::absolute(default_tune_out_dir(run.def.proto)).lexically_normal();
  if (run.def.proto.out_dir().empty() && fs::path(out) == fallback)
    run.rounds.hide.push_back(fallback.parent_path().string());
  return true;
}

}  // namespace

int run_tune(TuneRun& run, const std::atomic<bool>& stop, std::ostream& out, std::ostream& err) {
  int lock_fd = -1;
  std::string why;
  // The children run in OUT/empty: every path they are given is absolute.
  run.out_dir = fs::absolute(run.out_dir).lexically_normal().string();
  std::vector<v1::TuneIteration> done;
  const bool ok = open_folder(run, lock_fd, why) &&
                  read_done(at(run.out_dir, "tune.jsonl"), done, why) &&
                  hide_tune_files(run, done, why);
  if (!ok) {
    err << "referee tune: " << why << "\n";
    if (lock_fd >= 0) ::close(lock_fd);
    return 1;
  }
  const std::string empty = at(run.out_dir, "empty");
  std::error_code ec;
  if (fs::create_directory(empty, ec)) fs::permissions(empty, fs::perms(0555), ec);
  run.rounds.working_dir = fs::absolute(empty).string();
  const int code = TuneLoop(run, stop, out, err).run(std::move(done));
  ::close(lock_fd);
  return code;
}

}  // namespace allfives::referee
