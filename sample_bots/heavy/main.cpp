// heavy: gets rid of its heaviest tile first, whatever it scores now.
//
// A defensive style: the pips left in hand are what opponents score when someone goes out
// or the hand blocks, so it sheds weight early. Among plays of the same tile (two ends) it
// takes the one that scores more now, then the first in legal order.
#include <memory>

#include "allfives/bot/bot.h"
#include "allfives/core/line.h"

namespace {

int points_now(const allfives::View& view, allfives::Play play) {
  allfives::Line line = view.line();
  line.place(play.tile, play.end, view.seat());
  return allfives::points_for_count(line.count());
}

class HeavyBot final : public allfives::bot::Bot {
 public:
  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    const allfives::PlayList& legal = view.legal_plays();
    allfives::Play best = legal[0];
    for (int i = 1; i < legal.size(); ++i) {
      const allfives::Play p = legal[i];
      if (p.tile.pips() > best.tile.pips() ||
          (p.tile.pips() == best.tile.pips() && points_now(view, p) > points_now(view, best)))
        best = p;
    }
    return best;
  }
};

}  // namespace

int main(int argc, char** argv) {
  return allfives::bot::run(argc, argv, {"heavy", "1.0"}, [](const allfives::bot::MatchInfo&) {
    return std::make_unique<HeavyBot>();
  });
}
