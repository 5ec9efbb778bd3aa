// The README's "Writing a bot" example, verbatim: built against the installed SDK by
// tests/sdk_install/run.sh, so the README's code keeps compiling.
#include <allfives/bot/bot.h>

class First final : public allfives::bot::Bot {
  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    return view.legal_plays()[0];  // never empty when asked
  }
};

int main(int argc, char** argv) {
  return allfives::bot::run(argc, argv, {"first", "1.0"}, [](const allfives::bot::MatchInfo&) {
    return std::make_unique<First>();
  });
}
