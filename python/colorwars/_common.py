"""Presentation shared by both engines: the move types they accept, the ``Wave`` record and
the ASCII board. No rules live here."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from colorwars._validate import show
from colorwars.errors import InvalidMoveError, InvalidPositionError

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


def _index(value: object) -> int | None:
    """A whole number (``int`` or numpy integer, not ``bool``), else None."""
    if isinstance(value, bool | np.bool_):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def _encodable(text: str) -> bool:
    """False for text that cannot be UTF-8 (lone surrogates such as '\\ud800')."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def notation_text(text: object) -> str:
    """Position notation as text the engines can read, or ``InvalidPositionError``."""
    if not isinstance(text, str) or not _encodable(text):
        raise InvalidPositionError(f"invalid position: expected notation text, got {show(text)}")
    return text


def coerce_move(move: object, width: int, height: int, parse_name: Callable[[str], int]) -> int:
    """A move as a cell index: a whole-number cell (``int`` or numpy integer), a name such as
    ``"c3"``, or ``(x, y)``. Raises ``InvalidMoveError`` for anything that is not a cell of the
    board."""
    cells = width * height
    allowed = (
        f"a move is a cell index 0 to {cells - 1}, a name such as 'c3' "
        f"(column a to {column_name(width - 1)}, row 1 to {height}), "
        f"or (x, y) with 0 <= x < {width} and 0 <= y < {height}"
    )
    if isinstance(move, str):
        if not _encodable(move) or len(move) > 16:
            raise InvalidMoveError(f"invalid move: {show(move)} is not a cell name; {allowed}")
        return parse_name(move)
    if isinstance(move, tuple) and len(move) == 2:
        x, y = _index(move[0]), _index(move[1])
        if x is not None and y is not None and 0 <= x < width and 0 <= y < height:
            return y * width + x
        raise InvalidMoveError(f"invalid move: {show(move)} is not on the board; {allowed}")
    cell = _index(move)
    if cell is None:
        raise InvalidMoveError(f"invalid move: {show(move)} is not a cell; {allowed}")
    if not 0 <= cell < cells:
        raise InvalidMoveError(f"invalid move: cell {show(move)} is not on the board; {allowed}")
    return cell


BoardRow = tuple[str, list[tuple[int, str, int]]]


def board_layout(
    width: int, counts: Sequence[int], owners: Sequence[int]
) -> tuple[str, list[BoardRow]]:
    """The text layout of a board, shared by every renderer (``str(game)``, the command line):
    the column header, and each row's label with its cells as ``(cell, text, owner)``: row 1
    on top, columns lettered, a cell ``' .'`` when empty (owner -1) or its count followed by
    its owner's letter."""
    height = len(counts) // width
    label = len(str(height))
    header = " " * label + "".join(f" {column_name(x):>2}" for x in range(width))
    rows: list[BoardRow] = []
    for y in range(height):
        cells = []
        for x in range(width):
            i = y * width + x
            if counts[i] == 0:
                cells.append((i, " .", -1))
            else:
                cells.append((i, f"{counts[i]}{PLAYER_LETTERS[owners[i]]}", owners[i]))
        rows.append((f"{y + 1:>{label}} ", cells))
    return header, rows


def render_board(width: int, counts: Sequence[int], owners: Sequence[int]) -> str:
    """The board as an ASCII grid (see ``board_layout``)."""
    header, rows = board_layout(width, counts, owners)
    lines = [header] + [label + " ".join(text for _, text, _ in cells) for label, cells in rows]
    return "\n".join(lines)


def status_line(to_move: int, winner: int | None, ply: int) -> str:
    if winner is not None:
        return f"ply {ply}: player {PLAYER_LETTERS[winner]} has won"
    return f"ply {ply}: player {PLAYER_LETTERS[to_move]} to move"


# Player colours for pictures, in seat order.
PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b",
                  "#e377c2")  # fmt: skip


def render_svg(width: int, counts: Sequence[int], owners: Sequence[int], size: int = 36) -> str:
    """The board as an SVG picture: one square per cell, its orbs as dots in the owner's colour
    (the count written out when there are more than four), column letters and row numbers."""
    height = len(counts) // width
    margin = size // 2
    w, h = margin + width * size + 2, margin + height * size + 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="{size // 3}">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
    ]
    for x in range(width):
        parts.append(
            f'<text x="{margin + x * size + size / 2}" y="{margin * 0.75}" '
            f'text-anchor="middle">{column_name(x)}</text>'
        )
    for y in range(height):
        parts.append(
            f'<text x="{margin / 2}" y="{margin + y * size + size * 0.6}" '
            f'text-anchor="middle">{y + 1}</text>'
        )
        for x in range(width):
            i = y * width + x
            cx, cy = margin + x * size, margin + y * size
            parts.append(
                f'<rect x="{cx}" y="{cy}" width="{size}" height="{size}" fill="#f4f4f4" '
                'stroke="#999"/>'
            )
            n = counts[i]
            if n == 0:
                continue
            colour = PLAYER_COLOURS[owners[i]]
            if n > 4:
                parts.append(
                    f'<text x="{cx + size / 2}" y="{cy + size * 0.62}" text-anchor="middle" '
                    f'fill="{colour}" font-weight="bold">{n}</text>'
                )
                continue
            spots = [(0.5, 0.5)] if n == 1 else [(0.35, 0.5), (0.65, 0.5), (0.5, 0.25), (0.5, 0.75)]
            if n == 3:
                spots = [(0.3, 0.62), (0.7, 0.62), (0.5, 0.3)]
            for dx, dy in spots[:n]:
                parts.append(
                    f'<circle cx="{cx + dx * size}" cy="{cy + dy * size}" r="{size / 8}" '
                    f'fill="{colour}"/>'
                )
    parts.append("</svg>")
    return "".join(parts)
