"use strict";
// A bot for kit_test.sh: plays the first legal play and says in its comment what the kit gave
// it of MatchStart.params, so the test can check the tournament file's params arrive: the
// param "x" (-1 when not sent), a param never sent (its default, 7) and every name it got.
const { Bot, run } = require("allfives_bot");

class ParamsBot extends Bot {
  choose_play(view) {
    const names = Object.keys(this.info.params).sort().join(",");
    this.set_comment(`x=${this.info.param("x", -1)} absent=${this.info.param("absent", 7)} names=${names}`);
    return 0;
  }
}

run(ParamsBot, "params_js", "1.0");
