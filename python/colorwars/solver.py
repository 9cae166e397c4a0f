"""``colorwars.solve``: exact results for small boards, two players, from the empty board."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars.errors import ConfigError, SearchLimitError
from colorwars.rules import RulesLike, resolve

__all__ = ["SearchLimitError", "Solution", "cache_path", "solve"]

MAX_DEPTH = 10_000


@dataclass(frozen=True)
class Solution:
    """The game-theoretic result of a board: ``winner`` (seat 0 moves first) wins in
    ``plies`` plies with perfect play (the winner as fast as it can, the loser holding out as
    long as it can); ``line`` is a principal variation."""

    width: int
    height: int
    rules: str
    winner: int
    plies: int
    line: list[int]
    positions: int
    seconds: float

    def line_names(self) -> list[str]:
        return [f"{column_name(c % self.width)}{c // self.width + 1}" for c in self.line]

    def __str__(self) -> str:
        return (
            f"{self.width}x{self.height} {self.rules}: player {PLAYER_LETTERS[self.winner]} "
            f"wins in {self.plies} plies ({self.positions:,} positions, {self.seconds:.2f} s); "
            f"line {' '.join(self.line_names())}"
        )


def cache_path() -> Path:
    """Where solved results are kept: ``$COLORWARS_CACHE_DIR/solutions.json``, else
    ``~/.cache/colorwars/solutions.json``."""
    base = os.environ.get("COLORWARS_CACHE_DIR")
    root = Path(base) if base else Path.home() / ".cache" / "colorwars"
    return root / "solutions.json"


def _load(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _checked(entry: object, width: int, height: int, rules: str) -> Solution | None:
    """A cached solution, if the entry is well formed and its line replays (on the reference
    engine) to a win by its winner in its plies; None otherwise (a damaged or foreign cache
    entry is solved again, never trusted)."""
    from colorwars.reference import Game as ReferenceGame

    if not isinstance(entry, dict):
        return None
    try:
        s = Solution(**entry)
        line = s.line
        if not (
            (s.width, s.height, s.rules) == (width, height, rules)
            and type(s.winner) is int
            and type(s.plies) is int
            and type(s.positions) is int
            and type(s.seconds) is float
            and isinstance(line, list)
            and len(line) == s.plies
            and all(type(c) is int for c in line)
        ):
            return None
        game = ReferenceGame(width, height, 2, rules)
        for cell in line:
            game.play(cell)
    except (TypeError, ValueError):
        return None
    return s if game.winner == s.winner else None


def solve(
    width: int, height: int, rules: RulesLike = "classic", max_depth: int = 200, cache: bool = True
) -> Solution:
    """Solves the two-player game on a ``width x height`` board from the empty board.

    Results are kept in a cache file (``cache_path()``), so a rerun does not recompute them.
    Raises ``SearchLimitError`` if no result is proven within ``max_depth`` plies.

    >>> s = solve(2, 3, rules="classic", cache=False)
    >>> s.winner, s.plies
    (0, 7)
    """
    r = resolve(rules)
    width, height = check.size(width, height)
    max_depth = check.whole(max_depth, "max_depth", 1, MAX_DEPTH, ConfigError)
    cache = check.flag(cache, "cache")
    key = f"{width}x{height} {r.name}"
    path = cache_path()
    if cache:
        hit = _checked(_load(path).get(key), width, height, r.name)
        if hit is not None:
            return hit
    found = _core.solve(check.config(width, height, 2, r), max_depth)
    if found is None:
        raise SearchLimitError(
            f"{key}: no result proven within {max_depth} plies; raise max_depth to search deeper"
        )
    winner, plies, line, positions, seconds = found
    solution = Solution(width, height, r.name, winner, plies, line, positions, seconds)
    if cache:
        entries = _load(path)
        entries[key] = asdict(solution)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(entries, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass  # a read-only home: the result is still returned
    return solution
