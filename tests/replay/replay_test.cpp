// load_replay on logs written by the real referee: they verify, their replay model is
// consistent, and every kind of edit, cut or corruption is caught at the line it touches.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "allfives/core/state.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "replay/replay.h"
#include "replay_test_util.h"

namespace allfives::replay_test {
namespace {

using referee::LogError;
using referee::Replay;

// ---- Logs from the real referee -------------------------------------------------------------

TEST(ReplayRealLogs, EveryFormatAndEndingVerifies) {
  for (const auto& [name, text] : real_logs()) {
    SCOPED_TRACE(name);
    Replay r;
    LogError e;
    ASSERT_TRUE(referee::load_replay(text, name, r, e)) << e.describe();
    EXPECT_TRUE(r.finished);
    const auto lines = split_lines(text);
    int plays = 0, hand_starts = 0, outputs = 0;
    for (const auto& l : lines) {
      const v1::LogRecord rec = parse(l);
      plays += rec.has_play();
      hand_starts += rec.has_hand_start();
      outputs += rec.has_bot_output();
    }
    EXPECT_EQ(r.plays, plays);
    EXPECT_EQ(r.hands, hand_starts);
    EXPECT_EQ(static_cast<int>(r.match_end.hands_played()), hand_starts);
    EXPECT_EQ(static_cast<int>(r.bot_output.size()), outputs);
    // One step per record between the header and the bots' output, in order.
    ASSERT_EQ(r.steps.size(), lines.size() - 1 - static_cast<size_t>(outputs));
    for (size_t i = 0; i < r.steps.size(); ++i) EXPECT_EQ(r.steps[i].line, static_cast<int>(i) + 2);
    EXPECT_TRUE(r.steps.back().record.has_match_end());
  }
}

TEST(ReplayRealLogs, TheEndingsAreTheOnesAsked) {
  const auto logs = real_logs();
  const auto reason = [&](const std::string& name) {
    Replay r;
    LogError e;
    EXPECT_TRUE(referee::load_replay(logs.at(name), name, r, e)) << e.describe();
    return r.match_end.reason();
  };
  EXPECT_EQ(reason("2p"), v1::MATCH_END_REASON_TARGET);
  EXPECT_EQ(reason("hand-limit"), v1::MATCH_END_REASON_HAND_LIMIT);
  EXPECT_EQ(reason("fault"), v1::MATCH_END_REASON_FAULT);
  EXPECT_EQ(reason("startup-fault"), v1::MATCH_END_REASON_FAULT);
}

TEST(ReplayRealLogs, TheModelFollowsTheLog) {
  const std::string text = real_logs().at("2p");
  Replay r;
  LogError e;
  ASSERT_TRUE(referee::load_replay(text, "2p", r, e)) << e.describe();
  EXPECT_EQ(r.config, Config::standard(Format::kTwoPlayers));
  EXPECT_EQ(r.header.seed(), 5u);
  ASSERT_EQ(static_cast<int>(r.hand_starts.size()), r.hands);
  for (int i = 0; i < r.hands; ++i) {
    const auto& step = r.steps[static_cast<size_t>(r.hand_starts[static_cast<size_t>(i)])];
    ASSERT_TRUE(step.record.has_hand_start());
    EXPECT_EQ(step.record.hand_start().hand_index(), static_cast<uint32_t>(i));
    EXPECT_EQ(step.table.hand_index, i);
    EXPECT_TRUE(step.table.line.empty());
    EXPECT_EQ(step.table.boneyard_size, 28 - 14);
  }
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    SCOPED_TRACE("line " + std::to_string(s.line));
    int in_play = 0;
    for (int seat = 0; seat < 2; ++seat) in_play += s.table.hands[static_cast<size_t>(seat)].size();
    if (!s.record.has_match_end()) {
      EXPECT_EQ(in_play + s.table.line.size() + s.table.boneyard_size, 28);
    }
    if (s.record.has_play()) {
      const auto& p = s.record.play();
      EXPECT_EQ(s.scores[p.side()], static_cast<int>(p.side_score()));
      EXPECT_EQ(s.table.line.count(), static_cast<int>(p.count()));
      EXPECT_EQ(s.table.line.end(End::kLeft).value, p.left_end().value());
      EXPECT_EQ(s.table.line.end(End::kRight).value, p.right_end().value());
    }
    if (s.record.has_hand_end()) {
      for (int side = 0; side < 2; ++side)
        EXPECT_EQ(s.scores[static_cast<size_t>(side)],
                  static_cast<int>(s.record.hand_end().scores(side)));
    }
    // Where a seat must decide, the core's state and the table are the same picture.
    if (s.table.seat_to_move >= 0) {
      EXPECT_EQ(s.state.seat_to_move(), s.table.seat_to_move);
      EXPECT_EQ(s.state.hand_index(), s.table.hand_index);
      EXPECT_TRUE(s.state.line() == s.table.line);
      for (int seat = 0; seat < 2; ++seat)
        EXPECT_EQ(s.state.hand(seat), s.table.hands[static_cast<size_t>(seat)]);
      EXPECT_EQ(s.state.boneyard_size(), s.table.boneyard_size);
      for (int side = 0; side < 2; ++side)
        EXPECT_EQ(s.state.score(side), s.scores[static_cast<size_t>(side)]);
    }
  }
  EXPECT_TRUE(r.steps.back().state.is_terminal());
  for (int side = 0; side < 2; ++side)
    EXPECT_EQ(r.steps.back().scores[static_cast<size_t>(side)],
              static_cast<int>(r.match_end.scores(side)));
}

TEST(ReplayRealLogs, CheckingOnlyKeepsNoSteps) {
  const std::string text = real_logs().at("4p");
  Replay r;
  LogError e;
  ASSERT_TRUE(referee::load_replay(text, "4p", r, e, referee::ReplayOptions{.keep_steps = false}))
      << e.describe();
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(r.hand_starts.empty());
  EXPECT_TRUE(r.finished);
  EXPECT_GT(r.plays, 0);
  EXPECT_EQ(r.header.num_players(), 4u);
}

TEST(ReplayRealLogs, FromAFile) {
  const std::string dir = e2e::temp_dir("replay-file");
  std::ofstream(dir + "/m.jsonl") << real_logs().at("3p");
  Replay r;
  LogError e;
  EXPECT_TRUE(referee::load_replay_file(dir + "/m.jsonl", r, e)) << e.describe();
  EXPECT_EQ(r.file, dir + "/m.jsonl");
  EXPECT_FALSE(referee::load_replay_file(dir + "/missing.jsonl", r, e));
  EXPECT_EQ(e.line, 0);
  EXPECT_NE(e.message.find("cannot open"), std::string::npos) << e.message;
  EXPECT_FALSE(referee::load_replay_file(dir, r, e));
  EXPECT_NE(e.message.find("not a regular file"), std::string::npos) << e.message;
}

// The file reader reads line by line, never the whole file; it must give exactly the verdict
// of the in-memory reader, on good logs, damaged ones and lines over the cap.
TEST(ReplayRealLogs, AFileReadAsAStreamGivesTheSameVerdictAsTheText) {
  const std::string dir = e2e::temp_dir("replay-stream");
  std::vector<std::string> texts;
  for (const auto& [name, text] : real_logs()) texts.push_back(text);
  const std::string log = real_logs().at("2p");
  texts.push_back(log.substr(0, log.size() / 2));                          // cut mid-line
  texts.push_back(log + std::string(referee::kMaxLogLineBytes + 7, 'x'));  // a long last line
  texts.push_back(log.substr(0, 300) + std::string(3 * referee::kMaxLogLineBytes, 'y') + "\n" +
                  log);
  texts.push_back("\n\n");
  texts.push_back("");
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string path = dir + "/" + std::to_string(i) + ".jsonl";
    std::ofstream(path, std::ios::binary) << texts[i];
    Replay from_file, from_text;
    LogError e_file, e_text;
    const bool ok_file = referee::load_replay_file(path, from_file, e_file);
    const bool ok_text = referee::load_replay(texts[i], path, from_text, e_text);
    EXPECT_EQ(ok_file, ok_text) << i;
    EXPECT_EQ(e_file.describe(), e_text.describe()) << i;
    EXPECT_EQ(from_file.steps.size(), from_text.steps.size()) << i;
    EXPECT_EQ(from_file.plays, from_text.plays) << i;
  }
}

