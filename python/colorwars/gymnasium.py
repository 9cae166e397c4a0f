"""Gymnasium faces of colorwars (``pip install 'colorwars[gymnasium]'``).

Importing this module registers ``"colorwars/ColorWars-v0"``, the single-agent environment
``ColorWarsEnv``: the agent plays one seat against built-in opponents (any ``colorwars.ai``
player, or its name). ``GymVectorEnv`` gives the native ``colorwars.VectorEnv`` (self-play, every
seat the same learner) Gymnasium's vector interface at native speed as ``GymVectorEnv``
(``colorwars.gymnasium.VectorEnv`` is its deprecated old name).

>>> import gymnasium
>>> import colorwars.gymnasium
>>> env = gymnasium.make("colorwars/ColorWars-v0", width=5, height=5, players=2,
...                      rules="colorwars", opponent="greedy")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, obs.dtype, env.action_space
((2, 5, 5), dtype('uint8'), Discrete(25))
>>> terminated = truncated = False
>>> while not (terminated or truncated):
...     action = env.action_space.sample(mask=info["action_mask"])  # a random legal move
...     obs, reward, terminated, truncated, info = env.step(action)
>>> reward in (1.0, -1.0), info["winner"] in (0, 1)
(True, True)
>>> envs = colorwars.gymnasium.GymVectorEnv(num_envs=256, width=8, height=8, rules="classic")
>>> obs, info = envs.reset(seed=0)
>>> envs.single_observation_space, envs.single_action_space
(Box(0, 7, (2, 8, 8), uint8), Discrete(64))
>>> obs, rewards, terminated, truncated, info = envs.step(envs.sample_legal())
>>> obs.shape, info["action_mask"].shape
((256, 2, 8, 8), (256, 64))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from colorwars.errors import missing_extra

try:
    import gymnasium
except ModuleNotFoundError as e:
    raise missing_extra("gymnasium", "colorwars.gymnasium needs Gymnasium", e.name) from None
from gymnasium import spaces
from gymnasium.error import ClosedEnvironmentError, ResetNeeded
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from colorwars import _validate as check
from colorwars import views
from colorwars._deprecation import renamed
from colorwars.env import VectorEnv as NativeVectorEnv
from colorwars.errors import ConfigError, GameOverError, InvalidMoveError, InvalidPlayersError
from colorwars.game import Game
from colorwars.players import Player, seat_players
from colorwars.rules import Rules, RulesLike

__all__ = ["ENV_ID", "MAX_ORBS", "ColorWarsEnv", "GymVectorEnv"]

ENV_ID = "colorwars/ColorWars-v0"
MAX_ORBS = 7
"""No cell ever holds more than 7 orbs (RULES.md §4): the observation spaces' upper bound."""

PlayerLike = str | Player


