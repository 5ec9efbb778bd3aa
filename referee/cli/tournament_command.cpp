#include "cli/tournament_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/confinement_flags.h"
#include "cli/stop_signal.h"
#include "tournament/sprt.h"
#include "tournament/tournament_runner.h"

namespace allfives::referee {
namespace {

struct TournamentOptions {
  std::string file;
  std::string out;
  int concurrency = 0;
  bool resume = false;
  std::string shard;
  bool quiet = false;
  bool verbose = false;
  bool affinity = true;
  int idle_bots = static_cast<int>(BotPool::kDefaultMaxIdle);
  int sync_interval_ms = static_cast<int>(IndexWriter::kCommitInterval.count());
  std::vector<std::string> candidates;
  std::string sprt;
  std::optional<long long> sprt_max_pairs;
  std::vector<std::string> sprt_against;
  ConfinementFlags confinement;
};

// "ELO0,ELO1[,ALPHA,BETA]" into an Sprt message.
bool parse_sprt(const std::string& text, v1::Sprt& out) {
  std::vector<double> v;
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    try {
      size_t used = 0;
      const std::string part = text.substr(from, comma - from);
      v.push_back(std::stod(part, &used));
      if (used != part.size()) return false;
    } catch (const std::exception&) {
      return false;
    }
    from = comma + 1;
  }
  if (v.size() != 2 && v.size() != 4) return false;
  out.set_elo0(v[0]);
  out.set_elo1(v[1]);
  if (v.size() == 4) {
    out.set_alpha(v[2]);
    out.set_beta(v[3]);
  }
  return true;
}

// "I/N" with 0 <= I < N.
bool parse_shard(const std::string& text, int& index, int& count) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return false;
    count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  return count >= 1 && index >= 0 && index < count;
}

// The flags that need no file: 0, or 2 having said what is wrong. `sprt` gets --sprt's test.
int flag_problem(const TournamentOptions& o, v1::Sprt& sprt) {
  if (const std::string why = confinement_flags_problem(o.confinement); !why.empty()) {
    std::cerr << "referee tournament: " << why << "\n";
    return 2;
  }
  if (o.concurrency < 0 || o.concurrency > static_cast<int>(kMaxConcurrency)) {
    std::cerr << "referee tournament: --concurrency must be 1.." << kMaxConcurrency << ", not "
              << o.concurrency << "\n";
    return 2;
  }
  if (o.sprt_max_pairs && (*o.sprt_max_pairs < 0 || *o.sprt_max_pairs > kMaxSprtPairs)) {
    std::cerr << "referee tournament: --sprt-max-pairs must be 0.." << kMaxSprtPairs
              << " (0: until the schedule ends), not " << *o.sprt_max_pairs << "\n";
    return 2;
  }
  if (!o.sprt.empty() && !parse_sprt(o.sprt, sprt)) {
    std::cerr << "referee tournament: --sprt must be ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA (e.g. "
                 "0,5 or 0,5,0.05,0.05), not '"
              << o.sprt << "'\n";
    return 2;
  }
  return 0;
}

// What the flags change in the file as it is read: candidates and the SPRT.
void apply_file_flags(const TournamentOptions& o, const v1::Sprt& sprt, v1::Tournament& t) {
  for (const std::string& c : o.candidates) t.add_candidates(c);
  if (!o.sprt.empty()) {
    const uint32_t max_pairs = t.sprt().max_pairs();
    *t.mutable_sprt() = sprt;
    t.mutable_sprt()->set_max_pairs(max_pairs);
  }
  if (o.sprt_max_pairs && t.has_sprt())
    t.mutable_sprt()->set_max_pairs(static_cast<uint32_t>(*o.sprt_max_pairs));
  if (!o.sprt_against.empty() && t.has_sprt()) {
    t.mutable_sprt()->clear_against();
    for (const std::string& name : o.sprt_against) t.mutable_sprt()->add_against(name);
  }
}

// The file read with the flags applied, and the flags that depend on it (the SPRT's, --shard):
// 0, or 2 having said what is wrong.
int load_definition(const TournamentOptions& o, const v1::Sprt& sprt, TournamentRun& run) {
  std::string error;
  if (!load_tournament(o.file, run.def, &error,
                       [&](v1::Tournament& t) { apply_file_flags(o, sprt, t); })) {
    std::cerr << "referee tournament: " << error << "\n";
    return 2;
  }
  if ((o.sprt_max_pairs || !o.sprt_against.empty()) && !run.def.sprt) {
    std::cerr << "referee tournament: --sprt-max-pairs and --sprt-against need --sprt or an sprt "
                 "block in the file\n";
    return 2;
  }
  if (!o.shard.empty() && !parse_shard(o.shard, run.shard_index, run.shard_count)) {
    std::cerr << "referee tournament: --shard must be I/N with 0 <= I < N, not '" << o.shard
              << "'\n";
    return 2;
  }
  if (run.shard_count > 1 && !run.def.proto.has_seed()) {
    std::cerr << "referee tournament: " << o.file
              << ": --shard needs a `seed` in the file: every shard must play the same schedule, "
                 "and a seed drawn at random would differ from shard to shard\n";
    return 2;
  }
  return 0;
}

