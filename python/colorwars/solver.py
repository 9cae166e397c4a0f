"""``colorwars.solve``: exact results for small boards, two players, from the empty board."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from colorwars import _core
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars.errors import ColorwarsError, ConfigError, InvalidSizeError
from colorwars.rules import RulesLike, resolve

__all__ = ["SearchLimitError", "Solution", "cache_path", "solve"]


class SearchLimitError(ColorwarsError):
    """The solver did not prove a result within its depth limit."""


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
    for v, what in ((width, "width"), (height, "height")):
        if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= 32:
            raise InvalidSizeError(f"invalid board size: {what} {v!r} must be from 2 to 32")
    if (
        isinstance(max_depth, bool)
        or not isinstance(max_depth, int)
        or not 1 <= max_depth <= 10_000
    ):
        raise ConfigError(f"invalid max_depth {max_depth!r}: expected 1 to 10000")
    key = f"{width}x{height} {r.name}"
    path = cache_path()
    if cache:
        hit = _load(path).get(key)
        if isinstance(hit, dict):
            try:
                return Solution(**hit)  # type: ignore[arg-type]
            except TypeError:
                pass  # an entry from another version: solve again
    found = _core.solve(width, height, r.opening, r.burst, max_depth)
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
