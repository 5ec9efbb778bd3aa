"""The rules core bound to Python (allfives_bot.core) against the C++ core and the referee:
the same seeds play the same matches event for event, the referee's logged deals and scores
replay identically, states copy independently, a state's views carry the knowledge the SDK
keeps, worlds sampled from a view show exactly that view, and matches played in C++ do not
depend on the thread count.

Run by ctest (python_sdk_unit) with the programs it compares against in the environment:
ALLFIVES_CORE_TRANSCRIPT, ALLFIVES_REFEREE, ALLFIVES_GREEDY_BOT, ALLFIVES_RANDOM_BOT.
"""

import copy
import json
import os
import subprocess
import tempfile
import unittest

from allfives_bot import End, Format, OpenRule, Play, Tile, core

FORMATS = {"2p": Format.TWO_PLAYERS, "3p": Format.THREE_PLAYERS, "4p": Format.FOUR_PLAYERS,
           "partners": Format.PARTNERSHIPS}


def program(name):
    path = os.environ.get(name)
    if not path:
        raise RuntimeError(f"{name} is not set: run this test through ctest (python_sdk_unit)")
    return path


def tiles(ts):
    return ",".join(str(t) for t in ts)


def line_of(e):
    """The event as core_transcript.cpp prints it."""
    play = "-"
    if e.kind == "play":
        play = f"{e.play.tile}{'L' if e.play.end == End.LEFT else 'R'}"
    open_with = str(e.open_with) if e.open_with is not None else "-"
    hands = "|".join(tiles(h) for h in e.hands)
    values = ",".join(str(v) for v in e.values)
    return (f"{e.kind} h={e.hand_index} s={e.seat} side={e.side} play={play} c={e.count} "
            f"p={e.points} t={tiles(e.tiles)} r={e.reason} o={open_with} hands={hands} "
            f"v={values}")


def python_transcript(name, first, last):
    """core_transcript's matches, driven from Python: each seat picks uniformly among the legal
    plays of its own view with the bound SplitMix64."""
    out = []
    for seed in range(first, last + 1):
        out.append(f"match {name} seed {seed}")
        state, events = core.State.new_match_with_events(FORMATS[name], seed)
        rng = core.SplitMix64(seed ^ 0x5EED)
        while True:
            out.extend(line_of(e) for e in events)
            if state.is_terminal():
                break
            legal = state.view(state.seat_to_move).legal_plays
            assert legal == state.legal_plays()
            events = state.apply_with_events(legal[rng.below(len(legal))])
        scores = state.scores
        out.append(f"end scores={scores[0]},{scores[1]} winner={state.winner_side}")
    return "\n".join(out) + "\n"


