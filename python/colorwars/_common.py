"""Presentation shared by both engines: the move types they accept, the ``Wave`` record and
the ASCII board. No rules live here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from colorwars.errors import InvalidMoveError

Move = int | str | tuple[int, int]

PLAYER_LETTERS = "abcdefgh"


@dataclass(frozen=True, slots=True)
class Wave:
    """One wave of a cascade: the cells that burst together, and the board right after."""

    bursts: tuple[int, ...]
    counts: tuple[int, ...]
    owners: tuple[int, ...]


def column_name(x: int) -> str:
    """Spreadsheet-style column names: a..z, aa, ab, ..."""
    name = ""
    n = x + 1
    while n > 0:
        n, r = divmod(n - 1, 26)
        name = chr(ord("a") + r) + name
    return name


def coerce_move(move: object, width: int, height: int, parse_name: Callable[[str], int]) -> int:
    """A move as a cell index: an int cell, a name such as ``"c3"``, or ``(x, y)``. Raises
    ``InvalidMoveError`` for anything that is not a cell of the board."""
    cells = width * height
    allowed = (
        f"a move is a cell index 0 to {cells - 1}, a name such as 'c3' "
        f"(column a to {column_name(width - 1)}, row 1 to {height}), "
        f"or (x, y) with 0 <= x < {width} and 0 <= y < {height}"
    )
    if isinstance(move, bool):
        raise InvalidMoveError(f"invalid move: {move!r} is not a cell; {allowed}")
    if isinstance(move, int):
        if not 0 <= move < cells:
            raise InvalidMoveError(f"invalid move: cell {move} is not on the board; {allowed}")
        return move
    if isinstance(move, str):
        return parse_name(move)
    if isinstance(move, tuple) and len(move) == 2:
        x, y = move
        if (
            isinstance(x, int)
            and isinstance(y, int)
            and not isinstance(x, bool)
            and not isinstance(y, bool)
            and 0 <= x < width
            and 0 <= y < height
        ):
            return y * width + x
        raise InvalidMoveError(f"invalid move: {move!r} is not on the board; {allowed}")
    raise InvalidMoveError(f"invalid move: {move!r} is not a cell; {allowed}")


def render_board(width: int, counts: Sequence[int], owners: Sequence[int]) -> str:
    """The board as an ASCII grid: row 1 on top, columns lettered; each cell is '.' when empty
    or its count followed by its owner's letter."""
    height = len(counts) // width
    label = len(str(height))
    lines = [" " * label + "".join(f" {column_name(x):>2}" for x in range(width))]
    for y in range(height):
        cells = []
        for x in range(width):
            i = y * width + x
            cells.append(" ." if counts[i] == 0 else f"{counts[i]}{PLAYER_LETTERS[owners[i]]}")
        lines.append(f"{y + 1:>{label}} " + " ".join(cells))
    return "\n".join(lines)


def status_line(to_move: int, winner: int | None, ply: int) -> str:
    if winner is not None:
        return f"ply {ply}: player {PLAYER_LETTERS[winner]} has won"
    return f"ply {ply}: player {PLAYER_LETTERS[to_move]} to move"