// The flags give every started bot its confinement; what a bot's entry in the file sets wins.
void confine_bots(const TournamentOptions& o, TournamentRun& run) {
  const Confinement flags = confinement_from(o.confinement);
  for (int i = 0; i < static_cast<int>(run.def.bots.size()); ++i) {
    BotSpec& bot = run.def.bots[static_cast<size_t>(i)];
    if (!bot.started()) continue;
    const v1::TournamentBot& entry = run.def.proto.bots(i);
    Confinement& c = bot.confinement;
    c.sandbox = flags.sandbox && c.sandbox;
    c.cgroups = flags.cgroups;
    const v1::BotLimits& set = entry.limits();
    if (set.memory_mib() == 0) c.limits.memory_mib = flags.limits.memory_mib;
    if (set.processes() == 0) c.limits.processes = flags.limits.processes;
    if (set.open_files() == 0) c.limits.open_files = flags.limits.open_files;
    if (set.file_size_mib() == 0) c.limits.file_size_mib = flags.limits.file_size_mib;
    // Thinking on the opponent's time: by the flag or the file; the quota then defaults to one
    // CPU (none with an explicit --cpu-percent 0).
    const bool ponder =
        o.confinement.think_on_opponent_time || run.def.proto.think_on_opponent_time();
    c.think_on_opponent_time = ponder;
    if (set.cpu_percent() == 0) c.limits.cpu_percent = flags.limits.cpu_percent;
    if (ponder && c.limits.cpu_percent == 0 && !o.confinement.cpu_percent_given)
      c.limits.cpu_percent = kPonderCpuPercent;
    c.read_only_dirs.insert(c.read_only_dirs.end(), flags.read_only_dirs.begin(),
                            flags.read_only_dirs.end());
    c.hidden.insert(c.hidden.end(), flags.hidden.begin(), flags.hidden.end());
  }
}

// The output folder (a shard's own below the file's), hidden from every bot with the run's
// other paths; false, having said why, when a bot's confinement cannot be made.
bool place_output(const TournamentOptions& o, TournamentRun& run) {
  run.out_dir = !o.out.empty() ? o.out : run.def.out_dir;
  if (o.out.empty() && run.shard_count > 1)
    run.out_dir +=
        "/shard-" + std::to_string(run.shard_index) + "-of-" + std::to_string(run.shard_count);
  std::vector<HiddenPath> hidden = tournament_hidden_paths(run);
  for (const HiddenPath& own : own_output_files()) hidden.push_back(own);
  for (BotSpec& bot : run.def.bots)
    bot.confinement.hidden.insert(bot.confinement.hidden.end(), hidden.begin(), hidden.end());
  return check_confinement(run.def.bots, "referee tournament");
}

// The flags of how the run goes (concurrency, resume and the seed, output, idle bots, syncs):
// 0, or 2 having said what is wrong.
int set_run_flags(const TournamentOptions& o, TournamentRun& run) {
  run.concurrency = o.concurrency > 0 ? o.concurrency : run.def.concurrency;
  run.resume = o.resume;
  settle_seed(run);
  run.quiet = o.quiet;
  run.verbose = o.verbose;
  run.affinity = o.affinity;
  if (o.idle_bots < 0 || o.idle_bots > 10000) {
    std::cerr << "referee tournament: --idle-bots must be 0..10000, not " << o.idle_bots << "\n";
    return 2;
  }
  run.idle_bots = static_cast<size_t>(o.idle_bots);
  if (o.sync_interval_ms < 0 || o.sync_interval_ms > 60000) {
    std::cerr << "referee tournament: --sync-interval-ms must be 0..60000, not "
              << o.sync_interval_ms << "\n";
    return 2;
  }
  run.sync_interval = std::chrono::milliseconds(o.sync_interval_ms);
  return 0;
}

