"""The class a Python bot extends."""

from __future__ import annotations

from typing import Optional, Union

from .model import (Clock, Event, HandEndInfo, HandStartInfo, MatchEndInfo, MatchInfo, Play,
                    View)


class Bot:
    """A bot for one match, seen from one seat.

    ``run()`` creates one object per match by calling the factory with the match's
    ``MatchInfo`` (so a subclass can simply be passed as the factory), and calls its methods
    from one thread, in game order: ``on_match_start``, then for each hand
    ``on_hand_start``, ``on_event`` for each public event and ``choose_play`` when this seat
    must play, ``on_hand_end``; finally ``on_match_end``.

    An exception raised by any of these methods ends this match only: the SDK prints the
    traceback to stderr and ends the stream with gRPC status INTERNAL, and the referee records
    a DISCONNECT fault (a forfeit; the process lives on) whose reason carries the exception's
    message.
    """

    def __init__(self, info: Optional[MatchInfo] = None) -> None:
        self.info = info

    def choose_play(self, view: View, clock: Clock) -> Union[Play, int]:
        """The one required method: one of ``view.legal_plays`` or its index.

        ``view.legal_plays`` is never empty. A well-formed play that is not legal forfeits
        the match (ILLEGAL_PLAY), and so does an answer after ``clock.hard_deadline()``.
        """
        raise NotImplementedError("a bot must implement choose_play(view, clock)")

    def set_comment(self, text: str) -> None:
        """Inside ``choose_play``: a short note sent with this answer (``PlayAnswer.comment``:
        an evaluation, a principal line), kept in the match log beside the play and shown by
        ``referee replay``. The referee keeps at most 256 bytes of its UTF-8 and counts the
        rest as dropped."""
        self._allfives_comment = str(text)

    def on_match_start(self, info: MatchInfo) -> None:
        """The match starts (called once, right after the object is made)."""

    def on_hand_start(self, info: HandStartInfo) -> None:
        """A hand was dealt."""

    def on_event(self, event: Event) -> None:
        """A public event (PlayEvent, DrawEvent or PassEvent), including this seat's own
        plays, delivered in order before the next decision or hand end."""

    def on_hand_end(self, info: HandEndInfo) -> None:
        """The hand ended; every hand is revealed."""

    def on_match_end(self, info: MatchEndInfo) -> None:
        """The match is over."""
