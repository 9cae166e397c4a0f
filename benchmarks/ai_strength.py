"""Which player is stronger per second of thinking: MCTS against alpha-beta at equal time.

Each line is a match of `--games` games (half with each seat first) between `MCTS(time=T)`
(MCTS-Solver, greedy playouts) and `AlphaBeta(time=T)` (iterative deepening as deep as the
time allows), played natively on all cores; MCTS's win rate with a 95% Wilson interval.

    python benchmarks/ai_strength.py [--games 200] [--time 0.05] [--boards 5x5:colorwars,...]
"""

from __future__ import annotations

import argparse
import time

from colorwars import ai
from colorwars.statistics import wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per board (both seats)")
    parser.add_argument("--time", type=float, default=0.05, help="seconds per move (0.05)")
    parser.add_argument("--boards", default="5x5:colorwars,9x6:classic,8x8:classic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"| board | MCTS won (of {args.games}) | 95% interval | mean plies | seconds |")
    print("|---|---|---|---|---|")
    for item in args.boards.split(","):
        size, rules = item.split(":")
        w, h = (int(v) for v in size.split("x"))
        mcts = ai.MCTS(time=args.time, seed=1)
        ab = ai.AlphaBeta(time=args.time)
        half = args.games // 2
        start = time.perf_counter()
        a = ai.match([mcts, ab], half, w, h, rules, seed=args.seed)
        b = ai.match([ab, mcts], args.games - half, w, h, rules, seed=args.seed + 1)
        wins = int((a["winners"] == 0).sum()) + int((b["winners"] == 1).sum())
        plies = (float(a["plies"].sum()) + float(b["plies"].sum())) / args.games
        lo, hi = wilson_interval(wins, args.games)
        print(f"| {w}x{h} {rules} | {wins}, {wins / args.games:.1%} | {lo:.1%} - {hi:.1%} "
              f"| {plies:.0f} | {time.perf_counter() - start:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
