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
// Time-outs of one kind after which the check plays no further match: each one waits out a
// whole time limit, and a bot that timed out twice will time out again.
constexpr int kTimeOutsToStop = 2;
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

// What to do about a fault of each kind, for a bot author; `at_hello`: it came in answer to
// MatchStart, before the first turn request.
std::string fix_for(v1::FaultKind kind, bool at_hello) {
  switch (kind) {
    case v1::FAULT_KIND_TIMEOUT:
      if (at_hello)
        return "answer MatchStart with Hello at once: do slow set-up (loading data, warming up) "
               "before the bot serves, since the start-up timeout covers the start and again "
               "the Hello; raise --startup-timeout-ms if the bot is only slow";
      return "answer every turn request before the move time plus the bank left runs out "
             "(Clock::hard_deadline() in C++, clock.remaining() in Python)";
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

// A fault kind as a reader says it: "time-out", "illegal play", "crash at Hello".
std::string failure_label(v1::FaultKind kind, bool at_hello) {
  std::string words = kind == v1::FAULT_KIND_TIMEOUT ? "time-out" : describe(kind);
  std::replace(words.begin(), words.end(), '_', ' ');
  return at_hello ? words + " at Hello" : words;
}

// One kind of failure of the bot's in the check matches: how often, and the first one.
struct FailureKind {
  std::string label;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
  bool at_hello = false;
  int count = 0;
  std::string first;   // where: "2 players, match 1, hand 1"
  std::string reason;  // the first one's, from the match
};

// The report line of a kind of failure: its count, the first one, and its one fix.
CheckLine failure_line(const FailureKind& k) {
  const std::string unit =
      k.at_hello ? (k.count == 1 ? "match" : "matches") : (k.count == 1 ? "decision" : "decisions");
  const std::string where = k.count == 1 ? "in 1 " + unit + " (" + k.first + "): "
                                         : "in " + std::to_string(k.count) + " " + unit +
                                               "; the first (" + k.first + "): ";
  return {k.label + " ×" + std::to_string(k.count), CheckVerdict::kFail, where + k.reason,
          fix_for(k.kind, k.at_hello)};
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
  CheckLine match_line(Format f, int seat, const MatchResult& r);
  std::string note_failure(Format f, const MatchResult& r);
  void skip_formats(const std::vector<std::string>& names);
  bool check_formats();
  void play_for_timing();
  void check_reuse();
  void check_time();
  void check_time_outs();
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
  uint32_t timed_out_ = 0;        // decisions the bot did not answer in time
  uint32_t hello_timed_out_ = 0;  // matches whose MatchStart it did not answer in time
  std::vector<FailureKind> failures_;
  std::string stop_matches_;  // the failure that ended the check's matches early, if one did
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

// Counts the bot's fault in the match just played under its kind and says it in a few words
// ("time-out in hand 1"); a kind of time-out that repeats ends the matches.
std::string Checker::note_failure(Format f, const MatchResult& r) {
  const Fault& fault = *r.fault;
  const bool at_hello = r.hands_played == 0;  // no hand had begun: it was MatchStart's answer
  const std::string label = failure_label(fault.kind, at_hello);
  const std::string in_hand = "hand " + std::to_string(r.hands_played);
  auto k = std::find_if(failures_.begin(), failures_.end(),
                        [&](const FailureKind& known) { return known.label == label; });
  if (k == failures_.end()) {
    const std::string first = std::string(format_name(f)) + ", match " + std::to_string(matches_) +
                              (at_hello ? "" : ", " + in_hand);
    failures_.push_back({label, fault.kind, at_hello, 0, first, fault.reason});
    k = failures_.end() - 1;
  }
  ++k->count;
  if (fault.kind == v1::FAULT_KIND_TIMEOUT) {
    ++(at_hello ? hello_timed_out_ : timed_out_);
    if (k->count == kTimeOutsToStop && stop_matches_.empty())
      stop_matches_ = label + " ×" + std::to_string(k->count);
  }
  return at_hello ? label : label + " in " + in_hand;
}

// The line of a match the bot played at `seat` in `format`.
CheckLine Checker::match_line(Format f, int seat, const MatchResult& r) {
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
            where + ": " + note_failure(f, r) + "; it had answered " + std::to_string(decisions) +
                (decisions == 1 ? " turn request" : " turn requests") + " (see below)",
            ""};
  return {std::string(format_name(f)), CheckVerdict::kPass,
          where + ": " + std::to_string(r.hands_played) + " hands, " + std::to_string(decisions) +
              " decisions, no fault",
          ""};
}

// The formats left out once a repeated time-out ended the matches: lines of their own, and the
// summary says why.
void Checker::skip_formats(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) {
    add({name, CheckVerdict::kNotRun, "not played: the check stopped early, after " + stop_matches_,
         ""});
    list += (list.empty() ? "" : ", ") + name;
  }
  report_.stopped_early = "after " + stop_matches_ +
                          " it played no further match, since each would wait out the time "
                          "limit again; not played: " +
                          list;
}

// A match in each format, the bot in a different seat each time; the first is also Hello's.
// A format whose match could not begin because the process had ended after the match before
// is played again, once, on a fresh process. A repeated time-out ends the matches.
bool Checker::check_formats() {
  const Format formats[] = {Format::kTwoPlayers, Format::kThreePlayers, Format::kFourPlayers,
                            Format::kPartnerships};
  bool replayed = false;
  for (size_t i = 0; i < std::size(formats);) {
    const Format f = formats[i];
    if (!stop_matches_.empty()) {
      std::vector<std::string> rest;
      for (size_t j = i; j < std::size(formats); ++j) rest.emplace_back(format_name(formats[j]));
      skip_formats(rest);
      return true;
    }
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
             fix_for(r->fault->kind, /*at_hello=*/true)});
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
  if (timed_out_ + hello_timed_out_ > 0) {
    check_time_outs();
    return;
  }
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

// The time line of a bot that let decisions or Hellos time out: a failure, however fast the
// other answers were.
void Checker::check_time_outs() {
  const uint32_t asked = timing_.decisions + timed_out_;
  std::string seen = std::to_string(timed_out_) + " of " + std::to_string(asked) +
                     (asked == 1 ? " decision" : " decisions") + " timed out";
  if (hello_timed_out_ > 0)
    seen += ", and Hello in " + std::to_string(hello_timed_out_) +
            (hello_timed_out_ == 1 ? " match" : " matches");
  if (timing_.decisions > 0)
    seen += "; the " + std::to_string(timing_.decisions) + " answered in time: median " +
            ms_text(timing_.quantile_us(0.5)) + ", max " + ms_text(timing_.max_us);
  add({"time", CheckVerdict::kFail,
       seen + "; move time " + std::to_string(o_.time.move_time.count()) +
           " ms (see the time-out below)",
       ""});
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
  for (const FailureKind& k : failures_) report_.failures.push_back(failure_line(k));
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

constexpr size_t kReportWidth = 100;
// Where the detail of a report line starts: "FAIL  partnerships ".
constexpr size_t kDetailColumn = 19;

// The columns `text` takes on a terminal: one per UTF-8 character ("×" is two bytes).
size_t columns(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// `text` cut into lines of at most kReportWidth columns at spaces, each after the first
// indented by `indent` columns. Only its first line is cut: the lines after it (a quoted
// output) are kept as they are, indented.
std::string wrapped(const std::string& text, size_t first_column, size_t indent) {
  const size_t end = text.find('\n');
  std::string out;
  size_t column = first_column;
  std::istringstream words(text.substr(0, end));
  bool first_word = true;
  for (std::string word; words >> word; first_word = false) {
    if (!first_word && column + 1 + columns(word) > kReportWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (!first_word) {
      out += ' ';
      ++column;
    }
    out += word;
    column += columns(word);
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

// A line under the report's columns: `lead` (a mark, or blanks), the check, the detail, the fix
// on a line of its own.
std::string laid_out(const std::string& lead, const CheckLine& line) {
  std::string out = lead + line.check;
  out.append(columns(out) < kDetailColumn ? kDetailColumn - columns(out) : 1, ' ');
  out += wrapped(printable(line.detail), columns(out), kDetailColumn);
  if (!line.fix.empty()) {
    out += '\n';
    out.append(kDetailColumn, ' ');
    out += "fix: " + wrapped(line.fix, kDetailColumn + 5, kDetailColumn + 5);
  }
  return out + '\n';
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
  return laid_out(std::string(verdict_mark(line.verdict)) + "  ", line);
}

std::string format_summary(const BotCheckReport& r) {
  std::string out;
  if (!r.failures.empty()) {
    out += "\nEach kind of failure once, with its fix:\n";
    for (const CheckLine& l : r.failures) out += laid_out("  ", l);
  }
  if (!r.stopped_early.empty())
    out += "\n" + wrapped("The check stopped early: " + r.stopped_early + ".", 0, 0) + "\n";
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
