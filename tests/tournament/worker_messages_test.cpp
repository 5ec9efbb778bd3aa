// What a tournament's worker sends its parent (worker_messages.proto, framed by write_record):
// a result and a report come back as they were sent, whatever pieces the pipe cuts them into;
// a record that is cut off, too long or not a message is an error that says so, and a worker
// that sends one fails the run instead of crashing it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "log/match_log.h"
#include "tournament/worker_messages.h"
#include "tournament/worker_processes.h"

namespace allfives::referee {
namespace {

v1::IndexEntry sample_entry() {
  v1::IndexEntry e;
  e.mutable_match()->set_match_id("m-7");
  e.mutable_match()->add_seat_bots("greedy");
  e.mutable_match()->add_seat_bots("random");
  e.set_reason(v1::MATCH_END_REASON_TARGET);
  e.set_winner_side(1);
  e.add_scores(120);
  e.add_scores(250);
  e.set_fault_seat(-1);
  e.set_log_file("matches/m-7.jsonl");
  return e;
}

// Everything written to a pipe, read back through a RecordReader `piece` bytes at a time.
std::vector<std::string> through_a_pipe(const std::vector<std::string>& records, size_t piece,
                                        RecordReader& reader) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  for (const std::string& r : records) EXPECT_TRUE(write_record(fds[1], r));
  ::close(fds[1]);
  std::string bytes;
  char chunk[4096];
  for (ssize_t got; (got = ::read(fds[0], chunk, sizeof chunk)) > 0;)
    bytes.append(chunk, static_cast<size_t>(got));
  ::close(fds[0]);
  std::vector<std::string> out;
  for (size_t at = 0; at < bytes.size(); at += piece) {
    reader.append(std::string_view(bytes).substr(at, piece));
    for (std::string r; reader.next(&r);) out.push_back(r);
  }
  return out;
}

TEST(WorkerMessages, AResultAndAReportComeBackAsSentInPiecesOfAnySize) {
  worker::WorkerReport report;
  report.set_peak_rss_kib(31337);
  report.add_replaced(0);
  report.add_replaced(2);
  report.set_started(9);
  report.set_started_for_new_deals(4);
  for (size_t piece : {1, 3, 4, 5, 64, 4096}) {
    RecordReader reader;
    const std::vector<std::string> got =
        through_a_pipe({result_record(sample_entry()), report_record(report)}, piece, reader);
    ASSERT_EQ(got.size(), 2u) << "pieces of " << piece;
    EXPECT_EQ(reader.pending(), 0u);
    worker::WorkerMessage first, second;
    std::string why;
    ASSERT_TRUE(parse_worker_message(got[0], &first, &why)) << why;
    ASSERT_TRUE(parse_worker_message(got[1], &second, &why)) << why;
    ASSERT_TRUE(first.has_result());
    EXPECT_EQ(first.result().SerializeAsString(), sample_entry().SerializeAsString());
    ASSERT_TRUE(second.has_report());
    EXPECT_EQ(second.report().SerializeAsString(), report.SerializeAsString());
  }
}

TEST(WorkerMessages, ReportsAddUpAndOneOnMoreBotsThanTheTournamentHasIsRefused) {
  WorkerTotals totals(2);
  worker::WorkerReport a, b;
  a.set_peak_rss_kib(100);
  a.add_replaced(1);
  a.set_started(3);
  a.set_started_for_new_deals(1);
  b.set_peak_rss_kib(250);
  b.add_replaced(2);
  b.add_replaced(5);
  b.set_started(4);
  std::string why;
  ASSERT_TRUE(totals.add(a, &why)) << why;
  ASSERT_TRUE(totals.add(b, &why)) << why;
  EXPECT_EQ(totals.peak_rss_kib, 250);
  EXPECT_EQ(totals.replaced, (std::vector<int>{3, 5}));
  EXPECT_EQ(totals.started, 7);
  EXPECT_EQ(totals.started_for_new_deals, 1);
  b.add_replaced(1);
  EXPECT_FALSE(totals.add(b, &why));
  EXPECT_EQ(why, "a report on 3 bots, and the tournament has 2");
  EXPECT_EQ(totals.started, 7);  // a refused report adds nothing
}

TEST(WorkerMessages, BytesThatAreNotAMessageAreAnErrorThatSaysSo) {
  worker::WorkerMessage m;
  std::string why;
  EXPECT_FALSE(parse_worker_message("\xff\xff\xff\xff", &m, &why));
  EXPECT_EQ(why, "a message of 4 bytes that does not parse");
  // A result cut short: a field's length runs past the end.
  const std::string whole = result_record(sample_entry());
  EXPECT_FALSE(parse_worker_message(std::string_view(whole).substr(0, whole.size() / 2), &m, &why));
  // Valid protobuf, but neither a result nor a report.
  EXPECT_FALSE(parse_worker_message("", &m, &why));
  EXPECT_EQ(why, "a message that holds neither a result nor a report");
}

TEST(RecordReader, ALengthOverTheCapIsAnErrorAndACutOffRecordStaysPending) {
  RecordReader huge;
  huge.append(std::string("\xff\xff\xff\x7f", 4));
  std::string r;
  EXPECT_FALSE(huge.next(&r));
  EXPECT_NE(huge.error().find("a record of 2147483647 bytes, over the cap"), std::string::npos)
      << huge.error();
  huge.append(std::string(8, '\0'));
  EXPECT_FALSE(huge.next(&r));  // nothing more is read after the error

  RecordReader cut;
  const std::vector<std::string> got = through_a_pipe({"abcdef"}, 4096, cut);
  EXPECT_EQ(got, std::vector<std::string>{"abcdef"});
  cut.append(std::string("\x06\0\0\0abc", 7));
  EXPECT_FALSE(cut.next(&r));
  EXPECT_TRUE(cut.error().empty());
  EXPECT_EQ(cut.pending(), 7u);
}

// A worker whose stream is not records fails the run, naming what it sent; the parent neither
// crashes nor waits for more.
WorkerOutcome run_one_worker(const std::string& bytes, std::vector<std::string>* records) {
  std::atomic<bool> stop{false};
  return run_workers(
      1, 1, 0, [](size_t) -> std::optional<std::string> { return "job"; },
      [&](int, int jobs_fd, int results_fd) {
        char c;
        while (::read(jobs_fd, &c, 1) == 1 && c != '\n') {
        }
        const bool ok = write_fully(results_fd, bytes);
        ::close(results_fd);
        return ok ? 0 : 1;
      },
      [&](const std::string& record) {
        records->push_back(record);
        return true;
      },
      stop);
}

TEST(RunWorkers, AWorkerWhoseLastRecordIsCutOffFailsTheRun) {
  std::vector<std::string> records;
  const WorkerOutcome outcome = run_one_worker(std::string("\x0a\0\0\0abc", 7), &records);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.error.find("ended in the middle of a message (7 bytes of it received)"),
            std::string::npos)
      << outcome.error;
  EXPECT_TRUE(records.empty());
}

TEST(RunWorkers, AWorkerThatSendsALengthOverTheCapFailsTheRun) {
  std::vector<std::string> records;
  const WorkerOutcome outcome =
      run_one_worker(std::string("\x02\0\0\0ok", 6) + std::string("\xff\xff\xff\xff", 4), &records);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.error.find("over the cap"), std::string::npos) << outcome.error;
  EXPECT_EQ(records, std::vector<std::string>{"ok"});  // what came whole before it counts
}

// The framing as worker_messages.proto documents it: a 4-byte little-endian length, the bytes.
std::string framed(const std::string& bytes) {
  std::string out;
  for (int i = 0; i < 4; ++i) out += static_cast<char>((bytes.size() >> (8 * i)) & 0xff);
  return out + bytes;
}

TEST(RunWorkers, RecordsFromAWorkerArriveWhole) {
  std::vector<std::string> records;
  const std::string big(100000, 'x');  // more than a pipe holds at once
  const WorkerOutcome outcome = run_one_worker(framed("first") + framed(big), &records);
  EXPECT_TRUE(outcome.ok) << outcome.error;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], "first");
  EXPECT_EQ(records[1], big);
}

}  // namespace
}  // namespace allfives::referee
