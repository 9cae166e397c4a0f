"""Color Wars / Chain Reaction as a PettingZoo AEC environment (``pip install
'colorwars[pettingzoo]'``), for 2 to 8 players, on the native engine.

>>> from colorwars.pettingzoo import env
>>> e = env(width=3, height=3, players=2, rules="colorwars")
>>> e.reset(seed=0)
>>> e.agents, e.agent_selection
(['player_a', 'player_b'], 'player_a')
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["observation"].dtype, int(obs["action_mask"].sum())
((2, 3, 3), dtype('uint8'), 9)
>>> e.step(4)                              # a cell index, y * width + x: b2
>>> print(e.unwrapped.game)
   a  b  c
1  .  .  .
2  . 3a  .
3  .  .  .
ply 1: player b to move
>>> returns = {agent: 0.0 for agent in e.possible_agents}
>>> for agent in e.agent_iter():         # each agent plays its first legal cell
...     obs, reward, terminated, truncated, info = e.last()
...     returns[agent] += reward
...     e.step(None if terminated or truncated else int(obs["action_mask"].argmax()))
>>> returns, e.unwrapped.game.winner
({'player_a': -1.0, 'player_b': 1.0}, 1)

- **Agents** ``"player_a"``, ``"player_b"``, ... in seat order (``possible_agents``); the
  first to move is ``first`` (seat 0 by default). Turns follow the game (RULES.md §3.6).
- **Actions** ``Discrete(width * height)``: a cell index ``y * width + x``.
- **Observations** ``{"observation": uint8 (players, height, width), "action_mask": int8
  (cells,)}``. ``observe(agent)`` is from that agent's point of view: plane ``k`` holds the
  orbs of the player ``k`` seats after it, so plane 0 is its own; for the agent to move this
  is exactly ``colorwars.views.planes`` (``VectorEnv``'s layout). The mask is
  ``colorwars.views.action_mask`` for the agent to move, all zeros for every other agent.
  ``state()`` is the board with plane ``k`` for seat ``k`` (``state_space``).
- **Rewards** are zero-sum at every step. A player who goes out (RULES.md §3.6) gets -1 in
  the step that knocks it out, and the players still in share +1 for each player out in that
  step. With two players that is +1 for the winner and -1 for the loser at the end; with more,
  the winner's last reward is +1 (+k if its last move knocks out k players at once) and
  surviving longer earns more. Other steps give 0.
- **Removal** the PettingZoo way: an agent that goes out is terminated in that step, is
  selected next (before the next player moves) to step with ``None``, and is then removed
  from ``agents``. When the game is won, every remaining agent is terminated.
- **Illegal actions** (a cell the player may not play), ``illegal="lose"`` (the default), as
  in PettingZoo's classic games (``TerminateIllegalWrapper``): the game ends, the offender
  gets -1 and ``infos[offender]["illegal"] = True``; unlike that wrapper the others share +1,
  so rewards stay zero-sum (the same rule as ``VectorEnv(illegal="lose")``).
  ``illegal="raise"``: ``IllegalMoveError``, nothing changes. An action that is not a cell
  at all is refused by ``env()``'s ``AssertOutOfBoundsWrapper`` (``AssertionError``) and by
  ``raw_env`` with ``InvalidMoveError``; a removed agent's only action is ``None``.
- **Truncation**: ``max_cycles=N`` truncates the game once every player still in has moved
  ``N`` times (no reward); ``None`` (the default) never truncates: every game ends.
- **Seeds**: the game has no chance in it; ``reset(seed=s)`` seeds the agents' action and
  observation spaces, so ``action_space(agent).sample(mask)`` is reproducible.
  ``options`` is accepted (as PettingZoo's API requires) and ignored.
- **Rendering**: ``render_mode="ansi"`` returns the board as text (``str(game)``),
  ``"rgb_array"`` a ``uint8`` picture (``colorwars.views.rgb_array``, 32 pixels a cell).

``env()`` is ``raw_env`` inside PettingZoo's ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper``, as PettingZoo's own games are; ``env.unwrapped.game`` is the
``colorwars.Game`` being played (read it, do not play on it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars.errors import missing_extra

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError as e:
    raise missing_extra("pettingzoo", "colorwars.pettingzoo needs PettingZoo", e.name) from None

from colorwars import _validate as check
from colorwars import views
from colorwars._common import PLAYER_LETTERS
from colorwars.errors import (
    ConfigError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPlayersError,
    show,
)
from colorwars.game import Game
from colorwars.rules import RulesLike

__all__ = ["env", "raw_env"]

# RULES.md §4: no cell ever holds more than 7 orbs.
MAX_ORBS = 7
RENDER_MODES = ("ansi", "rgb_array")
ILLEGAL = ("lose", "raise")

Observation = dict[str, npt.NDArray[Any]]


def env(
    width: int = 5,
    height: int = 5,
    players: int = 2,
    rules: RulesLike = "colorwars",
    render_mode: str | None = None,
    *,
    first: int = 0,
    max_cycles: int | None = None,
    illegal: str = "lose",
) -> Any:
    """The environment with PettingZoo's standard wrappers (``AssertOutOfBoundsWrapper``,
    ``OrderEnforcingWrapper``); the arguments are ``raw_env``'s."""
    inner = raw_env(
        width,
        height,
        players,
        rules,
        render_mode,
        first=first,
        max_cycles=max_cycles,
        illegal=illegal,
    )
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801  (PettingZoo's name)
    """Color Wars / Chain Reaction for 2 to 8 agents, one move at a time (see the module's
    documentation). Every argument is checked as ``colorwars.Game`` checks it, and a bad one
    raises a ``colorwars.ConfigError``."""

    metadata: dict[str, Any] = {  # noqa: RUF012  (PettingZoo reads it from the class)
        "name": "colorwars_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        width: int = 5,
        height: int = 5,
        players: int = 2,
        rules: RulesLike = "colorwars",
        render_mode: str | None = None,
        *,
        first: int = 0,
        max_cycles: int | None = None,
        illegal: str = "lose",
    ) -> None:
        super().__init__()
        c = check.config(width, height, players, rules, first)
        self.width, self.height, self.players, self.first = c.width, c.height, c.players, c.first
        self.rules = c.rules
        self.render_mode = (
            None if render_mode is None else check.choice(render_mode, "render_mode", RENDER_MODES)
        )
        self.max_cycles = (
            None
            if max_cycles is None
            else check.whole(max_cycles, "max_cycles", 1, check.MAX_PLIES)
        )
        self.illegal = check.choice(illegal, "illegal", ILLEGAL)
        cells = c.width * c.height
        self.possible_agents: list[str] = [f"player_{PLAYER_LETTERS[i]}" for i in range(c.players)]
        self._seats = {agent: i for i, agent in enumerate(self.possible_agents)}
        shape = (c.players, c.height, c.width)
        # One space object per agent, so that seeding one agent's space leaves the others'.
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, MAX_ORBS, shape, np.uint8),
                    "action_mask": spaces.Box(0, 1, (cells,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(cells) for agent in self.possible_agents}
        self.state_space = spaces.Box(0, MAX_ORBS, shape, np.uint8)
        self._start()

    def __repr__(self) -> str:
        return (
            f"raw_env(width={self.width}, height={self.height}, players={self.players}, "
            f"rules={self.rules.name!r}, render_mode={self.render_mode!r}, first={self.first}, "
            f"max_cycles={self.max_cycles}, illegal={self.illegal!r})"
        )

    # -- spaces ----------------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        try:
            return self._seats[agent]
        except (KeyError, TypeError):
            agents = ", ".join(repr(a) for a in self.possible_agents)
            raise InvalidPlayersError(
                f"invalid agent {show(agent)}: the agents are {agents}"
            ) from None

    def observation_space(self, agent: str) -> spaces.Dict:
        """The same object for the same agent (PettingZoo seeds spaces through it)."""
        return self.observation_spaces[self.possible_agents[self._seat(agent)]]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self.possible_agents[self._seat(agent)]]

    # -- episode ---------------------------------------------------------------------------
    def _start(self) -> None:
        self.game = Game(self.width, self.height, self.players, self.rules, self.first)
        self.agents: list[str] = self.possible_agents[:]
        self.rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.terminations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.truncations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection: str = self.possible_agents[self.game.to_move]
        self._skip_agent_selection: str | None = None
        self._moves_made = [0] * self.players  # per seat, for max_cycles

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` seeds the agents' spaces (the game itself has no chance);
        ``options`` is accepted and ignored."""
        if options is not None and not isinstance(options, dict):
            check.fail(ConfigError, "options", options, "expected a dict or None")
        if seed is not None:
            children = np.random.SeedSequence(check.seed(seed)).spawn(2 * self.players)
            space_seeds = [int(s.generate_state(1, np.uint64)[0]) for s in children]
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(space_seeds[2 * i])
                self.observation_spaces[agent].seed(space_seeds[2 * i + 1])
        self._start()

    def step(self, action: Any) -> None:
        if not self.agents:
            raise GameOverError("the game is over and every agent has left: reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise InvalidMoveError(
                    f"invalid action {show(action)}: {agent} has left the game; its only "
                    "action is None"
                )
            self._was_dead_step(None)
            return
        cell = check.whole(action, "action", 0, self.width * self.height - 1, InvalidMoveError)
        try:
            self.game.play(cell)
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            self._end_by_illegal_action(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._moves_made[self._seats[agent]] += 1
        game = self.game
        out = set(game.out)
        gone = [a for a in self.agents if self._seats[a] in out and not self.terminations[a]]
        if gone:
            # RULES.md §3.6: out after this move. Zero-sum: the players still in share +1
            # for each player out.
            still_in = [a for a in self.agents if self._seats[a] not in out]
            share = len(gone) / len(still_in)
            for a in gone:
                self.rewards[a] = -1.0
                self.terminations[a] = True
            for a in still_in:
                self.rewards[a] = share
        if game.winner is not None:
            self.terminations[self.possible_agents[game.winner]] = True
        elif self.max_cycles is not None and self._moves_made[game.to_move] >= self.max_cycles:
            for a in self.agents:
                if not self.terminations[a]:
                    self.truncations[a] = True
        self.agent_selection = self.possible_agents[game.to_move]
        self._accumulate_rewards()
        self._deads_step_first()

    def _end_by_illegal_action(self, agent: str) -> None:
        """``illegal="lose"``: the game ends, the offender loses, the others share +1."""
        self._cumulative_rewards[agent] = 0.0
        others = [a for a in self.agents if a != agent]
        self.rewards = dict.fromkeys(others, 1.0 / len(others))
        self.rewards[agent] = -1.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal": True}
        self._accumulate_rewards()
        self._deads_step_first()

    # -- observations ----------------------------------------------------------------------
    def observe(self, agent: str) -> Observation:
        seat = self._seat(agent)
        game = self.game
        planes = views.planes(game)
        shift = (seat - game.to_move) % self.players
        if shift:
            planes = np.roll(planes, -shift, axis=0)
        name = self.possible_agents[seat]
        acting = (
            name == self.agent_selection
            and not self.terminations.get(name, True)
            and not self.truncations.get(name, True)
        )
        mask = views.action_mask(game) if acting else np.zeros(game.cells, np.int8)
        return {"observation": planes, "action_mask": mask}

    def state(self) -> npt.NDArray[np.uint8]:
        """The whole board, plane ``k`` holding the orbs of seat ``k`` (``state_space``)."""
        planes = views.planes(self.game)
        return np.roll(planes, self.game.to_move, axis=0)

    # -- rendering -------------------------------------------------------------------------
    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """``"ansi"``: the board as text; ``"rgb_array"``: a picture of it; without a render
        mode, a warning (as Gymnasium's environments do) and ``None``."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode: pass "
                "render_mode='ansi' or 'rgb_array' to colorwars.pettingzoo.env"
            )
            return None
        if self.render_mode == "ansi":
            return str(self.game)
        return views.rgb_array(self.game)

    def close(self) -> None:
        """Nothing to release (rendering opens no window)."""
