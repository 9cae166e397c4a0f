"""Views of one game as arrays, shared by the ecosystem adapters (Gymnasium, PettingZoo,
OpenSpiel) so that they all see a game the way ``VectorEnv`` does.

- ``planes(game)``: ``uint8`` ``(players, height, width)``; plane ``k`` holds the orb count of
  every cell owned by player ``(to_move + k) % players`` (0 elsewhere): plane 0 is always the
  player to move, as in ``VectorEnv``.
- ``action_mask(game)``: ``int8`` ``(cells,)``, 1 where the player to move may play.
- ``rgb_array(game)``: ``uint8`` ``(height * px, width * px, 3)``, a picture of the board.

>>> import colorwars
>>> g = colorwars.Game(width=3, height=2)
>>> _ = g.play("b1")
>>> planes(g)[1].tolist()   # seen by b (to move): plane 1 is a's orbs
[[0, 3, 0], [0, 0, 0]]
>>> action_mask(g).tolist()
[1, 0, 1, 1, 1, 1]
>>> rgb_array(g, px=8).shape
(16, 24, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_COLOURS
from colorwars.errors import NotAGameError

__all__ = ["action_mask", "planes", "rgb_array"]


def _game(game: Any, call: str) -> Any:
    """``game`` once it is a ``colorwars.Game`` or a reference game; ``NotAGameError``
    naming ``call`` otherwise (it was an ``AttributeError`` from deep inside)."""
    from colorwars.game import Game
    from colorwars.reference import Game as ReferenceGame

    if not isinstance(game, Game | ReferenceGame | _core.NativeGame):
        raise NotAGameError(
            f"views.{call} shows a colorwars.Game or colorwars.reference.Game, not "
            f"{type(game).__name__}"
        )
    return game


def planes(game: Any) -> npt.NDArray[np.uint8]:
    """The board from the point of view of the player to move (``VectorEnv``'s layout)."""
    game = _game(game, "planes")
    p, h, w = game.players, game.height, game.width
    counts = np.asarray(game.counts(), dtype=np.uint8)
    owners = np.asarray(game.owners(), dtype=np.int16)
    seat = (owners - game.to_move) % p  # plane of each owned cell
    out = np.zeros((p, h * w), dtype=np.uint8)
    owned = owners >= 0
    out[seat[owned], np.flatnonzero(owned)] = counts[owned]
    return out.reshape(p, h, w)


def action_mask(game: Any) -> npt.NDArray[np.int8]:
    """1 for every cell the player to move may play (none once the game is won)."""
    game = _game(game, "action_mask")
    mask = np.zeros(game.width * game.height, dtype=np.int8)
    mask[game.legal_moves()] = 1
    return mask


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def rgb_array(game: Any, px: int = 32) -> npt.NDArray[np.uint8]:
    """A picture of the board, ``px`` pixels a cell: each owned cell in its owner's colour
    (as in the notebook pictures), lighter for fewer orbs, with one white pip per orb
    (``px`` from 4 to 256)."""
    game = _game(game, "rgb_array")
    px = check.whole(px, "px", 4, 256)
    h, w = game.height, game.width
    image = np.full((h * px, w * px, 3), 244, dtype=np.uint8)
    image[::px, :, :] = 153  # grid lines
    image[:, ::px, :] = 153
    counts, owners = game.counts(), game.owners()
    pip = max(1, px // 8)
    for i, (n, owner) in enumerate(zip(counts, owners, strict=True)):
        if n == 0:
            continue
        y, x = divmod(i, w)
        top, left = y * px + 1, x * px + 1
        shade = np.array(_rgb(PLAYER_COLOURS[owner]), dtype=np.float64)
        strength = 0.55 + 0.15 * min(n, 3)
        fill = (shade * strength + 244 * (1 - strength)).astype(np.uint8)
        image[top : top + px - 1, left : left + px - 1] = fill
        for k in range(min(n, 7)):
            row, col = divmod(k, 4)
            py = top + px // 4 + row * (px // 3)
            px_ = left + px // 8 + col * (px // 4)
            image[py : py + pip, px_ : px_ + pip] = 255
    return image
