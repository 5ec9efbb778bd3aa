#include "cli/ladder_command.h"

#include <google/protobuf/text_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <thread>

#include "bots/bot_spec.h"
#include "cli/slurm_flags.h"
#include "cli/stop_signal.h"
#include "ladder/bot_upload.h"
#include "ladder/ladder_file.h"
#include "ladder/ladder_run.h"
#include "ladder/ladder_store.h"
#include "log/match_log.h"
#include "rounds/child_process.h"
#include "tournament/standings.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

struct LadderFlags {
  std::string dir, file, name, path, token, command, version;
  int concurrency = 1;
  long long rounds = 0;
  bool quiet = false, no_check = false, csv = false, organiser = false;
  SlurmFlags slurm;
  std::string listen = "127.0.0.1:8080";
};

// The build's run_bot (the Python SDK on the path) beside the referee program, else python3.
std::string default_python() {
  const fs::path run_bot = fs::path(own_program()).parent_path() / ".." / "python" / "run_bot";
  std::error_code ec;
  return fs::exists(run_bot, ec) ? fs::weakly_canonical(run_bot, ec).string() : "python3";
}

std::string when(int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

// Sandboxed bots run as users of their own: every folder above the ladder must let others
// through, or no version can start (its check says "Permission denied").
void warn_closed_folders(const fs::path& dir) {
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (stat(p.c_str(), &st) == 0 && !(st.st_mode & S_IXOTH))
      std::cerr << "referee ladder init: warning: other users cannot pass through " << p.string()
                << ", so sandboxed bots (users of their own) cannot start from the ladder; "
                   "allow it with: chmod o+x "
                << p.string() << "\n";
    if (p == p.parent_path()) break;
  }
}

int init(const LadderFlags& f, bool say_next = true) {
  LadderDef def;
  std::string why;
  if (!load_ladder(f.file, default_python(), def, &why)) {
    std::cerr << "referee ladder init: " << why << "\n";
    return 1;
  }
  std::error_code ec;
  if (fs::exists(f.dir, ec) && !fs::is_empty(f.dir, ec)) {
    std::cerr << "referee ladder init: " << f.dir
              << " exists and is not empty; a ladder needs a folder of its own\n";
    return 1;
  }
  const fs::path dir = fs::absolute(f.dir, ec);
  for (const char* sub : {kLadderBots, kLadderChecks, kLadderRounds})
    fs::create_directories(dir / sub, ec);
  if (ec) {
    std::cerr << "referee ladder init: " << dir.string() << ": " << ec.message() << "\n";
    return 1;
  }
  warn_closed_folders(dir);
  std::string text;
  google::protobuf::TextFormat::PrintToString(def.proto, &text);
  std::ofstream(dir / kLadderDefinition)
      << "# The ladder as `referee ladder init` read it from " << def.path << "\n"
      << text;
  LadderStore::open(dir.string(), true);
  std::cout << "ladder " << def.proto.name() << " ready in " << dir.string() << "\n";
  if (say_next) std::cout << "next: referee ladder add-user " << f.dir << " NAME\n";
  return 0;
}

int add_user(const LadderFlags& f) {
  std::string why;
  if (!check_safe_name(f.name, "user name", kMaxBotNameLength, &why)) {
    std::cerr << "referee ladder add-user: " << why << "\n";
    return 2;
  }
  const std::string token = LadderStore::open(f.dir, false)->add_user(f.name, f.organiser);
  std::cout << (f.organiser ? "organiser " : "user ") << f.name
            << " added; their access token (shown only now, keep it):\n"
            << token << "\nthey submit with: referee ladder submit " << f.dir
            << " --token TOKEN BOT_NAME PATH\n";
  return 0;
}

