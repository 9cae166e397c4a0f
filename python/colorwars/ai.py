"""Players (native): ``Random``, ``Greedy``, ``MCTS`` and ``AlphaBeta``, and native matches,
tournaments and opening statistics between them.

>>> import colorwars
>>> g = colorwars.Game(width=5, height=5)
>>> move = colorwars.ai.MCTS(simulations=200, seed=0).choose(g)
>>> move in g.legal_moves()
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars.errors import GameOverError, InvalidPolicyError
from colorwars.rules import Rules, RulesLike, resolve
from colorwars.simulation import wilson_interval

__all__ = [
    "MCTS",
    "AlphaBeta",
    "Greedy",
    "Player",
    "Random",
    "TournamentResult",
    "elo_ratings",
    "match",
    "opening_win_rates",
    "parse_player",
    "tournament",
]

SeatArgs = tuple[str, int, int, "float | None", float, int, float]


class Player(Protocol):
    """What every player offers: a name, a native spec and ``choose(game)``."""

    @property
    def name(self) -> str: ...

    def seat_args(self) -> SeatArgs: ...

    def choose(self, game: Any) -> int: ...


def _native_of(game: Any) -> _core.NativeGame:
    """The native game behind ``colorwars.Game``, or a native copy of a reference game."""
    native = getattr(game, "_native", None)
    if isinstance(native, _core.NativeGame):
        return native
    return _core.NativeGame.from_text(game.to_text())


class _Base:
    seed: int = 0

    def __post_init__(self) -> None:
        _check_int(self.seed, "seed", 0, 2**64 - 1)

    def seat_args(self) -> SeatArgs:
        raise NotImplementedError

    def choose(self, game: Any) -> int:
        """The move this player makes in ``game`` (deterministic for its seed and budget, except
        under a time budget). Raises ``GameOverError`` once the game is won."""
        if game.winner is not None:
            raise GameOverError(f"illegal move: the game is over (player {game.winner} has won)")
        cell, _ = _core.ai_choose(_native_of(game), self.seat_args(), self.seed)
        return cell


def _check_int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidPolicyError(f"invalid {what} {value!r}: expected {low} to {high}")
    return value


def _check_time(value: float | None) -> float | None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6
    ):
        raise InvalidPolicyError(f"invalid time {value!r}: expected seconds > 0 or None")
    return None if value is None else float(value)


@dataclass(frozen=True)
class Random(_Base):
    """Uniform over the legal moves."""

    seed: int = 0

    @property
    def name(self) -> str:
        return "random"

    def seat_args(self) -> SeatArgs:
        return ("random", 0, 0, None, 0.0, 1, 0.0)


@dataclass(frozen=True)
class Greedy(_Base):
    """The move after whose cascade the mover holds the most orbs; ties broken at random."""

    seed: int = 0

    @property
    def name(self) -> str:
        return "greedy"

    def seat_args(self) -> SeatArgs:
        return ("greedy", 0, 0, None, 0.0, 1, 0.0)


@dataclass(frozen=True)
class MCTS(_Base):
    """Monte-Carlo tree search (UCT with native playouts, greedy by default); any number of
    players, each seat maximising its own result. Budget: ``simulations`` per move, or
    ``time`` seconds when set. ``threads`` > 1 runs that many trees (root parallelism) with
    the GIL released."""

    simulations: int = 1000
    time: float | None = None
    c: float = 0.7
    threads: int = 1
    seed: int = 0
    greedy: float = 1.0
    """The share of playout moves chosen greedily instead of at random (0 to 1): greedy
    ("heavy") playouts make a far stronger player than random ones at the same budget."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_int(self.simulations, "simulations", 0 if self.time else 1, 10**9)
        _check_time(self.time)
        _check_int(self.threads, "threads", 1, 256)
        if isinstance(self.greedy, bool) or not isinstance(self.greedy, int | float):
            raise InvalidPolicyError(f"invalid greedy share {self.greedy!r}: expected 0 to 1")
        if not 0 <= self.greedy <= 1:
            raise InvalidPolicyError(f"invalid greedy share {self.greedy!r}: expected 0 to 1")
        if isinstance(self.c, bool) or not isinstance(self.c, int | float) or not self.c >= 0:
            raise InvalidPolicyError(f"invalid c {self.c!r}: expected a number >= 0")

    @property
    def name(self) -> str:
        return f"mcts({self.time}s)" if self.time else f"mcts({self.simulations})"

    def seat_args(self) -> SeatArgs:
        share = float(self.greedy)
        return ("mcts", self.simulations, 0, self.time, float(self.c), self.threads, share)


@dataclass(frozen=True)
class AlphaBeta(_Base):
    """Iterative-deepening negamax with a transposition table (Zobrist hashing), two players.
    Evaluation (mover's view): orbs + 2 x cells, mover minus opponent, plus 5 for each
    opposing loaded cell next to a loaded cell of the mover. Budget: ``depth`` plies, or
    ``time`` seconds (deepest completed iteration)."""

    depth: int = 4
    time: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_int(self.depth, "depth", 1, 64)
        _check_time(self.time)

    @property
    def name(self) -> str:
        return f"alphabeta({self.time}s)" if self.time else f"alphabeta({self.depth})"

    def seat_args(self) -> SeatArgs:
        return ("alphabeta", 0, self.depth if not self.time else 64, self.time, 0.0, 1, 0.0)


