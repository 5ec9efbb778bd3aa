"""An in-process All Fives environment for search and training, in PettingZoo's agent-iteration
(AEC) style, with no dependency beyond this package: the rules core steps the match in C++.

    from allfives_bot.env import AllFivesEnv

    env = AllFivesEnv(Format.TWO_PLAYERS, reward="match")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = my_policy(observation["observation"], mask)
        env.step(action)

Agents are "seat_0" .. "seat_{n-1}". An action is a play as a number, tile index * 2 + end
(0 left, 1 right), 0..55 (``allfives_bot.core.action_of(play)`` and ``play_of(action)``); only
plays are decisions: the environment draws and passes for the players. ``observe(agent)`` is
``{"observation": ..., "action_mask": ...}``: OBSERVATION_SIZE small integers (an
``array.array("h")``) that depend only on what that seat may see and what the public history
told it (never another seat's tiles; the layout is in sdk/docs/environment.md), and 56 bytes of 0 or 1,
all 0 unless the agent is to move (``numpy.frombuffer(mask, numpy.int8)`` and
``numpy.asarray(observation)`` turn them into arrays without numpy being needed here);
``legal_actions()`` lists the mover's actions, the cheap way to choose without numpy.
``view(agent)`` is the same seat's rules-core View, whose ``sample_state(rng)`` gives a search
a full state consistent with it.

Rewards come only at the end of a hand or of the match, to every agent at once:
- ``reward="match"``: at the match's end +1 for the winning side's seats, -1 for the others,
  0 for everyone after a draw;
- ``reward="hand"``: at each hand's end (and at a match's end mid-hand) the points the seat's
  side made in that hand minus the mean of the other sides' (zero-sum).
The match ends by its rules (a side reaches the target, or the hand limit): every agent is then
terminated (never truncated); each is stepped once more with None and removed, as in PettingZoo.
"""

from __future__ import annotations

import random
from typing import Dict, Iterator, List, Optional

from . import _core
from .model import Format

NUM_ACTIONS = _core.NUM_ACTIONS
OBSERVATION_SIZE = _core.OBSERVATION_SIZE


