"""Late refusals (issue 17, item 3): a request too large for memory is refused with
``MemoryError`` before any work, never after minutes of it. ``simulate(record=True)`` bounds
the recorded moves up front from the longest game the rules allow."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import colorwars
import pytest
from colorwars.rules import GameConfig, Rules
from colorwars.simulation import longest_game

LIMIT = 3 * 2**29  # 1.5 GiB of address space for the child
CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
import colorwars
done = []
start = time.perf_counter()
try:
    colorwars.simulate(progress=lambda d, t: done.append(d), **{kwargs})
except MemoryError as e:
    doc = {{"raised": "MemoryError", "message": str(e)}}
except BaseException as e:
    doc = {{"raised": type(e).__name__, "message": str(e)[:300]}}
else:
    doc = {{"raised": None}}
doc["seconds"] = time.perf_counter() - start
doc["done"] = max(done, default=0)
print("RESULT " + json.dumps(doc), flush=True)
"""


def _child(kwargs: dict[str, object], timeout: float = 40) -> dict[str, object]:
    code = textwrap.dedent(CHILD).format(limit=LIMIT, kwargs=repr(kwargs))
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"simulate({kwargs}) was still working after {timeout} s: a late refusal")
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    assert lines, done.stderr[-2000:]
    doc: dict[str, object] = json.loads(lines[-1].removeprefix("RESULT "))
    return doc


CASES = {
    "classic 32x32": {"rules": "classic"},
    "classic 32x32, search players": {"rules": "classic", "seats": ["mcts:2", "random"]},
    "drop3+subtract 32x32": {"rules": "drop3+subtract"},
    "colorwars 32x32, max_plies": {"rules": "colorwars", "max_plies": 3000},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_recording_too_many_moves_is_refused_at_once(case: str) -> None:
    """Issue 17 item 3: ``simulate(record=True)`` on 200,000 games of 32x32 classic under a
    1.5 GiB address-space limit raised ``MemoryError`` only after 117 s of work; the recorded
    moves are now bounded up front (classic: capacity + 1 plies a game, RULES-NOTES §4;
    colorwars: ``max_plies``), so the refusal comes at once, with nothing simulated."""
    kwargs = {"games": 200_000, "width": 32, "height": 32, "record": True, **CASES[case]}
    doc = _child(kwargs)
    assert doc["raised"] == "MemoryError", doc
    assert "recorded moves" in str(doc["message"]), doc
    assert float(doc["seconds"]) < 20, doc  # type: ignore[arg-type]
    assert doc["done"] == 0, doc


def test_the_same_run_without_recording_is_not_refused() -> None:
    """Issue 17 item 3: the bound counts the recorded moves only: the results alone of those
    200,000 games fit (the run itself is cut short here by a small count)."""
    doc = _child({"games": 2_000, "width": 32, "height": 32, "rules": "classic"}, timeout=120)
    assert doc["raised"] is None, doc


@pytest.mark.parametrize("rules", ["classic", "drop3+subtract", "none+subtract"])
@pytest.mark.parametrize(("width", "height"), [(2, 2), (3, 3), (4, 3), (5, 5)])
def test_no_game_outlasts_the_bound(rules: str, width: int, height: int) -> None:
    """Issue 17 item 3: the bound the memory check uses holds: under the subtract burst no
    game lasts more than the board's capacity + 1 plies (RULES-NOTES §4), whatever the
    players; under the empty burst there is no bound."""
    bound = longest_game(GameConfig(width, height, 2, Rules.parse(rules), 0))
    capacity = sum(
        (x > 0) + (x < width - 1) + (y > 0) + (y < height - 1) - 1
        for y in range(height)
        for x in range(width)
    )
    assert bound == capacity + 1
    for seats in ("random", "greedy"):
        r = colorwars.simulate(
            games=3000, width=width, height=height, rules=rules, seats=seats, seed=5
        )
        assert int(r.plies.max()) <= bound
    for players in (3, 4):
        if players <= width * height:
            r = colorwars.simulate(
                games=1000, width=width, height=height, players=players, rules=rules, seed=6
            )
            assert int(r.plies.max()) <= longest_game(
                GameConfig(width, height, players, Rules.parse(rules), 0)
            )
    assert longest_game(GameConfig(width, height, 2, Rules.parse("colorwars"), 0)) is None
