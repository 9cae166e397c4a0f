"""Issue 22's match goals: ``Zero(time=T)`` against ``AlphaBeta(time=T)`` at an equal time a
move, both seats, on 8x8 classic, 9x6 classic and 5x5 colorwars (a proven second-player win,
where equal players score 50% over both seats).

    python benchmarks/zero_goals.py                    # 200 games a board at 0.1 s: hours
    python benchmarks/zero_goals.py --games 20 --boards 8x8:classic

Each pair of games starts from one random first move, once with each player moving first
(``colorwars.ai.ladder``'s openings). Prints Zero's score with a 95% Wilson interval and
writes benchmarks/results/zero_goals.json.
"""

from __future__ import annotations

import argparse
import time

from _results import write_results
from colorwars.ai import ladder
from colorwars.statistics import wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200, help="games a board, even (200)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (0.1)")
    parser.add_argument("--boards", default="8x8:classic,9x6:classic,5x5:colorwars")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="4 games a board at 0.01 s")
    args = parser.parse_args()
    games, seconds = (4, 0.01) if args.quick else (args.games, args.time)
    figures: dict[str, object] = {"time": seconds, "games": games}
    for item in args.boards.split(","):
        board, _, rules = item.partition(":")
        w, h = (int(x) for x in board.split("x"))
        t = time.perf_counter()
        r = ladder(["zero", "alphabeta"], games, w, h, rules, time=seconds, seed=args.seed,
                   threads=1)  # fmt: skip
        won = r.wins[0, 1]
        lo, hi = wilson_interval(round(won), games)
        key = f"{w}x{h}_{rules}"
        figures[f"{key}:zero_score"] = won / games
        figures[f"{key}:low"] = lo
        figures[f"{key}:high"] = hi
        figures[f"{key}:won"] = won
        figures[f"{key}:seconds"] = time.perf_counter() - t
        print(f"{w}x{h} {rules}: {r.names[0]} scores {won:g}/{games} = {won / games:.1%} "
              f"(95% {lo:.1%} - {hi:.1%}) against {r.names[1]}, "
              f"{time.perf_counter() - t:.0f} s", flush=True)  # fmt: skip
    write_results("zero_goals", figures, args.quick)


if __name__ == "__main__":
    main()
