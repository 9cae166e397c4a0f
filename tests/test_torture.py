"""The torture suite (issue 8): every public entry point driven with generated bad input.

Each call must keep the promise: it succeeds or raises a ``ColorwarsError``, ``TypeError``,
``MemoryError`` or ``KeyboardInterrupt`` (never a plain ``ValueError``, ``RuntimeError``,
``OverflowError``, ``AttributeError``, ``UnicodeEncodeError``, ``IndexError`` or a
``PanicException``); a rejected call changes nothing; input of the wrong kind is rejected,
not cast. Calls that could abort the interpreter, allocate without bound or hang run in child
interpreters under a 4 GiB address-space limit, with a time bound; Ctrl-C must end a long call
with ``KeyboardInterrupt`` (the CLI: exit status 130, one line, no traceback).

Every test collects all the broken promises it finds and fails once, listing them grouped by
cause with one input that shows each. The number of inputs tried is printed at the end of the
session (``HYPOTHESIS_PROFILE=thorough`` tries about twenty times as many)."""

from __future__ import annotations

import copy
import json
import math
import pickle
import random
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import colorwars
import numpy as np
import pytest
import torture_core as tc
from colorwars import ai, reference
from colorwars.cli import main as cli_main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torture_values import (
    BURST_ARG,
    OPENING_ARG,
    Arg,
    Index,
    NotAGame,
    as_int,
    bad_values,
    catalogue,
    digits,
    ints,
    must_reject,
    texts,
    too_costly,
)

ENGINES = {"native": colorwars.Game, "reference": reference.Game}
U64 = 2**64 - 1
CATALOGUE = catalogue()
FUZZ = settings(suppress_health_check=list(HealthCheck), deadline=None)


# ==========================================================================================
# The entry points and their arguments
# ==========================================================================================
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
    if name == "policies":
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


def small_budget(player: Any) -> bool:
    """Whether ``choose`` with this player is quick enough to try in process."""
    sims = as_int(getattr(player, "simulations", 0))
    depth = as_int(getattr(player, "depth", 0))
    threads = as_int(getattr(player, "threads", 1))
    budget = getattr(player, "time", None)
    if sims is None or depth is None or threads is None:
        return False
    if budget is not None and not (isinstance(budget, float | int) and budget <= 0.02):
        return False
    return sims <= 2000 and depth <= 5 and threads <= 4


def _after_player(findings: tc.Findings, where: str, player: Any) -> None:
    """A player accepted at construction must play (``MCTS(c=inf)`` may not fail only later)."""
    if not small_budget(player):
        return
    for engine in ENGINES.values():
        g = engine(3, 3)
        out = tc.probe(findings, "player.choose", where + ".choose", where, player.choose, g)
        if not out.ok:
            findings.add(
                where,
                f"accepted at construction, then choose failed: {tc.class_name(out.error)}",  # type: ignore[arg-type]
                f"{where}.choose({engine.__module__}.Game(3, 3))",
                str(out.error)[:160],
            )
        elif out.value not in g.legal_moves():
            findings.add(where, "choose returned an illegal move", where)


def _after_record(findings: tc.Findings, where: str, record: Any) -> None:
    for engine in (None, reference.Game):
        tc.probe(findings, "GameRecord.parse", "GameRecord.replay", where, record.replay, engine)
    tc.probe(findings, "GameRecord.parse", "GameRecord.completed", where, record.completed)
    tc.probe(findings, "GameRecord.parse", "GameRecord.to_text", where, record.to_text)


def _after_simulate(findings: tc.Findings, where: str, result: Any) -> None:
    tc.probe(findings, "simulate", "SimulationResult.summary", where, result.summary)


def _after_text_game(findings: tc.Findings, where: str, game: Any) -> None:
    usable(findings, where, game)


def usable(findings: tc.Findings, where: str, g: Any) -> None:
    """A game a call handed back must work: moves, undo, notation round trip, players."""

    def use() -> None:
        legal = g.legal_moves()
        before = tc.game_state(g)
        if legal and g.winner is None:
            g.play(legal[0])
            g.waves()
            g.pop()
            if tc.game_state(g) != before:
                findings.add(where, "play then pop did not restore the game", where)
        str(g)
        g.copy()
        again = type(g).from_text(g.to_text())
        if again.to_text() != g.to_text():
            findings.add(where, "to_text/from_text does not round-trip", where)
        if g.winner is None and legal:
            move = ai.Greedy().choose(g)
            if move not in legal:
                findings.add(where, "Greedy chose an illegal move", where)
            if g.cells <= 64:
                ai.MCTS(simulations=20).choose(g)

    out = tc.probe(findings, "use of a returned game", where + " then used", where, use)
    if not out.ok and isinstance(out.error, colorwars.ColorwarsError):
        findings.add(where, f"accepted, then failed in use: {out.error!s:.120}", where)


