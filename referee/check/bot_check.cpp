#include "check/bot_check.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include "allfives/bot/server.h"
#include "allfives/core/greedy.h"
#include "allfives/wire/convert.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "match/match_runner.h"
#include "process/private_dir.h"
#include "text/terminal_text.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using Ms = std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Every check match stops after this many hands: short, yet several decisions per seat.
constexpr int kCheckHands = 2;
// Lines of the bot's output shown from its start and from its end.
constexpr size_t kOutputHeadLines = 8, kOutputTailLines = 8, kOutputLineChars = 160;

// The built-in opponent: the greedy policy, in this process, behind the bot SDK's server.
class BuiltInOpponent final : public bot::Bot {
 public:
  Play choose_play(const View& view, const bot::Clock&) override {
    return greedy_play(view.line(), view.legal_plays());
  }
};

std::string ms_text(double us) {
  char buf[32];
  const double ms = us / 1000.0;
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.2f ms" : ms < 100 ? "%.1f ms" : "%.0f ms", ms);
  return buf;
}

// What to do about a fault of each kind, for a bot author.
std::string fix_for(v1::FaultKind kind) {
  switch (kind) {
    case v1::FAULT_KIND_TIMEOUT:
      return "answer every turn request before the move time plus the bank left runs out "
             "(Clock::hard_deadline() in C++, clock.remaining() in Python), and answer "
             "MatchStart with Hello within the start-up timeout";
    case v1::FAULT_KIND_CRASH:
      return "the process ended during the match: its output (below) and the reason say why (a "
             "limit it ran into is named there)";
    case v1::FAULT_KIND_DISCONNECT:
      return "the stream broke: an exception escaping your code ends the match (the reason "
             "carries its message); keep the stream open until MatchEnd";
    case v1::FAULT_KIND_ILLEGAL_PLAY:
      return "answer with one of the legal plays the turn request lists (view.legal_plays)";
    case v1::FAULT_KIND_MALFORMED_ANSWER:
      return "answer with a legal_play_index in range or a play of real tiles (0..6 each), in "
             "a message under 4 MiB";
    case v1::FAULT_KIND_PROTOCOL_VIOLATION:
      return "answer MatchStart with Hello (protocol_version PROTOCOL_VERSION_CURRENT) and "
             "each TurnRequest with exactly one PlayAnswer, as proto/allfives/v1/bot.proto "
             "says";
    default:
      return "see proto/allfives/v1/bot.proto";
  }
}

class Checker {
 public:
  Checker(const BotCheckOptions& o, const std::function<void(const CheckLine&)>& on_line)
      : o_(o), on_line_(on_line), bot_spec_(o.bot) {}
  BotCheckReport run();

 private:
  bool stopped() const { return o_.stop && o_.stop->load(); }
  void add(CheckLine line);
  void not_run(const std::vector<std::string>& checks, const std::string& why);
  bool prepare();
  bool start_bot();
  std::optional<MatchResult> play(Format format, int seat);
  bool exited_between_matches(const MatchResult& r, int seat, int played_before, bool alive);
  CheckLine match_line(Format f, int seat, const MatchResult& r) const;
  bool check_formats();
  void play_for_timing();
  void check_reuse();
  void check_time();
  void check_stop();
  void take_output(const std::string& log_path, int seat);
  void add_output(const std::string& text);

  const BotCheckOptions& o_;
  const std::function<void(const CheckLine&)>& on_line_;
  BotSpec bot_spec_;
  BotCheckReport report_;
  std::optional<PrivateDir> dir_;
  std::string log_dir_;
  std::unique_ptr<bot::BotServer> opponents_;
  BotSpec opponent_spec_;
  std::vector<std::unique_ptr<BotEndpoint>> opponent_endpoints_;
  std::unique_ptr<BotEndpoint> bot_;
  int starts_ = 0;
  int matches_ = 0;
  int on_this_process_ = 0;  // matches the running process has played
  int most_on_one_process_ = 0;
  std::string exited_between_;  // how the process ended between two matches, if it did
  DecisionTiming timing_;
  std::string output_;
};

void Checker::add(CheckLine line) {
  if (on_line_) on_line_(line);
  report_.lines.push_back(std::move(line));
}

void Checker::not_run(const std::vector<std::string>& checks, const std::string& why) {
  for (const std::string& c : checks) add({c, CheckVerdict::kNotRun, why, ""});
}

