"use strict";
// The JavaScript bot kit: a Bot class with the Python SDK's shape (choose_play(view, clock),
// optional hooks), the View a seat sees, and run(), which serves proto/allfives/v1/bot.proto
// over gRPC. One Bot object per match; its methods are called in game order.

const protocol = require("./protocol");
const rules = require("./rules");

const { grpc, End, OpenRule } = protocol;

class Bot {
  constructor(info) {
    this.info = info;  // the MatchInfo (see MatchSession.matchStart below)
  }
  // Required: one of view.legal_plays, or its index.
  choose_play(view, clock) { // eslint-disable-line no-unused-vars
    throw new Error("a Bot must define choose_play(view, clock)");
  }
  // Inside choose_play: a short note sent with this answer (PlayAnswer.comment), kept in the
  // match log beside the play; the referee keeps at most 256 bytes of its UTF-8.
  set_comment(text) { this._comment = String(text); }
  on_match_start(info) {}  // eslint-disable-line no-unused-vars
  on_hand_start(info) {}   // eslint-disable-line no-unused-vars
  on_event(event) {}       // eslint-disable-line no-unused-vars
  on_hand_end(info) {}     // eslint-disable-line no-unused-vars
  on_match_end(info) {}    // eslint-disable-line no-unused-vars
}

// What one seat may see when it must play (docs/RULES.md §15), with the Python View's names.
// Tiles are {high, low}, plays {tile, end} with end End.LEFT or End.RIGHT, open ends
// {value, is_double} (null while the line is empty).
class View {
  constructor(info, m) {
    this.seat = info.seat;
    this.side = info.side;
    this.partner = info.partner;
    this.num_players = info.num_players;
    this.num_sides = info.num_sides;
    this.target_score = info.target_score;
    this.hand_index = m.hand_index;
    this.hand = m.your_tiles.map(tile);
    this.line = m.line.map((t, i) => ({ tile: tile(t.tile), seat: t.seat, end: i === 0 ? End.LEFT : t.end }));
    const open = this.line.length > 0;
    this.left_end = open ? { value: m.left_end.value, is_double: m.left_end.is_double } : null;
    this.right_end = open ? { value: m.right_end.value, is_double: m.right_end.is_double } : null;
    this.end_count = m.end_count;
    this.hand_sizes = m.hand_sizes.slice();
    this.boneyard_size = m.boneyard_size;
    this.scores = m.scores.slice();
    this.legal_plays = m.legal_plays.map((p) => ({ tile: tile(p.tile), end: open ? p.end : End.LEFT }));
    this.open_rule = m.open_rule;
    Object.freeze(this);
  }
  // The count of the open ends, and the points, if this seat made `play` now.
  count_after(play) { return rules.countAfter(this.line, this.left_end, this.right_end, play); }
  points_after(play) { return rules.pointsAfter(this.line, this.left_end, this.right_end, play); }
  // Every tile this seat cannot see: the other hands and the boneyard together.
  unseen() {
    const seen = new Set(this.hand.concat(this.line.map((t) => t.tile)).map(rules.tileIndex));
    return rules.TILES.filter((t, i) => !seen.has(i));
  }
}

// The time one decision may take, in milliseconds of performance.now().
class Clock {
  constructor(received, moveTimeMs, bankLeftMs) {
    this.received = received;
    this.move_time_ms = moveTimeMs;
    this.bank_left_ms = bankLeftMs;
  }
  hard_deadline() { return this.received + this.move_time_ms + this.bank_left_ms; }
  move_deadline() { return this.received + this.move_time_ms; }
  remaining() { return this.hard_deadline() - performance.now(); }
}

// MatchStart.params (the tournament or tune file's numeric parameters for this bot) as a
// frozen object without a prototype, so a name such as "toString" is never taken for a param.
function matchParams(params) {
  const out = Object.create(null);
  for (const [name, value] of Object.entries(params || {})) out[name] = Number(value);
  return Object.freeze(out);
}

function tile(m) {
  if (!(m.low <= m.high && m.high <= 6)) throw invalid(`tile ${m.high}-${m.low} does not exist`);
  return { high: m.high, low: m.low };
}

class SessionError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const invalid = (message) => new SessionError(grpc.status.INVALID_ARGUMENT, message);

// One match on one PlayMatch stream: the messages in order, the bot's calls, the answers.
class MatchSession {
  constructor(identity, factory, args) {
    this.identity = identity;
    this.factory = factory;
    this.args = args;
    this.bot = null;
    this.info = null;
    this.label = "match ? seat ?";
  }