class SameAsTheCppCore(unittest.TestCase):
    def test_self_play_prints_the_same_events_for_the_same_seeds(self):
        for name in FORMATS:
            with self.subTest(format=name):
                cpp = subprocess.run([program("ALLFIVES_CORE_TRANSCRIPT"), name, "1", "25"],
                                     check=True, capture_output=True, text=True).stdout
                py = python_transcript(name, 1, 25)
                self.assertGreater(cpp.count("\n"), 25 * 100)  # whole matches, not a stub
                if py != cpp:  # the first line that differs, rather than two long texts
                    for i, (a, b) in enumerate(zip(py.splitlines(), cpp.splitlines())):
                        self.assertEqual(a, b, f"line {i + 1}")
                self.assertEqual(py, cpp)

    def test_the_referee_s_logged_matches_replay_identically(self):
        """A real referee match: the bound core deals what the log's hand starts say for the
        log's seed, and every play scores, draws and ends hands as logged."""
        with tempfile.TemporaryDirectory(prefix="allfives-core-test-") as tmp:
            for fmt, flag, bots in [(Format.TWO_PLAYERS, "2p", 2), (Format.THREE_PLAYERS, "3p", 3),
                                    (Format.PARTNERSHIPS, "partners", 4)]:
                log = os.path.join(tmp, f"{flag}.jsonl")
                players = [program("ALLFIVES_GREEDY_BOT"), program("ALLFIVES_RANDOM_BOT")] * 2
                subprocess.run([program("ALLFIVES_REFEREE"), "match", "--format", flag,
                                *players[:bots], "--seed", "11", "--log", log, "--no-sandbox"],
                               check=True, capture_output=True, text=True)
                with self.subTest(format=flag):
                    self.replay(fmt, log)

    def test_a_log_of_version_1_replays(self):
        """A log written at log_version 1 (no decision fields) is read the same way."""
        self.replay(Format.PARTNERSHIPS, os.environ["ALLFIVES_V1_LOG"], min_plays=10)

    def check_options(self, state, play, body, version):
        """log_version 2 on: the options are the core's legal plays, in its order, with the
        points the seat's view says each would score; the play made is one of them."""
        options = body.get("options", [])
        if version < 2:
            self.assertEqual(options, [])
            return
        legal = state.legal_plays()
        view = state.view(state.seat_to_move)
        self.assertEqual(len(options), len(legal))
        for option, p in zip(options, legal):
            end = End.RIGHT if option["play"].get("end") == "END_RIGHT" else End.LEFT
            tile = option["play"]["tile"]
            self.assertEqual(Play(Tile(tile.get("high", 0), tile.get("low", 0)), end), p)
            self.assertEqual(option.get("points", 0), view.points_after(p))
            self.assertEqual(option.get("count", 0), view.count_after(p))
        self.assertIn(play, legal)

    def replay(self, fmt, path, min_plays=50):
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        header = records[0]["header"]
        config = core.Config(fmt, header["target_score"], header["max_hands"])
        state, events = core.State.new_match_with_events(config, int(header["seed"]))
        pending = list(events)
        plays = 0

        def tile(m):
            return Tile(m.get("high", 0), m.get("low", 0))

        for record in records[1:]:
            (kind, body), = record.items()
            if kind in ("bot_output", "fault"):
                continue
            if kind == "play":
                self.assertEqual(pending, [], "the log plays before the core's events are done")
                play = Play(tile(body["play"]["tile"]),
                            End.RIGHT if body["play"]["end"] == "END_RIGHT" else End.LEFT)
                self.assertIn(play, state.legal_plays())
                self.check_options(state, play, body, header["log_version"])
                pending = state.apply_with_events(play)
                e = pending.pop(0)
                self.assertEqual((e.kind, e.seat, e.play, e.count, e.points),
                                 ("play", body["seat"], play, body.get("count", 0),
                                  body.get("points", 0)))
                plays += 1
                continue
            e = pending.pop(0)
            self.assertEqual(e.kind, kind, f"record {record}")
            if kind == "hand_start":
                for h in body["hands"]:
                    self.assertEqual(set(e.hands[h["seat"]]), {tile(t) for t in h["tiles"]})
                deal = core.deal_hand(fmt, int(header["seed"]), body.get("hand_index", 0))
                self.assertEqual(list(deal[1]), [tile(t) for t in body["boneyard"]])
                self.assertEqual(e.seat, body.get("opener_seat", 0))
            elif kind == "draw":
                self.assertEqual(e.seat, body.get("seat", 0))
                self.assertEqual(set(e.tiles), {tile(t) for t in body["tiles"]})
            elif kind == "pass":
                self.assertEqual(e.seat, body.get("seat", 0))
            elif kind == "hand_end":
                self.assertEqual(e.points, body.get("points", 0))
                self.assertEqual(e.side, body.get("winner_side", 0))
            elif kind == "match_end":
                self.assertEqual(list(state.scores), body["scores"])
                self.assertEqual(state.winner_side, body.get("winner_side", 0))
        self.assertTrue(state.is_terminal())
        self.assertEqual(pending, [])
        self.assertGreater(plays, min_plays)


