"""The board in colour on a terminal, and the player styles: one implementation for every
command that draws a board (``colorwars play`` and ``colorwars replay``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from colorwars._common import PLAYER_COLOURS, board_layout

__all__ = ["BURST", "LAST", "PLAYER_STYLES", "board_text"]

# One style per player, in seat order: the web game's colours (PLAYER_COLOURS), and a second
# difference beyond hue for colour-blind players: alternate seats are coloured letters and
# coloured blocks, and within each kind bold, underline and italic differ. The letter is
# always written in every cell.
PLAYER_STYLES = (
    f"bold {PLAYER_COLOURS[0]}",
    f"bold white on {PLAYER_COLOURS[1]}",
    f"bold underline {PLAYER_COLOURS[2]}",
    f"bold black on {PLAYER_COLOURS[3]}",
    f"bold italic {PLAYER_COLOURS[4]}",
    f"bold underline black on {PLAYER_COLOURS[5]}",
    f"bold italic underline {PLAYER_COLOURS[6]}",
    f"bold italic white on {PLAYER_COLOURS[7]}",
)
# Marks written in the gap before a cell (so they show without colour too).
LAST = ">"  # the cell just played
BURST = "*"  # a cell bursting in the wave shown


def board_text(
    width: int, counts: Sequence[int], owners: Sequence[int], marks: Mapping[int, str] = {}
) -> Text:
    """The board in each player's style, in the layout of ``str(game)``; ``marks`` writes a
    character in the gap before a cell (``>`` the cell just played, ``*`` a burst), and a
    bursting cell is drawn in reverse."""
    header, rows = board_layout(width, counts, owners)
    text = Text(header)
    for label, cells in rows:
        # The label ends with the gap before the first cell, which is the first cell's mark.
        text.append("\n" + label[:-1])
        for i, cell, owner in cells:
            mark = marks.get(i, " ")
            style = "dim" if owner < 0 else PLAYER_STYLES[owner]
            text.append(mark, style="bold" if mark != " " else "")
            text.append(cell, style=style + (" reverse" if mark == BURST else ""))
    return text