// The private folder (the bots' sockets and, by default, the logs), the log folder and the
// built-in opponents' server.
bool Checker::prepare() {
  std::string why;
  dir_ = PrivateDir::create(&why);
  if (!dir_) {
    report_.could_not_run = why;
    return false;
  }
  log_dir_ = o_.log_dir.empty() ? dir_->path() + "/logs" : o_.log_dir;
  std::error_code ec;
  fs::create_directories(log_dir_, ec);
  if (ec) {
    report_.could_not_run = "cannot create the log folder " + log_dir_ + ": " + ec.message();
    return false;
  }
  if (!o_.log_dir.empty()) {
    report_.log_dir = o_.log_dir;
    bot_spec_.confinement.hidden.push_back({fs::absolute(log_dir_).lexically_normal().string(),
                                            "the check's log folder", HiddenPath::Kind::kFolder});
  }
  bot::ServerOptions so;
  so.listen = "unix:" + dir_->path() + "/opponents.sock";
  opponents_ = bot::BotServer::start(
      so, {"built-in-greedy", "1"},
      [](const bot::MatchInfo&) { return std::make_unique<BuiltInOpponent>(); }, &why);
  if (!opponents_) {
    report_.could_not_run = "the built-in opponents cannot start: " + why;
    return false;
  }
  opponent_spec_.address = so.listen;
  opponent_spec_.display_name = "built-in greedy";
  opponent_spec_.named = true;
  for (int i = 0; i < 3; ++i) {
    opponent_endpoints_.push_back(
        BotEndpoint::start(opponent_spec_, dir_->path(), "", o_.bot.startup_timeout, &why));
    if (!opponent_endpoints_.back()) {
      report_.could_not_run = "the built-in opponents cannot be reached: " + why;
      return false;
    }
  }
  return true;
}

// Starts the bot as a match starts a seat; the first start is the "start" line.
bool Checker::start_bot() {
  if (bot_) {
    bot_->stop(kCheckStopGrace);
    if (BotProcess* p = bot_->process()) add_output(p->take_stderr());
  }
  bot_.reset();
  std::string why;
  const std::string socket =
      starts_ == 0 ? "seat0.sock" : "seat0-" + std::to_string(starts_) + ".sock";
  ++starts_;
  const auto started = Clock::now();
  std::unique_ptr<BotEndpoint> e = BotEndpoint::launch(bot_spec_, dir_->path(), socket, &why);
  if (e && e->wait_ready(started + bot_spec_.startup_timeout, &why)) bot_ = std::move(e);
  on_this_process_ = 0;
  if (starts_ > 1) {
    if (!bot_) add({"restart", CheckVerdict::kFail, "a fresh process did not start: " + why, ""});
    return bot_ != nullptr;
  }
  if (!bot_) {
    add({"start", CheckVerdict::kFail, why, ""});
    return false;
  }
  const auto ms = std::chrono::duration_cast<Ms>(Clock::now() - started).count();
  // The address as the bot was told it (a sandboxed bot's socket is inside its sandbox).
  const std::string where = !bot_spec_.started() ? bot_spec_.address
                            : bot_spec_.confinement.sandbox
                                ? "unix:" + std::string(kSandboxSocketDir) + "/" + socket
                                : bot_->address();
  add({"start", CheckVerdict::kPass,
       "serving at " + where + (bot_spec_.started() ? " (the --listen address passed)" : "") +
           ", health check SERVING, " + std::to_string(ms) + " ms after it was started",
       ""});
  return true;
}

