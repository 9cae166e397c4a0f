"""``colorwars train``: the pipeline that makes the shipped networks (the ``train`` extra:
JAX, Flax and Optax; see docs/learned.md for why JAX).

A run has two phases, both in one run folder that a later run resumes:

1. **Expert bootstrap**: ``bootstrap`` games of alpha-beta against itself (depth
   ``expert_depth``; a share ``explore`` of the first ``explore_plies`` moves random, so that
   the games differ). Every position is labelled with alpha-beta's move (the policy target)
   and the game's result (the value target). The engine labels thousands of positions a
   second, far cheaper than search with the network. Each game draws its board and its
   random moves from its own generator (the run's seed and the game's number), so the games
   are the same whatever the number of ``threads`` playing them.
2. **Self-play iterations** (AlphaZero style): ``games`` games of PUCT with the current
   network (``simulations`` per move, Dirichlet noise, the first moves drawn by visits); the
   visit distributions and results join a replay buffer of the last ``buffer`` positions;
   ``steps`` steps of Adam on random batches (with the board's symmetries); a short match
   against fixed opponents (greedy and alpha-beta depth 2) measures the strength.

Every iteration ends with a checkpoint (``run.ckpt``, sealed: the settings, the history, the
weights, Adam's state and the replay buffer), the network (``network.net``) and the
learning curve (``curve.png``: score against each fixed opponent over training minutes).
The expert games are checkpointed every ``SAVE_SECONDS`` while they are played (their
number, not ``minutes``, bounds them).

A new run may start from another run past its expert games (``start_from``): it takes that
run's weights, Adam's state and kept positions, its rules and network shape, and goes on with
self-play iterations under its own settings (those not named are the other run's, but for
``minutes`` and ``iterations``); its checkpoint and network record where it started (the
other run's command, settings, history and checkpoint digest).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import platform
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import colorwars
from colorwars import _files, _validate
from colorwars.errors import ConfigError, FileError, missing_extra
from colorwars.proof import cores
from colorwars.statistics import wilson_interval
from colorwars.zero.network import Network, features, random_network

__all__ = ["RunSettings", "expert_games", "train"]

KIND = "training"
VERSION = 1
CHECKPOINT = "run.ckpt"
NETWORK = "network.net"
CURVE = "curve.png"
SAVE_SECONDS = 300.0
"""The expert games are checkpointed this often while they are played (a long bootstrap
stopped, or Ctrl-C, loses at most this much of it; the run resumes where it was saved)."""


@dataclass
class RunSettings:
    """Everything that decides a run (kept in its checkpoint; a resumed run keeps them,
    except ``minutes`` and ``iterations``, which a later run may extend)."""

    rules: str = "colorwars"
    sizes: list[tuple[int, int, float]] = field(default_factory=lambda: [(5, 5, 1.0)])
    """Boards ``(width, height, weight)``: each game's board is drawn by weight."""
    minutes: float = 30.0
    iterations: int = 1000
    bootstrap: int = 2000
    expert_depth: int = 3
    expert_eval: str = "hand"
    """The expert's evaluation: ``hand`` (alpha-beta's own) or ``learned`` (``learned``'s)."""
    explore: float = 0.3
    explore_plies: int = 10
    bootstrap_steps: int = 3000
    games: int = 64
    simulations: int = 64
    steps: int = 300
    batch: int = 256
    lr: float = 2e-3
    weight_decay: float = 1e-4
    buffer: int = 150_000
    channels: int = 32
    blocks: int = 3
    hidden: int = 64
    eval_games: int = 20
    eval_simulations: int = 64
    seed: int = 0

    def check(self) -> None:
        if self.rules not in ("colorwars", "classic"):
            raise ConfigError(f"invalid rules {self.rules!r}: expected colorwars or classic")
        if self.expert_eval not in ("hand", "learned"):
            raise ConfigError(f"invalid expert_eval {self.expert_eval!r}: expected hand or learned")
        if not self.sizes:
            raise ConfigError("invalid sizes: expected at least one board")
        for w, h, weight in self.sizes:
            if not (2 <= w <= 16 and 2 <= h <= 16) or weight <= 0:
                raise ConfigError(
                    f"invalid board {w}x{h} (weight {weight}): sides 2 to 16, weight above 0"
                )
        from colorwars.zero.network import LIMITS

        whole = {
            "iterations": (0, 10**9), "bootstrap": (1, 10**8), "expert_depth": (1, 64),
            "explore_plies": (0, 10**4), "bootstrap_steps": (1, 10**9), "games": (1, 10**6),
            "simulations": (1, 10**6), "steps": (1, 10**9), "batch": (1, 2**16),
            "buffer": (1, 10**9), "channels": (1, LIMITS["channels"]),
            "blocks": (1, LIMITS["blocks"]), "hidden": (1, LIMITS["hidden"]),
            "eval_games": (2, 10**6), "eval_simulations": (1, 10**6), "seed": (0, 2**63),
        }  # fmt: skip
        for name, (low, high) in whole.items():
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
                raise ConfigError(
                    f"invalid {name} {v!r}: expected a whole number from {low} to {high}"
                )
        if self.eval_games % 2:
            raise ConfigError(
                f"invalid eval_games {self.eval_games}: expected an even number (both seats)"
            )
        reals = (("minutes", 0.0, 1e6), ("lr", 0.0, 1.0), ("weight_decay", -1e-12, 1.0),
                 ("explore", -1e-12, 1.0))  # fmt: skip
        for real, least, most in reals:
            x = getattr(self, real)
            if not isinstance(x, int | float) or not (math.isfinite(x) and least < x <= most):
                bound = "above 0" if least >= 0 else "from 0"
                raise ConfigError(f"invalid {real} {x!r}: expected a number {bound} to {most:g}")