int run(const TournamentOptions& o) {
  v1::Sprt sprt;
  TournamentRun run;
  if (const int code = flag_problem(o, sprt)) return code;
  if (const int code = load_definition(o, sprt, run)) return code;
  confine_bots(o, run);
  if (!place_output(o, run)) return 1;
  if (const int code = set_run_flags(o, run)) return code;
  const std::atomic<bool>& stop = install_stop_signals();
  const int code = run_tournament(run, stop);
  if (code == 130 && stop_signal()) return 128 + stop_signal();
  return code;
}

}  // namespace

void add_tournament_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TournamentOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tournament",
      "Play a tournament from a definition file (protobuf text format, see\n"
      "proto/allfives/v1/tournament.proto and tournaments/*.txtpb): a round robin, or a\n"
      "gauntlet of candidates against baselines, optionally stopped early by an SPRT. Logs\n"
      "every match and prints the standings. Ctrl-C stops cleanly; --resume continues in the\n"
      "same output folder, and plays only the new matches of a file with bots appended.\n"
      "A file without `seed` plays a seed drawn at random, printed and recorded in the output\n"
      "folder's tournament.txtpb, which --resume and `referee verify` read.\n"
      "Every started bot runs in a bubblewrap sandbox with the resource limits below (a bot's\n"
      "entry in the file may set its own: sandbox, limits, read_only_dirs). docs/TOURNAMENTS.md\n"
      "Exit status: 0 done; 1 the run failed (a write, a worker, a bot that never started) or\n"
      "the folder cannot be used (in use, holding another tournament); 2 a mistake in the\n"
      "command line or the file; 130/143 stopped by a signal (--resume continues).");
  cmd->add_option("file", o->file, "The tournament definition")->required();
  cmd->add_option("--out,-o", o->out, "Output folder (default: the file's out_dir)");
  cmd->add_option("--concurrency,-j", o->concurrency,
                  "Matches at once, each in a worker process of its own (default: the file's "
                  "value, else the number of cores)");
  cmd->add_flag("--resume", o->resume,
                "Continue an interrupted run in the same output folder: finished matches are "
                "kept, unfinished ones are played again (with the seed recorded there when the "
                "file has none)");
  cmd->add_option("--shard", o->shard,
                  "Play only slice I of N of the schedule (e.g. 3/8), into its own folder; "
                  "merge the folders with `referee standings`");
  cmd->add_flag("--quiet,-q", o->quiet, "No progress line");
  cmd->add_flag("--verbose,-v", o->verbose,
                "Also print housekeeping notes (the socket folders of referees that died, "
                "removed)");
  cmd->add_option("--candidate", o->candidates,
                  "Make this bot a gauntlet candidate (repeatable; as `candidates` in the file): "
                  "each candidate plays every other bot that is not a candidate, and baselines do "
                  "not play each other")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--sprt", o->sprt,
                  "Stop early on a sequential probability ratio test (as the file's `sprt` block): "
                  "ELO0,ELO1[,ALPHA,BETA] in normalized Elo, e.g. 0,5 (alpha = beta = 0.05 by "
                  "default). Two-side formats; tests the one candidate (or the first of two bots) "
                  "against one reference (--sprt-against) over mirrored pairs; see "
                  "docs/TOURNAMENTS.md");
  cmd->add_option("--sprt-max-pairs", o->sprt_max_pairs,
                  "Stop the SPRT undecided after this many pairs of the candidate against its "
                  "reference (0.." +
                      std::to_string(kMaxSprtPairs) + "; 0: until the schedule ends)");
  cmd->add_option("--sprt-against", o->sprt_against,
                  "The SPRT's reference (as `against` in the file's sprt block): the bot the "
                  "candidate is tested against; needed when it meets several. Repeatable: one "
                  "test per reference")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag(
      "--affinity,!--no-affinity", o->affinity,
      "Pin each worker and its bots to one CPU (worker i to the i-th usable CPU, round "
      "robin; default on): a match's referee and bots take turns, a turn handed over on one "
      "CPU is a plain switch, and matches stop competing for cores. --no-affinity for bots "
      "that think on several threads");
  cmd->add_option("--idle-bots", o->idle_bots,
                  "Bot processes each worker keeps running between matches, for reuse; beyond "
                  "that the least recently used is stopped. More saves start-ups when a "
                  "tournament has many bots, at the cost of memory (one process per bot and "
                  "worker at most)")
      ->capture_default_str();
  cmd->add_option("--sync-interval-ms", o->sync_interval_ms,
                  "Finished matches count once their log and index line are on disk (fsync); "
                  "the syncs are made together for the matches of this interval. 0 syncs as "
                  "soon as a match ends (slower: a sync costs more than a match); a crash of "
                  "the machine loses at most the matches of one interval (resume replays them)")
      ->capture_default_str();
  add_confinement_flags(cmd, o->confinement);
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace allfives::referee
