// The log checker (log_checker.h): the hands' ends, faults, the match's end and the bots'
// output after it.
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

bool Checker::hand_end(int line, const v1::LogHandEnd& h) {
  const Event* e =
      take(line, EventKind::kHandEnd, [&] { return "the end of hand " + num(h.hand_index()); });
  if (!e) return false;
  const auto what = [&] { return "end of hand " + num(e->hand_index); };
  if (!check_hand_index(line, what, h.hand_index(), e->hand_index)) return false;
  const auto kind = static_cast<HandEndKind>(e->reason);
  Diff d;
  if (h.kind() != wire::to_proto(kind)) d.add("kind", words(h.kind()), words(wire::to_proto(kind)));
  d.num("domino_seat", h.domino_seat(), kind == HandEndKind::kDomino ? e->seat : -1);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (h.hands_size() != n_)
    return fail(line, what() + ": the log reveals " + num(h.hands_size()) +
                          " hands; the rules reveal " + num(n_) + ", one per seat");
  for (int s = 0; s < n_; ++s) {
    const v1::SeatTiles& st = h.hands(s);
    if (st.seat() != static_cast<uint32_t>(s))
      return fail(line, what() + ": the log says revealed hand " + num(s) + " is seat " +
                            num(st.seat()) + "'s; the rules list the hands in seat order");
    if (!same_tiles(st.tiles(), e->hands[s]))
      return fail(line, what() + ", seat " + num(s) + "'s tiles left: the log says " +
                            tiles_words(st.tiles()) + "; the rules say " + to_string(e->hands[s]));
  }
  std::array<int, kMaxPlayers> side_pips{};
  for (int s = 0; s < n_; ++s) side_pips[side_of(config_.format, s)] += e->values[s];
  bool same = h.seat_pips_size() == n_;
  for (int s = 0; same && s < n_; ++s) same = h.seat_pips(s) == static_cast<uint32_t>(e->values[s]);
  if (!same) d.add("seat_pips", scores_words(h.seat_pips()), scores_words(e->values, n_));
  same = h.side_pips_size() == sides_;
  for (int s = 0; same && s < sides_; ++s)
    same = h.side_pips(s) == static_cast<uint32_t>(side_pips[s]);
  if (!same) d.add("side_pips", scores_words(h.side_pips()), scores_words(side_pips, sides_));
  d.num("winner_side", h.winner_side(), e->side);
  d.num("points", h.points(), e->points);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (e->side >= 0) scores_[e->side] += e->points;
  if (!check_scores(line, what, h.scores())) return false;
  last_hand_end_ = *e;
  return true;
}

bool Checker::fault(int line, const v1::LogFault& f) {
  // A fault comes where the referee stops asking: at a decision, before the first deal, or
  // while it tells the bots about a hand's start or end (then the rest of that step is cut).
  const bool at_decision = !peek();
  const bool cut = last_kind_ == v1::LogRecord::kHandStart ||
                   last_kind_ == v1::LogRecord::kHandEnd || hands_started_ == 0;
  if (!at_decision && !cut)
    return fail(line, "the log has a fault of seat " + num(f.seat()) + " here; the rules expect " +
                          expected() + " first");
  if (f.seat() >= static_cast<uint32_t>(n_))
    return fail(line,
                "fault: the log says seat " + num(f.seat()) + "; the seats are 0.." + num(n_ - 1));
  Diff d;
  d.num("side", f.side(), side_of(config_.format, static_cast<int>(f.seat())));
  if (f.kind() == v1::FAULT_KIND_UNSPECIFIED || !v1::FaultKind_IsValid(f.kind()))
    d.add("kind", words(f.kind()), "one of the fault kinds of common.proto");
  d.num("hand_index", f.hand_index(), std::max(0, hands_started_ - 1));
  if (f.reason().empty()) d.add("reason", "nothing", "what the bot did");
  if (!d.empty()) return fail(line, "fault of seat " + num(f.seat()) + ": " + d.text());
  if (log_version_ < 3 && f.has_output())
    return fail(line, "fault of seat " + num(f.seat()) +
                          ": the log has the output of its decision, which a log_version " +
                          num(log_version_) + " log does not have");
  fault_ = f;
  fault_line_ = line;
  phase_ = Phase::kFaulted;
  return true;
}

