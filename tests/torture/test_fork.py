"""Native work in child processes (issue 17, "Fork").

A ``VectorEnv`` (or any object holding a native thread pool) used in an ``os.fork()`` child
or a fork-started ``multiprocessing`` process hung forever: a fork copies only the calling
thread, so the pool's threads are not there. The environment notices that its process changed
and starts a pool of its own. Every long native entry point (``simulate``, ``VectorEnv``, MCTS
with several trees, ``prove``) is run in children made by all three start methods, after the
parent has used the same machinery (so its pools and threads exist when it forks); each child
must finish with the parent's results, within a time bound after which it is killed.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from typing import Any

import colorwars
import numpy as np
import pytest
import torture_core as tc

#: Seconds a child may take before it counts as hung (each finishes in well under one).
BOUND = 60.0


def _simulate() -> Any:
    return colorwars.simulate(games=200, width=5, height=5, seed=3, threads=2).winners.tolist()


def _env_steps(env: colorwars.VectorEnv | None = None) -> Any:
    env = env or colorwars.VectorEnv(num_envs=64, width=5, height=5, threads=2)
    env.reset(seed=5)
    total = 0
    for _ in range(50):
        _, rewards, *_ = env.step(env.sample_legal())
        total += int(rewards.sum())
    return [total, env.board(0)["ply"]]


def _mcts() -> Any:
    game = colorwars.Game(5, 5)
    game.play("c3")
    return colorwars.ai.MCTS(simulations=2000, trees=2, seed=1).choose(game)


def _prove() -> Any:
    p = colorwars.prove(4, 4, rules="colorwars", verify=True)
    return [p.winner, p.complete, p.checked]


WORK = {"simulate": _simulate, "vectorenv": _env_steps, "mcts": _mcts, "prove": _prove}


def _run(name: str, queue: Any) -> None:
    queue.put((name, WORK[name]()))


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    """Every workload run here first: the parent's own pools and threads now exist."""
    return {name: work() for name, work in WORK.items()}


def _join(process: Any, queue: Any, what: str) -> Any:
    process.join(BOUND)
    if process.is_alive():
        process.kill()
        process.join()
        pytest.fail(f"{what}: the child hung (killed after {BOUND:.0f} s)")
    assert process.exitcode == 0, f"{what}: the child exited with {process.exitcode}"
    return queue.get(timeout=5)[1]


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
@pytest.mark.parametrize("name", sorted(WORK))
def test_native_work_in_a_child_process(method: str, name: str, expected: dict[str, Any]) -> None:
    tc.tried(f"{method} child")
    ctx = multiprocessing.get_context(method)
    queue = ctx.Queue()
    process = ctx.Process(target=_run, args=(name, queue))
    process.start()
    assert _join(process, queue, f"{name} in a {method} child") == expected[name]


def test_an_environment_of_the_parent_steps_in_forked_children(expected: dict[str, Any]) -> None:
    """The parent's own ``VectorEnv``, stepped before the fork, stepped again in the child
    (``os.fork`` and a fork-started ``multiprocessing.Process``)."""
    env = colorwars.VectorEnv(num_envs=64, width=5, height=5, threads=2)
    assert _env_steps(env) == expected["vectorenv"]
    # os.fork: the child reports through a pipe and exits without Python's clean-up.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(read)
            os.write(write, repr(_env_steps(env)).encode())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("a VectorEnv stepped in an os.fork() child hung")
    with os.fdopen(read) as f:
        assert f.read() == repr(expected["vectorenv"])
    tc.tried("os.fork child")
    # A fork-started multiprocessing child, handed the environment itself.
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()

    def child() -> None:
        queue.put(("env", _env_steps(env)))

    process = ctx.Process(target=child)
    process.start()
    assert _join(process, queue, "the parent's VectorEnv in a fork child") == expected["vectorenv"]
    tc.tried("fork child")
    # And the parent's environment still works.
    assert _env_steps(env) == expected["vectorenv"]


def test_the_environment_is_the_same_after_the_fork() -> None:
    """Stepping in the child does not disturb the parent's copy (separate memory)."""
    env = colorwars.VectorEnv(num_envs=8, width=4, height=4, threads=2)
    env.reset(seed=1)
    before = np.array(env.step(env.sample_legal())[0])
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=lambda: queue.put(("steps", _env_steps(env))))
    process.start()
    _join(process, queue, "fork child")
    assert np.array_equal(np.asarray(env.step(env.sample_legal())[0]).shape, before.shape)
