"""The torture suite: the entry points and their arguments."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import colorwars
import pytest
import torture_core as tc
from colorwars import ai, reference
from hypothesis import given
from hypothesis import strategies as st
from torture_values import (
    BURST_ARG,
    OPENING_ARG,
    Arg,
    bad_values,
    must_reject,
    too_costly,
)

from torture.common import (
    CATALOGUE,
    FUZZ,
    G0,
    R0,
    R1,
    U64,
    _after_player,
    _after_record,
    usable,
)


@dataclass
class Entry:
    name: str
    call: Callable[..., Any]
    base: dict[str, Any]
    args: list[Arg]
    batch: int = 30  # values per hypothesis example (fewer for costly entry points)
    after: Callable[[tc.Findings, str, Any], None] | None = None  # checks on a success
    skip: Callable[[str, object], bool] = field(default=lambda name, value: False)


def _sizes(cap: int | None = None) -> list[Arg]:
    return [Arg("width", "int", 2, 32, cap=cap), Arg("height", "int", 2, 32, cap=cap)]


SEED = Arg("seed", "int", 0, U64)
RULES = Arg("rules", "rules")


def _expensive_player_name(value: object) -> bool:
    """Player names with a search budget (``mcts:10**9``) are not for in-process fuzzing."""
    items = value if isinstance(value, list | tuple) else [value]
    for item in items:
        if isinstance(item, str) and item.strip().lower().startswith(("mcts", "alphabeta", "ab")):
            return True
        if isinstance(item, ai.MCTS | ai.AlphaBeta):
            return True
    return False


def _skip_simulate(name: str, value: object) -> bool:
    if name == "seats":
        return _expensive_player_name(value)
    return name == "backend" and isinstance(value, str) and value == "ray"  # starts Ray


def _after_game(findings: tc.Findings, where: str, game: Any) -> None:
    usable(findings, where, game)


def _after_env(findings: tc.Findings, where: str, env: Any) -> None:
    def use() -> None:
        env.reset(seed=1)
        env.step(env.sample_legal().copy())
        env.board(0)

    out = tc.probe(findings, "VectorEnv", where + " then reset/step", where, use)
    if not out.ok:
        findings.add(where, f"accepted, then failed in use: {out.error!r:.120}", where)


def _after_simulate(findings: tc.Findings, where: str, result: Any) -> None:
    tc.probe(findings, "simulate", "SimulationResult.summary", where, result.summary)


def _after_text_game(findings: tc.Findings, where: str, game: Any) -> None:
    usable(findings, where, game)


ENTRIES: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry(
            "Game",
            colorwars.Game,
            {"width": 3, "height": 3, "players": 2, "rules": "colorwars", "first": 0},
            [*_sizes(), Arg("players", "int", 2, 8), RULES, Arg("first", "int", 0, 1)],
            after=_after_game,
        ),
        Entry(
            "reference.Game",
            reference.Game,
            {"width": 3, "height": 3, "players": 2, "rules": "colorwars", "first": 0},
            [*_sizes(), Arg("players", "int", 2, 8), RULES, Arg("first", "int", 0, 1)],
            after=_after_game,
        ),
        Entry(
            "Game.from_text",
            colorwars.Game.from_text,
            {"text": "3x3 colorwars 2 .../.../... a - - 0"},
            [Arg("text", "text")],
            after=_after_text_game,
        ),
        Entry(
            "reference.Game.from_text",
            reference.Game.from_text,
            {"text": "3x3 colorwars 2 .../.../... a - - 0"},
            [Arg("text", "text")],
            after=_after_text_game,
        ),
        Entry(
            "simulate",
            colorwars.simulate,
            {
                "games": 2,
                "width": 3,
                "height": 3,
                "players": 2,
                "rules": "colorwars",
                "seats": "random",
                "seed": 0,
                "threads": 1,
                "max_plies": None,
                "record": False,
                "first": 0,
            },
            [
                Arg("games", "int", 0, None, cap=64),
                *_sizes(),
                Arg("players", "int", 2, 8),
                RULES,
                Arg("seats", "any"),
                SEED,
                Arg("threads", "int", 0, None, cap=8),
                Arg("max_plies", "optint", 1, None),
                Arg("record", "any"),
                Arg("first", "int", 0, 1),
                Arg("progress", "any"),
                Arg("backend", "choice", choices=("local", "ray")),
                Arg("address", "any"),
                Arg("shards", "any"),
            ],
            batch=12,
            after=_after_simulate,
            skip=_skip_simulate,
        ),
        Entry(
            "VectorEnv",
            colorwars.VectorEnv,
            {
                "num_envs": 2,
                "width": 3,
                "height": 3,
                "players": 2,
                "rules": "classic",
                "first": 0,
                "max_plies": None,
                "threads": 1,
                "illegal": "raise",
            },
            [
                Arg("num_envs", "int", 1, None, cap=64),
                *_sizes(),
                Arg("players", "int", 2, 8),
                RULES,
                Arg("first", "int", 0, 1),
                Arg("max_plies", "optint", 1, None),
                Arg("threads", "int", 0, None, cap=8),
                Arg("illegal", "choice", choices=("raise", "lose")),
            ],
            batch=20,
            after=_after_env,
        ),
        Entry(
            "Rules",
            colorwars.Rules,
            {"opening": "drop3", "burst": "empty"},
            [OPENING_ARG, BURST_ARG],
        ),
        Entry("Rules.parse", colorwars.Rules.parse, {"name": "classic"}, [Arg("name", "text")]),
        Entry(
            "ai.parse_player",
            ai.parse_player,
            {"text": "random"},
            [Arg("text", "text")],
            after=_after_player,
        ),
        Entry(
            "GameRecord.parse",
            colorwars.GameRecord.parse,
            {"text": "size: 3x3\nmoves: a1 c3\n"},
            [Arg("text", "text")],
            after=_after_record,
        ),
        Entry("ai.Random", ai.Random, {"seed": 0}, [SEED], after=_after_player),
        Entry("ai.Greedy", ai.Greedy, {"seed": 0}, [SEED], after=_after_player),
        Entry(
            "ai.MCTS",
            ai.MCTS,
            {
                "simulations": 50,
                "time": None,
                "c": 0.7,
                "trees": 1,
                "seed": 0,
                "greedy": 1.0,
                "solver": True,
                "reuse": True,
                "minimax": 0.3,
                "cutoff": 0,
            },
            [
                Arg("simulations", "optint", 1, None),
                Arg("time", "optnum", 0, None, lo_open=True),
                Arg("c", "num", 0, None),
                Arg("trees", "int", 1, None),
                SEED,
                Arg("greedy", "num", 0, 1),
                Arg("solver", "any"),
                Arg("reuse", "any"),
                Arg("minimax", "num", 0, 1),
                Arg("cutoff", "int", 0, 100_000),
            ],
            after=_after_player,
        ),
        Entry(
            "ai.AlphaBeta",
            ai.AlphaBeta,
            {"depth": 2, "time": None, "seed": 0},
            [Arg("depth", "optint", 1, None), Arg("time", "optnum", 0, None, lo_open=True), SEED],
            after=_after_player,
        ),
        Entry(
            "ai.match",
            ai.match,
            {
                "seats": [R0, R1],
                "games": 2,
                "width": 3,
                "height": 3,
                "rules": "colorwars",
                "seed": 0,
                "first_move": None,
                "threads": 1,
                "max_plies": None,
            },
            [
                Arg("seats", "any"),
                Arg("games", "int", 0, None, cap=64),
                *_sizes(),
                RULES,
                SEED,
                Arg("first_move", "optmove", hi=9),
                Arg("threads", "int", 0, None, cap=8),
                Arg("max_plies", "optint", 1, None),
            ],
            batch=15,
            skip=lambda name, value: name == "seats" and _expensive_player_name(value),
        ),
        Entry(
            "ai.tournament",
            ai.tournament,
            {
                "players": [R0, G0],
                "games_per_pair": 2,
                "width": 3,
                "height": 3,
                "rules": "colorwars",
                "seed": 0,
                "threads": 1,
            },
            [
                Arg("players", "any"),
                Arg("games_per_pair", "int", 0, None, cap=64),
                *_sizes(),
                RULES,
                SEED,
                Arg("threads", "int", 0, None, cap=8),
                Arg("progress", "any"),
            ],
            batch=6,
            skip=lambda name, value: name == "players" and _expensive_player_name(value),
        ),
        Entry(
            "ai.opening_win_rates",
            ai.opening_win_rates,
            {
                "player_a": R0,
                "player_b": R1,
                "games_per_cell": 1,
                "width": 2,
                "height": 2,
                "rules": "colorwars",
                "seed": 0,
                "threads": 1,
            },
            [
                Arg("player_a", "any"),
                Arg("player_b", "any"),
                Arg("games_per_cell", "int", 0, None, cap=16),
                *_sizes(cap=6),
                RULES,
                SEED,
                Arg("threads", "int", 0, None, cap=8),
                Arg("progress", "any"),
            ],
            batch=4,
            skip=lambda name, value: (
                name in ("player_a", "player_b") and _expensive_player_name(value)
            ),
        ),
        Entry(
            "solve",
            colorwars.solve,
            {"width": 2, "height": 2, "rules": "classic", "max_depth": 200, "cache": False},
            [
                *_sizes(cap=3),
                RULES,
                Arg("max_depth", "int", 1, None, cap=10_000),
                Arg("cache", "any"),
            ],
            batch=6,
        ),
        Entry(
            "prove",
            lambda width, height, **kw: colorwars.prove(width, height, **kw),
            {
                "width": 2,
                "height": 2,
                "rules": "classic",
                "time": 0.5,
                "memory": "1M",
                "split": True,
                "verify": False,
                "backend": "local",
            },
            [
                *_sizes(cap=3),
                RULES,
                Arg("time", "optnum", 0, 1e9),
                Arg("memory", "any"),
                Arg("split", "any"),
                Arg("verify", "any"),
                Arg("backend", "choice", choices=("local", "ray")),
            ],
            batch=6,
            skip=lambda name, value: (
                name == "backend" and isinstance(value, str) and value == "ray"
            ),
        ),
    ]
}


def try_value(findings: tc.Findings, entry: Entry, arg: Arg, value: object) -> None:
    """One call of ``entry`` with ``arg`` set to ``value`` (the others at their baseline)."""
    if too_costly(arg, value) or entry.skip(arg.name, value):
        return
    where = f"{entry.name}({arg.name}=...)"
    example = f"{entry.name}({arg.name}={tc.safe_repr(value)})"
    out = tc.probe(
        findings, entry.name, where, example, entry.call, **{**entry.base, arg.name: value}
    )
    if not out.ok:
        return
    reason = must_reject(arg, value)
    if reason is not None:
        findings.add(where, f"accepted ({reason})", example)
    if entry.after is not None:
        entry.after(findings, example, out.value)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_baselines_succeed(name: str) -> None:
    """The fuzzed calls vary one argument of a call that works."""
    entry = ENTRIES[name]
    entry.call(**entry.base)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_catalogue_on_every_argument(name: str) -> None:
    """Every value of the fixed catalogue, in every argument of the entry point."""
    findings = tc.Findings()
    entry = ENTRIES[name]
    values = CATALOGUE if entry.batch >= 12 else CATALOGUE[:: max(1, 12 // entry.batch)]
    for arg in entry.args:
        for value in values:
            try_value(findings, entry, arg, value)
    findings.check()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_generated_values_on_every_argument(name: str) -> None:
    """Hypothesis-generated values, a batch per example, in every argument."""
    findings = tc.Findings()
    entry = ENTRIES[name]

    @FUZZ
    @given(st.lists(bad_values(), min_size=1, max_size=entry.batch))
    def run(values: list[Any]) -> None:
        for value in values:
            for arg in entry.args:
                try_value(findings, entry, arg, value)

    run()
    findings.check()