def _jax() -> tuple[Any, Any, Any, Any]:
    try:
        import jax
        import jax.numpy as jnp
        import optax
        from flax import linen as nn
    except ImportError:
        raise missing_extra("train", "colorwars train needs JAX, Flax and Optax", "jax") from None
    return jax, jnp, nn, optax


def _model(nn: Any, jnp: Any, s: RunSettings) -> Any:
    class Model(nn.Module):  # type: ignore[misc]
        """The network of ``colorwars.zero.network`` in Flax (same names and layout)."""

        @nn.compact
        def __call__(self, x: Any) -> tuple[Any, Any]:
            x = nn.relu(nn.Conv(s.channels, (3, 3), name="stem")(x))
            for i in range(s.blocks):
                y = nn.relu(nn.Conv(s.channels, (3, 3), name=f"block{i}a")(x))
                x = nn.relu(x + nn.Conv(s.channels, (3, 3), name=f"block{i}b")(y))
            logits = nn.Conv(1, (1, 1), name="policy")(x).reshape(x.shape[0], -1)
            pooled = jnp.concatenate([x.mean((1, 2)), x.max((1, 2))], 1)
            hid = nn.relu(nn.Dense(s.hidden, name="value1")(pooled))
            return logits, jnp.tanh(nn.Dense(1, name="value2")(hid))[:, 0]

    return Model()


def _to_flax(params: dict[str, npt.NDArray[np.float32]]) -> dict[str, Any]:
    tree: dict[str, dict[str, Any]] = {}
    for name, a in params.items():
        layer, kind = name.split(".")
        tree.setdefault(layer, {})[kind] = a
    return {"params": tree}


def _from_flax(tree: Any) -> dict[str, npt.NDArray[np.float32]]:
    return {
        f"{layer}.{kind}": np.asarray(a, dtype=np.float32)
        for layer, parts in tree["params"].items()
        for kind, a in parts.items()
    }


# --- the replay buffer --------------------------------------------------------------------


class _Part:
    """One board's rows: arrays with room to grow, the rows kept ``start:end`` (adding a
    game costs its own rows, not a copy of all the others)."""

    def __init__(self, rows: dict[str, npt.NDArray[Any]], copy: bool = True) -> None:
        self.data = {k: v.copy() if copy else v for k, v in rows.items()}
        self.start, self.end = 0, len(rows["z"])

    def __len__(self) -> int:
        return self.end - self.start

    def rows(self) -> dict[str, npt.NDArray[Any]]:
        return {k: v[self.start : self.end] for k, v in self.data.items()}

    def append(self, rows: dict[str, npt.NDArray[Any]]) -> None:
        n = len(rows["z"])
        room = len(self.data["z"])
        if self.end + n > room:  # no room after the kept rows
            kept = len(self)
            if kept + n <= room // 2 and all(v.flags.writeable for v in self.data.values()):
                for v in self.data.values():  # most rows dropped: the kept ones move up
                    v[:kept] = v[self.start : self.end]
            else:  # to new arrays, with room to grow
                grown = {}
                for k, v in self.data.items():
                    a = np.empty((max(2 * (kept + n), 1024), *v.shape[1:]), v.dtype)
                    a[:kept] = v[self.start : self.end]
                    grown[k] = a
                self.data = grown
            self.start, self.end = 0, kept
        for k, v in rows.items():
            self.data[k][self.end : self.end + n] = v
        self.end += n


