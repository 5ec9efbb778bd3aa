"""Unit tests of the Python bot SDK without a referee: the end count of docs/RULES.md's worked
examples, and MatchSession driven by hand-made protocol messages.

Run by ctest (python_sdk_unit) as build/python/run_bot -m unittest discover -s tests/python.
"""

import io
import unittest
from unittest import mock

from allfives_bot.protocol import bot_pb2, common_pb2
from allfives_bot import rng
from allfives_bot import Bot, End, Format, LineEnd, LineTile, OpenRule, Play, Tile, core
from allfives_bot.session import MatchSession, SessionError


ALL_TILES = [Tile(h, lo) for h in range(7) for lo in range(h + 1)]


def view_of(plays):
    """Seat 0's view in a 2-player hand whose line is ``plays``, (high, low), end pairs laid in
    order by seats 0, 1, 0...; seat 0 holds every other tile but two (one for seat 1, one for
    the boneyard), so it always has a play."""
    line = [LineTile(Tile(*t), i % 2, End.LEFT if i == 0 else e) for i, (t, e) in enumerate(plays)]
    rest = [t for t in ALL_TILES if t not in {x.tile for x in line}]
    state = core.State.from_position(Format.TWO_PLAYERS, 0, [rest[2:], rest[:1]], rest[1:2], line,
                                     (0, 0), 0, OpenRule.WINNER_CHOOSES)
    return state.view(0)


L, R = End.LEFT, End.RIGHT


class CountTest(unittest.TestCase):
    """docs/RULES.md §7 "The count and the points it makes", worked examples, through the bound
    rules core (tests/core has them all; this checks the Python view reaches it)."""

    def test_a_lone_tile_counts_all_its_pips(self):
        empty = view_of([])
        self.assertEqual(empty.count_after(Play(Tile(5, 5), L)), 10)
        self.assertEqual(empty.count_after(Play(Tile(6, 4), L)), 10)
        self.assertEqual(empty.count_after(Play(Tile(6, 6), L)), 12)
        self.assertEqual(empty.points_after(Play(Tile(6, 6), L)), 0)
        self.assertEqual(empty.points_after(Play(Tile(6, 4), L)), 10)

    def test_the_worked_sequence(self):
        # lead 5-5; then 5-0 on it -> ends 0 and 5-5 -> 10
        v = view_of([((5, 5), L)])
        self.assertEqual(v.left_end, LineEnd(5, True))
        self.assertEqual(v.count_after(Play(Tile(5, 0), R)), 10)
        self.assertEqual(v.count_after(Play(Tile(5, 0), L)), 10)
        # then 0-0 on the 0 -> 10
        v = view_of([((5, 5), L), ((5, 0), R)])
        self.assertEqual(v.count_after(Play(Tile(0, 0), R)), 10)
        # then 5-6 on the double five -> 6 + 0-0 (0) = 6, then 0-4 on the double blank -> 10
        v = view_of([((5, 5), L), ((5, 0), R), ((0, 0), R)])
        self.assertEqual(v.count_after(Play(Tile(6, 5), L)), 6)
        v = view_of([((5, 5), L), ((5, 0), R), ((0, 0), R), ((6, 5), L)])
        self.assertEqual(v.count_after(Play(Tile(4, 0), R)), 10)
        self.assertEqual(v.points_after(Play(Tile(4, 0), R)), 10)

    def test_doubles_at_an_end(self):
        v = view_of([((2, 1), L), ((4, 1), L)])
        self.assertEqual(v.ends, (LineEnd(4, False), LineEnd(2, False)))
        self.assertEqual(v.points_after(Play(Tile(4, 4), L)), 10)
        self.assertEqual(v.points_after(Play(Tile(4, 3), L)), 5)
        v = view_of([((5, 5), L), ((5, 2), R)])
        self.assertEqual(v.points_after(Play(Tile(2, 0), R)), 10)
        v = view_of([((6, 6), L), ((6, 3), R)])
        self.assertEqual(v.end_count, 15)
        self.assertEqual(v.count_after(Play(Tile(3, 3), R)), 18)

    def test_a_tile_that_does_not_fit_is_refused(self):
        v = view_of([((6, 6), L)])
        with self.assertRaises(ValueError):
            v.count_after(Play(Tile(2, 1), L))

    def test_unseen(self):
        v = view_of([((6, 6), L)])
        unseen = v.unseen()
        self.assertEqual(len(unseen), 27 - len(v.hand))
        self.assertNotIn(Tile(6, 6), unseen)
        self.assertFalse(set(unseen) & set(v.hand))


