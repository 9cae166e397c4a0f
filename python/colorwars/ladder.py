"""The strength ladder: every pair of players at a fixed time per move, both seats, rated by
a Bradley-Terry fit (Elo) with 95% intervals.

Games between the engine's own players (random, greedy, MCTS, alpha-beta) run in one native
batch on all cores; a game with a Python player (``Zero``, ``PUCT``, your own object with
``choose(game)``) runs move by move in Python. Every pair plays the same openings: game ``2k``
and ``2k + 1`` start from the same random first move, once with each player moving first, so
that deterministic players do not replay one game and neither seat is favoured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _validate as check
from colorwars.errors import InvalidPlayerError
from colorwars.rules import Rules, RulesLike, resolve

__all__ = ["LadderResult", "bradley_terry", "ladder", "with_time"]

ELO = 400 / math.log(10)


def bradley_terry(
    wins: npt.NDArray[np.float64], games: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Elo ratings (mean 0) and their standard errors from ``wins[i, j]`` (games i won
    against j, draws counting half) out of ``games[i, j]``: the maximum-likelihood
    Bradley-Terry fit (Newton's method on the log-strengths, with half a win and half a loss
    of prior per pair played so that an unbeaten player stays finite); the errors from the
    inverse of the observed information under the mean-zero constraint."""
    n = wins.shape[0]
    played = games > 0
    idle = ~played.any(axis=1)  # players with no games: no rating
    w = wins + 0.5 * played
    g = games + 1.0 * played
    theta = np.zeros(n)
    for _ in range(100):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
        grad = (w - g * p).sum(axis=1)
        info = g * p * (1 - p)  # zero on the diagonal (no games against oneself)
        hess = np.diag(info.sum(axis=1)) - info
        step = np.linalg.pinv(hess) @ grad
        theta += step
        theta -= theta.mean()
        if np.abs(step).max() < 1e-10:
            break
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    info = g * p * (1 - p)
    cov = np.linalg.pinv(np.diag(info.sum(axis=1)) - info)
    elo, se = theta * ELO, np.sqrt(np.clip(np.diag(cov), 0, None)) * ELO
    elo[idle], se[idle] = np.nan, np.nan
    return elo, se


@dataclass
class LadderResult:
    """``names``, ``wins[i, j]`` (games i won against j; a game cut off counts half each),
    ``games[i, j]``, Elo ratings (mean 0) with 95% intervals, and the settings."""

    names: list[str]
    wins: npt.NDArray[np.float64]
    games: npt.NDArray[np.float64]
    rules: Rules
    size: tuple[int, int]
    time: float | None
    elo: list[float] = field(default_factory=list)
    interval: list[tuple[float, float]] = field(default_factory=list)
    seconds: float = 0.0
    forfeits: list[dict[str, Any]] = field(default_factory=list)
    """Games lost by a player that misbehaved (an ``Engine``): its pair of names (seat a
    first), the seat and the reason."""

    def order(self) -> list[int]:
        """The players, strongest first."""
        return sorted(range(len(self.names)), key=lambda i: -self.elo[i])

    def to_json(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "wins": self.wins.tolist(),
            "games": self.games.tolist(),
            "rules": self.rules.name,
            "size": list(self.size),
            "time": self.time,
            "elo": self.elo,
            "interval": [list(x) for x in self.interval],
            "seconds": self.seconds,
            "forfeits": self.forfeits,
        }