// One short match with the bot at `seat` and built-in opponents elsewhere; nullopt if the
// check was stopped or the match could not be logged (that is in report_.could_not_run).
std::optional<MatchResult> Checker::play(Format format, int seat) {
  ++matches_;
  MatchSpec spec;
  spec.match_id = "check-" + std::to_string(matches_) + "-" + std::string(to_string(format));
  spec.config = Config::standard(format);
  spec.config.max_hands = kCheckHands;
  spec.seed = 1000 + static_cast<uint64_t>(matches_);
  spec.time = o_.time;
  int opponent = 0;
  for (int s = 0; s < num_players(format); ++s) {
    if (s == seat)
      spec.seats.push_back(SeatSpec{&bot_spec_, bot_.get(), ""});
    else
      spec.seats.push_back(SeatSpec{
          &opponent_spec_, opponent_endpoints_[static_cast<size_t>(opponent++)].get(), ""});
  }
  const std::string log_path = log_dir_ + "/" + spec.match_id + ".jsonl";
  std::string why;
  auto log = MatchLog::create(log_path, &why);
  if (!log) {
    report_.could_not_run = why;
    return std::nullopt;
  }
  const MatchResult r = play_match(spec, *log, o_.stop);
  if (!log->close(/*sync=*/false, &why)) {
    report_.could_not_run = why;
    return std::nullopt;
  }
  if (r.reason == v1::MATCH_END_REASON_ABORTED) return std::nullopt;
  take_output(log_path, seat);
  timing_.merge(r.timing[static_cast<size_t>(seat)]);
  most_on_one_process_ = std::max(most_on_one_process_, ++on_this_process_);
  return r;
}

// Whether the bot's process ended between the match before and `r`, which it then could not
// begin (a fault before the first hand, the process gone): a bot that serves one match only.
// Noted for the reuse line; the caller starts a fresh process. `alive` is the caller's one look
// at the process after `r`: a second look could find it ended and replace it unnoted.
bool Checker::exited_between_matches(const MatchResult& r, int seat, int played_before,
                                     bool alive) {
  if (!bot_->process() || alive) return false;
  const bool ours = r.fault && r.fault->seat == seat;
  int after = 0;  // the match after which it ended
  if (!ours)
    after = matches_;  // it ended once this match was over
  else if (played_before > 0 && r.hands_played == 0)
    after = matches_ - 1;  // it was gone when this one began
  else
    return false;  // a fault of its own in this match
  if (exited_between_.empty())
    exited_between_ =
        bot_->process()->describe_exit() + " after its match " + std::to_string(after) + " ended";
  return after != matches_;
}

// The line of a match the bot played at `seat` in `format`.
CheckLine Checker::match_line(Format f, int seat, const MatchResult& r) const {
  std::string where = "seat " + std::to_string(seat) + " of " + std::to_string(num_players(f));
  if (f == Format::kPartnerships)
    where += " (its partner, seat " + std::to_string(partner_of(f, seat)) + ", built in)";
  const uint32_t decisions = r.timing[static_cast<size_t>(seat)].decisions;
  if (r.fault && r.fault->seat != seat)
    return {std::string(format_name(f)), CheckVerdict::kFail,
            "a built-in opponent failed (seat " + std::to_string(r.fault->seat) +
                "): " + r.fault->reason,
            "this is the referee's own fault; please report it"};
  if (r.fault)
    return {std::string(format_name(f)), CheckVerdict::kFail,
            where + ": " + describe(r.fault->kind) + " (it had answered " +
                std::to_string(decisions) +
                (decisions == 1 ? " turn request): " : " turn requests): ") + r.fault->reason,
            fix_for(r.fault->kind)};
  return {std::string(format_name(f)), CheckVerdict::kPass,
          where + ": " + std::to_string(r.hands_played) + " hands, " + std::to_string(decisions) +
              " decisions, no fault",
          ""};
}

// A match in each format, the bot in a different seat each time; the first is also Hello's.
// A format whose match could not begin because the process had ended after the match before
// is played again, once, on a fresh process.
bool Checker::check_formats() {
  const Format formats[] = {Format::kTwoPlayers, Format::kThreePlayers, Format::kFourPlayers,
                            Format::kPartnerships};
  bool replayed = false;
  for (size_t i = 0; i < std::size(formats);) {
    const Format f = formats[i];
    const int seat = static_cast<int>(i) % num_players(f);
    const int before = on_this_process_;
    const std::optional<MatchResult> r = play(f, seat);
    if (!r) return false;
    const bool alive = bot_->alive();
    bool replaced = false;
    if (exited_between_matches(*r, seat, before, alive)) {
      if (!start_bot()) return false;
      replaced = true;
      if (!replayed) {
        replayed = true;
        continue;
      }
    }
    const bool ours = r->fault && r->fault->seat == seat;
    if (matches_ == 1) {
      // A fault before the first hand is the handshake's: MatchStart -> Hello.
      if (ours && r->hands_played == 0) {
        add({"Hello", CheckVerdict::kFail, describe(r->fault->kind) + ": " + r->fault->reason,
             fix_for(r->fault->kind)});
        return false;
      }
      const BotHello& h = r->hellos[static_cast<size_t>(seat)];
      add({"Hello", CheckVerdict::kPass,
           "name \"" + h.name + "\", version \"" + h.version + "\", protocol version " +
               std::to_string(wire::kProtocolVersion) + " (this referee's)",
           ""});
    }
    add(match_line(f, seat, *r));
    // After a fault the process is replaced, as a tournament replaces it.
    if (!replaced && (ours || !alive) && !start_bot()) return false;
    ++i;
    replayed = false;
  }
  return true;
}

