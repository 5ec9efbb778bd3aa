// End-to-end tests of a bot that abuses the protocol: the real referee against the
// misbehaving bot, asserting the exact fault kind and reason and what the log keeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/e2e_util.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

// An honest opponent that waits 100 ms before each answer (its Hello too): an unasked answer
// sent right after an answer arrives long before the referee's next request to that seat, so
// each test sees one outcome however busy the machine. (The referee needs only that the
// unasked message arrive before it sends the next request.)
const std::string kSlowOpponent = kBadBot + " --mode normal --delay-ms 100";

using Match = PlayedMatch;

Match play(const std::string& name, const std::vector<std::string>& bots,
           const std::vector<std::string>& extra = {}) {
  return play_match(kReferee, name, bots, 1000, 1000, extra);
}

std::string bad(const std::string& mode, int at = 3) {
  return kBadBot + " --mode " + mode + " --at " + std::to_string(at);
}

// How a protocol-3 violation by nonce ends every reason.
const std::string kByNonce =
    ": an answer nobody asked for (each request gets exactly one answer, carrying the request's "
    "nonce)";

// The match ended by a fault of seat 0 of `kind` whose reason is exactly `reason`, and
// everything before it followed the rules.
void expect_fault(const Match& m, v1::FaultKind kind, const std::string& reason) {
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.seat(), 0u);
  EXPECT_EQ(f.kind(), kind) << f.reason();
  EXPECT_EQ(f.reason(), reason);
  const auto& end = only(m.log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.reason(), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(end.fault_seat(), 0);
  EXPECT_EQ(end.fault_kind(), kind);
  EXPECT_EQ(end.winner_side(), 1);
  EXPECT_NE(m.run.output.find("Fault: seat 0"), std::string::npos) << m.run.output;
  expect_log_follows_rules(m.log);
}

int plays_by(const Match& m, uint32_t seat) {
  int n = 0;
  for (const auto& r : m.log) n += r.has_play() && r.play().seat() == seat;
  return n;
}

// The referee keeps no read open between requests; the nonce tells an unasked answer.

TEST(ProtocolAbuse, Protocol3ASecondAnswerCarriesTheNonceOfAnAnsweredRequest) {
  const Match m = play("twice3", {bad("answer-twice", 3), kSlowOpponent});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "answered turn request 4 with PlayAnswer carrying the nonce of turn request 3, "
               "which it had answered" +
                   kByNonce);
  EXPECT_EQ(plays_by(m, 0), 3);
}

TEST(ProtocolAbuse, Protocol3AnAnswerBeforeAnyRequestCarriesMatchStartsNonce) {
  const Match m = play("early3", {bad("answer-early"), kSlowOpponent});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "answered turn request 1 with PlayAnswer carrying the nonce of MatchStart, which "
               "its Hello had answered" +
                   kByNonce);
  EXPECT_EQ(plays_by(m, 0), 0);
}

TEST(ProtocolAbuse, Protocol3AnAnswerWithAStaleNonceIsAViolationNotTheAnswer) {
  // A well-formed, legal PlayAnswer in time, but carrying the previous request's nonce: an old
  // answer, not this request's.
  const Match m = play("stale3", {bad("stale-nonce", 3), kRandom});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "answered turn request 3 with PlayAnswer carrying the nonce of turn request 2, "
               "which it had answered" +
                   kByNonce);
  EXPECT_EQ(plays_by(m, 0), 2);
}

TEST(ProtocolAbuse, Protocol3AnAnswerWithAGuessedNonceIsAViolation) {
  const Match m = play("forged3", {bad("forged-nonce", 3), kRandom});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "answered turn request 3 with PlayAnswer carrying nonce 12345, which no request "
               "to it had" +
                   kByNonce);
  EXPECT_EQ(plays_by(m, 0), 2);
}

TEST(ProtocolAbuse, Protocol3AHelloWithoutMatchStartsNonceIsAViolation) {
  const Match m = play("hello3", {bad("hello-nonce"), kRandom});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "its Hello says protocol version 3 but carries nonce 0, not MatchStart's (from "
               "version 3 on, an answer carries the nonce of the request it answers)");
  EXPECT_EQ(plays_by(m, 0), 0);
}

// Protocol 2 told unasked answers by their timing, and 1 MiB answers still in flight when a
// request left were taken as its answer: a bot whose Hello says 2 is refused before any
// request, so none of its flood is ever taken.
TEST(ProtocolVersions, AVersion2BotFloodingUnaskedAnswersIsRefusedAtHelloAndNoneIsTaken) {
  const Match m = play("v2flood", {kBadBot + " --mode flood-unasked --protocol 2", kSlowOpponent});
  expect_fault(m, v1::FAULT_KIND_PROTOCOL_VIOLATION,
               "the bot speaks protocol version 2 but this referee speaks version 3 only: "
               "update the bot's SDK (allfives_bot) to one that speaks version 3, or answer "
               "Hello with protocol_version 3 and carry each request's nonce in its answer");
  EXPECT_EQ(plays_by(m, 0), 0);
  EXPECT_EQ(only(m.log, v1::LogRecord::kMatchEnd).match_end().hands_played(), 0u);
}

