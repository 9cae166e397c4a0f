"""Random-playout speed: the native engine against the pure-Python reference engine.

Plays uniformly random games from the empty board (every move uniform over the legal moves)
three ways, in the same run, and prints plies per second and the ratios:

- native loop:   the whole game loop in Rust (`colorwars.simulate(threads=1)`, GIL released);
- native API:    a Python loop over `colorwars.Game` (legal_moves / play), to show the cost of
                 crossing into Python on every move;
- reference:     the same Python loop over `colorwars.reference.Game`.

    python benchmarks/bench_engine.py            # about half a minute
    python benchmarks/bench_engine.py --quick    # a few seconds, rougher figures
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable
from typing import Any

import colorwars
from colorwars import reference

CASES = [("5x5 colorwars", 5, 5, "colorwars"), ("8x8 classic", 8, 8, "classic")]


def python_loop(
    engine: Callable[..., Any], width: int, height: int, rules: str, seconds: float
) -> tuple[int, int, float]:
    """Plays whole random games through a Python API until `seconds` have passed."""
    rng = random.Random(1)
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        g = engine(width=width, height=height, rules=rules)
        while g.winner is None:
            g.play(rng.choice(g.legal_moves()))
        games += 1
        plies += g.ply
    return games, plies, time.perf_counter() - start


def native_loop(
    width: int, height: int, rules: str, games: int, repeats: int
) -> tuple[int, int, float]:
    """The Rust game loop on one thread; the best of `repeats` runs (the least disturbed)."""
    best: tuple[int, int, float] | None = None
    for k in range(repeats):
        r = colorwars.simulate(games, width, height, rules=rules, seed=100 + k, threads=1)
        plies = int(r.plies.sum())
        if best is None or plies / r.wall > best[1] / best[2]:
            best = (games, plies, r.wall)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    args = parser.parse_args()
    seconds = 1.0 if args.quick else 5.0
    native_games = {"5x5 colorwars": 100_000, "8x8 classic": 25_000}
    scale = 1 if args.quick else 5
    py = platform.python_version()
    print(f"colorwars {colorwars.__version__}, Python {py}, {platform.machine()}")
    print("uniformly random 2-player games from the empty board; plies per second\n")
    header = (
        f"{'case':<15}{'engine':<13}{'games':>9}{'plies':>12}{'plies/game':>12}"
        f"{'plies/s':>14}{'vs reference':>14}"
    )
    print(header)
    print("-" * len(header))
    for name, width, height, rules in CASES:
        ref = python_loop(reference.Game, width, height, rules, seconds)
        api = python_loop(colorwars.Game, width, height, rules, seconds)
        nat = native_loop(width, height, rules, native_games[name] * scale, repeats=3)
        ref_rate = ref[1] / ref[2]
        for label, (games, plies, elapsed) in [
            ("native loop", nat),
            ("native API", api),
            ("reference", ref),
        ]:
            rate = plies / elapsed
            print(
                f"{name:<15}{label:<13}{games:>9,}{plies:>12,}{plies / games:>12.1f}"
                f"{rate:>14,.0f}{rate / ref_rate:>13,.0f}x"
            )
        print()


if __name__ == "__main__":
    main()
