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

TEST(JsonLine, AppendingKeepsWhatWasThere) {
  v1::LogRecord r;
  r.mutable_pass()->set_seat(1);
  std::string out = "before;";
  append_json_line(r, out);
  EXPECT_EQ(out, "before;" + library_json(r));
}

}  // namespace
}  // namespace allfives::referee
