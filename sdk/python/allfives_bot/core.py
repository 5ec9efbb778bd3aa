"""The rules core in Python: the referee's own C++ code (sdk/core), bound with pybind11.

A bot that searches or learns simulates with exactly the rules the referee scores with::

    from allfives_bot import core, Format

    state = core.State.new_match(Format.TWO_PLAYERS, seed=7)   # the referee's deal for seed 7
    rng = core.SplitMix64(1)
    while not state.is_terminal():
        actions = state.legal_actions()                # or state.legal_plays(): Play tuples
        state.apply_action(actions[rng.below(len(actions))])
    print(state.scores, state.winner_side)

- ``State``: ``new_match(config, seed)``, ``from_position(...)``, ``copy()``, ``legal_plays()``,
  ``legal_actions()`` (a play as tile index * 2 + end), ``action_mask()``, ``apply(play)``,
  ``apply_action(a)``, ``apply_with_events(play)``, ``is_terminal()``, ``seat_to_move``,
  ``scores``, ``winner_side``, ``hand(seat)``, ``view(seat)`` (with the seat's knowledge),
  ``play_out(policy, rng)``.
- ``View``: what a seat sees (the very class ``choose_play`` gets); ``sample_state(rng)`` draws
  a full State consistent with everything the seat has seen, ``sampler()`` a WorldSampler for
  many draws.
- ``Knowledge``: what a seat knows of the other hands from the public history;
  ``WorldSampler(view, knowledge)``: ``sample(rng)``, exactly uniform among consistent states.
- ``play_matches(config, policies, count, seed, threads)``: matches between built-in policies
  ("random", "greedy") played in C++, for evaluation.
- ``Table``: a match with every seat's knowledge, stepped by actions (allfives_bot.env).
- ``evaluate(view, worlds=400, ...)``: every legal play valued by the strong bot's search (the
  engine, sdk/engine), points and match-win probability with standard errors.
- ``SplitMix64``, ``derive_seed``, ``fnv1a64``, ``match_seed``, ``deal_hand``: the project's
  randomness and deals, bit for bit.
- ``RULES_VERSION``, ``num_players(format)``, ``num_sides``, ``hand_size``,
  ``standard_target``, ``side_of``, ``partner_of``, ``points_for_count``: the rules' numbers.

sdk/docs/rules-core.md has the details.
"""

from . import model  # noqa: F401  (registers the value types the core converts to)
from ._core import (DEFAULT_MAX_HANDS, MAX_PIPS, MAX_PLAYERS, NUM_ACTIONS, NUM_TILES,
                    OBSERVATION_SIZE, RULES_VERSION, Config, Event, Knowledge, SplitMix64, State,
                    Table, View, WorldSampler, action_of, deal_hand, derive_seed, evaluate,
                    fnv1a64, hand_size, match_seed, num_players, num_sides, partner_of, play_matches,
                    play_of, points_for_count, side_of, standard_target, tile_index, tile_of)

__all__ = [
    "Config", "DEFAULT_MAX_HANDS", "Event", "Knowledge", "MAX_PIPS", "MAX_PLAYERS",
    "NUM_ACTIONS", "NUM_TILES", "OBSERVATION_SIZE", "RULES_VERSION", "SplitMix64", "State",
    "Table", "View", "WorldSampler", "action_of", "deal_hand", "derive_seed", "evaluate",
    "fnv1a64", "hand_size", "match_seed", "num_players", "num_sides", "partner_of", "play_matches",
    "play_of", "points_for_count", "side_of", "standard_target", "tile_index", "tile_of",
]
