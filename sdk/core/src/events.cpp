#include "allfives/core/events.h"

namespace allfives {

std::string_view to_string(OpenRule r) {
  switch (r) {
    case OpenRule::kHighestDouble:
      return "highest_double";
    case OpenRule::kHeaviestTile:
      return "heaviest_tile";
    case OpenRule::kWinnerChooses:
      return "winner_chooses";
  }
  return "?";
}

std::string_view to_string(HandEndKind k) {
  return k == HandEndKind::kDomino ? "domino" : "blocked";
}

std::string_view to_string(MatchEndReason r) {
  return r == MatchEndReason::kTarget ? "target_reached" : "hand_limit";
}

Event seen_by(const Event& e, int viewer) {
  Event out = e;
  if (e.kind == EventKind::kDraw && e.seat != viewer) {
    out.tiles = TileSet{};
    out.drawn = {};
  }
  if (e.kind == EventKind::kHandStart) {
    out.deal = Deal{};
    for (int s = 0; s < kMaxPlayers; ++s)
      if (s != viewer) out.hands[s] = TileSet{};
  }
  return out;
}

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::kHandStart:
      return "hand_start";
    case EventKind::kPlay:
      return "play";
    case EventKind::kDraw:
      return "draw";
    case EventKind::kPass:
      return "pass";
    case EventKind::kHandEnd:
      return "hand_end";
    case EventKind::kMatchEnd:
      return "match_end";
  }
  return "?";
}

}  // namespace allfives
