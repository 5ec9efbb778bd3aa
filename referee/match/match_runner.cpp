#include "match/match_runner.h"

#include <algorithm>
#include <array>
#include <span>
#include <thread>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"
#include "log/log_records.h"
#include "match/cpu_guard.h"
#include "match/seat_bot.h"
#include "text/terminal_text.h"
#include "text/utf8_text.h"
#include "transport/match_stream.h"

namespace allfives::referee {

std::string seat_display_name(const BotSpec& spec, const BotHello& hello) {
  return spec.named || hello.name.empty() ? spec.display_name : hello.name;
}

namespace {

// How long the bots have, together, to hear how the match ended and close their streams.
constexpr std::chrono::milliseconds kEndGrace{1000};
// How long a bot process whose stream broke has to be reaped before the fault is worded: a
// process reaped by then crashed, one that is not is said to be not exited after this long.
constexpr std::chrono::milliseconds kExitWait{1000};

const char* kind_name(const v1::BotMessage& m) {
  switch (m.kind_case()) {
    case v1::BotMessage::kHello:
      return "Hello";
    case v1::BotMessage::kPlay:
      return "PlayAnswer";
    default:
      return "an empty BotMessage";
  }
}

// Why a Hello's protocol `version` is refused: the version it said, the ones this referee
// speaks, and the fix, so the bot's author learns what to update.
std::string version_refusal(uint32_t version) {
  const std::string oldest = std::to_string(wire::kOldestProtocolVersion);
  const std::string newest = std::to_string(wire::kProtocolVersion);
  const std::string ours = wire::kOldestProtocolVersion == wire::kProtocolVersion
                               ? std::string("version ").append(newest).append(" only")
                               : std::string("versions ").append(oldest + " to " + newest);
  std::string out = "the bot speaks protocol version " + std::to_string(version) +
                    " but this referee speaks " + ours;
  if (version < wire::kOldestProtocolVersion)
    return out.append(": update the bot's SDK (allfives_bot) to one that speaks version ")
        .append(newest)
        .append(", or answer Hello with protocol_version ")
        .append(newest)
        .append(" and carry each request's nonce in its answer");
  return out.append(": use a referee that speaks version ")
      .append(std::to_string(version))
      .append(", or a bot that speaks version ")
      .append(newest);
}

// A public event a seat has not been sent yet, kept as the core's value until its next message
// is built (then written straight into that message's arena), with the scores once it was done.
struct PendingEvent {
  Event event;
  std::array<int, kMaxPlayers> scores{};  // per side; the first num_sides(format) count
};

struct Seat {
  const BotSpec* spec = nullptr;
  SeatBot* bot = nullptr;  // null if it failed to start
  std::unique_ptr<BotStream> stream;
  std::vector<PendingEvent> pending;       // public events not yet delivered to this seat
  std::chrono::milliseconds move_time{0};  // per decision
  std::chrono::milliseconds bank{0};       // what is left of the time bank
  std::chrono::milliseconds initial_bank{0};
  BotHello hello;
  uint32_t protocol = 0;        // the version its Hello says it speaks (0 before)
  int turns = 0;                // turn requests this seat has answered
  LimitEvidence limits_before;  // its process's cgroup counts when this match began
};

// What one bot process printed in this match: the windows outside its decisions (its
// bot_output record, raw until the end) and how much of the match's cap all its records used.
struct ProcessOutput {
  SeatProcess* process = nullptr;
  int first_seat = 0;  // its bot_output record goes under the first seat it plays
  std::string between;
  uint64_t between_dropped = 0;
  size_t kept = 0;  // bytes of the bot's kept in all its records (kMaxMatchOutputBytes)
};

// A window of a bot's capture in a log record's terms.
LogPrinted printed(const CappedOutput::Taken& taken) {
  LogPrinted p;
  p.text = valid_utf8(taken.text, &p.invalid_utf8_bytes);
  p.dropped_bytes = taken.dropped;
  return p;
}

class Runner {
 public:
  Runner(const MatchSpec& spec, MatchLog& log, const std::atomic<bool>* stop)
      : spec_(spec), log_(log), stop_(stop), format_(spec.config.format) {}

  MatchResult run();

 private:
  int n() const { return num_players(format_); }
  int sides() const { return num_sides(format_); }
  bool stopped() const { return stop_ && stop_->load(); }

