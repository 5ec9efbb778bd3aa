#include "cli/match_command.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "allfives/core/types.h"
#include "bots/bot_endpoint.h"
#include "cli/confinement_flags.h"
#include "cli/seed_flag.h"
#include "cli/stop_signal.h"
#include "log/json_text.h"
#include "log/match_log.h"
#include "match/match_runner.h"
#include "process/bot_process.h"
#include "process/private_dir.h"
#include "replay/frames.h"
#include "serve/http_server.h"
#include "serve/human_seat.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

// A person thinks slower than a program: a seat played from the keyboard or a page gets these.
constexpr std::chrono::milliseconds kPersonMoveTime{60000};
constexpr std::chrono::milliseconds kPersonTimeBank{600000};
// How long the referee waits for a person to open the seat's page, and, after a match, for
// "play again".
constexpr std::chrono::milliseconds kPersonArrival{300000};
constexpr std::chrono::milliseconds kRematchWait{600000};
constexpr int kMaxPersonArrivalMs = 86'400'000;  // --human-startup-timeout-ms

struct MatchOptions {
  std::vector<std::string> bots;
  std::string format = "2p";
  std::optional<uint64_t> seed;     // none: draw_seed()
  std::optional<int> move_time_ms;  // default wire::kDefaultMoveTime, or a person's
  std::optional<int> time_bank_ms;  // default wire::kDefaultTimeBank, or a person's
  std::string serve = "127.0.0.1:8080";
  int startup_timeout_ms = static_cast<int>(wire::kDefaultStartupTimeout.count());
  int human_startup_timeout_ms = static_cast<int>(kPersonArrival.count());
  int human_pace_ms = 600;
  std::string log_path;
  std::optional<int> target;
  int max_hands = kDefaultMaxHands;
  std::string match_id;
  bool verbose = false;
  ConfinementFlags confinement;
};

// "match-20261129-143501-4242": unique enough for one machine, and says nothing of the seed.
std::string default_match_id() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "match-%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(::getpid()));
  return buf;
}

std::string side_label(Format f, int side, const std::vector<std::string>& names) {
  const int partner = partner_of(f, side);
  if (partner < 0) return names[static_cast<size_t>(side)];
  return names[static_cast<size_t>(side)] + " + " + names[static_cast<size_t>(partner)];
}

// The seats with the log and the folder it goes in (holding other matches' logs) hidden from
// every bot, even where the bot may read the folder around them.
std::vector<BotSpec> hiding_log(std::vector<BotSpec> seats, const std::string& log_path) {
  const std::filesystem::path log_file = std::filesystem::absolute(log_path);
  for (BotSpec& b : seats) {
    b.confinement.hidden.push_back(
        {log_file.parent_path().string(), "the match log folder", HiddenPath::Kind::kSharedFolder});
    b.confinement.hidden.push_back({log_file.string(), "the match log", HiddenPath::Kind::kFile});
    for (const HiddenPath& own : own_output_files()) b.confinement.hidden.push_back(own);
  }
  return seats;
}

int play_one(const MatchOptions& o, Format format, std::vector<BotSpec> seats, MatchSpec spec,
             const std::string& log_path, serve::HumanSeat* human, const std::atomic<bool>& stop,
             const PrivateDir& socket_dir);
void print_result(const MatchSpec& spec, Format format, const std::vector<BotSpec>& seats,
                  const MatchResult& r);

// The seats the command line names: each bot's spec, and the one seat a person may play.
struct Seating {
  std::vector<BotSpec> given;  // as named on the command line
  std::vector<BotSpec> seats;  // one per seat (partnerships may name one bot per side)
  int human = -1;              // the index in `given` of the person's seat, -1 for none
  bool human_tty = false;      // the person plays from this terminal, not a page
  // The sample bots the page offers for "play again", by name; one chosen plays every seat
  // but the person's.
  std::map<std::string, BotSpec> samples;
};

constexpr const char* kHumanSeatAddress = "unix:(the human seat)";  // set once its server runs

