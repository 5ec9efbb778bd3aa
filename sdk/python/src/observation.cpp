#include "observation.h"

namespace allfives::python {

Features encode(const View& view, const Knowledge* knowledge) {
  using L = ObservationLayout;
  Features o{};
  for (Tile t : view.hand()) o[L::kHand + t.index()] = 1;
  const Line& line = view.line();
  for (int i = 0; i < line.size(); ++i) o[L::kOnLine + line[i].tile.index()] = 1;
  if (line.empty()) {
    o[L::kLineEmpty] = 1;
  } else {
    o[L::kLeftEnd + line.end(End::kLeft).value] = 1;
    o[L::kLeftDouble] = line.end(End::kLeft).is_double;
    o[L::kRightEnd + line.end(End::kRight).value] = 1;
    o[L::kRightDouble] = line.end(End::kRight).is_double;
  }
  const int n = view.num_players();
  const int me = view.seat();
  const TileSet unseen = view.unseen();
  for (int r = 0; r < n; ++r) {
    const int s = (me + r) % n;
    o[L::kHandSizes + r] = static_cast<int16_t>(view.hand_size(s));
    if (r == 0 || !knowledge) continue;
    for (Tile t : knowledge->forbidden_for_all(s) & unseen)
      o[L::kVoids + 28 * (r - 1) + t.index()] = 1;
  }
  o[L::kBoneyard] = static_cast<int16_t>(view.boneyard_size());
  const int sides = num_sides(view.config().format);
  for (int r = 0; r < sides; ++r)
    o[L::kScores + r] = static_cast<int16_t>(view.score((view.side() + r) % sides));
  o[L::kTarget] = static_cast<int16_t>(view.config().target);
  o[L::kToMove] = view.seat_to_move() == me;
  return o;
}

}  // namespace allfives::python