  bool handshake();
  bool check_hello(int seat, Clock::time_point deadline);
  void write_header();
  // Asks `seat` for its play; says what it was offered, how long it took and what it said.
  bool ask_play(int seat, const State& state, Play* play, LogDecision* decision);
  // How a turn request's wait ended and how long it took.
  struct TurnWait {
    IoStatus status;
    std::chrono::milliseconds elapsed;
  };
  // Sends `seat` its turn request (the events it has not heard, its view, its clock) and waits
  // for the answer, the CPU guard watching the others.
  TurnWait request_play(int seat, const State& state, const View& view, LogDecision* decision);
  // The answer came in time (else the fault), and the seat's clock is charged for it.
  bool judge_clock(int seat, const TurnWait& waited, LogDecision* decision);
  // The play an answer names by index, by value or both (agreeing), or the fault.
  std::optional<Play> named_play(int seat, const State& state, const PlayList& legal,
                                 const v1::PlayAnswer& answer);
  // The rules allow `chosen` (else the fault, naming the ends and the hand).
  bool check_legal(int seat, const State& state, Play chosen);
  void on_events(const EventList& events, const LogDecision& decision);
  // Every side's score once a pending event was done.
  std::span<const int> pending_scores(const PendingEvent& e) const {
    return {e.scores.data(), scores_.size()};
  }
  void set_fault(int seat, v1::FaultKind kind, std::string reason);
  // Faults every seat whose stream holds an answer nobody asked for, if no fault came first.
  void check_unasked();
  std::string unasked_reason(int seat);
  void fault_from_io(int seat, IoStatus st, const std::string& doing);
  // The capture of `seat`'s process, or null (a bot reached at an address, or not started).
  ProcessOutput* output_of(int seat);
  // Closes the current window of `seat`'s capture, keeping at most `cap` bytes and what the
  // match's cap has left (`fault`: the window of its own fault, which always gets `cap`).
  CappedOutput::Taken take_window(ProcessOutput& o, size_t cap, bool fault = false);
  // Closes the window of what `seat`'s bot printed outside its decisions (before its turn
  // request is sent): it goes to its bot_output record.
  void window_between(int seat);
  void add_between(ProcessOutput& o, const CappedOutput::Taken& taken);
  // The match is over (or never began): its result, the bots told, the log's last records.
  void finish(const State* state);
  // The result's reason, scores, placements and winner (and the fault's record).
  void decide_result(const State* state);
  // Every bot still connected hears MatchEnd; the streams are closed.
  void tell_the_end();
  // The match_end record and each process's output outside its decisions.
  void write_end();
  // The bot at a seat: its own SeatBot, or the adapter of its endpoint (one per endpoint).
  SeatBot* seat_bot(const SeatSpec& given);
  // Writes the records queued with log_.add(). See MatchLog::add.
  void flush_log();

