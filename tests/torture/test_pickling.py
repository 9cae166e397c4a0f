"""The torture suite: pickling."""

from __future__ import annotations

import copy
import pickle
import re

import colorwars
import pytest
import torture_core as tc

from torture.common import (
    ENGINES,
    game_pool,
)


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
