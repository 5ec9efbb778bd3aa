#include "replay/replay.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "allfives/wire/convert.h"
#include "log/log_reader.h"
#include "log/match_log.h"
#include "match/match_result.h"
#include "replay/log_words.h"

namespace allfives::referee {

std::string LogError::describe() const {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
  return file + ": " + message;
}

namespace {

using namespace log_words;

// A log tile as a core tile: halves 0..6, the high half first.
bool tile_of(const v1::Tile& m, Tile& out) {
  if (m.high() > kMaxPips || m.low() > m.high()) return false;
  out = Tile::of(static_cast<int>(m.high()), static_cast<int>(m.low()));
  return true;
}

// A log list of tiles as a set; false if a tile is malformed or listed twice.
bool set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet& out) {
  TileSet s;
  if (ts.size() > kNumTiles) return false;
  for (const v1::Tile& m : ts) {
    Tile t;
    if (!tile_of(m, t) || s.contains(t)) return false;
    s.add(t);
  }
  out = s;
  return true;
}

bool same_tiles(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet expected) {
  TileSet s;
  return set_of(ts, s) && s == expected;
}

// ---------------------------------------------------------------------------------------------
// The check: the log's records against the core, one record at a time.

constexpr int kMaxHands = kMaxHandLimit;

class Checker {
 public:
  Checker(const std::string& file, Replay& out, LogError& error, const ReplayOptions& options)
      : file_(file),
        out_(out),
        error_(error),
        keep_steps_(options.keep_steps),
        keep_decisions_(options.keep_decisions),
        deals_from_seed_(options.deals_from_seed) {}

  // Checks one record; with keep_steps it is moved into a new step.
  bool record(int line, v1::LogRecord& r);
  bool finish(int last_line);

 private:
  enum class Phase { kHeader, kPlaying, kFaulted, kEnded };

  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = printable(message, 600);
    return false;
  }
  bool header(int line, const v1::LogHeader& h);
  bool hand_start(int line, const v1::LogHandStart& h);
  // Without deals_from_seed: the state restarted from the hand's logged deal, and the hand's
  // start as the core would report it for that deal (in logged_start_).
  bool take_logged_deal(int line, const v1::LogHandStart& h, const Event& rules);
  bool play(int line, const v1::LogPlay& p);
  // The decision fields of a play (log_version 2 on): the options against the rules core's
  // legal plays and points on `before`, the bank against the seat's clock, the comment's cap.
  bool decision(int line, const v1::LogPlay& p, const State& st);
  // The play as a timed decision of its seat (with keep_decisions).
  void keep_decision(const v1::LogPlay& p, int legal);
  bool draw(int line, const v1::LogDraw& d);
  bool pass(int line, const v1::LogPass& p);
  bool hand_end(int line, const v1::LogHandEnd& h);
  bool fault(int line, const v1::LogFault& f);
  bool match_end(int line, const v1::LogMatchEnd& m);
  bool bot_output(int line, const v1::LogBotOutput& b);

  // The next event the core reported that the log has not shown yet (match ends aside).
  const Event* peek() {
    while (next_ < pending_.size() && pending_[next_].kind == EventKind::kMatchEnd) ++next_;
    return next_ < pending_.size() ? &pending_[next_] : nullptr;
  }
  std::string expected() {
    if (const Event* e = peek()) return what(*e);
    if (state_->is_terminal()) return "the end of the match";
    return "a play by seat " + num(state_->seat_to_move());
  }
  // The next pending event, if it is of `kind`; else fails naming what the log has (words
  // built only then) and what the rules expect.
  template <class Words>
  const Event* take(int line, EventKind kind, const Words& log_words) {
    const Event* e = peek();
    if (!e || e->kind != kind) {
      fail(line, "the log has " + log_words() + " here; the rules expect " + expected());
      return nullptr;
    }
    ++next_;
    return e;
  }
  template <class Words>
  bool check_hand_index(int line, const Words& what, uint32_t log, int rules) {
    if (log == static_cast<uint32_t>(rules)) return true;
    return fail(line,
                what() + ": the log says hand " + num(log) + "; the rules say hand " + num(rules));
  }
  template <class Words>
  bool check_scores(int line, const Words& what,
                    const google::protobuf::RepeatedField<uint32_t>& log) {
    bool same = log.size() == sides_;
    for (int s = 0; same && s < sides_; ++s) same = log[s] == static_cast<uint32_t>(scores_[s]);
    if (same) return true;
    return fail(line, what() + ": the log says scores " + scores_words(log) +
                          "; the rules say scores " + scores_words(scores_, sides_));
  }