  const MatchSpec& spec_;
  MatchLog& log_;
  const std::atomic<bool>* stop_;
  Format format_;
  std::vector<Seat> seats_;
  std::vector<int> scores_;  // per side, kept from the events
  MatchResult result_;
  bool aborted_ = false;
  // Each decision's request and answer, in a first block of its own: no heap allocation.
  alignas(8) char decision_block_[16 * 1024];
  google::protobuf::Arena decision_arena_{decision_block_, sizeof decision_block_};
  Clock::time_point started_;
  std::optional<CpuGuard> guard_;       // made once the seats are known
  std::vector<ProcessOutput> outputs_;  // one per bot process, in the order of first seats
  // The adapters of the seats' BotEndpoints, one per endpoint (a bot may sit twice).
  std::vector<std::unique_ptr<SeatBot>> endpoint_seats_;
  std::vector<BotEndpoint*> endpoints_;  // of each adapter
  LogPrinted fault_output_;              // what the faulting bot printed in its last decision
};

ProcessOutput* Runner::output_of(int seat) {
  SeatProcess* p = seats_[seat].bot ? seats_[seat].bot->process() : nullptr;
  if (!p) return nullptr;
  for (ProcessOutput& o : outputs_)
    if (o.process == p) return &o;
  return nullptr;
}

CappedOutput::Taken Runner::take_window(ProcessOutput& o, size_t cap, bool fault) {
  const size_t left = kMaxMatchOutputBytes - std::min(o.kept, kMaxMatchOutputBytes);
  CappedOutput::Taken taken = o.process->take_output(fault ? cap : std::min(cap, left));
  o.kept += taken.kept;
  return taken;
}

void Runner::add_between(ProcessOutput& o, const CappedOutput::Taken& taken) {
  o.between += taken.text;
  o.between_dropped += taken.dropped;
}

void Runner::window_between(int seat) {
  if (ProcessOutput* o = output_of(seat)) add_between(*o, take_window(*o, kMaxMatchOutputBytes));
}

void Runner::flush_log() {
  log_.flush();
}

void Runner::set_fault(int seat, v1::FaultKind kind, std::string reason) {
  if (result_.fault) return;  // the first fault decides the match
  // An unasked answer that another seat sent while this fault was in the making came first.
  check_unasked();
  if (result_.fault) return;
  // A bot that ran into a resource limit in this match may fail in any way (a handler that
  // raised on a failed fork, a turn never answered): its fault names the limit, whatever its
  // kind (a crash's reason names it already, describe_exit()).
  const Seat* s = seat >= 0 && seat < static_cast<int>(seats_.size()) ? &seats_[seat] : nullptr;
  if (SeatProcess* p = s && s->bot ? s->bot->process() : nullptr;
      p && kind != v1::FAULT_KIND_CRASH) {
    const std::string limit = p->limit_reached_since(s->limits_before);
    if (!limit.empty()) reason += "; the bot process " + limit + " in this match";
  }
  // A reason may quote the bot (its output, its status message): kept, as valid UTF-8.
  // A reason may quote the bot (a status message, what it printed) and is shown on terminals.
  result_.fault = Fault{seat, kind, terminal_text(valid_utf8(reason), true)};
}

void Runner::check_unasked() {
  for (int seat = 0; seat < static_cast<int>(seats_.size()) && !result_.fault; ++seat) {
    Seat& s = seats_[seat];
    if (s.stream && s.stream->check() == IoStatus::kUnasked)
      result_.fault = Fault{seat, v1::FAULT_KIND_PROTOCOL_VIOLATION, unasked_reason(seat)};
  }
}

std::string Runner::unasked_reason(int seat) {
  const Seat& s = seats_[seat];
  const v1::BotMessage& m = s.stream->unasked();
  if (s.stream->unasked_by_nonce()) {
    // It came while turn request turns + 1 waited, carrying another nonce.
    const int request = s.stream->request_with_nonce(m.nonce());
    const std::string whose =
        request == 0 ? "the nonce of MatchStart, which its Hello had answered"
        : request > 0
            ? "the nonce of turn request " + std::to_string(request) + ", which it had answered"
            : "nonce " + std::to_string(m.nonce()) + ", which no request to it had";
    return std::string("answered turn request ") + std::to_string(s.turns + 1) + " with " +
           kind_name(m) + " carrying " + whose +
           ": an answer nobody asked for (each request gets exactly one answer, carrying the "
           "request's nonce)";
  }
  const std::string after = s.turns == 0
                                ? "after its Hello and before any turn request"
                                : "after its answer to turn request " + std::to_string(s.turns) +
                                      " and before the next request";
  return std::string("sent ") + kind_name(m) + " " + after +
         ": an answer nobody asked for (each request gets exactly one answer)";
}

// A stream operation failed: tell a timeout, a crash, a disconnect and a stop apart. A crash
// is only what the referee sees of a process it started; what a live bot (or one reached at
// an address) does to its stream is judged by the gRPC status code.
void Runner::fault_from_io(int seat, IoStatus st, const std::string& doing) {
  if (st == IoStatus::kStopped) {
    aborted_ = true;
    return;
  }
  if (st == IoStatus::kTimeout) {
    set_fault(seat, v1::FAULT_KIND_TIMEOUT, "no answer in time while " + doing);
    return;
  }
  if (st == IoStatus::kUnasked) {
    set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION, unasked_reason(seat));
    return;
  }
  Seat& s = seats_[seat];
  const grpc::Status status = s.stream ? s.stream->finish_status() : grpc::Status::OK;
  if (SeatProcess* p = s.bot ? s.bot->process() : nullptr) {
    // A dying process closes its socket a moment before it can be reaped, longer on a busy
    // machine or when its teardown is slow.
    const auto until = Clock::now() + kExitWait;
    while (p->running() && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!p->running()) {
      set_fault(seat, v1::FAULT_KIND_CRASH,
                "the bot process " + p->describe_exit() + " while " + doing);
      return;
    }
  }
  // Only what was seen: the process had not been reaped when the wait above ended.
  const std::string not_exited = std::string("; the bot process had not exited ") +
                                 std::to_string(kExitWait.count()) + " ms after its stream ended";
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION,
                "the bot ended the stream before the match ended, while " + doing);
      return;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      // What gRPC reports for a message over the channel's limit (a bot returning this code
      // itself is judged the same way; its message is quoted).
      set_fault(seat, v1::FAULT_KIND_MALFORMED_ANSWER,
                "sent a message over the size limit of " +
                    std::to_string(kMaxBotMessageBytes >> 20) + " MiB (" +
                    std::to_string(kMaxBotMessageBytes) + " bytes) while " + doing + " (" +
                    describe(status) + ")");
      return;
    case grpc::StatusCode::UNIMPLEMENTED:
      // Also what the referee's channel reports for a compressed message, which it refuses
      // before inflating anything (bot.proto, "Limits").
      set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION,
                "the bot does not serve allfives.v1.Bot/PlayMatch, or compressed what it sent "
                "(messages may not be compressed), while " +
                    doing + " (" + describe(status) + ")");
      return;
    default:
      // The bot aborted or reset its stream, its handler failed, or the connection broke.
      set_fault(seat, v1::FAULT_KIND_DISCONNECT,
                "the stream ended with an error while " + doing + " (" + describe(status) + ")" +
                    (s.bot && s.bot->process() ? not_exited : std::string()));
      return;
  }
}

