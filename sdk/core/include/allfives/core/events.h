// What happened during one step of a match, as plain values the referee turns into messages
// and log lines. The core fills these only when asked, so simulations pay nothing for them.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "allfives/core/deal.h"
#include "allfives/core/line.h"
#include "allfives/core/types.h"

namespace allfives {

// How a hand's opener was chosen (docs/RULES.md §4 "Who opens a hand").
enum class OpenRule : uint8_t {
  kHighestDouble,  // first hand or after a block: the highest double must open
  kHeaviestTile,   // same, but nobody held a double: the heaviest tile must open
  kWinnerChooses,  // after a domino: the player who went out opens with any tile
};
std::string_view to_string(OpenRule r);

enum class HandEndKind : uint8_t {
  kDomino,   // a player played their last tile
  kBlocked,  // boneyard empty and nobody could play
};
std::string_view to_string(HandEndKind k);

enum class MatchEndReason : uint8_t {
  kTarget,     // a side's score reached the target (possibly mid-hand)
  kHandLimit,  // the safety valve: max_hands hands passed without reaching the target
};
std::string_view to_string(MatchEndReason r);

enum class EventKind : uint8_t { kHandStart, kPlay, kDraw, kPass, kHandEnd, kMatchEnd };
std::string_view to_string(EventKind k);

// The most tiles one draw can take: the largest boneyard of any format (docs/RULES.md §3).
inline constexpr int kMaxDrawn = [] {
  int most = 0;
  for (const FormatInfo& f : kFormatTable)
    most = std::max(most, kNumTiles - f.players * f.hand_size);
  return most;
}();

// One event. Which fields mean something depends on `kind`; the rest keep their defaults.
struct Event {
  EventKind kind = EventKind::kPlay;
  int8_t seat = -1;        // kPlay/kDraw/kPass: the actor; kHandStart: the opener;
                           // kHandEnd: the player who went out (kDomino) or -1
  int8_t side = -1;        // kPlay: the actor's side; kHandEnd/kMatchEnd: the winning side, -1 none
  int16_t hand_index = 0;  // every kind: the hand it belongs to (0-based)
  Play play{};             // kPlay: the tile and the end it went on
  int16_t count = 0;       // kPlay: the end count after the play; kDraw: tiles drawn
  int16_t points = 0;      // kPlay/kHandEnd: points the side scored by it (0 if none)
  TileSet tiles{};         // kDraw: the drawn tiles, in the actor's eyes only
  // kPlay: the line's open ends right after the play (left, right), which the state no longer
  // shows once the play ended the hand.
  std::array<LineEnd, 2> ends{};
  // kDraw: the first `count` are the drawn tiles in drawing order (in the actor's eyes only):
  // the log and the drawer are told that order, which the set `tiles` does not keep.
  std::array<Tile, kMaxDrawn> drawn{};
  std::span<const Tile> drawn_in_order() const {
    return std::span<const Tile>(drawn.data(), static_cast<size_t>(count));
  }
  uint8_t reason = 0;  // kHandStart: OpenRule; kHandEnd: HandEndKind; kMatchEnd: MatchEndReason
  Tile open_with{};    // kHandStart: the tile that must open (not kWinnerChooses)
  // kHandStart: the deal (private: each seat may see only its own hand);
  // kHandEnd/kMatchEnd: every hand as it was at the end, shown to everyone.
  std::array<TileSet, kMaxPlayers> hands{};
  // kHandEnd: pips left per seat; kMatchEnd: every side's final score.
  std::array<int16_t, kMaxPlayers> values{};
  Deal deal{};  // kHandStart: the full deal, with the boneyard order (for the log only)
};

// The event as seat `viewer` may see it (docs/RULES.md §15 "What a bot may see"): another seat's
// drawn tiles, other seats' dealt hands and the boneyard's order are removed; hand and match ends
// stay whole, since every hand is shown then.
Event seen_by(const Event& e, int viewer);

// A fixed-capacity buffer, so stepping a match never allocates.
class EventList {
 public:
  // One step can make at most: a play, up to three draw+pass pairs, a hand end, a match end or a
  // hand start. 16 leaves room to spare.
  static constexpr int kCapacity = 16;

  void clear() { size_ = 0; }
  int size() const { return size_; }
  const Event& operator[](int i) const { return items_[i]; }
  Event& push(EventKind kind, int hand_index) {
    Event& e = items_[size_++];
    e = Event{};
    e.kind = kind;
    e.hand_index = static_cast<int16_t>(hand_index);
    return e;
  }
  const Event* begin() const { return items_.data(); }
  const Event* end() const { return items_.data() + size_; }

 private:
  std::array<Event, kCapacity> items_{};
  int size_ = 0;
};

}  // namespace allfives
