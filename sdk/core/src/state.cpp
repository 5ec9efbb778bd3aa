#include "allfives/core/state.h"

#include <algorithm>
#include <limits>

namespace allfives {

bool PlayList::contains(Play p) const {
  return std::find(begin(), end(), p) != end();
}

std::string_view describe(PlayError e) {
  switch (e) {
    case PlayError::kNone:
      return "legal";
    case PlayError::kMatchOver:
      return "the match is over: nobody is to play";
    case PlayError::kNotInHand:
      return "the seat to move does not hold that tile";
    case PlayError::kMustOpenWith:
      return "this hand must open with another tile";
    case PlayError::kDoesNotFit:
      return "the tile does not match the value of that end";
  }
  return "unknown play error";
}

Opener find_opener(Format format, const std::array<TileSet, kMaxPlayers>& hands) {
  const int n = num_players(format);
  for (int v = kMaxPips; v >= 0; --v) {
    const Tile d = Tile::of(v, v);
    for (int s = 0; s < n; ++s)
      if (hands[s].contains(d)) return Opener{s, d, OpenRule::kHighestDouble};
  }
  // No double anywhere: the most pips, and between equal pips the higher half (6-4 > 5-5
  // cannot arise here since there are no doubles, but 6-3 > 5-4 can).
  Opener best{-1, Tile{}, OpenRule::kHeaviestTile};
  for (int s = 0; s < n; ++s)
    for (Tile t : hands[s])
      if (best.seat < 0 || t.pips() > best.tile.pips() ||
          (t.pips() == best.tile.pips() && t.hi() > best.tile.hi()))
        best = Opener{s, t, OpenRule::kHeaviestTile};
  return best;
}

int domino_points(Format format, int seat_out, const std::array<TileSet, kMaxPlayers>& hands) {
  const int side = side_of(format, seat_out);
  int points = 0;
  for (int s = 0; s < num_players(format); ++s)
    if (side_of(format, s) != side) points += round5(hands[s].pips());
  return points;
}

BlockResult block_result(Format format, const std::array<TileSet, kMaxPlayers>& hands) {
  BlockResult r;
  const int sides = num_sides(format);
  for (int s = 0; s < num_players(format); ++s) r.side_pips[side_of(format, s)] += hands[s].pips();
  int fewest = 0;
  bool tie = false;
  for (int side = 1; side < sides; ++side) {
    if (r.side_pips[side] < r.side_pips[fewest]) {
      fewest = side;
      tie = false;
    } else if (r.side_pips[side] == r.side_pips[fewest]) {
      tie = true;
    }
  }
  if (tie) return r;
  r.winner_side = fewest;
  for (int side = 0; side < sides; ++side)
    if (side != fewest) r.points += round5(r.side_pips[side]);
  r.points -= round5(r.side_pips[fewest]);
  return r;
}

State State::new_match(const Config& config, uint64_t seed, EventList* events) {
  State s;
  s.config_ = config;
  s.seed_ = seed;
  s.hand_ = 0;
  s.start_hand(OpenRule::kHighestDouble, -1, events);
  return s;
}

TileSet State::boneyard() const {
  TileSet s;
  for (int i = bone_next_; i < bone_size_; ++i) s.add(boneyard_[i]);
  return s;
}

bool State::can_play(int seat) const {
  const TileSet ends =
      TileSet::suit(line_.end(End::kLeft).value) | TileSet::suit(line_.end(End::kRight).value);
  return !(hands_[seat] & ends).empty();
}

PlayList State::legal_plays() const {
  PlayList out;
  if (over_) return out;
  const TileSet hand = hands_[seat_];
  if (line_.empty()) {
    if (open_rule_ != OpenRule::kWinnerChooses) {
      out.push(Play{open_with_, End::kLeft});
    } else {
      for (Tile t : hand) out.push(Play{t, End::kLeft});
    }
    return out;
  }
  const int left = line_.end(End::kLeft).value, right = line_.end(End::kRight).value;
  for (Tile t : hand&(TileSet::suit(left) | TileSet::suit(right))) {
    if (t.has(left)) out.push(Play{t, End::kLeft});
    if (t.has(right)) out.push(Play{t, End::kRight});
  }
  return out;
}

PlayError State::check(Play p) const {
  if (over_) return PlayError::kMatchOver;
  if (p.tile.index() < 0 || p.tile.index() >= kNumTiles || !hands_[seat_].contains(p.tile))
    return PlayError::kNotInHand;
  if (line_.empty()) {
    if (open_rule_ != OpenRule::kWinnerChooses && p.tile != open_with_)
      return PlayError::kMustOpenWith;
    return PlayError::kNone;
  }
  if (p.end != End::kLeft && p.end != End::kRight) return PlayError::kDoesNotFit;
  if (!line_.fits(p.tile, p.end)) return PlayError::kDoesNotFit;
  return PlayError::kNone;
}

PlayError State::apply(Play p, EventList* ev) {
  if (const PlayError e = check(p); e != PlayError::kNone) return e;
  const int seat = seat_;
  hands_[seat].remove(p.tile);
  line_.place(p.tile, p.end, seat);
  const int count = line_.count();
  const int points = points_for_count(count);
  const int side = side_of(config_.format, seat);
  if (ev) {
    Event& e = ev->push(EventKind::kPlay, hand_);
    e.seat = static_cast<int8_t>(seat);
    e.side = static_cast<int8_t>(side);
    e.play = Play{p.tile, line_[line_.size() - 1].end};
    e.count = static_cast<int16_t>(count);
    e.points = static_cast<int16_t>(points);
    e.ends = {line_.end(End::kLeft), line_.end(End::kRight)};
  }
  // The play's own count scores first, and may end the match on the spot.
  if (add_points(side, points, ev)) return PlayError::kNone;
  if (hands_[seat].empty()) {
    end_by_domino(seat, ev);
  } else {
    advance(seat, ev);
  }
  return PlayError::kNone;
}

bool State::add_points(int side, int points, EventList* ev) {
  scores_[side] = static_cast<int16_t>(scores_[side] + points);
  if (scores_[side] < config_.target) return false;
  finish(MatchEndReason::kTarget, side, ev);
  return true;
}

void State::finish(MatchEndReason reason, int winner_side, EventList* ev) {
  over_ = true;
  outcome_ = Outcome{reason, winner_side};
  if (ev) {
    Event& e = ev->push(EventKind::kMatchEnd, hand_);
    e.side = static_cast<int8_t>(winner_side);
    e.reason = static_cast<uint8_t>(reason);
    e.hands = hands_;
    for (int s = 0; s < num_sides(config_.format); ++s) e.values[s] = scores_[s];
  }
}

// Passes the turn on from `from_seat`: each seat that cannot play draws until it can or the
// boneyard is empty, and passes in the latter case; stops at the first seat with a play.
void State::advance(int from_seat, EventList* ev) {
  const int n = num_players(config_.format);
  const TileSet ends =
      TileSet::suit(line_.end(End::kLeft).value) | TileSet::suit(line_.end(End::kRight).value);
  auto playable = [&](int s) { return !(hands_[s] & ends).empty(); };
  if (bone_next_ == bone_size_) {
    bool anyone = false;
    for (int s = 0; s < n && !anyone; ++s) anyone = playable(s);
    if (!anyone) return end_by_block(ev);
  }
  for (int s = (from_seat + 1) % n;; s = (s + 1) % n) {
    if (playable(s)) {
      seat_ = static_cast<int8_t>(s);
      return;
    }
    TileSet drawn;
    bool found = false;
    const int first = bone_next_;
    while (bone_next_ < bone_size_ && !found) {
      const Tile t = boneyard_[bone_next_++];
      hands_[s].add(t);
      drawn.add(t);
      found = ends.contains(t);
    }
    if (ev && !drawn.empty()) {
      Event& e = ev->push(EventKind::kDraw, hand_);
      e.seat = static_cast<int8_t>(s);
      e.count = static_cast<int16_t>(drawn.size());
      e.tiles = drawn;
      for (int i = first; i < bone_next_; ++i)
        e.drawn[static_cast<size_t>(i - first)] = boneyard_[i];
    }
    if (found) {
      seat_ = static_cast<int8_t>(s);
      return;
    }
    if (ev) ev->push(EventKind::kPass, hand_).seat = static_cast<int8_t>(s);
    // This seat just emptied the boneyard: if nobody can play now, the hand is blocked.
    // (Had it been empty already, the check above or an earlier pass made it.)
    if (!drawn.empty()) {
      bool anyone = false;
      for (int o = 0; o < n && !anyone; ++o) anyone = playable(o);
      if (!anyone) return end_by_block(ev);
    }
  }
}

void State::end_by_domino(int seat, EventList* ev) {
  const int side = side_of(config_.format, seat);
  const int points = domino_points(config_.format, seat, hands_);
  if (ev) {
    Event& e = ev->push(EventKind::kHandEnd, hand_);
    e.seat = static_cast<int8_t>(seat);
    e.side = static_cast<int8_t>(side);
    e.points = static_cast<int16_t>(points);
    e.reason = static_cast<uint8_t>(HandEndKind::kDomino);
    e.hands = hands_;
    for (int s = 0; s < num_players(config_.format); ++s)
      e.values[s] = static_cast<int16_t>(hands_[s].pips());
  }
  if (add_points(side, points, ev)) return;
  after_hand(OpenRule::kWinnerChooses, seat, ev);
}

void State::end_by_block(EventList* ev) {
  const BlockResult r = block_result(config_.format, hands_);
  if (ev) {
    Event& e = ev->push(EventKind::kHandEnd, hand_);
    e.side = static_cast<int8_t>(r.winner_side);
    e.points = static_cast<int16_t>(r.points);
    e.reason = static_cast<uint8_t>(HandEndKind::kBlocked);
    e.hands = hands_;
    for (int s = 0; s < num_players(config_.format); ++s)
      e.values[s] = static_cast<int16_t>(hands_[s].pips());
  }
  if (r.winner_side >= 0 && add_points(r.winner_side, r.points, ev)) return;
  after_hand(OpenRule::kHighestDouble, -1, ev);
}

void State::after_hand(OpenRule rule, int opener, EventList* ev) {
  if (hand_ + 1 >= config_.max_hands) {
    // The safety valve: the highest score wins; an equal highest score is a draw.
    int best = 0;
    bool tie = false;
    for (int side = 1; side < num_sides(config_.format); ++side) {
      if (scores_[side] > scores_[best]) {
        best = side;
        tie = false;
      } else if (scores_[side] == scores_[best]) {
        tie = true;
      }
    }
    return finish(MatchEndReason::kHandLimit, tie ? -1 : best, ev);
  }
  ++hand_;
  start_hand(rule, opener, ev);
}

void State::start_hand(OpenRule rule, int opener, EventList* ev) {
  const Deal d = deal_hand(config_.format, seed_, hand_);
  hands_ = d.hands;
  boneyard_ = d.boneyard;
  bone_next_ = 0;
  bone_size_ = d.boneyard_size;
  line_ = Line{};
  if (rule == OpenRule::kWinnerChooses) {
    seat_ = static_cast<int8_t>(opener);
    open_rule_ = rule;
    open_with_ = Tile{};
  } else {
    const Opener o = find_opener(config_.format, hands_);
    seat_ = static_cast<int8_t>(o.seat);
    open_rule_ = o.rule;
    open_with_ = o.tile;
  }
  if (ev) {
    Event& e = ev->push(EventKind::kHandStart, hand_);
    e.seat = seat_;
    e.reason = static_cast<uint8_t>(open_rule_);
    e.open_with = open_with_;
    e.hands = hands_;
    e.deal = d;
  }
}

bool State::from_position(const Position& p, uint64_t seed, State& out, std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  const Config& c = p.config;
  if (static_cast<int>(c.format) > static_cast<int>(Format::kPartnerships))
    return fail("unknown format");
  if (c.target <= 0 || c.max_hands <= 0) return fail("target and max_hands must be positive");
  const int n = num_players(c.format);
  if (p.seat_to_move < 0 || p.seat_to_move >= n) return fail("seat_to_move out of range");
  if (p.hand_index < 0 || p.hand_index >= c.max_hands) return fail("hand_index out of range");
  if (p.boneyard_size < 0 || p.boneyard_size > kNumTiles || p.line_size < 0 ||
      p.line_size > kNumTiles)
    return fail("boneyard_size or line_size out of range");
  for (int side = 0; side < kMaxPlayers; ++side) {
    if (side >= num_sides(c.format) ? p.scores[side] != 0
                                    : p.scores[side] < 0 || p.scores[side] >= c.target)
      return fail("scores must be in [0, target) for each side, and 0 for unused sides");
  }
  TileSet seen;
  auto claim = [&](Tile t) {
    if (seen.contains(t)) return false;
    seen.add(t);
    return true;
  };
  for (int s = 0; s < kMaxPlayers; ++s) {
    if (s >= n && !p.hands[s].empty()) return fail("a hand is given for an empty seat");
    // Hands are dealt full and a player who plays their last tile ends the hand at once.
    if (s < n && p.hands[s].empty()) return fail("seat " + std::to_string(s) + " holds no tile");
    for (Tile t : p.hands[s])
      if (!claim(t)) return fail("tile " + to_string(t) + " appears twice");
  }
  for (int i = 0; i < p.boneyard_size; ++i) {
    if (p.boneyard[i].index() >= kNumTiles) return fail("a boneyard tile is out of range");
    if (!claim(p.boneyard[i])) return fail("tile " + to_string(p.boneyard[i]) + " appears twice");
  }
  State s;
  s.config_ = c;
  s.seed_ = seed;
  for (int i = 0; i < p.line_size; ++i) {
    const LinePlay& lp = p.line[i];
    if (lp.tile.index() >= kNumTiles) return fail("a line tile is out of range");
    if (!claim(lp.tile)) return fail("tile " + to_string(lp.tile) + " appears twice");
    if (lp.seat >= n) return fail("a line play names a seat out of range");
    if (i > 0 && lp.end != End::kLeft && lp.end != End::kRight)
      return fail("line play " + std::to_string(i) + " names no end");
    if (!s.line_.fits(lp.tile, lp.end))
      return fail("line play " + std::to_string(i) + " (" + to_string(lp.tile) + ") does not fit");
    s.line_.place(lp.tile, lp.end, lp.seat);
  }
  if (seen != TileSet::all()) return fail("the 28 tiles are not all accounted for");
  s.hands_ = p.hands;
  s.boneyard_ = p.boneyard;
  s.bone_next_ = 0;
  s.bone_size_ = static_cast<uint8_t>(p.boneyard_size);
  for (int side = 0; side < kMaxPlayers; ++side)
    s.scores_[side] = static_cast<int16_t>(p.scores[side]);
  s.hand_ = static_cast<int16_t>(p.hand_index);
  s.seat_ = static_cast<int8_t>(p.seat_to_move);
  s.open_rule_ = p.open_rule;
  if (s.line_.empty()) {
    if (p.hands[p.seat_to_move].empty()) return fail("the opener holds no tile");
    if (p.open_rule != OpenRule::kWinnerChooses) {
      const Opener o = find_opener(c.format, p.hands);
      if (o.seat != p.seat_to_move || o.rule != p.open_rule)
        return fail("the open rule names another opener than the hands do");
      s.open_with_ = o.tile;
    }
  } else if (!s.can_play(p.seat_to_move)) {
    return fail("the seat to move has no playable tile; a position starts at a decision");
  }
  out = s;
  return true;
}

View State::view(int seat) const {
  View v;
  v.config_ = config_;
  v.seat_ = static_cast<int8_t>(seat);
  v.to_move_ = static_cast<int8_t>(seat_to_move());
  v.hand_ = hand_;
  v.hand_tiles_ = hands_[seat];
  v.line_ = line_;
  v.scores_ = scores_;
  for (int s = 0; s < num_players(config_.format); ++s)
    v.hand_sizes_[s] = static_cast<int8_t>(hands_[s].size());
  v.boneyard_size_ = static_cast<int8_t>(boneyard_size());
  v.open_rule_ = open_rule_;
  if (seat == seat_to_move()) v.legal_ = legal_plays();
  return v;
}

std::optional<Knowledge> State::knowledge(int seat) const {
  const Format f = config_.format;
  // The hand's deal: what each seat holds or laid on the line, less what it drew, which is the
  // boneyard's front (the boneyard is drawn in order).
  TileSet drawn;
  for (int i = 0; i < bone_next_; ++i) drawn.add(boneyard_[i]);
  Position deal;
  deal.config = config_;
  // Scoring must not end the replay: a Position's scores need not include its line's points.
  deal.config.target = std::numeric_limits<int16_t>::max();
  deal.hand_index = hand_;
  deal.hands = hands_;
  for (int i = 0; i < line_.size(); ++i) deal.hands[line_[i].seat].add(line_[i].tile);
  for (int s = 0; s < num_players(f); ++s) {
    deal.hands[s] = deal.hands[s] - drawn;
    if (deal.hands[s].size() != hand_size(f)) return std::nullopt;
  }
  deal.boneyard = boneyard_;
  deal.boneyard_size = bone_size_;
  deal.seat_to_move = line_.empty() ? seat_ : line_[0].seat;
  deal.open_rule = open_rule_;
  State replay;
  if (!from_position(deal, seed_, replay, nullptr)) return std::nullopt;
  // The same events a bot is told, fed the way every seat's Knowledge is fed (seen_by).
  Knowledge k(f, seat);
  k.start_hand(hand_, open_rule_, replay.open_with_);
  EventList events;
  for (int i = 0; i < line_.size(); ++i) {
    const LinePlay& lp = line_[i];
    events.clear();
    if (replay.seat_to_move() != lp.seat ||
        replay.apply(Play{lp.tile, lp.end}, &events) != PlayError::kNone)
      return std::nullopt;
    for (const Event& e : events) {
      // Only the last play may end the hand (the state then holds a finished match).
      if (e.kind == EventKind::kHandEnd) {
        if (i + 1 != line_.size()) return std::nullopt;
        break;
      }
      k.observe(seen_by(e, seat));
    }
  }
  return k;
}

bool View::from_observation(const Observation& o, View& out, std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  const int n = allfives::num_players(o.config.format);
  if (o.seat < 0 || o.seat >= n) return fail("seat out of range");
  if (o.seat_to_move < -1 || o.seat_to_move >= n) return fail("seat_to_move out of range");
  if (o.line_size < 0 || o.line_size > kNumTiles) return fail("line too long");
  View v;
  v.config_ = o.config;
  v.seat_ = static_cast<int8_t>(o.seat);
  v.to_move_ = static_cast<int8_t>(o.seat_to_move);
  v.hand_ = static_cast<int16_t>(o.hand_index);
  v.hand_tiles_ = o.hand;
  TileSet seen = o.hand;
  for (int i = 0; i < o.line_size; ++i) {
    const LinePlay& lp = o.line[i];
    if (seen.contains(lp.tile)) return fail("tile " + to_string(lp.tile) + " appears twice");
    seen.add(lp.tile);
    if (lp.seat >= n) return fail("a line tile names a seat out of range");
    if (!v.line_.fits(lp.tile, lp.end))
      return fail("line tile " + std::to_string(i) + " (" + to_string(lp.tile) + ") does not fit");
    v.line_.place(lp.tile, lp.end, lp.seat);
  }
  int total = o.line_size + o.boneyard_size;
  for (int s = 0; s < kMaxPlayers; ++s) {
    if (s >= n && o.hand_sizes[s] != 0) return fail("a hand size is given for an empty seat");
    if (o.hand_sizes[s] < 0) return fail("negative hand size");
    total += o.hand_sizes[s];
    v.hand_sizes_[s] = static_cast<int8_t>(o.hand_sizes[s]);
  }
  if (o.hand_sizes[o.seat] != o.hand.size()) return fail("own hand size disagrees with the hand");
  if (total != kNumTiles) return fail("hands, line and boneyard do not add up to 28 tiles");
  for (int s = 0; s < kMaxPlayers; ++s) v.scores_[s] = static_cast<int16_t>(o.scores[s]);
  v.boneyard_size_ = static_cast<int8_t>(o.boneyard_size);
  v.open_rule_ = o.open_rule;
  v.legal_ = o.legal_plays;
  out = v;
  return true;
}

TileSet View::unseen() const {
  TileSet visible = hand_tiles_;
  for (int i = 0; i < line_.size(); ++i) visible.add(line_[i].tile);
  return TileSet::all() - visible;
}

}  // namespace allfives
