"""The in-process environment (allfives_bot.env): PettingZoo's agent-iteration conventions,
rewards only at a hand's or the match's end, and observations that never hold another seat's
tiles (an observation is the same in every world the seat cannot tell apart from the true one).
"""

import unittest

from allfives_bot import Format, core
from allfives_bot.env import NUM_ACTIONS, OBSERVATION_SIZE, AllFivesEnv

HAND, LINE, VOIDS = 0, 28, 73  # observation offsets (sdk/python/src/observation.h)


def random_episode(env, seed, check=None):
    """Plays one match with uniformly random legal actions; returns the per-agent rewards seen
    by last() and the number of plays."""
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    plays = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        if check:
            check(env, agent, observation)
        env.step(env.action_space(agent).sample(observation["action_mask"]))
        plays += 1
    return totals, plays


class ProtocolTest(unittest.TestCase):
    def test_a_match_runs_to_the_end_in_agent_iteration_style(self):
        for fmt in (Format.TWO_PLAYERS, Format.THREE_PLAYERS, Format.PARTNERSHIPS):
            with self.subTest(format=fmt.name):
                env = AllFivesEnv(fmt)
                totals, plays = random_episode(env, 3)
                self.assertEqual(env.agents, [])
                self.assertGreater(plays, 50)
                state = env.state()
                self.assertTrue(state.is_terminal())
                winner = state.winner_side
                for s, agent in enumerate(env.possible_agents):
                    side = core.side_of(fmt, s)
                    self.assertEqual(totals[agent], 0 if winner < 0 else (1 if side == winner else -1))

    def test_the_acting_agent_is_the_seat_to_move_and_only_it_may_act(self):
        env = AllFivesEnv(Format.TWO_PLAYERS)
        env.reset(seed=8)
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        self.assertEqual(seat, env.state().seat_to_move)
        other = env.possible_agents[1 - seat]
        self.assertEqual(sum(env.observe(other)["action_mask"]), 0)
        mask = env.observe(agent)["action_mask"]
        self.assertEqual(len(mask), NUM_ACTIONS)
        self.assertEqual([a for a in range(NUM_ACTIONS) if mask[a]], env.legal_actions())
        illegal = next(a for a in range(NUM_ACTIONS) if not mask[a])
        with self.assertRaisesRegex(ValueError, "illegal"):
            env.step(illegal)
        with self.assertRaises(ValueError):
            env.step(None)

    def test_hand_rewards_come_at_hand_ends_and_sum_to_zero(self):
        env = AllFivesEnv(Format.THREE_PLAYERS, reward="hand")
        env.reset(seed=5)
        hands_scored = 0
        for agent in env.agent_iter():
            observation, _, termination, _, _ = env.last()
            if termination:
                env.step(None)
                continue
            hand = env.state().hand_index
            env.step(env.action_space(agent).sample(observation["action_mask"]))
            if env.agents and any(env.rewards.values()):
                self.assertTrue(env.state().hand_index != hand or env.state().is_terminal(),
                                "a reward in the middle of a hand")
                self.assertAlmostEqual(sum(env.rewards.values()), 0.0)
                hands_scored += 1
        self.assertGreater(hands_scored, 3)

    def test_the_same_seed_deals_the_referee_s_match(self):
        env = AllFivesEnv(Format.TWO_PLAYERS)
        env.reset(seed=77)
        self.assertEqual(env.state(), core.State.new_match(Format.TWO_PLAYERS, 77))


