"""The torture suite: games: every method with bad arguments, and nothing changes when a call is
rejected."""

from __future__ import annotations

from typing import Any

import pytest
import torture_core as tc
from colorwars import reference
from hypothesis import given
from hypothesis import strategies as st
from torture_values import (
    Arg,
    bad_values,
    ints,
    must_reject,
)

from torture.common import (
    CATALOGUE,
    ENGINES,
    FUZZ,
    game_pool,
)


def torture_game(findings: tc.Findings, g: Any, value: object) -> Any:
    """``value`` as the argument of every method of game ``g``; returns the game to go on
    with (a fresh copy of the position if a call broke it)."""
    engine = "reference.Game" if isinstance(g, reference.Game) else "Game"
    move = Arg("move", "move", hi=g.cells)
    player = Arg("player", "int", 0, g.players - 1)
    shown = tc.safe_repr(value)
    for method, arg in (
        ("play", move),
        ("is_legal", move),
        ("cell", move),
        ("cell_name", move),
        ("orbs", player),
    ):
        where = f"{engine}.{method}"
        example = f"{engine}.from_text({g.to_text()!r}).{method}({shown})"
        before = tc.game_state(g)
        out = tc.probe(findings, where, where, example, getattr(g, method), value)
        reason = must_reject(arg, value)
        if method == "play" and out.ok:
            cell = out.value
            if g.ply != before[3] + 1 or g.moves()[-1:] != [cell]:
                findings.add(where, "play returned a cell other than the one played", example)
            popped = tc.probe(findings, where, f"{engine}.pop", example, g.pop)
            if popped.ok and popped.value != cell:
                findings.add(where, "pop returned another cell than play", example)
        if tc.game_state(g) != before:
            what = "a rejected call" if not out.ok else "an accepted call (then undone)"
            findings.add(where, f"{what} changed the game", example)
            g = type(g).from_text(before[0])
        if out.ok and reason is not None:
            if method == "is_legal":
                if out.value is True:
                    findings.add(where, f"said True ({reason})", example)
            else:
                findings.add(where, f"accepted ({reason})", example)
    return g


def torture_pool(findings: tc.Findings, pool: list[Any], values: list[Any]) -> None:
    for k in range(len(pool)):
        for value in values:
            pool[k] = torture_game(findings, pool[k], value)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_game_methods_with_the_catalogue(engine: str) -> None:
    findings = tc.Findings()
    torture_pool(findings, game_pool(ENGINES[engine]), CATALOGUE)
    findings.check()


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_game_methods_with_generated_values(engine: str) -> None:
    findings = tc.Findings()
    pool = game_pool(ENGINES[engine], seed=1)

    @FUZZ
    @given(st.lists(st.one_of(bad_values(), move_like()), min_size=1, max_size=25))
    def run(values: list[Any]) -> None:
        torture_pool(findings, pool, values)

    run()
    findings.check()


def move_like() -> st.SearchStrategy[Any]:
    """Values near moves: cell indices and names just off the board, (x, y) pairs."""
    column = st.sampled_from(["a", "b", "c", "e", "z", "aa", "af", "zz", "A", "", "\ud800"])
    row = st.one_of(st.integers(-2, 40).map(str), st.sampled_from(["\u00b2", "\u0663", "01"]))
    coordinate = st.one_of(ints(), st.floats(), st.booleans(), st.none())
    return st.one_of(
        st.builds(lambda c, r: c + r, column, row),
        st.tuples(coordinate, coordinate),
        st.tuples(st.integers(-1, 33), st.integers(-1, 33)),
        st.integers(-1, 1100),
    )
