"""Strength and speed of the AI players and the solver.

    python benchmarks/bench_ai.py           # a few minutes
    python benchmarks/bench_ai.py --quick   # rougher, under a minute

Prints, on 5x5 colorwars and over both seats (half the games with each player first):
MCTS (1,000 simulations per move) against random and against greedy; alpha-beta (depth 3)
against greedy; MCTS simulations per second and alpha-beta positions per second on a mid-game
position; solver positions per second. The figures are also written to
benchmarks/results/ai.json (stamped with the commit, the date, the machine and the versions),
which the docs read.
"""

from __future__ import annotations

import argparse
import time

import colorwars
from _results import write_results
from colorwars import ai
from colorwars.simulation import wilson_interval

FIGURES: dict[str, float | int | str] = {}


def both_seats(a: ai.Player, b: ai.Player, games: int, seed: int) -> tuple[int, int, float]:
    """Games `a` won against `b`, half with each seat first; and the seconds taken."""
    t = time.perf_counter()
    first = ai.match([a, b], games // 2, seed=seed)
    second = ai.match([b, a], games - games // 2, seed=seed + 1)
    won = int((first["winners"] == 0).sum() + (second["winners"] == 1).sum())
    return won, games, time.perf_counter() - t


def report(key: str, label: str, won: int, games: int, seconds: float, goal: str) -> None:
    lo, hi = wilson_interval(won, games)
    FIGURES.update({f"{key}:won": won, f"{key}:games": games, f"{key}:rate": won / games})
    FIGURES.update({f"{key}:low": lo, f"{key}:high": hi})
    print(f"  {label:<34}{won:>5}/{games:<5}{won / games:>8.1%}   95% {lo:.1%}-{hi:.1%}"
          f"   ({seconds:.1f} s; goal {goal})")  # fmt: skip


def mid_game() -> colorwars.Game:
    g = colorwars.Game(width=5, height=5, rules="colorwars")
    for m in ["c3", "b2", "c3", "b2", "d4", "b3"]:
        if m in [g.cell_name(c) for c in g.legal_moves()]:
            g.play(m)
        else:
            g.play(g.legal_moves()[0])
    return g


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 100 if args.quick else 400
    print(f"5x5 colorwars, {n} games per line, both seats")
    mcts = ai.MCTS(simulations=1000)
    report("mcts_vs_random", "MCTS(1000) vs random", *both_seats(mcts, ai.Random(), n, 1), ">= 99%")
    report("mcts_vs_greedy", "MCTS(1000) vs greedy", *both_seats(mcts, ai.Greedy(), n, 3), ">= 90%")
    report(
        "alphabeta_vs_greedy",
        "AlphaBeta(depth 3) vs greedy",
        *both_seats(ai.AlphaBeta(depth=3), ai.Greedy(), n, 5),
        ">= 90%",
    )
    report(
        "mcts_vs_alphabeta",
        "MCTS(1000) vs AlphaBeta(depth 3)",
        *both_seats(mcts, ai.AlphaBeta(depth=3), n, 7),
        "-",
    )

    g = mid_game()
    print(f"\nspeed on a mid-game position ({g.to_text()})")
    for threads in (1, 2):
        d = ai.MCTS(simulations=20_000, trees=threads).search(g)
        rate = d.work / d.seconds
        print(f"  MCTS, {threads} thread(s): {rate:,.0f} simulations/s (greedy playouts)")
        FIGURES[f"mcts_{threads}_threads_simulations_per_second"] = rate
    d = ai.MCTS(simulations=20_000, greedy=0.0).search(g)
    print(f"  MCTS, 1 thread, random playouts: {d.work / d.seconds:,.0f} simulations/s")
    FIGURES["mcts_random_playouts_simulations_per_second"] = d.work / d.seconds
    quiet = colorwars.Game(width=6, height=6, rules="classic")
    for m in ["c3", "d4", "b5", "e2", "a1", "f6"]:
        quiet.play(m)
    d = ai.AlphaBeta(depth=6).search(quiet)
    print(f"  AlphaBeta depth 6 on 6x6 classic after 6 moves: {d.work:,} positions, "
          f"{d.work / d.seconds:,.0f} positions/s")  # fmt: skip
    FIGURES["alphabeta_positions_per_second"] = d.work / d.seconds

    print("\nsolver (no cache)")
    for w, h, rules in [(3, 3, "classic"), (4, 4, "colorwars")] + (
        [] if args.quick else [(3, 4, "classic")]
    ):
        s = colorwars.solve(w, h, rules=rules, cache=False)
        print(f"  {s}  -> {s.positions / s.seconds:,.0f} positions/s")
        FIGURES[f"solver_{w}x{h}_{rules}_positions_per_second"] = s.positions / s.seconds
    FIGURES["games_per_line"] = n
    write_results("ai", FIGURES, quick=args.quick)


if __name__ == "__main__":
    main()