def parse_player(text: str) -> Player:
    """``random``, ``greedy``, ``mcts[:SIMULATIONS]``, ``alphabeta[:DEPTH]``."""
    kind, _, arg = text.strip().lower().partition(":")
    try:
        if kind == "random" and not arg:
            return Random()
        if kind == "greedy" and not arg:
            return Greedy()
        if kind == "mcts":
            return MCTS(simulations=int(arg) if arg else 1000)
        if kind in ("alphabeta", "ab"):
            return AlphaBeta(depth=int(arg) if arg else 4)
    except ValueError as e:
        if isinstance(e, InvalidPolicyError):
            raise
    raise InvalidPolicyError(
        f"invalid player {text!r}: allowed are random, greedy, mcts[:SIMULATIONS], "
        "alphabeta[:DEPTH]"
    )


def match(
    seats: list[Player],
    games: int,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    seed: int = 0,
    first_move: int | None = None,
    threads: int = 0,
    max_plies: int | None = None,
) -> dict[str, Any]:
    """Plays ``games`` games natively, seat ``s`` played by ``seats[s]`` (seat 0 moves first);
    returns numpy arrays ``winners``, ``plies``, ``first_moves`` and ``elapsed`` seconds."""
    r = resolve(rules)
    if first_move is not None:
        _check_int(first_move, "first_move", 0, width * height - 1)
    return _core.play_match(
        width, height, len(seats), r.opening, r.burst, 0, [p.seat_args() for p in seats],
        _check_int(games, "games", 0, 2**40), _check_int(seed, "seed", 0, 2**64 - 1),
        first_move=first_move, max_plies=max_plies, threads=threads,
    )  # fmt: skip


def elo_ratings(wins: npt.NDArray[np.float64], games: npt.NDArray[np.float64]) -> list[float]:
    """Elo ratings from a win matrix (``wins[i, j]``: games i won against j, out of
    ``games[i, j]``) by a Bradley-Terry fit (minorisation-maximisation), centred on 0.
    A player who never lost or never won is kept finite by half a win / loss of prior."""
    n = wins.shape[0]
    w = wins + 0.5 * (games > 0)  # a small prior keeps perfect records finite
    g = games + 1.0 * (games > 0)
    strength = np.ones(n)
    for _ in range(2000):
        total = w.sum(axis=1)
        denom = np.array(
            [
                sum(g[i, j] / (strength[i] + strength[j]) for j in range(n) if j != i)
                for i in range(n)
            ]
        )
        new = np.where(denom > 0, total / np.maximum(denom, 1e-300), strength)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, strength, rtol=1e-10, atol=0):
            strength = new
            break
        strength = new
    elo = 400 * np.log10(strength)
    return [float(x) for x in elo - elo.mean()]


@dataclass
class TournamentResult:
    names: list[str]
    wins: npt.NDArray[np.float64]
    """``wins[i, j]``: games player i won against player j (both seats)."""
    games: npt.NDArray[np.float64]
    rules: Rules
    size: tuple[int, int]
    elo: list[float] = field(default_factory=list)

    def score(self, i: int) -> tuple[float, tuple[float, float]]:
        """Player i's win rate over all its games, with a 95% interval."""
        won, played = self.wins[i].sum(), self.games[i].sum()
        return (won / played if played else 0.0, wilson_interval(int(won), int(played)))


def tournament(
    players: list[Player],
    games_per_pair: int = 100,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    seed: int = 0,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
) -> TournamentResult:
    """A round robin: every pair plays ``games_per_pair`` games, half with each seat first.
    ``progress(matches_done, matches)`` is called after each match (two per pair)."""
    n = len(players)
    if n < 2:
        raise InvalidPolicyError("a tournament needs at least two players")
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    done, total = 0, n * (n - 1)
    for i in range(n):
        for j in range(i + 1, n):
            half = games_per_pair // 2
            for k, (a, b) in enumerate(((i, j), (j, i))):
                count = half if k == 0 else games_per_pair - half
                r = match([players[a], players[b]], count, width, height, rules,
                          seed=seed + 7919 * (i * n + j) + k, threads=threads)  # fmt: skip
                winners = r["winners"]
                wins[a, b] += float((winners == 0).sum())
                wins[b, a] += float((winners == 1).sum())
                games[a, b] += count
                games[b, a] += count
                done += 1
                if progress is not None:
                    progress(done, total)
    result = TournamentResult(
        [p.name for p in players], wins, games, resolve(rules), (width, height)
    )
    result.elo = elo_ratings(wins, games)
    return result


def opening_win_rates(
    first: Player,
    second: Player,
    games_per_cell: int,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    seed: int = 0,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The first player's win rate for each opening cell (shape ``(height, width)``), the
    first move forced to that cell and the rest played by ``first`` and ``second``; with the
    number of games per cell. ``progress(cells_done, cells)`` is called after each cell."""
    rates = np.zeros(width * height)
    counts = np.zeros(width * height, dtype=np.int64)
    for cell in range(width * height):
        r = match([first, second], games_per_cell, width, height, rules,
                  seed=seed + cell, first_move=cell, threads=threads)  # fmt: skip
        finished = r["winners"] >= 0
        counts[cell] = int(finished.sum())
        rates[cell] = float((r["winners"] == 0).sum()) / max(counts[cell], 1)
        if progress is not None:
            progress(cell + 1, width * height)
    return rates.reshape(height, width), counts.reshape(height, width)