bool Checker::match_end(int line, const v1::LogMatchEnd& m) {
  const State& st = *state_;
  const auto what = [] { return std::string("end of the match"); };
  const auto reason = m.reason();
  // Why it ended.
  const bool board_end =
      reason == v1::MATCH_END_REASON_TARGET || reason == v1::MATCH_END_REASON_HAND_LIMIT;
  if (board_end || reason == v1::MATCH_END_REASON_ABORTED) {
    if (fault_)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say MATCH_END_REASON_FAULT (line " + num(fault_line_) +
                            " records a fault)");
    if (peek() && !(reason == v1::MATCH_END_REASON_ABORTED && hands_started_ == 0))
      return fail(line, "the log has the end of the match here; the rules expect " + expected());
  }
  if (board_end) {
    if (!st.is_terminal())
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say the match goes on (scores " +
                            scores_words(scores_, sides_) + ", target " + num(config_.target) +
                            ", hand " + num(st.hand_index() + 1) + " of " + num(config_.max_hands) +
                            "), seat " + num(st.seat_to_move()) + " is to play");
    const auto rules = wire::to_proto(st.outcome().reason);
    if (reason != rules)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say reason " + words(rules));
  } else if (reason == v1::MATCH_END_REASON_ABORTED) {
    if (st.is_terminal() && !peek())
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say the match was over: reason " +
                            words(wire::to_proto(st.outcome().reason)));
  } else if (reason == v1::MATCH_END_REASON_FAULT) {
    if (!fault_)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say there was no fault (no fault record)");
  } else {
    return fail(line, what() + ": the log says reason " + words(reason) +
                          "; the rules know TARGET, HAND_LIMIT, FAULT and ABORTED");
  }
  if (!check_scores(line, what, m.scores())) return false;

  // The result.
  Diff d;
  const int faulting_side = fault_ ? side_of(config_.format, static_cast<int>(fault_->seat())) : -1;
  if (reason == v1::MATCH_END_REASON_ABORTED) {
    if (m.placements_size() != 0) d.add("placements", scores_words(m.placements()), "none");
    d.num("winner_side", m.winner_side(), -1);
  } else {
    std::array<int, kMaxPlayers> place{};
    placements(std::span(scores_.data(), static_cast<size_t>(sides_)), faulting_side, place);
    bool same = m.placements_size() == sides_;
    for (int s = 0; same && s < sides_; ++s)
      same = m.placements(s) == static_cast<uint32_t>(place[s]);
    if (!same) d.add("placements", scores_words(m.placements()), scores_words(place, sides_));
    int firsts = 0, winner = -1;
    for (int s = 0; s < sides_; ++s)
      if (place[s] == 1) {
        ++firsts;
        winner = s;
      }
    if (firsts != 1) winner = -1;
    if (board_end) winner = st.outcome().winner_side;  // the same, by the core's own account
    d.num("winner_side", m.winner_side(), winner);
  }
  d.num("hands_played", m.hands_played(), hands_started_);
  d.num("fault_seat", m.fault_seat(), fault_ ? static_cast<int64_t>(fault_->seat()) : -1);
  const v1::FaultKind fk = fault_ ? fault_->kind() : v1::FAULT_KIND_UNSPECIFIED;
  if (m.fault_kind() != fk) d.add("fault_kind", words(m.fault_kind()), words(fk));
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  out_.match_end = m;
  out_.finished = true;
  phase_ = Phase::kEnded;
  return true;
}

bool Checker::bot_output(int line, const v1::LogBotOutput& b) {
  if (phase_ != Phase::kEnded)
    return fail(line, "the log has a bot's output here; the rules expect " + expected() +
                          " (bots' output comes after the end of the match)");
  if (b.seat() >= static_cast<uint32_t>(n_))
    return fail(line, "bot output: the log says seat " + num(b.seat()) + "; the seats are 0.." +
                          num(n_ - 1));
  if (output_seen_[b.seat()])
    return fail(line, "bot output: the log gives seat " + num(b.seat()) +
                          "'s output twice; the referee writes it once");
  output_seen_[b.seat()] = true;
  return true;
}

}  // namespace allfives::referee::log_check
