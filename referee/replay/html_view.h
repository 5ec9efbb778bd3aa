// `referee replay --html`: one self-contained HTML page (inline CSS, JS and SVG tiles, no
// network) that draws the frames of terminal_view.h on a table with step / hand / play
// controls. The page keeps its data compact: one JSON object, each step carrying only the
// table the page draws (tiles as digit pairs), so even a 200-hand match stays around a MiB.
//
// For tests and tools the page exposes its state: `window.replay` (step(n), state(),
// count(), next(), prev(), nextHand(), prevHand(), play(), pause()) and data attributes on
// #state: data-step (0-based, as in Replay::steps), data-steps, data-hand (the log's 0-based
// hand_index), data-play (plays in the hand so far), data-kind (the record kind), data-seat,
// data-scores ("25,10"), data-count and data-points (the hand's last play so far, "" if
// none), data-line (the line as digit pairs from left to right), data-log-line,
// data-boneyard, data-last-play (its words), data-playing, data-mark (the review's mark word of
// the step's decision, "" if none) and data-graph-points (the evaluation graph's points). The
// score chart #chart has a circle per side (data-side) at each play and hand end (data-step);
// a click opens that step. The page's URL may say where to open:
// `?step=K`, or `?hand=H` (1-based); and for tests `?click=next,nextHand,...` presses those
// buttons, `?keys=ArrowRight,...` those keys, in order, and `?autoplay` starts playing.
#pragma once

#include <string>
#include <vector>

#include "replay/terminal_view.h"

namespace allfives::referee {

struct HtmlOptions {
  int viewer = -1;  // the seat whose view the frames show, -1 for everything
  int start = 0;    // the step the page opens at when its URL names none
  // For a log still being written (`referee serve`): the URL of a server-sent-events stream
  // whose messages {"from":K,"hands":[...],"steps":[...],"finished":bool} add the steps from K
  // on; the page appends them and, if it was showing the last step, moves on to the new last.
  std::string live_url;
  // The page's decision filters as it opens (its controls change them).
  DecisionFilter filter;
  // What the page carries of each decision, as TerminalOptions: without `decisions` nothing
  // (no options, time, comment or output, and no decision panel); without `output` all but
  // what the bot printed. Left out of the page's data, not only hidden.
  bool decisions = true;
  bool output = true;
  // For `referee serve`: where the page asks for a review of the match (POST starts one, GET
  // says how far it is, as JSON {"state":"none|running|done|failed","done":D,"total":T,
  // "error":why}); empty: the page offers none.
  std::string review_url;
};

// One reviewed decision as the pages draw it: {"h":hand (0-based),"n":play in hand,"a":seat,
// "m":mark (0-3),"k":its word,"b":best option,"p":played option,"x":exact (0/1),"l":loss,
// "e":its error,"t":decision_words,"v":[[words,points now,points,se,win,win se],...] in the
// order offered}.
std::string review_decision_json(const v1::ReviewDecision& d);

// Tiles as digit pairs, the pages' compact encoding: "6663" is 6-6 and 6-3 (a set, heaviest
// first); line_pairs gives the line's halves as laid from left to right.
std::string tile_pairs(TileSet s);
std::string line_pairs(const Line& line);

// The page's data: {"match":…, "seats":[…], "sides":[…], "hands":[…], "steps":[…]}.
std::string html_data_json(const Replay& replay, const std::vector<Frame>& frames,
                           const HtmlOptions& options);

// The parts of that data that grow with the log: the "hands" array and one element of
// "steps", for a page that follows a live log.
std::string html_hands_json(const Replay& replay, const std::vector<Frame>& frames);
std::string html_step_json(const Replay& replay, const Frame& frame,
                           const HtmlOptions& options = {});

// The whole page.
std::string render_html(const Replay& replay, const std::vector<Frame>& frames,
                        const HtmlOptions& options);

}  // namespace allfives::referee