// One seat of the command line, "[NAME=]COMMAND", "[NAME=]ADDRESS", "human" or "human-tty",
// added to `out`. Returns 0, or 2 after saying what is wrong.
int parse_seat(const MatchOptions& o, const std::string& text, Seating& out) {
  BotSpec spec;
  std::string why;
  const size_t eq = text.find('=');
  const std::string word = eq == std::string::npos ? text : text.substr(eq + 1);
  // NAME= is a bot's name in the log and on screen, the same names as a tournament allows.
  const size_t space = text.find_first_of(" \t");
  if (eq != std::string::npos && (space == std::string::npos || eq < space) &&
      !check_safe_name(text.substr(0, eq), "the seat name", kMaxBotNameLength, &why)) {
    std::cerr << "referee match: " << printable(text) << ": " << printable(why) << "\n";
    return 2;
  }
  if (word == "human" || word == "human-tty") {
    if (out.human >= 0) {
      std::cerr << "referee match: only one seat can be played by a person\n";
      return 2;
    }
    out.human = static_cast<int>(out.given.size());
    out.human_tty = word == "human-tty";
    spec.display_name = eq == std::string::npos ? "human" : text.substr(0, eq);
    spec.named = true;  // the person's seat keeps the user's word, not the seat server's Hello
    spec.address = kHumanSeatAddress;
    out.given.push_back(spec);
    return 0;
  }
  if (!parse_bot_spec(text, spec, &why)) {
    std::cerr << "referee match: " << why << "\n";
    return 2;
  }
  // A program that is missing, a folder, a FIFO or not executable is a mistake in the
  // command line, refused before anything starts (as a tournament file's).
  if (spec.started()) {
    const auto program = find_program(spec.command[0], "", &why);
    if (!program) {
      std::cerr << "referee match: seat " << out.given.size() << " (" << printable(text)
                << "): " << why
                << (spec.command.size() > 1 ? std::string(" (") + kCommandSplitRule + ")" : "")
                << "\n";
      return 2;
    }
  }
  spec.confinement = confinement_from(o.confinement);
  spec.startup_timeout = std::chrono::milliseconds(o.startup_timeout_ms);
  out.given.push_back(spec);
  return 0;
}

// The bots given, one per seat of `format`. Returns 0, or 2 after saying what is wrong.
int seat_at_table(Format format, Seating& table) {
  const int n = num_players(format);
  // Partnerships may name two bots: each then plays both seats of its side.
  table.seats = table.given;
  if (format == Format::kPartnerships && table.given.size() == 2)
    table.seats = {table.given[0], table.given[1], table.given[0], table.given[1]};
  if (table.human >= 0 &&
      std::count_if(table.seats.begin(), table.seats.end(),
                    [](const BotSpec& b) { return b.address == kHumanSeatAddress; }) > 1) {
    std::cerr << "referee match: a person plays one seat: name a bot for each seat of the "
                 "partnership\n";
    return 2;
  }
  if (static_cast<int>(table.seats.size()) != n) {
    std::cerr << "referee match: format " << to_string(format) << " needs " << n << " bots"
              << (format == Format::kPartnerships ? " (or 2, one per side)" : "") << ", got "
              << table.given.size() << "\n";
    return 2;
  }
  return 0;
}

