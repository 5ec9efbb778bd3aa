// End-to-end tests of the human seat over plain sockets and a terminal: the real referee binary
// seats a person (these tests, through the page's own requests or typed plays) against a sample
// bot; what the seat is sent is checked against the match's log.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "allfives/core/types.h"
#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

// Parses a JSON document into a Struct (fails the test if it is not JSON).
google::protobuf::Struct json(const std::string& text) {
  google::protobuf::Struct s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &s).ok()) << text.substr(0, 200);
  return s;
}

HumanMatch start_human(const std::string& name, std::vector<std::string> extra = {}) {
  HumanMatch h =
      start_human_match(kReferee, kGreedy, temp_dir(name) + "/human.jsonl", std::move(extra));
  EXPECT_EQ(h.token.size(), 32u) << h.referee->output();
  return h;
}

std::set<std::string> pairs_of(const std::string& s) {
  std::set<std::string> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.insert(s.substr(i, 2));
  return out;
}

std::string pair_of(const v1::Tile& t) {
  return std::to_string(t.high()) + std::to_string(t.low());
}

TEST(HumanSeatTest, ThePageNeedsItsToken) {
  HumanMatch h = start_human("human-token");
  ASSERT_GT(h.port, 0);
  EXPECT_EQ(http_get(h.port, "/").status, 403);
  EXPECT_EQ(http_get(h.port, "/?token=").status, 403);
  EXPECT_EQ(http_get(h.port, "/?token=" + std::string(32, '0')).status, 403);
  EXPECT_EQ(http_get(h.port, "/events").status, 403);
  EXPECT_EQ(http_post(h.port, "/play", "seq=0&play=0").status, 403);
  EXPECT_EQ(http_post(h.port, "/play?token=" + h.token.substr(0, 31), "seq=0&play=0").status, 403);
  const HttpReply page = http_get(h.port, h.target);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(h.referee->interrupt(), 130);
}

// Plays a whole match through the page's own requests (what the page's buttons send) and
// checks everything the seat was sent against the log: never a tile of another hand before
// that hand's end reveals it.
TEST(HumanSeatTest, APersonPlaysAWholeMatchAndSeesOnlyTheirOwnTiles) {
  HumanMatch h = start_human("human-play", {"--move-time-ms", "20000"});
  ASSERT_GT(h.port, 0);
  std::vector<google::protobuf::Struct> seen;
  int plays = 0;
  read_events(
      h.port, "/events?token=" + h.token,
      [&](const std::string& data) {
        seen.push_back(json(data));
        const auto& f = seen.back().fields();
        const auto& legal = f.at("legal").list_value().values();
        if (f.at("to_move").number_value() == f.at("seat").number_value() && !legal.empty()) {
          // The last legal play, so both ends get chosen over a match.
          const int pick = legal.size() - 1;
          const HttpReply r = http_post(
              h.port, "/play?token=" + h.token,
              "seq=" + std::to_string(static_cast<long long>(f.at("seq").number_value())) +
                  "&play=" + std::to_string(pick));
          EXPECT_EQ(r.status, 200) << r.body;
          ++plays;
        }
        return !f.at("over").bool_value();
      },
      120s);
  // Done: the page's "Done" button; the referee ends at once.
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  ASSERT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
  ASSERT_FALSE(seen.empty());
  const auto& last = seen.back().fields();
  EXPECT_TRUE(last.at("over").bool_value());
  EXPECT_GT(plays, 5);
  // The end in words, from the person's side: "You won!", "You lost", "A draw".
  const std::string outcome = last.at("outcome").string_value();
  EXPECT_EQ(last.at("result").string_value(), outcome == "won"    ? "You won!"
                                              : outcome == "lost" ? "You lost"
                                                                  : "A draw");
  EXPECT_NE(last.at("detail").string_value().find("target of 250 points"), std::string::npos);
  // The bot by its own name (its Hello), not its program's file name.
  EXPECT_EQ(last.at("names").list_value().values(1).string_value(), "greedy");
  const auto log = read_log(h.log);
  expect_log_follows_rules(log);
  EXPECT_EQ(log[0].header().bots(0).display_name(), "me");
  EXPECT_EQ(only(log, v1::LogRecord::kMatchEnd).match_end().fault_seat(), -1);
  // Seat 0's tiles over each hand (dealt and drawn), from the log.
  std::map<int, std::set<std::string>> mine;
  int hand = -1;
  for (const auto& r : log) {
    if (r.has_hand_start()) {
      hand = static_cast<int>(r.hand_start().hand_index());
      for (const auto& t : r.hand_start().hands(0).tiles()) mine[hand].insert(pair_of(t));
    }
    if (r.has_draw() && r.draw().seat() == 0)
      for (const auto& t : r.draw().tiles()) mine[hand].insert(pair_of(t));
  }
  for (const auto& m : seen) {
    const auto& f = m.fields();
    const int h_index = static_cast<int>(f.at("hand_index").number_value());
    for (const std::string& t : pairs_of(f.at("hand").string_value()))
      EXPECT_TRUE(mine[h_index].count(t))
          << "tile " << t << " sent as seat 0's in hand " << h_index;
    if (f.count("revealed")) {
      // Only at a hand's end: the page was told the hand is over.
      bool ended = false;
      for (const auto& e : f.at("events").list_value().values())
        ended = ended || e.string_value().find("ends:") != std::string::npos;
      EXPECT_TRUE(ended) << "hands revealed before the hand's end";
      EXPECT_TRUE(f.at("legal").list_value().values().empty());
    }
  }
}

