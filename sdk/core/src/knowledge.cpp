#include "allfives/core/knowledge.h"

namespace allfives {

namespace {

// Both open ends' suits: what a seat that draws or passes cannot hold.
TileSet end_suits(const Line& line) {
  if (line.empty()) return TileSet{};
  return TileSet::suit(line.end(End::kLeft).value) | TileSet::suit(line.end(End::kRight).value);
}

}  // namespace

TileSet not_dealt_to_anyone(OpenRule rule, Tile open_with) {
  TileSet out;
  if (rule == OpenRule::kWinnerChooses) return out;
  for (int i = 0; i < kNumTiles; ++i) {
    const Tile t = Tile::from_index(i);
    if (rule == OpenRule::kHighestDouble) {
      if (t.is_double() && t.pips() > open_with.pips()) out.add(t);
    } else {  // kHeaviestTile: nobody held a double, nor a heavier tile (find_opener's order)
      const bool heavier =
          t.pips() > open_with.pips() || (t.pips() == open_with.pips() && t.hi() > open_with.hi());
      if (t.is_double() || heavier) out.add(t);
    }
  }
  return out;
}

Knowledge::Knowledge(Format format, int seat) : format_(format), seat_(static_cast<int8_t>(seat)) {}

void Knowledge::start_hand(int hand_index, OpenRule rule, Tile open_with) {
  hand_ = static_cast<int16_t>(hand_index);
  line_ = Line{};
  groups_ = {};
  num_groups_ = {};
  pending_ = {};
  pending_suits_ = {};
  last_draw_.fill(-1);
  const TileSet forbidden = not_dealt_to_anyone(rule, open_with);
  for (int s = 0; s < num_players(format_); ++s)
    if (s != seat_) add_group(s, hand_size(format_), forbidden);
}

void Knowledge::observe(const Event& e) {
  if (e.kind == EventKind::kHandStart) {
    return start_hand(e.hand_index, static_cast<OpenRule>(e.reason), e.open_with);
  }
  const int s = e.seat;
  if (s < 0 || s >= num_players(format_)) return;
  switch (e.kind) {
    case EventKind::kPlay:
      if (s != seat_) {
        if (pending_[s]) {
          pending_[s] = false;  // the tile that ended a draw
        } else {
          remove_tile(s, e.play.tile);
        }
      }
      if (line_.empty() || line_.fits(e.play.tile, e.play.end))
        line_.place(e.play.tile, e.play.end, s);
      break;
    case EventKind::kDraw:
      if (e.count > 0) last_draw_[s] = static_cast<int8_t>(line_.size());
      if (s != seat_ && e.count > 0) {
        const TileSet suits = end_suits(line_);
        forbid_all(s, suits);
        if (e.count > 1) add_group(s, e.count - 1, suits);
        pending_[s] = true;
        pending_suits_[s] = suits;
      }
      break;
    case EventKind::kPass:
      if (s != seat_) {
        const TileSet suits = end_suits(line_);
        forbid_all(s, suits);
        if (pending_[s]) add_group(s, 1, suits);  // the last tile drawn did not fit either
        pending_[s] = false;
      }
      break;
    default:
      break;
  }
}

int Knowledge::tracked_size(int seat) const {
  int n = pending_[seat] ? 1 : 0;
  for (int i = 0; i < num_groups_[seat]; ++i) n += groups_[seat][i].count;
  return n;
}

TileSet Knowledge::forbidden_for_all(int seat) const {
  if (num_groups_[seat] == 0 && !pending_[seat]) return TileSet{};
  uint32_t all = TileSet::all().bits();
  for (int i = 0; i < num_groups_[seat]; ++i) all &= groups_[seat][i].forbidden.bits();
  if (pending_[seat]) all &= ~pending_suits_[seat].bits();  // it shows one of those suits
  return TileSet::from_bits(all);
}

void Knowledge::add_group(int seat, int count, TileSet forbidden) {
  int8_t& n = num_groups_[seat];
  if (n > 0 && groups_[seat][n - 1].forbidden == forbidden) {
    groups_[seat][n - 1].count += count;  // the same constraints: one group
    return;
  }
  if (n == kMaxGroups) {
    // Out of room (never in a real hand): merge into the newest group, keeping only what
    // both forbid, which is looser than the truth and keeps the sets nested.
    Group& g = groups_[seat][n - 1];
    g.count += count;
    g.forbidden = TileSet::from_bits(g.forbidden.bits() & forbidden.bits());
    return;
  }
  groups_[seat][n++] = Group{count, forbidden};
}

void Knowledge::forbid_all(int seat, TileSet tiles) {
  for (int i = 0; i < num_groups_[seat]; ++i) groups_[seat][i].forbidden |= tiles;
}

void Knowledge::remove_tile(int seat, Tile tile) {
  int8_t& n = num_groups_[seat];
  if (n == 0) return;
  int from = -1;
  for (int i = 0; i < n && from < 0; ++i)
    if (groups_[seat][i].count > 0 && !groups_[seat][i].forbidden.contains(tile)) from = i;
  if (from < 0) {
    // The seat played a tile we thought it could not hold: events were missed somewhere, so
    // forget what we believed of its hand rather than sample from a wrong belief.
    for (int i = 0; i < n; ++i) groups_[seat][i].forbidden = TileSet{};
    from = n - 1;
  }
  if (--groups_[seat][from].count == 0) {
    for (int i = from; i + 1 < n; ++i) groups_[seat][i] = groups_[seat][i + 1];
    --n;
  }
}

}  // namespace allfives