TEST(ProtocolAbuse, AbortingTheStreamWhileAliveIsADisconnectNotACrash) {
  const Match m = play("abort", {bad("abort-stream", 3), kRandom});
  // gRPC words the status message; its code and the rest of the reason are the referee's.
  const std::string prefix =
      "the stream ended with an error while waiting for a play (gRPC status CANCELLED (1): ";
  const std::string suffix = "; the bot process had not exited 1000 ms after its stream ended";
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.reason().substr(0, prefix.size()), prefix) << f.reason();
  ASSERT_GE(f.reason().size(), suffix.size());
  EXPECT_EQ(f.reason().substr(f.reason().size() - suffix.size()), suffix) << f.reason();
  expect_fault(m, v1::FAULT_KIND_DISCONNECT, f.reason());
  EXPECT_EQ(plays_by(m, 0), 2);
}

TEST(ProtocolAbuse, AFailingHandlerIsADisconnectWithItsStatus) {
  // The status message ends in a byte that is not UTF-8: kept, escaped.
  const Match m = play("error", {bad("error-status", 3), kRandom});
  expect_fault(m, v1::FAULT_KIND_DISCONNECT,
               "the stream ended with an error while waiting for a play (gRPC status INTERNAL "
               "(13): the handler failed on purpose \\xff); the bot process had not exited 1000 ms "
               "after its stream ended");
  EXPECT_EQ(m.run.output.find("UTF-8"), std::string::npos) << m.run.output;
}

// A bot that exits right after answering, at once or with its stream ended first and its
// process gone 600 ms later (a slow teardown): the fault says it exited, never that it runs
// (the referee used to word it "still running" when the process was not reaped within 400 ms).
TEST(ProtocolAbuse, ABotThatExitsRightAfterAnsweringIsNeverSaidToBeRunning) {
  int crashes = 0;
  for (int run = 0; run < 20; ++run) {
    const int exit_ms = run % 2 == 0 ? 0 : 600;
    SCOPED_TRACE("run " + std::to_string(run) + ", exit after " + std::to_string(exit_ms) + " ms");
    const Match m =
        play("exits-" + std::to_string(run),
             {bad("exit-after-answer", 1) + " --ms " + std::to_string(exit_ms), kRandom});
    ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
    const auto& f = only(m.log, v1::LogRecord::kFault).fault();
    EXPECT_EQ(f.seat(), 0u) << f.reason();
    EXPECT_EQ(f.reason().find("still running"), std::string::npos) << f.reason();
    EXPECT_EQ(plays_by(m, 0), 1);  // its one answer was kept
    if (f.kind() == v1::FAULT_KIND_CRASH) {
      EXPECT_EQ(f.reason(), "the bot process exited with code 0 while waiting for a play");
      ++crashes;
    } else {
      // Only a machine so busy that the exit was not reaped within the wait: said as such.
      EXPECT_EQ(f.kind(), v1::FAULT_KIND_DISCONNECT) << f.reason();
      EXPECT_NE(f.reason().find("had not exited 1000 ms after its stream ended"), std::string::npos)
          << f.reason();
    }
  }
  EXPECT_GE(crashes, 15);
}

TEST(ProtocolAbuse, AMessageOverTheSizeLimitIsAMalformedAnswerNamingTheLimit) {
  const Match m = play("oversized", {bad("oversized", 3), kRandom});
  const std::string prefix =
      "sent a message over the size limit of 4 MiB (4194304 bytes) while waiting for a play "
      "(gRPC status RESOURCE_EXHAUSTED (8): ";
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.reason().substr(0, prefix.size()), prefix) << f.reason();
  expect_fault(m, v1::FAULT_KIND_MALFORMED_ANSWER, f.reason());
  EXPECT_EQ(plays_by(m, 0), 2);
}

TEST(ProtocolAbuse, NoHelloIsATimeoutGivingTheLimit) {
  const Match m = play("nohello", {bad("no-hello"), kRandom}, {"--startup-timeout-ms", "1000"});
  expect_fault(m, v1::FAULT_KIND_TIMEOUT,
               "no Hello within 1000 ms of MatchStart (the start-up timeout: "
               "--startup-timeout-ms of referee match and check-bot, startup_timeout_ms in a "
               "tournament file)");
}

