"""OpenSpiel adapter (``pip install 'colorwars[openspiel]'``): importing this module registers
Color Wars with OpenSpiel as ``python_colorwars``, so that OpenSpiel's algorithms (MCTS,
alpha-beta, CFR, AlphaZero...) play it, on the native engine.

>>> import pyspiel
>>> import colorwars.openspiel
>>> game = pyspiel.load_game(
...     "python_colorwars", {"width": 5, "height": 5, "players": 2, "rules": "colorwars"}
... )
>>> state = game.new_initial_state()
>>> state.apply_action(12)                     # an action is a cell, y * width + x: c3
>>> state.apply_action(0)                      # a1
>>> print(state)                               # the position notation
5x5 colorwars 2 3b..../...../..3a../...../..... a ab - 2
>>> state.current_player(), state.legal_actions(), state.action_to_string(1, 0)
(0, [12], 'a1')
>>> state.observation_tensor(0)[12], game.observation_tensor_shape()   # views.planes
(3.0, [2, 5, 5])
>>> game.deserialize_state(state.serialize()).history() == state.history()
True

The game (sequential, deterministic, perfect information, zero-sum, terminal rewards):

- **Parameters** ``width``, ``height`` (2 to 32), ``players`` (2 to 8), ``rules``
  (``"colorwars"``, ``"classic"`` or ``"OPENING+BURST"``) and ``first`` (the first player, 0
  to ``players - 1``), checked by ``colorwars._validate`` with the usual errors
  (``InvalidSizeError``, ...).
- **Actions**: the cells, ``y * width + x``; ``legal_actions()`` are ``Game.legal_moves()``;
  ``action_to_string`` gives the cell's name (``"c3"``).
- **Returns** at the end: +1 for the winner and ``-1 / (players - 1)`` for every other player
  (zero-sum, as ``VectorEnv``'s ``seat_rewards``); 0 for everyone before the end.
- ``str(state)`` and ``observation_string(player)`` are the position notation
  (``Game.to_text()``); ``information_state_string(player)`` is OpenSpiel's history string
  (the cells played, ``"12, 0"``), which with perfect recall identifies the state.
- ``observation_tensor(player)``: float32, shape ``(players, height, width)``, the board as
  ``player`` sees it: plane ``k`` holds the orbs of player ``(player + k) % players``. For the
  player to move (``state.observation_tensor()``) this is ``colorwars.views.planes(game)``,
  ``VectorEnv``'s observation. The board only: who has moved and who is out is in the notation.
- ``serialize()`` / ``game.deserialize_state(text)`` round-trip exactly: OpenSpiel's history
  plus the game, stored as a ``colorwars.Game`` pickles (its starting notation and its moves).
- **Length** (``max_game_length()``): under ``subtract`` bursts a game lasts at most
  ``capacity + 1`` plies, where ``capacity`` is the board's total capacity (bursts keep the orbs
  and every move adds at least one, RULES.md §4), so the bound is exact and never cuts a game
  short. Under ``empty`` bursts (the ``colorwars`` rules) orbs vanish in bursts and the rules
  bound no length. Measured: with two players no position repeats on any board up to 3 x 4
  (every position searched), though the longest game there (24 plies on 3 x 4) exceeds
  capacity + 1 (23); random games reach at most 2.2 x (capacity + 1) plies (20,000 games on
  32 x 32, the longest case; 53 plies in 1,000,000 games on 5 x 5). The adapter **cuts a
  game off at 10 x (capacity + 1) plies** (560 on 5 x 5): such a game is terminal, a draw,
  every return 0. No measured game came near the cut-off.

``state.to_game()`` returns the position as a ``colorwars.Game`` (a copy, with its moves).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from colorwars.errors import missing_extra

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ModuleNotFoundError as e:
    raise missing_extra("openspiel", "colorwars.openspiel needs OpenSpiel", e.name) from None

from colorwars import _validate as check
from colorwars import views
from colorwars.errors import ConfigError, GameOverError
from colorwars.game import Game
from colorwars.rules import GameConfig

__all__ = ["GAME_TYPE", "ColorwarsGame", "ColorwarsState", "max_game_length"]

DEFAULTS: dict[str, int | str] = {
    "width": 5,
    "height": 5,
    "players": 2,
    "rules": "colorwars",
    "first": 0,
}

# Under `empty` bursts the game is cut off (a draw) after this many times (capacity + 1) plies.
EMPTY_BURST_FACTOR = 10

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

GAME_TYPE = pyspiel.GameType(
    short_name="python_colorwars",
    long_name="Python Color Wars / Chain Reaction",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=check.MAX_PLAYERS,
    min_num_players=check.MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def max_game_length(config: GameConfig) -> int:
    """The longest game the adapter allows: exact under ``subtract`` bursts (capacity + 1),
    a cut-off under ``empty`` bursts (see the module's notes)."""
    w, h = config.width, config.height
    capacity = 2 * (w * (h - 1) + h * (w - 1)) - w * h  # sum of (neighbours - 1) over cells
    if config.rules.burst == "subtract":
        return capacity + 1
    return EMPTY_BURST_FACTOR * (capacity + 1)


def _config(params: Mapping[str, Any] | None) -> GameConfig:
    """The checked configuration of OpenSpiel parameters (defaults filled in)."""
    merged: dict[str, Any] = dict(DEFAULTS)
    if params is not None:
        if not isinstance(params, Mapping):
            check.fail(ConfigError, "OpenSpiel parameters", params, "expected a dict")
        for key, value in params.items():
            if key not in DEFAULTS:
                check.fail(
                    ConfigError, "OpenSpiel parameter", key, "allowed are " + ", ".join(DEFAULTS)
                )
            merged[key] = value
    return check.config(
        merged["width"], merged["height"], merged["players"], merged["rules"], merged["first"]
    )


class ColorwarsGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """Color Wars as an OpenSpiel game; ``pyspiel.load_game("python_colorwars", {...})``
    builds one (or call this class with the parameters as a dict; ``rules`` may then also be
    a ``colorwars.Rules``). ``config`` is the checked ``GameConfig``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        config = _config(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=config.cells,
            max_chance_outcomes=0,
            num_players=config.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(config),
        )
        normalised = {
            "width": config.width,
            "height": config.height,
            "players": config.players,
            "rules": config.rules.name,
            "first": config.first,
        }
        super().__init__(GAME_TYPE, info, normalised)
        self.config = config
        self._start = Game(config.width, config.height, config.players, config.rules, config.first)
        self._max_plies = max_game_length(config)

    def new_initial_state(self) -> ColorwarsState:
        return ColorwarsState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """The board observer (tensor and notation) for plain observations; OpenSpiel's
        history observer for information states (perfect recall)."""
        if params:
            check.fail(ConfigError, "observation parameters", params, "this game takes none")
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return _BoardObserver(self.config)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class ColorwarsState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """A position of an OpenSpiel Color Wars game, backed by a ``colorwars.Game``.

    Its attributes are what OpenSpiel copies (``clone``) and pickles (``serialize``): keep
    them to the game and the length limit."""

    def __init__(self, game: ColorwarsGame) -> None:
        super().__init__(game)
        self._game = game._start.copy()
        self._max_plies = game._max_plies

    # -- OpenSpiel's state API ------------------------------------------------------------
    def current_player(self) -> int:
        game = self._game
        if game.winner is not None or game.ply >= self._max_plies:
            return _TERMINAL
        return game.to_move

    def _legal_actions(self, player: int) -> list[int]:
        return self._game.legal_moves()

    def _apply_action(self, action: int) -> None:
        if self._cut_off():
            raise GameOverError(
                f"illegal move: the game is over (cut off at {self._max_plies} plies, a draw); "
                "no move is allowed"
            )
        self._game.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._game.cell_name(action)

    def is_terminal(self) -> bool:
        game = self._game
        return game.winner is not None or game.ply >= self._max_plies

    def returns(self) -> list[float]:
        n = self._game.players
        winner = self._game.winner
        if winner is None:
            return [0.0] * n
        loss = -1.0 / (n - 1)
        return [1.0 if p == winner else loss for p in range(n)]

    def __str__(self) -> str:
        return self._game.to_text()

    # -- ours -----------------------------------------------------------------------------
    def to_game(self) -> Game:
        """The position as a ``colorwars.Game`` (a copy, with the moves played)."""
        return self._game.copy()

    def _cut_off(self) -> bool:
        return not self._game.is_over and self._game.ply >= self._max_plies


class _BoardObserver:
    """OpenSpiel's observer protocol: ``tensor`` (flat float32) and ``dict`` (views of it)
    written by ``set_from``; ``string_from`` gives the notation."""

    def __init__(self, config: GameConfig) -> None:
        self._players = config.players
        shape = (config.players, config.height, config.width)
        self.tensor = np.zeros(config.players * config.cells, dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: ColorwarsState, player: int) -> None:
        player = check.seat(player, self._players)
        game = state._game
        planes = views.planes(game)  # plane k: player (to_move + k) % players
        order = (np.arange(self._players) + player - game.to_move) % self._players
        self.dict["observation"][...] = planes[order]

    def string_from(self, state: ColorwarsState, player: int) -> str:
        check.seat(player, self._players)
        return state._game.to_text()


if GAME_TYPE.short_name not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, ColorwarsGame)
