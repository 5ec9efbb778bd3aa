// The log's own JSON printer (log/match_log.cpp) writes exactly what protobuf's printer writes
// with the log's options: every record of a checked-in log, and records made to reach its
// corners (escapes, non-ASCII text, unknown enum numbers, 64-bit integers, empty and unset
// fields), printed both ways. The match runner's tests check every line of the logs they play.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "allfives/v1/log.pb.h"
#include "allfives/v1/tournament.pb.h"
#include "log/library_json.h"
#include "log/match_log.h"

namespace allfives::referee {
namespace {

using testing::library_json;

TEST(JsonLine, EveryRecordOfALogPrintsAsTheLibraryPrintsIt) {
  std::ifstream in(ALLFIVES_V1_LOG);
  ASSERT_TRUE(in) << ALLFIVES_V1_LOG;
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    v1::LogRecord r;
    std::string error;
    ASSERT_TRUE(from_json_line(line, &r, &error)) << error;
    EXPECT_EQ(to_json_line(r), library_json(r)) << "line " << records + 1;
    ++records;
  }
  EXPECT_GT(records, 30);
}

TEST(JsonLine, EscapesUnknownEnumsAndWideIntegersPrintAsTheLibraryPrintsThem) {
  v1::LogRecord header;
  auto* h = header.mutable_header();
  h->set_match_id("quote\" backslash\\ <tag> \x01\x1f\x7f\n\t\r\b\f");
  h->set_seed(18446744073709551615ull);
  h->add_bots()->set_display_name("caf\xc3\xa9");  // non-ASCII: left to the library
  h->add_bots()->mutable_confinement()->set_memory_mib(1ull << 40);
  EXPECT_EQ(to_json_line(header), library_json(header));

  v1::LogRecord play;
  auto* p = play.mutable_play();
  p->mutable_play()->set_end(static_cast<v1::End>(77));  // a number no name has
  p->set_comment("tab\there");
  p->add_options()->set_points(10);
  EXPECT_EQ(to_json_line(play), library_json(play));

  v1::LogRecord empty;  // no kind set
  EXPECT_EQ(to_json_line(empty), library_json(empty));

  v1::IndexEntry entry;
  entry.set_winner_side(-1);
  entry.mutable_match()->set_match_id("m-1");
  EXPECT_EQ(to_json_line(entry), library_json(entry));
}

// A line longer than the printer keeps its buffer for (a bot's output escaped six bytes a
// character: 200 KiB here), then short and long lines again: each as the library prints it,
// and appended after what the caller's string already held.
TEST(JsonLine, LinesLongerThanTheBufferKeptPrintAsTheLibraryPrintsThem) {
  v1::LogRecord long_play;
  long_play.mutable_play()->set_comment(std::string(200 * 1024 / 6, '\x01') + "end");
  v1::LogRecord short_play;
  short_play.mutable_play()->set_comment("short");
  std::string out = "before\n";
  std::string expected = out;
  for (const v1::LogRecord* r : {&long_play, &short_play, &long_play, &short_play}) {
    append_json_line(*r, out);
    expected += library_json(*r);
    EXPECT_EQ(to_json_line(*r), library_json(*r));
  }
  EXPECT_EQ(out, expected);
  EXPECT_GT(out.size(), size_t{400} * 1024);
}

// The printer reads the message's wire form: packed runs of numbers, repeated booleans and
// strings, nested repeated messages, and a proto3 optional field set to its default (on the
// wire, so printed) beside one left unset (not printed).
TEST(JsonLine, WireFormCornersPrintAsTheLibraryPrintsThem) {
  v1::LogRecord end;
  auto* me = end.mutable_match_end();
  for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 4294967295u}) me->add_scores(v);
  me->add_off_turn_cpu_us(0);
  me->add_off_turn_cpu_us(18446744073709551615ull);
  me->add_frozen_off_turn(true);
  me->add_frozen_off_turn(false);
  me->set_winner_side(-1);  // a negative int32 takes ten bytes on the wire
  EXPECT_EQ(to_json_line(end), library_json(end));

  v1::LogRecord start;
  auto* hs = start.mutable_hand_start();
  for (int seat = 0; seat < 4; ++seat) {
    auto* hand = hs->add_hands();
    for (int k = 0; k <= seat; ++k) hand->add_tiles()->set_high(static_cast<uint32_t>(k));
  }
  EXPECT_EQ(to_json_line(start), library_json(start));

  v1::TournamentBot bot;
  bot.set_sandbox(false);  // present although false
  bot.add_args("--seed");
  bot.add_args("");
  EXPECT_EQ(to_json_line(bot), library_json(bot));
  v1::Tournament t;  // its optional seed unset
  t.set_name("t");
  EXPECT_EQ(to_json_line(t), library_json(t));
}

// Fields the schema does not know (kept from a newer writer's wire form) are not printed by
// the library; a record carrying one, nested or at the top, prints as the library prints it.
TEST(JsonLine, UnknownFieldsPrintAsTheLibraryPrintsThem) {
  v1::LogRecord play;
  auto* p = play.mutable_play();
  p->set_seat(1);
  p->mutable_play()->mutable_tile()->set_high(6);
  p->mutable_play()->GetReflection()->MutableUnknownFields(p->mutable_play())->AddVarint(99, 7);
  EXPECT_EQ(to_json_line(play), library_json(play));
  play.GetReflection()->MutableUnknownFields(&play)->AddLengthDelimited(98, "x");
  EXPECT_EQ(to_json_line(play), library_json(play));
}

TEST(JsonLine, AppendingKeepsWhatWasThere) {
  v1::LogRecord r;
  r.mutable_pass()->set_seat(1);
  std::string out = "before;";
  append_json_line(r, out);
  EXPECT_EQ(out, "before;" + library_json(r));
}

}  // namespace
}  // namespace allfives::referee