R0, R1, G0 = ai.Random(), ai.Random(seed=1), ai.Greedy()

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
                "policies": "random",
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
                Arg("policies", "any"),
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
                "threads": 1,
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
                Arg("threads", "int", 1, None),
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
                "first": R0,
                "second": R1,
                "games_per_cell": 1,
                "width": 2,
                "height": 2,
                "rules": "colorwars",
                "seed": 0,
                "threads": 1,
            },
            [
                Arg("first", "any"),
                Arg("second", "any"),
                Arg("games_per_cell", "int", 0, None, cap=16),
                *_sizes(cap=6),
                RULES,
                SEED,
                Arg("threads", "int", 0, None, cap=8),
                Arg("progress", "any"),
            ],
            batch=4,
            skip=lambda name, value: name in ("first", "second") and _expensive_player_name(value),
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


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's cache goes to a temporary folder, never the user's."""
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "cache"))


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


# ==========================================================================================
# Games: every method with bad arguments, and nothing changes when a call is rejected
# ==========================================================================================
POOL_CONFIGS = [
    (2, 2, 2, "colorwars", 0, 0),
    (3, 3, 2, "colorwars", 0, 4),
    (5, 5, 2, "classic", 1, 11),
    (4, 3, 3, "none+empty", 2, 7),
    (17, 16, 2, "colorwars", 0, 40),
    (32, 32, 8, "classic", 0, 30),
    (3, 3, 2, "colorwars", 0, 10_000),  # played to the end: won
    (2, 3, 2, "classic", 0, 10_000),
]


def game_pool(engine: Any, seed: int = 0) -> list[Any]:
    rng = random.Random(seed)
    pool = []
    for width, height, players, rules, first, plies in POOL_CONFIGS:
        g = engine(width, height, players, rules, first)
        for _ in range(plies):
            if g.winner is not None:
                break
            g.play(rng.choice(g.legal_moves()))
        pool.append(g)
    return pool


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


# ==========================================================================================
# Notation, records, player names: generated text
# ==========================================================================================
def base_positions() -> list[str]:
    texts_ = [g.to_text() for g in game_pool(colorwars.Game, seed=2)]
    return [*texts_, "2x2 classic 2 1a1a/1a1b a ab - 6", "3x3 colorwars 2 .../.../... a - - 0"]


TOKENS = [
    *list("0123456789abcdefghxyz/.-+ "),
    "9" * 25,
    "\u00b2",
    "\ud800",
    "7a",
    "8h",
    "99a",
    "  ",
    "\n",
    "\x00",
    "[/x]",
    "33x33",
    "0x0",
    "2x2",
    "drop3+empty",
    "-",
    "ab",
    "abcdefghi",
    "4294967296",
    "18446744073709551616",
]


@st.composite
def mutated_positions(draw: st.DrawFn) -> str:
    text: str = draw(st.sampled_from(base_positions()))
    token = st.one_of(
        st.sampled_from(TOKENS), st.text(st.characters(exclude_categories=()), max_size=3)
    )
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "insert", "delete", "field", "swap"]))
        i = draw(st.integers(0, len(text)))
        if op == "replace":
            text = text[:i] + draw(token) + text[i + 1 :]
        elif op == "insert":
            text = text[:i] + draw(token) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 5)) :]
        else:
            fields = text.split(" ")
            k = draw(st.integers(0, len(fields) - 1))
            if op == "field":
                fields[k] = draw(st.one_of(token, st.integers().map(digits)))
            else:
                j = draw(st.integers(0, len(fields) - 1))
                fields[k], fields[j] = fields[j], fields[k]
            text = " ".join(fields)
    return text


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_position_notation_mutations(engine: str) -> None:
    """Positions one to four edits away from real ones: parsed or refused, never a crash;
    what parses must be a game that plays, undoes and writes itself back."""
    findings = tc.Findings()
    cls = ENGINES[engine]
    name = f"{'reference.' if engine == 'reference' else ''}Game.from_text"

    @FUZZ
    @given(st.lists(mutated_positions(), min_size=1, max_size=20))
    def run(positions: list[str]) -> None:
        for text in positions:
            example = f"{name}({tc.safe_repr(text, 160)})"
            out = tc.probe(findings, name, name, example, cls.from_text, text)
            if out.ok:
                usable(findings, example, out.value)

    run()
    findings.check()


RECORD_KEYS = ("size", "rules", "players", "first", "moves", "result", "final", "note")


@st.composite
def records(draw: st.DrawFn) -> str:
    """Record text: the real keys with awkward values, junk lines, repeated keys, markup."""
    size = st.one_of(
        st.builds(lambda w, h: f"{w}x{h}", st.integers(-1, 40), st.integers(-1, 40)),
        st.builds(lambda w, h: f"{digits(w)}x{digits(h)}", ints(), ints()),
        st.sampled_from(
            ["\u00b2x5", "5x\u0663", "3x3x3", "x", "", "3X3", " 3 x 3 ", "9" * 5000 + "x2"]
        ),
        texts(),
    )
    names = st.builds(lambda c, r: f"{c}{r}", st.sampled_from("abcdz"), st.integers(0, 40))
    moves = st.lists(st.one_of(names, texts()), max_size=30).map(" ".join)
    value = {
        "size": size,
        "rules": st.one_of(st.sampled_from(["classic", "colorwars", "drop3+subtract"]), texts()),
        "players": st.one_of(st.integers(-1, 12).map(str), texts()),
        "first": st.one_of(st.sampled_from("abcdefghi"), texts()),
        "moves": moves,
        "result": st.one_of(st.sampled_from(["a", "b", "-", "z"]), texts()),
        "final": st.one_of(mutated_positions(), texts()),
        "note": st.one_of(st.sampled_from(["[/bold]", "[red]x[/red]", "[plot]"]), texts()),
    }
    keys = draw(st.lists(st.sampled_from(RECORD_KEYS), max_size=10))
    lines = [f"{k}: {draw(value[k])}" for k in ["size", "moves", *keys]]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(texts()))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)


def test_game_records_generated() -> None:
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(records(), min_size=1, max_size=6))
    def run(texts_: list[str]) -> None:
        for text in texts_:
            example = f"GameRecord.parse({tc.safe_repr(text, 160)})"
            out = tc.probe(
                findings,
                "GameRecord.parse",
                "GameRecord.parse",
                example,
                colorwars.GameRecord.parse,
                text,
            )
            if out.ok:
                _after_record(findings, example, out.value)

    run()
    findings.check()


@st.composite
def settings(draw: st.DrawFn) -> str:
    """``key=value`` settings after a player's name, the keys near the real ones."""
    keys = ["simulations", "time", "c", "threads", "seed", "greedy", "solver", "reuse",
            "minimax", "cutoff", "depth", "x", ""]  # fmt: skip
    values = st.one_of(
        ints().map(digits),
        st.sampled_from(["0.5", "1e-3", "true", "false", "nan", "inf", "-1", "1e400", ""]),
        texts(),
    )
    items = draw(st.lists(st.tuples(st.sampled_from(keys), values), min_size=1, max_size=4))
    return ":".join(f"{k}={v}" for k, v in items)


@st.composite
def player_names(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["random", "greedy", "mcts", "alphabeta", "ab", "MCTS", "x", ""]))
    arg = draw(st.one_of(st.none(), ints().map(digits), texts(), settings()))
    sep = draw(st.sampled_from([":", "::", " : ", "="]))
    pad = draw(st.sampled_from(["", " ", "\t", "\u00a0"]))
    return pad + kind + ("" if arg is None else sep + arg) + pad


