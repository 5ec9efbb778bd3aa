"use strict";
// node points_test.js LOG.jsonl...: the kit's count and points of every logged play, from the
// line as it stood before it, against what the referee's rules core logged for that play.
// Run with the kit on NODE_PATH (kit_test.sh does). Exits 1 on the first disagreement.
const fs = require("fs");
const { countAfter, pointsAfter } = require("allfives_bot");

let plays = 0;
for (const file of process.argv.slice(2)) {
  let line = [];
  let left = null;
  let right = null;
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    if (!text) continue;
    const record = JSON.parse(text);
    if (record.hand_start) {
      line = [];
      left = right = null;
    }
    const p = record.play;
    if (!p) continue;
    const play = { tile: { high: p.play.tile.high || 0, low: p.play.tile.low || 0 }, end: p.play.end };
    const count = countAfter(line, left, right, play);
    const points = pointsAfter(line, left, right, play);
    if (count !== (p.count || 0) || points !== (p.points || 0)) {
      console.error(`${file}: hand ${p.hand_index || 0} play ${line.length + 1}: the kit counts ` +
                    `${count} (${points} points), the log ${p.count || 0} (${p.points || 0})`);
      process.exit(1);
    }
    line.push(play);
    const end = (e) => ({ value: (e && e.value) || 0, is_double: !!(e && e.is_double) });
    left = end(p.left_end);
    right = end(p.right_end);
    ++plays;
  }
}
if (plays < 100) {
  console.error(`only ${plays} plays in the logs`);
  process.exit(1);
}
console.log(`points_test: the kit scores all ${plays} logged plays as the referee did`);
