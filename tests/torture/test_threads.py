"""The torture suite: threads: one Game or VectorEnv used from two threads at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import colorwars
import torture_core as tc
from colorwars import ai

from torture.common import (
    ENGINES,
)


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
