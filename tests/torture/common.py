"""What the torture suites share: the engines, the catalogue of bad values, the hypothesis
settings, and the helpers several suites use (see ``tests/torture/__init__.py``)."""

from __future__ import annotations

import random
from typing import Any

import colorwars
import numpy as np
import torture_core as tc
from colorwars import ai, reference
from hypothesis import HealthCheck, settings
from torture_values import (
    as_int,
    catalogue,
)

ENGINES = {"native": colorwars.Game, "reference": reference.Game}
U64 = 2**64 - 1
CATALOGUE = catalogue()
FUZZ = settings(suppress_health_check=list(HealthCheck), deadline=None)
R0, R1, G0 = ai.Random(), ai.Random(seed=1), ai.Greedy()


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