def test_player_names_generated() -> None:
    """``ai.parse_player`` on names near the real ones; what it accepts must play."""
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(player_names(), min_size=1, max_size=30))
    def run(names: list[str]) -> None:
        for text in names:
            example = f"ai.parse_player({tc.safe_repr(text)})"
            out = tc.probe(
                findings, "ai.parse_player", "ai.parse_player", example, ai.parse_player, text
            )
            if out.ok:
                _after_player(findings, example, out.value)

    run()
    findings.check()


# ==========================================================================================
# VectorEnv: step, reset and board with bad input; a rejected step changes nothing
# ==========================================================================================
class Box:
    """A VectorEnv and the arrays its last successful reset/step handed back."""

    def __init__(self, **kwargs: Any) -> None:
        self.env = colorwars.VectorEnv(**kwargs)
        self.obs, self.info = self.env.reset(seed=3)
        self.label = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        self.moves = 0
        for _ in range(5):
            self.advance()

    def advance(self) -> None:
        out = self.env.step(self.env.sample_legal().copy())
        self.obs, self.info = out[0], out[4]
        self.moves += 1

    def state(self) -> tuple[Any, ...]:
        boards = []
        for i in range(self.env.num_envs):
            b = self.env.board(i)
            boards.append((tuple(b["counts"]), tuple(b["owners"]), b["to_move"], b["ply"]))
        return (
            self.obs.tobytes(),
            self.info["action_mask"].tobytes(),
            self.info["to_move"].tobytes(),
            tuple(boards),
        )


def env_pool() -> list[Box]:
    return [
        Box(num_envs=3, width=3, height=3, players=2, rules="classic", threads=1),
        Box(
            num_envs=4,
            width=5,
            height=5,
            rules="colorwars",
            illegal="lose",
            threads=1,
            max_plies=40,
        ),
        Box(num_envs=2, width=17, height=16, players=3, threads=1),
        Box(
            num_envs=2, width=32, height=32, players=8, rules="colorwars", threads=2, illegal="lose"
        ),
    ]


def classify_actions(actions: object, n: int) -> tuple[str, list[int] | str]:
    """``("reject", why)``, ``("either", why)`` (arguable input: refused, or played as the
    integers it holds) or ``("ints", values)`` (integer input that must be taken as is)."""
    if isinstance(actions, np.ndarray):
        if actions.shape != (n,):
            return ("reject", f"shape {actions.shape}, not ({n},)")
        if actions.dtype.kind in "iu":
            return ("ints", [int(a) for a in actions])
        if actions.dtype.kind != "O":
            return ("reject", f"dtype {actions.dtype} is not an integer type")
        items = list(actions)
        lenient = True
    elif isinstance(actions, list | tuple):
        items = list(actions)
        lenient = False
        if len(items) != n:
            return ("reject", f"{len(items)} actions for {n} environments")
    elif isinstance(actions, range | bytearray | memoryview):
        return ("either", "a sequence of integers")
    else:
        return ("reject", f"{type(actions).__name__} is not one action per environment")
    values = []
    for item in items:
        v = as_int(item)
        if v is None:
            if isinstance(item, Index) or (
                isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu"
            ):
                return ("either", "index-able")
            return ("reject", f"an action {tc.safe_repr(item, 40)} is not an integer")
        values.append(v)
    return ("either", "object array") if lenient else ("ints", values)


def torture_step(findings: tc.Findings, box: Box, actions: object, how: str) -> None:
    env = box.env
    n, cells = env.num_envs, env.num_actions
    example = f"VectorEnv({box.label}).step({tc.safe_repr(actions, 140)}) [{how}]"
    verdict, detail = classify_actions(actions, n)
    mask = box.info["action_mask"].copy()
    before = box.state()
    out = tc.probe(findings, "VectorEnv.step", "VectorEnv.step", example, env.step, actions)
    if not out.ok:
        if box.state() != before:
            findings.add("VectorEnv.step", "a rejected step changed the environments", example)
        if verdict == "ints":
            values = detail
            assert isinstance(values, list)
            if all(0 <= v < cells and mask[i, v] for i, v in enumerate(values)):
                findings.add(
                    "VectorEnv.step", "refused legal integer actions", example, str(out.error)[:160]
                )
        return
    box.obs, box.info = out.value[0], out.value[4]
    if verdict == "reject":
        findings.add("VectorEnv.step", f"accepted ({detail})", example)
        return
    if isinstance(detail, str):
        return  # arguable input, played
    for i, v in enumerate(detail):
        legal = 0 <= v < cells and bool(mask[i, v])
        if legal:
            continue
        if env.illegal == "raise":
            why = "off the board" if not 0 <= v < cells else "illegal"
            findings.add(
                "VectorEnv.step", f"accepted an action {why} under illegal='raise'", example
            )
        elif not box.info["illegal"][i]:
            findings.add("VectorEnv.step", "an illegal action was not marked as lost", example)


BAD_ACTION_SCALARS = [
    1.5,
    1.0,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    2**32,
    2**63,
    -(2**63) - 1,
    10**5000,
    True,
    None,
    "1",
    "c3",
    b"1",
    np.float64(1.0),
    np.float32(2.0),
    np.bool_(True),
    np.complex64(1),
    object(),
    [1],
    (1,),
    Index(1),
]
ACTION_DTYPES = [
    "i1",
    "i2",
    "i4",
    "i8",
    "u1",
    "u2",
    "u4",
    "u8",
    "f2",
    "f4",
    "f8",
    "c8",
    "?",
    "O",
    "U3",
    "S3",
    "M8[s]",
    "m8[s]",
]


