"""colorwars.gymnasium: the single-agent environment (Gymnasium's checker, the registered id,
opponents, episodes replayed on colorwars.Game, rendering, illegal actions, truncation) and the
vector face (spaces, shapes, same-step auto-reset, agreement with the native VectorEnv).
Skipped when Gymnasium is not installed."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import colorwars  # noqa: E402
import colorwars.gymnasium as cg  # noqa: E402
from colorwars import ai, views  # noqa: E402
from colorwars.errors import (  # noqa: E402
    ConfigError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPlayerError,
    InvalidPlayersError,
    InvalidRulesError,
    InvalidSizeError,
)
from gymnasium.error import ClosedEnvironmentError, ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

CHECKED = [
    {},  # the default: 5x5 colorwars, two players, greedy opponent, seat 0
    {"seat": 1, "opponent": "random"},
    {"width": 8, "height": 8, "rules": "classic", "opponent": "mcts:20", "seat": "random"},
    {"players": 3, "rules": "classic", "opponent": ["random", "greedy"], "seat": 2},
    {"players": 3, "width": 4, "height": 3, "rules": "colorwars", "first": 1, "seat": 0},
    {"width": 3, "height": 2, "rules": "drop3+subtract", "max_plies": 6, "render_mode": "ansi"},
    {"width": 2, "height": 2, "rules": "none+empty", "render_mode": "rgb_array"},
]


@pytest.mark.parametrize(
    "kwargs", CHECKED, ids=lambda k: ",".join(f"{a}={v}" for a, v in k.items())
)
def test_check_env(kwargs: dict[str, Any]) -> None:
    # Through the registered id, so that the checker also builds every render mode; warnings
    # are errors in this test suite, so the checker's warnings fail the test too.
    env = gymnasium.make(cg.ENV_ID, **kwargs)
    check_env(env.unwrapped)
    env.close()


def test_registered_id_and_spaces() -> None:
    env = gymnasium.make(
        "colorwars/ColorWars-v0", width=5, height=5, players=2, rules="colorwars", opponent="greedy"
    )
    assert env.spec is not None
    assert env.spec.id == cg.ENV_ID
    raw = env.unwrapped
    assert isinstance(raw, cg.ColorWarsEnv)
    assert raw.observation_space == gymnasium.spaces.Box(0, 7, (2, 5, 5), np.uint8)
    assert raw.action_space == gymnasium.spaces.Discrete(25)
    assert raw.metadata["render_modes"] == ["ansi", "rgb_array"]
    assert raw.metadata["render_fps"] > 0
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.uint8
    assert obs.shape == (2, 5, 5)
    assert obs in raw.observation_space
    assert info["action_mask"].dtype == np.int8
    assert info["action_mask"].shape == (25,)
    assert info["seat"] == 0
    assert info["ply"] == 0
    assert info["opponent_moves"] == ()
    assert np.array_equal(raw.action_masks(), info["action_mask"].astype(bool))
    assert "ColorWarsEnv(width=5" in repr(raw)
    # Re-importing the module does not register the id twice (that would warn).
    import importlib

    importlib.reload(cg)


def test_opponents_by_name_object_and_per_seat() -> None:
    env = cg.ColorWarsEnv(opponent=ai.MCTS(simulations=30, seed=99))
    env.reset(seed=1)
    (opponent,) = env.opponents.values()
    assert isinstance(opponent, ai.MCTS)
    assert opponent.simulations == 30
    assert opponent.seed != 99  # a fresh seed every episode, drawn from reset's seed

    env = cg.ColorWarsEnv(players=4, width=4, height=4, opponent=["random", ai.Greedy(), "mcts:10"])
    env.reset(seed=2)
    assert [type(p) for p in env.opponents.values()] == [ai.Random, ai.Greedy, ai.MCTS]
    assert sorted(env.opponents) == [1, 2, 3]

    env = cg.ColorWarsEnv(players=3, opponent="greedy", seat=1)
    env.reset(seed=0)
    assert sorted(env.opponents) == [0, 2]
    assert all(isinstance(p, ai.Greedy) for p in env.opponents.values())


def _expected_planes(game: colorwars.Game, seat: int) -> np.ndarray:
    """Plane k: the orbs of seat (seat + k) % players (written without colorwars.views)."""
    counts = np.array(game.counts()).reshape(game.height, game.width)
    owners = np.array(game.owners()).reshape(game.height, game.width)
    return np.stack(
        [np.where(owners == (seat + k) % game.players, counts, 0) for k in range(game.players)]
    )


def _replay_opponents(env: cg.ColorWarsEnv, game: colorwars.Game, moves: tuple[int, ...]) -> None:
    for cell in moves:
        assert cell == env.opponents[game.to_move].choose(game)  # the seeded player's move
        game.play(cell)


def _play_episode(env: cg.ColorWarsEnv, seed: int, rng: np.random.Generator) -> dict[str, Any]:
    """One episode of random legal agent moves, every step checked against a colorwars.Game
    that replays the agent's and the opponents' moves."""
    obs, info = env.reset(seed=seed)
    seat = env.seat
    assert seat is not None
    assert info["seat"] == seat
    game = colorwars.Game(env.width, env.height, env.players, env.rules, env.first)
    _replay_opponents(env, game, info["opponent_moves"])
    reward, terminated, truncated = 0.0, False, False
    while True:
        assert game.to_text() == env.game.to_text()
        assert np.array_equal(obs, _expected_planes(game, seat))
        if terminated or truncated:
            assert not info["action_mask"].any()
            return {"reward": reward, "truncated": truncated, "game": game, "seat": seat}
        assert game.to_move == seat
        assert np.flatnonzero(info["action_mask"]).tolist() == game.legal_moves()
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float)
        assert type(terminated) is bool
        assert type(truncated) is bool
        game.play(int(action))
        _replay_opponents(env, game, info["opponent_moves"])
        assert info["ply"] == game.ply
        assert not info["illegal"]
        assert info["winner"] == (-1 if game.winner is None else game.winner)
        assert terminated == (game.winner is not None or seat in game.out)
        if terminated:
            assert reward == (1.0 if game.winner == seat else -1.0)
        else:
            assert reward == 0.0
        if truncated:
            assert env.max_plies is not None
            assert game.ply >= env.max_plies


@pytest.mark.parametrize(
    "kwargs",
    [
        {"opponent": "greedy"},
        {"rules": "classic", "width": 4, "height": 4, "opponent": "random", "seat": "random"},
        {"players": 3, "width": 4, "height": 4, "opponent": ["random", "greedy"], "first": 2},
        {"rules": "classic", "opponent": "mcts:8", "seat": 1, "max_plies": 12},
    ],
)
def test_episodes_agree_with_game(kwargs: dict[str, Any]) -> None:
    env = cg.ColorWarsEnv(**kwargs)
    rng = np.random.default_rng(0)
    results = [_play_episode(env, seed, rng) for seed in range(12)]
    rewards = {r["reward"] for r in results}
    if kwargs.get("max_plies"):
        assert any(r["truncated"] and r["reward"] == 0.0 for r in results)
    elif kwargs.get("players") == 3:
        assert rewards <= {1.0, -1.0}
    else:
        assert rewards == {1.0, -1.0}
    if kwargs.get("seat") == "random":
        assert {r["seat"] for r in results} == {0, 1}
    if kwargs.get("players") == 3:  # the agent is out while the two others play on
        assert any(r["game"].winner is None and r["reward"] == -1.0 for r in results)


def test_seeding_reproduces_episodes() -> None:
    def trajectory(env: cg.ColorWarsEnv, seed: int | None) -> list[Any]:
        obs, info = env.reset(seed=seed)
        out: list[Any] = [obs.tolist(), info["opponent_moves"], env.seat]
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])  # deterministic agent
            obs, reward, terminated, truncated, info = env.step(action)
            out += [obs.tolist(), reward, info["opponent_moves"]]
            done = terminated or truncated
        return out

    kwargs = {"opponent": "random", "seat": "random", "rules": "classic"}
    a, b = cg.ColorWarsEnv(**kwargs), cg.ColorWarsEnv(**kwargs)
    assert trajectory(a, 7) == trajectory(b, 7)
    assert trajectory(a, None) == trajectory(b, None)  # the generator goes on from the seed
    assert len({str(trajectory(a, s)) for s in range(5)}) > 1
    assert trajectory(a, np.uint64(2**64 - 1)) == trajectory(b, 2**64 - 1)


def test_first_player_and_seat() -> None:
    env = cg.ColorWarsEnv(first=1, seat=0, opponent="greedy")
    obs, info = env.reset(seed=0)
    assert len(info["opponent_moves"]) == 1
    assert info["ply"] == 1
    assert obs[1].sum() == 3
    assert obs[0].sum() == 0


def test_render_modes() -> None:
    env = cg.ColorWarsEnv(render_mode="ansi")
    env.reset(seed=0)
    env.step(12)
    text = env.render()
    assert isinstance(text, str)
    assert text == str(env.game)
    assert "player a to move" in text
    env = cg.ColorWarsEnv(width=4, height=3, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert isinstance(picture, np.ndarray)
    assert picture.dtype == np.uint8
    assert picture.shape == (3 * 32, 4 * 32, 3)
    assert np.array_equal(picture, views.rgb_array(env.game))
    with pytest.raises(ResetNeeded):
        cg.ColorWarsEnv(render_mode="ansi").render()
    env = cg.ColorWarsEnv()
    env.reset()
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None


def test_illegal_actions() -> None:
    env = cg.ColorWarsEnv(seat=1, opponent="greedy")  # the opponent (a) has dropped its three
    obs, info = env.reset(seed=0)
    taken = info["opponent_moves"][0]
    before = env.game.to_text()
    obs2, reward, terminated, truncated, info2 = env.step(taken)  # a's cell: illegal
    assert (reward, terminated, truncated, info2["illegal"]) == (-1.0, True, False, True)
    assert info2["winner"] == 0  # a, the other seat, wins (it was -1)
    assert env.game.to_text() == before
    assert np.array_equal(obs, obs2)
    assert not info2["action_mask"].any()
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for off in (99, 25, -1):  # off the board: the caller's error (it lost before), no change
        with pytest.raises(InvalidMoveError, match=f"invalid action {off}"):
            env.step(off)
    assert env.game.to_text() == before

    env = cg.ColorWarsEnv(seat=1, opponent="greedy", illegal="raise")
    env.reset(seed=0)
    before = env.game.to_text()
    with pytest.raises(IllegalMoveError):
        env.step(taken)
    with pytest.raises(InvalidMoveError):
        env.step(25)
    assert env.game.to_text() == before
    env.step(np.array(24 if taken != 24 else 0))  # a 0-d array is a cell too
    for bad in (1.0, "a1", True, None, np.array([1, 2]), (0, 0)):
        with pytest.raises(InvalidMoveError):
            env.step(bad)  # type: ignore[arg-type]
    with pytest.raises(ResetNeeded):
        cg.ColorWarsEnv().step(0)
    env = cg.ColorWarsEnv()  # not a whole number: refused under illegal="lose" too
    env.reset(seed=0)
    with pytest.raises(InvalidMoveError):
        env.step(12.0)  # type: ignore[arg-type]
    assert env.step(12)[4]["ply"] == 2


def test_max_plies_truncates() -> None:
    env = cg.ColorWarsEnv(width=8, height=8, rules="classic", opponent="random", max_plies=5)
    _, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        _obs, reward, terminated, truncated, info = env.step(
            env.action_space.sample(info["action_mask"])
        )
        done, steps = terminated or truncated, steps + 1
    assert truncated
    assert not terminated
    assert reward == 0.0
    assert info["ply"] == 5
    assert steps == 3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"width": 1}, InvalidSizeError),
        ({"height": 33}, InvalidSizeError),
        ({"players": 9}, InvalidPlayersError),
        ({"players": 1.5}, InvalidPlayersError),
        ({"rules": "chess"}, InvalidRulesError),
        ({"first": 2}, InvalidPlayersError),
        ({"opponent": "stockfish"}, InvalidPlayerError),
        ({"opponent": 3}, InvalidPlayerError),
        ({"opponent": ["random", "greedy"]}, InvalidPlayerError),
        ({"players": 3, "opponent": ["random"]}, InvalidPlayerError),
        ({"opponent": "mcts:0"}, InvalidPlayerError),
        ({"seat": 2}, InvalidPlayersError),
        ({"seat": -1}, InvalidPlayersError),
        ({"seat": "any"}, InvalidPlayersError),
        ({"seat": True}, InvalidPlayersError),
        ({"max_plies": 0}, ConfigError),
        ({"illegal": "ignore"}, ConfigError),
        ({"render_mode": "human"}, ConfigError),
        ({"render_mode": 1}, ConfigError),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        cg.ColorWarsEnv(**kwargs)
    if "render_mode" not in kwargs:  # gymnasium.make handles render modes itself
        with pytest.raises(error):
            gymnasium.make(cg.ENV_ID, **kwargs)


@pytest.mark.parametrize("make", [cg.ColorWarsEnv, lambda: cg.GymVectorEnv(num_envs=4)])
def test_bad_reset_arguments(make: Any) -> None:
    env = make()
    for seed in (-1, 2**64, 1.5, "0", True):
        with pytest.raises(ConfigError, match="seed"):
            env.reset(seed=seed)
    for options in ({"seat": 1}, [], "x"):
        with pytest.raises(ConfigError, match="options"):
            env.reset(options=options)
    env.reset(options={})


# -- the vector face -----------------------------------------------------------------------


def test_vector_spaces_and_shapes() -> None:
    envs = cg.GymVectorEnv(num_envs=16, width=5, height=4, players=3, rules="colorwars")
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.num_envs == 16
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space == gymnasium.spaces.Box(0, 7, (3, 4, 5), np.uint8)
    assert envs.single_action_space == gymnasium.spaces.Discrete(20)
    assert envs.observation_space == gymnasium.spaces.Box(0, 7, (16, 3, 4, 5), np.uint8)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete(np.full(16, 20))
    obs, info = envs.reset(seed=0)
    assert obs in envs.observation_space
    assert obs.dtype == np.uint8
    assert info["action_mask"].shape == (16, 20)
    assert info["action_mask"].dtype == np.bool_
    assert not info["_final_obs"].any()
    for _ in range(30):  # Gymnasium's own sampling: illegal actions lose
        obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())
        assert obs in envs.observation_space
        assert rewards.shape == terminated.shape == truncated.shape == (16,)
        assert rewards.dtype == np.float32
        assert terminated.dtype == truncated.dtype == np.bool_
        assert np.array_equal(info["_final_obs"], terminated | truncated)
        assert np.array_equal(info["illegal"], rewards == -1)
    assert repr(envs).startswith("colorwars.gymnasium.GymVectorEnv(num_envs=16, width=5")
    envs.close()
    envs.close()  # closing twice is fine
    with pytest.raises(ClosedEnvironmentError):
        envs.step(np.zeros(16, dtype=np.int64))
    with pytest.raises(ClosedEnvironmentError):
        envs.reset()
    assert "closed" in repr(envs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"width": 8, "height": 8, "rules": "classic"},
        {"width": 5, "height": 5, "players": 3, "rules": "colorwars", "first": 1},
        {"width": 3, "height": 3, "rules": "drop3+subtract", "max_plies": 7},
    ],
)
def test_vector_agrees_with_native(kwargs: dict[str, Any]) -> None:
    envs = cg.GymVectorEnv(num_envs=64, **kwargs)
    native = colorwars.VectorEnv(num_envs=64, illegal="lose", **kwargs)
    a, b = envs.reset(seed=11), native.reset(seed=11)
    assert np.array_equal(a[0], b[0])
    rng = np.random.default_rng(0)
    for t in range(80):
        # Mostly legal actions, now and then an arbitrary cell (an illegal one loses).
        actions = native.sample_legal().copy()
        assert np.array_equal(envs.sample_legal(), actions)  # the same generators
        if t % 10 == 9:
            actions[rng.integers(64)] = rng.integers(envs.single_action_space.n)
        got, want = envs.step(actions), native.step(actions)
        for x, y in zip(got[:4], want[:4], strict=True):
            assert np.array_equal(x, y)
        assert set(got[4]) == {*want[4], "_final_obs"}
        for key, value in want[4].items():
            assert np.array_equal(got[4][key], value)


def test_vector_same_step_autoreset() -> None:
    # On 2x2 colorwars every game ends within 4 moves (RULES.md §4).
    envs = cg.GymVectorEnv(num_envs=32, width=2, height=2, rules="colorwars")
    obs, info = envs.reset(seed=5)
    fresh = obs.copy()
    assert not fresh.any()
    ended_total = 0
    for _ in range(12):
        actions = envs.sample_legal()
        obs, rewards, terminated, truncated, info = envs.step(actions)
        ended = info["_final_obs"]
        assert np.array_equal(ended, terminated | truncated)
        assert not truncated.any()
        ended_total += int(ended.sum())
        # A finished row already holds the next game's first observation ...
        assert np.array_equal(obs[ended], fresh[ended])
        assert info["action_mask"][ended].all()  # the empty board: every cell
        # ... and the finished game's last one is in final_obs, seen by the winner.
        final = info["final_obs"][ended]
        assert (final[:, 0].sum(axis=(1, 2)) > 0).all()
        assert not final[:, 1:].any()
        assert (info["winner"][ended] >= 0).all()
        assert (info["winner"][~ended] == -1).all()
        assert (rewards[ended] == 1.0).all()
        assert (rewards[~ended] == 0.0).all()
        assert (info["episode_plies"][ended] <= 4).all()
    assert ended_total > 32


def test_vector_truncation_and_copies() -> None:
    envs = cg.GymVectorEnv(num_envs=8, width=8, height=8, rules="classic", max_plies=3, copy=True)
    obs, info = envs.reset(seed=0)
    kept = []
    for t in range(3):
        obs, rewards, terminated, truncated, info = envs.step(envs.sample_legal())
        kept.append(obs)
        assert obs.flags.writeable
        assert truncated.all() == (t == 2)
        assert not terminated.any()
        assert not rewards.any()
    assert not np.shares_memory(kept[0], kept[1])
    assert kept[1].sum() == 2 * 8
    assert not kept[2].any()
    assert (info["episode_plies"] == 3).all()
    assert info["final_obs"].sum() == 3 * 8

    envs = cg.GymVectorEnv(num_envs=8, width=8, height=8, rules="classic")  # copy=False: views
    obs, info = envs.reset(seed=0)
    obs2, *_ = envs.step(envs.sample_legal())
    assert np.shares_memory(obs, obs2)
    assert not obs2.flags.writeable


def test_vector_illegal_raise_and_bad_arguments() -> None:
    envs = cg.GymVectorEnv(num_envs=4, width=3, height=3, illegal="raise")
    envs.reset(seed=0)
    envs.step([4, 4, 4, 4])
    with pytest.raises(IllegalMoveError):
        envs.step([4, 0, 0, 0])  # b may not play a's cell
    for actions in ([0.5, 1, 2, 3], [0, 1], "abcd", np.zeros((4, 1), dtype=np.int64)):
        with pytest.raises(InvalidMoveError):
            envs.step(actions)
    for kwargs, error in [
        ({"num_envs": 0}, ConfigError),
        ({"num_envs": 2**25}, ConfigError),
        ({"width": 40}, InvalidSizeError),
        ({"players": 9}, InvalidPlayersError),
        ({"rules": "go"}, InvalidRulesError),
        ({"threads": -1}, ConfigError),
        ({"max_plies": -5}, ConfigError),
        ({"illegal": "skip"}, ConfigError),
        ({"copy": "yes"}, ConfigError),
    ]:
        with pytest.raises(error):
            cg.GymVectorEnv(**kwargs)
    with pytest.raises(MemoryError):
        cg.GymVectorEnv(num_envs=2**24, width=32, height=32, players=8)


def test_vector_with_gymnasium_wrappers() -> None:
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        cg.GymVectorEnv(num_envs=16, width=3, height=3, rules="colorwars")
    )
    envs.reset(seed=0)
    lengths = []
    for _ in range(40):
        *_, info = envs.step(envs.unwrapped.sample_legal())
        if "episode" in info:
            lengths += info["episode"]["l"][info["_episode"]].tolist()
    assert lengths
    assert all(2 <= n <= 100 for n in lengths)
    # And the single-agent environment vectorised by Gymnasium itself.
    vec = gymnasium.make_vec(cg.ENV_ID, num_envs=3, vectorization_mode="sync", opponent="random")
    obs, info = vec.reset(seed=0)
    assert obs.shape == (3, 2, 5, 5)
    assert info["action_mask"].shape == (3, 25)
    vec.close()


def test_import_error_without_gymnasium() -> None:
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "try:\n    import colorwars.gymnasium\n"
        "except ModuleNotFoundError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'colorwars[gymnasium]'" in out.stdout