def with_time(player: Any, seconds: float | None) -> Any:
    """``player`` with ``seconds`` per move where it takes a time budget and its name set
    none (``mcts`` becomes ``mcts(0.1s)``; ``mcts:simulations=500``, ``random`` and
    ``greedy`` stay as they are)."""
    if seconds is None:
        return player
    from colorwars.players import MCTS, AlphaBeta
    from colorwars.zero.player import Zero, ZeroAlphaBeta

    if (
        isinstance(player, MCTS)
        and player.time is None
        and player.simulations == MCTS().simulations
    ):
        return replace(player, time=seconds, simulations=None)
    if isinstance(player, AlphaBeta) and player.time is None and player.depth == AlphaBeta().depth:
        return replace(player, time=seconds, depth=None)
    if (
        isinstance(player, Zero)
        and player.time is None
        and player.simulations == Zero().simulations
    ):
        return Zero(time=seconds, seed=player.seed, network=player.network,
                    probe=player.probe_setting, **player._options)  # type: ignore[arg-type]  # fmt: skip
    if isinstance(player, ZeroAlphaBeta) and player.time is None and player.depth == 4:
        return ZeroAlphaBeta(time=seconds, seed=player.seed, network=player._zero.network)
    from colorwars.engine import Engine
    from colorwars.perfect import Perfect

    if isinstance(player, Perfect) and player.time == 1.0:
        return Perfect(
            time=seconds, fallback=player.fallback or "strongest", seed=player.seed,
            memory=player.memory, book=player.book,
        )  # fmt: skip
    if isinstance(player, Engine) and player.time == 1.0:
        return Engine(
            player.command, time=seconds, seed=player.seed, grace=player.grace,
            startup=player.startup, name=player._label,
        )  # fmt: skip
    return player


def _is_native(player: Any) -> bool:
    spec = getattr(player, "native_spec", None)
    if spec is None:
        return False
    try:
        spec()
    except InvalidPlayerError:
        return False
    return True


#: The memory a ladder's game takes before it is played (its job), about.
LADDER_GAME_BYTES = 512


def _openings(width: int, height: int, rules: Rules, seed: int, count: int) -> list[int]:
    """``count`` random first moves (one per pair of games)."""
    import colorwars

    legal = colorwars.Game(width, height, rules=rules).legal_moves()
    rng = np.random.default_rng(seed)
    return [int(legal[k]) for k in rng.integers(0, len(legal), count)]


@dataclass
class PlayedGame:
    """One game played move by move in Python (``play_game``): the winner's seat (-1 when cut
    off or when a seat of three or more forfeits), the plies, waves and longest cascade, the
    first move, and the seat that forfeited with the reason (an ``EngineError``), if any."""

    winner: int
    plies: int
    waves: int
    longest_cascade: int
    first_move: int
    forfeit: tuple[int, str] | None = None


def play_game(seats: Sequence[Any], game: Any, cap: int | None) -> PlayedGame:
    """Plays ``game`` (a ``colorwars.Game``, changed in place) to its end, seat ``s`` moved by
    ``seats[s].choose``, for at most ``cap`` plies in all. A seat whose player raises
    ``EngineError`` (another program that misbehaved) loses: with two players the other
    wins."""
    from colorwars.errors import EngineError

    waves = longest = 0
    moved = game.moves()
    first = moved[0] if moved else -1
    while game.winner is None:
        if cap is not None and game.ply >= cap:
            break
        seat = game.to_move
        try:
            cell = seats[seat].choose(game)
        except EngineError as e:
            winner = 1 - seat if game.players == 2 else -1
            return PlayedGame(winner, game.ply, waves, longest, first, (seat, str(e)))
        game.play(cell)
        if first < 0:
            first = cell
        w = len(game.waves())
        waves += w
        longest = max(longest, w)
    winner = -1 if game.winner is None else int(game.winner)
    return PlayedGame(winner, game.ply, waves, longest, first)


def _python_game(
    a: Any, b: Any, width: int, height: int, rules: Rules, first: int, cap: int
) -> PlayedGame:
    """One game, ``a`` moving first after the forced opening ``first`` (played for ``a``)."""
    import colorwars

    game = colorwars.Game(width, height, rules=rules)
    game.play(first)
    return play_game((a, b), game, cap)


