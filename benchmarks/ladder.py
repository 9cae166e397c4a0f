"""The strength ladder the docs publish: ``colorwars.ai.ladder`` of random, greedy,
alpha-beta (hand-made and learned evaluations), MCTS and Zero at a fixed time a move, on each
board and time asked for.

    python benchmarks/ladder.py                                  # the docs' ladders: hours
    python benchmarks/ladder.py --boards 5x5:colorwars --times 0.01 --games 10

Writes benchmarks/results/ladder.json (``--name`` for another name) (every rating, flat keys
``<board>_<rules>:<time>:<player>:elo``), benchmarks/results/ladder.md (the tables the docs
include) and docs/images/ladder-<board>-<rules>.png (Elo with 95% intervals, one row of
points per time).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _results import RESULTS, write_results
from colorwars._files import atomic_write
from colorwars.ai import ladder

PLAYERS = ["random", "greedy", "alphabeta", "learned", "mcts", "zero"]
IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", default="5x5:colorwars,8x8:classic,9x6:classic")
    parser.add_argument("--times", default="0.01,0.1,1")
    parser.add_argument("--games", type=int, default=20, help="games per pair, even (20)")
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="4 games per pair at 0.01 s")
    parser.add_argument(
        "--name", default="ladder", help="the results' name: results/NAME.json and NAME.md"
    )
    parser.add_argument(
        "--redraw", action="store_true",
        help="play nothing: draw the pictures again from every results/ladder*.json (all the "
        "times measured for a board in one picture)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.redraw:
        redraw()
        return
    times = [0.01] if args.quick else [float(t) for t in args.times.split(",")]
    games = 4 if args.quick else args.games
    players = args.players.split(",")
    figures: dict[str, object] = {"games_per_pair": games}
    tables: list[str] = []
    for item in args.boards.split(","):
        board, _, rules = item.partition(":")
        w, h = (int(x) for x in board.split("x"))
        rows = []
        for seconds in times:
            t = time.perf_counter()
            r = ladder(players, games, w, h, rules, time=seconds, seed=args.seed, threads=1)
            took = time.perf_counter() - t
            print(f"{board} {rules} at {seconds:g} s a move ({took:.0f} s):", flush=True)
            table = [f"**{board} {rules}, {seconds:g} s a move** ({games} games per pair, "
                     f"{took / 60:.0f} minutes)", "", "| player | Elo | 95% interval | score |",
                     "|---|---|---|---|"]  # fmt: skip
            for i in r.order():
                lo, hi = r.interval[i]
                score = r.wins[i].sum() / r.games[i].sum()
                base = r.names[i].split("(")[0]
                key = f"{w}x{h}_{rules}:{seconds:g}:{base}"
                figures[f"{key}:elo"] = r.elo[i]
                figures[f"{key}:low"] = lo
                figures[f"{key}:high"] = hi
                table.append(f"| {r.names[i]} | {r.elo[i]:+.0f} | {lo:+.0f} to {hi:+.0f} "
                             f"| {score:.0%} |")  # fmt: skip
                print(f"  {r.names[i]:<20} {r.elo[i]:+6.0f} ({lo:+.0f} to {hi:+.0f}) {score:.0%}")
            rows.append((seconds, r))
            tables.append("\n".join(table) + "\n")
        draw(w, h, rules, rows)
    atomic_write(RESULTS / f"{args.name}.md", "\n".join(tables), "ladder tables")
    write_results(args.name, figures, args.quick)


class _Rated:
    """A ladder's ratings as read back from a results file (what ``draw`` reads)."""

    def __init__(self, names: list[str], elo: list[float], interval: list[tuple[float, float]]):
        self.names, self.elo, self.interval = names, elo, interval


def redraw() -> None:
    import json

    boards: dict[str, dict[float, dict[str, dict[str, float]]]] = {}
    for path in sorted(RESULTS.glob("ladder*.json")):
        figures = json.loads(path.read_text())["figures"]
        for key, value in figures.items():
            parts = key.split(":")
            if len(parts) != 4:
                continue
            board, seconds, player, what = parts
            boards.setdefault(board, {}).setdefault(float(seconds), {}).setdefault(player, {})[
                what
            ] = value
    for board, times in boards.items():
        size, _, rules = board.partition("_")
        w, h = (int(x) for x in size.split("x"))
        rows = []
        for seconds in sorted(times):
            players = times[seconds]
            names = sorted(players)
            rows.append((seconds, _Rated(
                names, [players[n]["elo"] for n in names],
                [(players[n]["low"], players[n]["high"]) for n in names],
            )))  # fmt: skip
        draw(w, h, rules, rows)
        print(f"drew {board}: {', '.join(f'{t:g} s' for t, _ in rows)}")


def draw(w: int, h: int, rules: str, rows: list[tuple[float, object]]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (no matplotlib: no picture)")
        return
    import io

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    names = sorted({n.split("(")[0] for _, r in rows for n in r.names})  # type: ignore[attr-defined]
    for k, (seconds, r) in enumerate(rows):
        ys = [names.index(n.split("(")[0]) + 0.15 * (k - (len(rows) - 1) / 2) for n in r.names]  # type: ignore[attr-defined]
        err = [[e - lo for e, (lo, _) in zip(r.elo, r.interval, strict=False)],  # type: ignore[attr-defined]
               [hi - e for e, (_, hi) in zip(r.elo, r.interval, strict=False)]]  # type: ignore[attr-defined]  # fmt: skip
        ax.errorbar(r.elo, ys, xerr=err, fmt="o", capsize=3, label=f"{seconds:g} s a move")  # type: ignore[attr-defined]
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("Elo (mean 0 at each time), 95% interval")
    ax.set_title(f"ladder, {w}x{h} {rules}")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize="small")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    IMAGES.mkdir(parents=True, exist_ok=True)
    atomic_write(IMAGES / f"ladder-{w}x{h}-{rules}.png", buf.getvalue(), "ladder picture")


if __name__ == "__main__":
    main()