class Buffer:
    """The last ``limit`` positions of each board: planes, legal mask, the policy target and
    the value target."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: dict[tuple[int, int], _Part] = {}

    @property
    def parts(self) -> dict[tuple[int, int], dict[str, npt.NDArray[Any]]]:
        """Each board's rows kept, oldest first (views, not copies)."""
        return {size: part.rows() for size, part in self._parts.items()}

    def __len__(self) -> int:
        return sum(len(p) for p in self._parts.values())

    def add(
        self,
        size: tuple[int, int],
        planes: npt.NDArray[np.uint8],
        mask: npt.NDArray[np.uint8],
        pi: npt.NDArray[np.float32],
        z: npt.NDArray[np.float32],
    ) -> None:
        new: dict[str, npt.NDArray[Any]] = {
            "planes": planes,
            "mask": mask,
            "pi": pi.astype(np.float16),
            "z": z,
        }
        part = self._parts.get(size)
        if part is None:
            self._parts[size] = _Part(new)
        else:
            part.append(new)
        self._trim()

    def _trim(self) -> None:
        total = len(self)
        if total > self.limit:  # drop the oldest of every board in proportion
            keep = self.limit / total
            for part in self._parts.values():
                n = len(part)
                part.start += n - int(n * keep)

    def sample(self, rng: np.random.Generator, batch: int) -> tuple[npt.NDArray[Any], ...]:
        keys = sorted(self._parts)
        sizes = np.array([len(self._parts[k]) for k in keys], dtype=np.float64)
        key = keys[rng.choice(len(keys), p=sizes / sizes.sum())]
        part = self._parts[key].rows()
        idx = rng.integers(0, len(part["z"]), batch)
        planes, mask, pi, z = (part[k][idx] for k in ("planes", "mask", "pi", "z"))
        w, h = key
        mask = mask.reshape(batch, h, w)
        pi = pi.astype(np.float32).reshape(batch, h, w)
        # One of the board's symmetries for the whole batch.
        if rng.random() < 0.5:
            planes, mask, pi = planes[..., ::-1], mask[..., ::-1], pi[..., ::-1]
        if rng.random() < 0.5:
            planes, mask, pi = planes[..., ::-1, :], mask[..., ::-1, :], pi[..., ::-1, :]
        if w == h and rng.random() < 0.5:
            planes = planes.transpose(0, 1, 3, 2)
            mask, pi = mask.transpose(0, 2, 1), pi.transpose(0, 2, 1)
        x = features(np.ascontiguousarray(planes))
        return x, mask.reshape(batch, -1).astype(np.float32), pi.reshape(batch, -1), z

    def to_npz(self) -> dict[str, npt.NDArray[Any]]:
        out: dict[str, npt.NDArray[Any]] = {}
        for (w, h), part in self.parts.items():
            for k, v in part.items():
                out[f"buffer/{w}x{h}/{k}"] = v
        return out

    @staticmethod
    def from_npz(limit: int, arrays: dict[str, npt.NDArray[Any]]) -> Buffer:
        buf = Buffer(limit)
        boards: dict[tuple[int, int], dict[str, npt.NDArray[Any]]] = {}
        for name, v in arrays.items():
            if not name.startswith("buffer/"):
                continue
            _, board, k = name.split("/")
            w, h = (int(t) for t in board.split("x"))
            boards.setdefault((w, h), {})[k] = v
        buf._parts = {size: _Part(rows, copy=False) for size, rows in boards.items()}
        buf._trim()  # a run started from another may keep fewer positions
        return buf


# --- data -----------------------------------------------------------------------------------


def _pick_size(rng: np.random.Generator, s: RunSettings) -> tuple[int, int]:
    weights = np.array([w for _, _, w in s.sizes], dtype=np.float64)
    k = rng.choice(len(s.sizes), p=weights / weights.sum())
    return int(s.sizes[k][0]), int(s.sizes[k][1])


Rows = tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.float32], npt.NDArray[np.float32]
]


class _StoppedError(Exception):
    """An expert game given up because the run is stopping."""