  const std::string& file_;
  Replay& out_;
  LogError& error_;
  const bool keep_steps_;
  const bool keep_decisions_;
  const bool deals_from_seed_;
  Event logged_start_{};

  Phase phase_ = Phase::kHeader;
  Config config_;
  int n_ = 0;
  int sides_ = 0;
  uint32_t log_version_ = 0;
  std::array<uint32_t, kMaxPlayers> move_ms_{}, bank_ms_{};  // per seat; bank_ms_ what is left
  uint64_t seed_ = 0;
  std::optional<State> state_;
  EventList pending_;
  int next_ = 0;
  std::array<int, kMaxPlayers> scores_{};
  ReplayTable table_;
  std::array<TileSet, kMaxPlayers> dealt_{};          // each seat's hand as dealt
  std::array<int, kMaxPlayers> decisions_in_hand_{};  // each seat's plays so far in the hand
  int hands_started_ = 0;
  Event last_hand_end_{};
  v1::LogRecord::KindCase last_kind_ = v1::LogRecord::KIND_NOT_SET;
  std::optional<v1::LogFault> fault_;
  int fault_line_ = 0;
  std::array<bool, kMaxPlayers> output_seen_{};
};

bool Checker::record(int line, v1::LogRecord& r) {
  const auto kind = r.kind_case();
  if (kind == v1::LogRecord::KIND_NOT_SET)
    return fail(line,
                "the record is empty: it is none of header, hand_start, play, draw, pass, "
                "hand_end, fault, match_end, bot_output");
  if (phase_ == Phase::kHeader) {
    if (kind != v1::LogRecord::kHeader)
      return fail(line, "the log starts with " + what(r) + "; a log starts with its header");
    if (!header(line, r.header())) return false;
    out_.header = std::move(*r.mutable_header());
    phase_ = Phase::kPlaying;
    last_kind_ = kind;
    return true;
  }
  if (kind == v1::LogRecord::kHeader)
    return fail(line, "a second header; the header is the first line only");
  if (phase_ == Phase::kEnded && kind != v1::LogRecord::kBotOutput)
    return fail(line, "the log has " + what(r) +
                          " after the end of the match; only bots' output may follow it");
  if (phase_ == Phase::kFaulted && kind != v1::LogRecord::kMatchEnd)
    return fail(line, "the log has " + what(r) + " after the fault of line " + num(fault_line_) +
                          "; the end of the match must follow a fault");
  bool ok = false;
  switch (kind) {
    case v1::LogRecord::kHandStart:
      ok = hand_start(line, r.hand_start());
      break;
    case v1::LogRecord::kPlay:
      ok = play(line, r.play());
      break;
    case v1::LogRecord::kDraw:
      ok = draw(line, r.draw());
      break;
    case v1::LogRecord::kPass:
      ok = pass(line, r.pass());
      break;
    case v1::LogRecord::kHandEnd:
      ok = hand_end(line, r.hand_end());
      break;
    case v1::LogRecord::kFault:
      ok = fault(line, r.fault());
      break;
    case v1::LogRecord::kMatchEnd:
      ok = match_end(line, r.match_end());
      break;
    case v1::LogRecord::kBotOutput:
      if (!bot_output(line, r.bot_output())) return false;
      out_.bot_output.push_back(std::move(*r.mutable_bot_output()));
      return true;
    default:
      break;
  }
  if (!ok) return false;
  last_kind_ = kind;
  if (!keep_steps_) return true;
  table_.seat_to_move = peek() || phase_ != Phase::kPlaying ? -1 : state_->seat_to_move();
  std::vector<int> scores(scores_.begin(), scores_.begin() + sides_);
  out_.steps.push_back(ReplayStep{line, std::move(r), *state_, std::move(scores), table_});
  return true;
}

