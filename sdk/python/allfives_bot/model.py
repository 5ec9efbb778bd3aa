"""The game as a Python bot sees it: tiles, plays, the line, the view and the clock.

Tiles, plays and events are plain named tuples and dataclasses built by the SDK from the
protocol messages of proto/allfives/v1/bot.proto; a bot never touches protobuf. The enums are
made from the protocol's (common.proto), and the View and every rule (the count, the legal
plays, what a seat may see) are the rules core's, bound from C++ (allfives_bot.core): the
referee's own code, so nothing of the rules is written twice.
"""

from __future__ import annotations

import enum
import time
import types
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Optional, Tuple, Union

from .stubs import common_pb2

try:
    from . import _core
except ImportError as error:  # pragma: no cover - depends on how the package was built
    raise ImportError(
        "allfives_bot: the rules core extension allfives_bot._core is missing "
        f"({error}). This is the package's source folder: install the package "
        "(pip install sdk/python, which compiles it with pybind11) or build the project and "
        "start the bot with build/python/run_bot BOT.py.") from error


def _from_proto(name: str, proto_enum, prefix: str, doc: str, zero: Optional[str] = None):
    """An IntEnum with the values of a protocol enum (common.proto) under their names without
    the enum's prefix (FORMAT_TWO_PLAYERS is Format.TWO_PLAYERS); the UNSPECIFIED value is left
    out, or kept under the name ``zero``. The numbers are the protocol's."""
    members = {} if zero is None else {zero: 0}
    for value_name, number in proto_enum.items():
        if number != 0:
            members[value_name[len(prefix):]] = number
    cls = enum.IntEnum(name, members, module=__name__)
    cls.__doc__ = doc
    return cls


# The enums of proto/allfives/v1/common.proto, the one place they are written.
End = _from_proto("End", common_pb2.End, "END_", """An open end of the line: LEFT or RIGHT.

    The opening tile lies with its low half on the LEFT end and its high half on the RIGHT
    end; the opening play itself is always recorded as LEFT.""")
Format = _from_proto("Format", common_pb2.Format, "FORMAT_",
                     "Who sits at the table: TWO_PLAYERS, THREE_PLAYERS, FOUR_PLAYERS, "
                     "PARTNERSHIPS (seats 0+2 against 1+3).")
OpenRule = _from_proto("OpenRule", common_pb2.OpenRule, "OPEN_RULE_",
                       "How the opener of a hand was chosen (docs/RULES.md §4): HIGHEST_DOUBLE, "
                       "HEAVIEST_TILE, WINNER_CHOOSES.")
HandEndKind = _from_proto("HandEndKind", common_pb2.HandEndKind, "HAND_END_KIND_",
                          "How a hand ended: DOMINO (a player went out) or BLOCKED.")
MatchEndReason = _from_proto("MatchEndReason", common_pb2.MatchEndReason, "MATCH_END_REASON_",
                             "Why a match ended: TARGET, HAND_LIMIT, FAULT, ABORTED.",
                             zero="UNSPECIFIED")
FaultKind = _from_proto("FaultKind", common_pb2.FaultKind, "FAULT_KIND_",
                        "The faults of docs/RULES.md §14; any of them forfeits the match. NONE "
                        "when there was none.", zero="NONE")


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


points_for_count = _core.points_for_count


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
    # The numeric parameters the tournament or tune file gives this bot (MatchStart.params,
    # TournamentBot.params), read-only: empty when none are given.
    params: Mapping[str, float] = field(
        default_factory=lambda: types.MappingProxyType({}), hash=False)

    def param(self, name: str, default: float) -> float:
        """Parameter ``name`` as sent, or ``default`` when the referee sent none of that name:
        ``info.param("epsilon", 0.05)``."""
        return self.params.get(name, default)


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


# Everything this seat may see when it must play (docs/RULES.md §15): the rules core's view
# (allfives_bot.core.View), with seat, side, partner, num_players, num_sides, target_score,
# hand_index, hand, line, left_end, right_end, ends, end(End), end_count, hand_sizes,
# boneyard_size, scores, legal_plays (never empty at a decision, in the referee's order),
# open_rule, ends_after(play), count_after(play), points_after(play), unseen(), and for
# searching bots knowledge, sampler() and sample_state(rng).
View = _core.View


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


_core._register(Tile, Play, LineTile, LineEnd, End, Format, OpenRule, HandEndKind,
                MatchEndReason)

__all__ = [
    "Clock", "DrawEvent", "End", "Event", "FaultKind", "Format", "HandEndInfo",
    "HandEndKind", "HandStartInfo", "LineEnd", "LineTile", "MatchEndInfo", "MatchEndReason",
    "MatchInfo", "OpenRule", "PassEvent", "Play", "PlayEvent", "Tile", "View",
    "points_for_count",
]