class StateTest(unittest.TestCase):
    def test_a_copy_is_independent(self):
        s = core.State.new_match(Format.TWO_PLAYERS, 3)
        for c in (s.copy(), copy.copy(s), copy.deepcopy(s)):
            self.assertEqual(c, s)
            c.apply(c.legal_plays()[0])
            self.assertNotEqual(c, s)
            self.assertEqual(s.line, ())

    def test_events_carry_the_drawing_order_and_the_line_ends(self):
        for name, fmt in FORMATS.items():
            with self.subTest(format=name):
                s, _ = core.State.new_match_with_events(fmt, 99)
                draws = plays = 0
                while not s.is_terminal():
                    events = s.apply_with_events(s.legal_plays()[0])
                    hand_ended = any(e.kind == "hand_end" for e in events)
                    for e in events:
                        if e.kind == "draw":
                            draws += 1
                            self.assertEqual(len(e.drawn), e.count)
                            self.assertEqual(set(e.drawn), set(e.tiles))
                            other = (e.seat + 1) % s.view(e.seat).num_players
                            self.assertEqual(e.seen_by(other).drawn, ())
                            self.assertEqual(e.seen_by(other).count, e.count)
                        else:
                            self.assertIsNone(e.drawn)
                        if e.kind == "play":
                            plays += 1
                            if not hand_ended:
                                self.assertEqual(e.ends, (s.left_end, s.right_end))
                        else:
                            self.assertIsNone(e.ends)
                self.assertGreater(draws, 0)
                self.assertGreater(plays, 0)

    def test_illegal_plays_are_refused_with_the_reason(self):
        s = core.State.new_match(Format.TWO_PLAYERS, 3)
        with self.assertRaisesRegex(ValueError, "must open with another tile|does not hold"):
            s.apply(Play(Tile(0, 0), End.LEFT) if s.legal_plays()[0].tile != Tile(0, 0)
                    else Play(Tile(6, 6), End.LEFT))
        with self.assertRaises(ValueError):
            s.apply_action(56)
        with self.assertRaises(TypeError):
            s.apply("6-6")

    def test_actions_and_plays_agree(self):
        s = core.State.new_match(Format.FOUR_PLAYERS, 9)
        rng = core.SplitMix64(2)
        while not s.is_terminal():
            plays, actions = s.legal_plays(), s.legal_actions()
            self.assertEqual([core.action_of(p) for p in plays], actions)
            self.assertEqual([core.play_of(a) for a in actions], list(plays))
            mask = s.action_mask()
            self.assertEqual([a for a in range(core.NUM_ACTIONS) if mask[a]], actions)
            s.apply_action(actions[rng.below(len(actions))])

    def test_play_out_finishes_the_hand_or_the_match(self):
        s = core.State.new_match(Format.TWO_PLAYERS, 5)
        t = s.copy()
        plays = t.play_out("greedy", core.SplitMix64(1))
        self.assertGreater(plays, 0)
        self.assertTrue(t.is_terminal() or t.hand_index == 1)
        s.play_out("random", core.SplitMix64(1), whole_match=True)
        self.assertTrue(s.is_terminal())
        with self.assertRaises(ValueError):
            s.copy().play_out("clever", core.SplitMix64(1))

    def test_the_rules_numbers_come_from_the_core(self):
        self.assertEqual(core.RULES_VERSION, "allfives-1")
        self.assertEqual([core.hand_size(f) for f in FORMATS.values()], [7, 5, 5, 5])
        self.assertEqual([core.standard_target(f) for f in FORMATS.values()], [250, 200, 200, 250])
        self.assertEqual(core.partner_of(Format.PARTNERSHIPS, 1), 3)
        self.assertEqual(core.num_sides(Format.PARTNERSHIPS), 2)


class SamplingTest(unittest.TestCase):
    def test_a_sampled_world_shows_the_seat_exactly_its_view(self):
        table = core.Table(Format.THREE_PLAYERS, 8)
        rng = core.SplitMix64(5)
        decisions = 0
        while not table.is_terminal():
            seat = table.seat_to_move
            view = table.view(seat)
            sampler = view.sampler()
            self.assertTrue(sampler.ok and sampler.exact)
            for _ in range(3):
                world = view.sample_state(rng)
                self.assertEqual(world.view(seat), view)
                for other in range(3):
                    if other != seat:
                        self.assertFalse(set(world.hand(other)) &
                                         set(view.knowledge.forbidden_for_all(other)))
            decisions += 1
            actions = table.legal_actions()
            table.step(actions[rng.below(len(actions))])
        self.assertGreater(decisions, 50)

    def test_a_view_not_at_its_own_decision_cannot_be_sampled(self):
        s = core.State.new_match(Format.TWO_PLAYERS, 4)
        other = 1 - s.seat_to_move
        self.assertFalse(s.view(other).sampler().ok)
        with self.assertRaises(ValueError):
            s.view(other).sample_state(core.SplitMix64(1))


