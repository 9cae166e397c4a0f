"""Solves every board from 2x2 to 3x4 (both orientations) under both rule sets, plus 4x4
colorwars, without the cache, and prints a Markdown table (winner, length under perfect play,
positions searched, time, positions per second). `--big` adds 4x5 colorwars (minutes).

    python benchmarks/solve_table.py [--big]
"""

from __future__ import annotations

import sys

import colorwars

BOARDS = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3)]


def main() -> None:
    print("| board | rules | winner | plies | positions | seconds | positions/s | line |")
    print("|---|---|---|---|---|---|---|---|")
    jobs = [(w, h, r) for w, h in BOARDS for r in ("classic", "colorwars")] + [(4, 4, "colorwars")]
    if "--big" in sys.argv:
        jobs.append((4, 5, "colorwars"))
    for w, h, rules in jobs:
        s = colorwars.solve(w, h, rules=rules, cache=False)
        winner = "a (first)" if s.winner == 0 else "b (second)"
        rate = s.positions / s.seconds if s.seconds > 0 else 0
        print(f"| {w}x{h} | {rules} | {winner} | {s.plies} | {s.positions:,} | {s.seconds:.2f} "
              f"| {rate:,.0f} | {' '.join(s.line_names())} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