@st.composite
def actions_for(draw: st.DrawFn, legal: list[int], cells: int) -> tuple[object, str]:
    n = len(legal)
    how = draw(st.sampled_from(["slot", "dtype", "shape", "ints", "wrap", "view", "list"]))
    if how == "slot":  # legal actions with one slot replaced
        k = draw(st.integers(0, n - 1))
        bad = draw(st.one_of(st.sampled_from(BAD_ACTION_SCALARS), bad_values()))
        out: list[object] = list(legal)
        out[k] = bad
        return out, how
    if how == "dtype":  # legal actions as another dtype
        dtype = draw(st.sampled_from(ACTION_DTYPES))
        try:
            return np.array(legal).astype(dtype), f"{how} {dtype}"
        except (TypeError, ValueError):
            return np.array(legal, dtype=object), f"{how} O"
    if how == "shape":
        shape = draw(st.sampled_from(["short", "long", "column", "row", "scalar", "empty", "nest"]))
        a = np.array(legal)
        return {
            "short": a[:-1],
            "long": np.append(a, 0),
            "column": a.reshape(n, 1),
            "row": a.reshape(1, n),
            "scalar": a[0],
            "empty": np.array([], dtype=np.int64),
            "nest": [list(legal)],
        }[shape], f"{how} {shape}"
    if how == "ints":  # any int64 values
        values = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n))
        return np.array(values, dtype=np.int64), how
    if how == "wrap":  # a legal cell plus a power of two: truncation would make it legal
        k = draw(st.integers(0, n - 1))
        shift = draw(st.sampled_from([8, 16, 31, 32, 63]))
        a = np.array(legal, dtype=np.int64)
        a[k] = (legal[k] + 2**shift) if shift < 63 else -(2**63) + legal[k]
        return a, f"{how} 2**{shift}"
    if how == "view":  # a strided view of legal actions: must be read correctly
        a = np.zeros(2 * n, dtype=np.int64)
        a[::2] = legal
        return a[::2], how
    dtype = draw(st.sampled_from(["int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64"]))
    t = np.dtype(dtype).type
    return [t(v) if v <= np.iinfo(t).max else v for v in legal], f"list of {dtype}"


def test_vector_env_step_reset_board() -> None:
    findings = tc.Findings()
    pool = env_pool()

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        for box in pool:
            env = box.env
            for _ in range(4):
                legal = [int(a) for a in env.sample_legal()]
                actions, how = data.draw(actions_for(legal, env.num_actions))
                torture_step(findings, box, actions, how)
            for value in data.draw(st.lists(bad_values(), min_size=1, max_size=4)):
                torture_reset(findings, box, value)
                torture_board(findings, box, value)
            box.advance()

    run()
    for box in pool:  # the catalogue, once
        for value in CATALOGUE:
            torture_reset(findings, box, value)
            torture_board(findings, box, value)
            legal: list[object] = [int(a) for a in box.env.sample_legal()]
            legal[0] = value
            torture_step(findings, box, legal, "catalogue slot")
            torture_step(findings, box, value, "catalogue whole")
    findings.check()


def torture_reset(findings: tc.Findings, box: Box, seed: object) -> None:
    arg = Arg("seed", "optint", 0, U64)
    example = f"VectorEnv({box.label}).reset(seed={tc.safe_repr(seed)})"
    before = box.state()
    out = tc.probe(
        findings, "VectorEnv.reset", "VectorEnv.reset", example, box.env.reset, seed=seed
    )
    if out.ok:
        box.obs, box.info = out.value
        reason = must_reject(arg, seed)
        if reason is not None:
            findings.add("VectorEnv.reset", f"accepted seed ({reason})", example)
        for _ in range(3):
            box.advance()
    elif box.state() != before:
        findings.add("VectorEnv.reset", "a rejected reset changed the environments", example)


def torture_board(findings: tc.Findings, box: Box, i: object) -> None:
    arg = Arg("i", "int", 0, box.env.num_envs - 1)
    example = f"VectorEnv({box.label}).board({tc.safe_repr(i)})"
    out = tc.probe(findings, "VectorEnv.board", "VectorEnv.board", example, box.env.board, i)
    reason = must_reject(arg, i)
    if out.ok and reason is not None:
        findings.add("VectorEnv.board", f"accepted ({reason})", example)


# ==========================================================================================
# Players: choose with things that are not games; matches and tournaments with odd seats
# ==========================================================================================
def test_choose_with_non_games() -> None:
    findings = tc.Findings()
    players = [ai.Random(), ai.Greedy(), ai.MCTS(simulations=20), ai.AlphaBeta(depth=2)]
    won = game_pool(colorwars.Game)[-2]
    others: list[object] = [NotAGame(), won, won.copy(), reference.Game(3, 3), "3x3"]
    for player in players:
        for value in [*CATALOGUE, *others]:
            where = f"ai.{type(player).__name__}.choose"
            example = f"{where}({tc.safe_repr(value)})"
            state = tc.game_state(value) if hasattr(value, "legal_moves") else None
            tc.probe(findings, "player.choose", where, example, player.choose, value)
            if state is not None and tc.game_state(value) != state:
                findings.add(where, "choose changed the game", example)
    findings.check()


SEAT_ITEMS: list[object] = [
    ai.Random(),
    ai.Greedy(seed=2),
    "random",
    "greedy",
    "bogus",
    None,
    3,
    "\ud800",
    "[/x]",
    NotAGame(),
    ai.Random,
    colorwars.Game(3, 3),
    b"random",
    "mcts:5",
    "alphabeta:1",
]


def seat_lists() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(st.sampled_from(SEAT_ITEMS), max_size=9),
        st.lists(st.sampled_from(SEAT_ITEMS), min_size=2, max_size=3).map(tuple),
        bad_values(),
    )


def test_match_and_tournament_seats() -> None:
    """Seats given as player objects, names or junk; names work or are refused cleanly."""
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(seat_lists(), min_size=1, max_size=8))
    def run(seat_values: list[Any]) -> None:
        for seats in seat_values:
            shown = tc.safe_repr(seats)
            tc.probe(
                findings,
                "ai.match",
                "ai.match(seats=...)",
                f"ai.match({shown}, 2)",
                ai.match,
                seats,
                2,
                3,
                3,
                threads=1,
            )
            tc.probe(
                findings,
                "ai.tournament",
                "ai.tournament(players=...)",
                f"ai.tournament({shown}, 2)",
                ai.tournament,
                seats,
                2,
                3,
                3,
                threads=1,
            )

    run()
    findings.check()


def test_names_work_wherever_players_do() -> None:
    """``ai.match([ai.Random(), 'random'], 10)`` and ``ai.tournament(['random', 'greedy'],
    10)`` play or are refused with one of our errors (issue 8)."""
    findings = tc.Findings()
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("ai.match([ai.Random(), 'random'], 10)", lambda: ai.match([ai.Random(), "random"], 10)),
        ("ai.match(['random', 'greedy'], 10)", lambda: ai.match(["random", "greedy"], 10)),
        (
            "ai.tournament(['random', 'greedy'], 10)",
            lambda: ai.tournament(["random", "greedy"], 10),
        ),
        (
            "ai.opening_win_rates('random', 'greedy', 1, 2, 2)",
            lambda: ai.opening_win_rates("random", "greedy", 1, 2, 2),
        ),  # type: ignore[arg-type]
        ("ai.match('random', 10)", lambda: ai.match("random", 10)),  # type: ignore[arg-type]
    ]
    for example, call in calls:
        tc.probe(findings, "ai.match", example, example, call)
    findings.check()