class LookAheadTest(unittest.TestCase):
    """view.ends_after(play) and view.count_after(play), the C++ View's one-play look-ahead, on
    docs/RULES.md's worked examples (§4 to §7; there is no spinner, doubles lie crosswise)."""

    def after(self, view, play, ends, count):
        with self.subTest(play=str(play.tile), end=play.end):
            self.assertEqual(view.ends_after(play), ends)
            self.assertEqual(view.count_after(play), count)
            if view.line:
                self.assertEqual(ends[0].count + ends[1].count, count)

    def test_the_opening_tile(self):
        empty = view_of([])
        # 6-2 opens as left end 2, right end 6; an opening double lies crosswise at both ends
        # and counts its pips once (examples 1 to 3).
        self.after(empty, Play(Tile(6, 2), L), (LineEnd(2, False), LineEnd(6, False)), 8)
        self.after(empty, Play(Tile(6, 4), L), (LineEnd(4, False), LineEnd(6, False)), 10)
        self.after(empty, Play(Tile(5, 5), L), (LineEnd(5, True), LineEnd(5, True)), 10)
        self.after(empty, Play(Tile(6, 6), L), (LineEnd(6, True), LineEnd(6, True)), 12)
        # The opening play's end does not matter.
        self.assertEqual(empty.ends_after(Play(Tile(6, 2), R)),
                         (LineEnd(2, False), LineEnd(6, False)))

    def test_a_play_on_the_first_tile_of_the_hand(self):
        # Example 4: 5-0 on the opening 5-5 leaves the double crosswise on the other side.
        v = view_of([((5, 5), L)])
        self.after(v, Play(Tile(5, 0), R), (LineEnd(5, True), LineEnd(0, False)), 10)
        self.after(v, Play(Tile(5, 0), L), (LineEnd(0, False), LineEnd(5, True)), 10)
        # Example 11: 4-1 on the opening 4-4 counts 1 + 8.
        v = view_of([((4, 4), L)])
        self.after(v, Play(Tile(4, 1), L), (LineEnd(1, False), LineEnd(4, True)), 9)
        # Example 13: 6-6 on the opening 6-3 counts 3 + 12.
        v = view_of([((6, 3), L)])
        self.after(v, Play(Tile(6, 6), R), (LineEnd(3, False), LineEnd(6, True)), 15)

    def test_the_worked_sequence(self):
        # Examples 5 to 7: 0-0 on the 0, then 5-6 covers the opening double, then 0-4.
        v = view_of([((5, 5), L), ((5, 0), R)])
        self.after(v, Play(Tile(0, 0), R), (LineEnd(5, True), LineEnd(0, True)), 10)
        v = view_of([((5, 5), L), ((5, 0), R), ((0, 0), R)])
        self.after(v, Play(Tile(6, 5), L), (LineEnd(6, False), LineEnd(0, True)), 6)
        v = view_of([((5, 5), L), ((5, 0), R), ((0, 0), R), ((6, 5), L)])
        self.after(v, Play(Tile(4, 0), R), (LineEnd(6, False), LineEnd(4, False)), 10)
        # Examples 8 and 9: line 2-4, 4-4 on the 4, then 4-3 on the 4-4.
        v = view_of([((4, 2), L)])
        self.after(v, Play(Tile(4, 4), R), (LineEnd(2, False), LineEnd(4, True)), 10)
        v = view_of([((4, 2), L), ((4, 4), R)])
        self.after(v, Play(Tile(4, 3), R), (LineEnd(2, False), LineEnd(3, False)), 5)

    def test_a_tile_that_fits_both_ends(self):
        # Example 15: ends 3 and 5; 3-5 on the left leaves 5 and 5, on the right 3 and 3.
        v = view_of([((6, 3), L), ((6, 5), R)])
        self.assertEqual(v.ends, (LineEnd(3, False), LineEnd(5, False)))
        self.after(v, Play(Tile(5, 3), L), (LineEnd(5, False), LineEnd(5, False)), 10)
        self.after(v, Play(Tile(5, 3), R), (LineEnd(3, False), LineEnd(3, False)), 6)

    def test_every_legal_play_leaves_the_ends_its_event_shows(self):
        state = core.State.new_match(Format.FOUR_PLAYERS, 11)
        checked = 0
        while not state.is_terminal():
            view = state.view(state.seat_to_move)
            for play in view.legal_plays:
                play_event = state.copy().apply_with_events(play)[0]
                self.assertEqual(view.ends_after(play), play_event.ends)
                self.assertEqual(view.count_after(play), play_event.count)
                checked += 1
            state.apply(view.legal_plays[-1])
        self.assertGreater(checked, 200)

    def test_a_tile_that_does_not_fit_is_refused(self):
        v = view_of([((6, 6), L)])
        with self.assertRaises(ValueError):
            v.ends_after(Play(Tile(2, 1), L))