// Every seat's stream is opened and sent MatchStart before any Hello is awaited, so the bots
// start up their matches in parallel; the answers are then checked in seat order.
bool Runner::handshake() {
  // A seat that did not start ends the match before it begins: that seat is the fault (the
  // one that failed by itself, not one stopped because of it) and nobody hears MatchStart.
  int missing = -1;
  for (int seat = n() - 1; seat >= 0; --seat) {
    const SeatSpec& given = spec_.seats[static_cast<size_t>(seat)];
    if (!seats_[seat].bot && (missing < 0 || !given.startup_error.empty())) missing = seat;
  }
  if (missing >= 0) {
    const std::string& why = spec_.seats[static_cast<size_t>(missing)].startup_error;
    set_fault(missing, v1::FAULT_KIND_STARTUP_FAILURE, why.empty() ? "the bot did not start" : why);
    return false;
  }
  std::vector<std::string> seat_names;
  for (const Seat& other : seats_) seat_names.push_back(other.spec->display_name);
  guard_->thaw_all();  // frozen between matches; each must answer its MatchStart
  const auto deadline = Clock::now() + spec_.time.handshake;
  for (int seat = 0; seat < n(); ++seat) {
    Seat& s = seats_[seat];
    s.stream = s.bot->open_stream(stop_);
    v1::RefereeMessage m;
    *m.mutable_match_start() =
        wire::match_start(spec_.bot_match_id.empty() ? spec_.match_id : spec_.bot_match_id,
                          spec_.config, seat, s.move_time, s.initial_bank, seat_names);
    m.mutable_match_start()->mutable_params()->insert(s.spec->params.begin(), s.spec->params.end());
    m.set_nonce(s.stream->new_nonce());
    s.stream->start_exchange(m);
  }
  bool ok = true;
  for (int seat = 0; seat < n(); ++seat) ok = check_hello(seat, deadline) && ok;
  return ok;
}

