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
to think about threads. Install the package (``pip install sdk/python``, see sdk/README.md)
and run the file: ``python3 my_bot.py --listen ADDRESS``, or ``allfives-bot my_bot.py --listen
ADDRESS`` (the runner, also ``python3 -m allfives_bot``). In a build of the repository,
``build/python/run_bot my_bot.py --listen ...`` runs it without installing anything.

``allfives_bot.core`` is the rules core itself (the referee's C++ code, bound): states to play
forward, worlds consistent with a view, matches played in C++; ``allfives_bot.env`` an
in-process environment in PettingZoo's style for search and training.
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