class ObservationTest(unittest.TestCase):
    def test_observations_never_hold_another_seat_s_tiles(self):
        """At each decision, every agent's observation is checked against worlds the agent
        cannot tell apart from the truth: for the acting agent, states sampled from its own
        view; for the others, the true state with two hidden tiles swapped between hands (or a
        hand and the boneyard). The observation must not change, and its hand part must be
        exactly the agent's own tiles."""
        rng = core.SplitMix64(9)
        checked = [0]

        def check(env, agent, observation):
            state = env.state()
            n = env.num_players
            for other in env.possible_agents:
                seat = env.agent_name_mapping[other]
                obs = env.observe(other)["observation"]
                self.assertEqual(len(obs), OBSERVATION_SIZE)
                own = {core.tile_index(t) for t in state.hand(seat)}
                self.assertEqual({i for i in range(28) if obs[HAND + i]}, own)
                knowledge = env.table.knowledge(seat)
                for world in self.worlds(env, seat, rng):
                    self.assertEqual(world.view(seat).with_knowledge(knowledge).observation(), obs)
                    checked[0] += 1
                # The voids are public facts: each seat truly lacks them.
                for r in range(1, n):
                    held = {core.tile_index(t) for t in state.hand((seat + r) % n)}
                    voids = {i for i in range(28) if obs[VOIDS + 28 * (r - 1) + i]}
                    self.assertFalse(held & voids)

        for fmt in (Format.TWO_PLAYERS, Format.FOUR_PLAYERS):
            random_episode(AllFivesEnv(fmt), 21, check)
        self.assertGreater(checked[0], 1000)

    def worlds(self, env, seat, rng):
        state = env.state()
        if seat == state.seat_to_move:
            view = env.view(env.possible_agents[seat])
            return [view.sample_state(rng) for _ in range(3)]
        # Another seat's turn: swap a hidden tile of one hand with one of another hand or of
        # the boneyard, keeping whatever is a real decision.
        n = env.num_players
        hands = [list(state.hand(s)) for s in range(n)]
        bone = list(state.boneyard)
        others = [s for s in range(n) if s != seat]
        out = []
        for a in others:
            for b in others + [None]:
                if b == a or not hands[a]:
                    continue
                target = bone if b is None else hands[b]
                if not target:
                    continue
                new_hands = [list(h) for h in hands]
                new_bone = list(bone)
                i = rng.below(len(hands[a]))
                j = rng.below(len(target))
                giver = new_hands[a]
                taker = new_bone if b is None else new_hands[b]
                giver[i], taker[j] = taker[j], giver[i]
                try:
                    out.append(core.State.from_position(
                        env.config, state.hand_index, new_hands, new_bone, state.line,
                        state.scores, state.seat_to_move, state.open_rule))
                except ValueError:
                    pass  # the mover could not play in that world: not a decision
        return out


class ReferenceEnv:
    """The environment's documented behaviour written the straightforward way, over State and
    one Knowledge per seat fed each event as that seat saw it: what AllFivesEnv must match
    observation for observation, reward for reward."""

    def __init__(self, fmt, reward):
        self.format, self.reward = fmt, reward
        self.n = core.num_players(fmt)
        self.names = [f"seat_{s}" for s in range(self.n)]

    def reset(self, seed):
        self.state, events = core.State.new_match_with_events(self.format, seed)
        self.knowledge = [core.Knowledge(self.format, s) for s in range(self.n)]
        self.feed(events)
        self.agents = list(self.names)
        self.rewards = {a: 0 for a in self.agents}
        self.cumulative = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.start = self.state.scores
        self.rewarded = False
        self.selection = self.names[self.state.seat_to_move]

    def feed(self, events):
        for e in events:
            for s in range(self.n):
                self.knowledge[s].observe(e.seen_by(s))

    def observe(self, agent):
        seat = self.names.index(agent)
        observation = self.state.view(seat).with_knowledge(self.knowledge[seat]).observation()
        mask = bytearray(NUM_ACTIONS)
        if seat == self.state.seat_to_move:
            for a in self.state.legal_actions():
                mask[a] = 1
        return list(observation), bytes(mask)

    def step(self, action):
        agent = self.selection
        if self.terminations[agent]:
            self.agents.remove(agent)
            for table in (self.rewards, self.cumulative, self.terminations, self.truncations,
                          self.infos):
                del table[agent]
            if self.agents:
                self.selection = self.agents[0]
            return
        self.cumulative[agent] = 0
        if self.rewarded:
            self.rewards = {a: 0 for a in self.agents}
            self.rewarded = False
        hand = self.state.hand_index
        self.feed(self.state.apply_with_events(core.play_of(action)))
        over = self.state.is_terminal()
        if over or self.state.hand_index != hand:
            self.score(over)
            self.rewarded = True
            for a in self.agents:
                self.cumulative[a] += self.rewards[a]
                self.infos[a] = {"hand_index": self.state.hand_index}
        if over:
            self.terminations = {a: True for a in self.agents}
            self.selection = self.agents[0]
        else:
            self.selection = self.names[self.state.seat_to_move]

    def score(self, over):
        scores = self.state.scores
        sides = len(scores)
        made = [scores[i] - self.start[i] for i in range(sides)]
        self.start = scores
        for s, a in enumerate(self.names):
            side = core.side_of(self.format, s)
            if self.reward == "hand":
                self.rewards[a] = made[side] - (sum(made) - made[side]) / (sides - 1)
            elif over and self.state.winner_side >= 0:
                self.rewards[a] = 1 if side == self.state.winner_side else -1


