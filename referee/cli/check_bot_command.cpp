#include "cli/check_bot_command.h"

#include "bots/startup_failure.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "check/bot_check.h"
#include "cli/command_line_errors.h"
#include "cli/confinement_flags.h"
#include "cli/stop_signal.h"

namespace allfives::referee {
namespace {

struct CheckBotFlags {
  int startup_timeout_ms = static_cast<int>(wire::kDefaultStartupTimeout.count());
  int move_time_ms = static_cast<int>(wire::kDefaultMoveTime.count());
  int time_bank_ms = static_cast<int>(wire::kDefaultTimeBank.count());
  int decisions = 100;
  std::string log_dir;
  ConfinementFlags confinement;
};

constexpr int kCouldNotRun = 3;

// The bot from the words after the flags: one word with spaces is split as `referee match`
// splits a bot (so the same quoted command works in both), several words are the command line
// as given; a lone unix:PATH or host:port is a bot already serving there.
bool bot_from(const std::vector<std::string>& words, BotSpec& out, std::string* why) {
  if (words.size() == 1) return parse_bot_spec(words[0], out, why);
  out = BotSpec{};
  out.command = words;
  out.display_name = words[0].substr(words[0].find_last_of('/') + 1);
  return true;
}

// Flags of check-bot written after the bot's command (where they would be the bot's own): what
// to type instead, the whole command with them moved before the bot's; "" if there are none.
std::string misplaced_flags(const std::vector<std::string>& words, const CLI::App& cmd) {
  std::vector<std::string> moved, kept = {words[0]};
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string name = words[i].substr(0, words[i].find('='));
    const CLI::Option* flag = name.starts_with("--") ? cmd.get_option_no_throw(name) : nullptr;
    if (!flag) {
      kept.push_back(words[i]);
      continue;
    }
    moved.push_back(words[i]);
    const bool takes_value = flag->get_items_expected_max() > 0 && name.size() == words[i].size();
    if (takes_value && i + 1 < words.size()) moved.push_back(words[++i]);
  }
  if (moved.empty()) return "";
  const std::vector<std::string>& argv = invocation();
  std::vector<std::string> line =
      argv.size() >= words.size() + 2
          ? std::vector<std::string>(argv.begin(), argv.end() - static_cast<long>(words.size()))
          : std::vector<std::string>{"referee", "check-bot"};
  line.insert(line.end(), moved.begin(), moved.end());
  line.insert(line.end(), kept.begin(), kept.end());
  std::string text;
  for (const std::string& w : line) text += (text.empty() ? "" : " ") + shell_word(w);
  return moved[0] +
         " comes after the bot's command, where it would be the bot's own argument; check-bot's "
         "flags go before the command:\n  " +
         text + "\n(a bot's own flag of the same name goes inside its quoted command: \"BOT " +
         moved[0] + " ...\")";
}

int run_check(const CheckBotFlags& f, const CLI::App& cmd) {
  const std::vector<std::string> words = cmd.remaining();
  BotCheckOptions o;
  std::string why;
  if (words.empty()) {
    std::cerr << "referee check-bot: give the bot's command, e.g. referee check-bot "
                 "build/sample_bots/greedy_bot\n";
    return 2;
  }
  // A program's name never starts with '-': this is a flag of ours, mistyped.
  if (words[0].starts_with('-')) {
    std::cerr << "referee check-bot: " << unknown_flag(words[0], flag_names(cmd))
              << "\nRun `referee check-bot --help` for every flag; the bot's command comes "
                 "after them.\n";
    return 2;
  }
  if (const std::string moved = misplaced_flags(words, cmd); !moved.empty()) {
    std::cerr << "referee check-bot: " << moved << "\n";
    return 2;
  }
  if (!bot_from(words, o.bot, &why)) {
    std::cerr << "referee check-bot: " << why << "\n";
    return 2;
  }
  if (f.startup_timeout_ms <= 0 || f.move_time_ms <= 0 || f.time_bank_ms < 0 || f.decisions < 1 ||
      f.decisions > 100000) {
    std::cerr << "referee check-bot: times must be positive (the bank may be 0) and "
                 "--decisions 1..100000\n";
    return 2;
  }
  o.bot.confinement = confinement_from(f.confinement);
  o.bot.startup_timeout = std::chrono::milliseconds(f.startup_timeout_ms);
  o.time.move_time = std::chrono::milliseconds(f.move_time_ms);
  o.time.time_bank = std::chrono::milliseconds(f.time_bank_ms);
  o.time.handshake = o.bot.startup_timeout;
  o.decisions = f.decisions;
  o.log_dir = f.log_dir;
  if (!check_confinement({o.bot}, "referee check-bot")) return kCouldNotRun;
  o.stop = &install_stop_signals();

  std::cout << format_header(o) << std::flush;
  const BotCheckReport report =
      check_bot(o, [](const CheckLine& l) { std::cout << format_line(l) << std::flush; });
  std::cout << format_summary(report);
  if (!report.could_not_run.empty()) return stop_signal() ? 128 + stop_signal() : kCouldNotRun;
  return report.conforms() ? 0 : 1;
}

}  // namespace