// The match's terms from the flags (a person's seat has a person's clock by default), into
// `spec`. Returns 0, or 2 after saying which flag is out of range.
int match_terms(const MatchOptions& o, Format format, bool person, MatchSpec& spec) {
  const int move_time_ms = o.move_time_ms.value_or(
      static_cast<int>((person ? kPersonMoveTime : wire::kDefaultMoveTime).count()));
  const int time_bank_ms = o.time_bank_ms.value_or(
      static_cast<int>((person ? kPersonTimeBank : wire::kDefaultTimeBank).count()));
  if (move_time_ms < 1 || move_time_ms > static_cast<int>(kMaxMoveTimeMs) || time_bank_ms < 0 ||
      time_bank_ms > static_cast<int>(kMaxTimeBankMs) || o.startup_timeout_ms < 1 ||
      o.startup_timeout_ms > static_cast<int>(kMaxStartupTimeoutMs)) {
    std::cerr << "referee match: --move-time-ms must be 1.." << kMaxMoveTimeMs
              << ", --time-bank-ms 0.." << kMaxTimeBankMs << " and --startup-timeout-ms 1.."
              << kMaxStartupTimeoutMs << " (the ranges of a tournament file), got " << move_time_ms
              << ", " << time_bank_ms << " and " << o.startup_timeout_ms << "\n";
    return 2;
  }
  if (o.human_startup_timeout_ms < 1 || o.human_startup_timeout_ms > kMaxPersonArrivalMs) {
    std::cerr << "referee match: --human-startup-timeout-ms must be 1.." << kMaxPersonArrivalMs
              << " (a day), got " << o.human_startup_timeout_ms << "\n";
    return 2;
  }
  if (o.human_pace_ms < 0 || o.human_pace_ms > 10'000) {
    std::cerr << "referee match: --human-pace-ms must be 0..10000, got " << o.human_pace_ms << "\n";
    return 2;
  }
  if (o.max_hands < 1 || o.max_hands > kMaxHandLimit ||
      (o.target && (*o.target < 1 || *o.target > kMaxTarget))) {
    std::cerr << "referee match: --target must be 1.." << kMaxTarget << " and --max-hands 1.."
              << kMaxHandLimit << "\n";
    return 2;
  }
  spec.config = Config::standard(format);
  if (o.target) spec.config.target = *o.target;
  spec.config.max_hands = o.max_hands;
  spec.time.move_time = std::chrono::milliseconds(move_time_ms);
  spec.time.time_bank = std::chrono::milliseconds(time_bank_ms);
  // The same allowance again for the bot's Hello, counted from its MatchStart.
  spec.time.handshake = std::chrono::milliseconds(o.startup_timeout_ms);
  return 0;
}

// Whether a sandbox can be made for `bot` as confined (its given and hidden paths), said
// nowhere: a sample bot it refuses is simply not offered.
bool sandbox_admits(const BotSpec& bot) {
  if (!bot.confinement.sandbox) return true;
  LaunchSpec launch;
  launch.argv = bot.command;
  launch.sandbox = true;
  launch.read_only_dirs = bot.confinement.read_only_dirs;
  launch.hidden = bot.confinement.hidden;
  return !given_paths_refusal(launch) && !hidden_paths_refusal(launch);
}

// The sample bots beside the referee's own program (../sample_bots/NAME_bot from its folder)
// that exist, each confined as the command line's bots are (sandbox, read-only folders,
// limits).
std::map<std::string, BotSpec> sample_opponents(const MatchOptions& o,
                                                const std::string& first_log) {
  namespace fs = std::filesystem;
  std::map<std::string, BotSpec> out;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return out;
  for (const std::string name : {"greedy", "heavy", "random", "strong"}) {
    const fs::path program =
        (exe.parent_path() / ".." / "sample_bots" / (name + "_bot")).lexically_normal();
    if (!fs::is_regular_file(program, ec) || ::access(program.c_str(), X_OK) != 0) continue;
    BotSpec bot;
    bot.display_name = name;
    bot.named = true;  // the log and the page name it as offered
    bot.command = {program.string()};
    bot.confinement = confinement_from(o.confinement);
    bot.startup_timeout = std::chrono::milliseconds(o.startup_timeout_ms);
    if (sandbox_admits(hiding_log({bot}, first_log)[0])) out.emplace(name, std::move(bot));
  }
  return out;
}

// What the page offers for "play again": the command line's bots (id "", by the names given
// there), then each sample bot by name.
std::vector<serve::HumanOpponent> opponents_offered(const Seating& table) {
  std::vector<std::string> names;
  for (int i = 0; i < static_cast<int>(table.given.size()); ++i)
    if (i != table.human &&
        std::find(names.begin(), names.end(), table.given[i].display_name) == names.end())
      names.push_back(table.given[i].display_name);
  std::string given;
  for (const std::string& n : names) given.append(given.empty() ? "" : ", ").append(n);
  std::vector<serve::HumanOpponent> out = {{"", given}};
  for (const auto& [name, bot] : table.samples) out.push_back({name, name});
  return out;
}