// 2-player matches until the bot has made options.decisions decisions; the first fault ends
// them (it is a line of its own).
void Checker::play_for_timing() {
  while (timing_.decisions < static_cast<uint32_t>(o_.decisions) && matches_ < kMaxCheckMatches &&
         !stopped()) {
    const int seat = matches_ % 2;
    const int before = on_this_process_;
    const std::optional<MatchResult> r = play(Format::kTwoPlayers, seat);
    if (!r) return;
    const bool alive = bot_->alive();
    if (exited_between_matches(*r, seat, before, alive)) {
      if (!start_bot()) return;
      continue;
    }
    if (r->fault) {
      CheckLine line = match_line(Format::kTwoPlayers, seat, *r);
      line.detail = "a further match, " + line.detail;
      add(line);
      return;
    }
    if (!alive && !start_bot()) return;
  }
}

void Checker::check_reuse() {
  if (!exited_between_.empty()) {
    add({"reuse", CheckVerdict::kFail, "the bot process " + exited_between_,
         "a tournament plays match after match on one process: keep serving until SIGTERM, a "
         "new Bot object per match (the SDKs' run() does)"});
  } else if (most_on_one_process_ < 2) {
    add({"reuse", CheckVerdict::kNotRun, "no process lived through two matches", ""});
  } else {
    add({"reuse", CheckVerdict::kPass,
         std::to_string(most_on_one_process_) + " matches on one process, as a tournament "
                                                "plays them",
         ""});
  }
}

void Checker::check_time() {
  if (timing_.decisions == 0) {
    add({"time", CheckVerdict::kNotRun, "no decision was answered", ""});
    return;
  }
  const double move_us = static_cast<double>(o_.time.move_time.count()) * 1000.0;
  const std::string seen = "median " + ms_text(timing_.quantile_us(0.5)) + ", max " +
                           ms_text(timing_.max_us) + " over " + std::to_string(timing_.decisions) +
                           " decisions; move time " + std::to_string(o_.time.move_time.count()) +
                           " ms";
  if (timing_.max_us <= move_us) {
    add({"time", CheckVerdict::kPass, seen, ""});
    return;
  }
  add({"time", CheckVerdict::kWarn,
       seen + ": the slowest decisions drew on the time bank of " +
           std::to_string(o_.time.time_bank.count()) +
           " ms (most used in one match: " + std::to_string(timing_.max_bank_used_ms) + " ms)",
       "a bot that needs more than the move time for many decisions runs out of bank in a full "
       "match (250 points take far more decisions than these short matches)"});
}

void Checker::check_stop() {
  BotProcess* p = bot_ ? bot_->process() : nullptr;
  if (!p) {
    add({"stop", CheckVerdict::kNotRun,
         bot_ ? "a bot reached at an address is not the referee's to stop"
              : "no process was running",
         ""});
    return;
  }
  const auto asked = Clock::now();
  bot_->request_stop();
  const bool exited = p->wait_for_exit(asked + kStopGrace);
  const auto ms = std::chrono::duration_cast<Ms>(Clock::now() - asked).count();
  const std::string how = exited ? p->describe_exit() : "";
  bot_->stop(kCheckStopGrace);
  add_output(p->take_stderr());
  if (exited && bot_spec_.confinement.sandbox) {
    // SIGTERM reaches the whole group, bwrap too, and the sandbox ends with bwrap.
    add({"stop", CheckVerdict::kPass,
         "its sandbox ended " + std::to_string(ms) + " ms after SIGTERM, and the bot with it", ""});
  } else if (exited) {
    add({"stop", CheckVerdict::kPass, how + " " + std::to_string(ms) + " ms after SIGTERM", ""});
  } else {
    add({"stop", CheckVerdict::kWarn,
         "still running " + std::to_string(kStopGrace.count()) +
             " ms after SIGTERM: the referee then kills it (SIGKILL), as a match does",
         "exit on SIGTERM (the SDKs' run() does, after a moment for matches in progress)"});
  }
}

