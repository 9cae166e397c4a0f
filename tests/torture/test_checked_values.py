"""Checked value, used value (issue 17, item 4): what a constructor checks is what it keeps.
An object whose ``__index__`` (or ``__float__``) answers differently the second time must not
get past the check and fail later, deep in the engine."""

from __future__ import annotations

from typing import Any

import colorwars
import pytest
from colorwars import ai


class Shifty:
    """A whole number that is ``good`` when first asked and ``bad`` ever after."""

    def __init__(self, good: int, bad: int) -> None:
        self.good, self.bad, self.asked = good, bad, 0

    def __index__(self) -> int:
        self.asked += 1
        return self.good if self.asked == 1 else self.bad

    def __repr__(self) -> str:
        return f"Shifty({self.good}, {self.bad})"


class ShiftyFloat(float):
    """A real number whose ``float()`` is ``good`` the first time and ``bad`` after."""

    asked = 0
    good = 0.5
    bad = float("nan")

    def __float__(self) -> float:
        type(self).asked += 1
        return self.good if type(self).asked == 1 else self.bad


def _fresh_float(good: float, bad: float) -> float:
    cls = type("ShiftyFloatOnce", (ShiftyFloat,), {"asked": 0, "good": good, "bad": bad})
    return cls(good)  # type: ignore[no-any-return]


WHOLE = [
    (ai.Random, "seed", 7, 2**70),
    (ai.Greedy, "seed", 7, -1),
    (ai.MCTS, "seed", 7, 2**70),
    (ai.MCTS, "simulations", 20, 2**70),
    (ai.MCTS, "trees", 1, 10**6),
    (ai.MCTS, "cutoff", 5, -3),
    (ai.AlphaBeta, "depth", 2, 10**6),
    (ai.AlphaBeta, "seed", 7, 2**70),
]


@pytest.mark.parametrize(
    ("cls", "field", "good", "bad"), WHOLE, ids=[f"{c.__name__}.{f}" for c, f, _, _ in WHOLE]
)
def test_a_player_keeps_the_whole_number_it_checked(
    cls: Any, field: str, good: int, bad: int
) -> None:
    """Issue 17 item 4: players kept the caller's object, not the checked int, so a value
    whose ``__index__`` answers differently the second time got past the check and failed
    as ``OverflowError`` or "TypeError: failed to extract field NativeSpec...". They keep
    the checked int."""
    player = cls(**{field: Shifty(good, bad)})
    value = getattr(player, field)
    assert type(value) is int
    assert value == good
    game = colorwars.Game(3, 3)
    assert player.choose(game) in game.legal_moves()


REAL = [
    (ai.MCTS, "c", 0.5),
    (ai.MCTS, "greedy", 0.5),
    (ai.MCTS, "minimax", 0.5),
    (ai.MCTS, "time", 0.05),
    (ai.AlphaBeta, "time", 0.05),
]


@pytest.mark.parametrize(
    ("cls", "field", "good"), REAL, ids=[f"{c.__name__}.{f}" for c, f, _ in REAL]
)
def test_a_player_keeps_the_real_number_it_checked(cls: Any, field: str, good: float) -> None:
    """Issue 17 item 4: the same for the real-number settings (``c``, ``greedy``,
    ``minimax``, ``time``): a value whose ``float()`` changes after the check is kept as the
    checked float."""
    extra = {"simulations": 20} if cls is ai.MCTS and field != "time" else {}
    player = cls(**{field: _fresh_float(good, float("nan"))}, **extra)
    value = getattr(player, field)
    assert type(value) is float
    assert value == good
    game = colorwars.Game(3, 3)
    assert player.choose(game) in game.legal_moves()


def test_flags_are_kept_as_bools() -> None:
    """Issue 17 item 4: MCTS's yes/no settings are kept as the bools they were checked as
    (numpy bools included)."""
    np = pytest.importorskip("numpy")
    player = ai.MCTS(simulations=10, solver=np.bool_(False), reuse=np.bool_(True))
    assert player.solver is False
    assert player.reuse is True


def test_names_are_unchanged() -> None:
    """Issue 17 item 4: keeping the checked value does not change a player's name."""
    assert ai.parse_player("mcts:time=1").name == "mcts(1s)"
    assert ai.MCTS(time=1.0).name == "mcts(1.0s)"
    assert ai.MCTS(simulations=1000, minimax=0, solver=False).name == (
        "mcts(1000)[solver=False,minimax=0]"
    )
    assert ai.AlphaBeta(time=0.5).name == "alphabeta(0.5s)"


def test_a_simulation_with_shifty_players_plays() -> None:
    """Issue 17 item 4: a simulation of players made from shifty values plays with the
    checked values."""
    seats = [ai.MCTS(simulations=Shifty(10, 2**70)), ai.AlphaBeta(depth=Shifty(1, 10**6))]  # type: ignore[arg-type]
    r = colorwars.simulate(games=2, width=3, height=3, seats=seats, seed=Shifty(1, -1))  # type: ignore[arg-type]
    assert r.games == 2
    assert r.seed == 1