// The seats with every seat but the person's played by `bot`: in a 3- or 4-player match or a
// partnership the chosen sample bot takes every bot seat, the person's partner's included.
std::vector<BotSpec> against(std::vector<BotSpec> seats, int human, const BotSpec& bot) {
  for (int s = 0; s < static_cast<int>(seats.size()); ++s)
    if (s != human) seats[static_cast<size_t>(s)] = bot;
  return seats;
}

// Starts the person's seat, served from this process (the match reaches it by address like any
// bot), and with a page waits for the person to open it. Returns 0, or the exit code.
int start_human_seat(const MatchOptions& o, Seating& table, const PrivateDir& socket_dir,
                     const std::atomic<bool>& stop, std::unique_ptr<serve::HumanSeat>& human) {
  std::string why;
  serve::HumanSeatOptions h;
  h.bot_listen = "unix:" + socket_dir.path() + "/human.sock";
  h.web = !table.human_tty;
  h.serve = o.serve;
  h.token = serve::random_token();
  h.pace_ms = o.human_pace_ms;
  h.opponents = opponents_offered(table);
  human = serve::HumanSeat::start(h, &why);
  if (!human) {
    std::cerr << "referee match: the human seat cannot start: " << why << "\n";
    return 1;
  }
  for (BotSpec& b : table.seats)
    if (b.address == kHumanSeatAddress) b.address = h.bot_listen;
  if (!h.web) return 0;
  if (const std::string w = serve::beyond_loopback_warning(
          o.serve, "and has the page's address with its token can play your seat");
      !w.empty())
    std::cerr << "referee match: " << w << "\n";
  std::cout << "Your seat's page (open it to start the match): " << human->url() << std::endl;
  switch (human->wait_for_person(stop, std::chrono::milliseconds(o.human_startup_timeout_ms))) {
    case serve::HumanSeat::Arrival::kStopped:
      return 128 + stop_signal();
    case serve::HumanSeat::Arrival::kTimedOut:
      std::cerr << "referee match: nobody opened the seat's page within "
                << o.human_startup_timeout_ms / 1000
                << " s (--human-startup-timeout-ms); no match was played\n";
      return 1;
    case serve::HumanSeat::Arrival::kOpened:
      break;
  }
  return 0;
}

// The match, and those a person asks for after it ("play again" on the page): the same seats
// or a sample bot the page chose in every bot seat, a new seed, a log and a match id of its own.
int play_rounds(const MatchOptions& o, Format format, const Seating& table, MatchSpec spec,
                const std::string& match_id, const std::string& first_log, serve::HumanSeat* human,
                const std::atomic<bool>& stop, const PrivateDir& socket_dir) {
  std::string opponent;           // "": the command line's bots; else a sample bot's name
  std::set<std::string> checked;  // the sample bots checked against the sandboxes
  for (int round = 1;; ++round) {
    const std::string suffix = round == 1 ? "" : "-" + std::to_string(round);
    spec.match_id = match_id + suffix;
    // A match played again always draws its seed: one that followed --seed would let the person
    // at the table, who knows the first one, deal the bots' hands. Each log keeps its seed.
    spec.seed = o.seed && round == 1 ? *o.seed : draw_seed();
    std::string log_path = first_log;
    if (round > 1) {
      const size_t dot = log_path.rfind(".jsonl");
      log_path = dot == std::string::npos || dot + 6 != log_path.size()
                     ? log_path + suffix
                     : log_path.substr(0, dot) + suffix + ".jsonl";
      std::cout << "\nAnother match: " << spec.match_id
                << (opponent.empty() ? std::string() : std::string(" against ") + opponent)
                << std::endl;
    }
    const auto sample = table.samples.find(opponent);
    const std::vector<BotSpec> seats = sample == table.samples.end()
                                           ? table.seats
                                           : against(table.seats, table.human, sample->second);
    // A sample bot is checked as the command line's bots were, once, before it first starts.
    if (sample != table.samples.end() && checked.insert(opponent).second &&
        !check_confinement(hiding_log(seats, log_path), "referee match"))
      return 1;
    const int code = play_one(o, format, seats, spec, log_path, human, stop, socket_dir);
    if (code != 0 || !human || stop) return code;
    if (!table.human_tty)
      std::cout << "The page offers another match: \"Play again\" or \"Done\" (Ctrl-C ends)"
                << std::endl;
    if (!human->wait_for_rematch(stop, kRematchWait, &opponent)) return code;
  }
}