int submit(const LadderFlags& f) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  const std::optional<int64_t> user = store->user_of_token(f.token);
  if (!user) {
    std::cerr << "referee ladder submit: this token is not valid for the ladder in " << f.dir
              << " (ask its organiser for yours)\n";
    return 1;
  }
  std::string why;
  std::vector<std::string> words;
  if (!check_ladder_bot_name(f.name, &why) || !command_words(f.command, words, &why)) {
    std::cerr << "referee ladder submit: " << why << "\n";
    return 2;
  }
  const LadderDef def = load_ladder_folder(f.dir);
  const std::string staged =
      (fs::absolute(f.dir).lexically_normal() / kLadderBots / ".upload-").string() +
      std::to_string(getpid()) + "-" + std::to_string(std::time(nullptr));
  std::error_code ec;
  auto refuse = [&](const std::string& reason) {
    fs::remove_all(staged, ec);
    std::cerr << "referee ladder submit: " << f.path << " refused: " << reason << "\n";
    return 1;
  };
  if (std::string bad = store_upload(f.path, staged, def.upload(), default_unpacker());
      !bad.empty())
    return refuse(bad);
  std::vector<std::string> argv;
  if (std::string bad = choose_command(staged, words, def.proto.python(), argv); !bad.empty())
    return refuse(bad);
  const Version v = store->add_version(*user, f.name, staged, argv);
  if (std::string bad = make_read_only(v.folder); !bad.empty())
    std::cerr << "referee ladder submit: warning: " << bad << "\n";
  std::cout << v.name() << " stored in " << v.folder << "\n";
  if (f.no_check) {
    std::cout << "the running ladder checks it before it plays\n";
    return 0;
  }
  std::cout << "checking it with referee check-bot...\n" << std::flush;
  bool ran = false;
  const std::string report = gate_version(*store, def, v, own_program(), ran);
  std::cout << report;
  if (!ran) {
    std::cout << "the check could not run; the running ladder tries again\n";
    return 1;
  }
  const bool passed = store->version(v.name())->state == VersionState::kActive;
  std::cout << v.name()
            << (passed ? " passed its check and plays from the next round\n"
                       : " was refused by its check (the report above says why)\n");
  return passed ? 0 : 1;
}

int list(const LadderFlags& f, const std::string& only_user) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  std::cout << std::left << std::setw(28) << "version" << std::setw(16) << "user" << std::setw(10)
            << "state" << std::setw(9) << "matches"
            << "submitted (UTC)\n";
  for (const Version& v : store->versions()) {
    if (!only_user.empty() && v.user != only_user) continue;
    std::cout << std::setw(28) << v.name() << std::setw(16) << v.user << std::setw(10)
              << state_name(v.state) << std::setw(9) << v.matches << when(v.submitted_at) << "\n";
    if (!only_user.empty() && v.state == VersionState::kRefused)
      std::cout << "  refused; its report: referee ladder report " << f.dir << " " << v.name()
                << "\n";
  }
  return 0;
}

int standings(const LadderFlags& f) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  const std::vector<RatingRow> rows = store->leaderboard();
  if (f.csv) {
    std::cout << "rank,version,user,state,elo,elo_ci95,matches,wins,losses,draws,forfeits\n";
    for (const RatingRow& r : rows)
      std::cout << r.rank << "," << r.version << "," << r.user << "," << state_name(r.state) << ","
                << fixed_text(r.elo, 1) << "," << fixed_text(r.ci95, 1) << "," << r.matches << ","
                << r.wins << "," << r.losses << "," << r.draws << "," << r.forfeits << "\n";
    return 0;
  }
  std::cout << std::left << std::setw(5) << "rank" << std::setw(28) << "version" << std::setw(16)
            << "user" << std::right << std::setw(8) << "Elo" << std::setw(8) << "+/-"
            << std::setw(9) << "matches" << std::setw(6) << "W" << std::setw(6) << "L"
            << std::setw(6) << "D"
            << "\n";
  for (const RatingRow& r : rows)
    std::cout << std::left << std::setw(5) << r.rank << std::setw(28)
              << (r.version + (r.state == VersionState::kRetired ? " (retired)" : ""))
              << std::setw(16) << r.user << std::right << std::setw(8) << fixed_text(r.elo, 0)
              << std::setw(8) << fixed_text(r.ci95, 0) << std::setw(9) << r.matches << std::setw(6)
              << r.wins << std::setw(6) << r.losses << std::setw(6) << r.draws << "\n";
  std::cout << store->match_count()
            << " matches; Elo: the Bradley-Terry fit of `referee standings` over every ladder "
               "match, +/- its 95% interval\n";
  return 0;
}