bool Checker::header(int line, const v1::LogHeader& h) {
  Diff d;
  if (h.log_version() < wire::kOldestLogVersion || h.log_version() > wire::kLogVersion)
    d.add("log_version", num(h.log_version()),
          num(wire::kOldestLogVersion) + " to " + num(wire::kLogVersion));
  log_version_ = h.log_version();
  if (h.rules_version() != wire::kRulesVersion)
    d.add("rules_version", "\"" + printable(h.rules_version(), 40) + "\"",
          std::string("\"") + wire::kRulesVersion + "\"");
  if (!d.empty()) return fail(line, "header: " + d.text() + " (this verifier reads only these)");
  // The records do not depend on the bot protocol, so logs of every version so far are read.
  if (h.protocol_version() < 1 || h.protocol_version() > wire::kProtocolVersion)
    return fail(line, "header: protocol_version " + std::to_string(h.protocol_version()) +
                          ", expected 1 to " + std::to_string(wire::kProtocolVersion) +
                          " (this verifier reads only these)");
  if (!wire::from_proto(h.format(), config_.format, nullptr))
    return fail(line, "header: the log says format " + words(h.format()) +
                          "; the rules know FORMAT_TWO_PLAYERS, FORMAT_THREE_PLAYERS, "
                          "FORMAT_FOUR_PLAYERS and FORMAT_PARTNERSHIPS");
  n_ = num_players(config_.format);
  sides_ = num_sides(config_.format);
  d.num("num_players", h.num_players(), n_);
  d.num("num_sides", h.num_sides(), sides_);
  d.num("bots", h.bots_size(), n_);
  if (!d.empty()) return fail(line, "header of a " + words(h.format()) + " match: " + d.text());
  for (int s = 0; s < n_; ++s) {
    const v1::LogBot& b = h.bots(s);
    Diff db;
    db.num("seat", b.seat(), s);
    db.num("side", b.side(), side_of(config_.format, s));
    if (!db.empty()) return fail(line, "header, bot " + num(s) + ": " + db.text());
  }
  if (h.target_score() < 1 || h.target_score() > kMaxTarget)
    return fail(line, "header: the log says target_score " + num(h.target_score()) +
                          "; a target must be 1.." + num(kMaxTarget) +
                          " (docs/RULES.md: " + num(standard_target(config_.format)) + ")");
  if (h.max_hands() < 1 || h.max_hands() > kMaxHands)
    return fail(line, "header: the log says max_hands " + num(h.max_hands()) + "; it must be 1.." +
                          num(kMaxHands) + " (docs/RULES.md: " + num(kDefaultMaxHands) + ")");
  for (int s = 0; s < n_; ++s) {
    const v1::LogBot& b = h.bots(s);
    move_ms_[s] = b.move_time_ms() ? b.move_time_ms() : h.move_time_ms();
    bank_ms_[s] = b.time_bank_ms() ? b.time_bank_ms() : h.time_bank_ms();
  }
  config_.target = static_cast<int>(h.target_score());
  config_.max_hands = static_cast<int>(h.max_hands());
  seed_ = h.seed();
  out_.config = config_;
  state_ = State::new_match(config_, seed_, &pending_);
  next_ = 0;
  return true;
}

bool Checker::hand_start(int line, const v1::LogHandStart& h) {
  const Event* e = peek();
  if (!e || e->kind != EventKind::kHandStart)
    return fail(line, "the log has the start of hand " + num(h.hand_index()) +
                          " here; the rules expect " + expected());
  ++next_;
  if (!deals_from_seed_) {
    if (!take_logged_deal(line, h, *e)) return false;
    e = &logged_start_;
  }
  const auto what = [&] { return "hand " + num(e->hand_index) + " start"; };
  if (!check_hand_index(line, what, h.hand_index(), e->hand_index)) return false;
  // The deal.
  if (h.hands_size() != n_)
    return fail(line, what() + ": the log deals " + num(h.hands_size()) +
                          " hands; the rules deal " + num(n_) + ", one per seat");
  const std::string by_seed = " (seed " + std::to_string(seed_) + ")";
  for (int s = 0; s < n_; ++s) {
    const v1::SeatTiles& st = h.hands(s);
    if (st.seat() != static_cast<uint32_t>(s))
      return fail(line, what() + ": the log says hand " + num(s) + " is seat " + num(st.seat()) +
                            "'s; the rules list the hands in seat order");
    if (!same_tiles(st.tiles(), e->deal.hands[s]))
      return fail(line, what() + ", seat " + num(s) + "'s deal: the log says " +
                            tiles_words(st.tiles()) + "; the rules" + by_seed + " deal " +
                            to_string(e->deal.hands[s]));
  }
  bool same = h.boneyard_size() == e->deal.boneyard_size;
  for (int i = 0; same && i < e->deal.boneyard_size; ++i) {
    Tile t;
    same = tile_of(h.boneyard(i), t) && t == e->deal.boneyard[i];
  }
  if (!same) {
    std::string rules = "[";
    for (int i = 0; i < e->deal.boneyard_size; ++i) {
      if (i) rules += ' ';
      rules += to_string(e->deal.boneyard[i]);
    }
    return fail(line, what() + ", the boneyard in drawing order: the log says " +
                          tiles_words(h.boneyard()) + "; the rules" + by_seed + " say " + rules +
                          "]");
  }
  // Who opens, and with what.
  const auto rule = static_cast<OpenRule>(e->reason);
  Diff d;
  d.num("opener_seat", h.opener_seat(), e->seat);
  if (h.open_rule() != wire::to_proto(rule))
    d.add("open_rule", words(h.open_rule()), words(wire::to_proto(rule)));
  if (rule == OpenRule::kWinnerChooses) {
    if (h.has_open_with()) d.add("open_with", tile_words(h.open_with()), "none (any tile)");
  } else {
    Tile t;
    if (!h.has_open_with() || !tile_of(h.open_with(), t) || t != e->open_with)
      d.add("open_with", h.has_open_with() ? tile_words(h.open_with()) : "none",
            to_string(e->open_with));
  }
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (!check_scores(line, what, h.scores())) return false;

  ++hands_started_;
  ++out_.hands;
  if (keep_steps_) out_.hand_starts.push_back(static_cast<int>(out_.steps.size()));
  table_.hand_index = e->hand_index;
  table_.hands = e->deal.hands;
  dealt_ = e->deal.hands;
  decisions_in_hand_ = {};
  table_.line = Line{};
  table_.boneyard_size = e->deal.boneyard_size;
  return true;
}