TEST(HumanSeatTest, APersonWhoDoesNotAnswerLosesOnTimeAndIsToldSo) {
  HumanMatch h = start_human("human-late", {"--move-time-ms", "300", "--time-bank-ms", "200"});
  ASSERT_GT(h.port, 0);
  google::protobuf::Struct last;
  bool clock_apart = false;
  read_events(
      h.port, "/events?token=" + h.token,
      [&](const std::string& data) {
        last = json(data);
        const auto& clock = last.fields().at("clock").struct_value().fields();
        // Move time and bank, apart: 300 ms for the move, then the 200 ms bank.
        if (clock.at("running").bool_value())
          clock_apart = clock.at("move_ms").number_value() <= 300 &&
                        clock.at("bank_ms").number_value() <= 200 &&
                        clock.at("move_time_ms").number_value() == 300;
        return !last.fields().at("over").bool_value();
      },
      30s);
  EXPECT_TRUE(clock_apart);
  // The page never stays on "waiting": it hears the end, in words, with the rematch offer.
  EXPECT_EQ(last.fields().at("result").string_value(), "You ran out of time");
  EXPECT_EQ(last.fields().at("outcome").string_value(), "lost");
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  ASSERT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
  const auto log = read_log(h.log);
  const auto& end = only(log, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.fault_seat(), 0);
  EXPECT_EQ(end.fault_kind(), v1::FAULT_KIND_TIMEOUT);
}

// A click from an earlier turn (the page's table of before) must not play in the current one.
TEST(HumanSeatTest, APlayAnsweringAnEarlierTableIsRefused) {
  HumanMatch h = start_human("human-seq", {"--move-time-ms", "20000"});
  ASSERT_GT(h.port, 0);
  int refused = 0, played = 0;
  long long previous = -1;
  read_events(
      h.port, "/events?token=" + h.token,
      [&](const std::string& data) {
        const auto m = json(data);
        const auto& f = m.fields();
        const long long seq = static_cast<long long>(f.at("seq").number_value());
        if (f.at("to_move").number_value() == f.at("seat").number_value() &&
            !f.at("legal").list_value().values().empty()) {
          if (previous >= 0) {  // the table before this one offered an earlier decision
            const HttpReply late = http_post(h.port, "/play?token=" + h.token,
                                             "seq=" + std::to_string(previous) + "&play=0");
            EXPECT_EQ(late.status, 409) << late.body;
            refused += late.status == 409;
          }
          const HttpReply now =
              http_post(h.port, "/play?token=" + h.token, "seq=" + std::to_string(seq) + "&play=0");
          EXPECT_EQ(now.status, 200) << now.body;
          // Twice for one decision: the second is refused too.
          EXPECT_EQ(
              http_post(h.port, "/play?token=" + h.token, "seq=" + std::to_string(seq) + "&play=0")
                  .status,
              409);
          ++played;
        }
        previous = seq;
        return played < 6;
      },
      60s);
  EXPECT_EQ(played, 6);
  EXPECT_GE(refused, 5);
  EXPECT_EQ(h.referee->interrupt(), 130);
  // Every play in the log is one the person sent for its own turn: no fault.
  const auto log = read_log(h.log);
  EXPECT_EQ(only(log, v1::LogRecord::kMatchEnd).match_end().fault_seat(), -1);
}

