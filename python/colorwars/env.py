"""``colorwars.VectorEnv``: a batch of games stepped together, for reinforcement learning."""

from __future__ import annotations

import contextlib
import operator
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars import _validate as check
from colorwars.errors import ConfigError, InvalidIndexError, InvalidMoveError, show
from colorwars.rules import Rules, RulesLike

__all__ = ["VectorEnv"]


class VectorEnv:
    """``num_envs`` games of the same configuration, stepped together natively.

    Follows Gymnasium's vector-environment conventions where a turn-based, multi-player game
    allows (see docs/adapters.md, "VectorEnv"):

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

    All returned arrays are read-only views of buffers owned by the environment and
    overwritten by the next ``reset`` or ``step``: copy what you keep.

    Threads: calls on one ``VectorEnv`` are serialised (a second thread's ``step`` waits for
    the first to finish), so the environment is never corrupted; but the arrays a call
    returned are rewritten by the next call from any thread, so a ``VectorEnv`` shared
    between threads needs the caller to copy the arrays before another thread steps it.
    Use one ``VectorEnv`` per thread (the native step already uses every core).

    A ``VectorEnv`` does not pickle (its buffers are shared with the arrays it hands out):
    send its ``config()`` to another process and build one there.
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
        c = check.config(width, height, players, rules, first)
        r, width, height, players, first = c.rules, c.width, c.height, c.players, c.first
        num_envs = check.num_envs(num_envs)
        threads = check.threads(threads)
        max_plies = check.max_plies(max_plies)
        illegal = check.choice(illegal, "illegal", ("raise", "lose"))
        cells = width * height
        # Observations and final observations (P x N bytes each), mask, per-seat rewards and
        # the small per-environment arrays and state.
        per_env = 2 * players * cells + cells + 4 * players + 256
        check.memory(num_envs * per_env, f"VectorEnv(num_envs={num_envs:,})")
        self._lock = threading.Lock()
        self._seeded = False  # the first reset without a seed takes one from the system
        self._closed = False
        # numpy allocates the buffers (a request too large is its MemoryError); the native
        # engine writes into them.
        self._native = _core.NativeVecEnv(
            c, num_envs, max_plies, threads, illegal, _Buffers(num_envs, players, height, width)
        )
        self.num_envs = num_envs
        self.width = width
        self.height = height
        self.players = players
        self.rules: Rules = r
        self.max_plies = max_plies
        self.illegal = illegal
        self.first = first
        self.threads = threads
        n = self._native
        self._obs: npt.NDArray[np.uint8] = _read_only(n.obs)
        self._info: dict[str, Any] = {
            "to_move": _read_only(n.to_move),
            "action_mask": _read_only(n.mask.view(np.bool_)),
            "seat_rewards": _read_only(n.seat_rewards),
            "winner": _read_only(n.winner),
            "episode_plies": _read_only(n.episode_plies),
            "illegal": _read_only(n.illegal_actions.view(np.bool_)),
            "final_obs": _read_only(n.final_obs),
        }
        self._rewards: npt.NDArray[np.float32] = _read_only(n.rewards)
        self._terminated: npt.NDArray[np.bool_] = _read_only(n.terminated.view(np.bool_))
        self._truncated: npt.NDArray[np.bool_] = _read_only(n.truncated.view(np.bool_))
        self._actions: npt.NDArray[np.int64] = _read_only(n.actions)

    def config(self) -> dict[str, Any]:
        """The arguments that build an equal ``VectorEnv`` (for another process)."""
        return {
            "num_envs": self.num_envs,
            "width": self.width,
            "height": self.height,
            "players": self.players,
            "rules": self.rules.name,
            "first": self.first,
            "max_plies": self.max_plies,
            "threads": self.threads,
            "illegal": self.illegal,
        }

    def __reduce__(self) -> Any:
        raise TypeError(
            "a VectorEnv cannot be pickled: its native buffers are shared with the arrays it "
            "has handed out; pickle env.config() instead and build VectorEnv(**config) in the "
            "other process"
        )

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
        ``sample_legal``) from ``(seed, index)``. Without a seed, the first reset seeds from
        the operating system's entropy (as Gymnasium's environments do: unseeded workers
        must not all draw the same games) and later ones go on with the generators."""
        if seed is not None:
            seed = check.seed(seed)
        elif not self._seeded:
            seed = secrets.randbits(63)
        with self._open():
            self._native.reset(seed)
            self._seeded = True
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
        a = _actions(actions, self.num_envs)
        with self._open():
            self._native.step(a)
        return self._obs, self._rewards, self._terminated, self._truncated, self._info

    def sample_legal(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for every environment (native; a read-only view of
        a reused buffer)."""
        with self._open():
            self._native.sample_legal()
        return self._actions

    def board(self, i: int) -> dict[str, Any]:
        """Environment ``i``'s game: counts and owners per cell, player to move, ply."""
        i = check.whole(i, "environment", 0, self.num_envs - 1, InvalidIndexError)
        with self._open():
            counts, owners, to_move, ply = self._native.snapshot(i)
        return {"counts": counts, "owners": owners, "to_move": to_move, "ply": ply}

    def close(self) -> None:
        """Ends the environment, as Gymnasium's ``close``: later calls of ``reset``,
        ``step``, ``sample_legal`` and ``board`` raise ``ConfigError``; closing again is
        harmless. (Its buffers are numpy arrays, freed with the object; there is nothing to
        render: ``board(i)`` and ``colorwars.views`` show a game.)"""
        self._closed = True

    @contextlib.contextmanager
    def _open(self) -> Iterator[None]:
        """The lock, once the environment is known not to be closed."""
        with self._lock:
            if self._closed:
                raise ConfigError("the VectorEnv is closed: make a new one")
            yield

    def __repr__(self) -> str:
        return (
            f"VectorEnv(num_envs={self.num_envs}, width={self.width}, height={self.height}, "
            f"players={self.players}, rules={self.rules.name!r}, max_plies={self.max_plies}, "
            f"illegal={self.illegal!r})"
        )


class _Buffers:
    """The arrays the native engine writes (read by attribute in ``NativeVecEnv``)."""

    def __init__(self, b: int, p: int, h: int, w: int) -> None:
        self.obs = np.zeros((b, p, h, w), np.uint8)
        self.mask = np.zeros((b, h * w), np.uint8)
        self.to_move = np.zeros(b, np.int8)
        self.rewards = np.zeros(b, np.float32)
        self.seat_rewards = np.zeros((b, p), np.float32)
        self.terminated = np.zeros(b, np.uint8)
        self.truncated = np.zeros(b, np.uint8)
        self.winner = np.zeros(b, np.int8)
        self.episode_plies = np.zeros(b, np.uint32)
        self.illegal_actions = np.zeros(b, np.uint8)
        self.actions = np.zeros(b, np.int64)
        self.final_obs = np.zeros((b, p, h, w), np.uint8)


def _cell(x: object) -> int | None:
    """A whole number that fits an int64 action, else None."""
    try:
        n = operator.index(x)  # type: ignore[arg-type]
    except TypeError:
        return None
    return n if -(2**63) <= n < 2**63 else None


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A view callers cannot write through (the native engine still writes the buffer). Its
    ``base`` is a read-only ``memoryview``, not the buffer, so it cannot be used to make the
    view writable; a buffer made read-only by other means is made writable again by the
    environment that owns it."""
    return np.asarray(array.data.toreadonly())


def _actions(actions: object, num_envs: int) -> npt.NDArray[np.int64]:
    """One whole-number action per environment as contiguous int64. Floats, strings, objects
    and bools are refused, never cast (1.5 is not cell 1)."""
    if isinstance(actions, list | tuple):
        # Element by element: a bool or a float is refused, and numpy integers of any width
        # mix with Python ints (numpy alone would turn [np.uint64(0), 2] into floats).
        if len(actions) != num_envs:
            raise InvalidMoveError(
                f"invalid actions: {len(actions)} given; expected {num_envs}, one per environment"
            )
        out = np.empty(num_envs, dtype=np.int64)
        for i, x in enumerate(actions):
            cell = None if isinstance(x, bool | np.bool_) else _cell(x)
            if cell is None:
                raise InvalidMoveError(
                    f"invalid actions: environment {i}: {show(x)} is not a whole-number cell"
                )
            out[i] = cell
        return out
    try:
        a = np.asarray(actions)
    except Exception as e:  # numpy raises several types for ragged or odd input
        raise InvalidMoveError(f"invalid actions: expected whole-number cells ({e})") from None
    if a.dtype.kind not in "iu":
        raise InvalidMoveError(
            f"invalid actions: expected whole-number cells, got an array of {a.dtype}"
        )
    if a.shape != (num_envs,):
        raise InvalidMoveError(
            f"invalid actions: shape {a.shape}; expected ({num_envs},), one per environment"
        )
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and num_envs and int(a.max()) >= 2**63:
        raise InvalidMoveError("invalid actions: a cell number beyond the board")
    return np.ascontiguousarray(a, dtype=np.int64)
