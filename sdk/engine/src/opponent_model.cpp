#include "allfives/engine/opponent_model.h"

#include <cmath>

namespace allfives::engine {

PlayLikelihood::PlayLikelihood(const View& view, const Knowledge& knowledge,
                               const OpponentModel& model)
    : model_(model) {
  const Line& line = view.line();
  Line before;
  for (int k = 0; k < line.size(); ++k) {
    const LinePlay& p = line[k];
    const bool judged = k > 0 && p.seat != view.seat() && k >= knowledge.last_draw(p.seat);
    if (judged) {
      TileSet held;
      held.add(p.tile);
      for (int j = k + 1; j < line.size(); ++j)
        if (line[j].seat == p.seat) held.add(line[j].tile);
      judged_[count_++] = Judged{before.end(End::kLeft), before.end(End::kRight),
                                 Play{p.tile, p.end}, p.seat, held};
    }
    before.place(p.tile, p.end, p.seat);
  }
}

double PlayLikelihood::of(const State& world) const {
  double likelihood = 1;
  for (int i = 0; i < count_; ++i) {
    const Judged& j = judged_[i];
    const TileSet hand = world.hand(j.seat) | j.held;
    // The softmax's terms relative to the chosen play's, so no exponent can overflow.
    const int chosen = points_for_count(count_after(j.left, j.right, j.play));
    double sum = 0;
    int options = 0;
    for (const Tile t : hand) {
      for (const End e : {End::kLeft, End::kRight}) {
        const LineEnd at = e == End::kLeft ? j.left : j.right;
        if (!t.has(at.value)) continue;
        ++options;
        const int points = points_for_count(count_after(j.left, j.right, Play{t, e}));
        sum += std::exp(model_.beta * (points - chosen));
      }
    }
    if (options == 0) return 0;  // cannot happen in a consistent world
    likelihood *= (1 - model_.epsilon) / sum + model_.epsilon / options;
  }
  return likelihood;
}

}  // namespace allfives::engine