TEST(ReplayRealLogs, AFifoIsRefusedAtOnce) {
  const std::string path = e2e::temp_dir("replay-fifo") + "/x.jsonl";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  Replay r;
  LogError e;
  EXPECT_FALSE(referee::load_replay_file(path, r, e));  // would block forever on open()
  EXPECT_EQ(e.describe(), path + ": is a FIFO, not a regular file");
}

// ---- Edited logs: each is caught at the line it touches --------------------------------------

TEST(ReplayEdits, APlaysPoints) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().points() > 0; });
  const auto p = parse(lines[at]).play();
  edit(lines, at, [](v1::LogRecord& r) { r.mutable_play()->set_points(r.play().points() + 5); });
  expect_fails_at(join(lines), at + 1,
                  {"the log says points " + std::to_string(p.points() + 5),
                   "the rules say points " + std::to_string(p.points())});
}

TEST(ReplayEdits, APlaysCountAndPoints) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().points() == 15; });
  edit(lines, at, [](v1::LogRecord& r) {
    r.mutable_play()->set_count(10);
    r.mutable_play()->set_points(10);
  });
  expect_fails_at(join(lines), at + 1,
                  {"the log says count 10, points 10; the rules say count 15, points 15"});
}

TEST(ReplayEdits, APlaysSideScore) {
  auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().side_score() > 0; });
  edit(lines, at, [](v1::LogRecord& r) { r.mutable_play()->set_side_score(1); });
  expect_fails_at(join(lines), at + 1, {"side_score 1"});
}