class Recorder(Bot):
    """Answers with what it is told to, and records the calls."""

    answer = 0

    def __init__(self, info=None):
        super().__init__(info)
        self.calls = []

    def choose_play(self, view, clock):
        self.calls.append(("choose_play", view))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def on_event(self, event):
        self.calls.append(("event", event))

    def on_hand_start(self, info):
        self.calls.append(("hand_start", info))

    def on_hand_end(self, info):
        self.calls.append(("hand_end", info))


def match_start(seat=0):
    m = bot_pb2.RefereeMessage()
    s = m.match_start
    s.protocol_version, s.rules_version, s.match_id = 3, "allfives-1", "m-1"
    s.format, s.num_players, s.num_sides = common_pb2.FORMAT_TWO_PLAYERS, 2, 2
    s.seat, s.side, s.partner_seat = seat, seat, -1
    s.target_score, s.max_hands, s.move_time_ms, s.time_bank_ms = 250, 200, 1000, 5000
    s.seat_names.extend(["a", "b"])
    return m


def hand_start(hand_index=0):
    """The hand_start event of seat 0 in a 2-player match."""
    m = bot_pb2.Event()
    h = m.hand_start
    h.hand_index, h.opener_seat, h.open_rule = hand_index, 0, common_pb2.OPEN_RULE_HIGHEST_DOUBLE
    h.open_with.high, h.open_with.low = 6, 6
    for high, low in [(6, 6), (6, 1), (5, 0), (4, 4), (3, 2), (2, 1), (1, 0)]:
        t = h.your_tiles.add()
        t.high, t.low = high, low
    h.hand_sizes.extend([7, 7])
    h.boneyard_size = 14
    h.scores.extend([0, 0])
    return m


def hand_end(hand_index=0):
    """The end of a blocked hand of a 2-player match that nobody scored for."""
    m = bot_pb2.Event()
    h = m.hand_end
    h.hand_index, h.kind, h.domino_seat, h.winner_side = (hand_index,
                                                         common_pb2.HAND_END_KIND_BLOCKED, -1, -1)
    h.scores.extend([0, 15])
    return m


def turn_request_after_opening(before=None, hand_index=0):
    """Seat 0's second turn: 6-6 opened, seat 1 played 6-3 on the right.

    Its events start with `before` (default: the hand's start)."""
    m = bot_pb2.RefereeMessage()
    t = m.turn_request
    t.hand_index = hand_index
    t.events.extend(before if before is not None else [hand_start()])
    for seat, (high, low), end, count, points in [(0, (6, 6), 1, 12, 0),
                                                  (1, (6, 3), 2, 15, 15)]:
        e = t.events.add().play
        e.seat, e.side, e.count, e.points = seat, seat, count, points
        e.play.tile.high, e.play.tile.low, e.play.end = high, low, end
        lt = t.line.add()
        lt.seat, lt.end = seat, end
        lt.tile.high, lt.tile.low = high, low
    for high, low in [(6, 1), (5, 0), (4, 4), (3, 2), (2, 1), (1, 0)]:
        x = t.your_tiles.add()
        x.high, x.low = high, low
    t.left_end.value, t.left_end.is_double = 6, True
    t.right_end.value, t.right_end.is_double = 3, False
    t.end_count = 15
    t.hand_sizes.extend([6, 6])
    t.boneyard_size = 14
    t.scores.extend([0, 15])
    for (high, low), end in [((6, 1), 1), ((3, 2), 2)]:
        p = t.legal_plays.add()
        p.tile.high, p.tile.low, p.end = high, low, end
    t.move_time_ms, t.time_bank_ms = 1000, 5000
    t.open_rule = common_pb2.OPEN_RULE_HIGHEST_DOUBLE
    return m


