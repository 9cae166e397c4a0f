"""``colorwars.VectorEnv``: a batch of games stepped together, for reinforcement learning."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars.errors import ConfigError, InvalidMoveError
from colorwars.rules import Rules, RulesLike, resolve

__all__ = ["VectorEnv"]


class VectorEnv:
    """``num_envs`` games of the same configuration, stepped together natively.

    Follows Gymnasium's vector-environment conventions where a turn-based, multi-player game
    allows (see the README, "Reinforcement learning"):

    - ``reset(seed=None) -> (obs, info)`` and
      ``step(actions) -> (obs, rewards, terminated, truncated, info)``;
    - ``obs`` is ``uint8`` of shape ``(num_envs, players, height, width)``: plane ``k`` holds
      the orb counts of player ``(to_move + k) % players``, so plane 0 is always the player to
      move (the observation is from that player's point of view);
    - ``actions`` are cell indices (``y * width + x``), one per environment;
    - ``rewards[i]`` is the reward of the player who just acted in environment ``i``: 1 for the
      move that wins, -1 for an illegal move under ``illegal="lose"``, else 0;
      ``info["seat_rewards"]`` has every seat's reward (zero-sum: the other seats share the
      opposite);
    - ``info["to_move"]`` (int8) and ``info["action_mask"]`` (bool, ``(num_envs, cells)``)
      describe the next decision;
    - auto-reset in the same step: an environment whose episode ends is reset at once, and the
      returned observation is the new game's first; ``info["final_obs"]`` holds the finished
      episode's last observation (valid in the rows where ``terminated | truncated``), and
      ``info["winner"]`` and ``info["episode_plies"]`` report it (-1 and 0 elsewhere).

    All returned arrays are buffers owned by the environment and overwritten by the next
    ``reset`` or ``step``: copy what you keep.
    """

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
        illegal: str = "raise",
    ) -> None:
        r = resolve(rules)
        for name, value, low in [("num_envs", num_envs, 1), ("threads", threads, 0)]:
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 2**24:
                raise ConfigError(f"invalid {name} {value!r}: expected a whole number >= {low}")
        if max_plies is not None and (
            isinstance(max_plies, bool)
            or not isinstance(max_plies, int)
            or not 1 <= max_plies < 2**31
        ):
            raise ConfigError(f"invalid max_plies {max_plies!r}: expected None or a number >= 1")
        if illegal not in ("raise", "lose"):
            raise ConfigError(f"invalid illegal {illegal!r}: allowed are 'raise' and 'lose'")
        from colorwars.game import _int

        self._native = _core.NativeVecEnv(
            num_envs,
            _int(width, "width"),
            _int(height, "height"),
            _int(players, "players"),
            r.opening,
            r.burst,
            _int(first, "first"),
            max_plies,
            threads,
            illegal,
        )
        self.num_envs = num_envs
        self.width = width
        self.height = height
        self.players = players
        self.rules: Rules = r
        self.max_plies = max_plies
        self.illegal = illegal
        n = self._native
        self._obs: npt.NDArray[np.uint8] = n.obs
        self._info: dict[str, Any] = {
            "to_move": n.to_move,
            "action_mask": n.mask.view(np.bool_),
            "seat_rewards": n.seat_rewards,
            "winner": n.winner,
            "episode_plies": n.episode_plies,
            "illegal": n.illegal_actions.view(np.bool_),
            "final_obs": n.final_obs,
        }
        self._rewards: npt.NDArray[np.float32] = n.rewards
        self._terminated: npt.NDArray[np.bool_] = n.terminated.view(np.bool_)
        self._truncated: npt.NDArray[np.bool_] = n.truncated.view(np.bool_)

    @property
    def single_observation_shape(self) -> tuple[int, int, int]:
        return (self.players, self.height, self.width)

    @property
    def num_actions(self) -> int:
        """Actions are cells: 0 to ``width * height - 1``."""
        return self.width * self.height

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        """Starts every game afresh; ``seed`` reseeds each environment's generator (used by
        ``sample_legal``) from ``(seed, index)``."""
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64
        ):
            raise ConfigError(f"invalid seed {seed!r}: expected a whole number from 0 to 2**64-1")
        self._native.reset(seed)
        return self._obs, self._info

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Plays one action per environment. Under ``illegal="raise"`` an illegal action raises
        ``IllegalMoveError`` naming the environment, and no environment changes."""
        try:
            a = np.ascontiguousarray(actions, dtype=np.int64)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidMoveError(f"invalid actions: expected integer cells ({e})") from None
        if a.shape != (self.num_envs,):
            raise InvalidMoveError(
                f"invalid actions: shape {a.shape}; expected ({self.num_envs},), "
                "one per environment"
            )
        self._native.step(a)
        return self._obs, self._rewards, self._terminated, self._truncated, self._info

    def sample_legal(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for every environment (native; a reused buffer)."""
        return self._native.sample_legal()

    def board(self, i: int) -> dict[str, Any]:
        """Environment ``i``'s game: counts and owners per cell, player to move, ply."""
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.num_envs:
            raise IndexError(f"environment {i!r} does not exist (0 to {self.num_envs - 1})")
        counts, owners, to_move, ply = self._native.snapshot(i)
        return {"counts": counts, "owners": owners, "to_move": to_move, "ply": ply}

    def __repr__(self) -> str:
        return (
            f"VectorEnv(num_envs={self.num_envs}, width={self.width}, height={self.height}, "
            f"players={self.players}, rules={self.rules.name!r}, max_plies={self.max_plies}, "
            f"illegal={self.illegal!r})"
        )