std::optional<Version> find_version(LadderStore& store, const std::string& name, const char* cmd) {
  std::optional<Version> v = store.version(name);
  if (!v)
    std::cerr << "referee ladder " << cmd << ": no version " << name
              << " (NAME@N; see referee ladder list)\n";
  return v;
}

int report(const LadderFlags& f) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  const std::optional<Version> v = find_version(*store, f.version, "report");
  if (!v) return 1;
  std::cout << v->name() << ": " << state_name(v->state) << "\n" << v->report;
  return 0;
}

int history(const LadderFlags& f) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  const std::optional<Version> v = find_version(*store, f.version, "history");
  if (!v) return 1;
  std::cout << "matches,elo,elo_ci95,at\n";
  for (const HistoryPoint& p : store->history(v->id))
    std::cout << p.matches << "," << fixed_text(p.elo, 1) << "," << fixed_text(p.ci95, 1) << ","
              << when(p.at) << "\n";
  return 0;
}

int retire(const LadderFlags& f) {
  std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
  const std::optional<Version> v = find_version(*store, f.version, "retire");
  if (!v) return 1;
  store->set_state(v->id, VersionState::kRetired, "");
  std::cout << v->name() << " retired: it keeps its record and plays no more\n";
  return 0;
}

int run(const LadderFlags& f) {
  LadderRunOptions o;
  o.dir = f.dir;
  o.concurrency = f.concurrency;
  o.referee = own_program();
  o.max_rounds = f.rounds;
  o.quiet = f.quiet;
  apply_slurm_flags(f.slurm, o);
  const std::atomic<bool>& stop = install_stop_signals();
  const int code = run_ladder(o, stop, std::cout, std::cerr);
  return code == 0 && stop_signal() ? 128 + stop_signal() : code;
}

