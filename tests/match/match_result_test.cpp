// The result module (match/match_result.h) that the runner, the standings and the replay
// checker share: the word of every fault kind and the placements rule.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "match/match_result.h"

namespace allfives::referee {
namespace {

TEST(FaultKindWords, EveryKindHasItsProtoNameInLowerCase) {
  EXPECT_EQ(describe(v1::FAULT_KIND_TIMEOUT), "timeout");
  EXPECT_EQ(describe(v1::FAULT_KIND_CRASH), "crash");
  EXPECT_EQ(describe(v1::FAULT_KIND_DISCONNECT), "disconnect");
  EXPECT_EQ(describe(v1::FAULT_KIND_ILLEGAL_PLAY), "illegal_play");
  EXPECT_EQ(describe(v1::FAULT_KIND_MALFORMED_ANSWER), "malformed_answer");
  EXPECT_EQ(describe(v1::FAULT_KIND_PROTOCOL_VIOLATION), "protocol_violation");
  EXPECT_EQ(describe(v1::FAULT_KIND_STARTUP_FAILURE), "startup_failure");
  EXPECT_EQ(describe(v1::FAULT_KIND_UNSPECIFIED), "unspecified");
  EXPECT_EQ(describe(static_cast<v1::FaultKind>(99)), "unknown");
}

TEST(Placements, ByScoreWithTiesSharingAPlace) {
  EXPECT_EQ(placements({150, 90}, -1), (std::vector<int>{1, 2}));
  EXPECT_EQ(placements({60, 150, 60}, -1), (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(placements({80, 80, 80, 10}, -1), (std::vector<int>{1, 1, 1, 4}));
}

TEST(Placements, AFaultingSideIsLastWhateverItsScore) {
  EXPECT_EQ(placements({150, 90}, 0), (std::vector<int>{2, 1}));
  EXPECT_EQ(placements({200, 40, 40}, 0), (std::vector<int>{3, 1, 1}));
}

TEST(Placements, TheSpanFormAgreesAndWritesOnlyItsSides) {
  const std::array<int, 4> scores{30, 70, 30, 0};
  std::array<int, 4> place{-7, -7, -7, -7};
  placements(std::span(scores.data(), 3), 1, std::span(place.data(), 3));
  EXPECT_EQ(place, (std::array<int, 4>{1, 3, 1, -7}));
}

}  // namespace
}  // namespace allfives::referee
