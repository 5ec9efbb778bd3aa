// The terminal view's colours come from what the frames marked as they wrote their words (the
// seat a label names, the points a play scored), never from searching the words: a bot's name
// may read like a score or like another seat's label.
#include <gtest/gtest.h>

#include <string>

#include "replay/frames.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"

namespace allfives::referee {
namespace {

std::string first_line_after_rule(const std::string& rendered) {
  const size_t start = rendered.find('\n') + 1;
  return rendered.substr(start, rendered.find('\n', start) - start);
}

std::string painted(const std::string& text, const char* sgr) {
  return "\x1b[" + std::string(sgr) + "m" + text + "\x1b[0m";
}

TEST(TerminalView, ColoursTheMarkedSeatAndPointsNotWordsThatLookLikeThem) {
  Replay r;
  LogError error;
  ASSERT_TRUE(load_replay_file(ALLFIVES_V1_LOG, r, error)) << error.describe();
  r.header.mutable_bots(1)->set_display_name("rnd, scores 99");
  r.header.mutable_bots(2)->set_display_name("seat 0 (greedy_bot)");
  const std::vector<Frame> frames = build_frames(r, -1);
  TerminalOptions o;
  o.color = true;
  int checked_points = 0, checked_labels = 0;
  for (const Frame& f : frames) {
    if (f.kind != v1::LogRecord::kPlay) continue;
    const std::string caption = first_line_after_rule(render_frame(r, f, o));
    SCOPED_TRACE(caption);
    const char* colour = f.seat == 1 ? "33" : f.seat == 2 ? "35" : f.seat == 0 ? "36" : "34";
    EXPECT_EQ(caption.rfind(painted(seat_label(r, f.seat), colour), 0), 0u);
    checked_labels += f.seat == 1 || f.seat == 2;
    size_t greens = 0;
    for (size_t at = caption.find("\x1b[1;32m"); at != std::string::npos;
         at = caption.find("\x1b[1;32m", at + 1))
      ++greens;
    if (f.points > 0) {
      EXPECT_NE(caption.find(painted("scores " + std::to_string(f.points), "1;32")),
                std::string::npos);
      EXPECT_EQ(greens, 1u);
      checked_points += f.seat == 1;
    } else {
      EXPECT_EQ(greens, 0u);
    }
  }
  EXPECT_GT(checked_points, 0);  // seat 1 scored with its name reading like a score
  EXPECT_GT(checked_labels, 0);
}

TEST(TerminalView, WithoutColourTheWordsAreAsWritten) {
  MarkedText t("Hand 1: ");
  t.add_seat("seat 0 (a)", 0) += " plays 6-4: count 10, ";
  t.add_points("scores 10");
  ASSERT_EQ(t.marks.size(), 2u);
  EXPECT_EQ(t.words, "Hand 1: seat 0 (a) plays 6-4: count 10, scores 10");
  EXPECT_EQ(t.words.substr(t.marks[0].begin, t.marks[0].size), "seat 0 (a)");
  EXPECT_EQ(t.words.substr(t.marks[1].begin, t.marks[1].size), "scores 10");
  EXPECT_EQ(t.marks[1].seat, -1);
}

}  // namespace
}  // namespace allfives::referee
