"""colorwars.VectorEnv: masks, observations, rewards, auto-reset and illegal actions, checked
against single games played through colorwars.Game."""

from __future__ import annotations

import colorwars
import numpy as np
import pytest
from colorwars import ConfigError, IllegalMoveError, InvalidMoveError, VectorEnv


@pytest.mark.parametrize(
    ("width", "height", "players", "rules"),
    [
        (8, 8, 2, "classic"),
        (5, 5, 2, "colorwars"),
        (4, 3, 3, "none+empty"),
        (9, 9, 4, "drop3+subtract"),
    ],
)
def test_env_matches_single_games(width: int, height: int, players: int, rules: str) -> None:
    b = 64
    env = VectorEnv(num_envs=b, width=width, height=height, players=players, rules=rules)
    obs, info = env.reset(seed=5)
    assert obs.shape == (b, players, height, width)
    assert obs.dtype == np.uint8
    assert info["action_mask"].shape == (b, width * height)
    assert info["action_mask"].dtype == np.bool_
    games = [colorwars.Game(width, height, players, rules) for _ in range(b)]
    finished = 0
    for _ in range(150):
        actions = env.sample_legal().copy()
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for i, g in enumerate(games):
            mover = g.to_move
            g.play(int(actions[i]))
            if terminated[i]:
                finished += 1
                assert info["winner"][i] == g.winner == mover
                assert info["episode_plies"][i] == g.ply
                assert rewards[i] == 1.0
                seat = info["seat_rewards"][i]
                assert seat[mover] == 1.0
                assert abs(seat.sum()) < 1e-6
                games[i] = g = colorwars.Game(width, height, players, rules)
            else:
                assert rewards[i] == 0.0
                assert info["winner"][i] == -1
                assert not info["seat_rewards"][i].any()
            me = g.to_move
            assert info["to_move"][i] == me
            mask = np.flatnonzero(info["action_mask"][i]).tolist()
            assert mask == g.legal_moves()
            counts = np.array(g.counts()).reshape(height, width)
            owners = np.array(g.owners()).reshape(height, width)
            for k in range(players):
                expected = np.where(owners == (me + k) % players, counts, 0)
                assert np.array_equal(obs[i, k], expected)
    assert finished > 0


def test_reset_seed_makes_sampling_reproducible() -> None:
    a, b = VectorEnv(num_envs=100), VectorEnv(num_envs=100, threads=1)
    a.reset(seed=3)
    b.reset(seed=3)
    for _ in range(20):
        x, y = a.sample_legal().copy(), b.sample_legal().copy()
        assert np.array_equal(x, y)
        a.step(x)
        b.step(y)
    a.reset(seed=4)
    assert not np.array_equal(a.sample_legal(), y)


def test_illegal_actions_raise_and_change_nothing() -> None:
    env = VectorEnv(num_envs=8, width=4, height=4, rules="colorwars")
    env.reset(seed=0)
    env.step(np.zeros(8, dtype=np.int64))  # a opens on a1 everywhere
    before = [env.board(i) for i in range(8)]
    actions = np.full(8, 15)
    actions[5] = 0  # a's cell: illegal for b
    # Why, as a game says it (it read "not a legal move there").
    said = "environment 5: player b opens with three orbs on an empty cell, and this one is taken"
    with pytest.raises(IllegalMoveError, match=said):
        env.step(actions)
    actions[5] = 99
    with pytest.raises(InvalidMoveError, match="environment 5: action 99 is not a cell"):
        env.step(actions)
    assert [env.board(i) for i in range(8)] == before
    with pytest.raises(InvalidMoveError, match="one per environment"):
        env.step(np.zeros(7, dtype=np.int64))
    with pytest.raises(InvalidMoveError):
        env.step(["a", "b"] * 4)


