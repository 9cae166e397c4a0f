"""The torture suite: Ctrl-C: a long call ends with KeyboardInterrupt promptly (goal 0.5 s; bound 5
s)."""

from __future__ import annotations

import pytest
import torture_core as tc

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
    # 4x4 colorwars is solved in a quarter of a second since the solver's table grows as it
    # fills; the alpha-beta solver has not finished 4x4 classic in 17 minutes.
    "colorwars solve 4x4 --rules classic --no-cache": [
        "solve",
        "4x4",
        "--rules",
        "classic",
        "--no-cache",
    ],
    "colorwars solve 6x6 --method pn": ["solve", "6x6", "--method", "pn"],
}


@pytest.mark.slow
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
