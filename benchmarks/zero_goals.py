"""Issue 22's match goals: the learned players against ``AlphaBeta(time=T)`` at an equal time
a move, both seats, on 8x8 classic, 9x6 classic and 5x5 colorwars (a proven second-player
win, where equal players score 50% over both seats). The learned players are ``Zero`` (PUCT
with the network) and ``ZeroAlphaBeta`` (alpha-beta with the network's value at the leaves,
NNUE-style).

    python benchmarks/zero_goals.py                    # 200 games a match at 0.1 s: hours
    python benchmarks/zero_goals.py --games 20 --boards 8x8:classic --players zero
    python benchmarks/zero_goals.py --players learned --results learned_goals
    python benchmarks/zero_goals.py --players zero --opponent learned --time 1 --games 40 \
        --boards 8x8:classic,9x6:classic --results zero_learned_1s

``--opponent`` plays them against another player than alpha-beta (the last line: Zero
against alpha-beta with the learned evaluation at a second a move, the match that chose the
default where people play on the classic boards).

Each pair of games starts from one random first move, once with each player moving first
(``colorwars.ai.ladder``'s openings). The matches run in ``--processes`` processes (each
match on one core). Prints each score with a 95% Wilson interval and writes
benchmarks/results/zero_goals.json (``--results NAME`` another name, ``--no-write`` none).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from _results import score_figures, write_results
from colorwars.ai import ladder


def play(job: tuple[str, str, str, int, float, int]) -> tuple[str, str, float, float]:
    """One match: (board, player, opponent, games, seconds, seed) -> (board, name, the
    player's points, s)."""
    board, player, opponent, games, seconds, seed = job
    size, _, rules = board.partition(":")
    w, h = (int(x) for x in size.split("x"))
    t = time.perf_counter()
    r = ladder([player, opponent], games, w, h, rules, time=seconds, seed=seed, threads=1)
    return board, r.names[0], float(r.wins[0, 1]), time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200, help="games a match, even (200)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (0.1)")
    parser.add_argument("--boards", default="8x8:classic,9x6:classic,5x5:colorwars")
    parser.add_argument("--players", default="zero,zeroab")
    parser.add_argument("--opponent", default="alphabeta", help="whom they play (alphabeta)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="4 games a match at 0.01 s")
    parser.add_argument(
        "--results",
        default="zero_goals",
        help="the results' name: benchmarks/results/NAME.json (zero_goals)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only (the tests' run)")
    args = parser.parse_args()
    games, seconds = (4, 0.01) if args.quick else (args.games, args.time)
    figures: dict[str, object] = {"time": seconds, "games": games, "opponent": args.opponent}
    jobs = [(b, p, args.opponent, games, seconds, args.seed) for b in args.boards.split(",")
            for p in args.players.split(",")]  # fmt: skip
    with ProcessPoolExecutor(args.processes) as pool:
        for board, name, won, took in pool.map(play, jobs):
            size, _, rules = board.partition(":")
            key = f"{size}_{rules}:{name.split('(')[0]}"
            scores = score_figures(key, won, games, took)
            figures.update(scores)
            lo, hi = scores[f"{key}:low"], scores[f"{key}:high"]
            print(f"{size} {rules}: {name} scores {won:g}/{games} = {won / games:.1%} "
                  f"(95% {lo:.1%} - {hi:.1%}) against {args.opponent}({seconds:g}s), {took:.0f} s",
                  flush=True)  # fmt: skip
    if not args.no_write:
        write_results(args.results, figures, args.quick)


if __name__ == "__main__":
    main()
