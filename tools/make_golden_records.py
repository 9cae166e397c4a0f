"""Writes the golden game records in seeds/games/ (run from the repository root).

Each record is a seeded random game played on the reference engine, with its result and final
position. The corpus spans both rule sets and the mixed ones, boards from 2x2 to 9x9 and 2 to 8
players, and includes games whose last cascade could never settle (RULES.md §3.3): under
subtract, a final board holding more orbs than its total capacity has no stable position, so the
cascade only ended because the game was decided.

    python tools/make_golden_records.py
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from colorwars import reference
from colorwars.record import GameRecord
from colorwars.rules import Rules

OUT = Path("seeds/games")

# (rules, width, height, players, how many)
PLAN = [
    ("colorwars", 2, 2, 2, 2),
    ("colorwars", 3, 3, 2, 2),
    ("colorwars", 5, 5, 2, 4),
    ("colorwars", 6, 4, 3, 2),
    ("colorwars", 8, 8, 2, 2),
    ("colorwars", 7, 7, 4, 1),
    ("colorwars", 9, 9, 8, 1),
    ("classic", 3, 3, 2, 2),
    ("classic", 5, 5, 2, 2),
    ("classic", 6, 6, 3, 2),
    ("classic", 8, 8, 2, 2),
    ("classic", 4, 6, 5, 1),
    ("classic", 9, 7, 8, 1),
    ("drop3+subtract", 4, 4, 2, 2),
    ("drop3+subtract", 6, 5, 3, 1),
    ("none+empty", 5, 5, 2, 2),
    ("none+empty", 6, 6, 4, 1),
]
NEVER_SETTLING = [("classic", 2, 2, 2), ("classic", 2, 3, 2), ("classic", 3, 2, 3),
                  ("classic", 3, 3, 2), ("drop3+subtract", 2, 2, 2)]  # fmt: skip
NEVER_SETTLING_COUNT = 6


def capacity(width: int, height: int) -> int:
    g = reference.Game(width, height)
    return sum(g._capacity(c) for c in range(width * height))


def random_game(rules: str, width: int, height: int, players: int, seed: int) -> GameRecord:
    rng = random.Random(seed)
    first = rng.randrange(players)
    g = reference.Game(width, height, players, rules, first)
    names = []
    while g.winner is None:
        cell = rng.choice(g.legal_moves())
        names.append(g.cell_name(cell))
        g.play(cell)
    return GameRecord(width, height, Rules.parse(rules), players, first, tuple(names))


def never_settles(record: GameRecord) -> bool:
    """Under subtract, more orbs than the board's capacity cannot come to rest."""
    game = record.play_all(reference.Game)
    return record.rules.burst == "subtract" and sum(game.counts()) > capacity(
        record.width, record.height
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.cwr"):
        old.unlink()
    records: list[tuple[GameRecord, str]] = []
    seed = 1
    for rules, width, height, players, count in PLAN:
        for _ in range(count):
            records.append((random_game(rules, width, height, players, seed), ""))
            seed += 1
    found = 0
    seed = 1000
    while found < NEVER_SETTLING_COUNT:
        rules, width, height, players = NEVER_SETTLING[found % len(NEVER_SETTLING)]
        record = random_game(rules, width, height, players, seed)
        seed += 1
        if never_settles(record):
            records.append((record, "never-settles"))
            found += 1
    for number, (record, tag) in enumerate(records, 1):
        game = record.play_all(reference.Game)
        note = f"seeded random game {number}"
        if tag:
            note += (
                f"; the last cascade could never settle ({sum(game.counts())} orbs on a board of "
                f"capacity {capacity(record.width, record.height)}): it stops once decided"
            )
        full = replace(record.completed(reference.Game), note=note)
        name = (
            f"{number:02d}-{record.rules.name.replace('+', '-')}-{record.width}x{record.height}"
            f"-{record.players}p{'-never-settles' if tag else ''}.cwr"
        )
        (OUT / name).write_text(full.to_text(), encoding="utf-8")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
