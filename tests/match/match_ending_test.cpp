// How a match ended goes into each of its records through one converter: the log's match_end
// (log_match_end), the tournament's index line (index_entry) and a seat's decision times both
// ways between the result and the index (seat_timing, decision_timing).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/temp_dir.h"
#include "log/log_records.h"
#include "log/match_log.h"
#include "match/match_result.h"
#include "match_ending_util.h"
#include "tournament/index_entry.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

MatchResult faulted_result() {
  MatchResult r;
  static_cast<MatchEnding&>(r) = ending_with_fault(
      v1::MATCH_END_REASON_FAULT, 0, {35, 120},
      Fault{1, v1::FAULT_KIND_ILLEGAL_PLAY, "played 6-6, which it does not hold"}, {1, 2});
  r.hands_played = 4;
  r.duration = std::chrono::milliseconds(1234);
  r.decisions = 50;
  DecisionTiming t;
  t.add(800, 1'000'000);
  t.add(950'000, 1'000'000);
  r.timing = {t, DecisionTiming{}};
  return r;
}

// The one record `write` adds to a fresh log, read back from the file.
v1::LogRecord written(const std::function<void(MatchLog&)>& write) {
  const allfives::testing::TempDir dir("match-ending-test");
  const std::string path = dir.file("m.jsonl");
  std::string error;
  auto log = MatchLog::create(path, &error);
  EXPECT_TRUE(log) << error;
  write(*log);
  EXPECT_TRUE(log->close(false, &error)) << error;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  v1::LogRecord record;
  EXPECT_TRUE(from_json_line(line, &record, &error)) << error << ": " << line;
  return record;
}

TEST(MatchEnding, TheLogsEndRecordHoldsTheResultAndWhatTheGuardMeasured) {
  const v1::LogRecord r = written([](MatchLog& log) {
    log_match_end(log, faulted_result(), std::vector<uint64_t>{10, 20}, {false, true});
  });
  ASSERT_TRUE(r.has_match_end());
  const v1::LogMatchEnd& me = r.match_end();
  EXPECT_EQ(me.reason(), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(me.winner_side(), 0);
  EXPECT_EQ(std::vector<uint32_t>(me.scores().begin(), me.scores().end()),
            (std::vector<uint32_t>{35, 120}));
  EXPECT_EQ(std::vector<uint32_t>(me.placements().begin(), me.placements().end()),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(me.hands_played(), 4u);
  EXPECT_EQ(me.duration_ms(), 1234u);
  EXPECT_EQ(me.fault_seat(), 1);
  EXPECT_EQ(me.fault_kind(), v1::FAULT_KIND_ILLEGAL_PLAY);
  EXPECT_EQ(std::vector<uint64_t>(me.off_turn_cpu_us().begin(), me.off_turn_cpu_us().end()),
            (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(std::vector<bool>(me.frozen_off_turn().begin(), me.frozen_off_turn().end()),
            (std::vector<bool>{false, true}));
}

TEST(MatchEnding, WithoutAFaultTheLogSaysSeatMinusOneAndNoKind) {
  MatchEnding end;
  end.reason = v1::MATCH_END_REASON_TARGET;
  end.winner_side = 1;
  end.scores = {200, 250};
  end.placements = {2, 1};
  const v1::LogRecord r = written([&](MatchLog& log) { log_match_end(log, end); });
  EXPECT_EQ(r.match_end().fault_seat(), -1);
  EXPECT_EQ(r.match_end().fault_kind(), v1::FAULT_KIND_UNSPECIFIED);
  EXPECT_EQ(r.match_end().off_turn_cpu_us_size(), 0);
}

TEST(MatchEnding, TheIndexLineHoldsTheResultItsMatchAndItsTournament) {
  TournamentDef def;
  def.proto.set_name("league");
  def.hash = "abc123";
  def.config.format = Format::kTwoPlayers;
  v1::ScheduledMatch m;
  m.set_match_id("m-9");
  m.add_seat_bots("greedy");
  m.add_seat_bots("random");
  const MatchResult r = faulted_result();
  const v1::IndexEntry e = index_entry(def, m, r, "matches/m-9.jsonl");
  EXPECT_EQ(e.match().SerializeAsString(), m.SerializeAsString());
  EXPECT_EQ(e.reason(), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(e.winner_side(), 0);
  EXPECT_EQ(e.scores_size(), 2);
  EXPECT_EQ(e.scores(1), 120u);
  EXPECT_EQ(e.placements(0), 1u);
  EXPECT_EQ(e.fault_seat(), 1);
  EXPECT_EQ(e.fault_kind(), v1::FAULT_KIND_ILLEGAL_PLAY);
  EXPECT_EQ(e.fault_reason(), "played 6-6, which it does not hold");
  EXPECT_EQ(e.log_file(), "matches/m-9.jsonl");
  EXPECT_EQ(e.duration_ms(), 1234u);
  EXPECT_EQ(e.hands_played(), 4u);
  EXPECT_EQ(e.tournament_hash(), "abc123");
  EXPECT_EQ(e.tournament_name(), "league");
  EXPECT_EQ(e.format(), v1::FORMAT_TWO_PLAYERS);
  ASSERT_EQ(e.timing_size(), 2);
  EXPECT_EQ(e.timing(0).decisions(), 2u);
  EXPECT_EQ(e.timing(1).decisions(), 0u);

  MatchResult clean = r;
  clean.fault.reset();
  const v1::IndexEntry c = index_entry(def, m, clean, "x");
  EXPECT_EQ(c.fault_seat(), -1);
  EXPECT_EQ(c.fault_kind(), v1::FAULT_KIND_UNSPECIFIED);
  EXPECT_TRUE(c.fault_reason().empty());
}

TEST(MatchEnding, DecisionTimesGoIntoTheIndexAndBackUnchanged) {
  DecisionTiming t;
  for (uint32_t us : {5u, 700u, 700u, 40'000u, 990'000u}) t.add(us, 1'000'000);
  t.max_bank_used_ms = 17;
  const v1::SeatTiming st = seat_timing(t);
  EXPECT_EQ(st.decisions(), 5u);
  EXPECT_EQ(st.bucket_size(), st.bucket_count_size());
  const DecisionTiming back = decision_timing(st);
  EXPECT_EQ(back.decisions, t.decisions);
  EXPECT_EQ(back.total_us, t.total_us);
  EXPECT_EQ(back.max_us, t.max_us);
  EXPECT_EQ(back.near_deadline, t.near_deadline);
  EXPECT_EQ(back.max_bank_used_ms, 17u);
  EXPECT_EQ(back.buckets, t.buckets);
  // A bucket without its count (a hand-edited index) is ignored.
  v1::SeatTiming odd = st;
  odd.add_bucket(99);
  EXPECT_EQ(decision_timing(odd).buckets, t.buckets);
}

}  // namespace
}  // namespace allfives::referee
