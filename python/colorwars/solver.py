"""``colorwars.solve``: exact results for small boards, two players, from the empty board."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars._files import atomic_write, read_sealed, seal
from colorwars.errors import ConfigError, FileError, SearchLimitError
from colorwars.rules import DEFAULT_RULES, Rules, RulesLike, resolve

__all__ = ["SearchLimitError", "Solution", "cache_path", "solve"]

MAX_DEPTH = int(_core.LIMITS["max_solver_depth"])  # the core's limit (src/limits.rs)


@dataclass(frozen=True)
class Solution:
    """The game-theoretic result of a board or a position: ``winner`` wins in ``plies`` plies
    with perfect play from there (the winner as fast as it can, the loser holding out as long
    as it can); ``line`` is a principal variation. For a position (``solve(game)``),
    ``position`` is its notation and ``moves`` maps every legal cell to the exact
    ``(winner, plies)`` after playing it (``plies`` counted from the position, the move
    included); a board's solution (from the empty board) has ``position=None`` and no moves."""

    width: int
    height: int
    rules: str
    winner: int
    plies: int
    line: list[int]
    positions: int
    seconds: float
    position: str | None = None
    moves: dict[int, tuple[int, int]] = field(default_factory=dict)

    def winning_moves(self) -> list[int]:
        """The legal cells after which the player to move still wins (none in a lost
        position), fastest win first."""
        to_move = PLAYER_LETTERS.index(self.position.split()[4]) if self.position else 0
        wins = [(plies, cell) for cell, (w, plies) in self.moves.items() if w == to_move]
        return [cell for _, cell in sorted(wins)]

    def line_names(self) -> list[str]:
        return [f"{column_name(c % self.width)}{c // self.width + 1}" for c in self.line]

    def __str__(self) -> str:
        board = f"{self.width}x{self.height} {self.rules}"
        where = f"from {self.position}" if self.position else board
        effort = f"{self.positions:,} positions, {self.seconds:.2f} s"
        if self.plies == 0:  # the game is already won: no line to give
            return f"{where}: player {PLAYER_LETTERS[self.winner]} has won ({effort})"
        return (
            f"{where}: player {PLAYER_LETTERS[self.winner]} "
            f"wins in {self.plies} plies ({effort}); line {' '.join(self.line_names())}"
        )


#: The cache is a sealed file (``colorwars._files``): this kind and format, its entries in the
#: header under a BLAKE2b digest. The JSON file of earlier versions (``solutions.json``,
#: without a checksum) is never read.
CACHE_KIND = "solutions"
CACHE_FORMAT = 1


def cache_path() -> Path:
    """Where solved results are kept: ``$COLORWARS_CACHE_DIR/solutions.cache``, else
    ``$XDG_CACHE_HOME/colorwars/solutions.cache``, else ``~/.cache/colorwars/...``."""
    base = os.environ.get("COLORWARS_CACHE_DIR")
    if base:
        return Path(base) / "solutions.cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return root / "colorwars" / "solutions.cache"


def _load(path: Path) -> dict[str, object]:
    """The cache's entries, checked (format, version, checksum) before any is used: a damaged
    cache is a ``FileError`` naming it, never a result. No file: no entries."""
    hint = "; delete it to start a new cache, or solve with cache=False (--no-cache)"
    for folder in (path.parent, *path.parent.parents):  # a setting that names a file
        # os.path's checks say False where a folder cannot be searched (Path's raise).
        if os.path.exists(folder) and not os.path.isdir(folder):
            where = (
                "COLORWARS_CACHE_DIR"
                if os.environ.get("COLORWARS_CACHE_DIR")
                else "the cache folder (XDG_CACHE_HOME or ~/.cache)"
            )
            raise FileError(
                f"cannot use the solver cache {path}: {folder} is a file, not a folder; point "
                f"{where} at a folder, or solve with cache=False (--no-cache)"
            )
    try:
        sealed = read_sealed(path, CACHE_KIND, CACHE_FORMAT, "solver cache")
    except FileError as e:
        raise FileError(f"{e}{hint}") from None
    if sealed is None:
        return {}
    entries = sealed[0].get("entries")
    if not isinstance(entries, dict):
        raise FileError(f"invalid solver cache {path}: it holds no table of entries{hint}")
    return entries