  // The BotMessage answering `m` (a RefereeMessage), or null after MatchEnd.
  handle(m, received) {
    if (m.kind === "match_start") return this.matchStart(m.match_start);
    if (!this.bot) throw invalid(`the first message must be match_start, got ${m.kind}`);
    if (m.kind === "turn_request") return this.turn(m.turn_request, received);
    if (m.kind === "match_end") {
      this.deliver(m.match_end.events);
      const e = m.match_end;
      this.call("on_match_end", {
        reason: e.reason, winner_side: e.winner_side, scores: e.scores, placements: e.placements,
        fault_seat: e.fault_seat, fault_kind: e.fault_kind, fault_reason: e.fault_reason,
      });
      return null;
    }
    throw invalid(`unexpected message ${m.kind}`);
  }

  matchStart(m) {
    if (this.bot) throw invalid("a second match_start");
    this.label = `match ${m.match_id} seat ${m.seat}`;
    // The referee offers protocol_version (its oldest) up to highest_protocol_version (0 from a
    // referee that speaks one version): the kit speaks the highest both know.
    const highest = m.highest_protocol_version || m.protocol_version;
    this.version = Math.min(highest, protocol.PROTOCOL_VERSION);
    const hello = { hello: { name: this.identity.name, version: this.identity.version,
                             protocol_version: this.version } };
    if (this.version < m.protocol_version || this.version < protocol.OLDEST_PROTOCOL_VERSION) {
      log(`${this.label}: the referee speaks protocol ${m.protocol_version}..${highest}, this kit ` +
          `${protocol.OLDEST_PROTOCOL_VERSION}..${protocol.PROTOCOL_VERSION}`);
      this.version = protocol.PROTOCOL_VERSION;
      hello.hello.protocol_version = this.version;
      return hello;
    }
    if (m.rules_version !== rules.RULES_VERSION)
      log(`${this.label}: warning: the referee plays rules "${m.rules_version}", this kit knows "${rules.RULES_VERSION}"`);
    // The MatchInfo: params holds the tournament or tune file's numeric parameters for this
    // bot, and param(name, fallback) one of them, or fallback when none of that name was sent.
    const params = matchParams(m.params);
    this.info = Object.freeze({
      match_id: m.match_id, format: m.format, num_players: m.num_players, num_sides: m.num_sides,
      seat: m.seat, side: m.side, partner: m.partner_seat, target_score: m.target_score,
      max_hands: m.max_hands, move_time_ms: m.move_time_ms, time_bank_ms: m.time_bank_ms,
      seat_names: m.seat_names.slice(), args: this.args, params,
      param: (name, fallback) => (Object.hasOwn(params, name) ? params[name] : fallback),
    });
    const isClass = typeof this.factory === "function" && /^class\s/.test(Function.prototype.toString.call(this.factory));
    this.bot = this.call("the bot factory", () => (isClass ? new this.factory(this.info) : this.factory(this.info)));
    this.call("on_match_start", this.info);
    return hello;
  }

  turn(m, received) {
    this.deliver(m.events);
    if (m.legal_plays.length === 0) throw invalid("turn_request: legal_plays is empty");
    const view = new View(this.info, m);
    const clock = new Clock(received, m.move_time_ms, m.time_bank_ms);
    const choice = this.call("choose_play", () => this.bot.choose_play(view, clock));
    const legal = view.legal_plays;
    let index = -1;
    let play;
    if (Number.isInteger(choice)) {
      if (choice < 0 || choice >= legal.length)
        throw new SessionError(grpc.status.INTERNAL, `choose_play returned index ${choice} of ${legal.length} plays`);
      index = choice;
      play = legal[choice];
    } else if (choice && choice.tile && Number.isInteger(choice.tile.high) && Number.isInteger(choice.tile.low)) {
      play = { tile: choice.tile, end: view.line.length ? choice.end : End.LEFT };
      const t = rules.tileIndex(play.tile);
      index = legal.findIndex((p) => rules.tileIndex(p.tile) === t && p.end === play.end);
      if (index < 0) log(`${this.label}: choose_play returned a play that is not legal; sending it as it is`);
    } else {
      throw new SessionError(grpc.status.INTERNAL, "choose_play returned neither a play nor an index");
    }
    const answer = { play: { play: { tile: { high: play.tile.high, low: play.tile.low }, end: play.end } } };
    if (index >= 0) answer.play.legal_play_index = index;
    if (this.bot._comment) {
      answer.play.comment = this.bot._comment;
      this.bot._comment = "";
    }
    return answer;
  }

