#include "session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <utility>

#include "allfives/bot/server.h"
#include "allfives/wire/convert.h"

namespace allfives::bot::detail {
namespace {

using grpc::Status;
using grpc::StatusCode;

Status invalid(std::string why) {
  return Status(StatusCode::INVALID_ARGUMENT, std::move(why));
}

// Running out of memory ends the process, as an uncaught std::bad_alloc would: the memory is
// still exhausted and the bot's state half-updated, so answering on would only fail later and
// somewhere less clear. The referee then records a crash, with this line in the bot's output.
// Plain stdio: this must not allocate.
[[noreturn]] void out_of_memory(const char* what) {
  std::fputs("the bot ran out of memory (std::bad_alloc) in ", stderr);
  std::fputs(what, stderr);
  std::fputs("; ending the process\n", stderr);
  std::fflush(stderr);
  std::abort();
}

// Runs one call into the bot's code. An exception ends the match (the referee counts the
// broken stream as a fault), never the process, unless it is std::bad_alloc (out_of_memory).
template <typename F>
Status call_bot(const char* what, F&& f) {
  try {
    f();
    return Status::OK;
  } catch (const std::bad_alloc&) {
    out_of_memory(what);
  } catch (const std::exception& e) {
    return Status(StatusCode::INTERNAL, std::string("the bot threw in ") + what + ": " + e.what());
  } catch (...) {
    return Status(StatusCode::INTERNAL,
                  std::string("the bot threw in ") + what + " (not a std::exception)");
  }
}

const char* kind_name(v1::RefereeMessage::KindCase k) {
  switch (k) {
    case v1::RefereeMessage::kMatchStart:
      return "MatchStart";
    case v1::RefereeMessage::kTurnRequest:
      return "TurnRequest";
    case v1::RefereeMessage::kMatchEnd:
      return "MatchEnd";
    case v1::RefereeMessage::KIND_NOT_SET:
      break;
  }
  return "an empty message";
}

const char* reason_name(v1::MatchEndReason r) {
  switch (r) {
    case v1::MATCH_END_REASON_TARGET:
      return "target";
    case v1::MATCH_END_REASON_HAND_LIMIT:
      return "hand_limit";
    case v1::MATCH_END_REASON_FAULT:
      return "fault";
    case v1::MATCH_END_REASON_ABORTED:
      return "aborted";
    default:
      return "unspecified";
  }
}

// The protocol version this SDK speaks in a match: the highest it knows (it speaks every
// version from kOldestProtocolVersion to kProtocolVersion) within the range the referee offers
// (bot.proto, "Versions"); 0 if the two ranges do not meet.
uint32_t version_for(const v1::MatchStart& m) {
  const uint32_t low = m.protocol_version();
  const uint32_t high = std::max(low, m.highest_protocol_version());
  const uint32_t v = std::min(high, wire::kProtocolVersion);
  return v >= low && v >= wire::kOldestProtocolVersion ? v : 0;
}

bool fits_int16(uint32_t v) {
  return v <= static_cast<uint32_t>(std::numeric_limits<int16_t>::max());
}

}  // namespace

void log_line(const std::string& line) {
  static std::mutex mu;
  const std::string text = line + "\n";
  std::lock_guard<std::mutex> lock(mu);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

MatchSession::MatchSession(const BotIdentity& identity, const BotFactory& factory,
                           uint64_t base_seed)
    : identity_(identity), factory_(factory), base_seed_(base_seed) {}

Status MatchSession::handle(const v1::RefereeMessage& message,
                            std::chrono::steady_clock::time_point received, v1::BotMessage* answer,
                            bool* has_answer) {
  *has_answer = false;
  answer->Clear();
  const auto kind = message.kind_case();
  if (finished_) return invalid(std::string(kind_name(kind)) + " after MatchEnd");
  if (started_ && kind == v1::RefereeMessage::kMatchStart) return invalid("a second MatchStart");
  if (!started_ && kind != v1::RefereeMessage::kMatchStart)
    return invalid(std::string("the first message must be MatchStart, got ") + kind_name(kind));
  if (version_mismatch_ && kind != v1::RefereeMessage::kMatchEnd)
    return Status(StatusCode::FAILED_PRECONDITION, std::string("the referee sent ") +
                                                       kind_name(kind) +
                                                       " although our protocol versions differ");
  Status status;
  try {
    switch (kind) {
      case v1::RefereeMessage::kMatchStart:
        status = on_match_start(message.match_start(), answer);
        break;
      case v1::RefereeMessage::kTurnRequest:
        status = on_turn_request(message.turn_request(), received, answer);
        break;
      case v1::RefereeMessage::kMatchEnd:
        status = on_match_end(message.match_end());
        break;
      case v1::RefereeMessage::KIND_NOT_SET:
        status = invalid("a RefereeMessage with no kind set");
        break;
    }
  } catch (const std::bad_alloc&) {
    out_of_memory("the SDK");
  } catch (const std::exception& e) {
    // The bot's own calls are guarded one by one; this is the SDK failing.
    status = Status(StatusCode::INTERNAL, std::string("the SDK failed: ") + e.what());
  }
  if (status.ok()) *has_answer = answer->kind_case() != v1::BotMessage::KIND_NOT_SET;
  // Protocol 3: every answer carries its request's nonce (harmless to a referee of version 2).
  if (*has_answer) answer->set_nonce(message.nonce());
  return status;
}

Status MatchSession::on_match_start(const v1::MatchStart& m, v1::BotMessage* answer) {
  started_ = true;
  start_ = m;
  label_ = "match " + m.match_id() + " seat " + std::to_string(m.seat());
  v1::Hello hello;
  hello.set_name(identity_.name);
  hello.set_version(identity_.version);
  const uint32_t version = version_for(m);
  hello.set_protocol_version(version != 0 ? version : wire::kProtocolVersion);

  if (version == 0) {
    // The referee decides what a mismatch means; it needs our Hello to say so. No bot is
    // created for a protocol this SDK does not speak.
    version_mismatch_ = true;
    const uint32_t high = std::max(m.protocol_version(), m.highest_protocol_version());
    log_line(label_ + ": the referee speaks protocol version " +
             std::to_string(m.protocol_version()) +
             (high != m.protocol_version() ? " to " + std::to_string(high) : std::string()) +
             ", this bot speaks version " + std::to_string(wire::kOldestProtocolVersion) + " to " +
             std::to_string(wire::kProtocolVersion) + "; answering Hello and expecting a refusal");
    *answer->mutable_hello() = std::move(hello);
    return Status::OK;
  }
  if (m.rules_version() != wire::kRulesVersion)
    log_line(label_ + ": warning: the referee plays rules \"" + m.rules_version() +
             "\", this SDK knows \"" + wire::kRulesVersion + "\"");

  std::string error;
  Format format;
  if (!wire::from_proto(m.format(), format, &error)) return invalid("MatchStart: " + error);
  const int n = num_players(format);
  const int sides = num_sides(format);
  if (m.seat() >= static_cast<uint32_t>(n))
    return invalid("MatchStart: seat " + std::to_string(m.seat()) + " out of range");
  const int seat = static_cast<int>(m.seat());
  if (m.num_players() != static_cast<uint32_t>(n) || m.num_sides() != static_cast<uint32_t>(sides))
    return invalid("MatchStart: num_players/num_sides disagree with the format");
  if (m.side() != static_cast<uint32_t>(side_of(format, seat)) ||
      m.partner_seat() != partner_of(format, seat))
    return invalid("MatchStart: side/partner_seat disagree with the format and seat");
  if (m.target_score() == 0 || !fits_int16(m.target_score()))
    return invalid("MatchStart: target_score must be 1.." +
                   std::to_string(std::numeric_limits<int16_t>::max()));
  if (m.max_hands() == 0 || !fits_int16(m.max_hands()))
    return invalid("MatchStart: max_hands must be 1.." +
                   std::to_string(std::numeric_limits<int16_t>::max()));

  info_.match_id = m.match_id();
  info_.config =
      Config{format, static_cast<int>(m.target_score()), static_cast<int>(m.max_hands())};
  info_.seat = seat;
  info_.side = side_of(format, seat);
  info_.partner = partner_of(format, seat);
  info_.num_players = n;
  info_.num_sides = sides;
  info_.move_time = std::chrono::milliseconds(m.move_time_ms());
  info_.time_bank = std::chrono::milliseconds(m.time_bank_ms());
  info_.seat_names.assign(m.seat_names().begin(), m.seat_names().end());
  info_.seed = match_seed(base_seed_, m.match_id(), seat);
  info_.params = {m.params().begin(), m.params().end()};

  Status s = call_bot("the bot factory", [&] { bot_ = factory_(info_); });
  if (!s.ok()) return s;
  if (!bot_) return Status(StatusCode::INTERNAL, "the bot factory returned no bot");
  s = call_bot("on_match_start", [&] { bot_->on_match_start(info_); });
  if (!s.ok()) return s;
  *answer->mutable_hello() = std::move(hello);
  return Status::OK;
}

Status MatchSession::on_turn_request(const v1::TurnRequest& m,
                                     std::chrono::steady_clock::time_point received,
                                     v1::BotMessage* answer) {
  HandState hand = hand_;
  if (Status s = convert_events(m.events(), hand, steps_); !s.ok()) return s;
  if (!hand.in_hand) return invalid("TurnRequest outside a hand (no hand_start event before it)");
  if (m.hand_index() != static_cast<uint32_t>(hand.hand_index))
    return invalid("TurnRequest: hand_index " + std::to_string(m.hand_index()) + " during hand " +
                   std::to_string(hand.hand_index));
  std::string error;
  View view;
  if (!wire::view_from_turn_request(start_, m, view, &error))
    return invalid("TurnRequest: " + error);

  hand_ = hand;
  if (Status s = deliver(steps_); !s.ok()) return s;
  const Clock clock{received, std::chrono::milliseconds(m.move_time_ms()),
                    std::chrono::milliseconds(m.time_bank_ms())};
  Play play;
  if (Status s = call_bot("choose_play", [&] { play = bot_->choose_play(view, clock); }); !s.ok())
    return s;
  if (play.tile.index() < 0 || play.tile.index() >= kNumTiles)
    return Status(StatusCode::INTERNAL, "choose_play returned a tile that does not exist");
  if (view.line().empty()) play.end = End::kLeft;  // the opening play's end is irrelevant

  v1::PlayAnswer* out = answer->mutable_play();
  wire::fill(play, out->mutable_play());
  out->set_comment(bot_->take_comment());
  const PlayList& legal = view.legal_plays();
  for (int i = 0; i < legal.size(); ++i) {
    if (legal[i] == play) {
      out->set_legal_play_index(static_cast<uint32_t>(i));
      return Status::OK;
    }
  }
  log_line(label_ + ": choose_play returned " + to_string(play) +
           ", which is not a legal play; sending it as it is");
  return Status::OK;
}

Status MatchSession::on_match_end(const v1::MatchEnd& m) {
  finished_ = true;
  if (version_mismatch_) return Status::OK;  // no bot was created
  HandState hand = hand_;
  if (Status s = convert_events(m.events(), hand, steps_); !s.ok()) return s;
  hand_ = hand;
  MatchEndInfo info;
  info.reason = reason_name(m.reason());
  info.winner_side = m.winner_side();
  info.scores.assign(m.scores().begin(), m.scores().end());
  info.placements.assign(m.placements().begin(), m.placements().end());
  info.fault_seat = m.fault_seat();
  info.fault_reason = m.fault_reason();
  if (Status s = deliver(steps_); !s.ok()) return s;
  return call_bot("on_match_end", [&] { bot_->on_match_end(info); });
}

Status MatchSession::convert_hand_start(const v1::HandStart& m, HandState& hand, Step& out) {
  if (hand.in_hand)
    return invalid("hand_start while hand " + std::to_string(hand.hand_index) + " has not ended");
  if (m.hand_index() != static_cast<uint32_t>(hand.hand_index + 1))
    return invalid("hand_start: hand_index " + std::to_string(m.hand_index()) + ", expected " +
                   std::to_string(hand.hand_index + 1));
  std::string error;
  HandStartInfo& info = out.hand_start;
  info = HandStartInfo{};
  info.hand_index = static_cast<int>(m.hand_index());
  if (!wire::from_proto(m.your_tiles(), info.tiles, &error))
    return invalid("hand_start: your_tiles: " + error);
  if (m.opener_seat() >= static_cast<uint32_t>(info_.num_players))
    return invalid("hand_start: opener_seat out of range");
  info.opener = static_cast<int>(m.opener_seat());
  if (!wire::from_proto(m.open_rule(), info.open_rule, &error))
    return invalid("hand_start: " + error);
  if (info.open_rule != OpenRule::kWinnerChooses) {
    if (!m.has_open_with()) return invalid("hand_start: open_with is missing");
    if (!wire::from_proto(m.open_with(), info.open_with, &error))
      return invalid("hand_start: open_with: " + error);
  }
  out.kind = Step::Kind::kHandStart;
  hand = HandState{true, info.hand_index, 0};
  return Status::OK;
}

Status MatchSession::convert_hand_end(const v1::HandEnd& m, HandState& hand, Step& out) {
  if (!hand.in_hand) return invalid("hand_end outside a hand (no hand_start before it)");
  if (m.hand_index() != static_cast<uint32_t>(hand.hand_index))
    return invalid("hand_end: hand_index " + std::to_string(m.hand_index()) + " during hand " +
                   std::to_string(hand.hand_index));
  const int n = info_.num_players;
  HandEndInfo& info = out.hand_end;
  info = HandEndInfo{};
  info.hand_index = hand.hand_index;
  switch (m.kind()) {
    case v1::HAND_END_KIND_DOMINO:
      info.kind = HandEndKind::kDomino;
      break;
    case v1::HAND_END_KIND_BLOCKED:
      info.kind = HandEndKind::kBlocked;
      break;
    default:
      return invalid("hand_end: unknown kind " + std::to_string(m.kind()));
  }
  if (m.domino_seat() < -1 || m.domino_seat() >= n)
    return invalid("hand_end: domino_seat out of range");
  if (m.winner_side() < -1 || m.winner_side() >= info_.num_sides)
    return invalid("hand_end: winner_side out of range");
  info.domino_seat = m.domino_seat();
  info.winner_side = m.winner_side();
  info.points = static_cast<int>(m.points());
  std::string error;
  for (const v1::RevealedHand& h : m.hands()) {
    if (h.seat() >= static_cast<uint32_t>(n))
      return invalid("hand_end: a hand's seat out of range");
    if (!wire::from_proto(h.tiles(), info.hands[h.seat()], &error))
      return invalid("hand_end: seat " + std::to_string(h.seat()) + "'s hand: " + error);
  }
  if (m.scores_size() != info_.num_sides) return invalid("hand_end: scores must list every side");
  info.scores.assign(m.scores().begin(), m.scores().end());
  out.kind = Step::Kind::kHandEnd;
  hand.in_hand = false;
  return Status::OK;
}

Status MatchSession::convert_events(const google::protobuf::RepeatedPtrField<v1::Event>& events,
                                    HandState& hand, std::vector<Step>& out) {
  const uint32_t n = static_cast<uint32_t>(info_.num_players);
  std::string error;
  out.resize(static_cast<size_t>(events.size()));
  for (int i = 0; i < events.size(); ++i) {
    const v1::Event& m = events[i];
    Step& step = out[static_cast<size_t>(i)];
    const auto where = [i] { return "event " + std::to_string(i) + ": "; };
    if (m.kind_case() == v1::Event::kHandStart) {
      if (Status s = convert_hand_start(m.hand_start(), hand, step); !s.ok())
        return invalid(where() + s.error_message());
      continue;
    }
    if (m.kind_case() == v1::Event::kHandEnd) {
      if (Status s = convert_hand_end(m.hand_end(), hand, step); !s.ok())
        return invalid(where() + s.error_message());
      continue;
    }
    if (m.kind_case() == v1::Event::KIND_NOT_SET) return invalid(where() + "no kind set");
    if (!hand.in_hand) return invalid(where() + "a play, draw or pass outside a hand");
    step.kind = Step::Kind::kEvent;
    Event& e = step.event;
    e = Event{};
    e.hand_index = static_cast<int16_t>(hand.hand_index);
    switch (m.kind_case()) {
      case v1::Event::kPlay: {
        const v1::PlayEvent& p = m.play();
        if (p.seat() >= n) return invalid(where() + "seat out of range");
        if (p.side() >= static_cast<uint32_t>(info_.num_sides))
          return invalid(where() + "side out of range");
        if (!fits_int16(p.count()) || !fits_int16(p.points()))
          return invalid(where() + "count or points out of range");
        e.kind = EventKind::kPlay;
        e.seat = static_cast<int8_t>(p.seat());
        e.side = static_cast<int8_t>(p.side());
        if (!wire::from_proto(p.play(), hand.plays == 0, e.play, &error))
          return invalid(where() + error);
        e.count = static_cast<int16_t>(p.count());
        e.points = static_cast<int16_t>(p.points());
        ++hand.plays;
        break;
      }
      case v1::Event::kDraw: {
        const v1::DrawEvent& d = m.draw();
        if (d.seat() >= n) return invalid(where() + "seat out of range");
        if (d.count() > static_cast<uint32_t>(kNumTiles))
          return invalid(where() + "more tiles drawn than the set holds");
        e.kind = EventKind::kDraw;
        e.seat = static_cast<int8_t>(d.seat());
        e.count = static_cast<int16_t>(d.count());
        if (!wire::from_proto(d.tiles(), e.tiles, &error)) return invalid(where() + error);
        break;
      }
      case v1::Event::kPass: {
        if (m.pass().seat() >= n) return invalid(where() + "seat out of range");
        e.kind = EventKind::kPass;
        e.seat = static_cast<int8_t>(m.pass().seat());
        break;
      }
      default:
        return invalid(where() + "unknown kind");
    }
  }
  return Status::OK;
}

Status MatchSession::deliver(const std::vector<Step>& steps) {
  for (const Step& step : steps) {
    Status s;
    switch (step.kind) {
      case Step::Kind::kHandStart:
        s = call_bot("on_hand_start", [&] { bot_->on_hand_start(step.hand_start); });
        break;
      case Step::Kind::kEvent:
        s = call_bot("on_event", [&] { bot_->on_event(step.event); });
        break;
      case Step::Kind::kHandEnd:
        s = call_bot("on_hand_end", [&] { bot_->on_hand_end(step.hand_end); });
        break;
    }
    if (!s.ok()) return s;
  }
  return Status::OK;
}

}  // namespace allfives::bot::detail
