"""A hostile Python bot: at its first decision it forks without bound inside its handler.

Each child sleeps; the forks stop at the process limit (or after 200, so that the test stays
bounded on any machine), where os.fork() raises BlockingIOError and the SDK ends the stream
with status INTERNAL, the process living on. The end-to-end test
(tests/python/python_bot_test.cpp) checks that the fault's reason names the process limit.
"""

import os
import sys
import time

from allfives_bot import Bot, run


class ForkBombBot(Bot):
    """Forks until fork fails, then lets the failure end its match."""

    def choose_play(self, view, clock):
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
        return 0


if __name__ == "__main__":
    sys.exit(run(ForkBombBot, "fork_bomb", "1.0"))
