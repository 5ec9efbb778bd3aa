// `referee replay --html`: one self-contained HTML page (inline CSS, JS and SVG tiles, no
// network) that draws the frames of terminal_view.h on a table with step / hand / play
// controls. The page keeps its data compact: one JSON object, each step carrying only the
// table the page draws (tiles as digit pairs), so even a 200-hand match stays around a MiB.
//
// For tests and tools the page exposes its state: `window.replay` (step(n), state(),
// count()) and data attributes on #state (data-step, data-hand, data-play, data-kind,
// data-seat, data-scores, data-count, data-points, data-line, data-log-line, data-last-play),
// and it opens at the step given by `?step=K` (0-based, as in Replay::steps) or at the start
// of `?hand=H` (1-based).
#pragma once

#include <string>
#include <vector>

#include "replay/terminal_view.h"

namespace allfives::referee {

struct HtmlOptions {
  int viewer = -1;  // the seat whose view the frames show, -1 for everything
  int start = 0;    // the step the page opens at when its URL names none
};

// The page's data: {"match":…, "seats":[…], "sides":[…], "hands":[…], "steps":[…]}.
std::string html_data_json(const Replay& replay, const std::vector<Frame>& frames,
                           const HtmlOptions& options);

// The whole page.
std::string render_html(const Replay& replay, const std::vector<Frame>& frames,
                        const HtmlOptions& options);

}  // namespace allfives::referee
