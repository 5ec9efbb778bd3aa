// The log checker (log_checker.h): plays with their decisions, draws and passes.
#include "replay/log_checker.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "allfives/wire/convert.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "match/match_result.h"
#include "replay/log_words.h"

namespace allfives::referee::log_check {

bool Checker::play(int line, const v1::LogPlay& p) {
  if (peek() || state_->is_terminal())
    return fail(line, "the log has a play of " + tile_words(p.play().tile()) + " by seat " +
                          num(p.seat()) + " here; the rules expect " + expected());
  const State& st = *state_;
  const int hand = st.hand_index();
  const auto what = [&] {
    return "play of " + tile_words(p.play().tile()) + " by seat " + num(p.seat()) + " (hand " +
           num(hand) + ")";
  };
  if (!check_hand_index(line, what, p.hand_index(), st.hand_index())) return false;
  if (p.seat() != static_cast<uint32_t>(st.seat_to_move()))
    return fail(line, what() + ": the log says seat " + num(p.seat()) +
                          " plays; the rules say seat " + num(st.seat_to_move()) + " is to play");
  Play play;
  if (!p.has_play() || !p.play().has_tile() || !tile_of(p.play().tile(), play.tile))
    return fail(line, what() + ": the log's tile " +
                          (p.play().has_tile() ? tile_words(p.play().tile()) : "(none)") +
                          " is not a tile; the rules want halves 0..6, the high half first");
  const bool opening = st.line().empty();
  const v1::End end = p.play().end();
  if (opening ? end != v1::END_LEFT : end != v1::END_LEFT && end != v1::END_RIGHT)
    return fail(line, what() + ": the log says " + end_words(end) + "; the rules say " +
                          (opening ? "an opening play is recorded on the left end"
                                   : "a play goes on the left or the right end"));
  play.end = end == v1::END_RIGHT ? End::kRight : End::kLeft;
  const int legal = st.legal_plays().size();
  if (const PlayError err = st.check(play); err != PlayError::kNone) {
    std::string why = std::string(describe(err));
    if (err == PlayError::kMustOpenWith) {
      why += ": " + to_string(st.legal_plays()[0].tile);
    } else if (!opening) {
      why += " (open ends: left " + num(st.line().end(End::kLeft).value) + ", right " +
             num(st.line().end(End::kRight).value) + ")";
    }
    return fail(line, what() + ": the log says seat " + num(p.seat()) + " plays " +
                          to_string(play.tile) + (opening ? "" : " on the " + end_words(play.end)) +
                          "; the rules say no: " + why + "; hand " +
                          to_string(st.hand(st.seat_to_move())));
  }
  const State before = st;
  pending_.clear();
  next_ = 0;
  state_->apply(play, &pending_);
  const Event& e = pending_[0];  // the play itself
  next_ = 1;
  const int side_score = scores_[e.side] + e.points;
  Diff d;
  d.num("count", p.count(), e.count);
  d.num("points", p.points(), e.points);
  d.num("side", p.side(), e.side);
  d.num("side_score", p.side_score(), side_score);
  // The line's ends after the play, as the core's event says (its state may already be in the
  // next hand).
  const LineEnd le = e.ends[0], re = e.ends[1];
  if (!p.has_left_end() || p.left_end().value() != le.value ||
      p.left_end().is_double() != le.is_double)
    d.add(
        "left end",
        p.has_left_end() ? line_end_words(p.left_end().value(), p.left_end().is_double()) : "none",
        line_end_words(le.value, le.is_double));
  if (!p.has_right_end() || p.right_end().value() != re.value ||
      p.right_end().is_double() != re.is_double)
    d.add("right end",
          p.has_right_end() ? line_end_words(p.right_end().value(), p.right_end().is_double())
                            : "none",
          line_end_words(re.value, re.is_double));
  d.num("legal_play_count", p.legal_play_count(), legal);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (!decision(line, p, before)) return false;
  if (keep_decisions_) keep_decision(p, legal);
  scores_[e.side] = side_score;
  ++out_.plays;
  table_.hands[e.seat].remove(play.tile);
  table_.line.place(play.tile, play.end, e.seat);
  return true;
}

bool Checker::decision(int line, const v1::LogPlay& p, const State& st) {
  const auto what = [&] {
    return "play of " + tile_words(p.play().tile()) + " by seat " + num(p.seat()) + " (hand " +
           num(st.hand_index()) + ")";
  };
  if (log_version_ < 3 && p.has_output())
    return fail(line, what() + ": the log has the output of the decision, which a log_version " +
                          num(log_version_) + " log does not have");
  if (log_version_ < 2) {
    if (p.options_size() || p.time_bank_left_ms() || !p.comment().empty() ||
        p.comment_dropped_bytes())
      return fail(line, what() +
                            ": the log has decision fields (options, time_bank_left_ms, "
                            "comment), which a log_version 1 log does not have");
    return true;
  }
  const PlayList legal = st.legal_plays();
  if (p.options_size() != legal.size())
    return fail(line, what() + ": the log says " + num(p.options_size()) +
                          " options; the rules say " + num(legal.size()) + " plays were legal");
  for (int i = 0; i < legal.size(); ++i) {
    const v1::LogOption& o = p.options(i);
    const int count = count_after(st.line(), legal[i]);
    Play logged;
    const bool same =
        o.has_play() && o.play().has_tile() && tile_of(o.play().tile(), logged.tile) &&
        logged.tile == legal[i].tile &&
        o.play().end() == (legal[i].end == End::kRight ? v1::END_RIGHT : v1::END_LEFT);
    Diff d;
    if (!same)
      d.add("play", o.play().has_tile() ? tile_words(o.play().tile()) : "(none)",
            to_string(legal[i]));
    d.num("count", o.count(), count);
    d.num("points", o.points(), points_for_count(count));
    if (!d.empty()) return fail(line, what() + ", option " + num(i) + ": " + d.text());
  }
  const uint32_t s = p.seat();
  const uint32_t over =
      p.decision_time_us() / 1000 > move_ms_[s] ? p.decision_time_us() / 1000 - move_ms_[s] : 0;
  if (over > bank_ms_[s] || p.time_bank_left_ms() != bank_ms_[s] - over)
    return fail(line, what() + ": the log says time_bank_left_ms " + num(p.time_bank_left_ms()) +
                          "; the seat's clock says " +
                          (over > bank_ms_[s] ? "the decision took longer than it had"
                                              : num(bank_ms_[s] - over)) +
                          " (bank " + num(bank_ms_[s]) + " ms before, move time " +
                          num(move_ms_[s]) + " ms, decision " + num(p.decision_time_us()) + " us)");
  bank_ms_[s] -= over;
  if (p.comment().size() > wire::kMaxCommentBytes)
    return fail(line, what() + ": the comment has " + num(p.comment().size()) +
                          " bytes; the referee keeps at most " + num(wire::kMaxCommentBytes));
  return true;
}

void Checker::keep_decision(const v1::LogPlay& p, int legal) {
  const uint32_t s = p.seat();
  out_.decisions[s].push_back(
      TimedDecision{decisions_in_hand_[s]++, legal, p.decision_time_us(), dealt_[s].bits()});
}

bool Checker::draw(int line, const v1::LogDraw& dr) {
  const Event* e = take(line, EventKind::kDraw, [&] {
    return "a draw of " + num(dr.tiles_size()) + " tile" + (dr.tiles_size() == 1 ? "" : "s") +
           " by seat " + num(dr.seat());
  });
  if (!e) return false;
  const auto what = [&] {
    return "draw by seat " + num(e->seat) + " (hand " + num(e->hand_index) + ")";
  };
  if (!check_hand_index(line, what, dr.hand_index(), e->hand_index)) return false;
  if (dr.seat() != static_cast<uint32_t>(e->seat))
    return fail(line, "draw: the log says seat " + num(dr.seat()) + " draws; the rules say seat " +
                          num(e->seat) + " draws");
  // The core's event has the tiles in drawing order.
  const std::span<const Tile> order = e->drawn_in_order();
  bool same = dr.tiles_size() == e->count;
  for (int i = 0; same && i < e->count; ++i) {
    Tile t;
    same = tile_of(dr.tiles(i), t) && t == order[static_cast<size_t>(i)];
  }
  if (!same) {
    std::string rules = "[";
    for (size_t i = 0; i < order.size(); ++i) {
      if (i) rules += ' ';
      rules += to_string(order[i]);
    }
    return fail(line, what() + ": the log says the tiles drawn were " + tiles_words(dr.tiles()) +
                          "; the rules say " + rules + "] (the next tiles of the boneyard, until " +
                          "one fits or none is left)");
  }
  table_.hands[e->seat] |= e->tiles;
  table_.boneyard_size -= e->count;
  return true;
}

bool Checker::pass(int line, const v1::LogPass& p) {
  const Event* e = take(line, EventKind::kPass, [&] { return "a pass by seat " + num(p.seat()); });
  if (!e) return false;
  const auto what = [&] {
    return "pass by seat " + num(e->seat) + " (hand " + num(e->hand_index) + ")";
  };
  if (!check_hand_index(line, what, p.hand_index(), e->hand_index)) return false;
  if (p.seat() != static_cast<uint32_t>(e->seat))
    return fail(line, "pass: the log says seat " + num(p.seat()) + " passes; the rules say seat " +
                          num(e->seat) + " passes");
  return true;
}

}  // namespace allfives::referee::log_check
