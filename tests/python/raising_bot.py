"""A Python bot with a bug on purpose: its 3rd decision of a match raises an exception.

The end-to-end test (tests/python/python_bot_test.cpp) checks that the referee records it as
a DISCONNECT fault of this bot's seat (the SDK ends the stream with status INTERNAL and the
process lives on) whose reason carries the exception's message.
"""

import sys

from allfives_bot import Bot, run

MESSAGE = "deliberate failure at decision 3"


class RaisingBot(Bot):
    """Plays the first legal play twice, then raises."""

    def __init__(self, info=None):
        super().__init__(info)
        self.decisions = 0

    def choose_play(self, view, clock):
        self.decisions += 1
        if self.decisions == 3:
            raise ValueError(MESSAGE)
        return 0


if __name__ == "__main__":
    sys.exit(run(RaisingBot, "raising", "1.0"))
