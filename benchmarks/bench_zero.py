"""Speed of the learned evaluation (colorwars.zero) with the shipped networks.

    python benchmarks/bench_zero.py           # about a minute
    python benchmarks/bench_zero.py --quick   # a few seconds

Prints, for 5x5 colorwars, 8x8 classic and 9x6 classic:
- the network alone, natively (Rust: convolutions in AVX2 registers, else sgemm) and in
  numpy (the reference), positions per second at batch 1, 8, 64, 256 and 1024 (one thread);
- Zero's search: simulations per second of ``Zero.choose`` (tree and network in Rust, 8
  leaves per network call);
- self-play positions per second with the shipped network (64 games in lockstep, 64
  simulations a move).

The figures are written to benchmarks/results/zero.json, which the docs read.
"""

from __future__ import annotations

import argparse
import time

import colorwars
import numpy as np
from _results import write_results
from colorwars.ai import Zero
from colorwars.puct import self_play
from colorwars.zero import shipped

BOARDS = [(5, 5, "colorwars"), (8, 8, "classic"), (9, 6, "classic")]
FIGURES: dict[str, float | int | str] = {}


def planes_of(width: int, height: int, rules: str, n: int, seed: int) -> np.ndarray:
    """``n`` positions a few random moves into games of the board, as planes."""
    from colorwars.views import planes

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        g = colorwars.Game(width, height, rules=rules)
        for _ in range(int(rng.integers(0, 12))):
            if g.winner is None:
                g.play(int(rng.choice(g.legal_moves())))
        if g.winner is None:
            out.append(planes(g))
    return np.stack(out)


def rate(fn, planes: np.ndarray, seconds: float) -> float:  # type: ignore[no-untyped-def]
    fn(planes)
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        fn(planes)
        n += len(planes)
    return n / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    span = 0.2 if quick else 1.0
    for rules in ("colorwars", "classic"):
        info = shipped(rules).info
        FIGURES[f"{rules}:parameters"] = shipped(rules).size
        FIGURES[f"{rules}:minutes"] = info["seconds"] / 60
        for key in ("games", "positions", "iteration"):
            FIGURES[f"{rules}:{key}"] = info[key]
    for w, h, rules in BOARDS:
        net = shipped(rules)
        key = f"{w}x{h}_{rules}"
        print(f"{w}x{h} {rules} ({net.size:,} parameters)")
        for batch in (1, 8, 64, 256, 1024):
            planes = planes_of(w, h, rules, batch, batch)
            native = rate(net.forward, planes, span)
            ref = rate(net.forward_numpy, planes, span / 2)
            FIGURES[f"{key}:native:batch{batch}"] = native
            FIGURES[f"{key}:numpy:batch{batch}"] = ref
            print(f"  batch {batch:>5}: {native:>10,.0f} positions/s native, {ref:>10,.0f} numpy "
                  f"({native / ref:.1f}x)")  # fmt: skip
        g = colorwars.Game(w, h, rules=rules)
        sims = 400 if quick else 2000
        zero = Zero(simulations=sims, reuse=False)
        zero.choose(g)
        t = time.perf_counter()
        d = zero.search(g)
        per = d.work / (time.perf_counter() - t)
        FIGURES[f"{key}:zero_simulations_per_second"] = per
        print(f"  Zero's search: {per:,.0f} simulations/s ({d.work:,} simulations)")
        games, simulations = (16, 16) if quick else (64, 64)
        t = time.perf_counter()
        data = self_play(net, games=games, width=w, height=h, rules=rules,
                         simulations=simulations)  # fmt: skip
        sp = len(data) / (time.perf_counter() - t)
        FIGURES[f"{key}:self_play_positions_per_second"] = sp
        print(f"  self-play: {sp:,.1f} positions/s ({games} games, {simulations} simulations)")
    write_results("zero", FIGURES, quick)


if __name__ == "__main__":
    main()
