// greedy: plays the legal play that scores the most points right now.
//
// It simulates each play on its own copy of the line (the rules core's Line, the same code
// the referee scores with): place the tile, count the open ends, points_for_count.
// Ties: the heaviest tile first, since pips left in hand count for the opponents at the end
// of the hand; then the first play in legal order (the order the referee sends).
#include <memory>

#include "allfives/bot/bot.h"
#include "allfives/core/line.h"

namespace {

// Points `play` would score if `seat` made it now.
int points_now(const allfives::View& view, allfives::Play play) {
  allfives::Line line = view.line();
  line.place(play.tile, play.end, view.seat());
  return allfives::points_for_count(line.count());
}

class GreedyBot final : public allfives::bot::Bot {
 public:
  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    const allfives::PlayList& legal = view.legal_plays();
    allfives::Play best = legal[0];
    int best_points = points_now(view, best);
    for (int i = 1; i < legal.size(); ++i) {
      const int points = points_now(view, legal[i]);
      // Strictly better only, so among equals the earlier play in legal order stays.
      if (points > best_points ||
          (points == best_points && legal[i].tile.pips() > best.tile.pips())) {
        best = legal[i];
        best_points = points;
      }
    }
    return best;
  }
};

}  // namespace

int main(int argc, char** argv) {
  return allfives::bot::run(argc, argv, {"greedy", "1.0"}, [](const allfives::bot::MatchInfo&) {
    return std::make_unique<GreedyBot>();
  });
}
