"use strict";
// greedy, in JavaScript: the legal play that scores the most points now, the heavier tile
// between equals, then the first in legal order: sample_bots/greedy/main.cpp's choices, made
// with the JavaScript kit (sdk/js). Run it with build/sample_bots/greedy_js (the build bundles
// the kit next to it) or build/js/run_bot sample_bots/js/greedy.js --listen ADDRESS.
const { Bot, run } = require("allfives_bot");

class Greedy extends Bot {
  choose_play(view) {
    let best = 0;
    let bestRank = -1;
    view.legal_plays.forEach((play, i) => {
      const rank = view.points_after(play) * 16 + play.tile.high + play.tile.low;
      if (rank > bestRank) {
        best = i;
        bestRank = rank;
      }
    });
    this.set_comment(`most points now: ${view.points_after(view.legal_plays[best])}`);  // shown by the replay
    return best;
  }
}

run(Greedy, "greedy_js", "1.0");
