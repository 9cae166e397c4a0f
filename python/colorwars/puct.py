"""AlphaZero-style search with a network the user brings: ``PUCT`` (a player) and
``self_play`` (training records from many games searched in lockstep).

The tree lives in the native core (priors from the policy, values from the value head, no
playouts; transpositions, MCTS-Solver proofs and tree reuse as in ``MCTS``); the network is
yours: an *evaluator* is any callable

    evaluator(planes, mask) -> (logits, values)

- ``planes``: ``uint8`` ``(B, players, height, width)``, ``VectorEnv``'s layout and
  ``colorwars.views.planes``: plane ``k`` holds the orb counts of the cells of player
  ``(to_move + k) % players``, so plane 0 is always the player to move (convert to float32
  yourself if your network wants it: ``planes.astype(np.float32)``);
- ``mask``: ``uint8`` ``(B, cells)``, 1 at the legal moves (cells row-major);
- ``logits``: ``(B, cells)`` real numbers; the priors are their softmax over the legal moves
  only, so the illegal cells' logits are never read (they may hold anything, ``-inf`` too);
- ``values``: ``(B,)`` numbers from -1 to 1, each for the player to move at its position.
  With more than two players a value ``v`` counts ``v`` for the player to move and
  ``-v / (players - 1)`` for each other player (as ``VectorEnv``'s seat rewards share a win).

Every return is checked before the search uses it: anything else (not a pair, a wrong shape
or dtype, NaN or infinity at a legal move, a value outside -1 to 1) raises
``InvalidEvaluatorError`` naming what was wrong, and the trees are left as they were. An
exception the evaluator raises propagates as it is (with a note), the trees unchanged. The
native calls between two evaluations are short and never call Python, so Ctrl-C works while
your network runs and no lock can be held against it.

>>> import numpy as np, colorwars
>>> def uniform(planes, mask):
...     return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)
>>> g = colorwars.Game(width=4, height=4)
>>> PUCT(uniform, simulations=64, seed=1).choose(g) in g.legal_moves()
True
>>> data = self_play(uniform, games=2, width=3, height=3, simulations=16)
>>> data.planes.shape[1:], bool(np.allclose(data.visits.sum(axis=1), 1))
((2, 3, 3), True)
"""

from __future__ import annotations

import contextlib
import math
import threading
import time as _time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars import _validate as check
from colorwars.errors import (
    ConfigError,
    GameOverError,
    InvalidEvaluatorError,
    InvalidPlayerError,
    show,
)
from colorwars.players import PLAY_IT, native_game
from colorwars.rules import GameConfig, RulesLike

__all__ = ["PUCT", "Evaluator", "PuctMove", "SelfPlayRecords", "self_play"]

Evaluator = Callable[[npt.NDArray[np.uint8], npt.NDArray[np.uint8]], Any]
"""``evaluator(planes, mask) -> (logits, values)``; see the module's documentation."""

MAX_BATCH = 2**16
"""The most positions one evaluator call may be asked for."""

MAX_TEMPERATURE = 100.0


class PuctMove(NamedTuple):
    """What a PUCT search thinks of one legal move: its visits and their share of all, the
    mean value of the simulations through it for the player to move (-1 to 1; None before a
    visit), the network's prior, and whether it is proven to win (True) or lose (False)."""

    cell: int
    visits: int
    share: float
    value: float | None
    prior: float
    proven: bool | None


def _evaluator(value: object) -> Evaluator:
    if not callable(value):
        check.fail(
            InvalidEvaluatorError,
            "evaluator",
            value,
            "expected a callable evaluator(planes, mask) -> (logits, values)",
        )
    return value


