"""`colorwars.pettingzoo`: PettingZoo's own API, seed and state checks, and a differential test
against `colorwars.Game` (turns, observations, removal order, rewards) on random games."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import colorwars
import numpy as np
import pytest
from colorwars import views

pytest.importorskip(
    "pettingzoo", reason="the PettingZoo extra is not installed: pip install '.[pettingzoo]'"
)

from colorwars.pettingzoo import env, raw_env
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as check_state
from pettingzoo.test.state_test import test_state_space as check_state_space

# api_test's advice that does not fit a board game with a dict observation: it recommends
# agent names ending in a number ("player_a" is the contract), a Box observation space
# (PettingZoo's own board games use the same Dict), a bare array, and it notes that the
# empty board's first observation is all zeros.
API_ADVICE = [
    "ignore:We recommend agents to be named:UserWarning",
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:Observation numpy array is all zeros:UserWarning",
    "ignore:Action mask numpy array is all zeros:UserWarning",
]

CONFIGS = [  # width, height, players, rules, first
    (5, 5, 2, "colorwars", 0),
    (4, 3, 2, "classic", 1),
    (5, 5, 3, "colorwars", 2),
    (4, 4, 3, "classic", 0),
    (4, 4, 4, "drop3+subtract", 1),
    (5, 5, 8, "colorwars", 5),
    (3, 3, 8, "none+empty", 0),
]


def names(players: int) -> list[str]:
    return [f"player_{'abcdefgh'[i]}" for i in range(players)]


@pytest.mark.filterwarnings(*API_ADVICE)
@pytest.mark.parametrize(("width", "height", "players", "rules", "first"), CONFIGS)
def test_pettingzoo_api_test(width: int, height: int, players: int, rules: str, first: int) -> None:
    api_test(env(width, height, players, rules, first=first), num_cycles=1000)


@pytest.mark.filterwarnings(*API_ADVICE)
def test_pettingzoo_api_test_with_max_cycles() -> None:
    api_test(env(6, 6, 3, "classic", max_cycles=5), num_cycles=100)


@pytest.mark.parametrize(("width", "height", "players", "rules", "first"), CONFIGS[::2])
def test_pettingzoo_seed_test(
    width: int, height: int, players: int, rules: str, first: int
) -> None:
    seed_test(lambda: env(width, height, players, rules, first=first), num_cycles=500)


def test_pettingzoo_state_test() -> None:
    e = env(5, 4, 3, "classic")
    check_state_space(e)
    check_state(e, num_cycles=100)


@pytest.mark.parametrize(("players", "first"), [(2, 0), (3, 1), (4, 3)])
def test_max_cycles_truncates_after_n_moves_each(players: int, first: int) -> None:
    # PettingZoo's max_cycles_test needs a parallel_env (this game is turn-based, not
    # parallelizable) and samples actions without the mask; this is its AEC half, masked.
    max_cycles = 4
    e = env(8, 8, players, "classic", first=first, max_cycles=max_cycles)
    e.reset(seed=1)
    counts = dict.fromkeys(e.possible_agents, 0)
    for agent in e.agent_iter():
        counts[agent] += 1
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            assert truncated
            assert not terminated
            assert reward == 0
            e.step(None)
        else:
            e.step(e.action_space(agent).sample(obs["action_mask"]))
    assert max(counts.values()) == max_cycles + 1
    assert np.median(list(counts.values())) == max_cycles + 1
    assert e.unwrapped.game.ply == players * max_cycles
    assert not e.unwrapped.game.is_over


def expected_step(game: colorwars.Game, before: set[int], agents: list[str]) -> dict[str, float]:
    """The rewards of a step from the game alone: -1 for each player out now; the players still
    in share +1 for each."""
    gone = set(game.out) - before
    still_in = [s for s in range(game.players) if s not in game.out]
    rewards = {a: 0.0 for a in agents}
    for s in gone:
        rewards[names(game.players)[s]] = -1.0
    for s in still_in:
        rewards[names(game.players)[s]] = len(gone) / len(still_in) if gone else 0.0
    return rewards


def play_random_game(
    width: int, height: int, players: int, rules: str, first: int, seed: int
) -> int:
    """One random game on the environment and on a `colorwars.Game` side by side; returns how
    many players went out before the last move."""
    e = env(width, height, players, rules, first=first)
    e.reset(seed=seed)
    raw = e.unwrapped
    game = colorwars.Game(width, height, players, rules, first)
    agents = names(players)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(agents, 0.0)
    expected_returns = dict.fromkeys(agents, 0.0)
    removed: list[str] = []
    expected_removed: list[str] = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        returns[agent] += reward
        assert not truncated
        if terminated:
            removed.append(agent)
            e.step(None)
            continue
        # The agent to move is the game's, and it sees what VectorEnv would show.
        assert agent == agents[game.to_move]
        assert np.array_equal(obs["observation"], views.planes(game))
        assert np.array_equal(obs["action_mask"], views.action_mask(game))
        assert e.observation_space(agent).contains(obs)
        for other in e.agents:  # every other agent: the same board from its seat
            seen = e.observe(other)
            seat = agents.index(other)
            shift = (seat - game.to_move) % players
            assert np.array_equal(seen["observation"], np.roll(views.planes(game), -shift, 0))
            if other != agent:
                assert not seen["action_mask"].any()
        cell = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        before = set(game.out)
        live = list(e.agents)
        game.play(cell)
        e.step(cell)
        rewards = expected_step(game, before, live)
        assert raw.rewards == pytest.approx(rewards)
        assert sum(raw.rewards.values()) == pytest.approx(0.0, abs=1e-12)
        for a, r in rewards.items():
            expected_returns[a] += r
        ended = [agents[s] for s in sorted(set(game.out) - before)]
        if game.winner is not None:
            ended = sorted([*ended, agents[game.winner]])
        expected_removed += ended
        assert [a for a in e.agents if raw.terminations[a]] == ended
        # A player knocked out leaves before anyone moves again.
        assert e.agent_selection == (ended[0] if ended else agents[game.to_move])
    assert game.is_over
    assert removed == expected_removed
    assert returns == pytest.approx(expected_returns)
    assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)
    assert max(returns, key=returns.__getitem__) == agents[game.winner]  # type: ignore[index]
    assert e.agents == []
    return len(before)


@pytest.mark.parametrize(("width", "height", "players", "rules", "first"), CONFIGS)
def test_random_games_agree_with_the_game(
    width: int, height: int, players: int, rules: str, first: int
) -> None:
    early = sum(play_random_game(width, height, players, rules, first, seed) for seed in range(8))
    if players > 2:
        assert early > 0  # the games exercised removal before the end


def test_a_player_out_is_removed_with_minus_one_and_the_others_share() -> None:
    e = env(3, 2, 3, "classic")
    e.reset()
    for cell in (3, 5, 4):  # a: a2, b: c2, c: b2
        e.step(cell)
    assert e.unwrapped.game.to_text() == "3x2 classic 3 .../1a1c1b a abc - 3"
    e.step(3)  # a: a2 bursts onto a1 and b2, c's only cell: c is out (RULES.md §3.6)
    assert e.unwrapped.game.out == [2]
    assert e.unwrapped.rewards == {"player_a": 0.5, "player_b": 0.5, "player_c": -1.0}
    assert e.agent_selection == "player_c"  # removed before b moves
    obs, reward, terminated, truncated, info = e.last()
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {})
    assert not obs["action_mask"].any()
    e.step(None)
    assert e.agents == ["player_a", "player_b"]
    assert e.agent_selection == "player_b"
    assert e.last()[1] == 0.5
    assert e.observation_space("player_b")["observation"].shape == (3, 2, 3)


def test_illegal_action_loses_zero_sum() -> None:
    e = env(5, 5, 3)
    e.reset()
    e.step(12)
    e.step(12)  # b may not play on a's cell: b loses, a and c share +1
    raw = e.unwrapped
    assert raw.rewards == {"player_a": 0.5, "player_b": -1.0, "player_c": 0.5}
    assert all(raw.terminations.values())
    assert raw.infos["player_b"] == {"illegal": True}
    assert raw.game.ply == 1  # the illegal move was not played
    returns = {}
    for agent in e.agent_iter():
        returns[agent] = e.last()[1]
        e.step(None)
    assert returns == {"player_a": 0.5, "player_b": -1.0, "player_c": 0.5}


def test_illegal_action_raises_when_asked() -> None:
    e = env(5, 5, illegal="raise")
    e.reset()
    e.step(12)
    with pytest.raises(colorwars.IllegalMoveError):
        e.step(12)
    assert e.unwrapped.game.ply == 1
    assert e.agent_selection == "player_b"
    assert not any(e.unwrapped.terminations.values())
    e.step(0)  # the environment goes on
    assert e.agent_selection == "player_a"


def test_spaces_metadata_and_first() -> None:
    e = env(6, 4, 3, "classic", first=2)
    e.reset()
    assert e.possible_agents == ["player_a", "player_b", "player_c"]
    assert e.agent_selection == "player_c"
    assert str(e) == "colorwars_v0"
    assert isinstance(e.unwrapped, raw_env)
    meta = e.unwrapped.metadata
    assert meta["name"] == "colorwars_v0"
    assert meta["render_modes"] == ["ansi", "rgb_array"]
    assert meta["is_parallelizable"] is False
    space = e.observation_space("player_a")
    assert space is e.observation_space("player_a")
    assert space["observation"].shape == (3, 4, 6)
    assert space["observation"].dtype == np.uint8
    assert space["action_mask"].shape == (24,)
    assert space["action_mask"].dtype == np.int8
    assert e.action_space("player_b").n == 24
    assert e.action_space("player_b") is e.action_space("player_b")
    assert e.unwrapped.state_space.shape == (3, 4, 6)
    assert repr(e.unwrapped) == (
        "raw_env(width=6, height=4, players=3, rules='classic', render_mode=None, first=2, "
        "max_cycles=None, illegal='lose')"
    )


def test_state_has_one_plane_per_seat() -> None:
    e = env(3, 3, 3, "classic")
    e.reset()
    for cell in (0, 4, 8):
        e.step(cell)
    state = e.unwrapped.state()
    assert [state[k, k, k] for k in range(3)] == [1, 1, 1]  # a on a1, b on b2, c on c3
    assert int(state.sum()) == 3


def test_reset_seed_makes_sampling_reproducible() -> None:
    def samples(seed: int | None) -> list[int]:
        e = env(5, 5, 3, "classic")
        e.reset(seed=seed)
        out = []
        for agent in e.agent_iter(30):
            obs, _, terminated, truncated, _ = e.last()
            action = (
                None
                if terminated or truncated
                else e.action_space(agent).sample(obs["action_mask"])
            )
            out.append(-1 if action is None else int(action))
            e.step(action)
        return out

    assert samples(7) == samples(7)
    assert samples(7) != samples(8)
    e = env()
    e.reset(seed=2**64 - 1)  # any seed the project accepts
    e.reset(seed=np.uint64(3), options={"anything": 1})


def test_reset_starts_a_new_game() -> None:
    e = env(4, 4, 2)
    e.reset()
    for _ in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else int(obs["action_mask"].argmax()))
    assert e.agents == []
    e.reset()
    assert e.agents == ["player_a", "player_b"]
    assert e.unwrapped.game.ply == 0
    assert not any(e.unwrapped.rewards.values())
    assert not any(e.unwrapped._cumulative_rewards.values())


def test_render_modes() -> None:
    text = env(3, 2, render_mode="ansi")
    text.reset()
    text.step(1)
    assert text.render() == str(text.unwrapped.game)
    assert text.render().startswith("   a  b  c\n1  . 3a  .")
    picture = env(3, 2, render_mode="rgb_array")
    picture.reset()
    picture.step(1)
    image = picture.render()
    assert image.shape == (64, 96, 3)
    assert image.dtype == np.uint8
    assert np.array_equal(image, views.rgb_array(picture.unwrapped.game))
    picture.close()
    none = env()
    none.reset()
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert none.render() is None


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"width": 1}, colorwars.InvalidSizeError, "invalid board size 1x5"),
        ({"height": 40}, colorwars.InvalidSizeError, "invalid board size 5x40"),
        ({"players": 9}, colorwars.InvalidPlayersError, "number of players 9"),
        ({"players": True}, colorwars.InvalidPlayersError, "number of players True"),
        ({"width": 2, "height": 2, "players": 5}, colorwars.InvalidPlayersError, "at most"),
        ({"rules": "chess"}, colorwars.InvalidRulesError, "chess"),
        ({"first": 2}, colorwars.InvalidPlayersError, "first player 2"),
        ({"render_mode": "human"}, colorwars.ConfigError, "render_mode 'human'"),
        ({"max_cycles": 0}, colorwars.ConfigError, "max_cycles 0"),
        ({"max_cycles": 2.5}, colorwars.ConfigError, "max_cycles 2.5"),
        ({"illegal": "ignore"}, colorwars.ConfigError, "illegal 'ignore'"),
    ],
)
def test_bad_arguments_raise_our_errors(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    for make in (env, raw_env):
        with pytest.raises(error, match=message):
            make(**kwargs)


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.reset(seed=-1),
        lambda e: e.reset(seed=1.5),
        lambda e: e.reset(options=3),
    ],
)
def test_bad_reset_arguments(call: Callable[[Any], None]) -> None:
    with pytest.raises(colorwars.ConfigError):
        call(env())


def test_bad_actions_and_agents() -> None:
    e = raw_env(5, 5)
    e.reset()
    for action in (25, -1, 1.0, "c3", True, None, np.float64(3)):
        with pytest.raises(colorwars.InvalidMoveError):
            e.step(action)
    assert e.game.ply == 0
    e.step(np.int64(12))
    e.step(np.array(0))
    assert e.game.ply == 2
    with pytest.raises(colorwars.InvalidPlayersError, match="invalid agent 'player_z'"):
        e.observe("player_z")
    with pytest.raises(colorwars.InvalidPlayersError):
        e.action_space(["player_a"])  # type: ignore[arg-type]
    wrapped = env(5, 5)
    with pytest.raises(AssertionError):  # OrderEnforcingWrapper: reset first
        wrapped.step(0)
    wrapped.reset()
    with pytest.raises(AssertionError):  # AssertOutOfBoundsWrapper, as PettingZoo's games
        wrapped.step(25)


def test_a_removed_agent_may_only_pass_none() -> None:
    e = env(5, 5, 3)
    e.reset()
    e.step(12)
    e.step(12)  # illegal: the game ends
    with pytest.raises(colorwars.InvalidMoveError, match="only action is None"):
        e.step(3)


def test_stepping_after_the_end() -> None:
    e = raw_env(5, 5, 2)
    e.reset()
    e.step(12)
    e.step(12)  # illegal: the game ends
    e.step(None)
    e.step(None)
    assert e.agents == []
    with pytest.raises(colorwars.GameOverError, match="reset"):
        e.step(None)


def test_copy_and_pickle_keep_the_game() -> None:
    e = env(4, 4, 3)
    e.reset()
    e.step(0)
    copied = copy.deepcopy(e)
    copied.step(5)
    assert (e.unwrapped.game.ply, copied.unwrapped.game.ply) == (1, 2)
    restored = pickle.loads(pickle.dumps(e))
    assert restored.unwrapped.game == e.unwrapped.game
    assert restored.agent_selection == "player_b"
    assert np.array_equal(
        restored.observe("player_b")["observation"], e.observe("player_b")["observation"]
    )
