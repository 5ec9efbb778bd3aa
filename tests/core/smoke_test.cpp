#include <gtest/gtest.h>

#include "allfives/core/state.h"

TEST(Smoke, NewMatchHasAPlayer) {
  auto s = allfives::State::new_match(allfives::Config::standard(allfives::Format::kTwoPlayers), 1);
  EXPECT_FALSE(s.is_terminal());
  EXPECT_FALSE(s.legal_plays().empty());
}