def test_illegal_actions_can_lose_instead() -> None:
    env = VectorEnv(num_envs=4, width=4, height=4, rules="colorwars", illegal="lose")
    env.reset(seed=0)
    env.step([0, 0, 0, 0])
    # A number off the board is the caller's error under "lose" too (it lost before), and
    # no environment changes.
    for off in (-7, 16, 2**40):
        with pytest.raises(colorwars.InvalidMoveError, match=f"environment 3: action {off} is not"):
            env.step([15, 0, 15, off])
    assert all(env.board(i)["ply"] == 1 for i in range(4))
    _obs, rewards, terminated, _, info = env.step([15, 0, 15, 0])
    assert terminated.tolist() == [False, True, False, True]
    assert info["illegal"].tolist() == [False, True, False, True]
    assert rewards.tolist() == [0.0, -1.0, 0.0, -1.0]
    assert info["seat_rewards"][1].tolist() == [1.0, -1.0]
    # The winner is the other player (it was -1, counted as a game cut off).
    assert info["winner"].tolist() == [-1, 0, -1, 0]
    assert env.board(1)["ply"] == 0
    assert env.board(0)["ply"] == 2


def test_truncation() -> None:
    env = VectorEnv(num_envs=16, max_plies=5)
    env.reset(seed=1)
    for k in range(1, 6):
        _, rewards, terminated, truncated, info = env.step(env.sample_legal())
        assert truncated.all() == (k == 5)
    assert not rewards.any()
    assert not terminated.any()
    assert (info["episode_plies"] == 5).all()
    assert all(env.board(i)["ply"] == 0 for i in range(16))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_envs": 0},
        {"threads": -1},
        {"max_plies": 0},
        {"illegal": "ignore"},
        {"width": 40},
        {"players": 1},
    ],
)
def test_bad_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        VectorEnv(**kwargs)  # type: ignore[arg-type]


def test_board_index_is_checked() -> None:
    env = VectorEnv(num_envs=3)
    with pytest.raises(IndexError):
        env.board(3)
    with pytest.raises(IndexError):
        env.board(-1)


def test_an_unseeded_reset_seeds_from_the_system_as_gymnasium_does() -> None:
    # Unseeded, every VectorEnv drew seed 0's games: parallel workers that never pass a seed
    # all generated the same rollouts.
    def draws(seed: int | None) -> list[int]:
        env = VectorEnv(num_envs=64, width=8, height=8)
        env.reset(seed=seed)
        return env.sample_legal().tolist()

    assert draws(None) != draws(None)  # 64 cells of 64: the same by chance is 64**-64
    assert draws(3) == draws(3)
    env = VectorEnv(num_envs=64, width=8, height=8)
    env.reset(seed=3)
    first = env.sample_legal().tolist()
    env.reset()  # later resets without a seed go on with the generators: no reseeding
    assert env.sample_legal().tolist() != first


def test_close_ends_the_environment() -> None:
    env = VectorEnv(num_envs=4, width=3, height=3)
    env.reset(seed=0)
    env.close()
    env.close()  # again: harmless
    for call in (env.reset, env.sample_legal, lambda: env.step([0, 0, 0, 0])):
        with pytest.raises(ConfigError, match="closed"):
            call()


def test_the_games_exist_before_any_reset() -> None:
    """docs/adapters.md: a step before any reset plays on the empty boards, and sample_legal
    draws as after reset(seed=0)."""
    fresh = colorwars.VectorEnv(num_envs=3, width=3, height=3)
    seeded = colorwars.VectorEnv(num_envs=3, width=3, height=3)
    seeded.reset(seed=0)
    actions = fresh.sample_legal()
    np.testing.assert_array_equal(actions, seeded.sample_legal())
    obs, rewards, terminated, _, info = fresh.step(actions)
    assert not rewards.any()
    np.testing.assert_array_equal(obs, seeded.step(actions)[0])
    assert not terminated.any()
    assert (info["to_move"] == 1).all()
    assert (obs.reshape(3, -1).sum(axis=1) > 0).all()  # each game holds the first move's orbs