def ladder(
    players: Sequence[Any],
    games_per_pair: int = 20,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    time: float | None = None,
    seed: int = 0,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> LadderResult:
    """Every pair of ``players`` (names as ``parse_player`` reads them, or player objects)
    plays ``games_per_pair`` games on a ``width`` x ``height`` board, half with each player
    moving first, from shared random openings; ``time`` seconds per move for every player
    whose name sets no budget of its own (``with_time``). Returns a ``LadderResult`` with
    Bradley-Terry Elo ratings and 95% intervals. ``progress(games_done, games)``; Ctrl-C
    stops it. ``backend="ray"`` plays the native matches as Ray tasks."""
    import time as _time

    from colorwars.ai import MatchJob, _backend, _batch
    from colorwars.players import as_player

    started = _time.perf_counter()
    r = resolve(rules)
    width, height = check.size(width, height)
    if isinstance(players, str) or not isinstance(players, Sequence) or len(players) < 2:
        raise InvalidPlayerError(
            "invalid players: a ladder needs a list of at least two players or names"
        )
    seconds = check.time_budget(time)
    entrants = [with_time(p if not isinstance(p, str) else as_player(p), seconds) for p in players]
    for p in entrants:
        if not callable(getattr(p, "choose", None)):
            check.fail(InvalidPlayerError, "player", p, "expected a player with choose(game)")
    games_per_pair = check.games(games_per_pair)
    if games_per_pair < 2 or games_per_pair % 2:
        check.fail(
            InvalidPlayerError, "games_per_pair", games_per_pair,
            "expected an even number of games, at least 2 (half with each seat first)",
        )  # fmt: skip
    seed = check.seed(seed)
    threads = check.threads(threads)
    backend, address = _backend(backend, address)
    n = len(entrants)
    names = [p.name for p in entrants]
    if len(set(names)) < n:  # two entrants of one name: number them
        names = [f"{name}#{i}" if names.count(name) > 1 else name for i, name in enumerate(names)]
    config = check.config(width, height, 2, r)
    cap = 4 * width * height + 8
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    total = games_per_pair * n * (n - 1) // 2
    # Each game is a job (its players, seed and opening) before any is played.
    pairs = n * (n - 1) // 2
    what = f"{pairs} pair{'s' if pairs > 1 else ''}, {total:,} games in all,"
    check.memory(total * LADDER_GAME_BYTES, what)
    done = 0
    native_jobs: list[tuple[int, int, MatchJob]] = []
    python_games: list[tuple[int, int, int]] = []
    for i in range(n):
        for j in range(i + 1, n):
            openings = _openings(width, height, r, seed + 7919 * (i * n + j), games_per_pair // 2)
            both = _is_native(entrants[i]) and _is_native(entrants[j])
            for k, first in enumerate(openings):
                for a, b in ((i, j), (j, i)):
                    if both:
                        job_seed = (seed + 104729 * (i * n + j) + 2 * k + (a > b)) % 2**64
                        native_jobs.append(
                            (a, b, MatchJob([entrants[a], entrants[b]], 1, job_seed, first))
                        )
                    else:
                        python_games.append((a, b, first))

    def record(a: int, b: int, winner: int) -> None:
        if winner == 0:
            wins[a, b] += 1
        elif winner == 1:
            wins[b, a] += 1
        else:
            wins[a, b] += 0.5
            wins[b, a] += 0.5
        games[a, b] += 1
        games[b, a] += 1

    forfeits: list[dict[str, Any]] = []
    if native_jobs:

        def native_progress(finished: int, of: int) -> None:
            if progress is not None:
                progress(finished, total)

        results = _batch(
            [job for _, _, job in native_jobs], config, threads,
            native_progress if progress is not None else None, backend, address,
        )  # fmt: skip
        for (a, b, _), res in zip(native_jobs, results, strict=True):
            record(a, b, int(res["winners"][0]))
        done = len(native_jobs)
    for a, b, first in python_games:
        played = _python_game(entrants[a], entrants[b], width, height, r, first, cap)
        record(a, b, played.winner)
        if played.forfeit is not None:
            forfeits.append(
                {"players": (names[a], names[b]), "seat": played.forfeit[0],
                 "reason": played.forfeit[1]}
            )  # fmt: skip
        done += 1
        if progress is not None:
            progress(done, total)
    elo, se = bradley_terry(wins, games)
    return LadderResult(
        names, wins, games, r, (width, height), seconds,
        elo=[float(x) for x in elo],
        interval=[(float(e - 1.96 * s), float(e + 1.96 * s)) for e, s in zip(elo, se, strict=True)],
        seconds=_time.perf_counter() - started, forfeits=forfeits,
    )  # fmt: skip