bool Checker::take_logged_deal(int line, const v1::LogHandStart& h, const Event& rules) {
  const auto bad = [&](const std::string& why) {
    return fail(line, "hand " + num(rules.hand_index) + " start: the logged deal " + why);
  };
  if (h.hands_size() != n_) return bad("has " + num(h.hands_size()) + " hands, not " + num(n_));
  Position p;
  p.config = config_;
  p.hand_index = rules.hand_index;
  for (int s = 0; s < n_; ++s) {
    if (h.hands(s).seat() != static_cast<uint32_t>(s)) return bad("is not in seat order");
    for (const v1::Tile& t : h.hands(s).tiles()) {
      Tile tile;
      if (!tile_of(t, tile)) return bad("holds " + tile_words(t) + ", which is not a tile");
      p.hands[s].add(tile);
    }
    if (p.hands[s].size() != h.hands(s).tiles_size()) return bad("deals a tile twice");
    if (p.hands[s].size() != hand_size(config_.format))
      return bad("gives seat " + num(s) + " " + num(p.hands[s].size()) + " tiles, not " +
                 num(hand_size(config_.format)));
  }
  if (h.boneyard_size() > kNumTiles) return bad("has too long a boneyard");
  for (const v1::Tile& t : h.boneyard())
    if (!tile_of(t, p.boneyard[p.boneyard_size++]))
      return bad("has a boneyard tile that is not one");
  for (int side = 0; side < sides_; ++side) p.scores[side] = scores_[side];
  // The winner of the last hand opens whatever the deal; otherwise the deal names the opener.
  const auto rule = static_cast<OpenRule>(rules.reason);
  const Opener o = find_opener(config_.format, p.hands);
  p.open_rule = rule == OpenRule::kWinnerChooses ? rule : o.rule;
  p.seat_to_move = rule == OpenRule::kWinnerChooses ? rules.seat : o.seat;
  State restarted = *state_;
  std::string why;
  if (!State::from_position(p, seed_, restarted, &why)) return bad("is not a deal: " + why);
  state_ = restarted;
  logged_start_ = rules;
  logged_start_.seat = static_cast<int8_t>(p.seat_to_move);
  logged_start_.reason = static_cast<uint8_t>(p.open_rule);
  logged_start_.open_with = p.open_rule == OpenRule::kWinnerChooses ? Tile{} : o.tile;
  logged_start_.deal.hands = p.hands;
  logged_start_.deal.boneyard = p.boneyard;
  logged_start_.deal.boneyard_size = static_cast<uint8_t>(p.boneyard_size);
  return true;
}

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

bool Checker::finish(int last_line) {
  if (phase_ == Phase::kEnded) return true;
  if (phase_ == Phase::kHeader) return fail(0, "the file is empty: a log starts with its header");
  error_.unfinished = true;
  return fail(last_line, "the log ends at line " + num(last_line) +
                             " before the match ended (no match_end record): the match did not "
                             "finish or the file was cut; the rules expect " +
                             expected() + " next");
}

}  // namespace

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error) {
  return load_replay(text, file, out, error, ReplayOptions{});
}