class SessionTest(unittest.TestCase):
    """MatchSession: the conversation order, the conversions and the answers."""

    def started(self, answer=0):
        bots = []

        def factory(info):
            bot = Recorder(info)
            bot.answer = answer
            bots.append(bot)
            return bot

        s = MatchSession("rec", "0.1", factory, base_seed=7)
        hello = s.handle(match_start(), 0.0)
        self.assertEqual(hello.hello.name, "rec")
        self.assertEqual(hello.hello.protocol_version, 3)
        return s, bots[0]

    def test_match_start_params_reach_the_info_and_param_falls_back_to_its_default(self):
        infos = []
        for params in ({"epsilon": 0.125, "x": -3.5}, {}):
            start = match_start()
            start.match_start.params.update(params)
            s = MatchSession("rec", "0.1", lambda info: infos.append(info) or Recorder(info), 0)
            s.handle(start, 0.0)
        sent, none = infos
        self.assertEqual(dict(sent.params), {"epsilon": 0.125, "x": -3.5})
        self.assertEqual(sent.param("epsilon", 0.05), 0.125)
        self.assertEqual(sent.param("x", 0.0), -3.5)
        self.assertEqual(sent.param("exploration", 0.3), 0.3)
        with self.assertRaises(TypeError):
            sent.params["epsilon"] = 1.0  # read-only: one match's bot cannot change another's
        # A referee that sends no params (an older one, or a bot given none): every default holds.
        self.assertEqual(dict(none.params), {})
        self.assertEqual(none.param("epsilon", 0.05), 0.05)
        hash(sent)  # the info stays hashable

    def test_protocol_3_when_offered_and_each_answer_carries_its_requests_nonce(self):
        s = MatchSession("rec", "0.1", Recorder, base_seed=7)
        start = match_start()
        start.match_start.highest_protocol_version = 3
        start.nonce = 0x1234567890abcdef
        hello = s.handle(start, 0.0)
        self.assertEqual(hello.hello.protocol_version, 3)
        self.assertEqual(hello.nonce, 0x1234567890abcdef)
        request = turn_request_after_opening()
        request.nonce = 0xfedcba0987654321
        answer = s.handle(request, 0.0)
        self.assertTrue(answer.HasField("play"))
        self.assertEqual(answer.nonce, 0xfedcba0987654321)

    def test_a_referee_of_a_range_this_sdk_does_not_speak_gets_a_hello_and_no_bot(self):
        made = []
        s = MatchSession("rec", "0.1", lambda info: made.append(info) or Recorder(info), 0)
        start = match_start()
        start.match_start.protocol_version, start.match_start.highest_protocol_version = 4, 5
        hello = s.handle(start, 0.0)
        self.assertEqual(hello.hello.protocol_version, 3)
        self.assertEqual(made, [])

    def test_a_referee_of_protocol_2_alone_gets_a_hello_saying_3_and_no_bot(self):
        made = []
        s = MatchSession("rec", "0.1", lambda info: made.append(info) or Recorder(info), 0)
        start = match_start()
        start.match_start.protocol_version, start.match_start.highest_protocol_version = 2, 0
        hello = s.handle(start, 0.0)
        self.assertEqual(hello.hello.protocol_version, 3)
        self.assertEqual(made, [])

    def test_the_first_message_must_be_match_start(self):
        s = MatchSession("rec", "0.1", Recorder, 0)
        with self.assertRaises(SessionError) as caught:
            s.handle(turn_request_after_opening(), 0.0)
        self.assertEqual(caught.exception.code, "INVALID_ARGUMENT")

    def test_hand_starts_and_ends_arrive_as_events_in_order(self):
        s, bot = self.started()
        s.handle(turn_request_after_opening(), 0.0)
        # The next hand's first turn also brings the end of the first.
        s.handle(turn_request_after_opening([hand_end(0), hand_start(1)], hand_index=1), 0.0)
        calls = [c[0] for c in bot.calls]
        self.assertEqual(calls, ["hand_start", "event", "event", "choose_play",
                                 "hand_end", "hand_start", "event", "event", "choose_play"])
        self.assertEqual(bot.calls[5][1].hand_index, 1)
        self.assertEqual(bot.calls[4][1].scores, (0, 15))

    def test_events_out_of_hand_order_end_the_stream(self):
        cases = {"a turn outside a hand": [],
                 "a second start": [hand_start(), hand_start()],
                 "a start skipping a hand": [hand_start(1)],
                 "an end of another hand": [hand_start(), hand_end(1)]}
        for name, before in cases.items():
            s, bot = self.started()
            with self.assertRaises(SessionError, msg=name) as caught:
                s.handle(turn_request_after_opening(before), 0.0)
            self.assertEqual(caught.exception.code, "INVALID_ARGUMENT", name)
            self.assertEqual(bot.calls, [], name)  # nothing is delivered from a bad message

    def test_a_turn_is_converted_and_answered_with_the_index(self):
        s, bot = self.started(answer=1)
        answer = s.handle(turn_request_after_opening(), 0.0)
        self.assertEqual(answer.play.legal_play_index, 1)
        self.assertEqual((answer.play.play.tile.high, answer.play.play.tile.low), (3, 2))
        self.assertEqual(answer.play.play.end, common_pb2.END_RIGHT)
        events = [c[1] for c in bot.calls if c[0] == "event"]
        self.assertEqual(len(events), 2)
        self.assertEqual(events[1].play, Play(Tile(6, 3), End.RIGHT))
        view = [c[1] for c in bot.calls if c[0] == "choose_play"][0]
        self.assertEqual(view.ends, (LineEnd(6, True), LineEnd(3, False)))
        self.assertEqual(view.legal_plays, (Play(Tile(6, 1), End.LEFT),
                                            Play(Tile(3, 2), End.RIGHT)))
        self.assertEqual(view.count_after(view.legal_plays[0]), 4)  # 1 + 3
        self.assertEqual(view.scores, (0, 15))
        self.assertEqual(bot.info.seed, rng.match_seed(7, "m-1", 0))

    def test_a_comment_set_in_choose_play_goes_with_that_answer_only(self):
        s, bot = self.started(answer=1)
        bot.choose_play = lambda view, clock: (bot.set_comment("3-2 right: 5 points"), 1)[1]
        answer = s.handle(turn_request_after_opening(), 0.0)
        self.assertEqual(answer.play.comment, "3-2 right: 5 points")
        bot.choose_play = lambda view, clock: 1
        s2 = turn_request_after_opening([hand_end(0), hand_start(1)], hand_index=1)
        self.assertEqual(s.handle(s2, 0.0).play.comment, "")

    def test_a_play_or_a_tuple_is_matched_to_its_index(self):
        for answer in (Play(Tile(3, 2), End.RIGHT), ((3, 2), End.RIGHT), ((3, 2), 2)):
            s, _ = self.started(answer=answer)
            self.assertEqual(s.handle(turn_request_after_opening(), 0.0)
                             .play.legal_play_index, 1)

    def test_an_illegal_play_is_sent_without_an_index(self):
        s, _ = self.started(answer=Play(Tile(4, 4), End.LEFT))
        answer = s.handle(turn_request_after_opening(), 0.0)
        self.assertFalse(answer.play.HasField("legal_play_index"))

    def test_garbage_is_never_sent(self):
        for garbage in (5, -1, True, "6-1", None, ((9, 9), End.LEFT)):
            s, _ = self.started(answer=garbage)
            with self.assertRaises(SessionError) as caught:
                s.handle(turn_request_after_opening(), 0.0)
            self.assertEqual(caught.exception.code, "INTERNAL", garbage)

    def test_an_exception_ends_the_stream_with_its_message(self):
        s, _ = self.started(answer=KeyError("no such thing"))
        with self.assertRaises(SessionError) as caught:
            s.handle(turn_request_after_opening(), 0.0)
        self.assertEqual(caught.exception.code, "INTERNAL")
        self.assertIn("choose_play", caught.exception.message)
        self.assertIn("KeyError", caught.exception.message)
        self.assertIn("no such thing", caught.exception.message)

    def test_running_out_of_memory_ends_the_process_saying_so(self):
        s, _ = self.started(answer=MemoryError())
        with mock.patch("allfives_bot.session.os.abort", side_effect=SystemExit("aborted")), \
                mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            with self.assertRaises(SystemExit):
                s.handle(turn_request_after_opening(), 0.0)
        self.assertIn("the bot ran out of memory (MemoryError) in choose_play", err.getvalue())


if __name__ == "__main__":
    unittest.main()
