"""Speed of PUCT with a network the user brings (colorwars.puct), on 5x5 colorwars.

    python benchmarks/bench_puct.py           # a few seconds
    python benchmarks/bench_puct.py --quick   # rougher, about a second

Prints:
- the native overhead per evaluation: a constant evaluator (numpy returning arrays it made
  once), so that all the time is the search's (select, expand, the return's checks, the
  conversions), per position evaluated;
- evaluations per second at batch 64, 256 and 1024 with a small numpy-only network (a 3x3
  convolution of 32 channels by einsum over a sliding window, ReLU, a 1x1 policy head and a
  pooled tanh value head; random weights), searching as many positions at once, and the
  network alone at that batch;
- self-play positions per second with that network.

The figures are written to benchmarks/results/puct.json (stamped with the commit, the date
and the machine), which the docs read.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import colorwars
import numpy as np
import numpy.typing as npt
from _results import write_results
from colorwars.puct import PUCT, self_play

FIGURES: dict[str, float | int | str] = {}
WIDTH = HEIGHT = 5
CELLS = WIDTH * HEIGHT


class Constant:
    """Zero logits and values, made once per batch size; counts the positions."""

    def __init__(self) -> None:
        self.positions = 0
        self.seconds = 0.0
        self._made: dict[int, tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = {}

    def __call__(self, planes: npt.NDArray[np.uint8], mask: npt.NDArray[np.uint8]) -> Any:
        t = time.perf_counter()
        n = len(mask)
        self.positions += n
        if n not in self._made:
            self._made[n] = (np.zeros((n, CELLS), np.float32), np.zeros(n, np.float32))
        out = self._made[n]
        self.seconds += time.perf_counter() - t
        return out


class SmallNet:
    """A random two-layer convolutional network in numpy (fully convolutional: any board)."""

    def __init__(self, players: int = 2, channels: int = 32, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.conv = (rng.standard_normal((channels, players, 3, 3)) * 0.3).astype(np.float32)
        self.bias = np.zeros(channels, np.float32)
        self.policy = (rng.standard_normal(channels) * 0.1).astype(np.float32)
        self.value = (rng.standard_normal(channels) * 0.1).astype(np.float32)
        self.positions = 0
        self.seconds = 0.0

    def __call__(self, planes: npt.NDArray[np.uint8], mask: npt.NDArray[np.uint8]) -> Any:
        t = time.perf_counter()
        x = planes.astype(np.float32) / 3.0
        x = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        windows = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))
        h = np.einsum("bpyxij,cpij->bcyx", windows, self.conv, optimize=True)
        h = np.maximum(h + self.bias[None, :, None, None], 0.0)
        logits = np.einsum("bcyx,c->byx", h, self.policy).reshape(len(mask), -1)
        values = np.tanh(h.mean(axis=(2, 3)) @ self.value)
        self.positions += len(mask)
        self.seconds += time.perf_counter() - t
        return logits.astype(np.float32), values.astype(np.float32)


def positions(n: int, seed: int) -> list[colorwars.Game]:
    """`n` positions of 5x5 colorwars a few random moves in."""
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < n:
        g = colorwars.Game(WIDTH, HEIGHT)
        for _ in range(int(rng.integers(0, 8))):
            if not g.is_over:
                g.play(int(rng.choice(g.legal_moves())))
        if not g.is_over:
            games.append(g)
    return games


def overhead(simulations: int, trees: int) -> None:
    evaluator = Constant()
    games = positions(trees, 1)
    t = time.perf_counter()
    PUCT(evaluator, simulations=simulations, batch=trees, dirichlet_weight=0).search_batch(games)
    seconds = time.perf_counter() - t
    per = (seconds - evaluator.seconds) / evaluator.positions
    FIGURES["overhead_us_per_evaluation"] = per * 1e6
    FIGURES["overhead_evaluations"] = evaluator.positions
    print(
        f"  native overhead per evaluation (constant evaluator, {trees} trees x "
        f"{simulations} simulations): {per * 1e6:.2f} us ({evaluator.positions:,} positions, "
        f"{seconds:.2f} s)"
    )


def throughput(batch: int, simulations: int) -> None:
    net = SmallNet()
    games = positions(batch, 2)
    t = time.perf_counter()
    PUCT(net, simulations=simulations, batch=batch, dirichlet_weight=0).search_batch(games)
    seconds = time.perf_counter() - t
    rate = net.positions / seconds
    alone = net.positions / net.seconds
    FIGURES[f"evaluations_per_second:batch{batch}"] = rate
    FIGURES[f"network_alone_per_second:batch{batch}"] = alone
    print(
        f"  batch {batch:>5}: {rate:>10,.0f} evaluations/s with the search "
        f"({alone:,.0f}/s the network alone; {net.positions:,} positions)"
    )


def self_play_rate(games: int, simulations: int) -> None:
    net = SmallNet()
    t = time.perf_counter()
    data = self_play(net, games=games, width=WIDTH, height=HEIGHT, simulations=simulations)
    seconds = time.perf_counter() - t
    FIGURES["self_play_positions_per_second"] = len(data) / seconds
    FIGURES["self_play_evaluations_per_second"] = net.positions / seconds
    FIGURES["self_play_simulations"] = simulations
    print(
        f"  self-play ({games} games, {simulations} simulations a move): "
        f"{len(data) / seconds:,.1f} positions/s ({len(data):,} positions, "
        f"{net.positions / seconds:,.0f} evaluations/s, {seconds:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    print(f"PUCT on {WIDTH}x{HEIGHT} colorwars{' (quick)' if quick else ''}")
    overhead(simulations=100 if quick else 400, trees=256)
    for batch in (64, 256, 1024):
        throughput(batch, simulations=(8 if quick else 32) * (1024 // batch))
    self_play_rate(games=64, simulations=32 if quick else 200)
    write_results("puct", FIGURES, quick)


if __name__ == "__main__":
    main()