TEST(ProtocolAbuse, OutputThatIsNotUtf8IsKeptEscapedAndCounted) {
  const Match m = play("utf8", {bad("invalid-utf8", 2), kRandom});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_NE(only(m.log, v1::LogRecord::kMatchEnd).match_end().reason(), v1::MATCH_END_REASON_FAULT);
  // Printed at decision 2: in that play's output.
  const v1::LogOutput* out = nullptr;
  int decision = 0;
  for (const auto& r : m.log)
    if (r.has_play() && r.play().seat() == 0 && ++decision == 2) out = &r.play().output();
  ASSERT_NE(out, nullptr) << "the bot's output must be in the log";
  EXPECT_EQ(out->text(), "bad bytes: \\x80 \\xc3 \\xff, good: \xc3\xa9\n");
  EXPECT_EQ(out->invalid_utf8_bytes(), 3u);
  EXPECT_EQ(printed_by(m.log, 0), out->text());  // and nowhere else
  // No library complaint about the bytes reaches the referee's own output.
  EXPECT_EQ(m.run.output.find("UTF-8"), std::string::npos) << m.run.output;
  expect_log_follows_rules(m.log);
}

TEST(ProtocolAbuse, WhenOneSeatFailsToStartOnlyItIsReported) {
  // Seat 0 never opens its socket; seat 1 is ready at once and must neither be reported nor
  // hear of a match that never began.
  const std::string dir = temp_dir("quiet");
  const Match m =
      play("quiet-match", {bad("no-socket"), kBadBot + " --mode normal --record " + dir + "/seat1"},
           {"--startup-timeout-ms", "1000"});
  ASSERT_EQ(m.run.exit_code, 0) << m.run.output;
  const auto& f = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_EQ(f.seat(), 0u);
  EXPECT_EQ(f.kind(), v1::FAULT_KIND_STARTUP_FAILURE);
  EXPECT_NE(m.run.output.find("seat 0 failed to start"), std::string::npos) << m.run.output;
  EXPECT_EQ(m.run.output.find("seat 1 failed"), std::string::npos) << m.run.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/seat1")) << "seat 1 was sent a message";
}

TEST(ProtocolAbuse, InATournamentABotThatCannotStartIsTheOnlyOneReported) {
  // "broken" exits at once in every match; "honest" starts fine and must never hear of a match
  // that cannot begin, nor be blamed or replaced. A bot that never starts stops the run (exit
  // 1, naming it), and none of its matches is recorded.
  const std::string d = temp_dir("quiet-tournament");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"quiet\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"broken\" command: \"" << kBadBot
                      << "\" args: \"--mode\" args: \"exit-at-startup\" }\n"
                      << "bots { name: \"honest\" command: \"" << kBadBot
                      << "\" args: \"--record\" args: \"" << d << "/honest\" }\n"
                      << "matches_per_pairing: 2\nseed: 1\n";
  const RunResult r = run({kReferee, "tournament", file, "--out", d + "/out", "-j", "1"},
                          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bot 'broken' never started"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exited with code 7"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("'honest'"), std::string::npos) << r.output;
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(referee::read_index(d + "/out/index.jsonl", false, entries, notes, &error)) << error;
  EXPECT_TRUE(entries.empty());
  EXPECT_FALSE(std::filesystem::exists(d + "/honest")) << "honest was sent a message";
  EXPECT_EQ(r.output.find("bot honest:"), std::string::npos) << r.output;
}

// A bot whose first start fails but which then starts: its start-up fault is a real forfeit,
// recorded once the bot has shown it can start, and the run finishes normally.
TEST(ProtocolAbuse, AStartUpFaultOfABotThatStartsLaterIsAForfeit) {
  const std::string d = temp_dir("flaky-start");
  const std::string file = d + "/t.txtpb";
  std::ofstream(file) << "name: \"flaky\"\nformat: FORMAT_TWO_PLAYERS\n"
                      << "bots { name: \"flaky\" sandbox: false command: \"" << kBadBot
                      << "\" args: \"--fail-starts\" args: \"1\" args: \"--count-file\" args: \""
                      << d << "/starts\" }\n"
                      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
                      << "matches_per_pairing: 4\nseed: 1\n";
  const RunResult r = run({kReferee, "tournament", file, "--out", d + "/out", "-j", "1"},
                          std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  ASSERT_TRUE(referee::read_index(d + "/out/index.jsonl", false, entries, notes, &error)) << error;
  ASSERT_EQ(entries.size(), 4u);
  int startup = 0;
  for (const auto& e : entries)
    if (e.fault_kind() == v1::FAULT_KIND_STARTUP_FAILURE) {
      ++startup;
      EXPECT_EQ(e.match().seat_bots(e.fault_seat()), "flaky");
      EXPECT_NE(e.fault_reason().find("failing start 1 of 1"), std::string::npos)
          << e.fault_reason();
    }
  EXPECT_EQ(startup, 1) << r.output;
}

}  // namespace
}  // namespace allfives::e2e