class ColorWarsEnv(gymnasium.Env[npt.NDArray[np.uint8], np.int64]):
    """One seat of a game of Color Wars against built-in opponents.

    - **Seat**: ``seat`` is the agent's seat (0 is player a, who moves first unless ``first``
      says otherwise), or ``"random"``: a seat drawn for every episode from the environment's
      generator. ``env.seat`` is the current episode's seat.
    - **Opponents**: ``opponent`` is a player (a ``colorwars.ai`` object or a name such as
      ``"greedy"``, ``"mcts:200"``) for every other seat, or a sequence with one per other seat
      (in seat order, skipping the agent's). At every ``reset`` each opponent gets a fresh seed
      drawn from the environment's generator (the seed its object was built with is replaced),
      so ``reset(seed=...)`` makes the whole episode reproducible (except for a player with a
      ``time`` budget). ``env.opponents`` maps each other seat to this episode's player.
      ``reset`` and ``step`` let the opponents move until it is the agent's turn; their moves
      are in ``info["opponent_moves"]``.
    - **Observation**: ``uint8`` ``(players, height, width)``, ``Box(0, 7)``: plane ``k`` holds
      the orb counts of the cells of seat ``(seat + k) % players``; plane 0 is always the
      agent. (While the agent is to move this is exactly ``colorwars.views.planes(game)``, the
      layout of ``colorwars.VectorEnv``.)
    - **Actions**: ``Discrete(width * height)``, the cell ``y * width + x``.
    - **Action mask**: ``info["action_mask"]``, ``int8`` ``(cells,)``, 1 where the agent may
      play (all 0 once the episode is over); pass it to ``action_space.sample(mask=...)``.
      ``action_masks()`` gives it as ``bool`` (sb3-contrib's ``MaskablePPO`` calls it).
    - **Reward**, at the end only: +1 when the agent wins, -1 when another player wins or the
      agent is out (with three or more players the episode ends when the agent is out), 0 on
      truncation and on every other step.
    - **Illegal actions**: under ``illegal="lose"`` (the default, so that ``check_env`` and
      ``action_space.sample()`` work) a whole number that is not a legal move for the agent
      ends the episode as a loss (reward -1, ``info["illegal"]`` True, ``info["winner"]`` the
      other seat with two players) and leaves the board as it was; ``illegal="raise"`` raises
      ``IllegalMoveError`` and nothing changes. An action that is not a whole number, or a
      number off the board, raises ``InvalidMoveError`` under both.
    - **Truncation**: ``max_plies=N`` truncates the episode at the first ``step`` after which
      the game has N plies or more (every seat's moves count) and no winner; the opponents
      stop moving at N.
    - **Info**: ``action_mask``, ``seat``, ``ply`` (moves played in the game),
      ``opponent_moves`` (a tuple of cells), ``winner`` (the winning seat, -1 while none) and
      ``illegal``.
    - **Rendering**: ``render_mode="ansi"`` (``str(game)``: the board and whose turn) or
      ``"rgb_array"`` (``colorwars.views.rgb_array``, 32 pixels a cell).

    Stepping before ``reset`` raises Gymnasium's ``ResetNeeded``; stepping after the episode
    ended raises ``GameOverError``. Every argument is checked by ``colorwars._validate``: a
    bad one raises a ``colorwars`` error (a ``ValueError``).
    """

    # A class attribute, as Gymnasium reads it (``gymnasium.make`` checks the render modes).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 4,
    }

    def __init__(
        self,
        width: int = 5,
        height: int = 5,
        players: int = 2,
        rules: RulesLike = "colorwars",
        opponent: PlayerLike | Sequence[PlayerLike] = "greedy",
        seat: int | str = 0,
        first: int = 0,
        max_plies: int | None = None,
        illegal: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        c = check.config(width, height, players, rules, first)
        self.width, self.height, self.players = c.width, c.height, c.players
        self.rules: Rules = c.rules
        self.first = c.first
        self._seat = _seat(seat, c.players)
        self._opponents = tuple(seat_players(opponent, c.players - 1))
        self.max_plies = check.max_plies(max_plies)
        self.illegal = check.choice(illegal, "illegal", ("lose", "raise"))
        if render_mode is not None:
            check.choice(render_mode, "render_mode", tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0, MAX_ORBS, (c.players, c.height, c.width), np.uint8)
        self.action_space = spaces.Discrete(c.width * c.height)
        self.seat: int | None = self._seat
        """The agent's seat in the current episode (None before the first ``reset`` when the
        seat is drawn at random)."""
        self.opponents: dict[int, Player] = {}
        """This episode's players of the other seats, by seat, with their drawn seeds."""
        self._game: Game | None = None
        self._over = True

    # -- the Gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        """A new game; the opponents move until it is the agent's turn. ``seed`` (0 to
        2**64 - 1) reseeds the environment's generator, which draws the seat (if random) and
        the opponents' seeds; no ``options`` are supported (None or ``{}``)."""
        if seed is not None:
            seed = check.seed(seed)
        _no_options(options)
        super().reset(seed=seed)
        rng = self.np_random
        seat = self._seat if self._seat is not None else int(rng.integers(self.players))
        others = [s for s in range(self.players) if s != seat]
        self.seat = seat
        self.opponents = {
            s: _reseeded(p, int(rng.integers(2**63)))
            for s, p in zip(others, self._opponents, strict=True)
        }
        self._game = Game(self.width, self.height, self.players, self.rules, self.first)
        self._over = False
        moves = self._play_opponents(self._game, seat, truncate=False)
        return self._observe(self._game, seat), self._info(self._game, seat, moves, False)

    def step(
        self, action: np.int64 | int
    ) -> tuple[npt.NDArray[np.uint8], float, bool, bool, dict[str, Any]]:
        """The agent plays ``action`` (a cell), then the opponents reply until it is the
        agent's turn again or the episode ends."""
        game = self._current()
        if self._over:
            raise GameOverError("illegal move: the episode is over; call reset() to start another")
        seat = cast(int, self.seat)
        cell = _action(action)
        cells = self.width * self.height
        if not 0 <= cell < cells:  # a caller's error under either mode, never a mere loss
            raise InvalidMoveError(
                f"invalid action {cell}: expected a cell, a whole number from 0 to {cells - 1}"
            )
        if self.illegal == "lose" and not game.is_legal(cell):
            self._over = True
            return self._observe(game, seat), -1.0, True, False, self._info(game, seat, (), True)
        game.play(cell)  # under illegal="raise" this raises for an illegal cell
        moves = self._play_opponents(game, seat, truncate=True)
        terminated = game.winner is not None or seat in game.out
        truncated = not terminated and self._truncates(game)
        self._over = terminated or truncated
        reward = 0.0
        if terminated:
            reward = 1.0 if game.winner == seat else -1.0
        obs = self._observe(game, seat)
        return obs, reward, terminated, truncated, self._info(game, seat, moves, False)

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board as text (``"ansi"``) or a picture (``"rgb_array"``); None without a
        render mode (Gymnasium warns)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() without a render mode: make the environment with "
                "render_mode='ansi' or 'rgb_array'"
            )
            return None
        game = self._current()
        return str(game) if self.render_mode == "ansi" else views.rgb_array(game)

    # -- beyond Gymnasium --------------------------------------------------------------------
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The cells the agent may play now, as ``bool`` (the method sb3-contrib's
        ``MaskablePPO`` calls); all False once the episode is over."""
        game = self._current()
        return self._mask(game, cast(int, self.seat)).astype(np.bool_)

    @property
    def game(self) -> Game:
        """A copy of the current episode's game (``colorwars.Game``)."""
        return self._current().copy()

    def __repr__(self) -> str:
        seat = "random" if self._seat is None else self._seat
        opponents = [p.name for p in self._opponents]
        return (
            f"ColorWarsEnv(width={self.width}, height={self.height}, players={self.players}, "
            f"rules={self.rules.name!r}, opponent={opponents!r}, seat={seat!r}, "
            f"first={self.first}, max_plies={self.max_plies}, illegal={self.illegal!r}, "
            f"render_mode={self.render_mode!r})"
        )

    # -- internals ---------------------------------------------------------------------------
    def _current(self) -> Game:
        if self._game is None:
            raise ResetNeeded("call reset() before step(), render() or action_masks()")
        return self._game

    def _truncates(self, game: Game) -> bool:
        return self.max_plies is not None and game.ply >= self.max_plies

    def _play_opponents(self, game: Game, seat: int, truncate: bool) -> tuple[int, ...]:
        """The opponents' moves until the agent is to move, the agent is out, the game is won
        or (``truncate``) the ply limit is reached."""
        moves = []
        while game.to_move != seat and game.winner is None and seat not in game.out:
            if truncate and self._truncates(game):
                break
            cell = self.opponents[game.to_move].choose(game)
            game.play(cell)
            moves.append(cell)
        return tuple(moves)

    def _mask(self, game: Game, seat: int) -> npt.NDArray[np.int8]:
        if self._over or game.to_move != seat:
            return np.zeros(game.cells, dtype=np.int8)
        return views.action_mask(game)

    def _observe(self, game: Game, seat: int) -> npt.NDArray[np.uint8]:
        """``views.planes`` turned so that plane 0 is the agent (the planes start at the player
        to move, which differs from the agent only once the episode has ended)."""
        planes = views.planes(game)
        shift = (seat - game.to_move) % self.players
        return np.roll(planes, -shift, axis=0) if shift else planes

    def _info(self, game: Game, seat: int, moves: tuple[int, ...], illegal: bool) -> dict[str, Any]:
        winner = game.winner
        if illegal and self.players == 2:  # the agent lost by its illegal move
            winner = 1 - seat
        return {
            "action_mask": self._mask(game, seat),
            "seat": seat,
            "ply": game.ply,
            "opponent_moves": moves,
            "winner": -1 if winner is None else winner,
            "illegal": illegal,
        }


