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
  for (int seat = 0; seat < view.num_players(); ++seat) {
    if (seat == view.seat()) continue;
    if (knowledge.num_groups(seat) > 1) deals_vary_ = true;
    for (int g = 0; g < knowledge.num_groups(seat); ++g) {
      const Knowledge::Group& group = knowledge.group(seat, g);
      groups_[num_groups_++] =
          Group{static_cast<uint8_t>(seat), static_cast<uint8_t>(group.count),
                TileSet::all() - group.forbidden};
    }
  }
}

namespace {

double choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

}  // namespace

double PlayLikelihood::deals(const State& world) const {
  // Oldest group first: it may hold the fewest tiles, and each newer group may hold every tile
  // an older one may, less those the older ones took.
  double ways = 1;
  int taken = 0;
  for (int i = 0; i < num_groups_; ++i) {
    const Group& g = groups_[i];
    if (i > 0 && groups_[i - 1].seat != g.seat) taken = 0;
    const int allowed = (world.hand(g.seat) & g.allowed).size();
    ways *= choose(allowed - taken, g.count);
    taken += g.count;
  }
  return ways;
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
