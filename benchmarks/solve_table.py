"""The solve table: every board the project has settled, by two independent searches.

Part 1, the small boards (2x2 to 3x4 both ways, under both rule sets, and 4x4 colorwars): the
alpha-beta solver (`colorwars.solve`: winner and exact length) and proof-number search
(`colorwars.prove` with `verify=True`: the winner after each group of symmetric first moves,
the proof walked to the end of every game). The two must agree on every winner; the run stops
with an error if they do not.

Part 2, boards past the alpha-beta solver: proof-number search alone. 4x5 and 5x5 colorwars
are proven after each group of symmetric first moves, each proof checked again on the
reference engine alone (`walk_strategy`). 4x4 and 4x5 classic (5x4 is the same board turned)
are proven unsplit, with `--time` seconds each (3000) and a table of `--memory` (10G): 4x4
classic takes about 41 minutes on one core, 4x5 classic is not proven in that time. What was
proven of each is printed either way. `--big` also runs alpha-beta on 4x5 colorwars (about
three minutes) for the exact length. `--skip-classic` leaves out the two long classic runs
(the rest takes about a minute). `--quick` runs the boards of up to nine cells alone (a smoke
for the tests; it writes nothing).

    python benchmarks/solve_table.py [--time 3000] [--memory 10G] [--big] [--skip-classic] [--quick]

The tables are printed as they grow and written, with the run's commit, date and machine, to
`benchmarks/results/solve_table.md` (docs/solver.md includes it); `--no-write` leaves it.
"""

from __future__ import annotations

import argparse
import time

import colorwars
from _results import RESULTS, stamp
from colorwars._files import atomic_write
from colorwars.proof import Proof, walk_strategy

#: The tables' lines, as printed.
LINES: list[str] = []


def out(line: str = "") -> None:
    """Prints a line of the tables and keeps it for the results file."""
    print(line, flush=True)
    LINES.append(line)


SMALL = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3)]


def who(winner: int | None) -> str:
    return {0: "a (first)", 1: "b (second)", None: "not proven"}[winner]


def first_moves(p: Proof) -> str:
    if not p.groups:
        return ""
    won = {0: 0, 1: 0}
    for w in p.moves.values():
        if w is not None:
            won[w] += 1
    still = len(p.groups) - won[0] - won[1]
    return f"{len(p.groups)} groups: a wins {won[0]}, b wins {won[1]}, open {still}"


def small_boards(quick: bool) -> None:
    out("| board | rules | winner | plies | alpha-beta positions | s | proof-number positions "
        "| s | proof (positions) | agree |")  # fmt: skip
    out("|---|---|---|---|---|---|---|---|---|---|")
    jobs = [(w, h, r) for w, h in SMALL for r in ("classic", "colorwars")] + [(4, 4, "colorwars")]
    if quick:  # the boards of up to nine cells
        jobs = [(w, h, r) for w, h, r in jobs if w * h <= 9]
    for w, h, rules in jobs:
        ab = colorwars.solve(w, h, rules=rules, cache=False)
        pn = colorwars.prove(w, h, rules=rules, verify=True, threads=1)
        if pn.winner != ab.winner or not pn.complete:
            raise SystemExit(
                f"{w}x{h} {rules}: alpha-beta says {ab.winner}, proof-number {pn.winner}"
            )
        out(f"| {w}x{h} | {rules} | {who(ab.winner)} | {ab.plies} | {ab.positions:,} "
            f"| {ab.seconds:.2f} | {pn.positions:,} | {pn.seconds:.2f} | {pn.checked:,} "
            f"| yes |")  # fmt: skip


def big_boards(seconds: float, memory: str, big: bool, classic: bool) -> None:
    out()
    out("Past the alpha-beta solver, proof-number search alone (\"walked\" is `walk_strategy` on "
        "the reference engine):")  # fmt: skip
    out()
    out("| board | rules | winner | after the first moves | proof-number positions | s "
        "| proof (positions) | walked on the reference engine |")  # fmt: skip
    out("|---|---|---|---|---|---|---|---|")
    jobs: list[tuple[int, int, str, float | None]] = [
        (4, 5, "colorwars", None),
        (5, 5, "colorwars", None),
    ]
    if classic:
        jobs += [(w, h, "classic", seconds) for w, h in [(4, 4), (4, 5)]]
    for w, h, rules, limit in jobs:
        if rules == "classic":  # unsplit, a big table, no walk (the proof is too large)
            p = colorwars.prove(
                w, h, rules=rules, time=limit, memory=memory, split=False, threads=1
            )
        else:
            p = colorwars.prove(w, h, rules=rules, verify=True, threads=1)
        walked = ""
        if p.complete and p.checked is not None and p.checked < 300_000:
            start = time.perf_counter()
            n = walk_strategy(w, h, rules=rules)
            walked = f"{n:,} positions, {time.perf_counter() - start:.1f} s"
        checked = f"{p.checked:,}" if p.checked is not None else "-"
        out(f"| {w}x{h} | {rules} | {who(p.winner)} | {first_moves(p)} | {p.positions:,} "
            f"| {p.seconds:.1f} | {checked} | {walked} |")  # fmt: skip
    if big:
        ab = colorwars.solve(4, 5, rules="colorwars", cache=False)
        out()
        out(f"4x5 colorwars by alpha-beta: {who(ab.winner)} in {ab.plies} plies, "
            f"{ab.positions:,} positions, {ab.seconds:.1f} s.")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=float, default=3000.0, help="seconds per classic board")
    parser.add_argument("--memory", default="10G", help="classic boards' proof table (10G)")
    parser.add_argument("--big", action="store_true", help="also 4x5 colorwars by alpha-beta")
    parser.add_argument("--skip-classic", action="store_true", help="no 4x4/5x4/4x5 classic")
    parser.add_argument("--no-write", action="store_true", help="print the tables only")
    parser.add_argument(
        "--quick", action="store_true", help="a smoke: the small boards of up to 9 cells only"
    )
    args = parser.parse_args()
    small_boards(args.quick)
    if not args.quick:
        big_boards(args.time, args.memory, args.big, not args.skip_classic)
    if not args.no_write and not args.quick:
        run = stamp(args.skip_classic)
        machine = run["machine"]
        out()
        out(f"(`python benchmarks/solve_table.py{' --skip-classic' if args.skip_classic else ''}"
            f"{' --big' if args.big else ''}` at commit {run['commit']}, {run['date']}; "
            f"{machine['cpu_count']} cores of {machine['cpu_model']}.)")  # fmt: skip
        path = RESULTS / "solve_table.md"
        atomic_write(path, "\n".join(LINES) + "\n", "the solve table")
        print(f"written to {path}")


if __name__ == "__main__":
    main()