def expert_game(
    size: tuple[int, int],
    s: RunSettings,
    rng: np.random.Generator,
    stop: threading.Event | None = None,
) -> Rows:
    """One game of alpha-beta against itself, as training rows (planes, mask, policy target,
    value target). ``stop``, once set, gives the game up before its next move."""
    from colorwars.ai import AlphaBeta
    from colorwars.views import planes as planes_of

    w, h = size
    game = colorwars.Game(w, h, rules=s.rules)
    expert = AlphaBeta(depth=s.expert_depth, eval=s.expert_eval)
    rows: list[tuple[Any, ...]] = []
    while game.winner is None and game.ply < 4 * w * h + 8:
        if stop is not None and stop.is_set():
            raise _StoppedError
        legal = game.legal_moves()
        mask = np.zeros(w * h, np.uint8)
        mask[legal] = 1
        best = expert.search(game, stop).cell
        if stop is not None and stop.is_set():  # the search may have been cut short
            raise _StoppedError
        rows.append((planes_of(game), mask, best, game.to_move))
        move = best
        if game.ply < s.explore_plies and rng.random() < s.explore:
            move = int(legal[rng.integers(len(legal))])
        game.play(move)
    n = len(rows)
    planes = np.stack([r[0] for r in rows]) if n else np.zeros((0, 2, h, w), np.uint8)
    mask = np.stack([r[1] for r in rows]) if n else np.zeros((0, w * h), np.uint8)
    pi = np.zeros((n, w * h), np.float32)
    pi[np.arange(n), [r[2] for r in rows]] = 1.0
    winner = game.winner
    z = np.array(
        [0.0 if winner is None else (1.0 if r[3] == winner else -1.0) for r in rows], np.float32
    )
    return planes, mask, pi, z


def expert_games(
    s: RunSettings, first: int = 0, threads: int = 1
) -> Generator[tuple[tuple[int, int], Rows]]:
    """The run's expert games ``first`` to ``s.bootstrap - 1``, in order, each as its board and
    its rows, played ``threads`` at a time (0: one per core). Game ``g`` draws its board and
    its random moves from its own generator, ``SeedSequence(s.seed, spawn_key=(g,))`` (the
    ``g``-th of ``SeedSequence(s.seed).spawn``): the games do not depend on ``threads``, nor
    on where a stopped run resumed. Closing the iterator (or Ctrl-C while it waits) stops
    the games being played: their searches end within a few hundredths of a second."""
    s.check()
    threads = _validate.threads(threads) or cores()
    first = _validate.whole(first, "first game", 0, 10**9)
    return _expert_games(s, first, threads)


def _expert_games(
    s: RunSettings, first: int, threads: int
) -> Generator[tuple[tuple[int, int], Rows]]:
    def one(g: int, stop: threading.Event | None = None) -> tuple[tuple[int, int], Rows]:
        rng = np.random.default_rng(np.random.SeedSequence(s.seed, spawn_key=(g,)))
        size = _pick_size(rng, s)
        return size, expert_game(size, s, rng, stop)

    if threads <= 1:
        for g in range(first, s.bootstrap):
            yield one(g)
        return
    stop = threading.Event()
    pending: deque[Future[tuple[tuple[int, int], Rows]]] = deque()
    with ThreadPoolExecutor(threads, thread_name_prefix="colorwars-expert") as pool:
        try:
            ahead = first
            while ahead < s.bootstrap or pending:
                while ahead < s.bootstrap and len(pending) < 2 * threads:
                    pending.append(pool.submit(one, ahead, stop))
                    ahead += 1
                yield pending.popleft().result()
        finally:
            # The queued games first, so that no thread freed by the stop starts one.
            for future in pending:
                future.cancel()
            stop.set()


def strength(
    network: Network, s: RunSettings, size: tuple[int, int], games: int, seed: int
) -> dict[str, float]:
    """The network's score (PUCT, ``eval_simulations``) against greedy and alpha-beta depth
    2 on ``size``, ``games`` games each, both seats."""
    from colorwars.ai import AlphaBeta, Greedy
    from colorwars.puct import PUCT

    me = PUCT(network, simulations=s.eval_simulations, batch=8, seed=seed, dirichlet_weight=0.0)
    out: dict[str, float] = {}
    for name, other in (("greedy", Greedy(seed=seed)), ("alphabeta2", AlphaBeta(depth=2))):
        won = 0
        for g in range(games):
            game = colorwars.Game(size[0], size[1], rules=s.rules)
            mine = g % 2
            # A different opening each game: the first move of the first player at random.
            rng = np.random.default_rng(seed * 1000 + g)
            legal = game.legal_moves()
            game.play(int(legal[rng.integers(len(legal))]))
            while game.winner is None and game.ply < 4 * size[0] * size[1] + 8:
                player = me if game.to_move == mine else other
                game.play(player.choose(game))
            won += game.winner == mine
        out[name] = won / games
    return out


# --- the run --------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in ("colorwars", "numpy", "jax", "jaxlib", "flax", "optax"):
        with contextlib.suppress(md.PackageNotFoundError):
            out[name] = md.version(name)
    out["cpus"] = str(os.cpu_count())
    return out


