// The match runner against scripted bots in memory (fake_bot.h): whole matches, each fault as
// a value, and the log they leave, checked by the replay checker. No process, no gRPC.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "log/library_json.h"
#include "log/log_reader.h"
#include "match/fake_bot.h"
#include "match/match_runner.h"
#include "replay/replay.h"

namespace allfives::referee {
namespace {

using testing::FakeBot;
using testing::Reply;

using allfives::testing::TempDir;

struct Played {
  MatchResult result;
  std::vector<v1::LogRecord> records;
  std::string log_path;
};

class MatchRunner : public ::testing::Test {
 protected:
  // Plays a match of `format` with `seed` between `bots` (one per seat).
  Played play(std::vector<FakeBot*> bots, Format format = Format::kTwoPlayers, uint64_t seed = 7,
              const std::atomic<bool>* stop = nullptr, std::vector<std::string> errors = {},
              int max_hands = kDefaultMaxHands) {
    specs_.resize(bots.size());
    MatchSpec spec;
    spec.match_id = "fake-match";
    spec.config = Config::standard(format);
    spec.config.max_hands = max_hands;
    spec.seed = seed;
    for (size_t seat = 0; seat < bots.size(); ++seat) {
      specs_[seat].display_name = "bot" + std::to_string(seat);
      specs_[seat].named = true;
      specs_[seat].address = "fake";
      SeatSpec s;
      s.spec = &specs_[seat];
      s.seat_bot = bots[seat];
      if (seat < errors.size()) s.startup_error = errors[seat];
      spec.seats.push_back(s);
    }
    Played out;
    out.log_path = dir_.file("fake-match.jsonl");
    std::string error;
    std::unique_ptr<MatchLog> log = MatchLog::create(out.log_path, &error);
    EXPECT_TRUE(log) << error;
    out.result = play_match(spec, *log, stop);
    EXPECT_TRUE(log->close(false, &error)) << error;
    std::ifstream in(out.log_path);
    for (std::string line; std::getline(in, line);) {
      v1::LogRecord r;
      EXPECT_TRUE(parse_log_line(line, r, &error)) << error;
      // The log's own printer writes what protobuf's would (tests/log/json_line_test.cpp).
      EXPECT_EQ(line, testing::library_json(r));
      out.records.push_back(r);
    }
    return out;
  }

  // The log passes the replay checker (every deal, play, draw, score and the result).
  static void expect_log_checks(const Played& p) {
    Replay replay;
    LogError error;
    EXPECT_TRUE(load_replay_file(p.log_path, replay, error)) << error.describe();
    EXPECT_TRUE(replay.finished);
  }

  // The match ended with a fault of `kind` by `seat` (kAnySeat: whichever seat).
  static constexpr int kAnySeat = -1;
  static ::testing::AssertionResult faulted(const Played& p, int seat, v1::FaultKind kind) {
    const std::optional<Fault>& f = p.result.fault;
    if (!f) return ::testing::AssertionFailure() << "no fault";
    if ((seat != kAnySeat && f->seat != seat) || f->kind != kind)
      return ::testing::AssertionFailure()
             << "seat " << f->seat << " kind " << f->kind << " (" << f->reason
             << "), expected seat " << seat << " kind " << kind;
    return ::testing::AssertionSuccess();
  }

  static int count(const Played& p, v1::LogRecord::KindCase kind) {
    int n = 0;
    for (const v1::LogRecord& r : p.records) n += r.kind_case() == kind;
    return n;
  }
  static const v1::LogFault* fault_record(const Played& p) {
    for (const v1::LogRecord& r : p.records)
      if (r.has_fault()) return &r.fault();
    return nullptr;
  }