int run_match(const MatchOptions& o) {
  if (const std::string why = confinement_flags_problem(o.confinement); !why.empty()) {
    std::cerr << "referee match: " << why << "\n";
    return 2;
  }
  Format format;
  if (!parse_format(o.format, format)) {
    std::cerr << "referee match: --format must be 2p, 3p, 4p or partners, not '" << o.format
              << "'\n";
    return 2;
  }
  Seating table;
  for (const std::string& text : o.bots)
    if (const int code = parse_seat(o, text, table)) return code;
  std::string why;
  if (!o.match_id.empty() && !check_safe_name(o.match_id, "--match-id", kMaxMatchIdLength, &why)) {
    std::cerr << "referee match: " << why << "\n";
    return 2;
  }
  if (const int code = seat_at_table(format, table)) return code;
  MatchSpec spec;
  if (const int code = match_terms(o, format, table.human >= 0, spec)) return code;
  // Bots receive the match id, so it must never carry the seed (it would reveal every deal).
  const std::string match_id = o.match_id.empty() ? default_match_id() : o.match_id;
  const std::string first_log = o.log_path.empty() ? "logs/" + match_id + ".jsonl" : o.log_path;
  if (!check_confinement(hiding_log(table.seats, first_log), "referee match")) return 1;

  const std::atomic<bool>& stop = install_stop_signals();
  // Socket folders of referees that died are removed; said only when asked (not this run's).
  for (const std::string& note : sweep_stale_private_dirs())
    if (o.verbose) std::cerr << "referee match: " << note << "\n";
  auto socket_dir = PrivateDir::create(&why);
  if (!socket_dir) {
    std::cerr << "referee match: " << why << "\n";
    return 1;
  }
  std::unique_ptr<serve::HumanSeat> human;
  if (table.human >= 0 && !table.human_tty) table.samples = sample_opponents(o, first_log);
  if (table.human >= 0)
    if (const int code = start_human_seat(o, table, *socket_dir, stop, human)) return code;
  return play_rounds(o, format, table, spec, match_id, first_log, human.get(), stop, *socket_dir);
}

// One match: its log, its bots started, played, and the result printed.
int play_one(const MatchOptions& o, Format format, std::vector<BotSpec> seats, MatchSpec spec,
             const std::string& log_path, serve::HumanSeat* human, const std::atomic<bool>& stop,
             const PrivateDir& socket_dir) {
  const int n = num_players(format);
  // (Checked against the sandboxes once, for the first log: the others go in the same folder.)
  seats = hiding_log(seats, log_path);
  std::string why;
  if (human) human->set_log(log_path);
  // The log exists before any bot starts: its sandbox covers it, and a bound folder would show
  // a file made later.
  auto log = MatchLog::create(log_path, &why);
  if (!log) {
    std::cerr << "referee match: " << why << "\n";
    return 1;
  }
  // Every program is started before any is waited for, so the bots start up together.
  std::vector<std::unique_ptr<BotEndpoint>> endpoints(static_cast<size_t>(n));
  std::vector<std::string> errors(static_cast<size_t>(n));
  for (int seat = 0; seat < n; ++seat) {
    std::cerr << "starting seat " << seat << ": " << seats[seat].describe() << "\n";
    endpoints[seat] = BotEndpoint::launch(seats[seat], socket_dir.path(),
                                          "seat" + std::to_string(seat) + ".sock", &errors[seat]);
  }
  std::vector<v1::LogConfinement> confinements;
  wait_all_ready(endpoints, std::vector<bool>(static_cast<size_t>(n), true),
                 std::chrono::milliseconds(o.startup_timeout_ms), errors, &stop, &confinements);
  for (int seat = 0; seat < n; ++seat) {
    if (!endpoints[seat] && !stop && !errors[seat].empty())
      std::cerr << "seat " << seat << " failed to start: " << errors[seat] << "\n";
    spec.seats.push_back(SeatSpec{&seats[seat], endpoints[seat].get(), errors[seat]});
    if (!endpoints[seat] && confinements[static_cast<size_t>(seat)].ByteSizeLong() > 0)
      spec.seats.back().confinement = confinements[static_cast<size_t>(seat)];
  }

  const MatchResult r = play_match(spec, *log, &stop);
  if (human) human->match_over(r);  // the page (or the terminal) says how it ended
  stop_all(endpoints, kStopGrace);
  // The log is the match's record: one that did not reach the disk whole fails the command.
  const bool logged = log->close(/*sync=*/true, &why);
  print_result(spec, format, seats, r);
  if (!logged) {
    std::cerr << "referee match: " << why << "; the log is incomplete\n";
    return 1;
  }
  std::cout << "Log: " << log->path() << "\n";
  if (stop_signal()) return 128 + stop_signal();
  return 0;
}