// Each non-opening play, its tile replaced by every other tile that has the value of the end it
// went on: whether the player held it or not, the play no longer matches the rules.
TEST(ReplayEdits, APlaysTileReplacedByAnotherThatLooksLegal) {
  const auto original = split_lines(real_logs().at("2p"));
  int tried = 0;
  bool opening = false;
  for (int at = 0; at < static_cast<int>(original.size()) && tried < 40; ++at) {
    const v1::LogRecord rec = parse(original[static_cast<size_t>(at)]);
    const bool was_opening = opening;
    opening = rec.has_hand_start();
    if (!rec.has_play() || was_opening) continue;
    const auto& p = rec.play();
    const Tile played =
        Tile::of(static_cast<int>(p.play().tile().high()), static_cast<int>(p.play().tile().low()));
    // The value the tile was laid against: the half that is not the new open end.
    const auto& new_end = p.play().end() == v1::END_LEFT ? p.left_end() : p.right_end();
    const int matched = played.other(static_cast<int>(new_end.value()));
    for (int v = 0; v <= 6; ++v) {
      const Tile other = Tile::of(matched, v);
      if (other == played) continue;
      auto lines = original;
      edit(lines, at, [&](v1::LogRecord& r) {
        r.mutable_play()->mutable_play()->mutable_tile()->set_high(
            static_cast<uint32_t>(other.hi()));
        r.mutable_play()->mutable_play()->mutable_tile()->set_low(
            static_cast<uint32_t>(other.lo()));
      });
      SCOPED_TRACE("line " + std::to_string(at + 1) + ": " + to_string(played) + " -> " +
                   to_string(other));
      expect_fails_at(join(lines), at + 1, {"play of " + to_string(other)});
      ++tried;
    }
  }
  EXPECT_GT(tried, 20);
}

