"""mc, in Python: determinized Monte Carlo search with the referee's own rules core.

On each decision with a choice, the bot repeatedly
  1. draws a world: a full state consistent with everything its seat has seen (the other
     hands and the boneyard's order, uniformly among those the public history allows:
     ``view.sampler()``, the core's WorldSampler over the Knowledge the SDK keeps);
  2. tries every legal play in that world and finishes the hand in C++ with the core's greedy
     policy for every seat, one play in ten at random (``State.play_out``), the same rollout
     randomness for every candidate;
  3. scores the result: a win or loss of the match counts 1000, else its side's points since
     the decision minus the others' mean;
and plays the candidate with the best total. It searches for --budget-ms (default 100) or
--simulations worlds, and always stops a fifth of the move time (at least 50 ms) before the
referee's deadline, so a loaded machine costs it worlds, never a timeout.

    build/sample_bots/mc_py --listen unix:/tmp/mc.sock [--budget-ms 100] [--simulations N]

It is served by the SDK unchanged (``run``); sdk/docs/python.md ("A Python bot that searches")
walks through it, and bench/README.md has its results against greedy.
"""

import sys
import time

from allfives_bot import Bot, core, run

WIN = 1000  # the utility of winning the match, against a hand's points


class MonteCarloBot(Bot):
    """Flat Monte Carlo over sampled worlds with greedy-ish rollouts."""

    now = staticmethod(time.monotonic)  # the clock it stops by (a test gives its own)

    def __init__(self, info):
        super().__init__(info)
        args = info.args
        self.budget = (args.budget_ms if args else 100) / 1000.0
        self.simulations = args.simulations if args else 0
        self.seed = info.seed
        self.decisions = 0
        self.worlds = 0  # worlds searched for the last decision (for tests and tools)

    def choose_play(self, view, clock):
        legal = view.legal_plays
        self.decisions += 1
        self.worlds = 0
        if len(legal) == 1:
            return 0
        margin = max(0.05, clock.move_time_ms / 5000.0)
        stop = min(clock.move_deadline(), clock.hard_deadline()) - margin
        if self.simulations == 0:
            stop = min(stop, clock.received + self.budget)
        limit = self.simulations or 1 << 30
        rng = core.SplitMix64(core.derive_seed(self.seed, self.decisions))
        sampler = view.sampler()
        me, sides = view.side, view.num_sides
        before = view.scores
        totals = [0.0] * len(legal)
        while self.worlds < limit and (self.worlds == 0 or self.now() < stop):
            world = sampler.sample(rng)
            rollout_seed = rng.next()
            for i, play in enumerate(legal):
                s = world.copy()
                s.apply(play)
                s.play_out("greedy", core.SplitMix64(rollout_seed), 100)
                totals[i] += utility(s, me, sides, before)
            self.worlds += 1
        return max(range(len(legal)), key=totals.__getitem__)


def utility(state, me, sides, before):
    """What a rollout is worth to side ``me``: the match's result if it ended, else the points
    its side made since the decision minus the other sides' mean."""
    if state.is_terminal():
        winner = state.winner_side
        return 0 if winner < 0 else (WIN if winner == me else -WIN)
    scores = state.scores
    mine = scores[me] - before[me]
    others = sum(scores[s] - before[s] for s in range(sides) if s != me)
    return mine - others / (sides - 1)


def count(text):
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def flags(parser):
    parser.add_argument("--budget-ms", type=count, default=100,
                        help="search time per decision in milliseconds (default 100), never "
                             "past the move time minus a margin")
    parser.add_argument("--simulations", type=count, default=0,
                        help="worlds per decision instead of a time budget (0: use "
                             "--budget-ms); still stops before the deadline")


if __name__ == "__main__":
    sys.exit(run(MonteCarloBot, "mc_py", "1.0", extra_flags=flags))
