// The end of a match in a person's words (explain_end) takes the match's result as it is
// (MatchResult, a MatchEnding) and what the seat heard from the referee, where a fault's kind
// is not told.
#include <gtest/gtest.h>

#include "match/match_ending_util.h"
#include "match/match_result.h"
#include "serve/human_table.h"

namespace allfives::referee::serve {
namespace {

HumanTable table_of_seat_0() {
  HumanTable t;
  t.seat = 0;
  t.config.format = Format::kTwoPlayers;
  t.names = {"you", "greedy"};
  t.move_time = std::chrono::milliseconds(5000);
  return t;
}

TEST(HumanTable, TheResultOfTheMatchIsExplainedWithItsFaultKind) {
  HumanTable t = table_of_seat_0();
  MatchResult r;
  static_cast<MatchEnding&>(r) =
      ending_with_fault(v1::MATCH_END_REASON_FAULT, 1, {10, 20},
                        Fault{0, v1::FAULT_KIND_TIMEOUT, "no play within 5000 ms"}, {2, 1});
  explain_end(t, r);
  EXPECT_TRUE(t.over);
  EXPECT_EQ(t.outcome, "lost");
  EXPECT_EQ(t.headline, "You ran out of time");
}

TEST(HumanTable, AnotherSeatsFaultOfAKindNotToldIsStillAWin) {
  HumanTable t = table_of_seat_0();
  const MatchEnding end = ending_with_fault(v1::MATCH_END_REASON_FAULT, 0, {10, 20},
                                            Fault{1, v1::FAULT_KIND_UNSPECIFIED, "crashed"});
  explain_end(t, end);
  EXPECT_EQ(t.outcome, "won");
  EXPECT_EQ(t.headline, "You win: greedy forfeited");
  EXPECT_NE(t.detail.find("The referee's record: crashed."), std::string::npos) << t.detail;
}

TEST(HumanTable, AMatchWithoutAFaultIsWonOnScores) {
  HumanTable t = table_of_seat_0();
  t.config.target = 250;
  MatchEnding end;
  end.reason = v1::MATCH_END_REASON_TARGET;
  end.winner_side = 0;
  end.scores = {250, 120};
  explain_end(t, end);
  EXPECT_EQ(t.outcome, "won");
  EXPECT_EQ(t.headline, "You won!");
}

TEST(HumanTable, ThePageIsToldItsPaceTheSessionsTallyTheScoresOverTimeAndItsHint) {
  HumanTable t = table_of_seat_0();
  t.scores = {10, 5};
  t.pace_ms = 600;
  t.tally = {2, 1, 0};
  t.timeline = {{0, {0, 0}}, {0, {10, 0}}, {1, {10, 5}}};
  t.hint_on = true;
  t.hint = 1;  // a suggestion is only sent with the decision it is for
  const std::string json = table_json(t, 7, ClockNow{});
  EXPECT_NE(json.find("\"hint_on\":true,\"hint\":-1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"pace_ms\":600"), std::string::npos) << json;
  EXPECT_NE(json.find("\"tally\":[2,1,0]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"timeline\":[{\"hand\":0,\"scores\":[0,0]},{\"hand\":0,\"scores\":[10,0]},"
                      "{\"hand\":1,\"scores\":[10,5]}]"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace allfives::referee::serve
