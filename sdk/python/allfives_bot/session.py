"""One match on one PlayMatch stream: checks the referee's messages, converts them into the
plain objects of ``model``, calls the bot's methods in game order and builds the answers.

It knows nothing of the transport: ``MatchSession.handle`` takes one RefereeMessage and
returns the BotMessage to send (or None for MatchEnd), or raises ``SessionError``, which ends
the stream with the error's gRPC status code.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
import types
from typing import Callable, List, Optional

from . import _core
from .bot import Bot
from .model import (Clock, DrawEvent, End, FaultKind, Format, HandEndInfo, HandEndKind,
                    HandStartInfo, LineTile, MatchEndInfo, MatchEndReason, MatchInfo, OpenRule,
                    PassEvent, Play, PlayEvent, Tile, View)
from .stubs import bot_pb2, common_pb2

# common.proto, the one place they are written: this SDK speaks every version from
# OLDEST_PROTOCOL_VERSION to PROTOCOL_VERSION.
PROTOCOL_VERSION = common_pb2.PROTOCOL_VERSION_CURRENT
OLDEST_PROTOCOL_VERSION = common_pb2.PROTOCOL_VERSION_OLDEST
RULES_VERSION = _core.RULES_VERSION  # the rules core's (types.h), the one place it is written

_log_lock = threading.Lock()


def log_line(line: str) -> None:
    """Writes one line to stderr in one go, so lines of concurrent matches never mix."""
    with _log_lock:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


class SessionError(Exception):
    """Ends the stream with gRPC status ``code`` (a grpc.StatusCode name) and ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _invalid(message: str) -> SessionError:
    return SessionError("INVALID_ARGUMENT", message)


def _tile(m) -> Tile:
    if not (m.low <= m.high <= 6):
        raise _invalid(f"tile {m.high}-{m.low} does not exist (high >= low, both 0..6)")
    return Tile(m.high, m.low)


def _tiles(ms) -> tuple:
    return tuple(_tile(m) for m in ms)


def _play(m, opening: bool) -> Play:
    if m.end == common_pb2.END_UNSPECIFIED and opening:
        return Play(_tile(m.tile), End.LEFT)
    if m.end not in (common_pb2.END_LEFT, common_pb2.END_RIGHT):
        raise _invalid(f"a play of {m.tile.high}-{m.tile.low} names no end")
    return Play(_tile(m.tile), End(m.end))


def version_for(m) -> int:
    """The protocol version this SDK speaks in a match: the highest it knows within the range
    MatchStart offers (bot.proto, "Versions"); 0 if the two ranges do not meet."""
    low = m.protocol_version
    version = min(max(low, m.highest_protocol_version), PROTOCOL_VERSION)
    return version if version >= low and version >= OLDEST_PROTOCOL_VERSION else 0


def _enum(kind, value: int, what: str):
    try:
        return kind(value)
    except ValueError:
        raise _invalid(f"{what}: unknown value {value}") from None


def _observe(knowledge, steps) -> None:
    """Tells the seat's Knowledge (what it knows of the other hands) the events of ``steps``."""
    for method, event in steps:
        if method == "on_hand_start":
            knowledge.start_hand(event.hand_index, event.open_rule, event.open_with)
        elif isinstance(event, PlayEvent):
            knowledge.observe_play(event.seat, event.play)
        elif isinstance(event, DrawEvent):
            knowledge.observe_draw(event.seat, event.count)
        elif isinstance(event, PassEvent):
            knowledge.observe_pass(event.seat)


def _out_of_memory(what: str) -> None:
    """Ends the process after a MemoryError in the bot's code, as an uncaught one would: the
    memory is still exhausted and the bot's state half-updated. The referee records the
    process's end as a crash, with this line in its output (a failed answer would be a
    disconnect)."""
    sys.stderr.write(f"the bot ran out of memory (MemoryError) in {what}; ending the process\n")
    sys.stderr.flush()
    os.abort()


