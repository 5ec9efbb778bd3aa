// The Python SDK's value types (allfives_bot.model: Tile, Play, LineTile, LineEnd and the
// enums generated from proto/) as the bound core converts to and from them. model.py
// registers them once at import; the core's own enums never reach Python, so a Python bot sees
// one Format, one End, one OpenRule, whichever module it got them from.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <map>

#include "allfives/core/events.h"
#include "allfives/core/line.h"
#include "allfives/core/state.h"

namespace allfives::python {

namespace py = pybind11;

inline constexpr int kNumActions = 2 * kNumTiles;

// A play as a number, OpenSpiel's "action": tile index * 2 + end (0 left, 1 right). An
// opening play is always the left one.
constexpr int action_of(Play p) {
  return p.tile.index() * 2 + (p.end == End::kRight ? 1 : 0);
}
constexpr Play play_of(int action) {
  return Play{Tile::from_index(action / 2), action % 2 ? End::kRight : End::kLeft};
}

class Values {
 public:
  // The one instance (never destroyed: Python objects must not outlive the interpreter's end).
  static Values& get();

  // Called by allfives_bot.model with its classes and enums.
  void set(py::object tile, py::object play, py::object line_tile, py::object line_end,
           py::object end, py::object format, py::object open_rule, py::object hand_end_kind,
           py::object match_end_reason);
  bool ready() const { return ready_; }

  py::object tile(Tile t) const { return tiles_[t.index()]; }
  py::object play(Play p) const { return plays_[action_of(p)]; }
  py::object end(End e) const { return e == End::kLeft ? left_ : right_; }
  py::object line_end(LineEnd e) const;
  py::object line_tile(const LinePlay& p) const;
  py::object format(Format f) const { return formats_[static_cast<int>(f)]; }
  py::object open_rule(OpenRule r) const { return open_rules_[static_cast<int>(r)]; }
  py::object hand_end_kind(HandEndKind k) const { return hand_end_kinds_[static_cast<int>(k)]; }
  py::object match_end_reason(MatchEndReason r) const {
    return match_end_reasons_[static_cast<int>(r)];
  }
  py::tuple tiles(TileSet s) const;

  // From Python; each raises ValueError (or TypeError) on anything else.
  Tile to_tile(py::handle h) const;  // a (high, low) pair, either order
  End to_end(py::handle h) const;    // End.LEFT or End.RIGHT
  Play to_play(py::handle h) const;  // a (tile, end) pair
  TileSet to_tiles(py::handle h) const;
  Format to_format(py::handle h) const;
  OpenRule to_open_rule(py::handle h) const;

 private:
  void need() const;

  bool ready_ = false;
  py::object tile_cls_, play_cls_, line_tile_cls_, line_end_cls_;
  std::array<py::object, kNumTiles> tiles_;
  std::array<py::object, kNumActions> plays_;
  py::object left_, right_;
  long left_value_ = 0, right_value_ = 0;
  std::array<py::object, 4> formats_;
  std::array<py::object, 3> open_rules_;
  std::array<py::object, 2> hand_end_kinds_;
  std::array<py::object, 2> match_end_reasons_;
  std::map<long, Format> format_of_;
  std::map<long, OpenRule> open_rule_of_;
};

}  // namespace allfives::python
