"""AI: the players (``Random``, ``Greedy``, ``MCTS``, ``AlphaBeta``; see ``colorwars.players``),
``PUCT`` searching with a network the user brings and ``self_play`` (``colorwars.puct``),
``Zero`` (PUCT with the shipped network; ``colorwars.zero``), native matches, tournaments,
opening statistics and the strength ``ladder`` (``colorwars.ladder``).

>>> import colorwars
>>> g = colorwars.Game(width=5, height=5)
>>> move = colorwars.ai.MCTS(simulations=200, seed=0).choose(g)
>>> move in g.legal_moves()
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars import _validate as check
from colorwars._deprecation import renamed_argument
from colorwars.engine import Engine
from colorwars.errors import InvalidPlayerError
from colorwars.ladder import LadderResult, _is_native, ladder, play_game
from colorwars.perfect import Perfect, PerfectDecision
from colorwars.players import (
    MCTS,
    AlphaBeta,
    Decision,
    Greedy,
    MoveValue,
    NativeSpec,
    Player,
    Random,
    _Base,
    parse_player,
    seat_players,
)
from colorwars.puct import PUCT, PuctMove, SelfPlayRecords, self_play
from colorwars.rules import GameConfig, Rules, RulesLike, resolve
from colorwars.simulation import native_progress
from colorwars.statistics import elo_ratings, wilson_interval
from colorwars.zero.player import Zero

__all__ = [
    "MCTS",
    "PUCT",
    "AlphaBeta",
    "Decision",
    "Engine",
    "Greedy",
    "LadderResult",
    "MoveValue",
    "Perfect",
    "PerfectDecision",
    "Player",
    "PuctMove",
    "Random",
    "SelfPlayRecords",
    "TournamentResult",
    "Zero",
    "elo_ratings",
    "ladder",
    "match",
    "opening_win_rates",
    "parse_player",
    "self_play",
    "tournament",
]

# Bytes a game's results take (native summary, arrays, conversions), for the memory check.
GAME_BYTES = 64


def _backend(backend: object, address: object) -> tuple[str, str | None]:
    """The backend (``"local"`` or ``"ray"``) and the Ray cluster's address, if any."""
    return check.backend(backend, address)


def _players_list(players: object, what: str) -> list[Player]:
    """A list of players (objects or names) for seats or a tournament."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        check.fail(InvalidPlayerError, what, players, "expected a list of players or names")
    return seat_players(players, len(players))


def match(
    seats: Sequence[Player | str],
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
    returns numpy arrays ``winners``, ``plies``, ``waves``, ``longest_cascade`` and
    ``first_moves``, the ``elapsed`` seconds and ``forfeits``.

    A match with a player outside the engine (``Zero``, an ``Engine``) is played game by game
    in Python instead, with the same results; there a seat whose ``Engine`` misbehaves loses
    the game (the other wins with two players, nobody with more), and ``forfeits`` lists
    ``(game, seat, reason)``. Its games differ only as its players' choices do: give
    ``first_move``, or use ``ladder`` for shared random openings."""
    r = resolve(rules)
    width, height = check.size(width, height)
    players = _players_list(seats, "seats")
    check.player_count(len(players), width * height)
    games = check.games(games)
    seed = check.seed(seed)
    threads = check.threads(threads)
    max_plies = check.max_plies(max_plies)
    if first_move is not None:
        from colorwars.game import Game

        opening = Game(width, height, len(players), r)
        first_move = opening.cell(first_move)
        opening.play(first_move)  # IllegalMoveError if no first move may go there
    check.memory(games * GAME_BYTES, f"a match of {games:,} games")
    config = check.config(width, height, len(players), r)
    if not all(_is_native(p) for p in players):
        # The engine checks every seat it can (a player with a probe: its own search) before
        # the games, as it does a native match's.
        specs = [p._spec() if isinstance(p, _Base) else NativeSpec("random") for p in players]
        _core.play_match(config, specs, 0, seed)
        return _python_match(players, games, width, height, r, first_move, max_plies, seed)
    result: dict[str, Any] = _core.play_match(
        config, [p.native_spec() for p in players], games, seed, first_move=first_move,
        max_plies=max_plies, threads=threads,
    )  # fmt: skip
    result["forfeits"] = []
    return result


