// Helpers shared by the rules-core suites: short tile names and a builder for mid-hand
// positions (State::from_position), so each test states only the tiles it is about.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "allfives/core/events.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"

namespace allfives {
// Readable values in GoogleTest failure messages.
inline void PrintTo(Tile t, std::ostream* os) {
  *os << to_string(t);
}
inline void PrintTo(TileSet s, std::ostream* os) {
  *os << to_string(s);
}
inline void PrintTo(Play p, std::ostream* os) {
  *os << to_string(p);
}
}  // namespace allfives

namespace allfives::test {

inline Tile T(int a, int b) {
  return Tile::of(a, b);
}

inline TileSet S(std::initializer_list<Tile> tiles) {
  TileSet s;
  for (Tile t : tiles) s.add(t);
  return s;
}

inline Play L(Tile t) {
  return Play{t, End::kLeft};
}
inline Play R(Tile t) {
  return Play{t, End::kRight};
}

// Builds a Position piece by piece. Tiles not placed anywhere can be handed to a seat or
// put in the boneyard with rest_to_*().
class PositionBuilder {
 public:
  explicit PositionBuilder(Format f) { p_.config = Config::standard(f); }

  PositionBuilder& config(Config c) {
    p_.config = c;
    return *this;
  }
  PositionBuilder& hand(int seat, std::initializer_list<Tile> tiles) {
    for (Tile t : tiles) p_.hands[seat].add(t);
    return *this;
  }
  PositionBuilder& hand(int seat, TileSet tiles) {
    p_.hands[seat] |= tiles;
    return *this;
  }
  // Appends tiles to the boneyard, in drawing order.
  PositionBuilder& boneyard(std::initializer_list<Tile> tiles) {
    for (Tile t : tiles) p_.boneyard[p_.boneyard_size++] = t;
    return *this;
  }
  // Appends a play to the line (the opening tile first; its end is ignored).
  PositionBuilder& play(int seat, Tile t, End e = End::kLeft) {
    p_.line[p_.line_size++] = LinePlay{t, static_cast<uint8_t>(seat), e};
    return *this;
  }
  PositionBuilder& score(int side, int points) {
    p_.scores[side] = points;
    return *this;
  }
  PositionBuilder& to_move(int seat) {
    p_.seat_to_move = seat;
    return *this;
  }
  PositionBuilder& open_rule(OpenRule r) {
    p_.open_rule = r;
    return *this;
  }
  PositionBuilder& hand_index(int h) {
    p_.hand_index = h;
    return *this;
  }

  // Every tile not yet placed.
  TileSet unplaced() const {
    TileSet used;
    for (int s = 0; s < kMaxPlayers; ++s) used |= p_.hands[s];
    for (int i = 0; i < p_.boneyard_size; ++i) used.add(p_.boneyard[i]);
    for (int i = 0; i < p_.line_size; ++i) used.add(p_.line[i].tile);
    return TileSet::all() - used;
  }
  PositionBuilder& rest_to_hand(int seat) { return hand(seat, unplaced()); }
  PositionBuilder& rest_to_boneyard() {
    for (Tile t : unplaced()) p_.boneyard[p_.boneyard_size++] = t;
    return *this;
  }

  const Position& position() const { return p_; }

  // The state; fails the calling test if the position is refused.
  State build(uint64_t seed = 1) const {
    State s = State::new_match(p_.config, seed);
    std::string error;
    const bool ok = State::from_position(p_, seed, s, &error);
    EXPECT_TRUE(ok) << error;
    return s;
  }

 private:
  Position p_;
};

// The events of one kind, in order.
inline std::vector<Event> of_kind(const EventList& events, EventKind kind) {
  std::vector<Event> out;
  for (const Event& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

inline std::vector<EventKind> kinds(const EventList& events) {
  std::vector<EventKind> out;
  for (const Event& e : events) out.push_back(e.kind);
  return out;
}

// A line that has used every six but 0-6, ending 0 on the left and 6-6 crosswise on the right.
// The seat to move plays 0-6 on the left: ends 6 and 6-6 (count 18), no six is left anywhere
// and the boneyard is empty, so the hand is blocked. The 18 other tiles (90 pips) are left for
// the hands: 0-0 0-1 0-2 0-3 0-4 1-1 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-5 4-4 4-5 5-5.
inline PositionBuilder six_block(Format f) {
  PositionBuilder b(f);
  const int n = num_players(f);
  const Tile line[] = {T(6, 6), T(6, 1), T(1, 2), T(2, 6), T(6, 3),
                       T(3, 4), T(4, 6), T(6, 5), T(5, 0)};
  int seat = 1;
  for (Tile t : line) {
    b.play(seat, t, End::kLeft);
    seat = (seat + 1) % n;
  }
  b.hand(0, {T(0, 6)}).to_move(0);
  return b;
}
inline constexpr Play kBlockingPlay{Tile::of(0, 6), End::kLeft};

// Plays a whole match of every format (the standard config, `seed`), always the first legal
// play, and hands `see` the format and the events of the deal and then of each play, in order
// (one EventList each); each format is traced.
template <typename See>
void for_each_format_match(uint64_t seed, See see) {
  for (Format f : kAllFormats) {
    SCOPED_TRACE(std::string(to_string(f)));
    std::vector<EventList> batches(1);
    State s = State::new_match(Config::standard(f), seed, &batches.back());
    while (!s.is_terminal()) {
      batches.emplace_back();
      ASSERT_EQ(s.apply(s.legal_plays()[0], &batches.back()), PlayError::kNone);
    }
    see(f, static_cast<const std::vector<EventList>&>(batches));
  }
}

}  // namespace allfives::test
