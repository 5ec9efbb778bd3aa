// `referee replay` in the terminal: the frames of a logged match (frames.h), as everyone saw
// it or as one seat saw it, printed all at once or stepped through interactively. The HTML
// replay (html_view.h) draws the same frames.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "replay/frames.h"
#include "replay/replay.h"

namespace allfives::referee {

struct TerminalOptions {
  int viewer = -1;     // the seat whose view is shown, -1 for everything
  bool color = false;  // ANSI colours
  int width = 100;     // columns available to the line drawing
  // The seat whose turn it is (the person's seat in `referee match human-tty`): ▶ marks it
  // instead of the seat that made the frame's step.
  int to_move = -1;
  // Under each play: the plays the seat had with their points, the time, the bank left,
  // the bot's comment and what it printed meanwhile (the viewer's own decisions only, with a
  // viewer).
  bool decisions = true;
  // With decisions: also the lines the bot printed while the decision was pending (and, under
  // a fault, while the decision that ended in it was).
  bool output = true;
};

// The review's line under a reviewed decision: "review: best play: 6-4 right +7.2 ± 0.4", or
// "review: best: ... · played ...: mistake, −6.1 ± 0.5 (a score missed)".
std::string review_line(const v1::ReviewDecision& d);

// Those lines for one play frame (with the review's line where reviewed) (none for other frames or
// a version 1 log's plays), and for a fault's frame the plays the seat had at the decision that
// ended in it and that decision's output; `output`: with the bot's output lines.
std::vector<std::string> decision_lines(const Frame& frame, bool output = true);

// The match's heading: id, format, seed (for a seat's view only once the match is over), target,
// seats.
std::string render_heading(const Replay& replay, const TerminalOptions& options);
// One frame: a rule with where it is, what happened, the line, the hands, the boneyard and
// the scores. Ends with a newline.
std::string render_frame(const Replay& replay, const Frame& frame, const TerminalOptions& options);
// Frames [first, last] after the heading, then a closing line if the log ends unfinished.
void print_frames(const Replay& replay, const std::vector<Frame>& frames, int first, int last,
                  const TerminalOptions& options, std::ostream& out);

// Steps through the frames on the terminal (stdin and stdout must be one): single keys in raw
// mode, the terminal restored on every exit path including SIGINT/SIGTERM. Returns the exit
// code.
int run_interactive(const Replay& replay, const std::vector<Frame>& frames, int start,
                    TerminalOptions options);

}  // namespace allfives::referee