TEST(ReplayEdits, ADealWithTwoTilesSwappedBetweenHands) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(lines, [](const v1::LogRecord& r) {
    return r.has_hand_start() && r.hand_start().hand_index() == 2;
  });
  edit(lines, at, [](v1::LogRecord& r) {
    auto* h = r.mutable_hand_start();
    std::swap(*h->mutable_hands(0)->mutable_tiles(0), *h->mutable_hands(1)->mutable_tiles(0));
  });
  expect_fails_at(join(lines), at + 1, {"hand 2 start, seat 0's deal: the log says", "deal"});
}

TEST(ReplayEdits, ABoneyardInAnotherOrder) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_start(); });
  edit(lines, at, [](v1::LogRecord& r) {
    auto* b = r.mutable_hand_start()->mutable_boneyard();
    std::swap(*b->Mutable(0), *b->Mutable(1));
  });
  expect_fails_at(join(lines), at + 1, {"boneyard in drawing order"});
}

TEST(ReplayEdits, TheOpenerOrItsTile) {
  auto lines = split_lines(real_logs().at("3p"));
  const int at = find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_start(); });
  auto changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_hand_start()->set_opener_seat((r.hand_start().opener_seat() + 1) % 3);
  });
  expect_fails_at(join(changed), at + 1, {"opener_seat"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_hand_start()->set_open_rule(v1::OPEN_RULE_WINNER_CHOOSES);
  });
  expect_fails_at(join(changed), at + 1, {"open_rule OPEN_RULE_WINNER_CHOOSES"});
}

TEST(ReplayEdits, AHandEndsPoints) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_hand_end() && r.hand_end().points() > 0; });
  edit(lines, at,
       [](v1::LogRecord& r) { r.mutable_hand_end()->set_points(r.hand_end().points() + 5); });
  expect_fails_at(join(lines), at + 1, {"end of hand", "points"});
}

TEST(ReplayEdits, AHandEndsRevealedTilesAndPips) {
  auto lines = split_lines(real_logs().at("4p"));
  const int at = find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_end(); });
  auto changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_hand_end()->set_seat_pips(0, r.hand_end().seat_pips(0) + 1);
  });
  expect_fails_at(join(changed), at + 1, {"seat_pips"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    *r.mutable_hand_end()->mutable_hands(1)->add_tiles() =
        r.hand_end().hands(2).tiles_size() ? r.hand_end().hands(2).tiles(0) : v1::Tile();
  });
  expect_fails_at(join(changed), at + 1, {"seat 1's tiles left"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_hand_end()->set_winner_side(r.hand_end().winner_side() == 0 ? 1 : 0);
  });
  expect_fails_at(join(changed), at + 1, {"winner_side"});
}

TEST(ReplayEdits, TheFinalScoresOrWinner) {
  auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(lines, [](const v1::LogRecord& r) { return r.has_match_end(); });
  auto changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_match_end()->set_scores(1, r.match_end().scores(1) + 10);
  });
  expect_fails_at(join(changed), at + 1, {"end of the match: the log says scores"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_match_end()->set_winner_side(1 - r.match_end().winner_side());
  });
  expect_fails_at(join(changed), at + 1, {"winner_side"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_match_end()->set_placements(0, 1);
    r.mutable_match_end()->set_placements(1, 1);
  });
  expect_fails_at(join(changed), at + 1, {"placements [1 1]"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_match_end()->set_reason(v1::MATCH_END_REASON_HAND_LIMIT);
  });
  expect_fails_at(join(changed), at + 1,
                  {"the log says reason MATCH_END_REASON_HAND_LIMIT; the rules say reason "
                   "MATCH_END_REASON_TARGET"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) { r.mutable_match_end()->set_hands_played(99); });
  expect_fails_at(join(changed), at + 1, {"hands_played 99"});
}