class ReferenceTest(unittest.TestCase):
    def assert_same(self, env, ref, where):
        self.assertEqual(env.agents, ref.agents, where)
        self.assertEqual(env.agent_selection, ref.selection, where)
        self.assertEqual(env.rewards, ref.rewards, where)
        self.assertEqual(env._cumulative_rewards, ref.cumulative, where)
        self.assertEqual(env.terminations, ref.terminations, where)
        self.assertEqual(env.truncations, ref.truncations, where)
        self.assertEqual(env.infos, ref.infos, where)
        state = ref.state
        for agent in env.agents:
            seat = env.agent_name_mapping[agent]
            got = env.observe(agent)
            observation, mask = ref.observe(agent)
            self.assertEqual(list(got["observation"]), observation, where)
            self.assertEqual(got["action_mask"], mask, where)
            # Never another seat's tiles: the hand part is exactly the agent's own hand, and
            # no seat holds a tile the agent's observation says it cannot hold.
            self.assertEqual({i for i in range(28) if observation[HAND + i]},
                             {core.tile_index(t) for t in state.hand(seat)}, where)
            for r in range(1, env.num_players):
                held = {core.tile_index(t) for t in state.hand((seat + r) % env.num_players)}
                self.assertFalse(held & {i for i in range(28)
                                         if observation[VOIDS + 28 * (r - 1) + i]}, where)
        if env.agents:
            agent = env.agent_selection
            observation, reward, termination, truncation, info = env.last()
            self.assertEqual(list(observation["observation"]), ref.observe(agent)[0], where)
            self.assertEqual((reward, termination, truncation, info),
                             (ref.cumulative[agent], ref.terminations[agent],
                              ref.truncations[agent], ref.infos[agent]), where)
            self.assertIsNone(env.last(observe=False)[0])

    def test_the_environment_matches_the_reference_loop_over_many_seeded_matches(self):
        rng = core.SplitMix64(25)
        steps = 0
        for fmt in (Format.TWO_PLAYERS, Format.THREE_PLAYERS, Format.FOUR_PLAYERS,
                    Format.PARTNERSHIPS):
            for reward in ("match", "hand"):
                env, ref = AllFivesEnv(fmt, reward=reward), ReferenceEnv(fmt, reward)
                for seed in range(6):
                    env.reset(seed=seed)
                    ref.reset(seed)
                    while True:
                        where = f"{fmt.name}, {reward}, seed {seed}, step {steps}"
                        self.assert_same(env, ref, where)
                        if not env.agents:
                            break
                        if ref.terminations[ref.selection]:
                            action = None
                        else:
                            legal = ref.state.legal_actions()
                            self.assertEqual(env.legal_actions(), legal, where)
                            action = legal[rng.below(len(legal))]
                        env.step(action)
                        ref.step(action)
                        steps += 1
        self.assertGreater(steps, 5000)

    def test_each_observation_is_a_new_array_the_caller_may_keep(self):
        env = AllFivesEnv(Format.TWO_PLAYERS)
        env.reset(seed=4)
        agent = env.agent_selection
        first = env.observe(agent)["observation"]
        kept = list(first)
        first[0] = 99
        self.assertEqual(list(env.observe(agent)["observation"]), kept)
        env.step(env.legal_actions()[0])
        self.assertEqual(first[0], 99)
        self.assertEqual(list(first[1:]), kept[1:])

    def test_a_numpy_style_integer_action_is_taken_like_int(self):
        class Index:  # what numpy.int64 offers: __index__ and __int__
            def __init__(self, v):
                self.v = v

            def __int__(self):
                return self.v

            __index__ = __int__

        env, ref = AllFivesEnv(Format.TWO_PLAYERS), ReferenceEnv(Format.TWO_PLAYERS, "match")
        env.reset(seed=6)
        ref.reset(6)
        for _ in range(10):
            action = env.legal_actions()[-1]
            env.step(Index(action))
            ref.step(action)
        self.assert_same(env, ref, "after ten plays")


if __name__ == "__main__":
    unittest.main()
