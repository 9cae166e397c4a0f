"""`colorwars.openspiel`: the game registered with OpenSpiel agrees with `colorwars.Game`, passes
OpenSpiel's own conformance test, and OpenSpiel's algorithms run on it."""

from __future__ import annotations

import pickle
import random
from typing import Any

import colorwars
import numpy as np
import pytest
from colorwars import views

pyspiel = pytest.importorskip("pyspiel")

from colorwars.openspiel import ColorwarsGame, max_game_length  # noqa: E402
from colorwars.rules import GameConfig, Rules  # noqa: E402
from open_spiel.python.algorithms import mcts, minimax  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

NAME = "python_colorwars"
TERMINAL = int(pyspiel.PlayerId.TERMINAL)

# Both rule sets and the mixed ones, 2 to 8 players, other first players, non-square boards.
CONFIGS = [
    {"width": 5, "height": 5, "players": 2, "rules": "colorwars"},
    {"width": 4, "height": 3, "players": 3, "rules": "classic"},
    {"width": 3, "height": 3, "players": 2, "rules": "classic", "first": 1},
    {"width": 6, "height": 4, "players": 4, "rules": "drop3+subtract", "first": 2},
    {"width": 5, "height": 6, "players": 3, "rules": "colorwars", "first": 2},
    {"width": 4, "height": 4, "players": 8, "rules": "none+empty", "first": 5},
]


def load(params: dict[str, Any]) -> Any:
    return pyspiel.load_game(NAME, params)


def expected_returns(game: colorwars.Game) -> list[float]:
    if game.winner is None:
        return [0.0] * game.players
    return [1.0 if p == game.winner else -1.0 / (game.players - 1) for p in range(game.players)]


def capacity(width: int, height: int) -> int:
    return sum(
        (x > 0) + (x < width - 1) + (y > 0) + (y < height - 1) - 1
        for x in range(width)
        for y in range(height)
    )


def test_the_issue_s_example_loads_with_the_promised_type() -> None:
    game = load({"width": 5, "height": 5, "players": 2, "rules": "colorwars"})
    t = game.get_type()
    assert t.short_name == NAME
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 2
    assert game.num_distinct_actions() == 25
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.observation_tensor_shape() == [2, 5, 5]
    assert str(game) == "python_colorwars(first=0,height=5,players=2,rules=colorwars,width=5)"
    assert str(game.new_initial_state()) == colorwars.Game(5, 5).to_text()
    # The defaults are the issue's example, and `first` is a parameter.
    assert str(pyspiel.load_game(NAME)) == str(game)
    assert load({"players": 3, "first": 2}).new_initial_state().current_player() == 2


def test_max_game_length_is_exact_under_subtract_and_a_cut_off_under_empty() -> None:
    assert load({"rules": "classic"}).max_game_length() == capacity(5, 5) + 1 == 56
    assert load({"rules": "drop3+subtract"}).max_game_length() == 56
    assert load({"rules": "colorwars"}).max_game_length() == 560
    assert load({"width": 32, "height": 32}).max_game_length() == 10 * (capacity(32, 32) + 1)
    assert load({"width": 2, "height": 3, "rules": "none+empty"}).max_game_length() == 90