TEST(ReplayEdits, AFaultOrItsResult) {
  auto lines = split_lines(real_logs().at("fault"));
  const int fault = find_line(lines, [](const v1::LogRecord& r) { return r.has_fault(); });
  const int end = find_line(lines, [](const v1::LogRecord& r) { return r.has_match_end(); });
  auto changed = lines;
  edit(changed, fault, [](v1::LogRecord& r) { r.mutable_fault()->set_side(1); });
  expect_fails_at(join(changed), fault + 1, {"fault of seat 0: the log says side 1"});
  changed = lines;
  edit(changed, fault, [](v1::LogRecord& r) { r.mutable_fault()->set_seat(7); });
  expect_fails_at(join(changed), fault + 1, {"seat 7"});
  changed = lines;
  edit(changed, end, [](v1::LogRecord& r) {
    r.mutable_match_end()->set_placements(0, 1);
    r.mutable_match_end()->set_placements(1, 2);
    r.mutable_match_end()->set_winner_side(0);
  });
  expect_fails_at(join(changed), end + 1, {"placements [1 2]", "the rules say placements [2 1]"});
  changed = lines;
  edit(changed, end, [](v1::LogRecord& r) { r.mutable_match_end()->set_fault_seat(1); });
  expect_fails_at(join(changed), end + 1, {"fault_seat 1"});
  // A fault the log leaves out: the match end then claims one that never happened.
  changed = lines;
  changed.erase(changed.begin() + fault);
  expect_fails_at(join(changed), fault + 1, {"no fault record"});
  // A match end that hides the fault.
  changed = lines;
  edit(changed, end,
       [](v1::LogRecord& r) { r.mutable_match_end()->set_reason(v1::MATCH_END_REASON_TARGET); });
  expect_fails_at(join(changed), end + 1, {"records a fault"});
}

TEST(ReplayEdits, AnAbortedMatchHasNoResult) {
  auto lines = split_lines(real_logs().at("2p"));
  // Cut right before a play (a decision), and end the match as the referee does on Ctrl-C.
  const int play = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().hand_index() == 3; });
  lines.resize(static_cast<size_t>(play));
  Replay partial;
  LogError e;
  ASSERT_FALSE(referee::load_replay(join(lines), "cut", partial, e));
  std::vector<int> scores(partial.steps.back().scores);
  v1::LogRecord end;
  auto* me = end.mutable_match_end();
  me->set_reason(v1::MATCH_END_REASON_ABORTED);
  me->set_winner_side(-1);
  for (int s : scores) me->add_scores(static_cast<uint32_t>(s));
  me->set_hands_played(4);
  me->set_fault_seat(-1);
  lines.push_back(referee::to_json_line(end));
  Replay r;
  EXPECT_TRUE(referee::load_replay(join(lines), "aborted", r, e)) << e.describe();
  // A result on an aborted match is not what the rules say.
  me->add_placements(1);
  me->add_placements(2);
  lines.back() = referee::to_json_line(end);
  expect_fails_at(join(lines), static_cast<int>(lines.size()), {"placements"});
}

TEST(ReplayEdits, ARecordOutOfOrder) {
  auto lines = split_lines(real_logs().at("2p"));
  // A play and the draw after it.
  const int draw = find_line(lines, [](const v1::LogRecord& r) { return r.has_draw(); });
  auto changed = lines;
  std::swap(changed[static_cast<size_t>(draw - 1)], changed[static_cast<size_t>(draw)]);
  expect_fails_at(join(changed), draw, {"the log has a draw"});
  // Two plays in a row (by different seats, after the opening).
  int play = 2;
  while (!(parse(lines[static_cast<size_t>(play)]).has_play() &&
           parse(lines[static_cast<size_t>(play + 1)]).has_play()))
    ++play;
  changed = lines;
  std::swap(changed[static_cast<size_t>(play)], changed[static_cast<size_t>(play + 1)]);
  expect_fails_at(join(changed), play + 1, {"the rules say seat"});
}