// The address `referee serve` printed in its output file ("... at http://HOST:PORT/"), waiting
// for it a few seconds; "" if it never came.
std::string served_address(const std::string& output) {
  for (int i = 0; i < 100; ++i) {
    std::ifstream in(output);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const size_t at = text.find("http://");
    if (at != std::string::npos) return text.substr(at, text.find_first_of(" \n", at) - at);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

// A ladder of the sample bots, one user each, served and played until stopped.
// The demo's user for the person trying it.
constexpr const char* kDemoVisitor = "you";

int demo(LadderFlags f) {
  const fs::path bots = fs::path(own_program()).parent_path() / ".." / "sample_bots";
  const std::vector<std::pair<std::string, std::string>> entrants = {
      {"alice", "greedy_bot"}, {"bob", "heavy_bot"}, {"carol", "random_bot"}};
  std::error_code ec;
  if (!fs::exists(fs::path(f.dir) / kLadderDatabase, ec)) {
    const fs::path file =
        fs::temp_directory_path() / ("ladder-demo-" + std::to_string(getpid()) + ".txtpb");
    std::ofstream(file) << "name: \"demo\"\nformat: FORMAT_TWO_PLAYERS\nmove_time_ms: 200\n"
                        << "check_decisions: 20\nplacement_opponents: 2\nhistory_every: 2\n";
    f.file = file.string();
    const int made = init(f, /*say_next=*/false);
    fs::remove(file, ec);
    if (made != 0) return made;
    std::unique_ptr<LadderStore> store = LadderStore::open(f.dir, false);
    const LadderDef def = load_ladder_folder(f.dir);
    for (const auto& [user, program] : entrants) {
      const std::string token = store->add_user(user);
      const std::string staged =
          (fs::absolute(f.dir).lexically_normal() / kLadderBots / ("." + user)).string();
      fs::create_directories(staged, ec);
      fs::copy_file(bots / program, fs::path(staged) / "bot", ec);
      if (ec) {
        std::cerr << "referee ladder demo: " << (bots / program).string()
                  << " not found: the demo needs the sample bots built beside the referee\n";
        return 1;
      }
      const std::string name = program.substr(0, program.find('_'));
      const Version v =
          store->add_version(*store->user_of_token(token), name, staged, {staged + "/bot"});
      make_read_only(v.folder);
      bool ran = false;
      gate_version(*store, def, v, own_program(), ran);
      std::cout << user << " (token " << token << ") submitted " << v.name() << ": "
                << state_name(store->version(v.name())->state) << "\n";
    }
    LadderStore::open(f.dir, false)->add_user(kDemoVisitor, /*organiser=*/true);
  }
  // The visitor's token, new at each start since a token is shown only once.
  const std::optional<std::string> visitor =
      LadderStore::open(f.dir, false)->reset_token(kDemoVisitor);
  const std::string output = (fs::path(f.dir) / "serve.out").string();
  std::string why;
  std::optional<ChildProcess> server =
      ChildProcess::start({own_program(), "serve", f.dir, "--listen", f.listen}, output, &why);
  if (!server) {
    std::cerr << "referee ladder demo: " << why << "\n";
    return 1;
  }
  const std::string address = served_address(output);
  if (address.empty()) {
    server->signal(SIGTERM);
    server->wait();
    std::cerr << "referee ladder demo: referee serve did not start; its output: " << output << "\n";
    return 1;
  }
  std::cout << "The ladder's leaderboard: " << address << "ladder/0/ (Ctrl-C stops)\n";
  if (visitor)
    std::cout << "Sign in there as '" << kDemoVisitor << "' (an organiser) with the token "
              << *visitor << " and upload a bot of your own.\n";
  std::cout << std::flush;
  const int code = run(f);
  server->signal(SIGTERM);
  server->wait();
  return code;
}

// Runs `body`, turning a database or file error into its message and exit code 1.
void guarded(const char* name, int& exit_code, const std::function<int()>& body) {
  try {
    exit_code = body();
  } catch (const std::exception& e) {
    std::cerr << "referee ladder " << name << ": " << e.what() << "\n";
    exit_code = 1;
  }
}

using Flags = std::shared_ptr<LadderFlags>;

void add_dir(CLI::App* c, const Flags& f) {
  c->add_option("dir", f->dir, "The ladder folder")->required();
}

void add_version(CLI::App* c, const Flags& f) {
  c->add_option("version", f->version, "The version, NAME@N")->required();
}

// init, add-user and submit: what fills a ladder.
void add_setup_commands(CLI::App* ladder, const Flags& f, int& exit_code) {
  CLI::App* c = ladder->add_subcommand(
      "init", "Make a ladder folder from a ladder file (proto/allfives/v1/ladder.proto)");
  add_dir(c, f);
  c->add_option("ladder_file", f->file, "The ladder definition")->required();
  c->callback([f, &exit_code] { guarded("init", exit_code, [&] { return init(*f); }); });

  c = ladder->add_subcommand("add-user", "Add a person; prints their access token once");
  add_dir(c, f);
  c->add_option("name", f->name, "Their name (letters, digits, . _ + -)")->required();
  c->add_flag("--organiser", f->organiser,
              "They may also retire versions and reset tokens from the served pages");
  c->callback([f, &exit_code] { guarded("add-user", exit_code, [&] { return add_user(*f); }); });

  c = ladder->add_subcommand(
      "submit",
      "Submit a new version of a bot: PATH is a program folder, a single file (a .py file runs\n"
      "with the Python SDK) or an archive (.zip, .tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst).\n"
      "It is stored read-only as NAME@N and checked by `referee check-bot` before it plays.");
  add_dir(c, f);
  c->add_option("--token", f->token,
                "Your access token (from add-user); the environment's ALLFIVES_LADDER_TOKEN "
                "keeps it out of other users' process lists")
      ->envname("ALLFIVES_LADDER_TOKEN")
      ->required();
  c->add_option("name", f->name, "The bot's name (letters, digits, _ and -)")->required();
  c->add_option("path", f->path, "The bot: a folder, a file or an archive")->required();
  c->add_option("--command", f->command,
                "The command that starts it, paths relative to its folder (default: an "
                "executable named bot or run, else bot.py, main.py or a lone .py file)");
  c->add_flag("--no-check", f->no_check, "Leave the check to the running ladder");
  c->callback([f, &exit_code] { guarded("submit", exit_code, [&] { return submit(*f); }); });
}

// run and demo: what plays a ladder.
void add_play_commands(CLI::App* ladder, const Flags& f, int& exit_code) {
  CLI::App* c = ladder->add_subcommand(
      "run", "Play rounds until stopped (Ctrl-C or SIGTERM; a rerun resumes)");
  add_dir(c, f);
  c->add_option("--concurrency,-j", f->concurrency, "Matches at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  c->add_option("--rounds", f->rounds, "Stop after this many rounds (default: run until stopped)")
      ->check(CLI::Range(0LL, 1LL << 40));
  c->add_flag("--quiet,-q", f->quiet, "No line per round");
  add_slurm_flags(c, f->slurm,
                  "Play each round as a Slurm job array (sbatch; the referee, the ladder folder "
                  "and the bots must be at the same paths on the cluster's nodes; docs/LADDER.md)",
                  "Tasks per round's array (default: one per deal group of the round)");
  c->callback([f, &exit_code] { guarded("run", exit_code, [&] { return run(*f); }); });

  c = ladder->add_subcommand(
      "demo",
      "A living ladder in one command: the sample bots (greedy, heavy, random) submitted by\n"
      "three users into DIR (made if missing; an existing ladder is reused), served by\n"
      "`referee serve` and played until Ctrl-C. Prints each user's token.");
  add_dir(c, f);
  c->add_option("--listen", f->listen, "Where the pages are served (HOST:PORT; port 0: any)")
      ->capture_default_str();
  c->add_option("--concurrency,-j", f->concurrency, "Matches at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  c->add_option("--rounds", f->rounds, "Stop after this many rounds (default: run until stopped)")
      ->check(CLI::Range(0LL, 1LL << 40));
  c->callback([f, &exit_code] { guarded("demo", exit_code, [&] { return demo(*f); }); });
}

// list, user, standings, report, history and retire: what reads or retires versions.
void add_version_commands(CLI::App* ladder, const Flags& f, int& exit_code) {
  CLI::App* c = ladder->add_subcommand("list", "Every version: its user, state and matches");
  add_dir(c, f);
  c->callback([f, &exit_code] { guarded("list", exit_code, [&] { return list(*f, ""); }); });

  c = ladder->add_subcommand("user", "One user's versions, and where a refused one's report is");
  add_dir(c, f);
  c->add_option("name", f->name, "The user")->required();
  c->callback([f, &exit_code] { guarded("user", exit_code, [&] { return list(*f, f->name); }); });

  c = ladder->add_subcommand("standings", "The leaderboard, as of the last finished round");
  add_dir(c, f);
  c->add_flag("--csv", f->csv, "As CSV");
  c->callback([f, &exit_code] { guarded("standings", exit_code, [&] { return standings(*f); }); });

  c = ladder->add_subcommand("report", "A version's check-bot report");
  add_dir(c, f);
  add_version(c, f);
  c->callback([f, &exit_code] { guarded("report", exit_code, [&] { return report(*f); }); });

  c = ladder->add_subcommand("history", "A version's rating over its matches, as CSV");
  add_dir(c, f);
  add_version(c, f);
  c->callback([f, &exit_code] { guarded("history", exit_code, [&] { return history(*f); }); });

  c = ladder->add_subcommand("retire", "Retire a version: it keeps its record and plays no more");
  add_dir(c, f);
  add_version(c, f);
  c->callback([f, &exit_code] { guarded("retire", exit_code, [&] { return retire(*f); }); });
}

}  // namespace

void add_ladder_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<LadderFlags>();
  CLI::App* ladder = app.add_subcommand(
      "ladder",
      "A competition that runs for weeks: people submit versions of their bots at any time,\n"
      "each passes `referee check-bot`, plays placement matches, then matches chosen where\n"
      "they teach most, and is rated with every version in one Bradley-Terry pool. State in\n"
      "DIR/ladder.db (SQLite); bots, logs and reports stay files in DIR (docs/LADDER.md).");
  ladder->require_subcommand(1);
  add_setup_commands(ladder, f, exit_code);
  add_play_commands(ladder, f, exit_code);
  add_version_commands(ladder, f, exit_code);
}

}  // namespace allfives::referee
