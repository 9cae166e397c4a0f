"""The reference engine under threads and on broken states (issue 17, item 5): a game shared
by threads stays a game the rules could reach, and no loop of the engine runs for ever, even
on a state that breaks the rules' invariants. Cases that looped for ever before run in child
processes with a time limit."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import pytest
from colorwars import InvalidPositionError, reference

HAMMER = """
import json, random, sys, threading
from colorwars import ColorwarsError, reference
sys.setswitchinterval(1e-6)
game = reference.Game({width}, {height}, {players}, {rules!r})
errors = []

def hammer(k):
    rng = random.Random(k)
    try:
        for _ in range({rounds}):
            moves = game.legal_moves()
            if not moves or rng.random() < 0.1:
                for _ in range(rng.randrange(1, 4)):
                    try:
                        game.pop()
                    except ColorwarsError:  # nothing to undo: another thread was first
                        pass
                continue
            try:
                game.play(rng.choice(moves))
            except ColorwarsError:  # another thread moved first: no longer legal
                pass
            game.to_text(), game.copy(), game.waves(), game.owners()
    except BaseException as e:
        errors.append(f"{{type(e).__name__}}: {{e}}")

threads = [threading.Thread(target=hammer, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
# The game is one the rules reach by its own moves, and it still plays to its end.
again = reference.Game({width}, {height}, {players}, {rules!r})
for m in game.moves():
    again.play(m)
same = again.to_text() == game.to_text()
rng = random.Random(0)
for _ in range(100_000):
    if game.winner is not None:
        break
    game.play(rng.choice(game.legal_moves()))
print("RESULT " + json.dumps({{"errors": errors[:5], "same": same, "winner": game.winner}}))
"""


def _child(code: str, timeout: float = 60) -> dict[str, object]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
            check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child was still running after {timeout} s (a loop without end?)")
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    assert lines, done.stderr[-3000:]
    doc: dict[str, object] = json.loads(lines[-1].removeprefix("RESULT "))
    return doc


@pytest.mark.parametrize(
    ("width", "height", "players", "rules"),
    [
        (3, 3, 2, "classic"),
        (2, 2, 2, "classic"),
        (4, 4, 3, "colorwars"),
        (3, 2, 2, "drop3+subtract"),
    ],
)
def test_a_game_shared_by_eight_threads_stays_a_game(
    width: int, height: int, players: int, rules: str
) -> None:
    """Issue 17 item 5: a ``colorwars.reference.Game`` shared by 8 threads ended in a
    corrupted state in which ``play()`` looped for ever. Every public method now holds the
    game's lock: the game is always the one its own moves give, and it plays to its end."""
    code = textwrap.dedent(HAMMER).format(
        width=width, height=height, players=players, rules=rules, rounds=400
    )
    doc = _child(code)
    assert doc["errors"] == [], doc
    assert doc["same"] is True, doc
    assert doc["winner"] is not None, doc


BROKEN = """
import json
from colorwars import reference
from colorwars.reference import _State
g = reference.Game({width}, {height}, {players}, {rules!r})
g._state = _State({counts}, {owners}, {to_move}, set({moved}), set({out}), None, {ply})
try:
    g.play({move!r})
except BaseException as e:
    doc = {{"raised": type(e).__name__, "message": str(e)}}
else:
    doc = {{"raised": None, "text": g.to_text()}}
print("RESULT " + json.dumps(doc))
"""

BROKEN_CASES = {
    # 5 orbs on a 2x2 board under subtract never settle; with the elimination check not yet
    # active (the third player has not moved) nothing stops the cascade.
    "a cascade that never settles": dict(
        width=2, height=2, players=3, rules="classic", counts=[1, 1, 1, 1],
        owners=[0, 0, 1, 1], to_move=0, moved=[0, 1], out=[], ply=2, move="a1",
    ),
    "the same under the empty burst": dict(
        width=2, height=2, players=3, rules="none+empty", counts=[1, 1, 1, 1],
        owners=[0, 0, 1, 1], to_move=0, moved=[0, 1], out=[], ply=2, move="a1",
    ),
    # Every player out: no one is left to move next.
    "every player out": dict(
        width=3, height=3, players=2, rules="classic", counts=[1, 0, 0, 0, 0, 0, 0, 0, 1],
        owners=[0, -1, -1, -1, -1, -1, -1, -1, 1], to_move=0, moved=[0, 1], out=[0, 1],
        ply=2, move="a1",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BROKEN_CASES))
def test_a_broken_state_is_a_clear_error_not_a_loop(case: str) -> None:
    """Issue 17 item 5: every loop of the reference engine is bounded even on a state that
    breaks the rules' invariants: a cascade that would repeat a position (and so never end)
    and a turn order with no player left are an ``InvalidPositionError`` saying so."""
    doc = _child(textwrap.dedent(BROKEN).format(**BROKEN_CASES[case]), timeout=60)
    assert doc["raised"] == "InvalidPositionError", doc


def test_the_game_still_copies_and_pickles() -> None:
    """Issue 17 item 5: the lock is the game's own: a copy has a lock of its own, and a game
    pickles (the lock is made again) as before."""
    g = reference.Game(3, 3, 2, "classic")
    g.play("b2")
    c = g.copy()
    assert c._lock is not g._lock
    p = pickle.loads(pickle.dumps(g))
    assert p == g
    p.play("a1")
    assert p.to_text() != g.to_text()
    with pytest.raises(InvalidPositionError):
        reference.Game.from_text("2x2 classic 2 9a./.. b a - 1")