bool Runner::check_hello(int seat, Clock::time_point deadline) {
  Seat& s = seats_[seat];
  const IoStatus st = s.stream->wait_started(deadline);
  if (st == IoStatus::kTimeout) {
    set_fault(seat, v1::FAULT_KIND_TIMEOUT,
              "no Hello within " + std::to_string(spec_.time.handshake.count()) +
                  " ms of MatchStart (the start-up timeout: --startup-timeout-ms of referee "
                  "match and check-bot, startup_timeout_ms in a tournament file)");
    return false;
  }
  if (st != IoStatus::kOk) {
    fault_from_io(seat, st, "waiting for Hello in answer to MatchStart");
    return false;
  }
  const v1::BotMessage& answer = s.stream->answer();
  if (!answer.has_hello()) {
    set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION,
              std::string("answered MatchStart with ") + kind_name(answer) + " instead of Hello");
    return false;
  }
  // A name and version are shown on terminals (results, replays, the tty seat): no escapes.
  s.hello = BotHello{terminal_text(answer.hello().name()), terminal_text(answer.hello().version())};
  const uint32_t version = answer.hello().protocol_version();
  if (version < wire::kOldestProtocolVersion || version > wire::kProtocolVersion) {
    set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION, version_refusal(version));
    return false;
  }
  s.protocol = version;
  if (s.stream->request_with_nonce(answer.nonce()) != 0) {
    set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION,
              "its Hello says protocol version " + std::to_string(version) + " but carries nonce " +
                  std::to_string(answer.nonce()) +
                  ", not MatchStart's (from version 3 on, an answer carries the nonce of the "
                  "request it answers)");
    return false;
  }
  return true;
}

void Runner::write_header() {
  v1::LogHeader& h = add_log_header(log_, spec_.match_id, spec_.config, spec_.seed,
                                    spec_.time.move_time, spec_.time.time_bank);
  h.set_bot_match_id(spec_.bot_match_id.empty() ? spec_.match_id : spec_.bot_match_id);
  for (int seat = 0; seat < n(); ++seat) {
    const Seat& s = seats_[seat];
    LogSeat ls{seat_display_name(*s.spec, s.hello),
               s.hello.name,
               s.hello.version,
               s.spec->started() ? s.spec->describe() : std::string(),
               s.bot ? s.bot->address() : s.spec->address,
               s.move_time,
               s.initial_bank,
               s.protocol};
    v1::LogBot& b = add_log_bot(h, format_, seat, ls);
    b.mutable_params()->insert(s.spec->params.begin(), s.spec->params.end());
    // Every seat of a started bot says how it was confined, even one whose bot did not start.
    const SeatSpec& given = spec_.seats[static_cast<size_t>(seat)];
    if (std::optional<v1::LogConfinement> c = s.bot ? s.bot->confinement() : std::nullopt) {
      *b.mutable_confinement() = std::move(*c);
    } else if (given.confinement) {
      *b.mutable_confinement() = *given.confinement;
    } else if (s.spec->started()) {
      *b.mutable_confinement() = planned_confinement(*s.spec);
    }
  }
}

bool Runner::ask_play(int seat, const State& state, Play* play, LogDecision* decision) {
  const View view = state.view(seat);
  const TurnWait waited = request_play(seat, state, view, decision);
  if (!judge_clock(seat, waited, decision)) return false;
  const v1::BotMessage& answer = seats_[seat].stream->answer();
  if (!answer.has_play()) {
    set_fault(seat, v1::FAULT_KIND_PROTOCOL_VIOLATION,
              std::string("answered a turn request with ") + kind_name(answer) +
                  " instead of PlayAnswer");
    return false;
  }
  const v1::PlayAnswer& a = answer.play();
  decision->comment =
      capped_comment(a.comment(), wire::kMaxCommentBytes, &decision->comment_dropped);
  const std::optional<Play> named = named_play(seat, state, view.legal_plays(), a);
  if (!named || !check_legal(seat, state, *named)) return false;
  *play = *named;
  return true;
}