@dataclass(frozen=True)
class _Settings:
    """The checked search settings every entry point shares."""

    simulations: int
    c_puct: float
    dirichlet: float
    dirichlet_weight: float
    batch: int
    seed: int

    @staticmethod
    def check(
        simulations: object,
        c_puct: object,
        dirichlet: object,
        dirichlet_weight: object,
        batch: object,
        seed: object,
    ) -> _Settings:
        alpha = check.number(dirichlet, "dirichlet", 0.0, 100.0, InvalidPlayerError)
        if alpha <= 0:
            check.fail(
                InvalidPlayerError, "dirichlet", dirichlet, "expected a number above 0 to 100"
            )
        return _Settings(
            simulations=check.simulations(simulations, 1),
            c_puct=check.number(c_puct, "c_puct", 0.0, check.MAX_C, InvalidPlayerError),
            dirichlet=alpha,
            dirichlet_weight=check.number(
                dirichlet_weight, "dirichlet_weight", 0.0, 1.0, InvalidPlayerError
            ),
            batch=check.whole(batch, "batch", 1, MAX_BATCH, InvalidPlayerError),
            seed=check.seed(seed),
        )

    def trees(self, config: GameConfig, count: int) -> _core.NativePuct:
        """``count`` native trees for games of ``config`` (memory checked first)."""
        bound = _core.NativePuct.memory_bound(config, count, self.simulations)
        trees = "1 search tree" if count == 1 else f"{count} search trees"
        check.memory(bound, f"{trees} of {self.simulations} simulations")
        return _core.NativePuct(
            config,
            count,
            self.simulations,
            self.c_puct,
            self.dirichlet,
            self.dirichlet_weight,
            self.seed,
        )


def _config_of(native: _core.NativeGame) -> GameConfig:
    return check.config(
        native.width,
        native.height,
        native.players,
        f"{native.opening}+{native.burst}",
    )


