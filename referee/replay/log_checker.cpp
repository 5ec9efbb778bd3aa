// The log checker (log_checker.h): the tiles of a log, each record to its kind, the header,
// the hands' starts and the log's end.
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
    d.add("rules_version", std::string("\"").append(printable(h.rules_version(), 40)) + "\"",
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

bool Checker::finish(int last_line) {
  if (phase_ == Phase::kEnded) return true;
  if (phase_ == Phase::kHeader) return fail(0, "the file is empty: a log starts with its header");
  error_.unfinished = true;
  return fail(last_line, "the log ends at line " + num(last_line) +
                             " before the match ended (no match_end record): the match did not "
                             "finish or the file was cut; the rules expect " +
                             expected() + " next");
}

}  // namespace allfives::referee::log_check