@pytest.mark.parametrize("rules", ["classic", "drop3+subtract"])
def test_the_subtract_bound_holds_over_every_game_of_a_small_board(rules: str) -> None:
    """RULES.md §4: under subtract a game lasts at most capacity + 1 plies; the longest game of
    2 x 3 (every line searched) stays within the bound (classic reaches it)."""
    start = colorwars.Game(2, 3, rules=rules)
    longest: dict[str, int] = {}

    def depth(g: colorwars.Game) -> int:
        key = g.to_text().rsplit(" ", 1)[0]  # the position without its ply
        if key not in longest:
            best = 0
            for m in g.legal_moves():
                g.play(m)
                best = max(best, 1 + depth(g))
                g.pop()
            longest[key] = best
        return longest[key]

    bound = max_game_length(GameConfig(2, 3, 2, Rules.parse(rules)))
    assert depth(start) <= bound == capacity(2, 3) + 1
    if rules == "classic":
        assert depth(start) == bound


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: "-".join(map(str, p.values())))
def test_random_sim_test_with_serialization(params: dict[str, Any]) -> None:
    pyspiel.random_sim_test(load(params), num_sims=20, serialize=True, verbose=False)


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: "-".join(map(str, p.values())))
def test_every_state_agrees_with_colorwars_game_on_random_games(params: dict[str, Any]) -> None:
    game = load(params)
    rng = random.Random(7)
    for _ in range(20):
        state = game.new_initial_state()
        g = colorwars.Game(**params)
        while True:
            assert str(state) == g.to_text()
            assert state.is_terminal() == g.is_over
            assert state.current_player() == (TERMINAL if g.is_over else g.to_move)
            assert state.legal_actions() == g.legal_moves()
            assert state.returns() == pytest.approx(expected_returns(g))
            assert sum(state.returns()) == pytest.approx(0.0)
            assert state.history() == g.moves()
            assert state.to_game() == g
            if g.is_over:
                break
            cell = rng.choice(g.legal_moves())
            before = state.clone()
            state.apply_action(cell)
            assert str(before) == g.to_text()  # a clone is independent
            assert before.action_to_string(g.to_move, cell) == g.cell_name(cell)
            g.play(cell)
        assert state.legal_actions() == []
        assert state.returns()[g.winner] == 1.0  # type: ignore[index]


def test_serialize_round_trips_exactly_at_every_ply() -> None:
    for params in CONFIGS[:4]:
        game = load(params)
        state = game.new_initial_state()
        rng = random.Random(3)
        while True:
            for copy in (
                game.deserialize_state(state.serialize()),
                pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[
                    1
                ],
                pickle.loads(pickle.dumps(state)),
            ):
                assert str(copy) == str(state)
                assert copy.history() == state.history()
                assert copy.move_number() == state.move_number()
                assert copy.legal_actions() == state.legal_actions()
                assert copy.returns() == state.returns()
                assert copy.to_game().moves() == state.to_game().moves()  # undo history too
                if not copy.is_terminal():
                    cell = copy.legal_actions()[0]
                    copy.apply_action(cell)
                    assert copy.to_game().pop() == cell
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


def test_observation_tensor_is_the_planes_seen_by_the_player() -> None:
    game = load({"width": 4, "height": 3, "players": 3, "rules": "classic"})
    observation = make_observation(game)
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        g = state.to_game()
        planes = views.planes(g).astype(np.float32)
        mover = state.current_player()
        assert np.array_equal(np.reshape(state.observation_tensor(), (3, 3, 4)), planes)
        for player in range(3):
            seen = np.reshape(state.observation_tensor(player), (3, 3, 4))
            # plane k: the orbs of player (player + k) % 3; plane 0 is the observer's own.
            assert np.array_equal(seen, np.roll(planes, mover - player, axis=0))
            observation.set_from(state, player)
            assert np.array_equal(observation.tensor.reshape(3, 3, 4), seen)
            assert state.observation_string(player) == g.to_text()
            assert state.information_state_string(player) == state.history_str()
        state.apply_action(rng.choice(state.legal_actions()))
    assert np.reshape(state.observation_tensor(0), (3, 3, 4)).sum() > 0


def test_a_game_cut_off_at_its_length_limit_is_a_draw() -> None:
    game = load({"width": 5, "height": 5, "rules": "colorwars"})
    state = game.new_initial_state()
    state._max_plies = 3  # the cut-off itself is far beyond any measured game
    for cell in (12, 0, 12):
        state.apply_action(cell)
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.returns() == [0.0, 0.0]
    assert state.rewards() == [0.0, 0.0]
    with pytest.raises(colorwars.GameOverError, match="cut off at 3 plies"):
        state.apply_action(12)
    assert str(state) == state.to_game().to_text()


