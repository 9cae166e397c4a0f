"""The strongest player at about a second a move for a game: the default wherever people play
(``colorwars play``'s ``ai`` seat and its hint, the web game's Hard level and its hint, and
``Perfect``'s fallback where no proof is found). docs/learned.md, "Where people play", gives
the matches that chose it:

- two players, classic rules, sides up to ``MAX_SIDE``: ``Zero`` (PUCT with the shipped
  classic network), which beat alpha-beta with the learned evaluation head to head at a
  second a move on 8 x 8 and 9 x 6;
- two players otherwise: alpha-beta with the learned evaluation (on the Color Wars boards
  measured, Zero was level with it or behind);
- more players: MCTS (alpha-beta and Zero play two-player games only).
"""

from __future__ import annotations

from typing import Any

from colorwars.players import MCTS, AlphaBeta
from colorwars.rules import RulesLike, resolve

__all__ = ["MAX_SIDE", "strongest", "zero_is_strongest"]

MAX_SIDE = 12
"""The longest side Zero plays (``colorwars.zero.player.MAX_SIDE``, kept equal by a test:
this module does not import the network's modules until Zero is asked for)."""


def zero_is_strongest(players: int, rules: RulesLike, width: int, height: int) -> bool:
    """Whether ``Zero`` is the strongest at a second for a game of ``players`` on a
    ``width`` x ``height`` board under ``rules``: two players, classic rules (``none`` opening,
    ``subtract`` burst), sides up to ``MAX_SIDE``."""
    r = resolve(rules)
    return (
        players == 2
        and (r.opening, r.burst) == ("none", "subtract")
        and max(width, height) <= MAX_SIDE
    )


def strongest(
    players: int,
    rules: RulesLike | None = None,
    width: int | None = None,
    height: int | None = None,
    *,
    time: float = 1.0,
    seed: int = 0,
) -> Any:
    """The strongest player for the game at ``time`` seconds a move: ``Zero`` where
    ``zero_is_strongest``, else alpha-beta with the learned evaluation for two players, MCTS
    for more. Without the rules and board (any of them ``None``) Zero is not chosen: the
    choice is the one for a board Zero does not play."""
    if (
        rules is not None
        and width is not None
        and height is not None
        and zero_is_strongest(players, rules, width, height)
    ):
        from colorwars.zero.player import Zero

        return Zero(time=time, seed=seed)
    if players == 2:
        return AlphaBeta(time=time, seed=seed, eval="learned")
    return MCTS(simulations=0, time=time, seed=seed)
