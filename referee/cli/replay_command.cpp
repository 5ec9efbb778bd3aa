#include "cli/replay_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include "allfives/core/types.h"

#include "log/json_text.h"
#include "log/log_reader.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"

namespace allfives::referee {
namespace {

struct ReplayCommandOptions {
  std::string log;
  std::string html;
  bool print = false;
  std::optional<int> hand;
  std::optional<int> play;
  std::optional<int> seat;
  std::string color = "auto";
  std::optional<int> width;
  bool no_decisions = false;
  bool no_output = false;
  std::string only_bot;  // a seat number or a bot's name
  bool only_missed = false;
  bool only_mistakes = false;
};

// The seat `who` names: a seat number, or the seat whose bot has that name (the name the
// referee was given or the one in its Hello); -1 with the choices in `error`.
int seat_named(const Replay& r, const std::string& who, std::string* error) {
  const int n = num_players(r.config.format);
  if (!who.empty() && who.find_first_not_of("0123456789") == std::string::npos && who.size() < 3) {
    const int seat = std::stoi(who);
    if (seat < n) return seat;
  }
  int found = -1;
  std::string names;
  for (int seat = 0; seat < n; ++seat) {
    const v1::LogBot& b = r.header.bots(seat);
    if (found < 0 && (b.display_name() == who || b.name() == who)) found = seat;
    names += (seat ? ", " : "") + std::to_string(seat) + " (" + printable(b.display_name()) + ")";
  }
  if (found < 0)
    *error = "--only-bot " + printable(who) + " names no seat of this match; its seats: " + names;
  return found;
}

// The decision filter --only-bot and --only-missed ask for; false with the reason on stderr.
bool filter_asked(const ReplayCommandOptions& o, const Replay& replay, bool reviewed,
                  DecisionFilter& filter) {
  filter.higher_only = o.only_missed;
  filter.marked_only = o.only_mistakes;
  if (o.only_mistakes && !reviewed) {
    std::cerr << "referee replay: --only-mistakes needs a current review beside the log ("
              << review_path_for(o.log) << "); `referee review " << o.log << "` writes it\n";
    return false;
  }
  if (o.only_bot.empty()) return true;
  std::string why;
  filter.seat = seat_named(replay, o.only_bot, &why);
  if (filter.seat < 0) std::cerr << "referee replay: " << why << "\n";
  return filter.seat >= 0;
}

// The frames --hand and --play pick, as [first, last]; false with the reason on stderr.
bool range_asked(const ReplayCommandOptions& o, const std::vector<Frame>& frames, int& first,
                 int& last) {
  first = 0;
  last = static_cast<int>(frames.size()) - 1;
  if (!o.hand) return true;
  std::string why;
  const int at = find_frame(frames, *o.hand, o.play.value_or(0), &why);
  if (at < 0) {
    std::cerr << "referee replay: " << why << "\n";
    return false;
  }
  first = last = at;
  if (o.play) return true;
  while (last + 1 < static_cast<int>(frames.size()) &&  // the whole hand
         frames[static_cast<size_t>(last + 1)].hand == *o.hand - 1 &&
         frames[static_cast<size_t>(last + 1)].kind != v1::LogRecord::kMatchEnd)
    ++last;
  return true;
}

int write_html_replay(const ReplayCommandOptions& o, const Replay& replay,
                      const std::vector<Frame>& frames, int viewer, int first,
                      const DecisionFilter& filter) {
  if (o.no_decisions && (o.only_missed || o.only_mistakes)) {
    std::cerr << "referee replay: --only-missed and --only-mistakes pick decisions by their "
                 "plays, which --no-decisions leaves out of the page; drop one of them\n";
    return 2;
  }
  HtmlOptions h;
  h.viewer = viewer;
  h.start = first;
  h.filter = filter;
  h.decisions = !o.no_decisions;
  h.output = !o.no_output;
  const std::string page = render_html(replay, frames, h);
  std::ofstream out(o.html, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) {
    std::cerr << "referee replay: cannot write " << o.html << "\n";
    return 1;
  }
  std::cout << "Wrote " << o.html << " (" << frames.size() << " steps, "
            << (page.size() + 1023) / 1024 << " KiB)\n";
  return 0;
}

TerminalOptions terminal_options(const ReplayCommandOptions& o, int viewer, bool tty_out) {
  TerminalOptions t;
  t.viewer = viewer;
  const char* term = std::getenv("TERM");
  t.color = o.color == "always" || (o.color == "auto" && tty_out && !std::getenv("NO_COLOR") &&
                                    !(term && std::string(term) == "dumb"));
  t.width = o.width.value_or(100);
  t.decisions = !o.no_decisions;
  t.output = !o.no_output;
  return t;
}

// Steps through frames [first, last] on a terminal, or prints them.
int show_frames(const ReplayCommandOptions& o, const Replay& replay,
                const std::vector<Frame>& frames, int first, int last, const TerminalOptions& t,
                bool tty_out) {
  if (!o.print && tty_out && ::isatty(STDIN_FILENO) == 1)
    return run_interactive(replay, frames, first, t);
  print_frames(replay, frames, first, last, t, std::cout);
  return std::cout ? 0 : 1;
}

int show_in_terminal(const ReplayCommandOptions& o, const Replay& replay,
                     const std::vector<Frame>& frames, int viewer, int first, int last,
                     const DecisionFilter& filter) {
  const bool tty_out = ::isatty(STDOUT_FILENO) == 1;
  const TerminalOptions t = terminal_options(o, viewer, tty_out);
  if (!filter.active()) return show_frames(o, replay, frames, first, last, t, tty_out);
  std::vector<Frame> kept;  // only the decisions asked for, in [first, last]
  for (int i = first; i <= last; ++i)
    if (filter.keeps(frames[static_cast<size_t>(i)]))
      kept.push_back(frames[static_cast<size_t>(i)]);
  if (kept.empty()) {
    std::cout << render_heading(replay, t) << "\nNo decision of this match is of the kind asked ("
              << (filter.seat >= 0 ? "seat " + std::to_string(filter.seat) + "'s" : "any seat's")
              << (filter.higher_only ? ", with a higher-scoring play" : "")
              << (filter.marked_only ? ", marked by the review" : "") << ").\n";
    return 0;
  }
  return show_frames(o, replay, kept, 0, static_cast<int>(kept.size()) - 1, t, tty_out);
}

// Gives the frames the review beside the log, if it is of this very log; whether there was one.
bool attach_current_review(const std::string& log, std::vector<Frame>& frames) {
  std::string bytes, why;
  if (!read_log_file(log, bytes, &why)) return false;
  const std::optional<ReviewFile> review = current_review(log, bytes);
  if (review) attach_review(frames, *review);
  return review.has_value();
}

int run_replay(const ReplayCommandOptions& o) {
  Replay replay;
  LogError error;
  if (!load_replay_file(o.log, replay, error)) {
    std::cerr << error.describe() << "\n";
    // A log that is only unfinished is shown as far as it goes (as `referee serve` does).
    if (!error.unfinished || replay.steps.empty()) return 1;
    std::cerr << "referee replay: showing the " << replay.steps.size()
              << " steps before that; the match has no end in this log\n";
  }
  const int players = num_players(replay.config.format);
  const int viewer = o.seat.value_or(-1);
  if (o.seat && (*o.seat < 0 || *o.seat >= players)) {
    std::cerr << "referee replay: --seat must be 0 to " << players - 1 << " for this match, not "
              << *o.seat << "\n";
    return 2;
  }
  std::vector<Frame> frames = build_frames(replay, viewer);
  if (frames.empty()) {
    std::cerr << "referee replay: " << o.log << " holds no hand to show\n";
    return 1;
  }
  const bool reviewed = attach_current_review(o.log, frames);
  DecisionFilter filter;
  int first = 0, last = 0;
  if (!filter_asked(o, replay, reviewed, filter) || !range_asked(o, frames, first, last)) return 2;
  if (!o.html.empty()) return write_html_replay(o, replay, frames, viewer, first, filter);
  return show_in_terminal(o, replay, frames, viewer, first, last, filter);
}

}  // namespace

void add_replay_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ReplayCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Show a logged match: the line (doubles drawn crosswise), every hand, the boneyard, each\n"
      "play with its count and score, draws, passes, each hand's scoring and the running\n"
      "scores. On a terminal it steps interactively (→/n next, ←/p previous, ↓/j next hand,\n"
      "↑/k previous hand, g/G first/last, q quit); otherwise, or with --print, it prints the\n"
      "whole match. With --html it writes one self-contained HTML page instead.\n"
      "The log is re-played with the rules core first: a log that does not follow the rules\n"
      "is refused with the line at fault (exit 1).\n"
      "Where the review `referee review LOG` wrote lies beside the log and is of this very log,\n"
      "each reviewed decision shows its line (the best play, the play made, the mark and the\n"
      "expected points lost) and each play's expected value ± its error; the HTML page adds a\n"
      "graph of each side's expected points lost over the match.");
  cmd->add_option("log", o->log, "The match log (a .jsonl file written by `referee match`)")
      ->required();
  cmd->add_option("--html", o->html,
                  "Write the replay as one self-contained HTML page to this file (open it in "
                  "a browser; ?step=K in its URL opens step K)");
  cmd->add_flag("--print", o->print, "Print the whole match (or the chosen hand/play) at once");
  CLI::Option* hand =
      cmd->add_option("--hand", o->hand, "Start at hand H (1-based); with --print show only it")
          ->check(CLI::Range(1, kMaxHandLimit));
  cmd->add_option("--play", o->play,
                  "With --hand: the position after the hand's P-th play (0: the hand's start); "
                  "with --print show only it")
      ->check(CLI::Range(0, 1000000))
      ->needs(hand);
  cmd->add_option("--seat", o->seat,
                  "Show only what seat S could see at each moment: its own hand, the other "
                  "hands and draws as counts (hands revealed at a hand's end are public)");
  cmd->add_option("--color", o->color, "Colour: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_option("--width", o->width, "Columns for the line drawing when printing (default 100)")
      ->check(CLI::Range(40, 1000));
  cmd->add_flag("--no-decisions", o->no_decisions,
                "Hide what is shown under each play: the plays the seat had with their points, "
                "its time, its bank left, the bot's comment and what it printed (with --html: "
                "left out of the page)");
  cmd->add_flag("--no-output", o->no_output,
                "Hide the lines each bot printed while its decision was pending (shown under "
                "the play, and under a fault for the decision that ended in it; with --html: left "
                "out of the page)");
  cmd->add_option("--only-bot", o->only_bot,
                  "Show only the decisions of this seat (a number) or of the bot of this name");
  cmd->add_flag("--only-missed", o->only_missed,
                "Show only the decisions where a play that scored more was there");
  cmd->add_flag("--only-mistakes", o->only_mistakes,
                "Show only the decisions the game review marked (an inaccuracy, a mistake or a "
                "blunder); needs the review `referee review LOG` writes beside the log");
  cmd->callback([o, &exit_code] { exit_code = run_replay(*o); });
}

}  // namespace allfives::referee
