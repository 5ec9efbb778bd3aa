#include "replay/frames.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "match/match_result.h"
#include "text/terminal_text.h"

namespace allfives::referee {
namespace {

std::string decision_text(uint32_t us) {
  char buf[32];
  if (us < 10000) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000.0);
  } else if (us < 1000000) {
    std::snprintf(buf, sizeof buf, "%.1f ms", us / 1000.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  }
  return buf;
}

// load_replay has checked every tile, so these conversions only guard against misuse.
Tile tile_of(const v1::Tile& t) {
  const int hi = static_cast<int>(std::min<uint32_t>(t.high(), kMaxPips));
  const int lo = static_cast<int>(std::min<uint32_t>(t.low(), kMaxPips));
  return Tile::of(hi, lo);
}

TileSet set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& tiles) {
  TileSet s;
  for (const auto& t : tiles) s.add(tile_of(t));
  return s;
}

// Tiles in the order given (drawing order).
std::string tiles_in_order(const google::protobuf::RepeatedPtrField<v1::Tile>& tiles) {
  std::string out;
  for (const auto& t : tiles) {
    if (!out.empty()) out += ' ';
    out += to_string(tile_of(t));
  }
  return out;
}

// A seat's label, marked as naming it.
MarkedText seat_words(const Replay& r, int seat) {
  MarkedText t;
  return t.add_seat(seat_label(r, seat), seat);
}

void add_points_text(MarkedText& text, int points) {
  if (points > 0)
    text.add_points("scores " + std::to_string(points));
  else
    text += "no score";
}

// Whether the core's state after a step is the table the records describe (it is not after
// a hand's last play, where the core has already dealt the next hand, nor once the match is
// over).
bool state_is_table(const State& s, int hand, const Line& line,
                    const std::array<TileSet, kMaxPlayers>& hands, int boneyard, int n) {
  if (s.is_terminal() || s.hand_index() != hand || !(s.line() == line) ||
      s.boneyard_size() != boneyard)
    return false;
  for (int seat = 0; seat < n; ++seat)
    if (s.hand(seat) != hands[static_cast<size_t>(seat)]) return false;
  return true;
}

void describe_hand_start(const Replay& r, const v1::LogHandStart& hs, int viewer, Frame& f) {
  const int opener = static_cast<int>(hs.opener_seat());
  const bool sees_tile = viewer < 0 || viewer == opener;
  const std::string tile = hs.has_open_with() ? to_string(tile_of(hs.open_with())) : "";
  f.text = "Hand " + std::to_string(hs.hand_index() + 1) + ": ";
  f.text.add_seat(seat_label(r, opener), opener) += " opens";
  switch (hs.open_rule()) {
    case v1::OPEN_RULE_HIGHEST_DOUBLE:
      f.text += " with the highest double" + (sees_tile ? " " + tile : std::string());
      break;
    case v1::OPEN_RULE_HEAVIEST_TILE:
      f.text += ", nobody holding a double, with the heaviest tile" +
                (sees_tile ? " " + tile : std::string());
      break;
    default:
      f.text += " with any tile (went out in the last hand)";
      break;
  }
  if (viewer < 0 && hs.boneyard_size() > 0)
    f.notes.push_back("boneyard in drawing order: " + tiles_in_order(hs.boneyard()));
}