// The result as the command prints it.
void print_result(const MatchSpec& spec, Format format, const std::vector<BotSpec>& seats,
                  const MatchResult& r) {
  const int n = num_players(format);
  // What the log calls each seat: the user's name, else the bot's own (from its Hello).
  std::vector<std::string> names;
  for (int seat = 0; seat < n; ++seat)
    names.push_back(seat < static_cast<int>(r.hellos.size())
                        ? seat_display_name(seats[seat], r.hellos[seat])
                        : seats[seat].display_name);
  std::cout << "Match " << spec.match_id << " (" << to_string(format) << ", seed " << spec.seed
            << "): ";
  switch (r.reason) {
    case v1::MATCH_END_REASON_TARGET:
      std::cout << "target reached";
      break;
    case v1::MATCH_END_REASON_HAND_LIMIT:
      std::cout << "hand limit reached";
      break;
    case v1::MATCH_END_REASON_FAULT:
      std::cout << "ended by a fault";
      break;
    default:
      std::cout << "aborted";
      break;
  }
  std::cout << " after " << plural(r.hands_played, "hand", "hands") << ", "
            << plural(r.decisions, "decision", "decisions") << "\n";
  for (int side = 0; side < static_cast<int>(r.scores.size()); ++side) {
    std::cout << "  side " << side << " (" << side_label(format, side, names)
              << "): " << r.scores[side];
    if (!r.placements.empty()) std::cout << "  place " << r.placements[side];
    std::cout << "\n";
  }
  if (r.fault)
    std::cout << "Fault: seat " << r.fault->seat << " (" << names[r.fault->seat] << "), "
              << describe(r.fault->kind) << ": " << r.fault->reason << "\n";
  if (r.reason != v1::MATCH_END_REASON_ABORTED)
    std::cout << (r.winner_side >= 0 ? "Winner: side " + std::to_string(r.winner_side) + " (" +
                                           side_label(format, r.winner_side, names) + ")"
                                     : std::string("Draw"))
              << "\n";
}

}  // namespace

