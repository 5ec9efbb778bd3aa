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
  // Under each play: the plays the seat had with their points, the time, the bank left and
  // the bot's comment (the viewer's own decisions only, with a viewer).
  bool decisions = true;
};

// Those lines for one play frame (none for other frames or a version 1 log's plays).
std::vector<std::string> decision_lines(const Frame& frame);

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
