"""The Python bot SDK for the All Fives (Muggins) arena.

Write a class with one method and hand it to ``run()``::

    import sys
    from allfives_bot import Bot, run

    class First(Bot):
        def choose_play(self, view, clock):
            return 0  # the index of view.legal_plays[0]; a Play works too

    if __name__ == "__main__":
        sys.exit(run(First, "first", "1.0"))

``run()`` parses the standard flags (``--listen``, ``--seed``), serves the protocol of
proto/allfives/v1/bot.proto over gRPC and makes one bot object per match, so a bot never has
to think about threads. Start it with ``build/python/run_bot my_bot.py --listen ...``, which
puts this package and the generated stubs on the Python path; sdk/README.md has the rest.
"""

from .bot import Bot
from .model import (Clock, DrawEvent, End, Event, FaultKind, Format, HandEndInfo, HandEndKind,
                    HandStartInfo, LineEnd, LineTile, MatchEndInfo, MatchEndReason, MatchInfo,
                    OpenRule, PassEvent, Play, PlayEvent, Tile, View, points_for_count)
from .rng import SplitMix64
from .server import BotServer, run

__all__ = [
    "Bot", "BotServer", "Clock", "DrawEvent", "End", "Event", "FaultKind", "Format",
    "HandEndInfo", "HandEndKind", "HandStartInfo", "LineEnd", "LineTile", "MatchEndInfo",
    "MatchEndReason", "MatchInfo", "OpenRule", "PassEvent", "Play", "PlayEvent", "SplitMix64",
    "Tile", "View", "points_for_count", "run",
]