void add_match_command(CLI::App& app, int& exit_code) {
  const auto ms = [](std::chrono::milliseconds t) { return std::to_string(t.count()); };
  auto o = std::make_shared<MatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "match",
      "Play one match between bot programs (or bots at addresses) and log every move.\n"
      "Each BOT is [NAME=]COMMAND (started by the referee, which appends --listen ADDRESS) or\n"
      "[NAME=]ADDRESS (unix:PATH or host:port, a bot already serving), or [NAME=]human (a\n"
      "person plays that seat from a browser page, see --serve) or [NAME=]human-tty (from this\n"
      "terminal). Without NAME a bot goes by the name it gives in its Hello.\n"
      "Every started bot runs in a bubblewrap sandbox (no network, no view of other processes\n"
      "or of the referee's files) with the resource limits below; a bot at an address is\n"
      "outside the referee's control.\n"
      "Exit status: 0 the match was played to its end (a fault, a bot that could not start\n"
      "included: the log records it as a forfeit); 1 the referee could not do its part (the\n"
      "log could not be written, no sandbox can be made here, a limit above what the machine\n"
      "allows, the human seat's page could not be served or nobody opened it in time); 2 a\n"
      "mistake in the command line (a flag out of its range, a bot program that is missing or\n"
      "is not a program: a folder, a FIFO, a file without execute permission); 128+N stopped\n"
      "by signal N (Ctrl-C: 130).");
  cmd->add_option("bots", o->bots, "The bots, in seat order (2 for partners = one per side)")
      ->required()
      ->expected(2, 4)
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);  // five bots are an error
  cmd->add_option("--format,-f", o->format, "2p, 3p, 4p or partners")->capture_default_str();
  add_seed_flag(cmd, "--seed,-s", o->seed,
                "Seed of the deals (default: drawn at random, printed with the result and "
                "recorded in the log's header, so --seed repeats the deals). Bots seed their "
                "own randomness from the match id: give --match-id too to repeat a match "
                "exactly");
  cmd->add_option("--move-time-ms", o->move_time_ms,
                  "Time per decision (default " + ms(wire::kDefaultMoveTime) + "; " +
                      ms(kPersonMoveTime) + " when a person plays a seat)");
  cmd->add_option("--time-bank-ms", o->time_bank_ms,
                  "Extra time per seat for the whole match, used by slow decisions (default " +
                      ms(wire::kDefaultTimeBank) + "; " + ms(kPersonTimeBank) +
                      " when a person plays a seat)");
  cmd->add_option("--serve", o->serve,
                  "With a `human` seat: HOST:PORT of its page (loopback by default; port 0 "
                  "picks a free one). The URL printed carries a random token the page needs")
      ->capture_default_str();
  cmd->add_option("--startup-timeout-ms", o->startup_timeout_ms,
                  "How long a bot may take to start serving, and again to answer MatchStart "
                  "with Hello")
      ->capture_default_str();
  cmd->add_option("--human-pace-ms", o->human_pace_ms,
                  "With a `human` seat: the page shows each seat's play at least this long "
                  "after the one before, so every tile is seen landing (0: at once). Only the "
                  "page waits: no seat's clock is affected")
      ->capture_default_str();
  cmd->add_option("--human-startup-timeout-ms", o->human_startup_timeout_ms,
                  "With a `human` seat: how long the referee waits for its page to be opened; "
                  "if nobody opens it in time, no match is played and the command fails (exit "
                  "1). After a match the page offers \"play again\" for " +
                      std::to_string(kRematchWait.count() / 60000) +
                      " minutes (new deals from a new random seed, even after --seed; "
                      "logs and match ids get -2, -3...), against the same bots or a sample bot "
                      "from ../sample_bots beside the referee in every bot seat, chosen on the "
                      "page and confined as the bots given; the referee exits when the person "
                      "is done or closes the page")
      ->capture_default_str();
  cmd->add_option("--log", o->log_path,
                  "Log file (default: logs/MATCH_ID.jsonl). It and its folder are hidden from "
                  "the sandboxed bots, even inside a folder they may read");
  cmd->add_option("--match-id", o->match_id,
                  "Match id, sent to the bots (default: match-DATE-TIME-PID; never put the seed "
                  "in it)");
  cmd->add_option("--target", o->target,
                  "Points to win; docs/RULES.md fixes " +
                      std::to_string(standard_target(Format::kTwoPlayers)) + " (2 sides) or " +
                      std::to_string(standard_target(Format::kThreePlayers)) +
                      " (3-4 players). Other values are for quick experiments only");
  cmd->add_option("--max-hands", o->max_hands, "The safety valve: hands before a forced end")
      ->capture_default_str();
  cmd->add_flag("--verbose,-v", o->verbose,
                "Also print housekeeping notes (the socket folders of referees that died, "
                "removed)");
  add_confinement_flags(cmd, o->confinement);
  cmd->callback([o, &exit_code] { exit_code = run_match(*o); });
}

}  // namespace allfives::referee