TEST(ReplayEdits, ARecordLeftOut) {
  auto lines = split_lines(real_logs().at("2p"));
  const int draw = find_line(lines, [](const v1::LogRecord& r) { return r.has_draw(); });
  auto changed = lines;
  changed.erase(changed.begin() + draw);
  // Where the core expects the draw, the log has the next play.
  expect_fails_at(join(changed), draw + 1, {"the rules expect a draw"});
  const int hand_end = find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_end(); });
  changed = lines;
  changed.erase(changed.begin() + hand_end);
  expect_fails_at(join(changed), hand_end + 1, {"the rules expect the end of hand 0"});
  // A line that is there twice.
  changed = lines;
  changed.insert(changed.begin() + draw, lines[static_cast<size_t>(draw)]);
  expect_fails_at(join(changed), draw + 2, {"the log has a draw"});
}

TEST(ReplayEdits, TheHeader) {
  auto lines = split_lines(real_logs().at("2p"));
  auto changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_seed(6); });
  // Another seed deals other hands: the first deal no longer matches.
  expect_fails_at(join(changed), 2, {"hand 0 start", "the rules (seed 6) deal"});
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_num_players(3); });
  expect_fails_at(join(changed), 1, {"num_players 3"});
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_log_version(9); });
  expect_fails_at(join(changed), 1, {"log_version 9"});
  changed = lines;
  edit(changed, 0,
       [](v1::LogRecord& r) { r.mutable_header()->set_format(v1::FORMAT_UNSPECIFIED); });
  expect_fails_at(join(changed), 1, {"format FORMAT_UNSPECIFIED"});
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_target_score(0); });
  expect_fails_at(join(changed), 1, {"target_score 0"});
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_target_score(200); });
  // A lower target: the match ends earlier than the log says.
  expect_fails_at_or_after(join(changed), 3, {});
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->mutable_bots(1)->set_side(0); });
  expect_fails_at(join(changed), 1, {"bot 1: the log says side 0"});
  changed = lines;
  std::swap(changed[0], changed[1]);
  expect_fails_at(join(changed), 1, {"a log starts with its header"});
}

TEST(ReplayEdits, ValuesOutOfRange) {
  auto lines = split_lines(real_logs().at("2p"));
  const int play = find_line(lines, [](const v1::LogRecord& r) { return r.has_play(); });
  auto changed = lines;
  edit(changed, play, [](v1::LogRecord& r) { r.mutable_play()->set_hand_index(4294967295u); });
  expect_fails_at(join(changed), play + 1, {"the log says hand 4294967295"});
  changed = lines;
  edit(changed, play, [](v1::LogRecord& r) { r.mutable_play()->set_seat(4294967295u); });
  expect_fails_at(join(changed), play + 1, {"the log says seat 4294967295"});
  changed = lines;
  edit(changed, play,
       [](v1::LogRecord& r) { r.mutable_play()->mutable_play()->mutable_tile()->set_high(9); });
  expect_fails_at(join(changed), play + 1, {"is not a tile"});
  changed = lines;
  edit(changed, play, [](v1::LogRecord& r) {
    r.mutable_play()->mutable_play()->set_end(static_cast<v1::End>(77));
  });
  expect_fails_at(join(changed), play + 1, {"end 77"});
  const int hs = find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_start(); });
  changed = lines;
  edit(changed, hs, [](v1::LogRecord& r) {
    for (int i = 0; i < 40; ++i)
      *r.mutable_hand_start()->mutable_hands(0)->add_tiles() = v1::Tile();
  });
  expect_fails_at(join(changed), hs + 1, {"seat 0's deal"});
  const int bo = find_line(lines, [](const v1::LogRecord& r) { return r.has_bot_output(); });
  changed = lines;
  edit(changed, bo, [](v1::LogRecord& r) { r.mutable_bot_output()->set_seat(2); });
  expect_fails_at(join(changed), bo + 1, {"seat 2"});
  // A JSON number beyond 32 bits is not a uint32: the reader refuses the line.
  changed = lines;
  const std::string key = "\"seat\":";
  const size_t p = changed[static_cast<size_t>(play)].find(key);
  changed[static_cast<size_t>(play)].insert(p + key.size(), "99999999999");
  expect_fails_at(join(changed), play + 1, {"not a log record"});
}

// ---- Cut, corrupted and hostile files --------------------------------------------------------

