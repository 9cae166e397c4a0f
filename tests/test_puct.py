"""PUCT with a network the user brings (issue 22, section 1): the search, self-play records,
and the evaluator interface (every bad return, an exception, Ctrl-C)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import colorwars
import numpy as np
import pytest
from colorwars import reference, views
from colorwars.errors import ConfigError, GameOverError, InvalidEvaluatorError
from colorwars.puct import PUCT, self_play


def uniform(planes: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)


class Switch:
    """An evaluator that returns whatever `bad` makes of a good return, while `bad` is set."""

    def __init__(self) -> None:
        self.bad: Any = None
        self.calls = 0

    def __call__(self, planes: np.ndarray, mask: np.ndarray) -> Any:
        self.calls += 1
        logits, values = uniform(planes, mask)
        return (logits, values) if self.bad is None else self.bad(logits, values, mask)


# -- the search -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "players", "rules"),
    [(5, 5, 2, "colorwars"), (4, 3, 2, "classic"), (4, 4, 3, "colorwars")],
)
def test_a_uniform_evaluator_plays_only_legal_moves(
    width: int, height: int, players: int, rules: str
) -> None:
    player = PUCT(uniform, simulations=60, batch=16, seed=3)
    g = colorwars.Game(width, height, players=players, rules=rules)
    while not g.is_over and g.ply < 120:
        cell = player.choose(g)
        assert cell in g.legal_moves()
        rows = player.analyse(g)
        assert sorted(r.cell for r in rows) == g.legal_moves()
        g.play(cell)


def test_the_visits_sum_to_the_simulations_and_a_kept_tree_adds_to_them() -> None:
    g = colorwars.Game(5, 5)
    fresh = PUCT(uniform, simulations=300, reuse=False)
    assert sum(r.visits for r in fresh.analyse(g)) == 300
    assert abs(sum(r.share for r in fresh.analyse(g)) - 1) < 1e-9
    kept = PUCT(uniform, simulations=300)
    kept.choose(g)
    assert sum(r.visits for r in kept.analyse(g)) == 600  # the same root, searched again


@pytest.mark.parametrize("engine", [colorwars.Game, reference.Game])
def test_a_win_in_one_is_taken(engine: Any) -> None:
    # 2x2 classic, a to move: a1 takes b's only cell.
    g = engine.from_text("2x2 classic 2 1a1b/.. a ab - 2")
    evaluator = Switch()
    player = PUCT(evaluator, simulations=500, temperature=1.0)
    assert player.choose(g) == 0
    assert evaluator.calls == 1  # the root's evaluation proves the win
    best = max(player.analyse(g), key=lambda r: r.proven is True)
    assert (best.cell, best.proven) == (0, True)
    g.play(0)
    with pytest.raises(GameOverError):
        player.choose(g)


@pytest.mark.parametrize(
    ("width", "height", "rules", "simulations"),
    [(2, 3, "classic", 2000), (3, 3, "colorwars", 2000), (3, 3, "classic", 20000)],
)
def test_on_solved_boards_proofs_agree_and_a_winning_move_is_played(
    width: int, height: int, rules: str, simulations: int
) -> None:
    rng = random.Random(width * 10 + height)
    winning = 0
    for trial in range(12):
        g = colorwars.Game(width, height, rules=rules)
        for _ in range(rng.randrange(0, 6)):
            if not g.is_over:
                g.play(rng.choice(g.legal_moves()))
        if g.is_over:
            continue
        exact = colorwars.solve(g)
        player = PUCT(uniform, simulations=simulations, dirichlet_weight=0, seed=trial)
        for row in player.analyse(g):
            if row.proven is not None:
                assert row.proven == (exact.moves[row.cell][0] == g.to_move), (g.to_text(), row)
        if exact.winning_moves():
            winning += 1
            assert player.choose(g) in exact.winning_moves(), g.to_text()
    assert winning >= 3


def test_search_batch_gives_one_distribution_per_position() -> None:
    games = [colorwars.Game(4, 4) for _ in range(5)]
    for i, g in enumerate(games):
        for cell in [0, 15, 0][: i % 4]:
            g.play(cell)
    dist = PUCT(uniform, simulations=100, batch=32).search_batch(games)
    assert dist.shape == (5, 16)
    assert dist.dtype == np.float32
    for g, row in zip(games, dist, strict=True):
        assert abs(row.sum() - 1) < 1e-5
        assert set(np.flatnonzero(row)) <= set(g.legal_moves())
    with pytest.raises(ConfigError, match=r"games\[1\]"):
        PUCT(uniform).search_batch([colorwars.Game(4, 4), colorwars.Game(5, 5)])
    over = colorwars.Game.from_text("2x2 classic 2 1a1b/.. a ab - 2")
    over.play(0)
    with pytest.raises(GameOverError, match=r"games\[1\]"):
        PUCT(uniform).search_batch([colorwars.Game(2, 2, rules="classic"), over])


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("simulations", 0),
        ("simulations", 1.5),
        ("c_puct", -1),
        ("c_puct", float("nan")),
        ("dirichlet", 0),
        ("dirichlet_weight", 2),
        ("temperature", -0.1),
        ("batch", 0),
        ("time", -1),
        ("seed", -1),
        ("reuse", "yes"),
    ],
)
def test_bad_settings_are_our_errors(setting: str, value: object) -> None:
    with pytest.raises(ConfigError, match=setting.split("_")[0]):
        PUCT(uniform, **{setting: value})  # type: ignore[arg-type]


def test_an_evaluator_must_be_callable() -> None:
    with pytest.raises(InvalidEvaluatorError, match="callable"):
        PUCT("net")  # type: ignore[arg-type]
    with pytest.raises(InvalidEvaluatorError, match="callable"):
        self_play(None)  # type: ignore[arg-type]


# -- self-play --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "players", "rules"),
    [(3, 3, 2, "colorwars"), (4, 3, 2, "classic"), (4, 4, 3, "colorwars")],
)
def test_self_play_records_agree_with_their_games_replayed(
    width: int, height: int, players: int, rules: str
) -> None:
    data = self_play(
        uniform, games=12, width=width, height=height, players=players, rules=rules,
        simulations=24, batch=8, seed=5,
    )  # fmt: skip
    n, cells = len(data), width * height
    assert data.planes.shape == (n, players, height, width)
    assert data.planes.dtype == np.uint8
    assert data.mask.shape == (n, cells)
    assert data.mask.dtype == np.uint8
    assert data.visits.shape == (n, cells)
    assert data.visits.dtype == np.float32
    for name in ("outcome", "ply", "game", "move"):
        assert getattr(data, name).shape == (n,)
    assert sorted(set(data.game.tolist())) == list(range(12))
    for game in range(12):
        rows = np.flatnonzero(data.game == game)
        g = colorwars.Game(width, height, players=players, rules=rules)
        for r in rows:
            assert data.ply[r] == g.ply
            assert np.array_equal(data.planes[r], views.planes(g))
            assert np.array_equal(data.mask[r], views.action_mask(g))
            legal = data.mask[r] == 1
            assert abs(data.visits[r].sum() - 1) < 1e-5
            assert np.all(data.visits[r][~legal] == 0)
            mover = g.to_move
            g.play(int(data.move[r]))
            assert data.visits[r][data.move[r]] > 0 or data.ply[r] < 10
            expected = 1.0 if mover == data.winners[game] else -1.0 / (players - 1)
            assert data.outcome[r] == pytest.approx(expected)
        assert g.is_over
        assert g.winner == data.winners[game]


def test_self_play_batches_at_least_64_positions_and_is_deterministic() -> None:
    sizes: list[int] = []

    def counting(planes: np.ndarray, mask: np.ndarray) -> Any:
        sizes.append(len(mask))
        return uniform(planes, mask)

    first = self_play(counting, games=160, width=4, height=4, simulations=16, seed=2)
    # 64 games run at once until fewer than 64 remain to be finished.
    assert sizes[0] == 64
    assert sum(s >= 64 for s in sizes) >= 0.8 * len(sizes), sizes
    again = self_play(uniform, games=160, width=4, height=4, simulations=16, seed=2)
    for name in ("planes", "visits", "outcome", "move", "game", "winners"):
        assert np.array_equal(getattr(first, name), getattr(again, name))


def test_self_play_cut_off_games_score_nothing() -> None:
    data = self_play(uniform, games=3, width=5, height=5, simulations=8, max_plies=4)
    assert np.all(data.ply < 4)
    assert np.all(data.winners == -1)
    assert np.all(data.outcome == 0)
    assert len(self_play(uniform, games=0)) == 0


# -- the evaluator's returns ------------------------------------------------------------------

BAD_RETURNS = [
    ("not a pair", lambda lg, v, m: lg, "expected a pair"),
    ("None", lambda lg, v, m: None, "expected a pair"),
    ("three parts", lambda lg, v, m: (lg, v, v), "expected a pair"),
    ("logits short", lambda lg, v, m: (lg[:, :-1], v), r"logits have shape"),
    ("logits flat", lambda lg, v, m: (lg.ravel(), v), r"logits have shape"),
    ("values 2-d", lambda lg, v, m: (lg, v[:, None]), r"values have shape"),
    ("values short", lambda lg, v, m: (lg, v[:-1]), r"values have shape"),
    ("bool logits", lambda lg, v, m: (lg > 0, v), "dtype bool"),
    ("complex values", lambda lg, v, m: (lg, v + 1j), "dtype complex"),
    ("object logits", lambda lg, v, m: (lg.astype(object), v), "dtype object"),
    ("text values", lambda lg, v, m: (lg, np.array(["0"] * len(v))), "dtype <U1"),
    ("ragged", lambda lg, v, m: ([[0.0], [0.0, 1.0]], v), "logits"),
    ("NaN logit", lambda lg, v, m: (np.where(m, np.nan, lg), v), "logit at position 0"),
    ("inf logit", lambda lg, v, m: (np.where(m, np.inf, lg), v), "finite"),
    ("float32 overflow", lambda lg, v, m: (np.where(m, 1e39, 0.0), v), "float32"),
    ("NaN value", lambda lg, v, m: (lg, v + np.nan), "value at position 0"),
    ("value above 1", lambda lg, v, m: (lg, v + 1.5), "from -1 to 1"),
    ("value below -1", lambda lg, v, m: (lg, v - 1.01), "from -1 to 1"),
]


@pytest.mark.parametrize(("what", "bad", "message"), BAD_RETURNS, ids=[b[0] for b in BAD_RETURNS])
def test_a_bad_return_is_our_error_and_the_next_call_works(
    what: str, bad: Any, message: str
) -> None:
    evaluator = Switch()
    player = PUCT(evaluator, simulations=100, batch=8, reuse=True)
    g = colorwars.Game(4, 4)
    g.play(5)
    evaluator.bad = bad
    with pytest.raises(InvalidEvaluatorError, match=message):
        player.choose(g)
    evaluator.bad = None
    assert player.choose(g) in g.legal_moves()
    # The tree kept nothing of the failed call: exactly one search's visits.
    assert sum(r.visits for r in player.analyse(g)) == 200
    evaluator.bad = bad
    with pytest.raises(InvalidEvaluatorError, match=message):
        self_play(evaluator, games=2, width=3, height=3, simulations=8)


def test_illegal_cells_may_hold_anything() -> None:
    def masked(planes: np.ndarray, mask: np.ndarray) -> Any:
        logits = np.where(mask == 1, 0.0, -np.inf)
        logits[:, 0] = np.nan if mask[0, 0] == 0 else 0.0
        return logits, np.zeros(len(mask), dtype=np.float64)  # float64 values: cast

    g = colorwars.Game(3, 3)
    g.play(0)  # a owns a1: b may not play there
    assert PUCT(masked, simulations=50).choose(g) in g.legal_moves()


def test_an_exception_of_the_evaluator_propagates_as_it_is() -> None:
    boom = ValueError("boom")
    evaluator = Switch()
    player = PUCT(evaluator, simulations=100, batch=8)
    g = colorwars.Game(4, 4)

    def raising(lg: Any, v: Any, m: Any) -> Any:
        raise boom

    evaluator.bad = raising
    with pytest.raises(ValueError, match="boom") as info:
        player.choose(g)
    assert info.value is boom
    assert any("evaluator" in note for note in info.value.__notes__)
    evaluator.bad = None
    assert player.choose(g) in g.legal_moves()
    assert sum(r.visits for r in player.analyse(g)) == 200


CHILD = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from colorwars.puct import self_play

    def slow(planes, mask):
        print("evaluating", flush=True)
        time.sleep(0.2)
        return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)

    self_play(slow, games=10_000, width=8, height=8, simulations=800)
    """
)