namespace {

// The reading of a log line by line, shared by the in-memory and the streaming readers so both
// give the same verdict on the same bytes.
class LineFeed {
 public:
  LineFeed(const std::string& file, Replay& out, LogError& error, const ReplayOptions& options)
      : file_(file), error_(error), checker_(out.file, out, error, options) {}

  // One line without its '\n' (`terminated`: it had one). False on the first disagreement.
  bool line(std::string_view content, bool terminated) {
    if (!next()) return false;
    if (content.size() > kMaxLogLineBytes) return too_long(content.size());
    if (content.find_first_not_of(" \t\r") == std::string_view::npos)
      return fail(line_, "the line is empty; every line of a log is one record");
    if (!parse_log_line(content, record_, &parse_error_)) {
      std::string message = "not a log record: " + printable(parse_error_, 200);
      if (!terminated) {
        message = "the file ends in the middle of this line (it was cut short?); " + message;
        error_.unfinished = line_ > 1;  // the records before it may still be shown
      }
      return fail(line_, message);
    }
    return checker_.record(line_, record_);
  }
  // A line of `size` bytes, over the cap, that the streaming reader did not keep.
  bool long_line(size_t size) { return next() && too_long(size); }
  bool finish() { return checker_.finish(line_); }

 private:
  bool next() {
    if (line_ == kMaxLogLines)
      return fail(line_ + 1, "the log goes on past " + num(kMaxLogLines) +
                                 " lines; no match log is that long");
    ++line_;
    return true;
  }
  bool too_long(size_t size) {
    return fail(line_, "the line is " + num(static_cast<int64_t>(size)) +
                           " bytes long; a log line is at most " +
                           num(static_cast<int64_t>(kMaxLogLineBytes)) + " bytes");
  }
  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = std::move(message);
    return false;
  }

  const std::string& file_;
  LogError& error_;
  Checker checker_;
  int line_ = 0;
  std::string parse_error_;
  v1::LogRecord record_;
};

}  // namespace

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error,
                 const ReplayOptions& options) {
  out = Replay{};
  out.file = file;
  error = LogError{};
  LineFeed feed(file, out, error, options);
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const bool terminated = nl != std::string_view::npos;
    const size_t stop = terminated ? nl : text.size();
    if (!feed.line(text.substr(pos, stop - pos), terminated)) return false;
    pos = terminated ? nl + 1 : text.size();
  }
  return feed.finish();
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error) {
  return load_replay_file(path, out, error, ReplayOptions{});
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error,
                      const ReplayOptions& options) {
  out = Replay{};
  out.file = path;
  error = LogError{};
  auto fail = [&](std::string message) {
    out = Replay{};
    out.file = path;
    error = LogError{path, 0, std::move(message)};
    return false;
  };
  std::string why;
  const int fd = open_regular_file(path, O_RDONLY, &why);  // a FIFO is refused, never waited on
  if (fd < 0) return fail(why.substr(why.find(": ") + 2));
  // Read as a stream, a line at a time: memory stays within one line whatever the file's size.
  LineFeed feed(path, out, error, options);
  std::string line;
  size_t line_size = 0;  // the current line's length, also when it is too long to keep
  uint64_t total = 0;
  bool judged = false;  // the feed gave its verdict (an error) before the file's end
  const int err = read_chunks(fd, [&](std::string_view chunk) {
    total += chunk.size();
    if (total > kMaxLogFileBytes) return false;
    for (size_t pos = 0; pos < chunk.size();) {
      const size_t nl = chunk.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? chunk.size() : nl;
      line_size += end - pos;
      // A line over the cap is not kept: only its length matters for the verdict.
      if (line_size <= kMaxLogLineBytes) line.append(chunk.substr(pos, end - pos));
      if (nl == std::string_view::npos) break;
      pos = end + 1;
      judged = line_size > kMaxLogLineBytes ? !feed.long_line(line_size) : !feed.line(line, true);
      if (judged) return false;
      line.clear();
      line_size = 0;
    }
    return true;
  });
  ::close(fd);
  if (err != 0) return fail(std::string("cannot read: ") + std::strerror(err));
  if (total > kMaxLogFileBytes)
    return fail("the file is larger than " + std::to_string(kMaxLogFileBytes) +
                " bytes; a log is at most that");
  if (judged) return false;
  if (line_size > kMaxLogLineBytes) return feed.long_line(line_size);
  if (line_size > 0 && !feed.line(line, false)) return false;
  return feed.finish();
}

}  // namespace allfives::referee
