// The decision fields of the log (log_version 2): each play's options with their points from
// the rules core, the bank left, the bot's comment capped; verify checks them, and logs of
// version 1 (without them) are still read.
#include <gtest/gtest.h>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"
#include "e2e/e2e_util.h"
#include "replay/replay.h"
#include "replay_test_util.h"

namespace allfives::replay_test {
namespace {

using referee::LogError;
using referee::Replay;

// Every play of every real log lists the plays the core allowed, with the core's points, the
// one made among them; the greedy seat's comment names the points of its play.
TEST(DecisionLog, EveryPlayListsItsOptionsWithTheirPoints) {
  for (const auto& [name, text] : real_logs()) {
    SCOPED_TRACE(name);
    Replay r;
    LogError e;
    ASSERT_TRUE(referee::load_replay(text, name, r, e)) << e.describe();
    EXPECT_EQ(r.header.log_version(), wire::kLogVersion);
    const State* before = nullptr;
    int checked = 0;
    for (const auto& step : r.steps) {
      if (step.record.has_play() && before) {
        const v1::LogPlay& p = step.record.play();
        const PlayList legal = before->legal_plays();
        ASSERT_EQ(p.options_size(), legal.size());
        bool made = false;
        for (int i = 0; i < legal.size(); ++i) {
          EXPECT_EQ(p.options(i).points(),
                    static_cast<uint32_t>(points_after(before->line(), legal[i])));
          made |= p.options(i).play().SerializeAsString() == p.play().SerializeAsString();
        }
        EXPECT_TRUE(made);
        EXPECT_LE(p.time_bank_left_ms(), r.header.time_bank_ms());
        const std::string& who = r.header.bots(static_cast<int>(p.seat())).name();
        if (who == "greedy") {
          EXPECT_EQ(p.comment(), "most points now: " + std::to_string(p.points()));
        } else if (who == "random") {
          EXPECT_EQ(p.comment(), "");
        }
        ++checked;
      }
      before = &step.state;
    }
    if (name != "startup-fault") {
      EXPECT_GT(checked, 0);
    }
  }
}

// A bot answering with 1 MiB of comment (a terminal escape first, a 3-byte character across
// byte 256) plays its match; the log keeps the 254 bytes before that character and counts the
// rest, so every line stays small.
TEST(DecisionLog, ALongCommentIsCutAtACharacterAndTheRestCounted) {
  const std::string& text = real_logs().at("long-comment");
  Replay r;
  LogError e;
  ASSERT_TRUE(referee::load_replay(text, "long-comment", r, e)) << e.describe();
  int plays = 0;
  for (const auto& step : r.steps) {
    if (!step.record.has_play() || step.record.play().seat() != 0) continue;
    const v1::LogPlay& p = step.record.play();
    EXPECT_EQ(p.comment().size(), 254u);
    EXPECT_EQ(p.comment().substr(0, 4), "\x1b[2J");
    EXPECT_EQ(p.comment_dropped_bytes(), (1u << 20) - 254u);
    ++plays;
  }
  EXPECT_GT(plays, 3);
  for (const std::string& line : split_lines(text)) EXPECT_LT(line.size(), 8000u);
}

TEST(DecisionLog, VerifyCatchesAnEditedDecision) {
  const auto lines = split_lines(real_logs().at("2p"));
  const int at = find_line(
      lines, [](const v1::LogRecord& r) { return r.has_play() && r.play().options_size() > 1; });
  ASSERT_GT(at, 0);
  auto changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_play()->mutable_options(1)->set_points(r.play().options(1).points() + 5);
  });
  expect_fails_at(join(changed), at + 1, {"option 1", "points"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) { r.mutable_play()->mutable_options()->RemoveLast(); });
  expect_fails_at(join(changed), at + 1, {"options", "plays were legal"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) {
    r.mutable_play()->set_time_bank_left_ms(r.play().time_bank_left_ms() + 1);
  });
  expect_fails_at(join(changed), at + 1, {"time_bank_left_ms", "clock"});
  changed = lines;
  edit(changed, at, [](v1::LogRecord& r) { r.mutable_play()->set_comment(std::string(257, 'x')); });
  expect_fails_at(join(changed), at + 1, {"comment", "257 bytes", "256"});
  // The same fields in a log that says it is of version 1.
  changed = lines;
  edit(changed, 0, [](v1::LogRecord& r) { r.mutable_header()->set_log_version(1); });
  expect_fails_at(join(changed), 3, {"decision fields", "log_version 1"});
}

// A log of the previous version: one written by the referee at log_version 1, and a real log
// of today with its decision fields taken out; both verify and replay.
TEST(DecisionLog, ALogOfVersion1IsRead) {
  Replay r;
  LogError e;
  ASSERT_TRUE(referee::load_replay_file(ALLFIVES_V1_LOG, r, e)) << e.describe();
  EXPECT_EQ(r.header.log_version(), 1u);
  EXPECT_TRUE(r.finished);
  EXPECT_GT(r.plays, 10);

  auto lines = split_lines(real_logs().at("4p"));
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    edit(lines, i, [](v1::LogRecord& rec) {
      if (rec.has_header()) rec.mutable_header()->set_log_version(1);
      if (!rec.has_play()) return;
      v1::LogPlay* p = rec.mutable_play();
      p->clear_options();
      p->clear_time_bank_left_ms();
      p->clear_comment();
      p->clear_comment_dropped_bytes();
    });
  }
  Replay old;
  ASSERT_TRUE(referee::load_replay(join(lines), "4p-v1", old, e)) << e.describe();
  EXPECT_TRUE(old.finished);
  EXPECT_EQ(old.header.log_version(), 1u);
  // A version the reader does not know is refused with the versions it knows.
  edit(lines, 0, [](v1::LogRecord& rec) { rec.mutable_header()->set_log_version(3); });
  expect_fails_at(join(lines), 1, {"log_version 3", "1 to 2"});
}

}  // namespace
}  // namespace allfives::replay_test
