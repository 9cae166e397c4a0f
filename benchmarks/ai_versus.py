"""Which player is stronger at equal time per move: two players, many games, both seats.

Each line is a match of `--games` games on one board (half with each player first) between
player A and player B, named as the command line names players (`colorwars.ai.parse_player`:
`mcts:time=0.02`, `alphabeta:time=0.05`, ...), played natively on all cores; A's win rate with
a 95% Wilson interval, the mean game length and the seconds the match took.

    python benchmarks/ai_versus.py --against plain      # MCTS vs the plain UCT it replaced
    python benchmarks/ai_versus.py --against alphabeta  # MCTS vs alpha-beta
    python benchmarks/ai_versus.py --a mcts:time=0.02 --b mcts:time=0.02:reuse=false

`--against plain` plays `MCTS(time=T)` against `MCTS(time=T, c=0.7, solver=False, minimax=0,
reuse=False)` (the MCTS of earlier versions); `--against alphabeta` plays `MCTS(time=T)`
against `AlphaBeta(time=T)`. `--time T` (0.05 s) sets T; `--a`/`--b` name the players
outright.
"""

from __future__ import annotations

import argparse
import time

from colorwars import ai
from colorwars.statistics import wilson_interval

PRESETS = {
    "plain": ("mcts:time={t}", "mcts:time={t}:c=0.7:solver=false:minimax=0:reuse=false",
              "5x5:colorwars,4x4:classic,6x6:classic,8x8:classic"),
    "alphabeta": ("mcts:time={t}", "alphabeta:time={t}",
                  "5x5:colorwars,9x6:classic,8x8:classic"),
}  # fmt: skip


def versus(a: ai.Player, b: ai.Player, games: int, width: int, height: int, rules: str,
           seed: int) -> tuple[int, float]:  # fmt: skip
    """Games ``a`` won against ``b`` (half with each first) and the mean game length."""
    half = games // 2
    first = ai.match([a, b], half, width, height, rules, seed=seed)
    second = ai.match([b, a], games - half, width, height, rules, seed=seed + 1)
    wins = int((first["winners"] == 0).sum()) + int((second["winners"] == 1).sum())
    plies = (float(first["plies"].sum()) + float(second["plies"].sum())) / games
    return wins, plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", choices=sorted(PRESETS), default="plain")
    parser.add_argument("--a", help="player A (overrides --against)")
    parser.add_argument("--b", help="player B (overrides --against)")
    parser.add_argument("--time", type=float, default=0.05, help="seconds per move (0.05)")
    parser.add_argument("--games", type=int, default=400, help="games per board (both seats)")
    parser.add_argument("--boards", help="e.g. 5x5:colorwars,9x6:classic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    a_name, b_name, boards = PRESETS[args.against]
    a = ai.parse_player(args.a or a_name.format(t=args.time))
    b = ai.parse_player(args.b or b_name.format(t=args.time))
    print(f"A = {a}\nB = {b}\n")
    print(f"| board | A won (of {args.games}) | 95% interval | mean plies | seconds |")
    print("|---|---|---|---|---|")
    for item in (args.boards or boards).split(","):
        size, rules = item.split(":")
        w, h = (int(v) for v in size.split("x"))
        start = time.perf_counter()
        wins, plies = versus(a, b, args.games, w, h, rules, args.seed)
        lo, hi = wilson_interval(wins, args.games)
        print(f"| {w}x{h} {rules} | {wins}, {wins / args.games:.1%} | {lo:.1%} - {hi:.1%} "
              f"| {plies:.0f} | {time.perf_counter() - start:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