void describe_hand_end(const Replay& r, const v1::LogHandEnd& he, Frame& f) {
  const Format format = r.config.format;
  const int n = num_players(format);
  f.text = "Hand " + std::to_string(he.hand_index() + 1);
  f.side = he.winner_side();
  f.points = static_cast<int>(he.points());
  auto pips = [&](int seat) {
    return seat < he.seat_pips_size() ? static_cast<int>(he.seat_pips(seat)) : 0;
  };
  auto holds = [&](int seat) {
    const TileSet t = f.hands[static_cast<size_t>(seat)];
    return seat_words(r, seat) += (t.empty() ? " holds nothing" : " holds " + tiles_text(t)) +
                                  ": " + plural(pips(seat), "pip", "pips");
  };
  if (he.kind() == v1::HAND_END_KIND_DOMINO) {
    const int out = he.domino_seat();
    f.text += " ends: ";
    f.text.add_seat(seat_label(r, out), out) += " went out (domino)";
    std::string sum;
    for (int seat = 0; seat < n; ++seat) {
      if (side_of(format, seat) == side_of(format, out)) continue;
      f.notes.push_back(holds(seat) += " → " + std::to_string(round5(pips(seat))));
      sum += (sum.empty() ? "" : " + ") + std::to_string(round5(pips(seat)));
    }
    f.notes.push_back(
        side_label(r, he.winner_side()) + " scores " + sum +
        (sum.find('+') != std::string::npos ? " = " + std::to_string(he.points()) : std::string()));
  } else {
    f.text += " is blocked: the boneyard is empty and nobody can play";
    for (int seat = 0; seat < n; ++seat) f.notes.push_back(holds(seat));
    const int sides = num_sides(format);
    if (format == Format::kPartnerships)
      for (int side = 0; side < sides && side < he.side_pips_size(); ++side)
        f.notes.push_back(side_label(r, side) + ": " +
                          plural(static_cast<int>(he.side_pips(side)), "pip", "pips"));
    if (he.winner_side() < 0) {
      f.notes.push_back("a tie for the fewest pips: nobody scores");
    } else {
      const int w = he.winner_side();
      std::string calc;
      for (int side = 0; side < sides && side < he.side_pips_size(); ++side)
        if (side != w)
          calc += (calc.empty() ? "" : " + ") +
                  std::to_string(round5(static_cast<int>(he.side_pips(side))));
      const int own = w < he.side_pips_size() ? round5(static_cast<int>(he.side_pips(w))) : 0;
      calc += " − " + std::to_string(own);
      f.notes.push_back(side_label(r, w) + " has the fewest pips and scores " + calc + " = " +
                        std::to_string(he.points()));
    }
  }
}

void describe_match_end(const Replay& r, const v1::LogMatchEnd& me, Frame& f) {
  switch (me.reason()) {
    case v1::MATCH_END_REASON_TARGET:
      f.text = "Match over: the target was reached";
      break;
    case v1::MATCH_END_REASON_HAND_LIMIT:
      f.text = "Match over: the hand limit was reached";
      break;
    case v1::MATCH_END_REASON_FAULT:
      f.text = "Match over: ended by a fault";
      break;
    default:
      f.text = "Match over: aborted, no result";
      break;
  }
  f.text += " after " + plural(static_cast<int>(me.hands_played()), "hand", "hands");
  std::vector<int> final_scores(me.scores().begin(), me.scores().end());
  f.notes.push_back("final scores: " + scores_text(r, final_scores));
  if (me.reason() != v1::MATCH_END_REASON_ABORTED)
    f.notes.push_back(me.winner_side() >= 0 ? "winner: " + side_label(r, me.winner_side())
                                            : std::string("a draw"));
  if (me.fault_seat() >= 0)
    f.notes.push_back(seat_words(r, me.fault_seat()) +=
                      " forfeited (" + describe(me.fault_kind()) + ")");
}

Decision decision_of(const Replay& r, const v1::LogPlay& p, int viewer) {
  Decision d;
  d.decision_us = p.decision_time_us();
  if (r.header.log_version() >= 2) d.bank_left_ms = static_cast<int>(p.time_bank_left_ms());
  d.shown = viewer < 0 || viewer == static_cast<int>(p.seat());
  if (!d.shown) return d;
  d.comment = p.comment();
  d.comment_dropped = p.comment_dropped_bytes();
  d.output = p.output().text();
  d.output_dropped = p.output().dropped_bytes();
  for (const v1::LogOption& o : p.options()) {
    DecisionOption opt;
    opt.offered = static_cast<int>(d.options.size());
    opt.play =
        Play{tile_of(o.play().tile()), o.play().end() == v1::END_RIGHT ? End::kRight : End::kLeft};
    opt.count = static_cast<int>(o.count());
    opt.points = static_cast<int>(o.points());
    opt.chosen = o.play().tile().high() == p.play().tile().high() &&
                 o.play().tile().low() == p.play().tile().low() && o.play().end() == p.play().end();
    d.best_points = std::max(d.best_points, opt.points);
    d.options.push_back(opt);
  }
  return d;
}