# ==========================================================================================
# Specific promises of issue 8
# ==========================================================================================
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
    _no("ai.MCTS(threads=0)", lambda: ai.MCTS(threads=0)),
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
        "simulate(games=2, policies=['random'] * 3)",
        lambda: colorwars.simulate(games=2, policies=["random"] * 3),
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


# ==========================================================================================
# Numpy integers are whole numbers wherever a Python int is
# ==========================================================================================
INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(k == "elapsed" or _same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, colorwars.Game | reference.Game):
        return bool(a.to_text() == b.to_text())
    if isinstance(a, colorwars.SimulationResult):
        return bool(np.array_equal(a.winners, b.winners) and np.array_equal(a.plies, b.plies))
    if isinstance(a, colorwars.Solution):
        return (a.winner, a.plies, a.line) == (b.winner, b.plies, b.line)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "wins") and hasattr(a, "games"):
        return bool(np.array_equal(a.wins, b.wins))
    return bool(a == b)


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
            "ai.MCTS(simulations=, threads=, seed=).choose",
            lambda n: ai.MCTS(simulations=n(30), threads=n(1), seed=n(4)).choose(colorwars.Game()),
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
            "ai.opening_win_rates(first, second, games_per_cell, width, height, seed=)",
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


# ==========================================================================================
# The solver's cache: a poisoned entry is never handed back as a Solution
# ==========================================================================================
def test_poisoned_solver_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    findings = tc.Findings()
    truth = colorwars.solve(2, 3, rules="classic", cache=False)
    good = {
        "width": 2,
        "height": 3,
        "rules": "classic",
        "winner": truth.winner,
        "plies": truth.plies,
        "line": truth.line,
        "positions": 1,
        "seconds": 0.0,
    }
    poisons: list[object] = [
        {**good, "winner": 5},
        {**good, "winner": -1},
        {**good, "winner": "a"},
        {**good, "plies": -3},
        {**good, "plies": "7"},
        {**good, "line": [999, -1]},
        {**good, "line": "c3"},
        {**good, "line": None},
        {**good, "width": 9},
        {**good, "rules": "colorwars"},
        {**good, "positions": None, "seconds": "x"},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "line"},
        [],
        "solved",
        None,
        {**good, "line": [0] * 10**5},
    ]
    cache = tmp_path / "poison"
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(cache))
    cache.mkdir()
    from colorwars._files import seal
    from colorwars.solver import CACHE_FORMAT, CACHE_KIND, _cache_key

    key = _cache_key(2, 3, "classic")
    for poison in poisons:
        # Sealed with a good checksum: the entry itself is still checked before it is used.
        sealed = seal(CACHE_KIND, CACHE_FORMAT, {"entries": {key: poison}})
        (cache / "solutions.cache").write_bytes(sealed)
        example = f"solve(2, 3) with the cache entry {tc.safe_repr(poison)}"
        out = tc.probe(findings, "solve", "solve (cache)", example, colorwars.solve, 2, 3)
        if out.ok and not _same(out.value, truth):
            findings.add("solve (cache)", "handed back a poisoned cache entry", example)
    for raw in [b"\xff\xfe", b"{", b"[1, 2]", b'{"2x3 classic": 1e999}', b"\x00" * 100]:
        (cache / "solutions.cache").write_bytes(raw)
        example = f"solve(2, 3) with the cache file {raw!r:.40}"
        out = tc.probe(findings, "solve", "solve (cache)", example, colorwars.solve, 2, 3)
        if out.ok and not _same(out.value, truth):
            findings.add("solve (cache)", "handed back a wrong solution", example)
    findings.check()


# ==========================================================================================
# Pickling
# ==========================================================================================
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_pickled_games_keep_their_history(engine: str) -> None:
    """A game with moves played survives pickle; ``pop`` still undoes the moves."""
    for g in game_pool(ENGINES[engine], seed=4):
        tc.tried("pickle")
        back = pickle.loads(pickle.dumps(g))
        assert type(back) is type(g)
        assert back == g
        assert back.to_text() == g.to_text()
        assert back.moves() == g.moves()
        assert back.legal_moves() == g.legal_moves()
        original = g.copy()
        while original.moves():
            assert back.pop() == original.pop()
            assert back.to_text() == original.to_text()
        assert copy.deepcopy(g) == g


def test_pickling_a_vector_env_round_trips_or_says_why() -> None:
    tc.tried("pickle")
    env = colorwars.VectorEnv(num_envs=3, width=4, height=4, threads=1)
    env.reset(seed=2)
    env.step(env.sample_legal().copy())
    try:
        data = pickle.dumps(env)
    except TypeError as e:
        message = str(e)
        assert "VectorEnv" in message, f"the refusal does not name VectorEnv: {message!r}"
        assert not re.fullmatch(r"cannot pickle '[\w.]+' object", message), (
            f"the refusal does not say why: {message!r}"
        )
        return
    back = pickle.loads(data)
    assert back.num_envs == env.num_envs
    for i in range(env.num_envs):
        assert back.board(i) == env.board(i)


# ==========================================================================================
# Threads: one Game or VectorEnv used from two threads at once
# ==========================================================================================
def _hammer_game(findings: tc.Findings, g: Any, thinker: Any, label: str) -> None:
    """While another thread's player thinks about ``g``, use ``g`` from this thread."""
    outcome: dict[str, Any] = {}

    def think() -> None:
        try:
            outcome["move"] = thinker.choose(g)
        except BaseException as e:
            outcome["error"] = e

    t = threading.Thread(target=think)
    t.start()
    ops: list[tuple[str, Callable[[], Any]]] = [
        ("to_text", g.to_text),
        ("legal_moves", g.legal_moves),
        ("copy", g.copy),
        ("moves", g.moves),
        ("counts", g.counts),
        ("str", lambda: str(g)),
        ("is_legal", lambda: g.is_legal(0)),
    ]
    while t.is_alive():
        for name, op in ops:
            tc.probe(findings, "threads", f"{label}: {name}", f"{label}: g.{name}()", op)
        legal = g.legal_moves() if t.is_alive() else []
        if legal and g.winner is None:
            played = tc.probe(
                findings, "threads", f"{label}: play", f"{label}: g.play()", g.play, legal[0]
            )
            if played.ok:
                tc.probe(findings, "threads", f"{label}: pop", f"{label}: g.pop()", g.pop)
        time.sleep(0.001)
    t.join()
    error = outcome.get("error")
    if error is not None and not tc.is_allowed(error):
        findings.raised(f"{label}: the thinking thread", error, label)
    replay = type(g)(g.width, g.height, g.players, g.rules)
    for m in g.moves():
        replay.play(m)
    if replay.to_text() != g.to_text():
        findings.add(label, "the game is inconsistent after concurrent use", label)


