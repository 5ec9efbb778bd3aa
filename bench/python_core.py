"""Random self-play through the Python binding of the rules core, beside the C++ core itself, in
one run: plays per second step by step from Python (the State API, and the PettingZoo-style
environment with its observations and masks, the legal actions asked for or decoded from the
mask), batched in C++ (play_matches, one and two threads), and bench_core (core_selfplay.cpp). Rounds are interleaved; the medians are printed,
with each figure's ratio to the C++ core's of the same run. A benchmark: it asserts nothing.

    build/python/run_bot bench/python_core.py --bench-core build/bench/bench_core [--rounds 5]

Wall-clock and CPU rates are both printed (the CPU rate of two threads adds both threads' time);
on a shared machine the CPU rate is the steadier one. bench_core's rate is Google Benchmark's,
per CPU second.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

from allfives_bot import Format, core
from allfives_bot.env import AllFivesEnv


def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    plays = work()
    return plays / (time.perf_counter() - wall), plays / (time.process_time() - cpu)


def python_steps(matches):
    """Whole matches, every play chosen in Python among the legal actions (uniformly, with the
    core's SplitMix64) and applied through the binding: the loop a Python search runs."""
    rng = core.SplitMix64(1)
    plays = 0
    for seed in range(matches):
        s = core.State.new_match(Format.TWO_PLAYERS, seed)
        legal, apply, below, over = s.legal_actions, s.apply_action, rng.below, s.is_terminal
        while not over():
            actions = legal()
            apply(actions[below(len(actions))])
            plays += 1
    return plays


def env_steps(matches, from_mask=False):
    """The same through AllFivesEnv, as a learner's loop: last() (the acting agent's observation
    and mask, built anew at every play), then a uniform choice among the legal actions, from
    env.legal_actions() or (from_mask) decoded from the mask in Python, then step()."""
    env = AllFivesEnv(Format.TWO_PLAYERS)
    rng = core.SplitMix64(2)
    plays = 0
    for seed in range(matches):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _, done, _, _ = env.last()
            if done:
                env.step(None)
                continue
            mask = observation["action_mask"]
            allowed = [a for a, ok in enumerate(mask) if ok] if from_mask else env.legal_actions()
            env.step(allowed[rng.below(len(allowed))])
            plays += 1
    return plays


def batched(matches, threads):
    return core.play_matches(Format.TWO_PLAYERS, ["random", "random"], matches, seed=3,
                             threads=threads)["plays"]


def bench_core(path, min_time):
    out = subprocess.run([path, "--benchmark_filter=two_players", f"--benchmark_min_time={min_time}",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True)
    rate = json.loads(out.stdout)["benchmarks"][0]["plays"]
    return rate, rate  # Google Benchmark's rate is per CPU second


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench-core", required=True, help="build/bench/bench_core")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--matches", type=int, default=400,
                        help="two-player matches per step-by-step measurement (default 400)")
    args = parser.parse_args()
    if args.rounds < 1 or args.matches < 1:
        parser.error("--rounds and --matches must be at least 1")
    measures = {
        "C++ core (bench_core)": lambda: bench_core(args.bench_core, 1),
        "Python, step by step (State)": lambda: timed(lambda: python_steps(args.matches)),
        "Python, step by step (AllFivesEnv)": lambda: timed(lambda: env_steps(args.matches // 4)),
        "  AllFivesEnv, actions from the mask": lambda: timed(
            lambda: env_steps(args.matches // 4, from_mask=True)),
        "batched in C++, 1 thread": lambda: timed(lambda: batched(50 * args.matches, 1)),
        "batched in C++, 2 threads": lambda: timed(lambda: batched(50 * args.matches, 2)),
    }
    results = {name: [] for name in measures}
    for r in range(args.rounds):
        for name, measure in measures.items():
            results[name].append(measure())
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    base_wall = statistics.median(w for w, _ in results["C++ core (bench_core)"])
    base_cpu = statistics.median(c for _, c in results["C++ core (bench_core)"])
    print(f"Random self-play, two players, median of {args.rounds} interleaved rounds "
          "(plays per second; x: the ratio to the C++ core's of this run)")
    print(f"{'':38} {'wall':>12} {'x':>6} {'CPU':>12} {'x':>6}")
    for name, values in results.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"{name:38} {wall / 1e6:10.2f} M {wall / base_wall:6.2f} {cpu / 1e6:10.2f} M "
              f"{cpu / base_cpu:6.2f}")


if __name__ == "__main__":
    main()
