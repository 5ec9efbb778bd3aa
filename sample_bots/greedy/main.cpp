// greedy: plays the legal play that scores the most points right now.
//
// The policy is the rules core's greedy_play (allfives/core/greedy.h), scored with the same
// line arithmetic the referee uses. Ties: the heaviest tile first, since pips left in hand
// count for the opponents at the end of the hand; then the first play in legal order (the
// order the referee sends).
#include <memory>
#include <string>

#include "allfives/bot/bot.h"
#include "allfives/core/greedy.h"

namespace {

class GreedyBot final : public allfives::bot::Bot {
 public:
  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    const allfives::Play play = allfives::greedy_play(view.line(), view.legal_plays());
    // The note the replay shows under the play (PlayAnswer.comment).
    set_comment("most points now: " + std::to_string(view.points_after(play)));
    return play;
  }
};

}  // namespace

int main(int argc, char** argv) {
  return allfives::bot::run(argc, argv, {"greedy", "1.0"}, [](const allfives::bot::MatchInfo&) {
    return std::make_unique<GreedyBot>();
  });
}