TEST(HumanSeatTest, NobodyOpeningThePageEndsTheWaitWithoutAMatch) {
  HumanMatch h = start_human("human-nobody", {"--human-startup-timeout-ms", "700"});
  ASSERT_GT(h.port, 0);
  EXPECT_EQ(h.referee->wait_exit(30s), 1) << h.referee->output();
  EXPECT_NE(h.referee->output().find("nobody opened the seat's page within"), std::string::npos)
      << h.referee->output();
  EXPECT_FALSE(std::filesystem::exists(h.log));
  const RunResult help = run({kReferee, "match", "--help"});
  EXPECT_NE(help.output.find("--human-startup-timeout-ms"), std::string::npos);
}

// The opponent's program crashes: the page says who forfeited, and why, in a sentence.
TEST(HumanSeatTest, AnOpponentsForfeitIsExplainedInWords) {
  HumanMatch h =
      start_human_match(kReferee, kBadBot + " --mode crash --at 2",
                        temp_dir("human-forfeit") + "/human.jsonl", {"--move-time-ms", "20000"});
  ASSERT_GT(h.port, 0);
  google::protobuf::Struct last;
  read_events(
      h.port, "/events?token=" + h.token,
      [&](const std::string& data) {
        last = json(data);
        const auto& f = last.fields();
        if (f.at("to_move").number_value() == f.at("seat").number_value() &&
            !f.at("legal").list_value().values().empty())
          http_post(h.port, "/play?token=" + h.token,
                    "seq=" + std::to_string(static_cast<long long>(f.at("seq").number_value())) +
                        "&play=0");
        // The final account: with the rematch offer.
        return !f.at("rematch").bool_value();
      },
      60s);
  const auto& f = last.fields();
  EXPECT_EQ(f.at("outcome").string_value(), "won");
  EXPECT_EQ(f.at("result").string_value(), "You win: greedy forfeited");
  EXPECT_NE(f.at("detail").string_value().find("greedy stopped running: its program exited."),
            std::string::npos)
      << f.at("detail").string_value();
  EXPECT_EQ(f.at("detail").string_value().find("gRPC"), std::string::npos);
  // The replay of the finished match, as the person's seat saw it.
  const HttpReply replay = http_get(h.port, "/replay?token=" + h.token);
  EXPECT_EQ(replay.status, 200);
  EXPECT_NE(replay.body.find("\"viewer\":0"), std::string::npos);
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

}  // namespace
}  // namespace allfives::e2e

