"""The strength ladder the docs publish: ``colorwars.ai.ladder`` of random, greedy,
alpha-beta (hand-made and learned evaluations), MCTS and Zero at a fixed time a move, on each
board and time asked for.

    python benchmarks/ladder.py                                  # the docs' ladders: hours
    python benchmarks/ladder.py --boards 5x5:colorwars --times 0.01 --games 10

Writes benchmarks/results/ladder.json (``--name`` for another name) (every rating, flat keys
``<board>_<rules>:<time>:<player>:elo``), benchmarks/results/ladder.md (the tables the docs
include) and docs/images/ladder-<board>-<rules>.png (Elo with 95% intervals, one row of
points per time).

A long ladder (1 s a move on the classic boards takes hours) can be played in parts:

    python benchmarks/ladder.py --boards 8x8:classic --times 1 --games 10 \
        --name ladder-classic-1s --checkpoint benchmarks/results/checkpoints

plays the ladder pair by pair and keeps each finished pair in a sealed file (a version and
checksums: a damaged one is an error naming it) in that folder, one per board and time,
locked while a run uses it; run again, it plays only the pairs still missing (Ctrl-C loses
the pair being played and exits with 130), and writes the results once every pair has
played. ``--replay zero`` (names from ``--players``, comma-separated) first drops every kept
pair of those players from the checkpoint, so that a player that changed (a network trained
again) plays its pairs again and the others' are kept:

    python benchmarks/ladder.py --boards 8x8:classic --times 1 --games 10 \
        --name ladder-classic-1s --checkpoint benchmarks/results/checkpoints --replay zero

Each pair plays from openings of its own (the seed plus the pair's index), so the games differ
from those of a ladder played at once. A checkpoint of other settings (players, games, seed) is
refused; pairs played at another commit are combined, with a note naming the commits.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np
from _results import RESULTS, commit, write_results
from colorwars._files import atomic_write, locked, read_sealed, seal
from colorwars.ai import ladder
from colorwars.errors import FileError
from colorwars.ladder import LadderResult, bradley_terry
from colorwars.rules import resolve

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
    parser.add_argument(
        "--no-write", action="store_true", help="print only: no results, no pictures (tests)"
    )
    parser.add_argument(
        "--checkpoint", type=Path, metavar="FOLDER",
        help="play pair by pair, keeping each finished pair in FOLDER (see above)",
    )  # fmt: skip
    parser.add_argument(
        "--replay", default="", metavar="PLAYERS",
        help="with --checkpoint: play the kept pairs of these players (names from --players, "
        "comma-separated) again",
    )  # fmt: skip
    args = parser.parse_args()
    replay = {name for name in args.replay.split(",") if name}
    if replay and args.checkpoint is None:
        parser.error("--replay needs --checkpoint (it replays pairs kept in a checkpoint)")
    unknown = sorted(replay - set(args.players.split(",")))
    if unknown:
        parser.error(f"--replay {','.join(unknown)}: not among the players ({args.players})")
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
            if args.checkpoint is None:
                r = ladder(players, games, w, h, rules, time=seconds, seed=args.seed, threads=1)
            else:
                pairs = in_parts(
                    players, games, w, h, rules, seconds, args.seed, args.checkpoint, replay
                )
                if pairs is None:
                    raise SystemExit(130)  # stopped by Ctrl-C: the pairs played are kept
                r = pairs
            took = time.perf_counter() - t if args.checkpoint is None else r.seconds
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
        if not args.no_write:
            draw(w, h, rules, rows)
    if not args.no_write:
        atomic_write(RESULTS / f"{args.name}.md", "\n".join(tables), "ladder tables")
        write_results(args.name, figures, args.quick)


KIND, VERSION = "ladder checkpoint", 1


def in_parts(
    players: list[str], games: int, w: int, h: int, rules: str, seconds: float, seed: int,
    folder: Path, replay: set[str] | None = None,
) -> LadderResult | None:  # fmt: skip
    """The ladder of ``players`` played pair by pair, each finished pair kept in a checkpoint
    in ``folder`` (one file per board and time, locked while a run uses it); None if Ctrl-C
    stopped it (what was played is kept). The kept pairs of the players named in ``replay``
    are dropped first (and the checkpoint written without them), to be played again. Each
    pair ``(a, b)`` plays from openings and seeds of its own (``seed`` plus the pair's index,
    as ``ladder`` varies them between pairs); the ratings are the Bradley-Terry fit of all
    the pairs, as ``ladder`` fits them."""
    path = folder / f"ladder-{w}x{h}-{rules}-{seconds:g}s.ckpt"
    settings = {"players": players, "games_per_pair": games, "size": [w, h], "rules": rules,
                "time": seconds, "seed": seed}  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with locked(path, "ladder checkpoint"):
            return _play_pairs(
                players, games, w, h, rules, seconds, seed, path, settings, replay or set()
            )
    except FileError as e:
        raise SystemExit(str(e)) from None


def _play_pairs(
    players: list[str], games: int, w: int, h: int, rules: str, seconds: float, seed: int,
    path: Path, settings: dict[str, Any], replay: set[str],
) -> LadderResult | None:  # fmt: skip
    found = read_sealed(path, KIND, VERSION, "ladder checkpoint")
    pairs: dict[str, dict[str, Any]] = {}
    here = commit()
    if found is not None:
        header, _ = found
        if header.get("settings") != settings:
            raise SystemExit(
                f"{path} holds a ladder of other settings ({header.get('settings')}), not "
                f"{settings}: move it aside or delete it to start again"
            )
        pairs = header["pairs"]
        print(f"{path}: {len(pairs)} pairs played before, resumed", flush=True)
        others = sorted({p["commit"] for p in pairs.values()} - {here})
        if others:
            # The players may have changed since (a network retrained, weights refitted):
            # the pairs are still combined, and the results say which commits played them.
            print(f"note: pairs of this ladder were played at commit {', '.join(others)}; "
                  f"this run is at {here}", flush=True)  # fmt: skip
    again = sorted(key for key in pairs if {players[int(i)] for i in key.split(",")} & replay)
    if again:
        for key in again:
            del pairs[key]
        # Written at once: a run stopped now and started again without --replay still plays
        # these pairs again rather than keep the old results.
        atomic_write(path, seal(KIND, VERSION, {"settings": settings, "pairs": pairs}),
                     "ladder checkpoint")  # fmt: skip
        print(f"{path}: {len(again)} pairs of {', '.join(sorted(replay))} dropped, to be "
              f"played again", flush=True)  # fmt: skip
    n = len(players)
    for a, b in itertools.combinations(range(n), 2):
        key = f"{a},{b}"
        if key in pairs:
            continue
        try:
            r = ladder([players[a], players[b]], games, w, h, rules, time=seconds,
                       seed=seed + a * n + b, threads=1)  # fmt: skip
        except KeyboardInterrupt:
            print(f"stopped: {len(pairs)} of {n * (n - 1) // 2} pairs are kept in {path}")
            return None
        pairs[key] = {
            "names": r.names,
            "wins": [float(r.wins[0, 1]), float(r.wins[1, 0])],
            "games": float(r.games[0, 1]),
            "seconds": r.seconds,
            "forfeits": r.forfeits,
            "commit": here,
        }
        data = seal(KIND, VERSION, {"settings": settings, "pairs": pairs})
        atomic_write(path, data, "ladder checkpoint")
        print(f"  {r.names[0]} {r.wins[0, 1]:g} - {r.wins[1, 0]:g} {r.names[1]} "
              f"({r.seconds:.0f} s; {len(pairs)} of {n * (n - 1) // 2} pairs)",
              flush=True)  # fmt: skip
    wins, played = np.zeros((n, n)), np.zeros((n, n))
    names = list(players)
    for key, pair in pairs.items():
        a, b = (int(x) for x in key.split(","))
        wins[a, b], wins[b, a] = pair["wins"]
        played[a, b] = played[b, a] = pair["games"]
        names[a], names[b] = pair["names"]
    elo, se = bradley_terry(wins, played)
    return LadderResult(
        names, wins, played, resolve(rules), (w, h), seconds,
        elo=[float(x) for x in elo],
        interval=[(float(e - 1.96 * s), float(e + 1.96 * s)) for e, s in zip(elo, se, strict=True)],
        seconds=sum(p["seconds"] for p in pairs.values()),
        forfeits=[f for p in pairs.values() for f in p.get("forfeits", [])],
    )  # fmt: skip


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
