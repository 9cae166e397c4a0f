"""No Rust panic reaches Python through numpy buffers (issue 17, "Rust panics reach Python",
"``illegal="raise"`` is not atomic").

- A caller who makes the base of a returned read-only view read-only again (through
  ``obs.base``) made the next ``step`` or ``sample_legal`` raise ``PanicException:
  NotWriteable``. The views' base is now a read-only ``memoryview`` (it cannot make the view
  writable), and a buffer made read-only by any other means is made writable again by the
  environment that owns it.
- Two ``VectorEnv``s in two threads (``e2.step(e1.sample_legal())`` beside
  ``e1.sample_legal()``) raised ``PanicException: AlreadyBorrowed`` hundreds of thousands of
  times; so did a view of an environment's own observation memory passed as its actions.
  Actions are now copied before anything else happens, and buffers are borrowed fallibly.
- ``illegal="raise"`` promises that no environment changes when an action is illegal; another
  thread changing the caller's array during ``step`` made environments lose by illegal moves.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from typing import Any

import colorwars
import numpy as np
import pytest
import torture_core as tc
from colorwars.errors import ColorwarsError

#: Seconds each race runs.
RACE = 1.5


def _panic(e: BaseException) -> bool:
    return type(e).__name__ == "PanicException" or not isinstance(
        e, ColorwarsError | TypeError | MemoryError
    )


def _race(*loops: Any) -> Counter[str]:
    """Runs each loop body in its own thread for ``RACE`` seconds; counts what each raised."""
    raised: Counter[str] = Counter()
    stop = time.monotonic() + RACE

    def run(body: Any) -> None:
        while time.monotonic() < stop:
            tc.tried("VectorEnv across threads")
            try:
                body()
            except BaseException as e:
                raised[type(e).__name__ if _panic(e) else "ours"] += 1

    threads = [threading.Thread(target=run, args=(body,)) for body in loops]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return raised


def test_a_base_made_read_only_does_not_panic() -> None:
    env = colorwars.VectorEnv(num_envs=8, width=5, height=5)
    obs, info = env.reset(seed=1)
    # The returned views' base cannot be used to make them writable.
    for view in (obs, info["action_mask"], info["final_obs"], env.sample_legal()):
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True
        base = view.base
        assert isinstance(base, memoryview)
        assert base.readonly
        with pytest.raises(ValueError, match="WRITEABLE"):
            np.asarray(base).flags.writeable = True
    # The buffers themselves, made read-only behind the environment's back (the memoryview
    # leads to them): the environment makes its own buffers writable again.
    for view in (obs, info["action_mask"], env.sample_legal(), info["winner"]):
        owner = view.base.obj
        owner.flags.writeable = False
    for _ in range(20):
        tc.tried("VectorEnv with read-only buffers")
        env.step(env.sample_legal())
    env.reset()
    assert obs.shape == (8, 2, 5, 5)


def test_two_environments_in_two_threads_never_panic() -> None:
    e1 = colorwars.VectorEnv(num_envs=64, width=5, height=5, illegal="lose")
    e2 = colorwars.VectorEnv(num_envs=64, width=5, height=5, illegal="lose")
    e1.reset(seed=1)
    e2.reset(seed=2)
    raised = _race(lambda: e2.step(e1.sample_legal()), lambda: e1.sample_legal())
    assert set(raised) <= {"ours"}, raised


def test_an_environment_stepped_with_its_own_memory_does_not_panic() -> None:
    env = colorwars.VectorEnv(num_envs=8, width=4, height=4, illegal="lose")
    env.reset(seed=3)
    obs = env.step(env.sample_legal())[0]
    # Its own observation memory (8 x 2 x 4 x 4 bytes = 32 int64), as its actions.
    own = obs.base.obj.reshape(-1)[: 8 * 8].view(np.int64)
    for actions in (own, env.sample_legal(), env.sample_legal()[::-1].copy()):
        tc.tried("VectorEnv with aliased actions")
        with contextlib.suppress(ColorwarsError):
            env.step(actions)
    # Two environments' buffers passed to each other from two threads.
    e2 = colorwars.VectorEnv(num_envs=8, width=4, height=4, illegal="lose")
    e2.reset(seed=4)
    raised = _race(
        lambda: env.step(e2.sample_legal()),
        lambda: e2.step(env.sample_legal()),
        lambda: e2.step(env.step(e2.sample_legal())[0].base.obj.reshape(-1)[:64].view(np.int64)),
    )
    assert set(raised) <= {"ours"}, raised


def test_raise_changes_no_environment_while_the_caller_changes_its_array() -> None:
    """Another thread flipping the caller's actions between legal and illegal during
    ``step``: every step either plays the legal actions or raises with nothing changed; no
    environment ever ends as an illegal-move loss."""
    env = colorwars.VectorEnv(num_envs=256, width=6, height=6, illegal="raise")
    env.reset(seed=7)
    legal = np.array(env.sample_legal())
    actions = legal.copy()
    stop = threading.Event()

    def flip() -> None:
        bad = np.full_like(legal, -1)
        while not stop.is_set():
            actions[:] = bad
            actions[:] = legal

    t = threading.Thread(target=flip)
    t.start()
    steps = errors = 0
    try:
        end = time.monotonic() + RACE
        while time.monotonic() < end:
            tc.tried("VectorEnv.step racing its actions")
            before = [env.board(i) for i in (0, 100, 255)]
            try:
                _, _, _, _, info = env.step(actions)
            except (colorwars.InvalidMoveError, colorwars.IllegalMoveError):
                errors += 1
                assert [env.board(i) for i in (0, 100, 255)] == before
                continue
            steps += 1
            assert not info["illegal"].any()
            assert (info["seat_rewards"] >= 0).all() or info["winner"].max() >= 0
            # The next legal actions, for the flipping thread to use.
            legal[:] = env.sample_legal()
    finally:
        stop.set()
        t.join()
    assert steps + errors > 0