def _settings_from(header: dict[str, Any], path: Path) -> RunSettings:
    try:
        raw = dict(header["settings"])
        raw["sizes"] = [tuple(x) for x in raw["sizes"]]
        s = RunSettings(**raw)
        s.check()
    except (KeyError, TypeError, ValueError, ConfigError) as e:
        raise FileError(f"invalid training checkpoint {path}: its settings: {e}") from None
    return s


_SHAPE = ("rules", "channels", "blocks", "hidden")
"""The settings a run started from another takes from it (the network's)."""


def _state(
    header: dict[str, Any], body: bytes, s: RunSettings, path: Path
) -> tuple[Any, list[Any], Buffer]:
    """A checkpoint's weights (as Flax's), Adam's state and buffer (kept to ``s.buffer``)."""
    try:
        with np.load(io.BytesIO(body), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        params = {k[7:]: v for k, v in arrays.items() if k.startswith("params/")}
        Network(s.rules, s.channels, s.blocks, s.hidden, params)
        count = int(header["opt_leaves"])
        leaves = [arrays[f"opt/{i}"] for i in range(count)]
        buffer = Buffer.from_npz(s.buffer, arrays)
    except (KeyError, TypeError, ValueError) as e:
        raise FileError(f"invalid training checkpoint {path}: {e}") from None
    return _to_flax(params), leaves, buffer


@dataclass
class Start:
    """The checkpoint a new run starts from: its path, header, body and settings. The body
    (the other run's arrays: 100 MB and more) is dropped once the new run has read it."""

    path: Path
    header: dict[str, Any]
    body: bytes
    settings: RunSettings


def _read_start(folder: str | os.PathLike[str], into: Path) -> Start:
    """The checkpoint of the run folder ``folder`` that a new run in ``into`` starts from,
    checked: sealed and whole, past its expert games, not ``into`` itself."""
    where = Path(os.fspath(folder))
    if where.resolve() == into.resolve():
        raise ConfigError(f"invalid start_from {where}: it is the run's own folder")
    path = where / CHECKPOINT
    found = _files.read_sealed(path, KIND, VERSION, "training checkpoint")
    if found is None:
        raise FileError(f"cannot start from {where}: it has no training checkpoint ({path})")
    header, body = found
    settings = _settings_from(header, path)
    if header.get("phase") != "self-play":
        raise ConfigError(
            f"cannot start from {where}: its expert games are not all played and fitted yet "
            "(run it to the end of its bootstrap first)"
        )
    return Start(path, header, body, settings)


class _Run:
    def __init__(
        self,
        folder: Path,
        settings: RunSettings,
        log: Callable[[str], None],
        given: set[str] | None = None,
        start: Start | None = None,
    ) -> None:
        self.jax, self.jnp, nn, self.optax = _jax()
        self.folder = folder
        self.log = log
        ckpt = folder / CHECKPOINT
        found = _files.read_sealed(ckpt, KIND, VERSION, "training checkpoint")
        self.start: dict[str, Any] | None = None
        if found is None and start is not None:
            self._begin_from(settings, log, given, start)
        elif found is None:
            settings.check()
            self.s = settings
            self.history: list[dict[str, Any]] = []
            self.iteration = 0
            self.elapsed = 0.0
            self.games = 0
            self.positions = 0
            self.rng = np.random.default_rng(settings.seed)
            net = random_network(
                settings.rules, settings.channels, settings.blocks, settings.hidden, settings.seed
            )
            self.params = _to_flax(net.params)
            self.buffer = Buffer(settings.buffer)
            self.opt_leaves: list[Any] | None = None
            self.phase = "bootstrap"
            self.versions = _versions()
            self.argv = list(sys.argv)
        else:
            header, body = found
            self.s = _settings_from(header, ckpt)
            # A later run may give more time or iterations; nothing else may change.
            for name, value in asdict(settings).items():
                if given is not None and name not in given:
                    continue
                if name in ("minutes", "iterations"):
                    setattr(self.s, name, getattr(settings, name))
                elif value != asdict(self.s)[name]:
                    log(f"{name} {value!r} ignored: the run keeps its {asdict(self.s)[name]!r}")
            try:
                self.history = list(header["history"])
                self.iteration = int(header["iteration"])
                self.elapsed = float(header["elapsed"])
                self.games = int(header["games"])
                self.positions = int(header["positions"])
                self.phase = str(header["phase"])
                self.versions = dict(header["versions"])
                self.argv = list(header["argv"])
                start_from = header.get("start_from")
                self.start = None if start_from is None else dict(start_from)
                state = header["rng"]
                self.rng = np.random.default_rng()
                self.rng.bit_generator.state = state
            except (KeyError, TypeError, ValueError) as e:
                raise FileError(f"invalid training checkpoint {ckpt}: {e}") from None
            self.params, self.opt_leaves, self.buffer = _state(header, body, self.s, ckpt)
            where = (
                f"{self.games:,} of {self.s.bootstrap:,} expert games played"
                if self.phase == "bootstrap"
                else f"iteration {self.iteration}, {self.games:,} games"
            )
            log(
                f"resuming {folder}: {where}, {self.positions:,} positions, "
                f"{self.elapsed / 60:.1f} minutes so far"
            )
        self.model = _model(nn, self.jnp, self.s)
        self.tx = self.optax.adamw(self.s.lr, weight_decay=self.s.weight_decay)
        state = self.tx.init(self.params)
        if self.opt_leaves is not None:
            treedef = self.jax.tree_util.tree_structure(state)
            state = self.jax.tree_util.tree_unflatten(
                treedef, [self.jnp.asarray(a) for a in self.opt_leaves]
            )
        self.opt_state = state
        self._step = self._compile()

    def _begin_from(
        self,
        settings: RunSettings,
        log: Callable[[str], None],
        given: set[str] | None,
        start: Start,
    ) -> None:
        """A new run from another run's checkpoint (``_read_start``): its network, Adam's
        state and positions; ``settings`` for the rest (the network's shape excepted)."""
        path, header, body, base = start.path, start.header, start.body, start.settings
        for name in _SHAPE:
            mine, theirs = getattr(settings, name), getattr(base, name)
            if mine != theirs and (given is None or name in given):
                log(f"{name} {mine!r} ignored: the run started from has {theirs!r}")
        # Settings not named (``given``) are the other run's, but for this run's own budget.
        inherit = {
            name: value
            for name, value in asdict(base).items()
            if name in _SHAPE
            or (given is not None and name not in given and name not in ("minutes", "iterations"))
        }
        self.s = replace(settings, **inherit)
        self.s.check()
        try:
            self.games = int(header["games"])
            self.positions = int(header["positions"])
            self.start = {
                "folder": str(path.parent), "body_blake2b": _files.digest(body),
                "command": " ".join(header["argv"]), "settings": dict(header["settings"]),
                "history": list(header["history"]), "games": self.games,
                "positions": self.positions, "seconds": round(float(header["elapsed"]), 1),
                "iteration": int(header["iteration"]),
            }  # fmt: skip
        except (KeyError, TypeError, ValueError) as e:
            raise FileError(f"invalid training checkpoint {path}: {e}") from None
        self.params, self.opt_leaves, self.buffer = _state(header, body, self.s, path)
        start.body = b""  # read: the run does not carry the other run's arrays along
        self.history = []
        self.iteration = 0
        self.elapsed = 0.0
        self.rng = np.random.default_rng(self.s.seed)
        self.phase = "self-play"
        self.versions = _versions()
        self.argv = list(sys.argv)
        log(
            f"starting from {path.parent}: {self.games:,} games, {len(self.buffer):,} of its "
            f"{self.positions:,} positions kept"
        )

    def _compile(self) -> Any:
        jax, jnp, optax, model, tx = self.jax, self.jnp, self.optax, self.model, self.tx

        def loss_fn(params: Any, x: Any, mask: Any, pi: Any, z: Any) -> Any:
            logits, v = model.apply(params, x)
            logits = jnp.where(mask > 0, logits, -1e9)
            policy = -(pi * jax.nn.log_softmax(logits)).sum(1).mean()
            value = ((v - z) ** 2).mean()
            return policy + value, (policy, value)

        @jax.jit
        def step(params: Any, state: Any, x: Any, mask: Any, pi: Any, z: Any) -> Any:
            (_, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, mask, pi, z)
            updates, state = tx.update(grads, state, params)
            return optax.apply_updates(params, updates), state, parts

        return step

    def network(self) -> Network:
        info = {
            "iteration": self.iteration,
            "games": self.games,
            "positions": self.positions,
            "seconds": round(self.elapsed, 1),
            "sizes": [list(x) for x in self.s.sizes],
            "command": " ".join(self.argv),
            "versions": self.versions,
        }
        if self.start is not None:
            info["start_from"] = {
                k: self.start[k] for k in ("command", "games", "positions", "seconds")
            }
        return Network(
            self.s.rules, self.s.channels, self.s.blocks, self.s.hidden,
            _from_flax(self.params), info,
        )  # fmt: skip

    def fit(self, steps: int) -> tuple[float, float]:
        losses = []
        for _ in range(steps):
            x, mask, pi, z = self.buffer.sample(self.rng, self.s.batch)
            self.params, self.opt_state, parts = self._step(
                self.params, self.opt_state, x, mask, pi, z
            )
            losses.append(parts)
        p, v = np.asarray(self.jax.device_get(losses), dtype=np.float64).mean(axis=0)
        return float(p), float(v)

    def save(self, outputs: bool = True) -> None:
        """The checkpoint; with ``outputs`` also the network and the curve (not while the
        expert games are played: there is no trained network yet)."""
        arrays: dict[str, Any] = {f"params/{k}": v for k, v in _from_flax(self.params).items()}
        leaves = self.jax.tree_util.tree_leaves(self.opt_state)
        arrays.update({f"opt/{i}": np.asarray(a) for i, a in enumerate(leaves)})
        arrays.update(self.buffer.to_npz())
        body = io.BytesIO()
        np.savez(body, **dict[str, Any](arrays))
        header = {
            "settings": asdict(self.s),
            "history": self.history,
            "iteration": self.iteration,
            "elapsed": self.elapsed,
            "games": self.games,
            "positions": self.positions,
            "phase": self.phase,
            "versions": self.versions,
            "argv": self.argv,
            "rng": self.rng.bit_generator.state,
            "opt_leaves": len(leaves),
            "start_from": self.start,
        }
        data = _files.seal(KIND, VERSION, header, body.getvalue())
        _files.atomic_write(self.folder / CHECKPOINT, data, "training checkpoint")
        if outputs:
            self.network().save(self.folder / NETWORK)
            _curve(self.folder / CURVE, self.history, self.s)


def _curve(path: Path, history: list[dict[str, Any]], s: RunSettings) -> None:
    """The learning curve: the score against each fixed opponent over training minutes."""
    points = [h for h in history if "score" in h]
    if not points:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=120)
    for name in points[-1]["score"]:
        rows = [(h["minutes"], h["score"][name], h.get("eval_games", s.eval_games))
                for h in points if name in h["score"]]  # fmt: skip
        xs = [m for m, _, _ in rows]
        ys = [y for _, y, _ in rows]
        lo = [wilson_interval(round(y * n), n)[0] for _, y, n in rows]
        hi = [wilson_interval(round(y * n), n)[1] for _, y, n in rows]
        ax.plot(xs, ys, marker="o", label=f"against {name}")
        ax.fill_between(xs, lo, hi, alpha=0.15)
    w, h = points[-1]["board"]
    ax.set_xlabel("training minutes")
    ax.set_ylabel(f"score on {w}x{h} {s.rules}")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(f"colorwars train: {s.rules} ({s.eval_simulations} simulations a move)")
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    plt.close(fig)
    _files.atomic_write(path, buf.getvalue(), "learning curve")