def test_openspiel_mcts_bot_plays_whole_games() -> None:
    game = load({"width": 3, "height": 3, "players": 2, "rules": "classic"})
    rng = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)]
    bots.append(bots[0])
    g = colorwars.Game(3, 3, rules="classic")
    state = game.new_initial_state()
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in g.legal_moves()
        state.apply_action(action)
        g.play(action)
    assert state.returns() == expected_returns(g)
    # Three players too (MCTSBot plays each seat for itself).
    game3 = load({"width": 3, "height": 3, "players": 3, "rules": "colorwars"})
    bot3 = mcts.MCTSBot(game3, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game3.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot3.step(state))
    assert sorted(state.returns()) == [-0.5, -0.5, 1.0]


@pytest.mark.parametrize(
    ("width", "height", "rules"),
    [
        (2, 3, "classic"),
        (2, 2, "classic"),
        (3, 2, "colorwars"),
        (2, 4, "colorwars"),
        (3, 3, "colorwars"),
    ],
)
def test_alpha_beta_search_agrees_with_the_solver(width: int, height: int, rules: str) -> None:
    game = load({"width": width, "height": height, "players": 2, "rules": rules})
    value, action = minimax.alpha_beta_search(game)
    winner = colorwars.solve(width, height, rules=rules, cache=False).winner
    assert value == (1.0 if winner == 0 else -1.0)
    assert action in range(width * height)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"width": 1}, colorwars.InvalidSizeError),
        ({"height": 33}, colorwars.InvalidSizeError),
        ({"players": 9}, colorwars.InvalidPlayersError),
        ({"players": 1}, colorwars.InvalidPlayersError),
        ({"width": 2, "height": 2, "players": 5}, colorwars.InvalidPlayersError),
        ({"first": 2}, colorwars.InvalidPlayersError),
        ({"first": -1}, colorwars.InvalidPlayersError),
        ({"rules": "chess"}, colorwars.InvalidRulesError),
        ({"rules": "drop3+bang"}, colorwars.InvalidRulesError),
    ],
)
def test_bad_parameters_raise_our_errors(params: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        load(params)
    with pytest.raises(error):
        ColorwarsGame(params)


def test_bad_parameter_names_and_types() -> None:
    # Called directly, the adapter checks names and types itself ...
    with pytest.raises(colorwars.ConfigError, match="allowed are width, height, players"):
        ColorwarsGame({"widht": 5})
    with pytest.raises(colorwars.InvalidSizeError):
        ColorwarsGame({"width": True})
    with pytest.raises(colorwars.InvalidRulesError):
        ColorwarsGame({"rules": 5})
    with pytest.raises(colorwars.ConfigError, match="expected a dict"):
        ColorwarsGame(5)  # type: ignore[arg-type]
    assert ColorwarsGame({"rules": Rules("none", "empty")}).get_parameters()["rules"] == (
        "none+empty"
    )
    # ... through load_game, OpenSpiel checks them against the specification first.
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        load({"widht": 5})
    with pytest.raises(pyspiel.SpielError, match="Wrong type"):
        load({"width": "5"})


def test_bad_actions_raise_our_errors_and_change_nothing() -> None:
    game = load({"width": 3, "height": 2, "rules": "colorwars"})
    state = game.new_initial_state()
    state.apply_action(0)
    before = (str(state), state.history())
    with pytest.raises(colorwars.IllegalMoveError):
        state.apply_action(0)  # a's cell, b to move
    with pytest.raises(colorwars.InvalidMoveError):
        state.apply_action(6)  # off the board
    assert (str(state), state.history()) == before
    for cell in (5, 0, 5):
        state.apply_action(cell)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(colorwars.GameOverError):
        state.apply_action(1)
    with pytest.raises(colorwars.ConfigError):
        game.make_py_observer(None, {"view": "bird"})
    with pytest.raises(colorwars.InvalidPlayersError):
        game.make_py_observer().set_from(state, 2)