Runner::TurnWait Runner::request_play(int seat, const State& state, const View& view,
                                      LogDecision* decision) {
  Seat& s = seats_[seat];
  // The request is needed only during this call (gRPC has serialized it when the write
  // completes); the answer lives in the stream.
  decision_arena_.Reset();
  auto& m = *google::protobuf::Arena::CreateMessage<v1::RefereeMessage>(&decision_arena_);
  v1::TurnRequest* tr = m.mutable_turn_request();
  for (const PendingEvent& e : s.pending)
    wire::fill_seat_event(e.event, seat, format_, pending_scores(e), tr->add_events());
  s.pending.clear();
  wire::fill_turn_request(view, tr);
  decision->offered = view.legal_plays();
  decision->before = state.line();
  tr->set_move_time_ms(static_cast<uint32_t>(s.move_time.count()));
  tr->set_time_bank_ms(static_cast<uint32_t>(s.bank.count()));
  m.set_nonce(s.stream->new_nonce());

  guard_->before_turn(seat);
  // A decision's records wait to be written with the next ones unless the bot is slow to
  // answer (MatchLog::add says why and how long they may wait).
  const BotStream::Watch watch{CpuGuard::kLookEvery, [this] {
                                 guard_->look();
                                 flush_log();
                               }};
  window_between(seat);  // what it printed since its last decision is not this one's
  const auto sent = Clock::now();
  const auto deadline = sent + s.move_time + s.bank + spec_.time.transport_slack;
  const IoStatus st = s.stream->exchange(
      m, deadline, [this, sent] { log_.flush_grouped(sent); }, &watch);
  const auto elapsed = Clock::now() - sent;
  guard_->after_turn(seat);
  decision->decision_us =
      static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  return TurnWait{st, std::chrono::duration_cast<std::chrono::milliseconds>(elapsed)};
}

bool Runner::judge_clock(int seat, const TurnWait& waited, LogDecision* decision) {
  Seat& s = seats_[seat];
  const auto limit = s.move_time + s.bank;
  // Only a timeout needs these words: not built for every decision.
  const auto limit_words = [&] {
    return std::to_string(limit.count()) + " ms (move time " + std::to_string(s.move_time.count()) +
           " ms + bank " + std::to_string(s.bank.count()) + " ms)";
  };
  if (waited.status == IoStatus::kTimeout) {
    set_fault(seat, v1::FAULT_KIND_TIMEOUT,
              "no answer to the turn request within " + limit_words());
    return false;
  }
  if (waited.status != IoStatus::kOk) {
    fault_from_io(seat, waited.status, "waiting for a play");
    return false;
  }
  if (waited.elapsed > limit) {
    set_fault(seat, v1::FAULT_KIND_TIMEOUT,
              "answered after " + std::to_string(waited.elapsed.count()) + " ms; it had " +
                  limit_words());
    return false;
  }
  s.bank -= std::max(std::chrono::milliseconds(0), waited.elapsed - s.move_time);
  ++s.turns;
  DecisionTiming& timing = result_.timing[static_cast<size_t>(seat)];
  timing.add(decision->decision_us, static_cast<uint64_t>(limit.count()) * 1000);
  timing.max_bank_used_ms = static_cast<uint32_t>((s.initial_bank - s.bank).count());
  decision->bank_left = s.bank;
  return true;
}

std::optional<Play> Runner::named_play(int seat, const State& state, const PlayList& legal,
                                       const v1::PlayAnswer& a) {
  const bool opening = state.line().empty();
  if (!a.has_legal_play_index() && !a.has_play()) {
    set_fault(seat, v1::FAULT_KIND_MALFORMED_ANSWER,
              "the answer names no play: neither legal_play_index nor play is set");
    return std::nullopt;
  }
  std::optional<Play> by_index, by_play;
  if (a.has_legal_play_index()) {
    if (a.legal_play_index() >= static_cast<uint32_t>(legal.size())) {
      set_fault(seat, v1::FAULT_KIND_ILLEGAL_PLAY,
                "legal_play_index " + std::to_string(a.legal_play_index()) +
                    " is out of range: " + std::to_string(legal.size()) + " plays were legal");
      return std::nullopt;
    }
    by_index = legal[static_cast<int>(a.legal_play_index())];
  }
  if (a.has_play()) {
    Play p;
    std::string why;
    if (!wire::from_proto(a.play(), opening, p, &why)) {
      set_fault(seat, v1::FAULT_KIND_MALFORMED_ANSWER, "the play is malformed: " + why);
      return std::nullopt;
    }
    if (opening) p.end = End::kLeft;  // the end of an opening play is irrelevant
    by_play = p;
  }
  if (by_index && by_play && !(*by_index == *by_play)) {
    set_fault(seat, v1::FAULT_KIND_MALFORMED_ANSWER,
              "legal_play_index " + std::to_string(a.legal_play_index()) + " names " +
                  to_string(*by_index) + " but play says " + to_string(*by_play));
    return std::nullopt;
  }
  return by_index ? by_index : by_play;
}