@contextlib.contextmanager
def _bar(show: bool, total: float) -> Iterator[Callable[..., None]]:
    if not show:
        yield lambda **_: None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"), transient=False,
    ) as bar:  # fmt: skip
        task = bar.add_task("training", total=total, status="")

        def update(**kw: Any) -> None:
            bar.update(task, **kw)

        yield update


def train(
    folder: str | os.PathLike[str],
    settings: RunSettings | None = None,
    *,
    progress: bool = False,
    log: Callable[[str], None] = lambda _: None,
    given: set[str] | None = None,
    threads: int = 0,
    start_from: str | os.PathLike[str] | None = None,
) -> Network:
    """Trains (or resumes training) in the run folder ``folder`` and returns the network.
    A run stops after ``settings.minutes`` of training time in all (counting earlier runs on
    the folder) or ``settings.iterations`` iterations (a resumed run takes these two from
    ``settings``, or only those named in ``given``, and keeps every other setting of its
    checkpoint); Ctrl-C stops it, keeping the last completed iteration or the expert games
    last saved. ``threads`` play the expert games (0: one per core; the games are the same
    whatever their number). ``start_from``, a run folder past its expert games, starts a new
    run from its weights, Adam's state and kept positions, with its rules and network shape:
    the new run plays only self-play iterations, under ``settings`` (with ``given``, those
    not named are the other run's, but for ``minutes`` and ``iterations``; ``start_from`` is
    ignored once ``folder`` has a checkpoint of its own: the run resumes). Needs the
    ``train`` extra (JAX, Flax, Optax)."""
    path = Path(os.fspath(folder))
    settings = settings or RunSettings()
    # before the folder is made: a refused run leaves nothing behind
    settings.check()
    threads = _validate.threads(threads) or cores()
    begin = None
    if start_from is not None and (path / CHECKPOINT).exists():
        log(f"start_from {os.fspath(start_from)} ignored: {path} has a checkpoint and resumes")
    elif start_from is not None:
        begin = _read_start(start_from, path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FileError(f"cannot make the run folder {path}: {e.strerror or e}") from None
    _files.check_output(path / CHECKPOINT, "training checkpoint")
    with _files.locked(path / CHECKPOINT, "run folder's checkpoint"):
        return _train(path, settings, progress, log, given, threads, begin)


def _train(
    path: Path,
    settings: RunSettings,
    progress: bool,
    log: Callable[[str], None],
    given: set[str] | None,
    threads: int,
    begin: Start | None = None,
) -> Network:
    run = _Run(path, settings, log, given, begin)
    if begin is not None:  # the folder holds the run from its start
        run.save()
    s = run.s
    budget = s.minutes * 60
    main = (int(s.sizes[0][0]), int(s.sizes[0][1]))
    with _bar(progress, budget) as bar:
        start = time.perf_counter() - run.elapsed

        def tick(status: str) -> None:
            run.elapsed = time.perf_counter() - start
            bar(completed=min(run.elapsed, budget), status=status)

        if run.phase == "bootstrap":
            saved = time.perf_counter()
            # In this phase the run's games are the expert games played (a resumed run goes on).
            with contextlib.closing(_expert_games(s, run.games, threads)) as games:
                for g, (size, (planes, mask, pi, z)) in enumerate(games, run.games):
                    run.buffer.add(size, planes, mask, pi, z)
                    run.games += 1
                    run.positions += len(z)
                    if g % 20 == 0:
                        tick(f"expert games {g + 1:,}/{s.bootstrap:,}, {run.positions:,} positions")
                    if time.perf_counter() - saved >= SAVE_SECONDS and run.games < s.bootstrap:
                        tick(f"expert games {g + 1:,}/{s.bootstrap:,}: saving")
                        run.save(outputs=False)
                        saved = time.perf_counter()
            tick("fitting the expert games")
            p_loss, v_loss = run.fit(s.bootstrap_steps)
            run.phase = "self-play"
            tick(f"expert games fitted: policy loss {p_loss:.3f}, value loss {v_loss:.3f}")
            score = strength(run.network(), s, main, s.eval_games, s.seed)
            run.history.append(
                {"iteration": 0, "minutes": round(run.elapsed / 60, 2), "games": run.games,
                 "positions": run.positions, "policy_loss": p_loss, "value_loss": v_loss,
                 "score": score, "board": list(main), "eval_games": s.eval_games}
            )  # fmt: skip
            log(f"bootstrap: {run.games:,} games, {run.positions:,} positions, score {score}")
            tick("saving")
            run.save()
        from colorwars.puct import self_play

        while run.iteration < s.iterations and time.perf_counter() - start < budget:
            run.iteration += 1
            net = run.network()
            size = _pick_size(run.rng, s)
            tick(f"iteration {run.iteration}: self-play on {size[0]}x{size[1]}")
            seed = int(run.rng.integers(2**32))
            data = self_play(
                net, games=s.games, width=size[0], height=size[1], rules=s.rules,
                simulations=s.simulations, seed=seed, batch=min(s.games, 64),
                max_plies=4 * size[0] * size[1] + 8,
            )  # fmt: skip
            run.buffer.add(size, data.planes, data.mask, data.visits, data.outcome)
            run.games += s.games
            run.positions += len(data)
            tick(f"iteration {run.iteration}: fitting ({len(run.buffer):,} positions kept)")
            p_loss, v_loss = run.fit(s.steps)
            tick(f"iteration {run.iteration}: measuring")
            score = strength(run.network(), s, main, s.eval_games, s.seed + run.iteration)
            run.history.append(
                {"iteration": run.iteration, "minutes": round(run.elapsed / 60, 2),
                 "games": run.games, "positions": run.positions, "policy_loss": p_loss,
                 "value_loss": v_loss, "score": score, "board": list(main),
                 "eval_games": s.eval_games}
            )  # fmt: skip
            log(
                f"iteration {run.iteration}: {run.games:,} games, {run.positions:,} positions, "
                f"losses {p_loss:.3f}/{v_loss:.3f}, score {json.dumps(score)}"
            )
            tick(f"iteration {run.iteration}: saving")
            run.save()
        tick("done")
    return run.network()
