"""Perfect as the second player on 5x5 colorwars (issue 19: it never loses): games against
random, greedy, MCTS and alpha-beta, every player at the same time a move, Perfect from its
book. Prints each opponent's record and how Perfect chose its moves; writes
``benchmarks/results/perfect.json``.

    python benchmarks/perfect.py                 # 200 games an opponent at 0.1 s a move
    python benchmarks/perfect.py --games 20 --quick
"""

from __future__ import annotations

import argparse
import collections
import time

import colorwars
from _results import write_results
from colorwars import ai


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per opponent (200)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (0.1)")
    parser.add_argument("--quick", action="store_true", help="mark the results as a quick run")
    args = parser.parse_args()
    opponents = {
        "random": lambda seed: ai.Random(seed=seed),
        "greedy": lambda seed: ai.Greedy(seed=seed),
        "mcts": lambda seed: ai.MCTS(time=args.time, seed=seed),
        "alphabeta": lambda seed: ai.AlphaBeta(time=args.time, seed=seed),
    }
    perfect = ai.Perfect(time=args.time)
    figures: dict[str, object] = {"games": args.games, "time": args.time}
    kinds: collections.Counter[str] = collections.Counter()
    slowest = 0.0
    started = time.perf_counter()
    for name, make in opponents.items():
        won = 0
        t = time.perf_counter()
        for seed in range(args.games):
            other = make(seed)
            g = colorwars.Game(5, 5)
            while g.winner is None:
                if g.to_move == 0:
                    g.play(other.choose(g))
                else:
                    d = perfect.search(g)
                    kinds["book" if d.book else d.kind] += 1
                    slowest = max(slowest, d.seconds)
                    g.play(d.cell)
            won += g.winner == 1
        figures[f"{name}_won"] = won
        print(
            f"perfect (second) vs {name} ({args.time:g} s a move): won {won} of {args.games} "
            f"({time.perf_counter() - t:.0f} s)"
        )
    total = sum(kinds.values())
    figures.update(
        moves=total,
        book_moves=kinds["book"],
        searched_wins=kinds["win"],
        slowest_move=round(slowest, 4),
        seconds=round(time.perf_counter() - started, 1),
    )
    print(
        f"Perfect's {total:,} moves: {kinds['book']:,} from the book, {kinds['win']:,} proven "
        f"by its search, {kinds['hold'] + kinds['fallback']} otherwise; slowest {slowest:.4f} s"
    )
    write_results("perfect", figures, quick=args.quick)


if __name__ == "__main__":
    main()