  deliver(events) {
    for (const e of events) {
      const k = e.kind;
      const body = e[k];
      if (k === "hand_start") {
        this.call("on_hand_start", {
          hand_index: body.hand_index, tiles: body.your_tiles.map(tile), opener: body.opener_seat,
          open_rule: body.open_rule,
          open_with: body.open_rule === OpenRule.WINNER_CHOOSES ? null : tile(body.open_with),
          hand_sizes: body.hand_sizes, boneyard_size: body.boneyard_size, scores: body.scores,
        });
      } else if (k === "hand_end") {
        this.call("on_hand_end", {
          hand_index: body.hand_index, kind: body.kind, domino_seat: body.domino_seat,
          winner_side: body.winner_side, points: body.points, scores: body.scores,
          hands: body.hands.map((h) => ({ seat: h.seat, tiles: h.tiles.map(tile) })),
        });
      } else if (k === "play") {
        this.call("on_event", { kind: "play", seat: body.seat, play: { tile: tile(body.play.tile), end: body.play.end },
                                count: body.count, points: body.points, side: body.side });
      } else if (k === "draw") {
        this.call("on_event", { kind: "draw", seat: body.seat, count: body.count, tiles: body.tiles.map(tile) });
      } else if (k === "pass") {
        this.call("on_event", { kind: "pass", seat: body.seat });
      } else {
        throw invalid(`an event with no kind`);
      }
    }
  }

  // Calls the bot's code; an exception ends this match only (status INTERNAL, a disconnect).
  call(what, fn) {
    const f = typeof fn === "function" ? fn : () => this.bot[what](fn);
    try {
      return f();
    } catch (error) {
      log(`${this.label}: the bot raised in ${what}:\n${error && error.stack ? error.stack : error}`);
      throw new SessionError(grpc.status.INTERNAL, `the bot raised in ${what}: ${error}`);
    }
  }
}

function log(line) {
  process.stderr.write(line + "\n");
}

function playMatch(identity, factory, args) {
  return (call) => {
    const session = new MatchSession(identity, factory, args);
    let done = false;
    call.on("data", (m) => {
      if (done) return;
      try {
        const answer = session.handle(m, performance.now());
        if (answer) {
          if (session.version >= 3) answer.nonce = m.nonce;  // the request's, carried back
          call.write(answer);
        } else {
          done = true;
          call.end();
        }
      } catch (error) {
        done = true;
        const code = error instanceof SessionError ? error.code : grpc.status.INTERNAL;
        call.emit("error", { code, details: String(error.message || error) });
      }
    });
    call.on("end", () => { if (!done) { done = true; call.end(); } });
    call.on("error", () => { done = true; });
  };
}

const USAGE = `usage: node BOT.js --listen ADDRESS [--seed N] [--help] [--version]
  --listen ADDRESS  where to serve: unix:/path/to.sock or host:port (port 0 picks a free one)
  --seed N          handed to the bot in info.args.seed (default 0)`;

// Serves the bot until SIGTERM or SIGINT. `factory` is a Bot subclass or a function of the
// MatchInfo returning a bot. Flags it does not know are left in info.args.rest for the bot.
function run(factory, name, version, argv = process.argv.slice(2)) {
  const args = { listen: null, seed: 0, rest: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === "--help" || a === "-h") { console.log(USAGE); process.exit(0); }
    if (a === "--version") { console.log(`${name} ${version}`); process.exit(0); }
    if (a === "--listen" || a === "--seed") {
      if (i + 1 >= argv.length) { console.error(`${a} needs a value\n${USAGE}`); process.exit(2); }
      const v = argv[++i];
      if (a === "--listen") args.listen = v;
      else if (!/^[0-9]+$/.test(v)) { console.error(`--seed must be a number, not ${v}`); process.exit(2); }
      else args.seed = Number(v);
    } else {
      args.rest.push(a);
    }
  }
  if (!args.listen) { console.error(`--listen is required\n${USAGE}`); process.exit(2); }
  const server = new grpc.Server();
  server.addService(protocol.BotService, { PlayMatch: playMatch({ name, version }, factory, args) });
  server.addService(protocol.HealthService, {
    Check: (call, callback) => callback(null, { status: "SERVING" }),
  });
  server.bindAsync(args.listen, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) { console.error(`${name}: cannot listen on ${args.listen}: ${error.message}`); process.exit(1); }
    const where = port > 0 && /:0$/.test(args.listen) ? args.listen.replace(/:0$/, `:${port}`) : args.listen;
    log(`${name} ${version} listening on ${where}`);
  });
  const stop = () => {
    server.tryShutdown(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
    process.on("SIGTERM", () => process.exit(0));
    process.on("SIGINT", () => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

module.exports = { Bot, View, Clock, MatchSession, run };
