"""The torture suite: numpy integers are whole numbers wherever a Python int is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import colorwars
import numpy as np
import pytest
import torture_core as tc
from colorwars import ai, reference

from torture.common import (
    G0,
    R0,
    R1,
    U64,
    _same,
)

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _numpy_cases(t: type) -> list[tuple[str, Callable[[Callable[[int], Any]], Any]]]:
    """(what, call(int_type)): each call made once with ``int`` and once with the numpy type."""

    def game_after(n: Callable[[int], Any], engine: Any) -> Any:
        g = engine(n(5), n(5), n(2), "colorwars", n(1))
        g.play(n(12))
        g.play((n(0), n(0)))
        return (g, g.is_legal(n(12)), g.cell(n(7)), g.cell_name(n(12)), g.orbs(n(1)))

    def env_after(n: Callable[[int], Any]) -> Any:
        env = colorwars.VectorEnv(
            num_envs=n(3),
            width=n(4),
            height=n(4),
            players=n(2),
            first=n(1),
            max_plies=n(30),
            threads=n(1),
        )
        env.reset(seed=n(7))
        obs = env.step(np.array([5, 6, 9], dtype=t))[0].copy()
        return (obs, env.board(n(2))["counts"])

    return [
        ("Game(...).play/is_legal/cell/cell_name/orbs", lambda n: game_after(n, colorwars.Game)),
        ("reference.Game(...) likewise", lambda n: game_after(n, reference.Game)),
        (
            "simulate(games=, width=, height=, players=, seed=, threads=, max_plies=, first=)",
            lambda n: colorwars.simulate(
                games=n(6),
                width=n(4),
                height=n(4),
                players=n(2),
                seed=n(9),
                threads=n(1),
                max_plies=n(60),
                first=n(1),
            ),
        ),
        ("VectorEnv(...).reset(seed=)/step(array)/board(i)", env_after),
        (
            "ai.MCTS(simulations=, trees=, seed=).choose",
            lambda n: ai.MCTS(simulations=n(30), trees=n(1), seed=n(4)).choose(colorwars.Game()),
        ),
        (
            "ai.AlphaBeta(depth=, seed=).choose",
            lambda n: ai.AlphaBeta(depth=n(2), seed=n(3)).choose(colorwars.Game()),
        ),
        ("ai.Random(seed=).choose", lambda n: ai.Random(seed=n(5)).choose(colorwars.Game())),
        (
            "ai.match(seats, games, width, height, seed=, first_move=, threads=, max_plies=)",
            lambda n: ai.match(
                [R0, R1],
                n(4),
                n(3),
                n(3),
                seed=n(2),
                first_move=n(4),
                threads=n(1),
                max_plies=n(100),
            ),
        ),
        (
            "ai.tournament(players, games_per_pair, width, height, seed=, threads=)",
            lambda n: ai.tournament([R0, G0], n(2), n(3), n(3), seed=n(1), threads=n(1)),
        ),
        (
            "ai.opening_win_rates(player_a, player_b, games_per_cell, width, height, seed=)",
            lambda n: ai.opening_win_rates(R0, R1, n(1), n(2), n(2), seed=n(1), threads=n(1)),
        ),
        (
            "solve(width, height, max_depth=)",
            lambda n: colorwars.solve(n(2), n(3), max_depth=n(100), cache=False),
        ),
    ]


@pytest.mark.parametrize("int_type", INT_TYPES, ids=[t.__name__ for t in INT_TYPES])
def test_numpy_integers_are_accepted_like_ints(int_type: type) -> None:
    findings = tc.Findings()
    for what, call in _numpy_cases(int_type):
        tc.tried("numpy integers")
        expected = call(int)
        try:
            got = call(int_type)
        except BaseException as e:
            findings.add(
                what, f"refused {int_type.__name__}: {tc.class_name(e)}", what, str(e)[:160]
            )
            continue
        if not _same(expected, got):
            findings.add(what, f"{int_type.__name__} gave another result than int", what)
    # The largest seed, as the unsigned type that holds it.
    if int_type is np.uint64:
        for what, call in [
            ("ai.Random(seed=np.uint64(2**64-1))", lambda: ai.Random(seed=np.uint64(U64))),
            (
                "VectorEnv.reset(seed=np.uint64(2**64-1))",
                lambda: colorwars.VectorEnv(num_envs=1, threads=1).reset(seed=np.uint64(U64)),
            ),
        ]:
            tc.tried("numpy integers")
            try:
                call()
            except BaseException as e:
                findings.add(what, f"refused: {tc.class_name(e)}", what, str(e)[:160])
    findings.check()