void describe_play(const Replay& r, const ReplayStep& step, int viewer, Frame& f) {
  const v1::LogPlay& p = step.record.play();
  const Line& line = step.table.line;
  const int seat = static_cast<int>(p.seat());
  const Tile t = tile_of(p.play().tile());
  const bool opening = line.size() == 1;
  const bool left = opening || p.play().end() != v1::END_RIGHT;
  f.seat = seat;
  f.placed = left ? 0 : line.size() - 1;
  f.count = static_cast<int>(p.count());
  f.points = static_cast<int>(p.points());
  f.side = static_cast<int>(p.side());
  f.text = seat_words(r, seat);
  f.text += (opening ? " opens with " + to_string(t)
                     : " plays " + to_string(t) + (left ? " on the left" : " on the right")) +
            ": count " + std::to_string(f.count) + ", ";
  add_points_text(f.text, f.points);
  if (seat >= 0 && seat < num_players(r.config.format) &&
      step.table.hands[static_cast<size_t>(seat)].empty())
    f.text += ", and has no tiles left";
  f.text += " (decided in " + decision_text(p.decision_time_us()) + ")";
  f.decision = decision_of(r, p, viewer);
}

void describe_draw(const Replay& r, const v1::LogDraw& d, int viewer, Frame& f) {
  f.seat = static_cast<int>(d.seat());
  f.text = seat_words(r, f.seat) += " draws " + plural(d.tiles_size(), "tile", "tiles");
  if (viewer < 0 || viewer == f.seat) f.text += ": " + tiles_in_order(d.tiles());
}

// The plays the faulting seat had at the decision it faulted on, with what each would have
// scored, as a play's record lists them (log_records.cpp: the order offered, count_after): a
// fault's record does not list them, so they come from the state the rules core stopped at.
// None where the core was not stopped at that seat's decision (a fault before the first deal,
// while the referee told the seats of a hand's end, or in another seat's turn).
std::vector<DecisionOption> options_at_fault(const Replay& r, const ReplayStep& step, int seat) {
  const State& s = step.state;
  const ReplayTable& table = step.table;
  std::vector<DecisionOption> out;
  if (s.seat_to_move() != seat ||
      static_cast<uint32_t>(s.hand_index()) != step.record.fault().hand_index() ||
      !state_is_table(s, table.hand_index, table.line, table.hands, table.boneyard_size,
                      num_players(r.config.format)))
    return out;
  for (const Play& p : s.legal_plays()) {
    DecisionOption o;
    o.offered = static_cast<int>(out.size());
    o.play = p;
    o.count = count_after(s.line(), p);
    o.points = points_for_count(o.count);
    out.push_back(o);
  }
  return out;
}

void describe_fault(const Replay& r, const ReplayStep& step, int viewer, Frame& f) {
  const v1::LogFault& fa = step.record.fault();
  f.seat = static_cast<int>(fa.seat());
  f.text = seat_words(r, f.seat) += " commits a fault (" + describe(fa.kind()) + ")";
  // The reason may name the faulting seat's tiles (an illegal play lists its hand).
  if (viewer < 0 || viewer == f.seat) {
    f.text += ": " + terminal_text(fa.reason(), true);  // it may quote what the bot printed
    f.decision.shown = true;
    f.decision.output = fa.output().text();
    f.decision.output_dropped = fa.output().dropped_bytes();
    f.decision.options = options_at_fault(r, step, f.seat);
    for (const DecisionOption& o : f.decision.options)
      f.decision.best_points = std::max(f.decision.best_points, o.points);
  }
}

// The frame's seat, words and decision, from the step's record.
void describe_record(const Replay& r, const ReplayStep& step, int viewer, Frame& f) {
  const v1::LogRecord& rec = step.record;
  switch (rec.kind_case()) {
    case v1::LogRecord::kHandStart:
      f.seat = static_cast<int>(rec.hand_start().opener_seat());
      describe_hand_start(r, rec.hand_start(), viewer, f);
      break;
    case v1::LogRecord::kPlay:
      describe_play(r, step, viewer, f);
      break;
    case v1::LogRecord::kDraw:
      describe_draw(r, rec.draw(), viewer, f);
      break;
    case v1::LogRecord::kPass:
      f.seat = static_cast<int>(rec.pass().seat());
      f.text = seat_words(r, f.seat) += " passes: no playable tile and the boneyard is empty";
      break;
    case v1::LogRecord::kHandEnd: {
      const auto& he = rec.hand_end();
      f.seat = he.domino_seat();
      for (const auto& st : he.hands())
        if (st.seat() < static_cast<uint32_t>(num_players(r.config.format)))
          f.hands[st.seat()] = set_of(st.tiles());
      describe_hand_end(r, he, f);
      break;
    }
    case v1::LogRecord::kFault:
      describe_fault(r, step, viewer, f);
      break;
    case v1::LogRecord::kMatchEnd:
      describe_match_end(r, rec.match_end(), f);
      break;
    default:
      break;
  }
}