class MatchSession:
    """The state of one stream: which messages may come next, and the bot playing it."""

    def __init__(self, name: str, version: str, factory: Callable[[MatchInfo], Bot],
                 base_seed: int, args: object = None) -> None:
        self._name = name
        self._version = version
        self._factory = factory
        self._base_seed = base_seed
        self._args = args
        self.label = "match ? seat ?"
        self.finished = False
        self._bot: Optional[Bot] = None
        self._info: Optional[MatchInfo] = None
        self._started = False
        self._version_mismatch = False
        self._in_hand = False
        self._hand_index = -1
        self._plays_in_hand = 0

    # --- the entry point ---------------------------------------------------------------

    def handle(self, message, received: float):
        """Handles one RefereeMessage received at ``received`` (time.monotonic()).

        Returns the BotMessage answering MatchStart or TurnRequest, None for MatchEnd;
        raises SessionError to end the stream.
        """
        kind = message.WhichOneof("kind")
        name = kind or "an empty message"
        if self.finished:
            raise _invalid(f"{name} after match_end")
        if self._started and kind == "match_start":
            raise _invalid("a second match_start")
        if not self._started and kind != "match_start":
            raise _invalid(f"the first message must be match_start, got {name}")
        if self._version_mismatch and kind != "match_end":
            raise SessionError("FAILED_PRECONDITION",
                               f"the referee sent {name} although our protocol versions differ")
        if kind == "match_start":
            return self._answering(message, self._on_match_start(message.match_start))
        if kind == "turn_request":
            return self._answering(message, self._on_turn_request(message.turn_request, received))
        if kind == "match_end":
            return self._on_match_end(message.match_end)
        raise _invalid("a RefereeMessage with no kind set")

    @staticmethod
    def _answering(message, answer):
        """Protocol 3: an answer carries its request's nonce (harmless to a version-2 referee)."""
        answer.nonce = message.nonce
        return answer

    # --- calls into the bot ------------------------------------------------------------

    def _call(self, what: str, function, *args):
        """Calls the bot's code; an exception ends this match (never the process), but for
        MemoryError, which ends the process (_out_of_memory)."""
        try:
            return function(*args)
        except MemoryError:
            _out_of_memory(what)
        except Exception as error:  # noqa: BLE001 - any bug in the bot ends only its match
            log_line(f"{self.label}: the bot raised in {what}:\n{traceback.format_exc()}"
                     .rstrip("\n"))
            raise SessionError(
                "INTERNAL",
                f"the bot raised in {what}: {type(error).__name__}: {error}") from None

    # --- the messages ------------------------------------------------------------------

    def _on_match_start(self, m):
        self._started = True
        self.label = f"match {m.match_id} seat {m.seat}"
        answer = bot_pb2.BotMessage()
        answer.hello.name = self._name
        answer.hello.version = self._version
        version = version_for(m)
        answer.hello.protocol_version = version or PROTOCOL_VERSION
        if not version:
            # The referee decides what a mismatch means; it needs our Hello to say so.
            self._version_mismatch = True
            high = max(m.protocol_version, m.highest_protocol_version)
            offered = f"{m.protocol_version}" + (f" to {high}" if high != m.protocol_version else "")
            log_line(f"{self.label}: the referee speaks protocol version {offered}, "
                     f"this bot speaks version {OLDEST_PROTOCOL_VERSION} to {PROTOCOL_VERSION}; "
                     "answering Hello and expecting a refusal")
            return answer
        if m.rules_version != RULES_VERSION:
            log_line(f'{self.label}: warning: the referee plays rules "{m.rules_version}", '
                     f'this SDK knows "{RULES_VERSION}"')
        fmt = _enum(Format, m.format, "match_start.format")
        players, sides = _core.num_players(fmt), _core.num_sides(fmt)
        if m.seat >= players:
            raise _invalid(f"match_start: seat {m.seat} out of range")
        if m.num_players != players or m.num_sides != sides:
            raise _invalid("match_start: num_players/num_sides disagree with the format")
        side, partner = _core.side_of(fmt, m.seat), _core.partner_of(fmt, m.seat)
        if m.side != side or m.partner_seat != partner:
            raise _invalid("match_start: side/partner_seat disagree with the format and seat")
        try:
            self._config = _core.Config(fmt, m.target_score, m.max_hands)
        except ValueError as error:
            raise _invalid(f"match_start: {error}") from None
        self._knowledge = _core.Knowledge(fmt, m.seat)
        self._info = MatchInfo(
            match_id=m.match_id, format=fmt, num_players=players, num_sides=sides,
            seat=m.seat, side=side, partner=partner, target_score=m.target_score,
            max_hands=m.max_hands, move_time_ms=m.move_time_ms, time_bank_ms=m.time_bank_ms,
            seat_names=tuple(m.seat_names),
            seed=_core.match_seed(self._base_seed, m.match_id, m.seat), args=self._args,
            params=types.MappingProxyType(dict(m.params)))
        self._bot = self._call("the bot factory", self._factory, self._info)
        if self._bot is None:
            raise SessionError("INTERNAL", "the bot factory returned no bot")
        self._call("on_match_start", self._bot.on_match_start, self._info)
        return answer

    def _on_turn_request(self, m, received: float):
        steps, hand = self._steps(m.events)
        in_hand, hand_index, _ = hand
        if not in_hand:
            raise _invalid("turn_request outside a hand (no hand_start event before it)")
        if m.hand_index != hand_index:
            raise _invalid(f"turn_request: hand_index {m.hand_index} during hand {hand_index}")
        knowledge = self._knowledge.copy()
        _observe(knowledge, steps)
        view = self._view(m, knowledge)
        self._knowledge = knowledge
        self._in_hand, self._hand_index, self._plays_in_hand = hand
        self._deliver(steps)
        clock = Clock(received=received, move_time_ms=m.move_time_ms,
                      bank_left_ms=m.time_bank_ms)
        choice = self._call("choose_play", self._bot.choose_play, view, clock)
        index, play = self._resolve(choice, view)
        answer = bot_pb2.BotMessage()
        answer.play.play.tile.high = play.tile.high
        answer.play.play.tile.low = play.tile.low
        answer.play.play.end = int(play.end)
        # The note set_comment left during choose_play, sent once.
        comment = getattr(self._bot, "_allfives_comment", "")
        if comment:
            answer.play.comment = comment
            self._bot._allfives_comment = ""
        if index is not None:
            answer.play.legal_play_index = index
        else:
            log_line(f"{self.label}: choose_play returned {play}, which is not a legal play; "
                     "sending it as it is")
        return answer

    def _on_match_end(self, m):
        self.finished = True
        if self._version_mismatch:
            return None  # no bot was made
        steps, hand = self._steps(m.events)
        self._in_hand, self._hand_index, self._plays_in_hand = hand
        info = MatchEndInfo(
            reason=_enum(MatchEndReason, m.reason, "match_end.reason"),
            winner_side=m.winner_side, scores=tuple(m.scores),
            placements=tuple(m.placements), fault_seat=m.fault_seat,
            fault_kind=_enum(FaultKind, m.fault_kind, "match_end.fault_kind"),
            fault_reason=m.fault_reason)
        self._deliver(steps)
        self._call("on_match_end", self._bot.on_match_end, info)
        return None

    # --- conversions -------------------------------------------------------------------

    def _steps(self, ms):
        """Converts and checks a message's events, all of them before any is delivered.

        Returns the bot calls to make, as (method name, argument) pairs in order, and the
        hand state after the events: (in a hand, hand index, plays in it).
        """
        n = self._info.num_players
        in_hand, hand_index, plays = self._in_hand, self._hand_index, self._plays_in_hand
        out: List[tuple] = []
        for i, m in enumerate(ms):
            kind = m.WhichOneof("kind")
            where = f"event {i}: "
            if kind == "hand_start":
                if in_hand:
                    raise _invalid(where + f"hand_start while hand {hand_index} has not ended")
                out.append(("on_hand_start", self._hand_start(m.hand_start, hand_index + 1,
                                                              where)))
                in_hand, hand_index, plays = True, hand_index + 1, 0
                continue
            if kind == "hand_end":
                if not in_hand:
                    raise _invalid(where + "hand_end outside a hand (no hand_start before it)")
                out.append(("on_hand_end", self._hand_end(m.hand_end, hand_index, where)))
                in_hand = False
                continue
            if kind is None:
                raise _invalid(where + "no kind set")
            if not in_hand:
                raise _invalid(where + "a play, draw or pass outside a hand")
            if kind == "play":
                p = m.play
                if p.seat >= n or p.side >= self._info.num_sides:
                    raise _invalid(where + "seat or side out of range")
                out.append(("on_event", PlayEvent(hand_index, p.seat, _play(p.play, plays == 0),
                                                  p.count, p.points, p.side)))
                plays += 1
            elif kind == "draw":
                d = m.draw
                if d.seat >= n or d.count > 28:
                    raise _invalid(where + "seat or count out of range")
                out.append(("on_event", DrawEvent(hand_index, d.seat, d.count, _tiles(d.tiles))))
            elif kind == "pass":
                seat = getattr(m, "pass").seat  # "pass" is a Python keyword
                if seat >= n:
                    raise _invalid(where + "seat out of range")
                out.append(("on_event", PassEvent(hand_index, seat)))
            else:
                raise _invalid(where + f"unknown kind {kind}")
        return out, (in_hand, hand_index, plays)

    def _hand_start(self, m, expected: int, where: str) -> HandStartInfo:
        if m.hand_index != expected:
            raise _invalid(where + f"hand_start: hand_index {m.hand_index}, expected {expected}")
        if m.opener_seat >= self._info.num_players:
            raise _invalid(where + "hand_start: opener_seat out of range")
        rule = _enum(OpenRule, m.open_rule, where + "hand_start.open_rule")
        open_with = None
        if rule != OpenRule.WINNER_CHOOSES:
            if not m.HasField("open_with"):
                raise _invalid(where + "hand_start: open_with is missing")
            open_with = _tile(m.open_with)
        return HandStartInfo(
            hand_index=m.hand_index, tiles=_tiles(m.your_tiles), opener=m.opener_seat,
            open_rule=rule, open_with=open_with, hand_sizes=tuple(m.hand_sizes),
            boneyard_size=m.boneyard_size, scores=tuple(m.scores))

    def _hand_end(self, m, hand_index: int, where: str) -> HandEndInfo:
        if m.hand_index != hand_index:
            raise _invalid(where + f"hand_end: hand_index {m.hand_index} during hand {hand_index}")
        n = self._info.num_players
        if not -1 <= m.domino_seat < n or not -1 <= m.winner_side < self._info.num_sides:
            raise _invalid(where + "hand_end: domino_seat or winner_side out of range")
        hands: List[tuple] = [()] * n
        for h in m.hands:
            if h.seat >= n:
                raise _invalid(where + "hand_end: a hand's seat out of range")
            hands[h.seat] = _tiles(h.tiles)
        if len(m.scores) != self._info.num_sides:
            raise _invalid(where + "hand_end: scores must list every side")
        return HandEndInfo(
            hand_index=hand_index, kind=_enum(HandEndKind, m.kind, where + "hand_end.kind"),
            domino_seat=m.domino_seat, winner_side=m.winner_side, points=m.points,
            hands=tuple(hands), scores=tuple(m.scores))

    def _deliver(self, steps: List[tuple]) -> None:
        for method, argument in steps:
            self._call(method, getattr(self._bot, method), argument)

    def _view(self, m, knowledge) -> View:
        """The rules core's view of a turn request, checked by the core (tiles twice, a line
        that does not connect, counts that do not add up to 28 tiles)."""
        info = self._info
        if not m.legal_plays:
            raise _invalid("turn_request: legal_plays is empty")
        opening = len(m.line) == 0
        line = []
        for i, t in enumerate(m.line):
            end = End.LEFT if i == 0 else _enum(End, t.end, "turn_request.line.end")
            line.append(LineTile(_tile(t.tile), t.seat, end))
        try:
            return View.from_observation(
                self._config, info.seat, m.hand_index, _tiles(m.your_tiles), line,
                tuple(m.scores), tuple(m.hand_sizes), m.boneyard_size,
                _enum(OpenRule, m.open_rule, "turn_request.open_rule"),
                tuple(_play(p, opening) for p in m.legal_plays), knowledge=knowledge)
        except (ValueError, TypeError) as error:
            raise _invalid(f"turn_request: {error}") from None

    def _resolve(self, choice, view: View):
        """(index or None, play) for what choose_play returned: a Play (or a
        ((high, low), end) tuple) or an index into view.legal_plays. Anything else is a bug
        in the bot, reported as such rather than sent to the referee."""
        legal = view.legal_plays
        if isinstance(choice, int) and not isinstance(choice, bool):
            if not 0 <= choice < len(legal):
                raise SessionError(
                    "INTERNAL", f"choose_play returned index {choice}, but there are "
                    f"{len(legal)} legal plays")
            return choice, legal[choice]
        try:
            tile, end = choice
            tile = Tile(*tile)
            end = End(end) if view.line else End.LEFT  # the opening play's end is irrelevant
        except (TypeError, ValueError):
            raise SessionError(
                "INTERNAL", f"choose_play returned {choice!r}, which is neither a Play nor "
                "an index into view.legal_plays") from None
        if not (isinstance(tile.high, int) and isinstance(tile.low, int)
                and 0 <= tile.low <= tile.high <= 6):
            raise SessionError("INTERNAL",
                               f"choose_play returned a tile that does not exist: {tile!r}")
        play = Play(tile, end)
        for i, p in enumerate(legal):
            if p == play:
                return i, play
        return None, play
