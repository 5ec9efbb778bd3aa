"""The engine bound for Python (core.evaluate) and the sample bot built on it
(sample_bots/python/engine_bot.py): one value per legal play, the same for the same seed,
exact with no error where the seat knows every tile, and the bot's answer a legal play.
"""

import argparse
import importlib.util
import math
import os
import time
import unittest

from allfives_bot import Clock, Format, MatchInfo, core

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "engine_bot", os.path.join(HERE, "..", "..", "sample_bots", "python", "engine_bot.py"))
engine_bot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(engine_bot)


def decisions(seed):
    """Every view with a choice from a random match on the in-process Table (with knowledge)."""
    table = core.Table(Format.TWO_PLAYERS, seed)
    rng = core.SplitMix64(seed)
    while not table.is_terminal():
        view = table.view(table.seat_to_move)
        if len(view.legal_plays) > 1:
            yield view
        actions = table.legal_actions()
        table.step(actions[rng.below(len(actions))])


class EvaluateTest(unittest.TestCase):
    def test_one_value_per_legal_play_and_the_same_for_the_same_seed(self):
        for n, view in enumerate(decisions(3)):
            if n >= 20:
                break
            a = core.evaluate(view, worlds=50, seed=9)
            b = core.evaluate(view, worlds=50, seed=9)
            self.assertEqual(a, b)
            self.assertEqual([o["play"] for o in a["options"]], list(view.legal_plays))
            for o in a["options"]:
                self.assertTrue(0.0 <= o["win"] <= 1.0)
                self.assertTrue(math.isfinite(o["points"]))

    def test_exact_where_the_seat_knows_every_tile(self):
        exact = 0
        for seed in range(1, 30):
            for view in decisions(seed):
                if view.boneyard_size == 0:
                    result = core.evaluate(view, worlds=20)
                    if result["exact"]:
                        exact += 1
                        self.assertEqual(result["worlds"], 1)
                        self.assertTrue(all(o["points_se"] == 0 for o in result["options"]))
        self.assertGreater(exact, 5)

    def test_refuses_bad_arguments(self):
        view = next(decisions(4))
        with self.assertRaises(ValueError):
            core.evaluate(view, worlds=0)


class EngineBotTest(unittest.TestCase):
    def test_answers_a_legal_play(self):
        info = MatchInfo(match_id="m", format=Format.TWO_PLAYERS, num_players=2, num_sides=2,
                         seat=0, side=0, partner=-1, target_score=250, max_hands=200,
                         move_time_ms=1000, time_bank_ms=5000, seat_names=("a", "b"), seed=5,
                         args=argparse.Namespace(worlds=30))
        bot = engine_bot.EngineBot(info)
        for n, view in enumerate(decisions(6)):
            if n >= 10:
                break
            choice = bot.choose_play(view, Clock(time.monotonic(), 1000, 5000))
            self.assertIn(choice, range(len(view.legal_plays)))
            self.assertEqual(len(bot.last["options"]), len(view.legal_plays))


if __name__ == "__main__":
    unittest.main()
