#include "serve/human_table.h"

#include <algorithm>

#include "log/json_text.h"
#include "replay/frames.h"
#include "replay/html_view.h"

namespace allfives::referee::serve {
namespace {

std::string ordinal(int n) {
  const char* suffix = n == 1 ? "st" : n == 2 ? "nd" : n == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

// A sentence that starts with "you" (the seat) starts with "You"; bots keep their names.
std::string capital(std::string s) {
  if (s.rfind("you", 0) == 0) s[0] = 'Y';
  return s;
}

// "you 250 · greedy 180".
std::string scores_words(const HumanTable& t, const std::vector<int>& scores) {
  std::string out;
  for (size_t s = 0; s < scores.size(); ++s) {
    if (s) out += " · ";
    out += side_words(t, static_cast<int>(s)) + " " + std::to_string(scores[s]);
  }
  return out;
}

// What a fault kind means, said of the seat that committed it.
std::string fault_sentence(v1::FaultKind kind) {
  switch (kind) {
    case v1::FAULT_KIND_TIMEOUT:
      return "did not answer in time";
    case v1::FAULT_KIND_CRASH:
      return "stopped running: its program exited";
    case v1::FAULT_KIND_DISCONNECT:
      return "lost its connection to the referee";
    case v1::FAULT_KIND_ILLEGAL_PLAY:
      return "made a play the rules do not allow";
    case v1::FAULT_KIND_MALFORMED_ANSWER:
      return "sent an answer that names no valid play";
    case v1::FAULT_KIND_PROTOCOL_VIOLATION:
      return "broke the protocol with the referee";
    case v1::FAULT_KIND_STARTUP_FAILURE:
      return "did not start";
    default:
      return "broke a rule of the match";
  }
}

void explain_fault(HumanTable& t, const MatchEnding& f) {
  const int n = num_players(t.config.format);
  const int my_side = side_of(t.config.format, t.seat);
  const int fault_seat = f.fault ? f.fault->seat : -1;
  const v1::FaultKind fault_kind = f.fault ? f.fault->kind : v1::FAULT_KIND_UNSPECIFIED;
  const std::string fault_reason = f.fault ? f.fault->reason : "";
  const bool mine = fault_seat == t.seat;
  const bool partner =
      !mine && fault_seat >= 0 && fault_seat < n && side_of(t.config.format, fault_seat) == my_side;
  if (mine) {
    t.outcome = "lost";
    if (fault_kind == v1::FAULT_KIND_TIMEOUT) {
      t.headline = "You ran out of time";
      const long long bank_s = t.bank_at_decision.count() / 1000;
      t.detail = "The " + std::to_string(t.move_time.count() / 1000) + " s a move may take" +
                 (bank_s > 0 ? " and the " + std::to_string(bank_s) + " s left in your bank"
                             : std::string(" (your bank was empty)")) +
                 " passed without a play, so the match is lost by forfeit.";
    } else if (fault_kind == v1::FAULT_KIND_DISCONNECT) {
      t.headline = "You left the table";
      t.detail = "Your seat stopped answering the referee, so the match is lost by forfeit.";
    } else {
      t.headline = "You forfeited";
      t.detail = "Your seat " + fault_sentence(fault_kind) + ", so the match is lost.";
    }
    return;
  }
  const std::string who = name_of(t, fault_seat);
  const std::string why =
      who + " " + fault_sentence(fault_kind) + "." +
      (fault_reason.empty() ? "" : " The referee's record: " + fault_reason + ".");
  if (partner) {
    t.outcome = "lost";
    t.headline = "Your partner " + who + " forfeited";
    t.detail = capital(why) + " A forfeit loses the match for the whole side.";
  } else if (num_sides(t.config.format) == 2 || f.placements.empty()) {
    t.outcome = "won";
    t.headline = "You win: " + who + " forfeited";
    t.detail = capital(why) + " A forfeit loses the match, so you win it.";
  } else {
    const int place = f.placements[static_cast<size_t>(my_side)];
    t.outcome = place == 1 ? "won" : "lost";
    t.headline = who + " forfeited: you placed " + ordinal(place);
    t.detail =
        capital(why) + " The others are ranked by their scores: " + scores_words(t, f.scores) + ".";
  }
}

}  // namespace

std::string tile_words(Tile t) {
  return std::to_string(t.hi()) + "-" + std::to_string(t.lo());
}

std::string name_of(const HumanTable& t, int seat) {
  if (seat == t.seat) return "you";
  if (seat >= 0 && seat < static_cast<int>(t.names.size()) &&
      !t.names[static_cast<size_t>(seat)].empty())
    return t.names[static_cast<size_t>(seat)];
  return "seat " + std::to_string(seat);
}

std::string side_words(const HumanTable& t, int side) {
  const int partner = partner_of(t.config.format, side);
  if (partner < 0) return name_of(t, side);
  const std::string a = name_of(t, side), b = name_of(t, partner);
  if (partner == t.seat) return "you and " + a;
  return a == b ? a : a + " and " + b;
}

void note(HumanTable& t, std::string text) {
  t.events.push_back(capital(std::move(text)));
  while (t.events.size() > 14) t.events.pop_front();
}

std::string play_words(const HumanTable& t, int seat, Tile tile, End end, bool opened, int count,
                       int points) {
  return capital(name_of(t, seat)) + " played " + tile_words(tile) +
         (opened              ? " to open the hand"
          : end == End::kLeft ? " on the left"
                              : " on the right") +
         ": count " + std::to_string(count) +
         (points > 0 ? ", +" + std::to_string(points) + " for " +
                           side_words(t, side_of(t.config.format, seat))
                     : "");
}

void explain_end(HumanTable& t, const MatchEnding& f) {
  t.over = true;
  t.to_move = -1;
  t.legal = PlayList{};
  if (!f.scores.empty()) t.scores = f.scores;
  // The hand the match ended in, if it did not reach its own end, closes the summary too.
  if (t.hand_index >= 0 && (t.hands.empty() || t.hands.back().hand != t.hand_index)) {
    HandSummary cut;
    cut.hand = t.hand_index;
    cut.how = f.reason == v1::MATCH_END_REASON_TARGET  ? "the target was reached"
              : f.reason == v1::MATCH_END_REASON_FAULT ? "cut short by a forfeit"
                                                       : "cut short";
    cut.scores = t.scores;
    t.hands.push_back(cut);
  }
  const int my_side = side_of(t.config.format, t.seat);
  const std::string scores = scores_words(t, t.scores);
  if (f.reason == v1::MATCH_END_REASON_ABORTED || f.reason == v1::MATCH_END_REASON_UNSPECIFIED) {
    t.outcome = "stopped";
    t.headline = "The match was stopped";
    t.detail = "The referee stopped the match before its end, so nobody won (" + scores + ").";
    return;
  }
  if (f.reason == v1::MATCH_END_REASON_FAULT) {
    explain_fault(t, f);
    return;
  }
  const bool limit = f.reason == v1::MATCH_END_REASON_HAND_LIMIT;
  const std::string how =
      limit ? "The hand limit (" + std::to_string(t.config.max_hands) + " hands) ended the match"
            : "The match reached its target of " + std::to_string(t.config.target) + " points";
  if (num_sides(t.config.format) > 2 && !f.placements.empty()) {
    const int place = f.placements[static_cast<size_t>(my_side)];
    t.outcome = f.winner_side == my_side          ? "won"
                : f.winner_side < 0 && place == 1 ? "draw"
                                                  : "lost";
    t.headline = f.winner_side == my_side ? "You won!"
                                          : "You placed " + ordinal(place) + " of " +
                                                std::to_string(f.placements.size());
    t.detail = how + ": " + scores + ".";
    return;
  }
  if (f.winner_side < 0) {
    t.outcome = "draw";
    t.headline = "A draw";
    t.detail = how + " with the scores level: " + scores + ".";
  } else if (f.winner_side == my_side) {
    t.outcome = "won";
    t.headline = "You won!";
    t.detail = how + (limit ? " with you ahead: " : " and you got there first: ") + scores + ".";
  } else {
    t.outcome = "lost";
    t.headline = "You lost";
    t.detail = how +
               (limit ? " with " + side_words(t, f.winner_side) + " ahead: "
                      : " and " + side_words(t, f.winner_side) + " got there first: ") +
               scores + ".";
  }
}

namespace {

template <class Values>
void json_ints(std::string& o, const Values& values, size_t count) {
  o += '[';
  for (size_t i = 0; i < count; ++i) {
    if (i) o += ',';
    o += std::to_string(values[i]);
  }
  o += ']';
}

std::string pair_of(Tile t) {
  return {static_cast<char>('0' + t.hi()), static_cast<char>('0' + t.lo())};
}

// The seats and sides: "names", "sides", "side_names".
void json_seats(std::string& o, const HumanTable& t) {
  const int n = num_players(t.config.format);
  o += ",\"names\":[";
  for (int s = 0; s < n; ++s) {
    if (s) o += ',';
    append_json_string(o, name_of(t, s));
  }
  o += "],\"sides\":[";
  for (int s = 0; s < n; ++s) {
    if (s) o += ',';
    o += std::to_string(side_of(t.config.format, s));
  }
  o += "],\"side_names\":[";
  for (int s = 0; s < num_sides(t.config.format); ++s) {
    if (s) o += ',';
    append_json_string(o, side_words(t, s));
  }
  o += ']';
}

// The legal plays, each with the count and points it would make; the latest play.
void json_plays(std::string& o, const HumanTable& t) {
  o += ",\"legal\":[";
  for (int i = 0; i < t.legal.size(); ++i) {
    const Play p = t.legal[i];
    Line after = t.line;
    after.place(p.tile, p.end, t.seat);
    if (i) o += ',';
    o += "{\"tile\":\"" + pair_of(p.tile) + "\",\"end\":\"" +
         (t.line.empty()        ? ""
          : p.end == End::kLeft ? "left"
                                : "right") +
         "\",\"count\":" + std::to_string(after.count()) +
         ",\"points\":" + std::to_string(points_after(t.line, p)) + "}";
  }
  o += "],\"last\":";
  if (t.last.seat < 0) {
    o += "null";
    return;
  }
  const LastPlay& l = t.last;
  o += "{\"seat\":" + std::to_string(l.seat) + ",\"tile\":\"" + pair_of(l.tile) + "\",\"end\":\"" +
       (l.opened              ? ""
        : l.end == End::kLeft ? "left"
                              : "right") +
       "\",\"count\":" + std::to_string(l.count) + ",\"points\":" + std::to_string(l.points) +
       ",\"words\":";
  append_json_string(o, play_words(t, l.seat, l.tile, l.end, l.opened, l.count, l.points));
  o += '}';
}

// The hand-by-hand summary and the latest events.
void json_history(std::string& o, const HumanTable& t) {
  o += ",\"hands\":[";
  for (size_t i = 0; i < t.hands.size(); ++i) {
    const HandSummary& h = t.hands[i];
    if (i) o += ',';
    o += "{\"hand\":" + std::to_string(h.hand) + ",\"how\":";
    append_json_string(o, h.how);
    o += ",\"points\":" + std::to_string(h.points) + ",\"side\":" + std::to_string(h.side) +
         ",\"to\":";
    append_json_string(o, h.side >= 0 ? side_words(t, h.side) : "");
    o += ",\"scores\":";
    json_ints(o, h.scores, h.scores.size());
    o += '}';
  }
  o += "],\"events\":[";
  for (size_t i = 0; i < t.events.size(); ++i) {
    if (i) o += ',';
    append_json_string(o, t.events[i]);
  }
  o += ']';
}

// How the match ended and what the page may offer after it.
void json_end(std::string& o, const HumanTable& t) {
  o += ",\"over\":" + std::string(t.over ? "true" : "false") + ",\"outcome\":";
  append_json_string(o, t.outcome);
  o += ",\"result\":";
  append_json_string(o, t.headline);
  o += ",\"detail\":";
  append_json_string(o, t.detail);
  o += ",\"replay\":" + std::string(t.replay ? "true" : "false") +
       ",\"rematch\":" + (t.rematch ? "true" : "false") +
       ",\"pace_ms\":" + std::to_string(t.pace_ms) +
       ",\"hint_on\":" + (t.hint_on ? "true" : "false") +
       ",\"hint\":" + std::to_string(t.legal.empty() ? -1 : t.hint) + ",\"tally\":";
  json_ints(o, t.tally, t.tally.size());
  o += ",\"timeline\":[";
  for (size_t i = 0; i < t.timeline.size(); ++i) {
    if (i) o += ',';
    o += "{\"hand\":" + std::to_string(t.timeline[i].hand) + ",\"scores\":";
    json_ints(o, t.timeline[i].scores, t.timeline[i].scores.size());
    o += '}';
  }
  o += ']';
}

}  // namespace

std::string table_json(const HumanTable& t, long long seq, const ClockNow& clock) {
  const int n = num_players(t.config.format);
  std::string o = "{\"seq\":" + std::to_string(seq) +
                  ",\"match\":" + std::to_string(t.match_number) +
                  ",\"seat\":" + std::to_string(t.seat) + ",\"format\":";
  append_json_string(o, format_label(t.config.format));
  o += ",\"target\":" + std::to_string(t.config.target);
  json_seats(o, t);
  o += ",\"hand_index\":" + std::to_string(t.hand_index) + ",\"hand\":\"" + tile_pairs(t.hand) +
       "\",\"line\":\"" + line_pairs(t.line) + "\",\"count\":" + std::to_string(t.line.count()) +
       ",\"ends\":";
  if (t.line.empty())
    o += "[]";
  else
    o += "[" + std::to_string(t.line.end(End::kLeft).value) + "," +
         std::to_string(t.line.end(End::kRight).value) + "]";
  o += ",\"sizes\":";
  json_ints(o, t.sizes, static_cast<size_t>(n));
  o += ",\"boneyard\":" + std::to_string(t.boneyard) + ",\"scores\":";
  json_ints(o, t.scores, t.scores.size());
  o += ",\"to_move\":" + std::to_string(t.to_move);
  json_plays(o, t);
  o += ",\"clock\":{\"move_time_ms\":" + std::to_string(t.move_time.count()) +
       ",\"move_ms\":" + std::to_string(clock.running ? clock.move_ms : t.move_time.count()) +
       ",\"bank_ms\":" + std::to_string(clock.running ? clock.bank_ms : t.bank.count()) +
       ",\"running\":" + (clock.running ? "true" : "false") + "}";
  if (t.show_revealed) {
    o += ",\"revealed\":[";
    for (int s = 0; s < n; ++s) {
      if (s) o += ',';
      o += '"';
      o += tile_pairs(t.revealed[static_cast<size_t>(s)]);
      o += '"';
    }
    o += "]";
  }
  json_history(o, t);
  json_end(o, t);
  return o + "}";
}

}  // namespace allfives::referee::serve