def _array(value: object, what: str, shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """One part of an evaluator's return as a numpy array of a real dtype and ``shape``."""
    try:
        a = np.asarray(value)
    except Exception as e:  # a tensor that needs .detach(), a ragged list...
        raise InvalidEvaluatorError(
            f"the evaluator's {what} ({type(value).__name__}) cannot be read as an array: {e}"
        ) from e
    if a.dtype.kind not in "fiu":
        raise InvalidEvaluatorError(
            f"the evaluator's {what} have dtype {a.dtype}: expected real numbers (float32)"
        )
    if a.shape != shape:
        raise InvalidEvaluatorError(
            f"the evaluator's {what} have shape {a.shape}: expected {shape} "
            f"(one {'row' if len(shape) == 2 else 'value'} per position)"
        )
    return a


def _evaluation(
    result: object, mask: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """An evaluator's return, checked and as contiguous float32 arrays."""
    n, cells = mask.shape
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise InvalidEvaluatorError(
            f"the evaluator returned {show(result)}: expected a pair (logits, values)"
        )
    raw_logits = _array(result[0], "logits", (n, cells))
    raw_values = _array(result[1], "values", (n,))
    with np.errstate(over="ignore", invalid="ignore"):  # beyond float32: inf, refused below
        logits = np.ascontiguousarray(raw_logits, dtype=np.float32)
        values = np.ascontiguousarray(raw_values, dtype=np.float32)
    bad = ~np.isfinite(logits) & (mask != 0)
    if bad.any():
        i, c = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidEvaluatorError(
            f"the evaluator's logit at position {i}, cell {c} (a legal move) is "
            f"{raw_logits[i, c]!r}: expected a finite number within float32's range "
            "(illegal cells may hold anything)"
        )
    wrong = ~(np.isfinite(values) & (values >= -1) & (values <= 1))
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise InvalidEvaluatorError(
            f"the evaluator's value at position {i} is {raw_values[i]!r}: expected a "
            "number from -1 to 1 (for the player to move)"
        )
    return logits, values


def _evaluate(
    tree: _core.NativePuct,
    evaluator: Evaluator,
    planes: npt.NDArray[np.uint8],
    mask: npt.NDArray[np.uint8],
) -> None:
    """Evaluates the leaves ``tree`` sent out and expands them; on any failure (a bad
    return, an exception, Ctrl-C) the leaves are abandoned and the trees stay as they were."""
    try:
        try:
            result = evaluator(planes, mask)
        except Exception as e:
            e.add_note("(raised by the PUCT evaluator; the search trees are unchanged)")
            raise
        logits, values = _evaluation(result, mask)
        tree.expand(logits, values)
    except BaseException:
        tree.abandon()
        raise


def _search(
    tree: _core.NativePuct,
    evaluator: Evaluator,
    k: int,
    deadline: float | None = None,
    stop: Any = None,
) -> None:
    """Runs every tree's search to its end (or the deadline, or until ``stop.is_set()``). A
    ``colorwars.zero`` network is evaluated natively, the whole search in one native call."""
    native = getattr(evaluator, "native", None)
    if isinstance(native, _core.NativeNet):
        seconds = None if deadline is None else max(0.0, deadline - _time.perf_counter())
        tree.search_native(native, k, seconds, stop)
        return
    while True:
        try:
            planes, mask, _ = tree.select(k)
        except BaseException:
            tree.abandon()
            raise
        if len(mask) == 0:
            return
        _evaluate(tree, evaluator, planes, mask)
        if deadline is not None and _time.perf_counter() >= deadline:
            return
        if stop is not None and stop.is_set():
            return


class PUCT:
    """AlphaZero-style tree search with ``evaluator`` (see the module's documentation):
    ``simulations`` per move (1 to 10**9), or fewer if ``time`` seconds run out first;
    ``c_puct`` the exploration constant; Dirichlet noise at the root (``dirichlet`` its alpha,
    above 0; ``dirichlet_weight`` its share, 0 for none: the default 0.25 is self-play's, and
    a player meant to play its best takes ``dirichlet_weight=0``); ``temperature`` 0 plays the
    most visited move, above 0 draws one with odds ``visits ** (1 / temperature)``; a proven
    win is played at once and a move proven to lose avoided. ``batch`` positions at most go to one
    evaluator call (virtual loss spreads them over the tree). With ``reuse`` the tree is kept
    between moves and the next search starts from the part below the new position.

    Memory: a tree holds at most ``2 * (simulations + 1)`` positions (a kept part larger than
    one search's is dropped), checked against the machine's memory first."""

    def __init__(
        self,
        evaluator: Evaluator,
        simulations: int = 800,
        time: float | None = None,
        c_puct: float = 1.5,
        dirichlet: float = 0.3,
        dirichlet_weight: float = 0.25,
        temperature: float = 0.0,
        batch: int = 64,
        seed: int = 0,
        reuse: bool = True,
    ) -> None:
        self.evaluator = _evaluator(evaluator)
        self._settings = _Settings.check(
            simulations, c_puct, dirichlet, dirichlet_weight, batch, seed
        )
        self.time = check.time_budget(time)
        self.temperature = check.number(
            temperature, "temperature", 0.0, MAX_TEMPERATURE, InvalidPlayerError
        )
        self.reuse = check.flag(reuse, "reuse")
        self._tree: tuple[GameConfig, _core.NativePuct] | None = None
        self._lock = threading.Lock()
        self._owner: int | None = None  # the thread searching, to refuse a search within one

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        """The player's lock, held while it searches; a search started from within its own
        search (its evaluator calling ``choose``) is an error, not a deadlock."""
        me = threading.get_ident()
        if self._owner == me:
            raise InvalidEvaluatorError(
                "the evaluator called this PUCT player's own search while it was searching; "
                "a search cannot be re-entered (use another PUCT object inside an evaluator)"
            )
        with self._lock:
            self._owner = me
            try:
                yield
            finally:
                self._owner = None

    @property
    def simulations(self) -> int:
        return self._settings.simulations

    @property
    def c_puct(self) -> float:
        return self._settings.c_puct

    @property
    def dirichlet(self) -> float:
        return self._settings.dirichlet

    @property
    def dirichlet_weight(self) -> float:
        return self._settings.dirichlet_weight

    @property
    def batch(self) -> int:
        return self._settings.batch

    @property
    def seed(self) -> int:
        return self._settings.seed

    @property
    def name(self) -> str:
        """``puct(800)`` or ``puct(0.5s)``."""
        return f"puct({self.time}s)" if self.time else f"puct({self.simulations})"

    def native_spec(self) -> Any:
        raise InvalidPlayerError(
            f"invalid player: {self.name} searches with your evaluator in Python and is not one "
            "of the engine's batch players (random, greedy, mcts, alphabeta); " + PLAY_IT
        )

    def __repr__(self) -> str:
        return (
            f"PUCT({self.evaluator!r}, simulations={self.simulations}, time={self.time}, "
            f"c_puct={self.c_puct}, dirichlet={self.dirichlet}, "
            f"dirichlet_weight={self.dirichlet_weight}, temperature={self.temperature}, "
            f"batch={self.batch}, seed={self.seed}, reuse={self.reuse})"
        )

    def _searched(self, game: Any, time: float | None = None, stop: Any = None) -> _core.NativePuct:
        """The tree after a search of ``game``'s position (the caller holds the lock), for
        ``time`` seconds instead of the searcher's own where given, ended early once
        ``stop.is_set()``."""
        check.stop_flag(stop)
        native = native_game(game)
        if native.winner is not None:
            raise GameOverError(
                f"illegal move: the game is over (player {'abcdefgh'[native.winner]} has "
                "won); no move is allowed"
            )
        config = _config_of(native)
        if self._tree is None or self._tree[0] != config or not self.reuse:
            self._tree = (config, self._settings.trees(config, 1))
        tree = self._tree[1]
        tree.abandon()
        tree.set_root(0, native, 0)
        seconds = self.time if time is None else time
        deadline = None if seconds is None else _time.perf_counter() + seconds
        _search(tree, self.evaluator, self.batch, deadline, stop)
        return tree

    def choose(self, game: Any) -> int:
        """The move to play in ``game`` (a ``colorwars.Game`` or reference game); raises
        ``GameOverError`` once the game is won."""
        with self._held():
            tree = self._searched(game)
            cell = tree.pick(0, self.temperature)
        assert cell is not None  # a searched root has moves
        return cell

    def analyse(self, game: Any) -> list[PuctMove]:
        """Every legal move of ``game`` with the search's statistics, by cell."""
        with self._held():
            rows, _ = self._searched(game).stats(0)
        total = max(sum(r[1] for r in rows), 1)
        return [
            PuctMove(cell, visits, visits / total, value, prior, proven)
            for cell, visits, value, prior, proven in rows
        ]

    def search_batch(self, games: Sequence[Any]) -> npt.NDArray[np.float32]:
        """One search of each position of ``games`` (all of one board, player count and
        rules; none over), all at once: ``(len(games), cells)`` float32 move distributions
        (visit shares, summing to 1 over each position's legal moves; all on the winning
        move where a win is proven)."""
        if isinstance(games, str) or not isinstance(games, Sequence) or not games:
            check.fail(ConfigError, "games", games, "expected a non-empty list of games")
        natives = [native_game(g) for g in games]
        config = _config_of(natives[0])
        for i, native in enumerate(natives):
            if _config_of(native) != config:
                check.fail(
                    ConfigError,
                    f"games[{i}]",
                    games[i],
                    "every game must have the first game's board, players and rules",
                )
            if native.winner is not None:
                raise GameOverError(f"games[{i}] is over: there is no move to search")
        tree = self._settings.trees(config, len(natives))
        for i, native in enumerate(natives):
            tree.set_root(i, native, i)
        k = math.ceil(self.batch / len(natives))
        deadline = None if self.time is None else _time.perf_counter() + self.time
        _search(tree, self.evaluator, k, deadline)
        return np.stack([tree.policy(i) for i in range(len(natives))])


@dataclass(frozen=True)
class SelfPlayRecords:
    """Training records, one row per position searched (N rows): the position's ``planes``
    ``(N, players, H, W)`` uint8 and legal ``mask`` ``(N, cells)`` uint8 (the evaluator's
    layout), the search's move distribution ``visits`` ``(N, cells)`` float32 (summing to 1
    over the legal moves), the ``outcome`` ``(N,)`` float32 for the player to move there (+1
    won, -1 lost; with more players -1 / (players - 1) lost; 0 for a game cut off at
    ``max_plies``), its ``ply`` and ``game`` ``(N,)`` int32, and the ``move`` ``(N,)`` int32
    played. ``winners`` ``(games,)`` int8: each game's winner (-1: cut off)."""

    planes: npt.NDArray[np.uint8]
    mask: npt.NDArray[np.uint8]
    visits: npt.NDArray[np.float32]
    outcome: npt.NDArray[np.float32]
    ply: npt.NDArray[np.int32]
    game: npt.NDArray[np.int32]
    move: npt.NDArray[np.int32]
    winners: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return len(self.ply)


class _Slot:
    """A game being played in one tree of ``self_play``."""

    def __init__(self, index: int, game: _core.NativeGame) -> None:
        self.index = index
        self.game = game
        self.rows: list[tuple[Any, ...]] = []


def self_play(
    evaluator: Evaluator,
    games: int = 64,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    simulations: int = 200,
    temperature_plies: int = 10,
    seed: int = 0,
    players: int = 2,
    c_puct: float = 1.5,
    dirichlet: float = 0.3,
    dirichlet_weight: float = 0.25,
    batch: int = 64,
    max_plies: int | None = None,
) -> SelfPlayRecords:
    """Plays ``games`` games of PUCT against itself with ``evaluator`` and returns their
    positions as training records (``SelfPlayRecords``). ``batch`` games are searched in
    lockstep (each with its own tree, kept between its moves), so that every evaluator call
    gets about ``batch`` positions while that many games are running. The first
    ``temperature_plies`` moves of a game are drawn in proportion to the visits, the rest are
    the most visited; Dirichlet noise at every root. Deterministic for its seed (with a
    deterministic evaluator); Ctrl-C stops it."""
    evaluator = _evaluator(evaluator)
    config = check.config(width, height, players, rules)
    total = check.games(games)
    settings = _Settings.check(simulations, c_puct, dirichlet, dirichlet_weight, batch, seed)
    opening_plies = check.whole(
        temperature_plies, "temperature_plies", 0, check.MAX_PLIES, InvalidPlayerError
    )
    cap = check.max_plies(max_plies)
    p, cells = config.players, config.cells
    slots = max(1, min(total, settings.batch))
    tree = settings.trees(config, slots)
    live: list[_Slot | None] = [None] * slots
    rows: list[tuple[Any, ...]] = []
    winners = np.full(total, -1, dtype=np.int8)
    started = 0

    def start(s: int) -> None:
        nonlocal started
        if started >= total:
            live[s] = None
            return
        game = _core.NativeGame(config)
        tree.set_root(s, game, started)
        live[s] = _Slot(started, game)
        started += 1

    def finish(slot: _Slot, winner: int | None) -> None:
        for row in slot.rows:
            mover = row[-1]
            outcome = 0.0 if winner is None else 1.0 if mover == winner else -1.0 / (p - 1)
            rows.append((*row[:-1], outcome))
        winners[slot.index] = -1 if winner is None else winner

    def advance_finished() -> None:
        for s in tree.finished():
            slot = live[s]
            assert slot is not None
            planes, mask, ply = tree.observe(s)
            cell = tree.pick(s, 1.0 if ply < opening_plies else 0.0)
            assert cell is not None
            slot.rows.append(
                (planes, mask, tree.policy(s), ply, slot.index, cell, slot.game.to_move)
            )
            slot.game.play(cell)
            winner = tree.advance(s, cell)
            if winner is not None:
                finish(slot, winner)
                start(s)
            elif cap is not None and slot.game.ply >= cap:
                finish(slot, None)
                tree.stop(s)
                start(s)

    for s in range(slots):
        start(s)
    try:
        while True:
            parts = []
            while True:
                advance_finished()
                running = sum(slot is not None for slot in live)
                if running == 0:
                    break
                parts.append(tree.select(math.ceil(settings.batch / running)))
                if tree.pending >= settings.batch or not tree.finished():
                    break
            if tree.pending == 0:
                if all(slot is None for slot in live):
                    break
                raise RuntimeError("self_play: no tree sent a position out (a bug)")
            planes = np.concatenate([part[0] for part in parts])
            mask = np.concatenate([part[1] for part in parts])
            _evaluate(tree, evaluator, planes, mask)
    except BaseException:
        tree.abandon()
        raise
    n = len(rows)
    if n == 0:
        return SelfPlayRecords(
            np.zeros((0, p, config.height, config.width), np.uint8),
            np.zeros((0, cells), np.uint8),
            np.zeros((0, cells), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int32),
            np.zeros(0, np.int32),
            np.zeros(0, np.int32),
            winners,
        )
    rows.sort(key=lambda r: (r[4], r[3]))  # by game, then ply
    return SelfPlayRecords(
        planes=np.stack([r[0] for r in rows]),
        mask=np.stack([r[1] for r in rows]),
        visits=np.stack([r[2] for r in rows]).astype(np.float32),
        outcome=np.array([r[6] for r in rows], dtype=np.float32),
        ply=np.array([r[3] for r in rows], dtype=np.int32),
        game=np.array([r[4] for r in rows], dtype=np.int32),
        move=np.array([r[5] for r in rows], dtype=np.int32),
        winners=winners,
    )