class GymVectorEnv(
    gymnasium.vector.VectorEnv[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[Any]]
):
    """``colorwars.VectorEnv`` as a ``gymnasium.vector.VectorEnv``: ``num_envs`` self-play
    games stepped natively, with Gymnasium's spaces.

    - ``single_observation_space``: ``Box(0, 7, (players, height, width), uint8)``, plane 0
      the player to move; ``single_action_space``: ``Discrete(width * height)``;
      ``observation_space`` and ``action_space`` are their batches (``Box`` of shape
      ``(num_envs, players, height, width)`` and ``MultiDiscrete``).
    - ``step`` and ``reset`` return what the native environment returns (see its docstring
      and docs/adapters.md): ``rewards[i]`` is the reward of the player who just acted in
      environment ``i``; ``info`` holds ``action_mask`` (``bool``, ``(num_envs, cells)``),
      ``to_move``, ``seat_rewards``, ``winner``, ``episode_plies``, ``illegal`` and
      ``final_obs``.
    - Auto-reset in the same step (``metadata["autoreset_mode"]`` is
      ``AutoresetMode.SAME_STEP``): a finished environment's row already holds the next
      game's first observation; ``info["final_obs"]`` (a dense array of the batch's shape)
      holds the finished episode's last observation where ``info["_final_obs"]``
      (``terminated | truncated``) is True, as do ``winner`` and ``episode_plies``.
    - ``illegal="lose"`` by default (so that ``action_space.sample()`` can be stepped): an
      illegal action ends that environment's episode as a loss for the mover;
      ``illegal="raise"`` raises ``IllegalMoveError`` and changes nothing.
    - ``copy=False`` (the default, for native speed): the arrays are read-only views of the
      environment's buffers, overwritten by the next ``step`` or ``reset``; copy what you
      keep, or pass ``copy=True`` to get fresh arrays from every call (Gymnasium's
      ``SyncVectorEnv`` default), which costs a copy of the observations per step.

    ``reset(seed=...)`` takes one seed (0 to 2**64 - 1) for the whole batch. ``sample_legal()``
    draws a uniformly random legal action for every environment, natively. ``native`` is the
    wrapped ``colorwars.VectorEnv`` (``board(i)``, ``config()``). After ``close()`` the
    buffers are released and ``step``/``reset`` raise ``ClosedEnvironmentError``.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 4096,
        width: int = 8,
        height: int = 8,
        players: int = 2,
        rules: RulesLike = "classic",
        first: int = 0,
        max_plies: int | None = None,
        threads: int = 0,
        illegal: str = "lose",
        copy: bool = False,
    ) -> None:
        self.copy = check.flag(copy, "copy")
        n = check.num_envs(num_envs)
        c = check.config(width, height, players, rules, first)
        # The batched observation space holds two arrays (low, high) of the batch's shape:
        # as much again as the native buffers, so check for both before building either.
        check.memory(
            4 * n * c.players * c.width * c.height,
            f"colorwars.gymnasium.GymVectorEnv(num_envs={n:,})",
        )
        self.native = NativeVectorEnv(
            num_envs=n,
            width=c.width,
            height=c.height,
            players=c.players,
            rules=c.rules,
            first=c.first,
            max_plies=max_plies,
            threads=threads,
            illegal=check.choice(illegal, "illegal", ("lose", "raise")),
        )
        self.num_envs = n
        self.single_observation_space = spaces.Box(
            0, MAX_ORBS, self.native.single_observation_shape, np.uint8
        )
        self.single_action_space = spaces.Discrete(self.native.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        """Starts every game afresh; ``seed`` seeds environment ``i``'s generator (used by
        ``sample_legal``) from ``(seed, i)`` and ``np_random``. No ``options`` (None or
        ``{}``)."""
        self._open()
        if seed is not None:
            seed = check.seed(seed)
        _no_options(options)
        super().reset(seed=seed)
        obs, info = self.native.reset(seed)
        info = {**info, "_final_obs": np.zeros(self.num_envs, dtype=np.bool_)}
        if self.copy:
            return obs.copy(), _copied(info)
        return obs, info

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """One action (a cell) per environment; finished games restart in the same step."""
        if self.closed:
            self._open()
        obs, rewards, terminated, truncated, info = self.native.step(actions)
        info = {**info, "_final_obs": terminated | truncated}
        if self.copy:
            return obs.copy(), rewards.copy(), terminated.copy(), truncated.copy(), _copied(info)
        return obs, rewards, terminated, truncated, info

    def sample_legal(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for every environment (native; a read-only view of
        a reused buffer unless ``copy=True``)."""
        self._open()
        actions = self.native.sample_legal()
        return actions.copy() if self.copy else actions

    def close_extras(self, **kwargs: Any) -> None:
        # Releases the native environment and its buffers (arrays handed out stay valid).
        self.__dict__.pop("native", None)

    def __repr__(self) -> str:
        if self.closed:
            return f"colorwars.gymnasium.GymVectorEnv(num_envs={self.num_envs}, closed)"
        return f"colorwars.gymnasium.Gym{self.native!r}"[:-1] + f", copy={self.copy})"

    def _open(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError("this VectorEnv is closed")


def _seat(value: object, players: int) -> int | None:
    """The agent's seat: 0 to ``players - 1``, or None for ``"random"``."""
    if isinstance(value, str) and value == "random":
        return None
    try:
        return check.seat(value, players, "seat")
    except InvalidPlayersError:
        check.fail(
            InvalidPlayersError,
            "seat",
            value,
            f"expected a seat from 0 to {players - 1}, or 'random'",
        )


def _no_options(options: object) -> None:
    if options is not None and not (isinstance(options, dict) and not options):
        check.fail(ConfigError, "reset options", options, "none are supported (None or {})")


def _action(action: object) -> int:
    """A whole-number action (a cell, legal or not), never a bool, float or text."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    low, high = -(2**63), 2**63 - 1
    try:
        return check.whole(action, "action", low, high, InvalidMoveError)
    except InvalidMoveError:
        check.fail(InvalidMoveError, "action", action, "expected a whole-number cell")


def _reseeded(player: Player, seed: int) -> Player:
    """The same player with another seed (every ``colorwars.ai`` player is a dataclass)."""
    return cast(Player, dataclasses.replace(cast(Any, player), seed=seed))


def _copied(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in info.items()}


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="colorwars.gymnasium:ColorWarsEnv")


def __getattr__(name: str) -> Any:
    if name == "VectorEnv":  # the old name of GymVectorEnv (colorwars.VectorEnv is the native one)
        renamed("colorwars.gymnasium.VectorEnv", "colorwars.gymnasium.GymVectorEnv")
        return GymVectorEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