class Discrete:
    """The action space: n actions, with ``sample(mask)`` (gymnasium's Discrete, minus gymnasium)."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.n = n
        self._rng = rng

    def sample(self, mask: Optional[List[int]] = None) -> int:
        """A uniformly random action, among those the mask allows if given."""
        if mask is None:
            return self._rng.randrange(self.n)
        allowed = [a for a, ok in enumerate(mask) if ok]
        if not allowed:
            raise ValueError("the mask allows no action")
        return self._rng.choice(allowed)

    def contains(self, action: int) -> bool:
        return isinstance(action, int) and 0 <= action < self.n


class AllFivesEnv:
    """One match at a time, seats as agents (PettingZoo's AECEnv conventions)."""

    metadata = {"name": "allfives_v1", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, format: Format = Format.TWO_PLAYERS, target: Optional[int] = None,
                 max_hands: Optional[int] = None, reward: str = "match",
                 render_mode: Optional[str] = None) -> None:
        if reward not in ("match", "hand"):
            raise ValueError(f'reward must be "match" or "hand", not {reward!r}')
        if render_mode not in (None, "ansi"):
            raise ValueError(f'render_mode must be None or "ansi", not {render_mode!r}')
        self.config = _core.Config(format, target, max_hands)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.num_players = _core.num_players(format)
        self.possible_agents = [f"seat_{s}" for s in range(self.num_players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._rng = random.Random()
        self._spaces = {a: Discrete(NUM_ACTIONS, self._rng) for a in self.possible_agents}
        self.table: Optional[_core.Table] = None
        self.agents: List[str] = []

    # --- PettingZoo's API ---------------------------------------------------------------

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """A new match, dealt from ``seed`` as the referee deals it (a random seed if None)."""
        if seed is None:
            seed = random.SystemRandom().getrandbits(64)
        self._rng.seed(seed)
        if self.table is None:
            self.table = _core.Table(self.config, seed)
            # The calls made at every play, bound once (C++ fast calls, table_bindings.cpp);
            # last() goes through a subclass's own observe() if it has one.
            self._play, self._observe = self.table.play, self.table.observe
            if type(self).observe is not AllFivesEnv.observe:
                self._observe = lambda seat: self.observe(self.possible_agents[seat])
        else:
            self.table.reset(self.config, seed)
        self.seed = seed
        self.agents = list(self.possible_agents)
        self.rewards: Dict[str, float] = {a: 0 for a in self.agents}
        self._cumulative_rewards: Dict[str, float] = {a: 0 for a in self.agents}
        self.terminations: Dict[str, bool] = {a: False for a in self.agents}
        self.truncations: Dict[str, bool] = {a: False for a in self.agents}
        self.infos: Dict[str, dict] = {a: {} for a in self.agents}
        self._hand_start_scores = self.table.scores
        self._rewarded = False
        self._names = self.possible_agents
        self.agent_selection = self.possible_agents[self.table.seat_to_move]

    def step(self, action: Optional[int]) -> None:
        """Plays ``action`` for ``agent_selection`` (None once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent} is done: step it with None")
            self._remove(agent)
            return
        if action is None:
            raise ValueError(f"{agent} must play: step it with an action")
        self._cumulative_rewards[agent] = 0
        if self._rewarded:
            self.rewards = {a: 0 for a in self.agents}
            self._rewarded = False
        try:
            seat = self._play(action)  # the seat to move next, -1 at a hand's end, -2 at the match's
        except ValueError as error:
            raise ValueError(f"{agent}: {error} (legal: {self.table.legal_actions()})") from None
        if seat >= 0:
            self.agent_selection = self._names[seat]
            return
        self._score_hand(seat == -2)
        self._rewarded = True
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
        if seat == -2:
            self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.table.seat_to_move]

    def observe(self, agent: str) -> dict:
        return self._observe(self.agent_name_mapping[agent])

    def last(self, observe: bool = True):
        """(observation, cumulative reward, termination, truncation, info) of agent_selection."""
        agent = self.agent_selection
        observation = self._observe(self.agent_name_mapping[agent]) if observe else None
        return (observation, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2 ** 63) -> Iterator[str]:
        """Yields agent_selection until every agent is done and stepped with None."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def action_space(self, agent: str) -> Discrete:
        return self._spaces[agent]

    def state(self) -> "_core.State":
        """The true state (every hand): for logging and debugging, never for an agent."""
        return self.table.state

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi":
            return None
        s = self.table.state
        line = " ".join(str(t.tile) for t in s.line)
        return (f"hand {s.hand_index}, scores {s.scores}, seat to move {s.seat_to_move}\n"
                f"line: {line or '(empty)'}")

    def close(self) -> None:
        pass

    # --- beyond PettingZoo -----------------------------------------------------------------

    def view(self, agent: str) -> "_core.View":
        """The rules core's view of ``agent``, with its knowledge: ``sample_state(rng)`` draws a
        world for a search."""
        return self.table.view(self.agent_name_mapping[agent])

    def legal_actions(self) -> List[int]:
        """agent_selection's legal actions, the mask's ones in the referee's order (a new list)."""
        return self.table.legal_actions()

    # --- helpers ---------------------------------------------------------------------------

    def _score_hand(self, match_over: bool) -> None:
        scores = self.table.scores
        sides = len(scores)
        if self.reward_mode == "hand":
            made = [scores[i] - self._hand_start_scores[i] for i in range(sides)]
            total = sum(made)
            for s, agent in enumerate(self.possible_agents):
                side = _core.side_of(self.config.format, s)
                self.rewards[agent] = made[side] - (total - made[side]) / (sides - 1)
        elif match_over:
            winner = self.table.state.winner_side
            for s, agent in enumerate(self.possible_agents):
                if winner >= 0:
                    self.rewards[agent] = 1 if _core.side_of(self.config.format, s) == winner else -1
        self._hand_start_scores = scores
        for agent in self.agents:
            self.infos[agent] = {"hand_index": self.table.hand_index}

    def _remove(self, agent: str) -> None:
        """PettingZoo's dead step: a terminated agent stepped with None leaves."""
        self.agents.remove(agent)
        for table in (self.rewards, self._cumulative_rewards, self.terminations,
                      self.truncations, self.infos):
            table.pop(agent, None)
        if self.agents:
            self.agent_selection = self.agents[0]


def env(**kwargs) -> AllFivesEnv:
    """PettingZoo's constructor convention: ``env(format=..., reward=...)``."""
    return AllFivesEnv(**kwargs)