// The bot's output that the match wrote into its log: what it printed outside its decisions
// (its bot_output record: start-up first), then during each decision (its plays' and its
// fault's output).
void Checker::take_output(const std::string& log_path, int seat) {
  std::string text, why;
  if (!read_log_file(log_path, text, &why)) return;
  std::istringstream lines(text);
  std::string line, during;
  const auto mine = [seat](uint32_t s) { return s == static_cast<uint32_t>(seat); };
  while (std::getline(lines, line)) {
    v1::LogRecord r;
    if (line.find("\"output\"") == std::string::npos &&
        line.find("\"bot_output\"") == std::string::npos)
      continue;
    if (!parse_log_line(line, r, &why)) continue;
    const v1::LogOutput* o = r.has_play() && mine(r.play().seat())     ? &r.play().output()
                             : r.has_fault() && mine(r.fault().seat()) ? &r.fault().output()
                                                                       : nullptr;
    if (o) {
      report_.dropped_bytes += o->dropped_bytes();
      during += o->text();
    } else if (r.has_bot_output() && mine(r.bot_output().seat())) {
      report_.dropped_bytes += r.bot_output().dropped_bytes();
      add_output(r.bot_output().stderr());
    }
  }
  add_output(during);
}

void Checker::add_output(const std::string& text) {
  if (text.empty()) return;
  output_ += text;
  if (output_.back() != '\n') output_ += '\n';
}

// `text` safe to print on a terminal (a bot's escape sequences could rewrite the report).
std::string printable(const std::string& text) {
  return terminal_text(text, true);
}

// The first and last lines of what the bot printed, each cut to a readable length.
std::string excerpt(const std::string& output, uint64_t* line_count) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) lines.push_back(printable(line));
  *line_count = lines.size();
  std::string out;
  auto put = [&](const std::string& line) {
    out += "  | " +
           (line.size() > kOutputLineChars ? line.substr(0, kOutputLineChars) + "..." : line) +
           "\n";
  };
  if (lines.size() <= kOutputHeadLines + kOutputTailLines) {
    for (const std::string& l : lines) put(l);
    return out;
  }
  for (size_t i = 0; i < kOutputHeadLines; ++i) put(lines[i]);
  out += "  | [... " + std::to_string(lines.size() - kOutputHeadLines - kOutputTailLines) +
         " lines ...]\n";
  for (size_t i = lines.size() - kOutputTailLines; i < lines.size(); ++i) put(lines[i]);
  return out;
}

BotCheckReport Checker::run() {
  if (!prepare()) return report_;
  const std::vector<std::string> after_start = {
      "Hello", "2 players", "3 players", "4 players", "partnerships", "reuse", "time", "stop"};
  if (!start_bot()) {
    not_run(after_start, "the bot did not start");
  } else if (!check_formats()) {
    if (report_.could_not_run.empty() && !stopped()) {
      // The rest cannot be judged after a failed handshake or a bot that will not restart.
      std::vector<std::string> rest;
      for (const std::string& c : after_start) {
        bool done = false;
        for (const CheckLine& l : report_.lines) done |= l.check == c;
        if (!done && c != "stop") rest.push_back(c);
      }
      not_run(rest, "after the failure above");
      check_stop();
    }
  } else {
    // More matches only time a bot that passed every format (a failure says enough).
    bool formats_passed = true;
    for (const CheckLine& l : report_.lines) formats_passed &= l.verdict != CheckVerdict::kFail;
    if (formats_passed) play_for_timing();
    check_reuse();
    check_time();
    check_stop();
  }
  if (stopped() && report_.could_not_run.empty()) report_.could_not_run = "the check was stopped";
  if (bot_) {
    bot_->stop(kCheckStopGrace);
    if (BotProcess* p = bot_->process()) add_output(p->take_stderr());
  }
  report_.output = excerpt(output_, &report_.output_lines);
  opponent_endpoints_.clear();
  if (opponents_) opponents_->shutdown(kCheckStopGrace);
  return report_;
}

}  // namespace