TEST(ReplayDamage, CutInTheMiddleOfALine) {
  const std::string text = real_logs().at("2p");
  const auto lines = split_lines(text);
  const size_t cut = text.find('\n', text.size() / 2) + 20;
  const int line = static_cast<int>(std::count(text.begin(), text.begin() + cut, '\n')) + 1;
  expect_fails_at(text.substr(0, cut), line, {"the file ends in the middle of this line"});
}

TEST(ReplayDamage, CutAtTheEndOfALine) {
  const auto lines = split_lines(real_logs().at("2p"));
  for (const int keep : {1, 2, 3, static_cast<int>(lines.size()) / 2}) {
    std::vector<std::string> kept(lines.begin(), lines.begin() + keep);
    expect_fails_at(join(kept), keep,
                    {"the log ends at line " + std::to_string(keep) + " before the match ended"});
  }
  // The match end is the last record the match needs; the bots' output may be missing.
  const int end = find_line(lines, [](const v1::LogRecord& r) { return r.has_match_end(); });
  std::vector<std::string> kept(lines.begin(), lines.begin() + end + 1);
  Replay r;
  LogError e;
  EXPECT_TRUE(referee::load_replay(join(kept), "no-output", r, e)) << e.describe();
  // Without its final newline the last record is still whole.
  std::string text = join(kept);
  text.pop_back();
  EXPECT_TRUE(referee::load_replay(text, "no-newline", r, e)) << e.describe();
}

TEST(ReplayDamage, EmptyFileAndEmptyLines) {
  expect_fails_at("", 0, {"the file is empty"});
  auto lines = split_lines(real_logs().at("2p"));
  lines.insert(lines.begin() + 5, "");
  expect_fails_at(join(lines), 6, {"the line is empty"});
  lines[5] = "   \r";
  expect_fails_at(join(lines), 6, {"the line is empty"});
  lines[5] = "{}";
  expect_fails_at(join(lines), 6, {"the record is empty"});
}

TEST(ReplayDamage, GarbageBytes) {
  auto lines = split_lines(real_logs().at("2p"));
  std::string garbage = "\x01\xff\xfe garbage \x00 \x1b[31m";
  garbage += std::string("\0\0\0", 3);
  lines[7] = garbage;
  Replay r;
  LogError e;
  ASSERT_FALSE(referee::load_replay(join(lines), "junk", r, e));
  EXPECT_EQ(e.line, 8);
  EXPECT_NE(e.message.find("not a log record"), std::string::npos) << e.message;
  // The message stays printable whatever the bytes were.
  for (const char c : e.describe())
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(static_cast<unsigned char>(c));
  lines[7] = "{\"play\": {\"seat\": 1, \"bogus_field\": 3}}";
  expect_fails_at(join(lines), 8, {"not a log record"});
  lines[7] = "[1, 2, 3]";
  expect_fails_at(join(lines), 8, {"not a log record"});
  lines[7] = std::string(5000, '{');
  expect_fails_at(join(lines), 8, {"not a log record"});
}

TEST(ReplayDamage, ALineOverTheLimit) {
  auto lines = split_lines(real_logs().at("2p"));
  const int bo = find_line(lines, [](const v1::LogRecord& r) { return r.has_bot_output(); });
  edit(lines, bo, [](v1::LogRecord& r) {
    r.mutable_bot_output()->set_stderr(std::string(referee::kMaxLogLineBytes, 'x'));
  });
  expect_fails_at(join(lines), bo + 1, {"bytes long; a log line is at most 1048576 bytes"});
}

TEST(ReplayDamage, RecordsAfterTheEnd) {
  auto lines = split_lines(real_logs().at("2p"));
  const int end = find_line(lines, [](const v1::LogRecord& r) { return r.has_match_end(); });
  lines.push_back(lines[static_cast<size_t>(end - 1)]);
  expect_fails_at(join(lines), static_cast<int>(lines.size()), {"after the end of the match"});
  lines.back() = lines[0];
  expect_fails_at(join(lines), static_cast<int>(lines.size()), {"a second header"});
}