def _python_match(
    players: list[Player], games: int, width: int, height: int, rules: Rules,
    first_move: int | None, max_plies: int | None, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """``match`` played move by move in Python (a player outside the engine). A seeded
    player of the engine's (one with a probe) gets a seed of its own in each game, from
    ``seed`` and the game, so that the games differ as a native match's do."""
    import time

    from colorwars.game import Game

    start = time.perf_counter()
    columns: dict[str, list[int]] = {
        k: [] for k in ("winners", "plies", "waves", "longest_cascade", "first_moves")
    }
    forfeits: list[tuple[int, int, str]] = []
    for i in range(games):
        game = Game(width, height, len(players), rules)
        if first_move is not None:
            game.play(first_move)
        salt = (seed + (i + 1) * 0x9E3779B97F4A7C15) % 2**64
        seats = [replace(cast(Any, p), seed=p.seed ^ salt) if isinstance(p, _Base) else p
                 for p in players]  # fmt: skip
        played = play_game(seats, game, max_plies)
        row = (played.winner, played.plies, played.waves, played.longest_cascade,
               played.first_move)  # fmt: skip
        for key, value in zip(columns, row, strict=True):
            columns[key].append(value)
        if played.forfeit is not None:
            forfeits.append((i, *played.forfeit))
    return {
        "winners": np.array(columns["winners"], dtype=np.int8),
        **{k: np.array(v, dtype=np.int32) for k, v in columns.items() if k != "winners"},
        "elapsed": time.perf_counter() - start,
        "complete": True,
        "forfeits": forfeits,
    }


@dataclass(frozen=True)
class MatchJob:
    """One match of a native batch (read by attribute in the engine)."""

    players: list[Player]
    games: int
    seed: int
    first_move: int | None = None

    @property
    def seats(self) -> list[NativeSpec]:
        return [p.native_spec() for p in self.players]


def _batch(
    jobs: list[MatchJob],
    config: GameConfig,
    threads: int,
    progress: Callable[[int, int], object] | None,
    backend: str = "local",
    address: str | None = None,
) -> list[dict[str, Any]]:
    """Plays the matches side by side on the native pool, or one Ray task per match: each
    exactly as ``match`` would, whichever the backend."""
    total = sum(job.games for job in jobs)
    check.memory(total * GAME_BYTES, f"{len(jobs)} matches, {total:,} games in all,")
    if backend == "ray":
        return _batch_on_ray(jobs, config, progress, address, total)
    callback = native_progress(progress, total)
    return _core.play_matches(config, jobs, threads=threads, progress=callback)


def _play_job(config: GameConfig, seats: list[NativeSpec], games: int, seed: int,
              first_move: int | None) -> dict[str, Any]:  # fmt: skip
    """One match, in a Ray task, on all the cores of its node."""
    return _core.play_match(config, seats, games, seed, first_move=first_move, threads=0)


def _batch_on_ray(
    jobs: list[MatchJob],
    config: GameConfig,
    progress: Callable[[int, int], object] | None,
    address: str | None,
    total: int,
) -> list[dict[str, Any]]:
    from colorwars.distributed import _cluster
    from colorwars.errors import ShardError

    with _cluster(address) as ray:
        task = ray.remote(_play_job).options(max_retries=3, retry_exceptions=True)
        pending = {
            task.remote(config, job.seats, job.games, job.seed, job.first_move): k
            for k, job in enumerate(jobs)
        }
        results: dict[int, dict[str, Any]] = {}
        done = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            k = pending.pop(ready[0])
            try:
                results[k] = ray.get(ready[0])
            except Exception as e:
                for other in pending:
                    ray.cancel(other)
                raise ShardError(f"match {k} failed on Ray after 3 retries: {e}") from None
            done += jobs[k].games
            if progress is not None:
                progress(done, total)
    return [results[k] for k in range(len(jobs))]


@dataclass
class TournamentResult:
    names: list[str]
    wins: npt.NDArray[np.float64]
    """``wins[i, j]``: games player i won against player j (both seats)."""
    games: npt.NDArray[np.float64]
    rules: Rules
    size: tuple[int, int]
    elo: list[float] = field(default_factory=list)
    forfeits: list[dict[str, Any]] = field(default_factory=list)
    """Games lost by a player that failed (an ``Engine`` that did not start or broke the
    protocol): ``{"players": (seat a's name, seat b's), "seat": s, "reason": text}``."""

    def score(self, i: int) -> tuple[float, tuple[float, float]]:
        """Player i's win rate over all its games, with a 95% interval."""
        won, played = self.wins[i].sum(), self.games[i].sum()
        return (won / played if played else 0.0, wilson_interval(int(won), int(played)))


def tournament(
    players: Sequence[Player | str],
    games_per_pair: int = 100,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    seed: int = 0,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> TournamentResult:
    """A round robin: every pair plays ``games_per_pair`` games, half with each seat first,
    all matches in one native batch on all cores. ``progress(games_done, games)`` is called
    about ten times a second; Ctrl-C stops it. ``backend="ray"`` plays each match as a Ray
    task (on the cluster at ``address``, or a local one): the same games, game for game."""
    rules = resolve(rules)
    players = _players_list(players, "players")
    n = len(players)
    if n < 2:
        raise InvalidPlayerError(
            f"invalid players: a tournament needs at least two players, {n} given"
        )
    width, height = check.size(width, height)
    games_per_pair = check.games(games_per_pair)
    seed = check.seed(seed)
    threads = check.threads(threads)
    backend, address = _backend(backend, address)
    # Every match (each pair, both seats) with its own seed, all in one native batch.
    pairs: list[tuple[int, int]] = []
    jobs: list[MatchJob] = []
    for i in range(n):
        for j in range(i + 1, n):
            half = games_per_pair // 2
            for k, (a, b) in enumerate(((i, j), (j, i))):
                count = half if k == 0 else games_per_pair - half
                pair_seed = (seed + 7919 * (i * n + j) + k) % 2**64
                pairs.append((a, b))
                jobs.append(MatchJob([players[a], players[b]], count, pair_seed))
    config = check.config(width, height, 2, rules)
    # Pairs with a player outside the engine (Zero, an Engine) play in Python, the rest in
    # one native batch.
    native = [k for k, job in enumerate(jobs) if all(_is_native(p) for p in job.players)]
    results: list[dict[str, Any]] = [{} for _ in jobs]
    batch = (
        _batch([jobs[k] for k in native], config, threads, progress, backend, address)
        if native
        else []
    )
    for k, r in zip(native, batch, strict=True):
        results[k] = r
    for k, job in enumerate(jobs):
        if not results[k]:
            results[k] = _python_match(job.players, job.games, width, height, rules, None, None)
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    for (a, b), job, r in zip(pairs, jobs, results, strict=True):
        winners = r["winners"]
        wins[a, b] += float((winners == 0).sum())
        wins[b, a] += float((winners == 1).sum())
        games[a, b] += job.games
        games[b, a] += job.games
    names = [p.name for p in players]
    # Two entrants of one name are told apart by their place in the list, as in the ladder.
    names = [f"{name}#{i}" if names.count(name) > 1 else name for i, name in enumerate(names)]
    result = TournamentResult(names, wins, games, rules, (width, height))
    result.elo = elo_ratings(wins, games)
    for (a, b), r in zip(pairs, results, strict=True):
        for _, seat, reason in r.get("forfeits", ()):
            result.forfeits.append(
                {"players": (names[a], names[b]), "seat": seat, "reason": reason}
            )
    return result


def opening_win_rates(
    player_a: Player | str | None = None,
    player_b: Player | str | None = None,
    games_per_cell: int = 100,
    width: int = 5,
    height: int = 5,
    rules: RulesLike = "colorwars",
    seed: int = 0,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    backend: str = "local",
    address: str | None = None,
    *,
    first: Player | str | None = None,
    second: Player | str | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The first player's win rate for each opening cell (shape ``(height, width)``), the
    first move forced to that cell and the rest played by ``player_a`` (seat a, who moves
    first) and ``player_b`` (seat b); with the number of games per cell. Every cell's games
    run in one native batch on all cores; ``progress(games_done, games)`` is called about ten
    times a second; ``backend="ray"`` plays each cell's games as a Ray task (the same games).
    ``first=`` and ``second=`` are the deprecated old names of ``player_a`` and
    ``player_b`` (``first`` is the seat that starts, everywhere else)."""
    player_a = renamed_argument("opening_win_rates", "first", "player_a", first, player_a)
    player_b = renamed_argument("opening_win_rates", "second", "player_b", second, player_b)
    if player_a is None or player_b is None:
        raise TypeError("opening_win_rates() needs player_a and player_b (seat a's and b's)")
    rules = resolve(rules)
    width, height = check.size(width, height)
    seats = seat_players([player_a, player_b], 2)
    games_per_cell = check.games(games_per_cell)
    seed = check.seed(seed)
    threads = check.threads(threads)
    backend, address = _backend(backend, address)
    jobs = [
        MatchJob(seats, games_per_cell, (seed + cell) % 2**64, first_move=cell)
        for cell in range(width * height)
    ]
    config = check.config(width, height, 2, rules)
    results = _batch(jobs, config, threads, progress, backend, address)
    rates = np.zeros(width * height)
    counts = np.zeros(width * height, dtype=np.int64)
    for cell, r in enumerate(results):
        finished = r["winners"] >= 0
        counts[cell] = int(finished.sum())
        rates[cell] = float((r["winners"] == 0).sum()) / max(counts[cell], 1)
    return rates.reshape(height, width), counts.reshape(height, width)
