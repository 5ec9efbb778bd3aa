"""The Monte Carlo sample bot (sample_bots/python/mc.py) on real decisions of the in-process
Table: it answers a legal play, the same one for the same seed and number of worlds, searches
the worlds it is asked for, and stops well before the clock's deadline in time mode.
"""

import argparse
import importlib.util
import os
import time
import unittest

from allfives_bot import Clock, Format, MatchInfo, core

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "mc", os.path.join(HERE, "..", "..", "sample_bots", "python", "mc.py"))
mc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mc)


def info(seat, budget_ms=100, simulations=0, seed=5):
    return MatchInfo(match_id="m", format=Format.TWO_PLAYERS, num_players=2, num_sides=2,
                     seat=seat, side=seat, partner=-1, target_score=250, max_hands=200,
                     move_time_ms=1000, time_bank_ms=5000, seat_names=("a", "b"), seed=seed,
                     args=argparse.Namespace(budget_ms=budget_ms, simulations=simulations))


def decisions(seed, count):
    """Views with a real choice from a greedy self-play match."""
    table = core.Table(Format.TWO_PLAYERS, seed)
    rng = core.SplitMix64(seed)
    out = []
    while not table.is_terminal() and len(out) < count:
        view = table.view(table.seat_to_move)
        if len(view.legal_plays) > 1:
            out.append(view)
        actions = table.legal_actions()
        table.step(actions[rng.below(len(actions))])
    return out


class MonteCarloBotTest(unittest.TestCase):
    def test_a_fixed_number_of_worlds_gives_the_same_legal_choice(self):
        for view in decisions(3, 6):
            a = mc.MonteCarloBot(info(view.seat, simulations=40))
            b = mc.MonteCarloBot(info(view.seat, simulations=40))
            clock = Clock(time.monotonic(), 1000, 5000)
            x, y = a.choose_play(view, clock), b.choose_play(view, clock)
            self.assertEqual(x, y)
            self.assertIn(x, range(len(view.legal_plays)))
            self.assertEqual(a.worlds, 40)

    def test_it_stops_at_the_move_time_minus_its_margin_not_at_its_budget(self):
        view = decisions(4, 1)[0]
        bot = mc.MonteCarloBot(info(view.seat, budget_ms=5000))
        start = 1000.0
        readings = []

        def fake_now():  # 100 ms pass between two readings, whatever the machine's load
            readings.append(start + 0.1 * len(readings))
            return readings[-1]

        bot.now = fake_now
        clock = Clock(start, 1000, 0)  # the move time, not the budget, must stop it
        bot.choose_play(view, clock)
        # The first world needs no reading; then one per world until the stop at 800 ms
        # (1000 ms less its margin, a fifth of the move time): readings at 0, 100, ..., 700 ms
        # go on, 800 stops.
        self.assertAlmostEqual(readings[-1], start + 0.8)
        self.assertEqual(bot.worlds, 9)

    def test_one_legal_play_is_answered_at_once(self):
        s = core.State.new_match(Format.TWO_PLAYERS, 7)  # the opening double is forced
        view = s.view(s.seat_to_move)
        bot = mc.MonteCarloBot(info(view.seat))
        self.assertEqual(bot.choose_play(view, Clock(time.monotonic(), 1000, 5000)), 0)
        self.assertEqual(bot.worlds, 0)


if __name__ == "__main__":
    unittest.main()