namespace allfives::e2e {
namespace {

// The terminal seat: plays typed as numbers on standard input (here always "1", the first
// play offered); the table is drawn as `referee replay --seat 0` draws it.
TEST(HumanSeatTest, APersonPlaysFromTheTerminalWithTheReplaysSeatView) {
  const std::string dir = temp_dir("human-tty");
  const std::string log = dir + "/tty.jsonl";
  const std::string out = dir + "/out.txt";
  const RunResult r = run({"/bin/sh", "-c",
                           "yes 1 | head -2000 | '" + kReferee + "' match --seed 5 --log '" + log +
                               "' human-tty '" + kGreedy + "' > '" + out + "' 2>&1"},
                          120s);
  ASSERT_EQ(r.exit_code, 0) << r.output << read_file(out);
  const std::string shown = read_file(out);
  const auto records = read_log(log);
  expect_log_follows_rules(records);
  EXPECT_EQ(records[0].header().bots(0).display_name(), "human");
  EXPECT_EQ(only(records, v1::LogRecord::kMatchEnd).match_end().fault_seat(), -1);
  EXPECT_NE(shown.find("Your plays:  [1] "), std::string::npos) << shown;
  // The first table shown is the replay's frame of the hand's start, as seat 0 saw it (the
  // rule above it differs only in the step count: the log was one line long then).
  const RunResult replay = run({kReferee, "replay", log, "--seat", "0", "--print", "--hand", "1",
                                "--play", "0", "--color", "never"});
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  const std::string frame = between(replay.output, "── Hand 1 · start", "\n  scores:");
  const std::string frame_body = frame.substr(frame.find('\n'));
  ASSERT_FALSE(frame_body.empty());
  EXPECT_NE(shown.find(frame_body), std::string::npos) << frame_body << "\n----\n"
                                                       << shown.substr(0, 2000);
  // Seat 1's tiles are never listed while its hand is on: only "(hidden)". Nor is the seed
  // shown before the result line of the finished match (it would tell every deal).
  EXPECT_NE(shown.find("(hidden)"), std::string::npos);
  const size_t result = shown.find("(2p, seed 5)");
  ASSERT_NE(result, std::string::npos);
  EXPECT_EQ(shown.substr(0, result).find("seed"), std::string::npos);
  // Plays named in full, the prompt once per decision (output is not a terminal), and ▶ at
  // the person's seat in every table shown.
  EXPECT_NE(shown.find("[1] "), std::string::npos);
  EXPECT_TRUE(shown.find(" on the left") != std::string::npos ||
              shown.find(" on the right") != std::string::npos);
  EXPECT_EQ(shown.find("Play 1-"), std::string::npos);
  int decisions = 0;
  for (const auto& rec : records) decisions += rec.has_play() && rec.play().seat() == 0;
  size_t prompts = 0, marks = 0;
  for (size_t at = shown.find("Your turn ("); at != std::string::npos;
       at = shown.find("Your turn (", at + 1))
    ++prompts;
  for (size_t at = shown.find("▶ seat 0"); at != std::string::npos;
       at = shown.find("▶ seat 0", at + 1))
    ++marks;
  EXPECT_GE(prompts, static_cast<size_t>(decisions));
  EXPECT_LE(prompts, static_cast<size_t>(decisions) + 1);
  EXPECT_EQ(marks, prompts);
  EXPECT_EQ(shown.find("▶ seat 1"), std::string::npos);
  // The end, in words.
  EXPECT_TRUE(shown.find("You won!") != std::string::npos ||
              shown.find("You lost") != std::string::npos ||
              shown.find("A draw") != std::string::npos)
      << shown.substr(shown.size() > 2000 ? shown.size() - 2000 : 0);
}

// On a terminal the prompt is redrawn in place each second (a carriage return and an erase
// of the line, never a new line per second), counting the move's time down. `script` gives
// the referee a terminal; the person types after 2.5 s.
TEST(HumanSeatTest, OnATerminalThePromptIsRedrawnInPlace) {
  const std::string dir = temp_dir("human-tty-pty");
  const std::string log = dir + "/pty.jsonl";
  const std::string out = dir + "/out.txt";
  const RunResult r = run(
      {"/bin/sh", "-c",
       "(sleep 2.5; yes 1 | head -300) | script -qec \"'" + kReferee + "' match --seed 5 --log '" +
           log + "' human-tty '" + kGreedy + "'\" /dev/null > '" + out + "' 2>&1"},
      120s);
  ASSERT_EQ(r.exit_code, 0) << r.output << read_file(out);
  const std::string shown = read_file(out);
  const std::string redraw = "\r\x1b[KYour turn (seat 0): type 1 and Enter · move ";
  const size_t first = shown.find(redraw);
  ASSERT_NE(first, std::string::npos) << shown.substr(0, 3000);
  const size_t second = shown.find(redraw, first + 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(shown.substr(first, second - first).find('\n'), std::string::npos)
      << "the prompt went to a new line instead of being redrawn";
  const int s1 = std::atoi(shown.c_str() + first + redraw.size());
  const int s2 = std::atoi(shown.c_str() + second + redraw.size());
  EXPECT_EQ(s1, 60);
  EXPECT_EQ(s2, 59);
  EXPECT_EQ(only(read_log(log), v1::LogRecord::kMatchEnd).match_end().fault_seat(), -1);
}

// End of input (Ctrl-D) in the terminal: the seat leaves at once, as a disconnect, instead of
// waiting out its time.
TEST(HumanSeatTest, TheTerminalSeatLeavesAtOnceAtTheEndOfInput) {
  const std::string dir = temp_dir("human-tty-eof");
  const std::string log = dir + "/eof.jsonl";
  const std::string out = dir + "/out.txt";
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run({"/bin/sh", "-c",
                           "printf '1\\n1\\n' | '" + kReferee + "' match --seed 5 --log '" + log +
                               "' human-tty '" + kGreedy + "' > '" + out + "' 2>&1"},
                          60s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(r.exit_code, 0) << r.output << read_file(out);
  EXPECT_LT(took, 30s) << "the seat waited out its time (60 s a move) after the input ended";
  const std::string shown = read_file(out);
  EXPECT_NE(shown.find("End of input: you leave the table."), std::string::npos) << shown;
  EXPECT_NE(shown.find("You left the table"), std::string::npos) << shown;
  const auto records = read_log(log);
  const auto& end = only(records, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end.fault_seat(), 0);
  EXPECT_EQ(end.fault_kind(), v1::FAULT_KIND_DISCONNECT);
  int plays = 0;
  for (const auto& rec : records) plays += rec.has_play() && rec.play().seat() == 0;
  EXPECT_EQ(plays, 2);
}

}  // namespace
}  // namespace allfives::e2e