def _cache_key(width: int, height: int, rules: str) -> str:
    # Results are kept per engine version: a later version recomputes them.
    return f"{width}x{height} {rules} (colorwars {_version()})"


def _version() -> str:
    return _core.VERSION


def _solve_position(
    game: object,
    max_depth: int,
    progress: Callable[[int], object] | None,
    rules: RulesLike = DEFAULT_RULES,
) -> Solution:
    native = check.two_player_game(game, "solve", rules)
    text = native.to_text()
    found = _core.solve_position(native, max_depth, progress=progress)
    if found is None:
        raise SearchLimitError(
            f"{text}: no result proven within {max_depth} plies; raise max_depth to search deeper"
        )
    winner, plies, line, positions, seconds, each = found
    rules = Rules(native.opening, native.burst).name
    moves = {cell: (w, p) for cell, w, p in each}
    return Solution(
        native.width, native.height, rules, winner, plies, line, positions, seconds, text, moves
    )


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
            and s.position is None
            and s.moves == {}
        ):
            return None
        game = ReferenceGame(width, height, 2, rules)
        for cell in line:
            game.play(cell)
    except (TypeError, ValueError):
        return None
    return s if game.winner == s.winner else None


def solve(
    width: int | str | Any,
    height: int | None = None,
    rules: RulesLike = DEFAULT_RULES,
    max_depth: int = 200,
    cache: bool = True,
    progress: Callable[[int], object] | None = None,
) -> Solution:
    """Solves a two-player game exactly: ``solve(width, height, rules=...)`` (or
    ``solve("WxH", rules=...)``) from the empty board, or ``solve(game)`` from a game's
    current position (a ``colorwars.Game`` or a reference game), with the exact result of
    every legal move in ``.moves``.

    Board results are kept in a cache file (``cache_path()``), so a rerun does not recompute
    them. Raises ``SearchLimitError`` if no result is proven within ``max_depth`` plies; Ctrl-C
    stops a long search. ``progress(positions)`` is called at the start and then about ten
    times a second with the positions searched so far (a board found in the cache is not
    searched: no call).

    >>> s = solve(2, 3, rules="classic", cache=False)
    >>> s.winner, s.plies
    (0, 7)
    >>> import colorwars
    >>> g = colorwars.Game(2, 3, rules="classic")
    >>> _ = g.play("a1")
    >>> after = solve(g)
    >>> after.winner, after.plies, after.moves[1]
    (0, 6, (0, 2))
    """
    if progress is not None and not callable(progress):
        check.fail(ConfigError, "progress", progress, "expected a function(positions) or None")
    sides = check.board(width, height, "solve")
    if sides is None:
        depth = check.whole(max_depth, "max_depth", 1, MAX_DEPTH)
        return _solve_position(width, depth, progress, rules)
    r = resolve(rules)
    width, height = sides
    max_depth = check.whole(max_depth, "max_depth", 1, MAX_DEPTH, ConfigError)
    cache = check.flag(cache, "cache")
    key = _cache_key(width, height, r.name)
    path = cache_path()
    beyond = SearchLimitError(
        f"{width}x{height} {r.name}: no result proven within {max_depth} plies; raise "
        "max_depth to search deeper"
    )
    if cache:
        hit = _checked(_load(path).get(key), width, height, r.name)
        if hit is not None:
            if hit.plies > max_depth:  # as the search would: the cache answers the same
                raise beyond
            return hit
    found = _core.solve(check.config(width, height, 2, r), max_depth, progress=progress)
    if found is None:
        raise beyond
    winner, plies, line, positions, seconds = found
    solution = Solution(width, height, r.name, winner, plies, line, positions, seconds)
    if cache:
        entries = _load(path)
        entries[key] = asdict(solution)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, seal(CACHE_KIND, CACHE_FORMAT, {"entries": entries}), "cache")
        except (OSError, FileError):
            pass  # a read-only home: the result is still returned
    return solution