  TempDir dir_{"match-runner"};
  std::vector<BotSpec> specs_;
};

TEST_F(MatchRunner, TwoHonestBotsPlayAWholeMatchAndTheLogChecks) {
  FakeBot a, b;
  const Played p = play({&a, &b});
  EXPECT_FALSE(p.result.fault);
  EXPECT_TRUE(p.result.reason == v1::MATCH_END_REASON_TARGET ||
              p.result.reason == v1::MATCH_END_REASON_HAND_LIMIT)
      << p.result.reason;
  EXPECT_GT(p.result.decisions, 0);
  EXPECT_EQ(p.result.decisions, count(p, v1::LogRecord::kPlay));
  EXPECT_EQ(p.result.hands_played, count(p, v1::LogRecord::kHandStart));
  ASSERT_EQ(p.result.hellos.size(), 2u);
  EXPECT_EQ(p.result.hellos[0].name, "scripted");
  EXPECT_EQ(p.records.front().kind_case(), v1::LogRecord::kHeader);
  EXPECT_EQ(count(p, v1::LogRecord::kMatchEnd), 1);
  expect_log_checks(p);
  // Each bot was asked for every one of its plays and told the end last.
  for (const FakeBot* bot : {&a, &b}) {
    EXPECT_EQ(bot->streams_opened(), 1);
    ASSERT_FALSE(bot->received().empty());
    EXPECT_TRUE(bot->received().front().has_match_start());
    EXPECT_TRUE(bot->received().back().has_match_end());
    EXPECT_EQ(bot->received().back().match_end().reason(), p.result.reason);
  }
  EXPECT_EQ(static_cast<int>(a.received().size() + b.received().size()) - 4, p.result.decisions);
}

TEST_F(MatchRunner, FourPlayerPartnershipsPlayToTheEnd) {
  FakeBot bots[4];
  const Played p = play({&bots[0], &bots[1], &bots[2], &bots[3]}, Format::kPartnerships, 11);
  EXPECT_FALSE(p.result.fault);
  EXPECT_EQ(p.result.scores.size(), 2u);
  expect_log_checks(p);
}

TEST_F(MatchRunner, ThreePlayersPlayToTheEndAndTheLogChecks) {
  FakeBot bots[3];
  const Played p = play({&bots[0], &bots[1], &bots[2]}, Format::kThreePlayers, 3);
  EXPECT_FALSE(p.result.fault);
  EXPECT_EQ(p.result.placements.size(), 3u);
  expect_log_checks(p);
}

TEST_F(MatchRunner, TheHandLimitEndsAMatchAfterItsLastHand) {
  FakeBot a, b;
  const Played p = play({&a, &b}, Format::kTwoPlayers, 7, nullptr, {}, /*max_hands=*/1);
  EXPECT_FALSE(p.result.fault);
  EXPECT_EQ(p.result.reason, v1::MATCH_END_REASON_HAND_LIMIT);
  EXPECT_EQ(p.result.hands_played, 1);
  EXPECT_EQ(count(p, v1::LogRecord::kHandEnd), 1);
  expect_log_checks(p);
}

TEST_F(MatchRunner, AMessageRightAfterHelloIsUnaskedCarryingMatchStartsNonce) {
  Reply eager = testing::hello();
  eager.unasked = testing::play_index(0).message;
  FakeBot a, b(testing::honest_but(-1, eager));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find("the nonce of MatchStart, which its Hello had answered"),
            std::string::npos)
      << p.result.fault->reason;
  expect_log_checks(p);
}

TEST_F(MatchRunner, AHelloOfProtocol2IsRefusedNamingBothVersionsAndTheFix) {
  FakeBot a, b(testing::honest_but(-1, testing::hello(2)));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find(
                "protocol version 2 but this referee speaks version 3 only: update the bot's SDK"),
            std::string::npos)
      << p.result.fault->reason;
  EXPECT_EQ(p.result.decisions, 0);
  EXPECT_EQ(count(p, v1::LogRecord::kPlay), 0);
}

TEST_F(MatchRunner, AnIllegalPlayIsTheMoversFaultAndTheOtherSideWins) {
  FakeBot a, b(testing::honest_but(2, testing::play_index(99)));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_ILLEGAL_PLAY));
  EXPECT_NE(p.result.fault->reason.find("legal_play_index 99 is out of range"), std::string::npos)
      << p.result.fault->reason;
  EXPECT_EQ(p.result.reason, v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(p.result.winner_side, 0);
  EXPECT_EQ(p.result.placements, (std::vector<int>{1, 2}));
  const v1::LogFault* f = fault_record(p);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->seat(), 1u);
  EXPECT_EQ(f->kind(), v1::FAULT_KIND_ILLEGAL_PLAY);
  expect_log_checks(p);
  EXPECT_EQ(b.received().back().match_end().fault_seat(), 1);
}

TEST_F(MatchRunner, APlayOfATileNotInTheHandIsIllegal) {
  // Seat 0 plays the first tile of the set it does not hold.
  FakeBot a([](const v1::RefereeMessage& m, int) {
    if (m.has_match_start()) return testing::hello();
    Reply r;
    const v1::TurnRequest& t = m.turn_request();
    for (int hi = 0; hi <= 6; ++hi)
      for (int lo = 0; lo <= hi; ++lo) {
        bool held = false;
        for (const v1::Tile& tile : t.your_tiles())
          held |= static_cast<int>(tile.high()) == hi && static_cast<int>(tile.low()) == lo;
        if (held) continue;
        v1::Play* p = r.message.mutable_play()->mutable_play();
        p->mutable_tile()->set_high(static_cast<uint32_t>(hi));
        p->mutable_tile()->set_low(static_cast<uint32_t>(lo));
        p->set_end(v1::END_LEFT);
        return r;
      }
    return r;
  });
  FakeBot b;
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, kAnySeat, v1::FAULT_KIND_ILLEGAL_PLAY));
  EXPECT_NE(p.result.fault->reason.find("; hand "), std::string::npos) << p.result.fault->reason;
  expect_log_checks(p);
}

