"""The torture suite: risky calls, each in a child interpreter (4 GiB of address space, a time
bound)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
import torture_core as tc

from torture.common import (
    clean_error,
)


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
        "ai.MCTS(simulations=10, trees=100000).choose(g)",
        "ai.MCTS(simulations=10, trees=100000).choose(colorwars.Game(3, 3))",
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
