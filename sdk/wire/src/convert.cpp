#include "allfives/wire/convert.h"

namespace allfives::wire {
namespace {

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

}  // namespace

void fill(Tile t, v1::Tile* out) {
  out->set_high(static_cast<uint32_t>(t.hi()));
  out->set_low(static_cast<uint32_t>(t.lo()));
}

v1::Tile to_proto(Tile t) {
  v1::Tile m;
  fill(t, &m);
  return m;
}

v1::End to_proto(End e) {
  return e == End::kLeft ? v1::END_LEFT : v1::END_RIGHT;
}

void fill(Play p, v1::Play* out) {
  fill(p.tile, out->mutable_tile());
  out->set_end(to_proto(p.end));
}

v1::Play to_proto(Play p) {
  v1::Play m;
  fill(p, &m);
  return m;
}

v1::Format to_proto(Format f) {
  switch (f) {
    case Format::kTwoPlayers:
      return v1::FORMAT_TWO_PLAYERS;
    case Format::kThreePlayers:
      return v1::FORMAT_THREE_PLAYERS;
    case Format::kFourPlayers:
      return v1::FORMAT_FOUR_PLAYERS;
    case Format::kPartnerships:
      return v1::FORMAT_PARTNERSHIPS;
  }
  return v1::FORMAT_UNSPECIFIED;
}

v1::OpenRule to_proto(OpenRule r) {
  switch (r) {
    case OpenRule::kHighestDouble:
      return v1::OPEN_RULE_HIGHEST_DOUBLE;
    case OpenRule::kHeaviestTile:
      return v1::OPEN_RULE_HEAVIEST_TILE;
    case OpenRule::kWinnerChooses:
      return v1::OPEN_RULE_WINNER_CHOOSES;
  }
  return v1::OPEN_RULE_UNSPECIFIED;
}

v1::HandEndKind to_proto(HandEndKind k) {
  return k == HandEndKind::kDomino ? v1::HAND_END_KIND_DOMINO : v1::HAND_END_KIND_BLOCKED;
}

v1::MatchEndReason to_proto(MatchEndReason r) {
  return r == MatchEndReason::kTarget ? v1::MATCH_END_REASON_TARGET
                                      : v1::MATCH_END_REASON_HAND_LIMIT;
}

void fill(LineEnd e, v1::LineEnd* out) {
  out->set_value(e.value);
  out->set_is_double(e.is_double);
}

v1::LineEnd to_proto(LineEnd e) {
  v1::LineEnd m;
  fill(e, &m);
  return m;
}

void fill(const LinePlay& p, v1::LineTile* out) {
  fill(p.tile, out->mutable_tile());
  out->set_seat(p.seat);
  out->set_end(to_proto(p.end));
}

v1::LineTile to_proto(const LinePlay& p) {
  v1::LineTile m;
  fill(p, &m);
  return m;
}

void fill_play_event(const Event& e, v1::PlayEvent* out) {
  out->set_seat(static_cast<uint32_t>(e.seat));
  fill(e.play, out->mutable_play());
  out->set_count(static_cast<uint32_t>(e.count));
  out->set_points(static_cast<uint32_t>(e.points));
  out->set_side(static_cast<uint32_t>(e.side));
}

v1::Event seat_event(const Event& e, int viewer, Format format, std::span<const int> scores) {
  v1::Event m;
  fill_seat_event(e, viewer, format, scores, &m);
  return m;
}

void fill_seat_event(const Event& e, int viewer, Format format, std::span<const int> scores,
                     v1::Event* out) {
  v1::Event& m = *out;
  const int n = num_players(format);
  // Every tile comes from seen_by, the one statement of what a seat may see; only the counts
  // (hand sizes, the boneyard's size) are read from the whole event.
  const Event seen = seen_by(e, viewer);
  switch (e.kind) {
    case EventKind::kHandStart: {
      v1::HandStart* h = m.mutable_hand_start();
      h->set_hand_index(static_cast<uint32_t>(e.hand_index));
      add_tiles(seen.hands[viewer], h->mutable_your_tiles());
      h->set_opener_seat(static_cast<uint32_t>(e.seat));
      const auto rule = static_cast<OpenRule>(e.reason);
      h->set_open_rule(to_proto(rule));
      if (rule != OpenRule::kWinnerChooses) fill(e.open_with, h->mutable_open_with());
      for (int s = 0; s < n; ++s) h->add_hand_sizes(static_cast<uint32_t>(e.hands[s].size()));
      h->set_boneyard_size(static_cast<uint32_t>(e.deal.boneyard_size));
      for (int v : scores) h->add_scores(static_cast<uint32_t>(v));
      break;
    }
    case EventKind::kPlay:
      fill_play_event(seen, m.mutable_play());
      break;
    case EventKind::kDraw: {
      v1::DrawEvent* d = m.mutable_draw();
      d->set_seat(static_cast<uint32_t>(e.seat));
      d->set_count(static_cast<uint32_t>(e.count));
      if (seen.tiles.empty()) break;  // another seat's draw
      for (Tile t : seen.drawn_in_order()) fill(t, d->add_tiles());
      break;
    }
    case EventKind::kPass:
      m.mutable_pass()->set_seat(static_cast<uint32_t>(e.seat));
      break;
    case EventKind::kHandEnd: {
      v1::HandEnd* h = m.mutable_hand_end();
      const auto kind = static_cast<HandEndKind>(e.reason);
      h->set_hand_index(static_cast<uint32_t>(e.hand_index));
      h->set_kind(to_proto(kind));
      h->set_domino_seat(kind == HandEndKind::kDomino ? e.seat : -1);
      h->set_winner_side(e.side);
      h->set_points(static_cast<uint32_t>(e.points));
      for (int s = 0; s < n; ++s) {
        v1::RevealedHand* r = h->add_hands();
        r->set_seat(static_cast<uint32_t>(s));
        add_tiles(seen.hands[s], r->mutable_tiles());
        r->set_pips(static_cast<uint32_t>(e.values[s]));
      }
      for (int v : scores) h->add_scores(static_cast<uint32_t>(v));
      break;
    }
    case EventKind::kMatchEnd:
      break;
  }
}

void add_tiles(TileSet s, google::protobuf::RepeatedPtrField<v1::Tile>* out) {
  for (Tile t : s) fill(t, out->Add());
}

bool from_proto(const v1::Tile& m, Tile& out, std::string* error) {
  if (m.high() > kMaxPips || m.low() > kMaxPips)
    return fail(error, "tile halves must be 0..6, got " + std::to_string(m.high()) + "-" +
                           std::to_string(m.low()));
  out = Tile::of(static_cast<int>(m.high()), static_cast<int>(m.low()));
  return true;
}

bool from_proto(const google::protobuf::RepeatedPtrField<v1::Tile>& m, TileSet& out,
                std::string* error) {
  TileSet s;
  for (const v1::Tile& mt : m) {
    Tile t;
    if (!from_proto(mt, t, error)) return false;
    if (s.contains(t)) return fail(error, "tile " + to_string(t) + " listed twice");
    s.add(t);
  }
  out = s;
  return true;
}

bool from_proto(v1::Format m, Format& out, std::string* error) {
  switch (m) {
    case v1::FORMAT_TWO_PLAYERS:
      out = Format::kTwoPlayers;
      return true;
    case v1::FORMAT_THREE_PLAYERS:
      out = Format::kThreePlayers;
      return true;
    case v1::FORMAT_FOUR_PLAYERS:
      out = Format::kFourPlayers;
      return true;
    case v1::FORMAT_PARTNERSHIPS:
      out = Format::kPartnerships;
      return true;
    default:
      return fail(error, "unknown format " + std::to_string(static_cast<int>(m)));
  }
}

bool from_proto(v1::OpenRule m, OpenRule& out, std::string* error) {
  switch (m) {
    case v1::OPEN_RULE_HIGHEST_DOUBLE:
      out = OpenRule::kHighestDouble;
      return true;
    case v1::OPEN_RULE_HEAVIEST_TILE:
      out = OpenRule::kHeaviestTile;
      return true;
    case v1::OPEN_RULE_WINNER_CHOOSES:
      out = OpenRule::kWinnerChooses;
      return true;
    default:
      return fail(error, "unknown open rule " + std::to_string(static_cast<int>(m)));
  }
}

namespace {

// A tile and the end it goes on, as a Play and a LineTile both name them (`tile` null: none).
bool tile_and_end(const v1::Tile* tile, v1::End end, bool opening, Play& out, std::string* error) {
  if (!tile) return fail(error, "the play names no tile");
  Play p;
  if (!from_proto(*tile, p.tile, error)) return false;
  switch (end) {
    case v1::END_LEFT:
      p.end = End::kLeft;
      break;
    case v1::END_RIGHT:
      p.end = End::kRight;
      break;
    case v1::END_UNSPECIFIED:
      if (!opening) return fail(error, "the play names no end (END_LEFT or END_RIGHT)");
      p.end = End::kLeft;
      break;
    default:
      return fail(error, "unknown end " + std::to_string(static_cast<int>(end)));
  }
  out = p;
  return true;
}

}  // namespace

bool from_proto(const v1::Play& m, bool opening, Play& out, std::string* error) {
  return tile_and_end(m.has_tile() ? &m.tile() : nullptr, m.end(), opening, out, error);
}

bool from_proto(const v1::LineTile& m, LinePlay& out, std::string* error) {
  Play p;
  if (!tile_and_end(m.has_tile() ? &m.tile() : nullptr, m.end(), true, p, error)) return false;
  if (m.seat() >= kMaxPlayers) return fail(error, "line tile seat out of range");
  out = LinePlay{p.tile, static_cast<uint8_t>(m.seat()), p.end};
  return true;
}

void fill_turn_request(const View& view, v1::TurnRequest* out) {
  const int n = view.num_players();
  out->set_hand_index(static_cast<uint32_t>(view.hand_index()));
  add_tiles(view.hand(), out->mutable_your_tiles());
  const Line& line = view.line();
  for (int i = 0; i < line.size(); ++i) fill(line[i], out->add_line());
  if (!line.empty()) {
    fill(line.end(End::kLeft), out->mutable_left_end());
    fill(line.end(End::kRight), out->mutable_right_end());
  }
  out->set_end_count(static_cast<uint32_t>(line.count()));
  for (int s = 0; s < n; ++s) out->add_hand_sizes(static_cast<uint32_t>(view.hand_size(s)));
  out->set_boneyard_size(static_cast<uint32_t>(view.boneyard_size()));
  for (int side = 0; side < num_sides(view.config().format); ++side)
    out->add_scores(static_cast<uint32_t>(view.score(side)));
  for (const Play& p : view.legal_plays()) fill(p, out->add_legal_plays());
  out->set_open_rule(to_proto(view.open_rule()));
}

bool view_from_turn_request(const v1::MatchStart& start, const v1::TurnRequest& m, View& out,
                            std::string* error) {
  Observation o;
  if (!from_proto(start.format(), o.config.format, error)) return false;
  o.config.target = static_cast<int>(start.target_score());
  o.config.max_hands = static_cast<int>(start.max_hands());
  const int n = num_players(o.config.format);
  if (start.seat() >= static_cast<uint32_t>(n)) return fail(error, "seat out of range");
  o.seat = static_cast<int>(start.seat());
  o.seat_to_move = o.seat;
  o.hand_index = static_cast<int>(m.hand_index());
  if (!from_proto(m.your_tiles(), o.hand, error)) return false;
  if (m.line_size() > kNumTiles) return fail(error, "line too long");
  for (int i = 0; i < m.line_size(); ++i)
    if (!from_proto(m.line(i), o.line[i], error)) return false;
  o.line_size = m.line_size();
  if (m.hand_sizes_size() != n) return fail(error, "hand_sizes must list every seat");
  for (int s = 0; s < n; ++s) o.hand_sizes[s] = static_cast<int>(m.hand_sizes(s));
  if (m.scores_size() != num_sides(o.config.format))
    return fail(error, "scores must list every side");
  for (int s = 0; s < m.scores_size(); ++s) o.scores[s] = static_cast<int>(m.scores(s));
  o.boneyard_size = static_cast<int>(m.boneyard_size());
  if (!from_proto(m.open_rule(), o.open_rule, error)) return false;
  if (m.legal_plays_size() == 0 || m.legal_plays_size() > PlayList::kCapacity)
    return fail(error,
                "legal_plays must hold 1.." + std::to_string(PlayList::kCapacity) + " plays");
  for (const v1::Play& mp : m.legal_plays()) {
    Play p;
    if (!from_proto(mp, m.line_size() == 0, p, error)) return false;
    o.legal_plays.push(p);
  }
  return View::from_observation(o, out, error);
}

}  // namespace allfives::wire
