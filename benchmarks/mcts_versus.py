"""MCTS-Solver against the plain UCT of earlier versions, at equal time per move.

Each line is a match of `--games` games (half with each seat first) between
`MCTS(time=T)` (the solver on, the default) and `MCTS(time=T, solver=False)`, played natively
on all cores; the win rate of the solver version with a 95% Wilson interval.

    python benchmarks/mcts_versus.py [--games 400] [--time 0.05] [--boards 5x5:colorwars,...]
"""

from __future__ import annotations

import argparse
import time

from colorwars import ai
from colorwars.statistics import wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per board (both seats)")
    parser.add_argument("--time", type=float, default=0.05, help="seconds per move (0.05)")
    parser.add_argument("--boards", default="4x4:colorwars,5x5:colorwars,4x4:classic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"| board | MCTS-Solver wins (of {args.games}) | win rate | 95% interval | seconds |")
    print("|---|---|---|---|---|")
    for item in args.boards.split(","):
        size, rules = item.split(":")
        w, h = (int(v) for v in size.split("x"))
        new = ai.MCTS(time=args.time, seed=1)
        old = ai.MCTS(time=args.time, seed=2, solver=False)
        half = args.games // 2
        start = time.perf_counter()
        a = ai.match([new, old], half, w, h, rules, seed=args.seed)
        b = ai.match([old, new], args.games - half, w, h, rules, seed=args.seed + 1)
        wins = int((a["winners"] == 0).sum()) + int((b["winners"] == 1).sum())
        lo, hi = wilson_interval(wins, args.games)
        print(f"| {w}x{h} {rules} | {wins} | {wins / args.games:.1%} | {lo:.1%} - {hi:.1%} "
              f"| {time.perf_counter() - start:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
