"""Parallel proof-number search: the speedup of `prove(..., threads=N)` over one thread.

Each board is proven from the empty board, unsplit (`split=False`: one search of the whole
position, the hardest case to share), several times with one thread and with `--threads`
threads, each run with a fresh table (prove's default size for the board, or `--memory`),
after a table of that size is taken once and not counted. The one- and many-thread runs take
turns, so that both meet the machine as it is at the time. The threads' share of the work
depends on how they are scheduled, so the positions searched vary from run to run; the speedup
is the ratio of the median wall times (and, printed beside it, the median of each pair's).
The winner of every run must be the one the project has proven (the run stops with an error
otherwise).

    python benchmarks/bench_prove.py                  # 5x5 and 5x6 colorwars, 3x4 classic
    python benchmarks/bench_prove.py --quick          # small boards, a few seconds
    python benchmarks/bench_prove.py --boards 5x5:colorwars --repeats 5
    python benchmarks/bench_prove.py --repeats 7 --repeats-5x6 2   # the figures in the docs
    python benchmarks/bench_prove.py --boards 5x6:colorwars --repeats 3 --merge
    python benchmarks/bench_prove.py --boards 5x6:colorwars --split --repeats 3 --merge

`--split` measures prove's default instead: the position searched whole, then the result
after each group of symmetric first moves read from its proofs (and the groups left open
proven in turn, in slices of time; figures under "WxH_rules_split").

The figures go to benchmarks/results/prove.json (stamped with the commit, the date and
the machine), which the docs read; `--no-write` writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _results import RESULTS, stamp, write_results
from colorwars.proof import default_memory, prove

#: The boards measured.
BOARDS = ["5x5:colorwars", "3x4:classic", "5x6:colorwars"]
QUICK = ["4x4:colorwars", "3x3:classic"]
#: The project's record of the proven boards: each run must find its winner.
SOLVED = Path(__file__).resolve().parent.parent / "seeds" / "solved.json"


def proven_winners() -> dict[str, int]:
    """``"WxH:rules"`` -> the proven winner (0: a, the first player), from seeds/solved.json."""
    try:
        boards = json.loads(SOLVED.read_text(encoding="utf-8"))["boards"]
    except (OSError, ValueError, KeyError):
        return {}
    return {f"{b['board']}:{b['rules']}": "ab".index(b["winner"]) for b in boards}


WINNERS = proven_winners()


def run(board: str, threads: int, memory: str | None, split: bool = False) -> dict[str, Any]:
    size, rules = board.split(":")
    w, h = (int(x) for x in size.split("x"))
    start = time.perf_counter()
    p = prove(w, h, rules=rules, split=split, memory=memory, threads=threads)
    seconds = time.perf_counter() - start
    if not p.complete or p.winner != WINNERS.get(board, p.winner):
        raise SystemExit(f"{board} with {threads} threads: winner {p.winner}, not the proven one")
    return {"seconds": seconds, "positions": p.positions, "filled": p.filled}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", help="comma-separated WxH:rules (5x5:colorwars,...)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each (3)")
    parser.add_argument(
        "--memory", help="each run's table (default: prove's for the board, 1G on 5x5, 4G on 5x6)"
    )
    parser.add_argument(
        "--repeats-5x6", type=int, help="runs of 5x6 (default: --repeats; each is minutes)"
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the written figures of boards not measured in this run",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="prove's default: the result after each group of first moves (as WxH_rules_split)",
    )
    parser.add_argument("--quick", action="store_true", help="small boards, one run each")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    boards = args.boards.split(",") if args.boards else (QUICK if args.quick else BOARDS)
    repeats = 1 if args.quick else max(1, args.repeats)
    memory = args.memory

    print(f"proof-number search, {args.threads} threads against 1, {repeats} runs each, "
          f"tables of {memory or 'the default size'}, {os.cpu_count()} cores, "
          f"{'split by first move' if args.split else 'unsplit'}")  # fmt: skip
    print("| board | rules | threads | median s | runs (s) | median positions | speedup |")
    print("|---|---|---|---|---|---|---|")
    figures: dict[str, Any] = {
        "threads": args.threads,
        "repeats": repeats,
        "memory": memory or "default",
    }
    # A table of the first board's size taken and used first, not counted: the first tables a
    # process takes cost the kernel more (it gathers free memory into huge pages), which would
    # count against the first board's one thread.
    size, rules = boards[0].split(":")
    w, h = (int(x) for x in size.split("x"))
    prove(4, 4, split=False, memory=memory or default_memory(w * h), threads=1)
    for board in boards:
        size, rules = board.split(":")
        n = repeats if size != "5x6" or args.repeats_5x6 is None else args.repeats_5x6
        # One run of each in turn, so that both see the machine as it is at the time (its
        # speed drifts by a fifth or more over minutes); every run has a fresh table.
        pairs = [
            (run(board, 1, memory, args.split), run(board, args.threads, memory, args.split))
            for _ in range(n)
        ]
        rows = {}
        for threads, runs in ((1, [p[0] for p in pairs]), (args.threads, [p[1] for p in pairs])):
            rows[threads] = {
                "seconds": statistics.median(r["seconds"] for r in runs),
                "positions": int(statistics.median(r["positions"] for r in runs)),
                "filled": int(statistics.median(r["filled"] for r in runs)),
                "runs": [round(r["seconds"], 2) for r in runs],
                "runs_positions": [r["positions"] for r in runs],
            }
        speedup = rows[1]["seconds"] / rows[args.threads]["seconds"]
        paired = statistics.median(a["seconds"] / b["seconds"] for a, b in pairs)
        for threads, row in rows.items():
            shown = f"{speedup:.2f}x (paired {paired:.2f}x)" if threads != 1 else "1"
            print(f"| {size} | {rules} | {threads} | {row['seconds']:.2f} | "
                  f"{', '.join(f'{s:.2f}' for s in row['runs'])} | {row['positions']:,} "
                  f"| {shown} |", flush=True)  # fmt: skip
        figures[board.replace(":", "_") + ("_split" if args.split else "")] = {
            "one": rows[1],
            "many": rows[args.threads],
            "speedup": round(speedup, 3),
            "paired_speedup": round(paired, 3),
            "repeats": n,
            # Each board's own commit and date: --merge keeps boards measured on other days.
            "measured": {k: v for k, v in stamp(args.quick).items() if k in ("commit", "date")},
        }
    if not args.no_write:
        if args.merge:
            figures = {**earlier_boards(), **figures}
        write_results("prove", figures, quick=args.quick)


def earlier_boards() -> dict[str, Any]:
    """The boards' figures in the results written before (none if there are none)."""
    try:
        data = json.loads((RESULTS / "prove.json").read_text(encoding="utf-8"))
        earlier = data["figures"]
    except (OSError, ValueError, KeyError):
        return {}
    boards = {k: v for k, v in earlier.items() if isinstance(v, dict) and "speedup" in v}
    # Boards written before each board carried its own date: the file's.
    when = {k: data[k] for k in ("commit", "date") if k in data}
    return {k: {"measured": when, **v} for k, v in boards.items()}


if __name__ == "__main__":
    main()