bool BotCheckReport::conforms() const {
  if (!could_not_run.empty() || lines.empty()) return false;
  for (const CheckLine& l : lines)
    if (l.verdict == CheckVerdict::kFail) return false;
  return true;
}

BotCheckReport check_bot(const BotCheckOptions& options,
                         const std::function<void(const CheckLine&)>& on_line) {
  return Checker(options, on_line).run();
}

const char* verdict_mark(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::kPass:
      return "ok  ";
    case CheckVerdict::kWarn:
      return "warn";
    case CheckVerdict::kFail:
      return "FAIL";
    case CheckVerdict::kNotRun:
      return "--  ";
  }
  return "?   ";
}

namespace {

// `text` cut into lines of at most kReportWidth columns at spaces, each after the first
// indented by `indent` columns. Only its first line is cut: the lines after it (a quoted
// output) are kept as they are, indented.
constexpr size_t kReportWidth = 100;
std::string wrapped(const std::string& text, size_t first_column, size_t indent) {
  const size_t end = text.find('\n');
  std::string out;
  size_t column = first_column;
  std::istringstream words(text.substr(0, end));
  bool first_word = true;
  for (std::string word; words >> word; first_word = false) {
    if (!first_word && column + 1 + word.size() > kReportWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (!first_word) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  if (end == std::string::npos) return out;
  std::istringstream lines(text.substr(end + 1));
  for (std::string line; std::getline(lines, line);) {
    out += '\n';
    out.append(indent + 2, ' ');
    out += line;
  }
  return out;
}

}  // namespace

std::string format_header(const BotCheckOptions& o) {
  std::string text = "Checking `" + o.bot.describe() + "` as a match starts it";
  if (o.bot.started())
    text += (o.bot.confinement.sandbox ? " (sandboxed; " : " (without the sandbox; ") +
            o.bot.confinement.limits.describe() + ")";
  text += ": move time " + std::to_string(o.time.move_time.count()) + " ms, time bank " +
          std::to_string(o.time.time_bank.count()) + " ms, start-up timeout " +
          std::to_string(o.bot.startup_timeout.count()) + " ms.";
  return wrapped(text, 0, 0) + "\n\n";
}

std::string format_line(const CheckLine& line) {
  constexpr size_t kDetailColumn = 19;  // "FAIL  partnerships "
  std::string check = line.check;
  check.resize(std::max(check.size() + 1, kDetailColumn - 6), ' ');
  std::string out = std::string(verdict_mark(line.verdict)) + "  " + check;
  out += wrapped(printable(line.detail), out.size(), kDetailColumn);
  if (!line.fix.empty()) {
    out += '\n';
    out.append(kDetailColumn, ' ');
    out += "fix: " + wrapped(line.fix, kDetailColumn + 5, kDetailColumn + 5);
  }
  return out + '\n';
}

std::string format_summary(const BotCheckReport& r) {
  std::string out;
  if (r.output_lines > 0) {
    out += "\nWhat it printed (stdout and stderr, " + std::to_string(r.output_lines) +
           (r.output_lines == 1 ? " line" : " lines") +
           (r.dropped_bytes ? ", " + std::to_string(r.dropped_bytes) + " bytes dropped" : "") +
           "; each match's log holds its part in full, as bot_output):\n" + r.output;
  } else if (r.could_not_run.empty() && r.lines.size() > 1 &&
             r.lines[0].verdict == CheckVerdict::kPass) {
    out += "\nIt printed nothing.\n";  // (a bot that did not start: its output is quoted above)
  }
  if (!r.log_dir.empty()) out += "\nThe check matches' logs: " + r.log_dir + "\n";
  int failed = 0, warned = 0;
  for (const CheckLine& l : r.lines) {
    failed += l.verdict == CheckVerdict::kFail;
    warned += l.verdict == CheckVerdict::kWarn;
  }
  if (!r.could_not_run.empty())
    out += "\nThe check could not run to its end: " + r.could_not_run + ".\n";
  else if (failed == 0)
    out += std::string("\nThe bot conforms") + (warned ? " (see the warnings above).\n" : ".\n");
  else
    out += "\nThe bot does not conform: " + std::to_string(failed) +
           (failed == 1 ? " check failed.\n" : " checks failed.\n");
  return out;
}

}  // namespace allfives::referee
