"""engine, in Python: the strong bot's search (the C++ engine, sdk/engine) called from Python.

On each decision with a choice it asks ``core.evaluate`` for every legal play's value (worlds
sampled from what its seat has seen, weighted by the opponent model, rolled out or solved
exactly late in the hand) and plays the one with the best match-win estimate. A researcher
can read the same values to label positions or to judge another policy.

    build/sample_bots/engine_py --listen unix:/tmp/engine.sock [--worlds 400]
"""

import sys

from allfives_bot import Bot, core, run


class EngineBot(Bot):
    """The engine's best play by estimated match-win probability."""

    def __init__(self, info):
        super().__init__(info)
        self.worlds = info.args.worlds if info.args else 400
        self.seed = info.seed
        self.decisions = 0
        self.last = None  # the last evaluation (for tests and tools)

    def choose_play(self, view, clock):
        self.decisions += 1
        if len(view.legal_plays) == 1:
            return 0
        self.last = core.evaluate(view, worlds=self.worlds,
                                  seed=core.derive_seed(self.seed, self.decisions))
        options = self.last["options"]
        return max(range(len(options)), key=lambda i: options[i]["win"])


def flags(parser):
    parser.add_argument("--worlds", type=int, default=400,
                        help="worlds sampled per decision (default 400)")


if __name__ == "__main__":
    sys.exit(run(EngineBot, "engine_py", "1.0", extra_flags=flags))