bool Runner::check_legal(int seat, const State& state, Play chosen) {
  const PlayError e = state.check(chosen);
  if (e == PlayError::kNone) return true;
  std::string ends;
  if (!state.line().empty())
    ends = " (open ends: left " + std::to_string(state.line().end(End::kLeft).value) + ", right " +
           std::to_string(state.line().end(End::kRight).value) + ")";
  set_fault(seat, v1::FAULT_KIND_ILLEGAL_PLAY,
            "played " + to_string(chosen) + ": " + std::string(allfives::describe(e)) + ends +
                "; hand " + to_string(state.hand(seat)));
  return false;
}

void Runner::on_events(const EventList& events, const LogDecision& decision) {
  for (const Event& e : events) {
    switch (e.kind) {
      case EventKind::kHandStart: {
        result_.hands_played = e.hand_index + 1;
        log_hand_start(log_, e, format_, scores_);
        break;
      }
      case EventKind::kPlay: {
        scores_[e.side] += e.points;
        log_play(log_, e, scores_[e.side], decision);
        break;
      }
      case EventKind::kDraw: {
        log_draw(log_, e);
        break;
      }
      case EventKind::kPass: {
        log_pass(log_, e);
        break;
      }
      case EventKind::kHandEnd: {
        if (e.side >= 0) scores_[e.side] += e.points;
        log_hand_end(log_, e, format_, scores_);
        break;
      }
      case EventKind::kMatchEnd:
        continue;  // finish() writes the end of the match and tells the bots
    }
    // Each seat hears of it with its next message (docs/RULES.md §15 "What a bot may see").
    PendingEvent pending{e, {}};
    std::copy(scores_.begin(), scores_.end(), pending.scores.begin());
    for (Seat& s : seats_) s.pending.push_back(pending);
  }
}

void Runner::finish(const State* state) {
  // An answer nobody asked for that came before the end is a fault even after the last play.
  if (!aborted_) check_unasked();
  decide_result(state);
  tell_the_end();
  write_end();
  flush_log();
}

void Runner::decide_result(const State* state) {
  if (aborted_) {
    result_.reason = v1::MATCH_END_REASON_ABORTED;
  } else if (result_.fault) {
    result_.reason = v1::MATCH_END_REASON_FAULT;
    log_fault(log_, format_, result_.fault->seat, result_.fault->kind, result_.fault->reason,
              std::max(0, result_.hands_played - 1), fault_output_);
  } else if (state && state->is_terminal()) {
    result_.reason = wire::to_proto(state->outcome().reason);
  }
  result_.scores = scores_;
  const int faulting_side = result_.fault && !aborted_ ? side_of(format_, result_.fault->seat) : -1;
  if (result_.reason == v1::MATCH_END_REASON_ABORTED) {
    result_.winner_side = -1;
  } else {
    result_.placements = placements(scores_, faulting_side);
    int firsts = 0;
    for (int side = 0; side < sides(); ++side)
      if (result_.placements[side] == 1) {
        ++firsts;
        result_.winner_side = side;
      }
    if (firsts != 1) result_.winner_side = -1;
  }
  result_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
  for (const Seat& s : seats_) result_.hellos.push_back(s.hello);
}

void Runner::tell_the_end() {
  // Tell every bot still connected how it ended, then close the streams.
  guard_->thaw_all();
  for (int seat = 0; seat < n(); ++seat) {
    Seat& s = seats_[seat];
    if (!s.stream || s.stream->broken()) continue;
    // Nothing should be in flight here; if something is, it must end before the last write.
    if (s.stream->wait_started(Clock::now() + kEndGrace) != IoStatus::kOk) continue;
    v1::RefereeMessage m;
    v1::MatchEnd* me = m.mutable_match_end();
    for (const PendingEvent& e : s.pending)
      wire::fill_seat_event(e.event, seat, format_, pending_scores(e), me->add_events());
    me->set_reason(result_.reason);
    me->set_winner_side(result_.winner_side);
    for (int v : result_.scores) me->add_scores(static_cast<uint32_t>(v));
    for (int v : result_.placements) me->add_placements(static_cast<uint32_t>(v));
    me->set_fault_seat(result_.fault ? result_.fault->seat : -1);
    if (result_.fault) {
      me->set_fault_kind(result_.fault->kind);
      me->set_fault_reason(result_.fault->reason);
    }
    s.stream->start_close(m);
  }
  // Every bot hears the end at once; then each stream's end is awaited (and cancelled after
  // the grace period, which counts for all of them together).
  flush_log();
  const auto deadline = Clock::now() + kEndGrace;
  for (Seat& s : seats_) {
    if (s.stream && !s.stream->broken()) s.stream->wait_started(deadline);
    s.stream.reset();
  }
  // Frozen until their next match: an idle bot steals from no one, and what each wrote in this
  // match is in its pipe now, nothing later.
  guard_->end_of_match();
}