void add_check_bot_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<CheckBotFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check-bot",
      "Check a bot before it plays: start it exactly as a match would (the sandbox and limits\n"
      "included; the referee appends --listen ADDRESS), then report, check by check:\n"
      "  start         it serves on the address --listen gave and its health check says SERVING\n"
      "  Hello         it answers MatchStart with Hello, in this referee's protocol version\n"
      "  2 players, 3 players, 4 players, partnerships\n"
      "                a short real match in each format (2 hands), against built-in greedy\n"
      "                opponents run by the referee, the bot in another seat each time\n"
      "  reuse         it plays match after match on one process, as a tournament does\n"
      "  time          the median and the slowest of its decisions against the move time\n"
      "  stop          it exits on SIGTERM\n"
      "then what it printed. Each failure comes with its fix (for a bot that does not start:\n"
      "the address passed, the limit and its flag, where it listens instead, a virtual\n"
      "environment the sandbox does not show...).\n"
      "COMMAND [ARGS...] is the bot's command line, right after this command's own flags (each\n"
      "--read-only takes one folder); one quoted word is split like a bot of `referee\n"
      "match`. A unix:PATH or host:port checks a bot already serving there (without sandbox or\n"
      "stop).\n"
      "Exit status: 0 the bot conforms (warnings allowed), 1 it does not, 2 bad arguments,\n"
      "3 the check could not run (no sandbox here, no temporary folder).");
  cmd->prefix_command();  // the first word that is not a flag of ours starts the bot's command
  cmd->add_option("--startup-timeout-ms", f->startup_timeout_ms,
                  "How long the bot may take to start serving, and again to answer MatchStart "
                  "with Hello (as in a match)")
      ->capture_default_str();
  cmd->add_option("--move-time-ms", f->move_time_ms, "Time per decision, as in a match")
      ->capture_default_str();
  cmd->add_option("--time-bank-ms", f->time_bank_ms,
                  "Extra time per match for slow decisions, as in a match")
      ->capture_default_str();
  cmd->add_option("--decisions", f->decisions,
                  "Decisions to time at least (2-player matches are added until the bot has "
                  "made this many, at most " +
                      std::to_string(kMaxCheckMatches) + " matches in all)")
      ->capture_default_str();
  cmd->add_option("--log-dir", f->log_dir,
                  "Keep the check matches' logs in this folder, for `referee replay` (default: "
                  "a temporary folder, removed); hidden from the bot");
  add_confinement_flags(cmd, f->confinement);
  cmd->callback([f, cmd, &exit_code] { exit_code = run_check(*f, *cmd); });
}

}  // namespace allfives::referee
