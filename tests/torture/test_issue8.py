"""The torture suite: specific promises of issue 8."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import colorwars
import pytest
import torture_core as tc
from colorwars import ai, reference

from torture.common import G0, R0, R1


def _no(example: str, call: Callable[[], Any]) -> tuple[str, Callable[[], Any]]:
    return (example, call)


MUST_REJECT: list[tuple[str, Callable[[], Any]]] = [
    _no("ai.match(seats, 10, threads=-1)", lambda: ai.match([R0, R1], 10, threads=-1)),
    _no("ai.match(seats, 10, max_plies=0)", lambda: ai.match([R0, R1], 10, max_plies=0)),
    _no("ai.match(seats, 10, max_plies=-1)", lambda: ai.match([R0, R1], 10, max_plies=-1)),
    _no("ai.match(seats, 10, width=2**63)", lambda: ai.match([R0, R1], 10, width=2**63)),
    _no("ai.match(seats, 10, first_move=-1)", lambda: ai.match([R0, R1], 10, first_move=-1)),
    _no("ai.match(seats, 10, first_move=25)", lambda: ai.match([R0, R1], 10, first_move=25)),
    _no("ai.match(seats, -1)", lambda: ai.match([R0, R1], -1)),
    _no("ai.match([], 1)", lambda: ai.match([], 1)),
    _no("ai.match([R0], 1)", lambda: ai.match([R0], 1)),
    _no("ai.match([R0] * 9, 1)", lambda: ai.match([R0] * 9, 1)),
    _no("ai.MCTS(c=inf)", lambda: ai.MCTS(c=math.inf)),
    _no("ai.MCTS(c=nan)", lambda: ai.MCTS(c=math.nan)),
    _no("ai.MCTS(time=inf)", lambda: ai.MCTS(time=math.inf)),
    _no("ai.MCTS(greedy=nan)", lambda: ai.MCTS(greedy=math.nan)),
    _no("ai.MCTS(simulations=0)", lambda: ai.MCTS(simulations=0)),
    _no("ai.MCTS(trees=0)", lambda: ai.MCTS(trees=0)),
    _no("ai.AlphaBeta(depth=0)", lambda: ai.AlphaBeta(depth=0)),
    _no("ai.Random(seed=-1)", lambda: ai.Random(seed=-1)),
    _no("ai.Random(seed=2**64)", lambda: ai.Random(seed=2**64)),
    _no("ai.tournament([R0], 10)", lambda: ai.tournament([R0], 10)),
    _no("ai.tournament([R0, G0], -1)", lambda: ai.tournament([R0, G0], -1)),
    _no("ai.tournament([R0, G0], 2, threads=-1)", lambda: ai.tournament([R0, G0], 2, threads=-1)),
    _no("ai.opening_win_rates(R0, R1, -1)", lambda: ai.opening_win_rates(R0, R1, -1)),
    _no(
        "ai.opening_win_rates(R0, R1, 1, threads=-1)",
        lambda: ai.opening_win_rates(R0, R1, 1, 2, 2, threads=-1),
    ),
    _no("simulate(games=-1)", lambda: colorwars.simulate(games=-1)),
    _no("simulate(games=2, max_plies=0)", lambda: colorwars.simulate(games=2, max_plies=0)),
    _no("simulate(games=2, threads=-1)", lambda: colorwars.simulate(games=2, threads=-1)),
    _no("simulate(games=2, first=2)", lambda: colorwars.simulate(games=2, first=2)),
    _no(
        "simulate(games=2, seats=['random'] * 3)",
        lambda: colorwars.simulate(games=2, seats=["random"] * 3),
    ),
    _no("VectorEnv(num_envs=0)", lambda: colorwars.VectorEnv(num_envs=0)),
    _no("VectorEnv(num_envs=2, threads=-1)", lambda: colorwars.VectorEnv(num_envs=2, threads=-1)),
    _no("VectorEnv(num_envs=2, max_plies=0)", lambda: colorwars.VectorEnv(num_envs=2, max_plies=0)),
    _no(
        "VectorEnv(num_envs=2, illegal='ignore')",
        lambda: colorwars.VectorEnv(num_envs=2, illegal="ignore"),
    ),
    _no("solve(2, 2, max_depth=0)", lambda: colorwars.solve(2, 2, max_depth=0, cache=False)),
    _no("solve(2, 2, rules='nope')", lambda: colorwars.solve(2, 2, rules="nope", cache=False)),
    _no("Game(players=26)", lambda: colorwars.Game(5, 5, players=26)),
    _no("Game(2, 2, players=8)", lambda: colorwars.Game(2, 2, players=8)),
    _no("Game(first=2)", lambda: colorwars.Game(first=2)),
    _no("Game.from_text('\\ud800')", lambda: colorwars.Game.from_text("\ud800")),
    _no("Game().play('\\ud800')", lambda: colorwars.Game().play("\ud800")),
    _no("Game(width=10**5000)", lambda: colorwars.Game(width=10**5000)),
    _no("reference.Game(width=10**5000)", lambda: reference.Game(width=10**5000)),
    _no("Rules.parse('drop3+')", lambda: colorwars.Rules.parse("drop3+")),
    _no("ai.parse_player('mcts:-5')", lambda: ai.parse_player("mcts:-5")),
    _no("ai.parse_player('mcts:' + '9' * 5000)", lambda: ai.parse_player("mcts:" + "9" * 5000)),
    _no(
        "GameRecord.parse('size: \\u00b2x5\\nmoves: a1')",
        lambda: colorwars.GameRecord.parse("size: \u00b2x5\nmoves: a1"),
    ),
    _no(
        "GameRecord.parse('size: 9...9x5') (5000 digits)",
        lambda: colorwars.GameRecord.parse("size: " + "9" * 5000 + "x5\nmoves: a1"),
    ),
]


@pytest.mark.parametrize(("example", "call"), MUST_REJECT, ids=[e for e, _ in MUST_REJECT])
def test_issue_examples_are_rejected(example: str, call: Callable[[], Any]) -> None:
    """Each must raise one of our errors (or TypeError/MemoryError), not succeed."""
    tc.tried("issue examples")
    try:
        call()
    except BaseException as e:
        if not tc.is_allowed(e):
            pytest.fail(f"{example} raised {tc.class_name(e)}: {e!s:.200}", pytrace=False)
        return
    pytest.fail(f"{example} was accepted; it must be rejected", pytrace=False)


SIZE_CALLS: dict[str, Callable[[int, int], Any]] = {
    "Game": lambda w, h: colorwars.Game(w, h),
    "reference.Game": lambda w, h: reference.Game(w, h),
    "simulate": lambda w, h: colorwars.simulate(games=1, width=w, height=h, threads=1),
    "VectorEnv": lambda w, h: colorwars.VectorEnv(num_envs=1, width=w, height=h, threads=1),
    "ai.match": lambda w, h: ai.match([R0, R1], 1, w, h, threads=1),
    "ai.tournament": lambda w, h: ai.tournament([R0, G0], 1, w, h, threads=1),
    "ai.opening_win_rates": lambda w, h: ai.opening_win_rates(R0, R1, 1, w, h, threads=1),
    "solve": lambda w, h: colorwars.solve(w, h, cache=False),
}
BAD_SIZES = [
    (0, 5),
    (1, 5),
    (5, 1),
    (33, 5),
    (5, 33),
    (-1, 5),
    (10**6, 10**6),
    (2**31, 2),
    (2**63, 2),
    (2, 2**64),
    (-(2**63), 5),
]


@pytest.mark.parametrize("name", sorted(SIZE_CALLS))
def test_sizes_outside_2_to_32_are_size_errors_everywhere(name: str) -> None:
    """One place validates: a width or height outside 2 to 32 is a ``ConfigError`` from every
    entry point, before anything is allocated (not numpy's memory error, not an overflow)."""
    findings = tc.Findings()
    for w, h in BAD_SIZES:
        example = f"{name}(width={tc.safe_repr(w)}, height={tc.safe_repr(h)})"
        out = tc.probe(findings, name, name, example, SIZE_CALLS[name], w, h)
        if out.ok:
            findings.add(name, "accepted a size outside 2 to 32", example)
        elif tc.is_allowed(out.error) and not isinstance(out.error, colorwars.ConfigError):  # type: ignore[arg-type]
            findings.add(name, f"raised {tc.class_name(out.error)}, not a ConfigError", example)  # type: ignore[arg-type]
    findings.check()