// The hands, their sizes, the line and the boneyard as `viewer` sees them after the step.
void show_table(const Replay& r, const ReplayStep& step, int viewer, bool revealed, Frame& f) {
  const int n = num_players(r.config.format);
  const ReplayTable& table = step.table;
  for (int seat = 0; seat < n; ++seat) {
    const auto s = static_cast<size_t>(seat);
    f.hand_sizes[s] = table.hands[s].size();
    f.shown[s] = viewer < 0 || viewer == seat || revealed;
    f.hands[s] = f.shown[s] ? table.hands[s] : TileSet{};
  }
  // One seat's view comes from the rules core's View of the step's state, which carries
  // nothing that seat may not see. The core's state exists only where a seat must decide;
  // for a record in the middle of one of its steps (see ReplayTable) the table above,
  // filtered to what the seat sees, stands in.
  if (viewer < 0 || viewer >= n || revealed ||
      !state_is_table(step.state, table.hand_index, table.line, table.hands, table.boneyard_size,
                      n))
    return;
  const View v = step.state.view(viewer);
  f.line = v.line();
  f.boneyard = v.boneyard_size();
  f.hands[static_cast<size_t>(viewer)] = v.hand();
  for (int seat = 0; seat < n; ++seat) f.hand_sizes[static_cast<size_t>(seat)] = v.hand_size(seat);
}

}  // namespace

MarkedText& MarkedText::operator+=(std::string_view plain) {
  words += plain;
  return *this;
}

MarkedText& MarkedText::add_seat(const std::string& label, int seat) {
  marks.push_back({words.size(), label.size(), seat});
  words += label;
  return *this;
}

MarkedText& MarkedText::add_points(const std::string& run) {
  marks.push_back({words.size(), run.size(), -1});
  words += run;
  return *this;
}

std::string decision_time_text(uint32_t us) {
  return decision_text(us);
}

std::string option_text(const DecisionOption& o, bool opening) {
  return to_string(o.play.tile) + (opening ? "" : o.play.end == End::kRight ? " right" : " left");
}

bool DecisionFilter::keeps(const Frame& f) const {
  if (f.kind != v1::LogRecord::kPlay) return false;
  if (seat >= 0 && f.seat != seat) return false;
  if (marked_only && review_mark(f) == v1::REVIEW_MARK_NONE) return false;
  return !higher_only || (f.decision.shown && f.decision.higher_existed());
}

std::optional<ReviewFile> current_review(const std::string& log_path, std::string_view log_bytes) {
  ReviewFile review;
  if (!read_review_file(review_path_for(log_path), review, nullptr) ||
      !review_matches_log(review.header, log_bytes))
    return std::nullopt;
  return review;
}

void attach_review(std::vector<Frame>& frames, const ReviewFile& review) {
  size_t at = 0;  // both are in log order
  for (Frame& f : frames) {
    if (f.kind != v1::LogRecord::kPlay || !f.decision.shown) continue;
    while (at < review.decisions.size() &&
           review.decisions[at].log_line() < static_cast<uint32_t>(f.log_line))
      ++at;
    if (at == review.decisions.size()) return;
    const v1::ReviewDecision& d = review.decisions[at];
    if (d.log_line() == static_cast<uint32_t>(f.log_line) &&
        d.options_size() == static_cast<int>(f.decision.options.size()))
      f.decision.review = d;
  }
}

v1::ReviewMark review_mark(const Frame& f) {
  return f.decision.review ? f.decision.review->mark() : v1::REVIEW_MARK_NONE;
}

bool Decision::higher_existed() const {
  for (const DecisionOption& o : options)
    if (o.chosen) return best_points > o.points;
  return false;
}

std::vector<DecisionOption> Decision::ranked() const {
  std::vector<DecisionOption> out = options;
  std::stable_sort(out.begin(), out.end(), [](const DecisionOption& a, const DecisionOption& b) {
    return a.points > b.points;
  });
  return out;
}

