"use strict";
// The All Fives bot kit for JavaScript (Node 18 or later):
//
//   const { Bot, run } = require("allfives_bot");
//   class First extends Bot {
//     choose_play(view, clock) {
//       const points = view.legal_plays.map((p) => view.points_after(p));
//       return points.indexOf(Math.max(...points));
//     }
//   }
//   run(First, "first_js", "1.0");
//
// The protocol comes from the .proto files (protocol.js), the count and points of a play from
// tables the rules core computed at build time (rules.js); sdk/README.md has the guide.

const { Bot, View, Clock, MatchSession, run } = require("./bot");
const { End, Format, OpenRule, HandEndKind, MatchEndReason, FaultKind, PROTOCOL_VERSION } = require("./protocol");
const { RULES_VERSION, TILES, tileIndex, countAfter, pointsAfter } = require("./rules");

module.exports = {
  Bot, View, Clock, MatchSession, run,
  End, Format, OpenRule, HandEndKind, MatchEndReason, FaultKind, PROTOCOL_VERSION,
  RULES_VERSION, TILES, tileIndex, countAfter, pointsAfter,
};
