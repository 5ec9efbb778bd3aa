"""The game as a Python bot sees it: tiles, plays, the line, the view and the clock.

Everything here is plain Python (named tuples, enums, dataclasses) built by the SDK from the
protocol messages of proto/allfives/v1/bot.proto; a bot never touches protobuf. The rules
are those of docs/RULES.md ("allfives-1"): a double-six set, two open ends, no spinner.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple, Union


class End(enum.IntEnum):
    """An open end of the line (the numbers are those of the protocol's End).

    The opening tile lies with its low half on the LEFT end and its high half on the RIGHT
    end; the opening play itself is always recorded as LEFT.
    """

    LEFT = 1
    RIGHT = 2


class Format(enum.IntEnum):
    """Who sits at the table (the protocol's Format)."""

    TWO_PLAYERS = 1  # 7 tiles each, target 250
    THREE_PLAYERS = 2  # 5 tiles each, target 200
    FOUR_PLAYERS = 3  # 4 individual players, 5 tiles each, target 200
    PARTNERSHIPS = 4  # seats 0+2 against 1+3, 5 tiles each, target 250


class OpenRule(enum.IntEnum):
    """How the opener of a hand was chosen (docs/RULES.md §4 "Who opens a hand")."""

    HIGHEST_DOUBLE = 1  # must open with the highest double held
    HEAVIEST_TILE = 2  # nobody held a double: must open with the heaviest tile
    WINNER_CHOOSES = 3  # after a domino: the player who went out opens with any tile


class HandEndKind(enum.IntEnum):
    """How a hand ended."""

    DOMINO = 1  # a player played their last tile
    BLOCKED = 2  # the boneyard was empty and nobody could play


class MatchEndReason(enum.IntEnum):
    """Why a match ended."""

    UNSPECIFIED = 0
    TARGET = 1  # a side reached the target score
    HAND_LIMIT = 2  # the safety valve: max_hands hands were played
    FAULT = 3  # a bot committed a fault; its side forfeits
    ABORTED = 4  # the referee was stopped; no result


class FaultKind(enum.IntEnum):
    """The faults of docs/RULES.md §14 "Faults and forfeits"; any of them forfeits the match."""

    NONE = 0
    TIMEOUT = 1
    CRASH = 2
    DISCONNECT = 3
    ILLEGAL_PLAY = 4
    MALFORMED_ANSWER = 5
    PROTOCOL_VIOLATION = 6
    STARTUP_FAILURE = 7


class Tile(NamedTuple):
    """A domino tile: ``high >= low``, both 0..6. It is a tuple, so ``Tile(6, 4) == (6, 4)``."""

    high: int
    low: int

    @property
    def pips(self) -> int:
        """The tile's pips: high + low."""
        return self.high + self.low

    @property
    def is_double(self) -> bool:
        """Whether both halves are equal."""
        return self.high == self.low

    def has(self, value: int) -> bool:
        """Whether one half shows ``value``."""
        return value in (self.high, self.low)

    def other(self, value: int) -> int:
        """The half opposite to a half showing ``value`` (the tile must have it)."""
        return self.low if self.high == value else self.high

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"


class Play(NamedTuple):
    """A tile and the end it is laid on (the opening play's end is LEFT)."""

    tile: Tile
    end: End

    def __str__(self) -> str:
        return f"{self.tile} {self.end.name.lower()}"


class LineEnd(NamedTuple):
    """An open end: the value a tile must show, and whether a double lies crosswise there."""

    value: int
    is_double: bool

    @property
    def count(self) -> int:
        """What this end adds to the end count: both halves of a double, else its value."""
        return 2 * self.value if self.is_double else self.value


class LineTile(NamedTuple):
    """A tile on the line: what was played, by which seat, on which end."""

    tile: Tile
    seat: int
    end: End


class PlayEvent(NamedTuple):
    """A seat played. ``count`` is the end count after the play, ``points`` what it scored
    for ``side`` (the count when a positive multiple of 5, else 0)."""

    hand_index: int
    seat: int
    play: Play
    count: int
    points: int
    side: int


class DrawEvent(NamedTuple):
    """A seat drew ``count`` tiles from the boneyard. ``tiles`` are known only when the
    seat is this bot's own seat; for other seats it is empty."""

    hand_index: int
    seat: int
    count: int
    tiles: Tuple[Tile, ...]


class PassEvent(NamedTuple):
    """A seat could not play and the boneyard was empty."""

    hand_index: int
    seat: int


Event = Union[PlayEvent, DrawEvent, PassEvent]


def points_for_count(count: int) -> int:
    """Points an end count scores: the count if it is a positive multiple of five, else 0."""
    return count if count > 0 and count % 5 == 0 else 0


@dataclass(frozen=True)
class MatchInfo:
    """What the bot is told when a match starts (one bot object plays one match)."""

    match_id: str
    format: Format
    num_players: int
    num_sides: int
    seat: int
    side: int
    partner: int  # -1 without partnerships
    target_score: int  # a side wins when its score reaches this
    max_hands: int  # the safety valve
    move_time_ms: int  # per decision, before the bank is used
    time_bank_ms: int  # extra time for the whole match
    seat_names: Tuple[str, ...]
    # A seed for this bot's own randomness in this match: a function of --seed, the match id
    # and the seat only (the same function as the C++ SDK's MatchInfo::seed).
    seed: int
    # The parsed command line (argparse.Namespace), including the bot's own flags.
    args: object = None


@dataclass(frozen=True)
class HandStartInfo:
    """A new hand: this seat's tiles and who opens."""

    hand_index: int
    tiles: Tuple[Tile, ...]
    opener: int
    open_rule: OpenRule
    open_with: Optional[Tile]  # the tile that must open; None with WINNER_CHOOSES
    hand_sizes: Tuple[int, ...]
    boneyard_size: int
    scores: Tuple[int, ...]


@dataclass(frozen=True)
class HandEndInfo:
    """A hand's end, with every seat's remaining tiles revealed."""

    hand_index: int
    kind: HandEndKind
    domino_seat: int  # who went out, -1 for a block
    winner_side: int  # who scored for the hand end, -1 if nobody
    points: int
    hands: Tuple[Tuple[Tile, ...], ...]  # remaining tiles per seat
    scores: Tuple[int, ...]  # every side's score after the hand


@dataclass(frozen=True)
class MatchEndInfo:
    """The result. ``placements`` per side, 1 = first; a side that forfeited is last."""

    reason: MatchEndReason
    winner_side: int  # -1: a draw or no result
    scores: Tuple[int, ...]
    placements: Tuple[int, ...]
    fault_seat: int  # -1 if nobody committed a fault
    fault_kind: FaultKind
    fault_reason: str


@dataclass(frozen=True)
class View:
    """Everything this seat may see when it must play (docs/RULES.md §15 "What a bot may see").

    ``legal_plays`` is never empty, in the referee's fixed order (by tile, LEFT before
    RIGHT); ``choose_play`` answers with one of them or with its index.
    """

    seat: int
    side: int
    partner: int  # -1 without partnerships
    num_players: int
    num_sides: int
    target_score: int
    hand_index: int
    hand: Tuple[Tile, ...]  # this seat's tiles, including any it just drew
    line: Tuple[LineTile, ...]  # every tile on the line, in play order
    left_end: Optional[LineEnd]  # None while the line is empty
    right_end: Optional[LineEnd]
    end_count: int  # the current count of the open ends
    hand_sizes: Tuple[int, ...]  # tiles held by each seat
    boneyard_size: int
    scores: Tuple[int, ...]  # every side's score
    legal_plays: Tuple[Play, ...]
    open_rule: OpenRule

    @property
    def ends(self) -> Tuple[Optional[LineEnd], Optional[LineEnd]]:
        """(left_end, right_end)."""
        return (self.left_end, self.right_end)

    def end(self, end: End) -> Optional[LineEnd]:
        """The open end on ``end``'s side (None while the line is empty)."""
        return self.left_end if end == End.LEFT else self.right_end

    def count_after(self, play: Play) -> int:
        """The end count if this seat made ``play`` now (docs/RULES.md §7).

        A lone tile counts all its pips; otherwise each end counts its value, and a double
        lying at an end counts both halves (a double opener stays a double end on the side
        nobody has played on yet).
        """
        tile = Tile(*play.tile)
        if not self.line:
            return tile.pips
        new_end = LineEnd(tile.other(self.end(play.end).value), tile.is_double)
        if play.end == End.LEFT:
            return new_end.count + self.right_end.count
        return self.left_end.count + new_end.count

    def points_after(self, play: Play) -> int:
        """Points ``play`` would score now: the count after it, if a positive multiple of 5."""
        return points_for_count(self.count_after(play))

    def unseen(self) -> Tuple[Tile, ...]:
        """Every tile this seat cannot see: the other hands and the boneyard together."""
        seen = set(self.hand) | {t.tile for t in self.line}
        return tuple(Tile(h, lo) for h in range(7) for lo in range(h + 1)
                     if (h, lo) not in seen)


@dataclass(frozen=True)
class Clock:
    """The time one decision may take, measured by the referee from sending the request to
    receiving the answer: ``move_time_ms`` plus whatever is left of the bank. Leave a margin
    for the transport (a few milliseconds; more for a busy Python process)."""

    received: float  # time.monotonic() when the SDK got the request
    move_time_ms: int
    bank_left_ms: int

    def hard_deadline(self) -> float:
        """The time.monotonic() instant after which the answer is late (move time + bank)."""
        return self.received + (self.move_time_ms + self.bank_left_ms) / 1000.0

    def move_deadline(self) -> float:
        """The instant after which the bank starts to be spent."""
        return self.received + self.move_time_ms / 1000.0

    def remaining(self) -> float:
        """Seconds left before the hard deadline (negative once it passed)."""
        return self.hard_deadline() - time.monotonic()


__all__ = [
    "Clock", "DrawEvent", "End", "Event", "FaultKind", "Format", "HandEndInfo",
    "HandEndKind", "HandStartInfo", "LineEnd", "LineTile", "MatchEndInfo", "MatchEndReason",
    "MatchInfo", "OpenRule", "PassEvent", "Play", "PlayEvent", "Tile", "View",
    "points_for_count",
]
