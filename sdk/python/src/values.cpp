#include "values.h"

#include <string>

namespace allfives::python {

namespace {

// The protocol's name of each core enum value (common.proto, without the enum's prefix): the
// only place the two are matched, by name, never by number.
constexpr const char* kFormatNames[] = {"TWO_PLAYERS", "THREE_PLAYERS", "FOUR_PLAYERS",
                                        "PARTNERSHIPS"};
constexpr const char* kOpenRuleNames[] = {"HIGHEST_DOUBLE", "HEAVIEST_TILE", "WINNER_CHOOSES"};
constexpr const char* kHandEndNames[] = {"DOMINO", "BLOCKED"};
constexpr const char* kMatchEndNames[] = {"TARGET", "HAND_LIMIT"};

py::object member(py::object enum_cls, const char* name) {
  return enum_cls.attr("__getitem__")(name);
}

long as_long(py::handle h, const char* what) {
  if (!PyLong_Check(h.ptr())) throw py::type_error(std::string(what) + " must be an int");
  return h.cast<long>();
}

}  // namespace

Values& Values::get() {
  static Values* values = new Values();  // never destroyed, see values.h
  return *values;
}

void Values::set(py::object tile, py::object play, py::object line_tile, py::object line_end,
                 py::object end, py::object format, py::object open_rule, py::object hand_end_kind,
                 py::object match_end_reason) {
  tile_cls_ = tile;
  play_cls_ = play;
  line_tile_cls_ = line_tile;
  line_end_cls_ = line_end;
  left_ = member(end, "LEFT");
  right_ = member(end, "RIGHT");
  left_value_ = left_.cast<long>();
  right_value_ = right_.cast<long>();
  for (int i = 0; i < kNumTiles; ++i) {
    const Tile t = Tile::from_index(i);
    tiles_[i] = tile(t.hi(), t.lo());
  }
  for (int a = 0; a < kNumActions; ++a) {
    const Play p = play_of(a);
    plays_[a] = play(tiles_[p.tile.index()], this->end(p.end));
  }
  for (int i = 0; i < 4; ++i) {
    formats_[i] = member(format, kFormatNames[i]);
    format_of_[formats_[i].cast<long>()] = static_cast<Format>(i);
  }
  for (int i = 0; i < 3; ++i) {
    open_rules_[i] = member(open_rule, kOpenRuleNames[i]);
    open_rule_of_[open_rules_[i].cast<long>()] = static_cast<OpenRule>(i);
  }
  for (int i = 0; i < 2; ++i) hand_end_kinds_[i] = member(hand_end_kind, kHandEndNames[i]);
  for (int i = 0; i < 2; ++i) match_end_reasons_[i] = member(match_end_reason, kMatchEndNames[i]);
  ready_ = true;
}

void Values::need() const {
  if (!ready_)
    throw std::runtime_error(
        "allfives_bot._core: import allfives_bot (its model registers the "
        "value types) before using the core");
}

py::object Values::line_end(LineEnd e) const {
  need();
  return line_end_cls_(static_cast<int>(e.value), e.is_double);
}

py::object Values::line_tile(const LinePlay& p) const {
  need();
  return line_tile_cls_(tile(p.tile), static_cast<int>(p.seat), end(p.end));
}

py::tuple Values::tiles(TileSet s) const {
  need();
  py::tuple out(static_cast<size_t>(s.size()));
  size_t i = 0;
  for (Tile t : s) out[i++] = tiles_[t.index()];
  return out;
}

Tile Values::to_tile(py::handle h) const {
  if (!PySequence_Check(h.ptr()) || PySequence_Size(h.ptr()) != 2)
    throw py::type_error("a tile is a (high, low) pair, e.g. Tile(6, 4)");
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  const long a = as_long(seq[0], "a tile's half"), b = as_long(seq[1], "a tile's half");
  if (a < 0 || a > kMaxPips || b < 0 || b > kMaxPips)
    throw py::value_error("a tile's halves are 0..6, not " + std::to_string(a) + "-" +
                          std::to_string(b));
  return Tile::of(static_cast<int>(a), static_cast<int>(b));
}

End Values::to_end(py::handle h) const {
  need();
  const long v = as_long(h, "an end");
  if (v == left_value_) return End::kLeft;
  if (v == right_value_) return End::kRight;
  throw py::value_error("an end is End.LEFT or End.RIGHT, not " + std::to_string(v));
}

Play Values::to_play(py::handle h) const {
  if (!PySequence_Check(h.ptr()) || PySequence_Size(h.ptr()) != 2)
    throw py::type_error("a play is a (tile, end) pair, e.g. Play(Tile(6, 4), End.LEFT)");
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  return Play{to_tile(seq[0]), to_end(seq[1])};
}

TileSet Values::to_tiles(py::handle h) const {
  TileSet s;
  for (py::handle t : py::reinterpret_borrow<py::iterable>(h)) {
    const Tile tile = to_tile(t);
    if (s.contains(tile)) throw py::value_error("tile " + to_string(tile) + " appears twice");
    s.add(tile);
  }
  return s;
}

Format Values::to_format(py::handle h) const {
  need();
  const auto it = format_of_.find(as_long(h, "a format"));
  if (it == format_of_.end()) throw py::value_error("not a Format");
  return it->second;
}

OpenRule Values::to_open_rule(py::handle h) const {
  need();
  const auto it = open_rule_of_.find(as_long(h, "an open rule"));
  if (it == open_rule_of_.end()) throw py::value_error("not an OpenRule");
  return it->second;
}

}  // namespace allfives::python
