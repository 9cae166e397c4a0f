"""Tests the strategy claims of the Color Wars guide (seed 000) with data, on 5x5 colorwars.

1. "Open in the middle" and "corners are a trap on move one": the first player's win rate
   for each opening cell, the first move forced there and the game played on by a pair of
   players (random, greedy, MCTS).
2. "Corners are cheap to hold later": in recorded games, how often a cell a player holds is
   taken by the opponent within the next 4 plies, by kind of cell.
3. "Never park a loaded cell next to their loaded cell; whoever moves first takes the whole
   exchange": the win rate of the player to move in positions where a loaded cell of theirs
   touches a loaded cell of the opponent, against their win rate in all positions.
4. "Material means almost nothing": how often the player with more orbs (or more cells) at
   a given ply goes on to win.

    python benchmarks/strategy_claims.py [--quick]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import colorwars
import numpy as np
from colorwars import ai

W = H = 5


def kind(cell: int) -> str:
    x, y = cell % W, cell // W
    edges = (x in (0, W - 1)) + (y in (0, H - 1))
    return ("inner", "edge", "corner")[edges]


def neighbours(cell: int) -> list[int]:
    x, y = cell % W, cell // W
    out = []
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= x + dx < W and 0 <= y + dy < H:
            out.append((y + dy) * W + x + dx)
    return out


CAPACITY = [len(neighbours(c)) - 1 for c in range(W * H)]


def openings(quick: bool) -> None:
    print("1. first player's win rate by opening cell (rows 1-5, columns a-e)")
    pairs = [
        ("random vs random", ai.Random(), ai.Random(), 400 if quick else 4000),
        ("greedy vs greedy", ai.Greedy(), ai.Greedy(), 200 if quick else 2000),
        ("MCTS(200) vs MCTS(200)", ai.MCTS(simulations=200), ai.MCTS(simulations=200),
         10 if quick else 80),
    ]  # fmt: skip
    for label, a, b, games in pairs:
        rates, _ = ai.opening_win_rates(a, b, games, W, H, "colorwars", seed=11)
        flat = rates.ravel()
        by_kind = defaultdict(list)
        for c in range(W * H):
            by_kind[kind(c)].append(flat[c])
        summary = ", ".join(f"{k} {np.mean(v):.1%}" for k, v in sorted(by_kind.items()))
        print(f"  {label}, {games} games per cell: {summary}; centre c3 {rates[2, 2]:.1%}")
        for y in range(H):
            print("     " + " ".join(f"{rates[y, x]:5.0%}" for x in range(W)))


def recorded_games(games: int, seats: str) -> list[list[int]]:
    r = colorwars.simulate(games=games, width=W, height=H, rules="colorwars", seats=seats,
                           seed=5, record=True)  # fmt: skip
    return [r.moves(i) for i in range(games)]


def positions(moves: list[int]) -> tuple[list[tuple[list[int], list[int], int, int]], int | None]:
    """Every position of a game (counts, owners, player to move, ply) and the winner."""
    g = colorwars.Game(width=W, height=H, rules="colorwars")
    out = []
    for m in moves:
        out.append((g.counts(), g.owners(), g.to_move, g.ply))
        g.play(m)
    return out, g.winner


def analyse(label: str, games: list[list[int]]) -> None:
    held: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # kind -> [taken, held]
    exposed = [0, 0]  # positions with facing loaded cells: [mover won, total]
    overall = [0, 0]
    material = {ply: [0, 0] for ply in (10, 16, 22)}  # [more orbs won, decided positions]
    cells_lead = {ply: [0, 0] for ply in (10, 16, 22)}
    for moves in games:
        pos, winner = positions(moves)
        for i, (counts, owners, mover, ply) in enumerate(pos):
            overall[0] += winner == mover
            overall[1] += 1
            if ply >= 4 and i + 4 < len(pos):
                later = pos[i + 4][1]
                for c in range(W * H):
                    if owners[c] >= 0:
                        taken = later[c] >= 0 and later[c] != owners[c]
                        held[kind(c)][0] += taken
                        held[kind(c)][1] += 1
            loaded = [counts[c] >= CAPACITY[c] and counts[c] > 0 for c in range(W * H)]
            facing = any(
                loaded[c] and owners[c] == mover
                and any(loaded[n] and owners[n] not in (-1, mover) for n in neighbours(c))
                for c in range(W * H)
            )  # fmt: skip
            if ply >= 2 and facing:
                exposed[0] += winner == mover
                exposed[1] += 1
            if ply in material:
                orbs = [
                    sum(n for n, o in zip(counts, owners, strict=True) if o == p) for p in (0, 1)
                ]
                cells = [owners.count(p) for p in (0, 1)]
                if orbs[0] != orbs[1]:
                    material[ply][0] += winner == int(np.argmax(orbs))
                    material[ply][1] += 1
                if cells[0] != cells[1]:
                    cells_lead[ply][0] += winner == int(np.argmax(cells))
                    cells_lead[ply][1] += 1
    print(f"\n  {label}, {len(games)} games")
    rates = ", ".join(f"{k} {t / max(n, 1):.1%}" for k, (t, n) in sorted(held.items()))
    print(f"  2. a held cell is taken within 4 plies: {rates}")
    base = overall[0] / overall[1]
    print(f"  3. player to move wins {exposed[0] / max(exposed[1], 1):.1%} of {exposed[1]:,} "
          f"positions with facing loaded cells (all positions: {base:.1%})")  # fmt: skip
    for ply in material:
        m, c = material[ply], cells_lead[ply]
        print(f"  4. at ply {ply}: more orbs wins {m[0] / max(m[1], 1):.1%} ({m[1]:,} games), "
              f"more cells wins {c[0] / max(c[1], 1):.1%} ({c[1]:,})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    openings(args.quick)
    n = 300 if args.quick else 3000
    print("\n2-4. recorded games")
    analyse("random vs random", recorded_games(n, "random"))
    analyse("greedy vs greedy", recorded_games(n, "greedy"))


if __name__ == "__main__":
    main()