class StateViewKnowledgeTest(unittest.TestCase):
    """State.view(seat).knowledge is the Knowledge a bot in that seat holds: the one the served
    SDK feeds from the hand's public events (session.py) and the Table keeps for each seat."""

    @staticmethod
    def told(knowledge, events, seat):
        """What the served SDK tells a seat's Knowledge of each event (session._observe)."""
        for e in events:
            e = e.seen_by(seat)
            if e.kind == "hand_start":
                knowledge.start_hand(e.hand_index, e.open_rule, e.open_with)
            elif e.kind == "play":
                knowledge.observe_play(e.seat, e.play)
            elif e.kind == "draw":
                knowledge.observe_draw(e.seat, e.count)
            elif e.kind == "pass":
                knowledge.observe_pass(e.seat)

    def test_it_is_the_knowledge_the_sdk_and_the_table_keep(self):
        for name, fmt in FORMATS.items():
            with self.subTest(format=name):
                n = core.num_players(fmt)
                table = core.Table(fmt, 21)
                state, events = core.State.new_match_with_events(fmt, 21)
                fed = [core.Knowledge(fmt, seat) for seat in range(n)]
                rng = core.SplitMix64(2)
                draws = 0
                while True:
                    for seat in range(n):
                        self.told(fed[seat], events, seat)
                        knowledge = state.view(seat).knowledge
                        self.assertIsNotNone(knowledge)
                        self.assertEqual(knowledge, fed[seat])
                        self.assertEqual(knowledge, table.knowledge(seat))
                    if state.is_terminal():
                        break
                    self.assertTrue(state.view(state.seat_to_move).sampler().exact)
                    actions = state.legal_actions()
                    action = actions[rng.below(len(actions))]
                    events = state.apply_with_events(core.play_of(action))
                    table.step(action)
                    draws += sum(e.kind == "draw" for e in events)
                self.assertGreater(draws, 0)

    def test_a_draw_after_a_position_is_known(self):
        # Line 3-3 (seat 0), 3-4 (seat 1); seat 0 plays 4-5, and seat 1, holding no 3 and no
        # 5, draws 0-4 and 5-6 and must play the 5-6.
        hand0 = [Tile(5, 4), Tile(6, 6), Tile(4, 4), Tile(3, 1), Tile(3, 2), Tile(5, 3)]
        hand1 = [Tile(0, 0), Tile(1, 1), Tile(1, 0), Tile(2, 2), Tile(2, 0), Tile(2, 1)]
        line = [(Tile(3, 3), 0, End.LEFT), (Tile(4, 3), 1, End.RIGHT)]
        used = set(hand0) | set(hand1) | {Tile(3, 3), Tile(4, 3), Tile(4, 0), Tile(6, 5)}
        rest = [core.tile_of(i) for i in range(core.NUM_TILES) if core.tile_of(i) not in used]
        state = core.State.from_position(Format.TWO_PLAYERS, 0, [hand0, hand1],
                                         [Tile(4, 0), Tile(6, 5)] + rest, line, (0, 0), 0,
                                         OpenRule.WINNER_CHOOSES)
        self.assertEqual(state.view(0).knowledge.groups(1), [(6, ())])
        state.apply(Play(Tile(5, 4), End.RIGHT))
        self.assertEqual(state.seat_to_move, 1)
        knowledge = state.view(0).knowledge
        lacking = {t for t in map(core.tile_of, range(core.NUM_TILES)) if t.has(3) or t.has(5)}
        [(count, forbidden)] = knowledge.groups(1)
        self.assertEqual((count, set(forbidden)), (7, lacking))
        self.assertEqual(knowledge.tracked_size(1), 8)

    def test_none_for_a_position_whose_seats_drew_before_it(self):
        # Seat 1 laid one tile and holds 7: it drew before the position, when is not recorded.
        hand0 = [Tile(5, 4), Tile(6, 6), Tile(4, 4), Tile(3, 1), Tile(3, 2), Tile(5, 3)]
        hand1 = [Tile(0, 0), Tile(1, 1), Tile(1, 0), Tile(2, 2), Tile(2, 0), Tile(2, 1),
                 Tile(4, 0)]
        line = [(Tile(3, 3), 0, End.LEFT), (Tile(4, 3), 1, End.RIGHT)]
        used = set(hand0) | set(hand1) | {Tile(3, 3), Tile(4, 3)}
        rest = [core.tile_of(i) for i in range(core.NUM_TILES) if core.tile_of(i) not in used]
        state = core.State.from_position(Format.TWO_PLAYERS, 0, [hand0, hand1], rest, line,
                                         (0, 0), 0, OpenRule.WINNER_CHOOSES)
        self.assertIsNone(state.view(0).knowledge)
        self.assertTrue(state.view(0).sampler().ok)


class BatchTest(unittest.TestCase):
    def test_results_do_not_depend_on_threads(self):
        one = core.play_matches(Format.TWO_PLAYERS, ["greedy", "random"], 300, seed=4, threads=1)
        two = core.play_matches(Format.TWO_PLAYERS, ["greedy", "random"], 300, seed=4, threads=2)
        self.assertEqual(one, two)
        self.assertEqual(sum(one["wins"]) + one["draws"], 300)
        self.assertGreater(one["wins"][0], 250)  # greedy beats random

    def test_bad_arguments_are_refused(self):
        with self.assertRaises(ValueError):
            core.play_matches(Format.TWO_PLAYERS, ["greedy"], 10)
        with self.assertRaises(ValueError):
            core.play_matches(Format.TWO_PLAYERS, ["greedy", "clever"], 10)


if __name__ == "__main__":
    unittest.main()