TEST_F(MatchRunner, AnAnswerNamingNoPlayIsMalformed) {
  Reply empty;
  empty.message.mutable_play()->set_comment("thinking");
  FakeBot a(testing::honest_but(0, empty)), b;
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 0, v1::FAULT_KIND_MALFORMED_ANSWER));
  expect_log_checks(p);
}

TEST_F(MatchRunner, ATurnRequestNeverAnsweredIsATimeout) {
  Reply never;
  never.kind = Reply::Kind::kTimeout;
  FakeBot a, b(testing::honest_but(3, never));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_TIMEOUT));
  EXPECT_NE(p.result.fault->reason.find("no answer to the turn request within"), std::string::npos)
      << p.result.fault->reason;
  // Its stream was cancelled: it is not told the end, the other bot is.
  EXPECT_FALSE(b.closed_by_referee());
  EXPECT_TRUE(a.closed_by_referee());
  expect_log_checks(p);
}

TEST_F(MatchRunner, ABotWhoseProcessDiesHasCrashedAndItsLastWordsGoWithTheFault) {
  Reply crash;
  crash.kind = Reply::Kind::kCrash;
  crash.exit = "killed by signal 11 (SIGSEGV)";
  crash.printed = "segfault in my_search()\n";
  FakeBot a(testing::honest_but(1, crash)), b;
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 0, v1::FAULT_KIND_CRASH));
  EXPECT_EQ(p.result.fault->reason,
            "the bot process killed by signal 11 (SIGSEGV) while waiting for a play");
  const v1::LogFault* f = fault_record(p);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->output().text(), "segfault in my_search()\n");
  expect_log_checks(p);
}

TEST_F(MatchRunner, AStreamThatBreaksOnABotReachedAtAnAddressIsADisconnect) {
  Reply reset;
  reset.kind = Reply::Kind::kClose;
  reset.status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection reset");
  FakeBot a, b(testing::honest_but(0, reset), /*has_process=*/false);
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_DISCONNECT));
  EXPECT_NE(p.result.fault->reason.find("UNAVAILABLE"), std::string::npos)
      << p.result.fault->reason;
  expect_log_checks(p);
}

TEST_F(MatchRunner, AStreamEndedCleanlyBeforeTheEndIsAProtocolViolation) {
  Reply bye;
  bye.kind = Reply::Kind::kClose;
  bye.status = grpc::Status::OK;
  FakeBot a(testing::honest_but(2, bye), /*has_process=*/false), b;
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, kAnySeat, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find("ended the stream before the match ended"),
            std::string::npos);
}

TEST_F(MatchRunner, ASecondAnswerToOneRequestIsCaughtAsUnasked) {
  Reply twice = testing::play_index(0);
  twice.unasked = testing::play_index(0).message;
  FakeBot a([&](const v1::RefereeMessage& m, int turn) {
    if (m.has_match_start()) return testing::hello();
    return turn == 1 ? twice : testing::first_legal(m.turn_request());
  });
  FakeBot b;
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 0, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find("the nonce of turn request 2, which it had answered"),
            std::string::npos)
      << p.result.fault->reason;
  expect_log_checks(p);
}

TEST_F(MatchRunner, AnAnswerWithAnotherRequestsNonceIsUnasked) {
  Reply stale = testing::play_index(0);
  stale.nonce = 12345;
  FakeBot a, b(testing::honest_but(0, stale));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find("nonce 12345, which no request to it had"),
            std::string::npos)
      << p.result.fault->reason;
}

TEST_F(MatchRunner, AHelloOfAnUnknownProtocolVersionEndsTheMatchBeforeItsFirstPlay) {
  FakeBot a, b(testing::honest_but(-1, testing::hello(99)));
  const Played p = play({&a, &b});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_PROTOCOL_VIOLATION));
  EXPECT_NE(p.result.fault->reason.find("protocol version 99"), std::string::npos);
  EXPECT_EQ(p.result.decisions, 0);
  EXPECT_EQ(count(p, v1::LogRecord::kPlay), 0);
  EXPECT_EQ(count(p, v1::LogRecord::kHeader), 1);
  EXPECT_EQ(count(p, v1::LogRecord::kMatchEnd), 1);
}