def test_ctrl_c_stops_self_play_while_the_evaluator_runs() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout is not None
        for _ in range(3):  # a few evaluations in
            assert child.stdout.readline().strip() == "evaluating"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=10)
        assert time.monotonic() - sent < 3
    finally:
        child.kill()
        child.wait()
    assert child.returncode != 0
    assert "KeyboardInterrupt" in err, err


def test_an_evaluator_that_searches_with_its_own_player_is_an_error_not_a_hang() -> None:
    # The player's lock was taken again inside the evaluator: a deadlock, for good.
    game = colorwars.Game(3, 3)

    def uniform(planes: Any, mask: Any) -> Any:
        return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)

    player = PUCT(uniform, simulations=20)
    player.evaluator = lambda planes, mask: (player.choose(game), uniform(planes, mask))[1]
    with pytest.raises(colorwars.InvalidEvaluatorError, match="re-entered"):
        player.choose(game)
    player.evaluator = uniform  # and the player still works
    assert player.choose(game) in game.legal_moves()


def test_a_puct_player_in_the_batch_simulator_says_where_to_play_it() -> None:
    # It read "invalid player PUCT(<function ...>, simulations=8...: expected a name".
    def uniform(planes: Any, mask: Any) -> Any:
        return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)

    player = PUCT(uniform, simulations=10)
    with pytest.raises(colorwars.InvalidPlayerError, match=r"puct\(10\) searches with your"):
        colorwars.simulate(games=2, width=3, height=3, seats=[player, "random"])
    result = colorwars.ai.match([player, colorwars.ai.Greedy()], games=2, width=3, height=3)
    assert len(result["winners"]) == 2