void Runner::write_end() {
  if (guard_->active())
    log_match_end(log_, result_, guard_->off_turn_cpu_us(), guard_->frozen_off_turn());
  else
    log_match_end(log_, result_);

  // Each process's output outside its decisions once, under the first seat it plays.
  for (ProcessOutput& o : outputs_) {
    add_between(o, take_window(o, kMaxMatchOutputBytes));
    if (o.between.empty() && o.between_dropped == 0) continue;
    uint64_t invalid = 0;
    std::string text = valid_utf8(o.between, &invalid);
    log_bot_output(log_, o.first_seat, std::move(text), o.between_dropped, invalid);
  }
}

SeatBot* Runner::seat_bot(const SeatSpec& given) {
  if (given.seat_bot || !given.bot) return given.seat_bot;
  for (size_t i = 0; i < endpoints_.size(); ++i)
    if (endpoints_[i] == given.bot) return endpoint_seats_[i].get();
  endpoints_.push_back(given.bot);
  endpoint_seats_.push_back(endpoint_seat(*given.bot));
  return endpoint_seats_.back().get();
}

MatchResult Runner::run() {
  started_ = Clock::now();
  seats_.resize(static_cast<size_t>(n()));
  for (int seat = 0; seat < n(); ++seat) {
    const SeatSpec& own = spec_.seats[static_cast<size_t>(seat)];
    seats_[seat].spec = own.spec;
    seats_[seat].bot = seat_bot(own);
    seats_[seat].move_time = own.move_time.value_or(spec_.time.move_time);
    seats_[seat].bank = seats_[seat].initial_bank = own.time_bank.value_or(spec_.time.time_bank);
    if (SeatProcess* p = seats_[seat].bot ? seats_[seat].bot->process() : nullptr) {
      seats_[seat].limits_before = p->limit_evidence();
      if (!output_of(seat)) outputs_.push_back(ProcessOutput{p, seat, {}, 0, 0});
    }
  }
  scores_.assign(static_cast<size_t>(sides()), 0);
  result_.timing.assign(static_cast<size_t>(n()), DecisionTiming{});
  std::vector<BotEndpoint*> bots;
  for (const Seat& s : seats_) bots.push_back(s.bot ? s.bot->endpoint() : nullptr);
  guard_.emplace(bots);

  const bool ok = handshake();
  write_header();
  if (!ok) {
    finish(nullptr);
    return result_;
  }

  EventList events;
  State state = State::new_match(spec_.config, spec_.seed, &events);
  on_events(events, LogDecision{});
  while (!state.is_terminal() && !result_.fault && !aborted_) {
    if (stopped()) {
      aborted_ = true;
      break;
    }
    const int seat = state.seat_to_move();
    Play play;
    LogDecision decision;
    const bool played = ask_play(seat, state, &play, &decision);
    // What it printed while the decision was pending: the decision's, or its fault's.
    if (ProcessOutput* o = output_of(seat)) {
      const bool own_fault = !played && result_.fault && result_.fault->seat == seat;
      const CappedOutput::Taken taken = take_window(*o, kMaxDecisionOutputBytes, own_fault);
      if (played)
        decision.output = printed(taken);
      else if (own_fault)
        fault_output_ = printed(taken);
      else
        add_between(*o, taken);
    }
    if (!played) break;
    ++result_.decisions;
    events.clear();
    state.apply(play, &events);
    on_events(events, decision);
  }
  finish(&state);
  return result_;
}

}  // namespace

MatchResult play_match(const MatchSpec& spec, MatchLog& log, const std::atomic<bool>* stop) {
  return Runner(spec, log, stop).run();
}

}  // namespace allfives::referee