// Random damage to a real log: every result is a verdict (never a crash or a hang), and a
// failure names a line of the damaged text (or the whole file).
TEST(ReplayDamage, RandomMutationsGiveAVerdict) {
  const std::string text = real_logs().at("partners");
  std::mt19937 rng(12345);
  for (int round = 0; round < 400; ++round) {
    std::string t = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !t.empty(); ++k) {
      const size_t at = rng() % t.size();
      switch (rng() % 5) {
        case 0:
          t[at] = static_cast<char>(rng());
          break;  // a byte changed
        case 1:
          t.erase(at, 1 + rng() % 40);
          break;  // bytes removed
        case 2:
          t.insert(at, std::string(1 + rng() % 8, static_cast<char>(rng())));
          break;
        case 3:
          t.resize(at);
          break;   // cut
        case 4: {  // a digit changed
          const size_t d = t.find_first_of("0123456789", at);
          if (d != std::string::npos) t[d] = static_cast<char>('0' + rng() % 10);
          break;
        }
      }
    }
    Replay r;
    LogError e;
    const bool ok = referee::load_replay(t, "mutated", r, e);
    const int lines = static_cast<int>(std::count(t.begin(), t.end(), '\n')) + 1;
    if (!ok) {
      EXPECT_GE(e.line, 0);
      EXPECT_LE(e.line, lines) << e.describe();
      EXPECT_FALSE(e.message.empty());
    }
  }
}

// The fast line reader and protobuf's JSON parser agree on every line of every real log, and
// on lines in forms only the library reads.
TEST(ReplayLineReader, AgreesWithTheLibrary) {
  for (const auto& [name, text] : real_logs()) {
    for (const std::string& line : split_lines(text)) {
      v1::LogRecord fast, lib;
      std::string e1, e2;
      ASSERT_TRUE(referee::parse_log_line(line, fast, &e1)) << e1;
      ASSERT_TRUE(referee::from_json_line(line, &lib, &e2)) << e2;
      EXPECT_EQ(fast.SerializeAsString(), lib.SerializeAsString()) << line;
    }
  }
  const std::vector<std::string> odd = {
      R"({"pass":{"handIndex":3,"seat":1}})",       // json_name
      R"({"pass":{"hand_index":"3","seat":1.0}})",  // quoted, fraction
      R"( { "pass" : { "hand_index" : 3 , "seat" : 1 } } )",
      R"({"draw":{"hand_index":3,"seat":1,"tiles":null}})",
      R"({"fault":{"reason":"caf\u00e9 \ud83d\ude00 <tag>"}})",
      R"({"match_end":{"reason":2,"winner_side":-1}})",  // enum by number
      R"({"pass":{"seat":1,"seat":2}})",                 // a key twice
      R"({"pass":{"seat":01}})",
      R"({"pass":{"seat":-0}})",
      R"({"pass":{"seat":1e2}})",
      R"({"pass":{"seat":4294967296}})",
      R"({"pass":{}} trailing)",
      R"({"pass":{},"draw":{}})",
      "{\"fault\":{\"reason\":\"tab\there\"}}",
  };
  for (const std::string& line : odd) {
    v1::LogRecord fast, lib;
    std::string e1, e2;
    const bool a = referee::parse_log_line(line, fast, &e1);
    const bool b = referee::from_json_line(line, &lib, &e2);
    EXPECT_EQ(a, b) << line << "\n" << e1 << "\n" << e2;
    if (a && b) {
      EXPECT_EQ(fast.SerializeAsString(), lib.SerializeAsString()) << line;
    }
  }
}

TEST(ReplayError, DescribeNamesFileAndLine) {
  EXPECT_EQ((LogError{"a.jsonl", 12, "bad"}).describe(), "a.jsonl:12: bad");
  EXPECT_EQ((LogError{"a.jsonl", 0, "bad"}).describe(), "a.jsonl: bad");
}

}  // namespace
}  // namespace allfives::replay_test