TEST_F(MatchRunner, ASeatWithoutABotIsAStartupFailureAndNobodyHearsMatchStart) {
  FakeBot a;
  const Played p =
      play({&a, nullptr}, Format::kTwoPlayers, 7, nullptr, {"", "the program was not found"});
  ASSERT_TRUE(faulted(p, 1, v1::FAULT_KIND_STARTUP_FAILURE));
  EXPECT_EQ(p.result.fault->reason, "the program was not found");
  EXPECT_EQ(a.streams_opened(), 0);
  EXPECT_TRUE(a.received().empty());
}

TEST_F(MatchRunner, WhatABotPrintsWhileDecidingGoesUnderThatDecision) {
  FakeBot a([](const v1::RefereeMessage& m, int turn) {
    if (m.has_match_start()) return testing::hello();
    Reply r = testing::first_legal(m.turn_request());
    r.printed = "turn " + std::to_string(turn) + "\n";
    r.message.mutable_play()->set_comment("my comment");
    return r;
  });
  FakeBot b;
  const Played p = play({&a, &b});
  EXPECT_FALSE(p.result.fault);
  int seen = 0;
  for (const v1::LogRecord& r : p.records) {
    if (!r.has_play() || r.play().seat() != 0) continue;
    EXPECT_EQ(r.play().output().text(), "turn " + std::to_string(seen) + "\n");
    EXPECT_EQ(r.play().comment(), "my comment");
    ++seen;
  }
  EXPECT_GT(seen, 0);
  EXPECT_EQ(count(p, v1::LogRecord::kBotOutput), 0);
  expect_log_checks(p);
}

// Quick decisions' records are written in groups, but a bot that thinks for longer than the
// runner's look interval finds every earlier decision in the file (a live page or a human's
// turn shows the match as it stands).
TEST_F(MatchRunner, WhileABotThinksTheLogOnDiskHoldsEveryEarlierDecision) {
  int requests = 0;  // turn requests sent to either bot
  int plays_on_disk = -1;
  const std::string path = dir_.file("fake-match.jsonl");
  auto count_turns = [&requests](const v1::RefereeMessage& m, int) {
    if (m.has_match_start()) return testing::hello();
    ++requests;
    return testing::first_legal(m.turn_request());
  };
  FakeBot a([&](const v1::RefereeMessage& m, int turn) {
    Reply r = count_turns(m, turn);
    if (turn != 6 || !m.has_turn_request()) return r;
    r.while_thinking = [&] {
      std::ifstream in(path);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ASSERT_FALSE(text.empty());
      EXPECT_EQ(text.back(), '\n');  // whole lines only
      plays_on_disk = 0;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        v1::LogRecord rec;
        std::string error;
        ASSERT_TRUE(parse_log_line(line, rec, &error)) << error;
        plays_on_disk += rec.has_play();
      }
      EXPECT_EQ(plays_on_disk, requests - 1);  // every decision but the one being made
    };
    return r;
  });
  FakeBot b(count_turns);
  const Played p = play({&a, &b});
  EXPECT_FALSE(p.result.fault);
  EXPECT_GE(plays_on_disk, 11);  // the check ran, at a's 7th turn
  expect_log_checks(p);
}

TEST_F(MatchRunner, ARaisedStopFlagAbortsTheMatch) {
  std::atomic<bool> stop{false};
  FakeBot a([&](const v1::RefereeMessage& m, int turn) {
    if (m.has_match_start()) return testing::hello();
    if (turn == 2) stop = true;
    return testing::first_legal(m.turn_request());
  });
  FakeBot b;
  const Played p = play({&a, &b}, Format::kTwoPlayers, 7, &stop);
  EXPECT_EQ(p.result.reason, v1::MATCH_END_REASON_ABORTED);
  EXPECT_FALSE(p.result.fault);
  EXPECT_EQ(p.result.winner_side, -1);
}

TEST_F(MatchRunner, OneBotAtBothSeatsOfASideIsOneProcessWithOneOutputRecord) {
  FakeBot a([](const v1::RefereeMessage& m, int) {
    if (m.has_match_start()) {
      Reply r = testing::hello();
      r.printed = "hello from the shared process\n";
      return r;
    }
    return testing::first_legal(m.turn_request());
  });
  FakeBot b, d;
  const Played p = play({&a, &b, &a, &d}, Format::kPartnerships, 5);
  EXPECT_FALSE(p.result.fault);
  EXPECT_EQ(a.streams_opened(), 2);  // a stream per seat
  EXPECT_EQ(count(p, v1::LogRecord::kBotOutput), 1);
  for (const v1::LogRecord& r : p.records)
    if (r.has_bot_output()) {
      EXPECT_EQ(r.bot_output().seat(), 0u);
      EXPECT_NE(r.bot_output().stderr().find("hello from the shared process\nhello from the shared "
                                             "process\n"),
                std::string::npos);
    }
  expect_log_checks(p);
}

}  // namespace
}  // namespace allfives::referee
