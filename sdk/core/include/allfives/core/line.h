// The line of play and its two open ends: where tiles fit and what the ends count.
#pragma once

#include <array>
#include <cstdint>

#include "allfives/core/types.h"

namespace allfives {

// One open end: the value a tile must match, and whether a double lies crosswise there
// (then it counts both halves, docs/RULES.md §7 "The count and the points it makes").
struct LineEnd {
  uint8_t value = 0;
  bool is_double = false;
  constexpr int count() const { return is_double ? 2 * value : value; }
  friend constexpr bool operator==(LineEnd, LineEnd) = default;
};

// A tile on the line: what was played, by which seat, on which end, in play order.
struct LinePlay {
  Tile tile;
  uint8_t seat = 0;
  End end = End::kLeft;
  friend constexpr bool operator==(LinePlay, LinePlay) = default;
};

// The line as it grows. It knows nothing of hands or turns, so the scoring rules live in one
// small place that tests can drive tile by tile.
class Line {
 public:
  constexpr bool empty() const { return size_ == 0; }
  constexpr int size() const { return size_; }
  constexpr const LinePlay& operator[](int i) const { return plays_[i]; }
  constexpr LineEnd end(End e) const { return ends_[static_cast<int>(e)]; }

  // Whether `t` can be laid on end `e` (any end when the line is empty).
  constexpr bool fits(Tile t, End e) const { return size_ == 0 || t.has(end(e).value); }

  // Lays a tile that fits (callers check fits() first). The opening tile lies with its low
  // half on the left; a double opener leaves both ends crosswise doubles.
  constexpr void place(Tile t, End e, int seat) {
    if (size_ == 0) {
      e = End::kLeft;
      ends_[0] = LineEnd{static_cast<uint8_t>(t.lo()), t.is_double()};
      ends_[1] = LineEnd{static_cast<uint8_t>(t.hi()), t.is_double()};
    } else {
      const int i = static_cast<int>(e);
      ends_[i] = LineEnd{static_cast<uint8_t>(t.other(ends_[i].value)), t.is_double()};
    }
    plays_[size_++] = LinePlay{t, static_cast<uint8_t>(seat), e};
  }

  // The end count: all pips of a lone tile, otherwise the two ends (doubles count twice).
  constexpr int count() const {
    if (size_ == 0) return 0;
    if (size_ == 1) return plays_[0].tile.pips();
    return ends_[0].count() + ends_[1].count();
  }

  friend constexpr bool operator==(const Line&, const Line&) = default;

 private:
  std::array<LinePlay, kNumTiles> plays_{};
  std::array<LineEnd, 2> ends_{};
  uint8_t size_ = 0;
};

// Points a play scores for the end count it left: the count if it is a positive multiple of
// five, else nothing.
constexpr int points_for_count(int count) {
  return count > 0 && count % 5 == 0 ? count : 0;
}

// The count after `play` (a tile that fits that end) on a line that is not empty, from its two
// ends alone: the end the tile leaves open (both halves of a double) plus the other end.
constexpr int count_after(LineEnd left, LineEnd right, Play play) {
  const LineEnd at = play.end == End::kLeft ? left : right;
  const LineEnd other = play.end == End::kLeft ? right : left;
  const LineEnd placed{static_cast<uint8_t>(play.tile.other(at.value)), play.tile.is_double()};
  return other.count() + placed.count();
}

// The end count `play` (a play that fits) would leave if made now: what Line::place then
// count() give, without copying the line, since searches ask it in their inner loop.
constexpr int count_after(const Line& line, Play play) {
  if (line.empty()) return play.tile.pips();
  return count_after(line.end(End::kLeft), line.end(End::kRight), play);
}

// The open ends, left and right, that `play` (a play that fits) would leave if made now: what
// Line::place then end() give, so a search can look one play ahead without copying the line.
// An opening double leaves itself crosswise at both ends.
constexpr std::array<LineEnd, 2> ends_after(const Line& line, Play play) {
  if (line.empty()) {
    const bool d = play.tile.is_double();
    return {LineEnd{static_cast<uint8_t>(play.tile.lo()), d},
            LineEnd{static_cast<uint8_t>(play.tile.hi()), d}};
  }
  std::array<LineEnd, 2> ends = {line.end(End::kLeft), line.end(End::kRight)};
  LineEnd& at = ends[static_cast<int>(play.end)];
  at = LineEnd{static_cast<uint8_t>(play.tile.other(at.value)), play.tile.is_double()};
  return ends;
}

// Points `play` (a play that fits) would score if made now.
constexpr int points_after(const Line& line, Play play) {
  return points_for_count(count_after(line, play));
}

}  // namespace allfives