def test_one_game_from_two_threads() -> None:
    findings = tc.Findings()
    for engine in ENGINES.values():
        for thinker in (ai.MCTS(time=0.4, simulations=0), ai.AlphaBeta(time=0.3)):
            g = engine(6, 6)
            for m in (14, 21):
                g.play(m)
            label = f"{engine.__module__}.Game with {thinker.name} thinking in another thread"
            _hammer_game(findings, g, thinker, label)
    findings.check()


def test_one_vector_env_from_two_threads() -> None:
    findings = tc.Findings()
    env = colorwars.VectorEnv(num_envs=2048, width=12, height=12, illegal="lose", threads=1)
    env.reset(seed=0)
    stop = time.perf_counter() + 1.0

    def stepper(k: int) -> None:
        while time.perf_counter() < stop:
            tc.probe(
                findings,
                "threads",
                "VectorEnv.step from two threads",
                "two threads calling env.step(env.sample_legal().copy())",
                lambda: env.step(env.sample_legal().copy()),
            )
            if k == 1:
                tc.probe(
                    findings,
                    "threads",
                    "VectorEnv.board during step",
                    "env.board(0) while another thread steps",
                    env.board,
                    0,
                )

    threads = [threading.Thread(target=stepper, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    while time.perf_counter() < stop:
        tc.probe(
            findings,
            "threads",
            "VectorEnv.reset during step",
            "env.reset(seed=1) while other threads step",
            env.reset,
            seed=1,
        )
        time.sleep(0.05)
    for t in threads:
        t.join()
    findings.check()


# ==========================================================================================
# The command line: one error line, never a traceback
# ==========================================================================================
def run_cli(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int | None, str, str, BaseException | None]:
    tc.tried("cli")
    code: int | None = None
    error = None
    try:
        code = cli_main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:
        error = e
    out, err = capsys.readouterr()
    return code, out, err, error


def clean_error(code: int | None, err: str, error: BaseException | None) -> list[str]:
    """What is wrong with how the CLI reported a failure (nothing: one error line)."""
    problems = []
    if error is not None:
        problems.append(f"raised {tc.class_name(error)} out of main (a traceback): {error!s:.160}")
    elif code == 0:
        problems.append("exit status 0")
    if "Traceback" in err:
        problems.append("printed a traceback")
    error_lines = [line for line in err.splitlines() if "error" in line.lower()]
    if error is None and len(error_lines) != 1:
        problems.append(f"{len(error_lines)} error lines on stderr: {err.strip()[:300]!r}")
    return problems


RECORD = "size: 3x3\nmoves: a1 c3\n"
CLI_FILES: dict[str, bytes] = {
    "non-utf8.cwr": b"size: 3x3\nmoves: a1\nnote: caf\xe9 \xff\xfe\n",
    "utf16.cwr": RECORD.encode("utf-16"),
    "markup-moves.cwr": b"size: 3x3\nmoves: a1 [/x]\n",
    "markup-rules.cwr": b"size: 3x3\nrules: [/red]\nmoves: a1\n",
    "superscript.cwr": "size: \u00b2x5\nmoves: a1\n".encode(),
    "arabic.cwr": "size: 5x\u0663\nmoves: a1\n".encode(),
    "digits.cwr": ("size: " + "9" * 5000 + "x5\nmoves: a1\n").encode(),
    "huge.cwr": b"size: 99999999999999999999x99999999999999999999\nmoves: a1\n",
    "zero.cwr": b"size: 0x0\nmoves:\n",
    "players.cwr": b"size: 3x3\nplayers: 99999999999999999999\nmoves: a1\n",
    "final.cwr": b"size: 3x3\nmoves: a1\nfinal: [/x] nonsense\n",
    "surrogate.cwr": b"size: 3x3\nmoves: \xed\xa0\x80\n",
    "nul.cwr": b"size: 3x3\x00\nmoves: a1\n",
    "empty.cwr": b"",
    "[red]bracket[.cwr": b"size: 1x1\nmoves:\n",
}

CLI_CASES: list[list[str]] = [
    *[["replay", f"{{tmp}}/{name}"] for name in CLI_FILES],
    ["replay", "--engine", "reference", "{tmp}/markup-moves.cwr"],
    ["replay", "{tmp}/[/x]missing.cwr"],
    ["replay", "{tmp}"],
    ["simulate", "--games", "200", "--output", "{tmp}/no/such/folder/out.csv"],
    ["simulate", "--games", "200", "--output", "{tmp}/no/such/folder/out.json"],
    ["simulate", "--games", "200", "--output", "{tmp}/out.txt"],
    ["simulate", "--games", "20", "--rules", "bogus"],
    ["simulate", "--games", "20", "--rules", "[/x]"],
    ["simulate", "--games", "20", "--rules", ""],
    ["simulate", "--games", "20", "--size", "1x1"],
    ["simulate", "--games", "20", "--size", "33x33"],
    ["simulate", "--games", "20", "--size", "0x0"],
    ["simulate", "--games", "20", "--size", "99999999999999999999x5"],
    ["simulate", "--games", "20", "--size", "\u00b2x5"],
    ["simulate", "--games", "20", "--size", "5x"],
    ["simulate", "--games", "-1"],
    ["simulate", "--games", "1" + "0" * 30],
    ["simulate", "--games", "20", "--players", "0"],
    ["simulate", "--games", "20", "--players", "99999999999999999999"],
    ["simulate", "--games", "20", "--threads", "-1"],
    ["simulate", "--games", "20", "--threads", "1" + "0" * 30],
    ["simulate", "--games", "20", "--seed", "-1"],
    ["simulate", "--games", "20", "--seed", str(2**64)],
    ["simulate", "--games", "20", "--max-plies", "0"],
    ["simulate", "--games", "20", "--max-plies", "-1"],
    ["simulate", "--games", "20", "--max-plies", "1" + "0" * 30],
    ["simulate", "--games", "20", "--first", "z"],
    ["simulate", "--games", "20", "--first", "h"],
    ["simulate", "--games", "20", "--policies", "bogus"],
    ["simulate", "--games", "20", "--policies", "[/x]"],
    ["simulate", "--games", "20", "--policies", "random,random,random"],
    ["simulate", "--games", "20", "--policies", ""],
    ["simulate", "--games", "20", "--policies", "mcts:-1"],
    ["simulate", "--games", "20", "--shards", "3"],
    ["simulate", "--games", "20", "--address", "[/x]"],
    ["solve", "1x1"],
    ["solve", "33x2"],
    ["solve", "99999999999999999999x2"],
    ["solve", "ax2"],
    ["solve", "2x2", "--rules", "nope"],
    ["solve", "2x2", "--rules", "[/x]"],
    ["solve", "2x2", "--max-depth", "0"],
    ["solve", "2x2", "--max-depth", "1" + "0" * 30],
    ["tournament", "--players", "random"],
    ["tournament", "--players", "bogus,random"],
    ["tournament", "--players", ""],
    ["tournament", "--players", "random,[/x]"],
    ["tournament", "--players", "random,greedy", "--games", "-1"],
    ["tournament", "--players", "random,greedy", "--games", "1" + "0" * 30],
    ["tournament", "--players", "random,greedy", "--size", "1x1"],
    ["tournament", "--players", "random,greedy", "--threads", "-1"],
    ["tournament", "--players", "random,greedy", "--seed", "-1"],
    ["tournament", "--players", "random,greedy", "--rules", "nope"],
    ["openings", "--first", "bogus"],
    ["openings", "--second", "[/x]"],
    ["openings", "--games", "-1"],
    ["openings", "--size", "1x1"],
    ["openings", "--size", "1000000x1000000", "--games", "1"],
    ["openings", "--threads", "-1", "--games", "1"],
    ["openings", "--rules", "nope", "--games", "1"],
    [
        "openings",
        "--size",
        "2x2",
        "--games",
        "1",
        "--first",
        "random",
        "--second",
        "random",
        "--png",
        "{tmp}/no/such/folder/map.png",
    ],
    ["play", "--opponent", "bogus"],
    ["play", "--opponent", "[/x]"],
    ["play", "--size", "1x1"],
    ["play", "--you", "z"],
    ["play", "--rules", "nope"],
]


def _cli_id(argv: list[str]) -> str:
    return " ".join(argv).replace("{tmp}/", "")[:60]


@pytest.mark.parametrize("argv", CLI_CASES, ids=[_cli_id(a) for a in CLI_CASES])
def test_cli_bad_input_gives_one_error_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in CLI_FILES.items():
        (tmp_path / name).write_bytes(data)
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err, error = run_cli(args, capsys)
    problems = clean_error(code, err, error)
    if "--output" in argv and out.strip():
        problems.append("ran the simulation before refusing the output path")
    if problems:
        pytest.fail(f"colorwars {_cli_id(argv)}: " + "; ".join(problems), pytrace=False)


NOTES = ["[/bold]", "[red]not red[/red] and [plot]", "\\[x] [/] [bold", "caf\u00e9 \u00b2"]


@pytest.mark.parametrize("note", NOTES)
@pytest.mark.parametrize("engine", ["native", "reference"])
def test_cli_prints_record_text_verbatim(
    note: str, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose note looks like rich markup replays, and the note is shown as written."""
    path = tmp_path / "note.cwr"
    path.write_text(f"size: 3x3\nmoves: a1\nnote: {note}\n", encoding="utf-8")
    code, out, err, error = run_cli(["replay", "--engine", engine, "--quiet", str(path)], capsys)
    if error is not None:
        pytest.fail(f"raised {tc.class_name(error)} out of main: {error}", pytrace=False)
    assert code == 0, err
    assert note in out, f"the note {note!r} was not printed as written: {out[:300]!r}"


# ==========================================================================================
# Risky calls, each in a child interpreter (4 GiB of address space, a time bound)
# ==========================================================================================
@dataclass(frozen=True)
class Risky:
    what: str
    code: str
    bound: float
    reject: bool = True  # the call must not succeed
    cli: bool = False


RISKY: list[Risky] = [
    Risky("simulate(games=10**12)", "colorwars.simulate(games=10**12)", 20),
    Risky("simulate(games=2**40)", "colorwars.simulate(games=2**40)", 20),
    Risky("simulate(games=4, threads=100000)", "colorwars.simulate(games=4, threads=100000)", 5),
    Risky("simulate(games=4, threads=2**63)", "colorwars.simulate(games=4, threads=2**63)", 5),
    Risky(
        "VectorEnv(num_envs=2**24, width=32, height=32, players=8)",
        "colorwars.VectorEnv(num_envs=2**24, width=32, height=32, players=8)",
        20,
    ),
    Risky(
        "VectorEnv(num_envs=1_000_000, width=32, height=32, players=8)",
        "colorwars.VectorEnv(num_envs=1_000_000, width=32, height=32, players=8)",
        20,
    ),
    Risky(
        "VectorEnv(num_envs=4, threads=100000)",
        "colorwars.VectorEnv(num_envs=4, threads=100000)",
        5,
    ),
    Risky(
        "VectorEnv(num_envs=4, threads=2**63)", "colorwars.VectorEnv(num_envs=4, threads=2**63)", 5
    ),
    Risky("ai.match(seats, 2**40)", "ai.match([ai.Random(), ai.Random()], 2**40)", 20),
    Risky(
        "ai.match(seats, 4, threads=100000)",
        "ai.match([ai.Random(), ai.Random()], 4, threads=100000)",
        5,
    ),
    Risky(
        "ai.match(seats, 4, threads=2**63)",
        "ai.match([ai.Random(), ai.Random()], 4, threads=2**63)",
        5,
    ),
    Risky("ai.tournament(players, 2**41)", "ai.tournament([ai.Random(), ai.Greedy()], 2**41)", 20),
    Risky(
        "ai.opening_win_rates(R, R, 2**40, 2, 2)",
        "ai.opening_win_rates(ai.Random(), ai.Random(), 2**40, 2, 2)",
        20,
    ),
    Risky(
        "ai.MCTS(simulations=10, threads=100000).choose(g)",
        "ai.MCTS(simulations=10, threads=100000).choose(colorwars.Game(3, 3))",
        5,
    ),
    Risky(
        "colorwars simulate --games 1000000000000",
        json.dumps(["simulate", "--games", "1000000000000", "--no-progress"]),
        20,
        cli=True,
    ),
    Risky(
        "colorwars simulate --games 10 --threads 100000",
        json.dumps(["simulate", "--games", "10", "--threads", "100000"]),
        5,
        cli=True,
    ),
    Risky("colorwars replay /dev/zero", json.dumps(["replay", "/dev/zero"]), 10, cli=True),
]


@pytest.fixture(scope="module")
def risky_children() -> dict[str, tc.Child]:
    """All the risky children, two at a time (each may use up to 4 GiB)."""

    def one(case: Risky) -> tc.Child:
        code = tc.cli_child(json.loads(case.code)) if case.cli else tc.api_child(case.code)
        return tc.run_child(code, case.bound)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(one, RISKY)
        return {case.what: child for case, child in zip(RISKY, results, strict=True)}


@pytest.mark.parametrize("case", RISKY, ids=[c.what for c in RISKY])
def test_risky_call_in_a_child(case: Risky, risky_children: dict[str, tc.Child]) -> None:
    tc.tried("children")
    child = risky_children[case.what]
    print(f"{case.what}: {child.seconds:.2f} s, exit {child.returncode}")
    if not case.cli:
        tc.check_child(child, case.what, case.bound, expect_rejection=case.reject)
        return
    problems = []
    if child.returncode is None:
        problems.append(f"still running after {case.bound:.0f} s (killed)")
    elif child.returncode < 0:
        problems.append(f"died by signal {-child.returncode}")
    else:
        problems += clean_error(child.returncode, child.stderr, None)
    if problems:
        pytest.fail(f"{case.what}: {'; '.join(problems)} [{child.seconds:.1f} s]", pytrace=False)


# ==========================================================================================
# Ctrl-C: a long call ends with KeyboardInterrupt promptly (goal 0.5 s; bound 5 s)
# ==========================================================================================
CTRL_C_BOUND = 5.0
CTRL_C_AFTER = 0.7

CTRL_C_API = {
    "ai.MCTS(simulations=10**9).choose(g)": """
        g = colorwars.Game(8, 8)
        p = ai.MCTS(simulations=10**9)
        ready()
        p.choose(g)
    """,
    "ai.MCTS(time=60).choose(g)": """
        g = colorwars.Game(8, 8)
        p = ai.MCTS(time=60, simulations=0)
        ready()
        p.choose(g)
    """,
    "ai.AlphaBeta(time=60).choose(g)": """
        g = colorwars.Game(8, 8)
        p = ai.AlphaBeta(time=60)
        ready()
        p.choose(g)
    """,
    "solve(4, 4, rules='classic', cache=False)": """
        ready()
        colorwars.solve(4, 4, rules="classic", cache=False)
    """,
    "simulate(games=10**7)": """
        ready()
        colorwars.simulate(games=10**7)
    """,
    "prove(6, 6, rules='classic')": """
        ready()
        colorwars.prove(6, 6, rules="classic")
    """,
    "ai.match([MCTS(time=30)] * 2, 1): one long game": """
        seats = [ai.MCTS(time=30, simulations=0)] * 2
        ready()
        ai.match(seats, 1)
    """,
}

CTRL_C_CLI = {
    "colorwars simulate --games 10000000": ["simulate", "--games", "10000000", "--no-progress"],
    "colorwars solve 4x4 --no-cache": ["solve", "4x4", "--no-cache"],
    "colorwars solve 6x6 --method pn": ["solve", "6x6", "--method", "pn"],
}


@pytest.mark.parametrize("what", list(CTRL_C_API))
def test_ctrl_c_ends_a_long_call(what: str) -> None:
    tc.tried("children")
    child = tc.run_child(tc.api_child(CTRL_C_API[what]), CTRL_C_BOUND, CTRL_C_AFTER)
    tc.record_latency(what, child)
    if child.returncode is None:
        pytest.fail(
            f"{what}: still running {CTRL_C_BOUND:.0f} s after SIGINT (killed); "
            f"stderr: {child.tail()}",
            pytrace=False,
        )
    tc.check_child(child, what, CTRL_C_BOUND)
    result = child.result
    assert result is not None
    if not child.interrupted:
        pytest.fail(
            f"{what}: ended before the SIGINT ({result}); this test needs a call that "
            "runs for longer",
            pytrace=False,
        )
    if child.interrupted and result["raised"] != "builtins.KeyboardInterrupt":
        pytest.fail(
            f"{what}: after SIGINT it ended with {result['raised']} "
            f"({result.get('message', '')[:160]}), not KeyboardInterrupt",
            pytrace=False,
        )


@pytest.mark.parametrize("what", list(CTRL_C_CLI))
def test_ctrl_c_in_the_cli(what: str) -> None:
    tc.tried("children")
    child = tc.run_child(tc.cli_child(CTRL_C_CLI[what]), CTRL_C_BOUND, CTRL_C_AFTER)
    tc.record_latency(what, child)
    problems = []
    if not child.interrupted:
        problems.append(
            f"ended before the SIGINT (exit {child.returncode}: "
            f"{child.stderr.strip()[:160]!r}); this test needs a longer run"
        )
    if child.returncode is None:
        problems.append(f"still running {CTRL_C_BOUND:.0f} s after SIGINT (killed)")
    elif child.interrupted and child.returncode != 130:
        problems.append(f"exit status {child.returncode}, not 130")
    lines = [line for line in child.stderr.splitlines() if line.strip()]
    if "Traceback" in child.stderr:
        problems.append("printed a traceback")
    if child.returncode is not None and len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, not one: {child.stderr.strip()[:200]!r}")
    if problems:
        pytest.fail(f"{what}: {'; '.join(problems)}", pytrace=False)
