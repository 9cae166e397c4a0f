"""What the endgame probe (``colorwars.probe``) gains in matches: each player with its probe
against itself without one, at an equal time a move, both seats, from shared random openings
(``colorwars.ai.ladder``'s). Under a time budget the probe takes at most a quarter of the
move (``probe.PROBE_SHARE``), so on a board where it rarely proves anything it costs search.
The gain in accuracy is measured by benchmarks/ai_accuracy.py (its ``... probe`` players).

    python benchmarks/probe_gain.py                        # 20 games a match at 0.1 s
    python benchmarks/probe_gain.py --games 100 --players learned --boards 8x8:classic

Prints each score of the player with the probe, with a 95% Wilson interval, and writes
benchmarks/results/probe_gain.json.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from _results import score_figures, write_results
from colorwars.ai import ladder
from colorwars.zero.player import PROBE


def play(job: tuple[str, str, int, int, float, int]) -> tuple[str, str, float, float]:
    """One match: (board, player, probe, games, seconds, seed) -> (board, player, the probing
    player's points, seconds)."""
    board, player, probe, games, seconds, seed = job
    size, _, rules = board.partition(":")
    w, h = (int(x) for x in size.split("x"))
    t = time.perf_counter()
    players = [f"{player}:probe={probe}", f"{player}:probe=0"]
    r = ladder(players, games, w, h, rules, time=seconds, seed=seed, threads=1)
    return board, player, float(r.wins[0, 1]), time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="games a match, even (20)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (0.1)")
    parser.add_argument("--boards", default="5x5:colorwars,8x8:classic")
    parser.add_argument("--players", default="zero,learned,mcts")
    parser.add_argument("--probe", type=int, default=PROBE, help="positions (Zero's default)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 games a match at 0.01 s")
    parser.add_argument("--no-write", action="store_true", help="print only (the tests' run)")
    args = parser.parse_args()
    games, seconds = (2, 0.01) if args.quick else (args.games, args.time)
    figures: dict[str, object] = {"time": seconds, "games": games, "probe": args.probe}
    jobs = [(b, p, args.probe, games, seconds, args.seed) for b in args.boards.split(",")
            for p in args.players.split(",")]  # fmt: skip
    with ProcessPoolExecutor(args.processes) as pool:
        for board, player, won, took in pool.map(play, jobs):
            size, _, rules = board.partition(":")
            key = f"{size}_{rules}:{player}"
            scores = score_figures(key, won, games, took)
            figures.update(scores)
            lo, hi = scores[f"{key}:low"], scores[f"{key}:high"]
            print(f"{size} {rules}: {player} with a probe of {args.probe:,} scores "
                  f"{won:g}/{games} = {won / games:.1%} (95% {lo:.1%} - {hi:.1%}) against "
                  f"itself without, {seconds:g} s a move, {took:.0f} s", flush=True)  # fmt: skip
    if not args.no_write:
        write_results("probe_gain", figures, args.quick)


if __name__ == "__main__":
    main()