std::string tiles_text(TileSet s) {
  std::string out;
  for (int i = kNumTiles - 1; i >= 0; --i) {
    if (!s.contains(Tile::from_index(i))) continue;
    if (!out.empty()) out += ' ';
    out += to_string(Tile::from_index(i));
  }
  return out;
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string scores_text(const Replay& r, const std::vector<int>& scores) {
  std::string out;
  for (size_t side = 0; side < scores.size(); ++side) {
    if (side) out += " · ";
    out += side_label(r, static_cast<int>(side)) + " " + std::to_string(scores[side]);
  }
  return out;
}

std::string format_label(Format format) {
  return std::string(format_name(format));
}

std::string seat_label(const Replay& r, int seat) {
  std::string name;
  if (seat >= 0 && seat < r.header.bots_size())
    name = terminal_text(r.header.bots(seat).display_name());  // a log can be forged
  return "seat " + std::to_string(seat) + (name.empty() ? "" : " (" + name + ")");
}

std::string side_label(const Replay& r, int side) {
  auto name = [&](int seat) {
    std::string n =
        seat < r.header.bots_size() ? terminal_text(r.header.bots(seat).display_name()) : "";
    return n.empty() ? "seat " + std::to_string(seat) : n;
  };
  const int partner = partner_of(r.config.format, side);
  if (partner < 0) return name(side);
  return "side " + std::to_string(side) + " (" + name(side) + " + " + name(partner) + ")";
}

std::vector<LaidTile> line_layout(const Line& line) {
  std::deque<LaidTile> d;
  int left = 0, right = 0;
  for (int i = 0; i < line.size(); ++i) {
    const LinePlay& p = line[i];
    if (i == 0) {
      d.push_back({p.tile.lo(), p.tile.hi()});
      left = p.tile.lo();
      right = p.tile.hi();
    } else if (p.end == End::kLeft) {
      const int o = p.tile.has(left) ? p.tile.other(left) : p.tile.lo();
      d.push_front({o, left});
      left = o;
    } else {
      const int o = p.tile.has(right) ? p.tile.other(right) : p.tile.hi();
      d.push_back({right, o});
      right = o;
    }
  }
  return {d.begin(), d.end()};
}

std::vector<Frame> build_frames(const Replay& r, int viewer) {
  std::vector<Frame> frames;
  frames.reserve(r.steps.size());
  bool revealed = false;  // between a hand's end and the next deal every hand is public
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const ReplayStep& step = r.steps[i];
    const ReplayTable& table = step.table;  // the table right after the record
    Frame f;
    f.step = static_cast<int>(i);
    f.log_line = step.line;
    f.kind = step.record.kind_case();
    f.scores = step.scores;
    f.hand = table.hand_index;
    f.line = table.line;
    f.boneyard = table.boneyard_size;
    if (f.kind == v1::LogRecord::kHandStart) revealed = false;
    if (f.kind == v1::LogRecord::kHandEnd) revealed = true;
    describe_record(r, step, viewer, f);
    f.play = static_cast<int>(std::max(0, f.line.size()));
    show_table(r, step, viewer, revealed, f);
    frames.push_back(std::move(f));
  }
  return frames;
}

int find_frame(const std::vector<Frame>& frames, int hand, int play, std::string* error) {
  int first = -1, last = -1, plays = 0;
  for (const Frame& f : frames) {
    if (f.hand != hand - 1 || f.kind == v1::LogRecord::kMatchEnd) continue;
    if (first < 0) first = f.step;
    last = f.step;
    if (f.kind == v1::LogRecord::kPlay) plays = f.play;
    if (play == 0 && f.kind == v1::LogRecord::kHandStart) return f.step;
    if (play > 0 && f.kind == v1::LogRecord::kPlay && f.play == play) return f.step;
  }
  if (error) {
    int hands = 0;
    for (const Frame& f : frames) hands = std::max(hands, f.hand + 1);
    if (first < 0)
      *error = "the match has " + plural(hands, "hand", "hands") + ", numbered from 1; no hand " +
               std::to_string(hand);
    else
      *error = "hand " + std::to_string(hand) + " has " + plural(plays, "play", "plays") +
               "; --play must be 0 (its start) to " + std::to_string(plays);
  }
  (void)last;
  return -1;
}

}  // namespace allfives::referee
