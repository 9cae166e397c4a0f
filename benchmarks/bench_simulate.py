"""High-volume simulation speed, measured on what `pip install .` builds.

Prints, in one run:
1. native random playouts on one thread (`colorwars.simulate(threads=1)`): plies per second
   in the native loop and for the whole Python call, and their ratio;
2. the pure-Python reference engine on the same work (random games), and the ratio;
3. two threads against one (runs alternate, so both see the same machine);
4. the greedy policy on one thread;
5. `VectorEnv` with 4096 environments on 8x8 classic, random legal actions from
   `sample_legal()`: environment steps per second, observations included.

Every native figure is the best of several runs (the least disturbed by other load). The
figures are also written to benchmarks/results/simulate.json (stamped with the commit, the
date, the machine and the versions), which the docs read.

    python benchmarks/bench_simulate.py           # about a minute
    python benchmarks/bench_simulate.py --quick   # a few seconds, rougher
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import colorwars
import numpy as np
from _results import write_results
from bench_engine import python_loop  # the same reference loop as the engine benchmark
from colorwars import reference


def best_simulate(repeats: int, **kwargs: object) -> tuple[float, float, int]:
    """(native-loop plies/s, whole-call plies/s, plies) of the best of `repeats` runs."""
    best = (0.0, 0.0, 0)
    for k in range(repeats):
        r = colorwars.simulate(seed=k, **kwargs)  # type: ignore[arg-type]
        plies = int(r.plies.sum())
        native, call = plies / r.elapsed, plies / r.wall
        if native > best[0]:
            best = (native, call, plies)
    return best


def reference_rate(width: int, height: int, rules: str, seconds: float) -> float:
    _, plies, elapsed = python_loop(reference.Game, width, height, rules, seconds)
    return plies / elapsed


def env_rate(num_envs: int, threads: int, seconds: float, windows: int) -> float:
    env = colorwars.VectorEnv(
        num_envs=num_envs, width=8, height=8, rules="classic", threads=threads
    )
    env.reset(seed=0)
    best = 0.0
    for _ in range(windows):
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(env.sample_legal())
            steps += num_envs
        best = max(best, steps / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    args = parser.parse_args()
    q = args.quick
    repeats = 2 if q else 5
    print(f"colorwars {colorwars.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} cores")  # fmt: skip
    cases = [("5x5 colorwars", 5, 5, "colorwars", 40_000 if q else 200_000),
             ("8x8 classic", 8, 8, "classic", 10_000 if q else 50_000)]  # fmt: skip
    print("\n1-3. random playouts (goals: >= 20 M plies/s on one thread, >= 300x reference, "
          "call within 10% of the loop, two threads >= 1.8x one)")  # fmt: skip
    print("  one- and two-thread runs alternate; rates are the best run, the thread ratio is "
          "the median over pairs of neighbouring runs")  # fmt: skip
    print(f"  {'case':<15}{'1 thread loop':>15}{'whole call':>13}{'call/loop':>11}"
          f"{'reference':>12}{'native/ref':>12}{'2 threads':>12}{'2/1':>7}")  # fmt: skip
    rounds = 3 if q else 7
    figures: dict[str, float] = {}
    for name, w, h, rules, games in cases:
        key = name.replace(" ", "_")
        one: list[tuple[float, float]] = []
        ratios: list[float] = []
        two_best = 0.0
        for _ in range(rounds):
            n1, c1, _ = best_simulate(1, games=games, width=w, height=h, rules=rules, threads=1)
            n2, _, _ = best_simulate(1, games=2 * games, width=w, height=h, rules=rules, threads=2)
            one.append((n1, c1))
            ratios.append(n2 / n1)
            two_best = max(two_best, n2)
        native, call = max(one)
        ref = reference_rate(w, h, rules, 1.0 if q else 4.0)
        print(f"  {name:<15}{native / 1e6:>11.2f} M/s{call / 1e6:>9.2f} M/s{call / native:>10.1%}"
              f"{ref / 1e3:>8.1f} k/s{native / ref:>11,.0f}x{two_best / 1e6:>8.2f} M/s"
              f"{statistics.median(ratios):>6.2f}x")  # fmt: skip
        figures |= {
            f"{key}:native_plies_per_second": native,
            f"{key}:call_plies_per_second": call,
            f"{key}:call_share": call / native,
            f"{key}:reference_plies_per_second": ref,
            f"{key}:native_over_reference": native / ref,
            f"{key}:two_threads_plies_per_second": two_best,
            f"{key}:two_over_one": statistics.median(ratios),
        }

    print("\n4. greedy policy (every legal move tried), one thread")
    for name, w, h, rules, games in cases:
        native, _, _ = best_simulate(repeats, games=games // 20, width=w, height=h, rules=rules,
                                     threads=1, seats="greedy")  # fmt: skip
        print(f"  {name:<15}{native / 1e6:>12.2f} M plies/s")
        figures[f"{name.replace(' ', '_')}:greedy_plies_per_second"] = native

    print("\n5. VectorEnv, 4096 environments, 8x8 classic, sample_legal() + step() "
          "(goal: >= 5 M steps/s)")  # fmt: skip
    for threads in (0, 1):
        rate = env_rate(4096, threads, 0.5 if q else 2.0, 2 if q else 3)
        label = "all cores" if threads == 0 else "1 thread"
        print(f"  {label:<15}{rate / 1e6:>12.2f} M env steps/s (observations and masks included)")
        figures[f"vecenv:{'all_cores' if threads == 0 else 'one_thread'}_steps_per_second"] = rate
    write_results("simulate", figures, quick=q, numpy=np.__version__)


if __name__ == "__main__":
    main()
