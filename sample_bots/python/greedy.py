"""greedy, in Python: plays the legal play that scores the most points right now.

The same bot as sample_bots/greedy/main.cpp, decision for decision: for each legal play it
counts the open ends the play would leave (View.count_after, docs/RULES.md §7: a lone tile
counts all its pips, otherwise the two ends, a double at an end counting
both halves) and keeps the play with the most points. Ties: the heaviest tile first, since
pips left in hand count for the opponents at the end of the hand; then the first play in
legal order (the order the referee sends).

Run it with the SDK on the path:
    build/python/run_bot sample_bots/python/greedy.py --listen unix:/tmp/greedy.sock
or through the wrapper the build makes, build/sample_bots/greedy_py.
"""

import sys

from allfives_bot import Bot, Clock, Play, View, run


class GreedyBot(Bot):
    """Most points now; ties to the heaviest tile, then to the earlier legal play."""

    def choose_play(self, view: View, clock: Clock) -> Play:
        best = view.legal_plays[0]
        best_points = view.points_after(best)
        for play in view.legal_plays[1:]:
            points = view.points_after(play)
            # Strictly better only, so among equals the earlier play in legal order stays.
            if points > best_points or (points == best_points
                                        and play.tile.pips > best.tile.pips):
                best, best_points = play, points
        self.set_comment(f"most points now: {best_points}")  # shown by the replay
        return best


if __name__ == "__main__":
    sys.exit(run(GreedyBot, "greedy_py", "1.0"))
