"""How often each player picks a winning move, measured against the truth.

Positions are sampled from varied games (random, greedy and MCTS(200) play mixed, each game's
players drawn at random) on boards the project has solved: 3x3 and 3x4 classic, 3x4, 4x4 and
4x5 colorwars (and 4x4 classic with --classic44: solved, but its positions take long to
prove). A position is kept when the player to move has a winning move and not every move
wins. The truth is exact: every legal move's
position is proven by proof-number search (`colorwars.prove`, whose results the tests check
against the alpha-beta solver and on the reference engine), one proof table per board shared
by all its positions.

For each player: the share of positions where it picks a winning move, with a 95% Wilson
interval, and its mean time per move.

    python benchmarks/ai_accuracy.py [--positions 1000] [--seed 0] [--quick]
        [--players greedy,mcts(1000),...] [--cache FILE]

``--cache FILE`` keeps the sampled positions and their winning moves in a JSON file (made on the
first run, read on the next) so that players can be compared on the same positions without
proving them again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable
from typing import Any

import colorwars
from colorwars import _core
from colorwars.ai import Zero
from colorwars.players import MCTS, AlphaBeta, Greedy, Random, native_game
from colorwars.probe import forget
from colorwars.statistics import wilson_interval
from colorwars.zero.player import PROBE

BOARDS = [
    (3, 3, "classic"),
    (3, 4, "classic"),
    (3, 4, "colorwars"),
    (4, 4, "colorwars"),
    (4, 5, "colorwars"),
]
SMALL = 12
"""Boards of up to this many cells (3x4) make the first summary line of each player."""


class Truth:
    """Which moves win, for one board: every child proven, proofs shared between positions.
    A child not proven within ``limit`` seconds makes the position unknown (it is skipped and
    counted: some positions after a blunder are hard to prove)."""

    def __init__(self, memory: int = 1 << 30, limit: float = 10.0) -> None:
        self.table = _core.ProofTable(memory)
        self.limit = limit
        self.skipped = 0

    def winning(self, game: colorwars.Game) -> tuple[list[int], list[int]] | None:
        """(winning moves, all legal moves) for the player to move; None if unknown."""
        mover = game.to_move
        wins = []
        legal = game.legal_moves()
        for cell in legal:
            child = game.copy()
            child.play(cell)
            if child.winner is not None:
                winner = child.winner
            else:
                winner = _core.prove(native_game(child), self.table, self.limit)[0]
                if winner is None:
                    self.skipped += 1
                    return None
            if winner == mover:
                wins.append(cell)
        return wins, legal


def sample(
    width: int, height: int, rules: str, count: int, rng: random.Random, truth: Truth
) -> list[tuple[str, list[int]]]:
    """``count`` positions (notation, winning moves) from varied games."""
    makers: list[Callable[[int], Any]] = [
        lambda s: Random(seed=s),
        lambda s: Greedy(seed=s),
        lambda s: MCTS(simulations=200, seed=s),
    ]
    out: list[tuple[str, list[int]]] = []
    seen: set[str] = set()
    while len(out) < count:
        seats = [rng.choice(makers)(rng.randrange(1 << 30)) for _ in range(2)]
        game = colorwars.Game(width, height, rules=rules)
        while game.winner is None and len(out) < count:
            text = game.to_text()
            if text not in seen:
                seen.add(text)
                known = truth.winning(game)
                if known is not None and known[0] and len(known[0]) < len(known[1]):
                    out.append((text, known[0]))
            game.play(seats[game.to_move].choose(game))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=1000, help="in all (split by board)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="120 positions, fewer players")
    parser.add_argument("--classic44", action="store_true", help="add 4x4 classic")
    parser.add_argument("--players", help="comma-separated labels of the players to run")
    parser.add_argument("--cache", help="JSON file for the positions (read if present)")
    parser.add_argument("--table", help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    total = 120 if args.quick else args.positions
    boards = BOARDS + ([(4, 4, "classic")] if args.classic44 else [])
    rng = random.Random(args.seed)
    players: list[tuple[str, Any]] = [
        ("greedy", Greedy()),
        ("alphabeta(3)", AlphaBeta(depth=3)),
        ("alphabeta(5)", AlphaBeta(depth=5)),
    ]
    for n in (1000, 10_000):
        players += [  # the plain UCT of earlier versions, with MCTS-Solver, today's default
            (f"mcts({n}) plain UCT", MCTS(simulations=n, c=0.7, solver=False, minimax=0.0)),
            (f"mcts({n}) solver", MCTS(simulations=n, c=0.7, minimax=0.0)),
            (f"mcts({n})", MCTS(simulations=n)),
        ]
    players += [("zero", Zero()), ("zero(1600)", Zero(simulations=1600))]
    # The endgame probe (colorwars.probe; Zero's default) with and without: what it gains.
    players += [
        ("zero no probe", Zero(probe=0)),
        ("zero(1600) no probe", Zero(simulations=1600, probe=0)),
        ("alphabeta(5) probe", AlphaBeta(depth=5, probe=PROBE)),
        ("mcts(1000) probe", MCTS(simulations=1000, probe=PROBE)),
    ]
    if args.quick and not args.players:
        players = players[:6]
    if args.players:
        wanted = [p.strip() for p in args.players.split(",")]
        known = {label: player for label, player in players}
        unknown = [p for p in wanted if p not in known]
        if unknown:
            parser.error(f"unknown players {unknown}; known: {', '.join(known)}")
        players = [(p, known[p]) for p in wanted]
    per_board = -(-total // len(boards))
    positions: dict[tuple[int, int, str], list[tuple[str, list[int]]]] = {}
    if args.cache and os.path.exists(args.cache):
        with open(args.cache) as f:
            for entry in json.load(f):
                key = (entry["width"], entry["height"], entry["rules"])
                positions[key] = [(t, list(w)) for t, w in entry["positions"]]
        print(
            f"positions read from {args.cache}: "
            + ", ".join(f"{w}x{h} {r} {len(v)}" for (w, h, r), v in positions.items())
        )
        boards = []
    for w, h, rules in boards:
        start = time.perf_counter()
        truth = Truth()
        positions[(w, h, rules)] = sample(w, h, rules, per_board, rng, truth)
        print(f"{w}x{h} {rules}: {per_board} positions sampled and valued exactly in "
              f"{time.perf_counter() - start:.1f} s ({truth.skipped} skipped: a move not "
              f"proven in {truth.limit:.0f} s)", flush=True)  # fmt: skip
    if args.cache and boards:
        with open(args.cache, "w") as f:
            json.dump([{"width": w, "height": h, "rules": r, "positions": v}
                       for (w, h, r), v in positions.items()], f)  # fmt: skip
    lines: list[str] = []

    def row(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    print()
    row("| player | board | winning move picked | 95% interval | ms per move |")
    row("|---|---|---|---|---|")
    for label, player in players:
        forget()  # each player's probe starts from an empty table
        totals = {"up to 3x4": [0, 0, 0.0], "all": [0, 0, 0.0]}
        for (w, h, rules), items in positions.items():
            hits = 0
            start = time.perf_counter()
            for text, wins in items:
                game = colorwars.Game.from_text(text)
                hits += player.choose(game) in wins
            secs = time.perf_counter() - start
            lo, hi = wilson_interval(hits, len(items))
            row(f"| {label} | {w}x{h} {rules} | {hits}/{len(items)}, "
                f"{hits / len(items):.1%} | {lo:.1%} - {hi:.1%} "
                f"| {1000 * secs / len(items):.2f} |")  # fmt: skip
            for name in ("up to 3x4", "all") if w * h <= SMALL else ("all",):
                totals[name][0] += hits
                totals[name][1] += len(items)
                totals[name][2] += secs
        for name, (hits, n, secs) in totals.items():
            if n:
                lo, hi = wilson_interval(hits, n)
                row(f"| **{label}** | **{name}** | **{hits}/{n}, {hits / n:.1%}** "
                    f"| {lo:.1%} - {hi:.1%} | {1000 * secs / n:.2f} |")  # fmt: skip
    if args.table:
        from colorwars._files import atomic_write

        atomic_write(args.table, "\n".join(lines) + "\n", "accuracy table")


if __name__ == "__main__":
    main()
