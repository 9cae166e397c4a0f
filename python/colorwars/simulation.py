"""``colorwars.simulate``: many complete games played natively on all cores."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS
from colorwars._deprecation import renamed, renamed_argument
from colorwars._files import atomic_open
from colorwars.errors import ConfigError, InvalidIndexError
from colorwars.players import seat_players
from colorwars.rules import GameConfig, Rules, RulesLike
from colorwars.statistics import wilson_interval

__all__ = [
    "PLAYOUTS",
    "SimulationResult",
    "longest_game",
    "native_progress",
    "recorded_plies",
    "simulate",
    "wilson_interval",
]

# The players the lean simulation loop runs (the playouts); any other seat uses the native
# match loop.
PLAYOUTS = ("random", "greedy")
# Bytes a game's results take (native summary, arrays, conversions), for the memory check.
GAME_BYTES = 64
# Bytes the recorded moves take at the peak, per game and per ply: a move is 2 bytes, held up
# to three times (a block's growing buffer, up to twice its length, then the joined copy),
# and a game's offset 8 bytes, up to four times (its block's buffer, the joined and the
# numpy copy).
RECORD_GAME_BYTES = 32
RECORD_PLY_BYTES = 6
# Under the empty burst a game has no length bound (orbs vanish in cascades). Without
# max_plies the memory check plans for this many plies per cell: above the longest game seen
# in random and greedy play on boards up to 32x32 (6.2 x cells, random play on 32x32
# colorwars). It is an estimate, not a bound: a longer run that runs out of memory is a
# MemoryError from the native recorder (never an abort), only later.
UNBOUNDED_PLIES_PER_CELL = 8

Progress = Callable[[int, int], object]


@dataclass(repr=False)
class SimulationResult:
    """Per-game arrays of a simulation run (game ``i`` is index ``i`` of every array);
    ``seats`` names each seat's player, ``players`` is their count."""

    width: int
    height: int
    players: int
    rules: Rules
    seats: tuple[str, ...]
    seed: int
    first: int
    max_plies: int | None
    threads: int
    winners: npt.NDArray[np.int8]
    """The winning seat, or -1 for a game cut off by ``max_plies``."""
    plies: npt.NDArray[np.int32]
    waves: npt.NDArray[np.int32]
    """Waves over all the game's cascades."""
    longest_cascade: npt.NDArray[np.int32]
    """The most waves in one move's cascade."""
    first_moves: npt.NDArray[np.int32]
    """The cell of each game's first move."""
    elapsed: float
    """Seconds spent in the native game loop (with Ray: running the shards)."""
    wall: float
    """Seconds for the whole call, conversions (and Ray's start-up) included."""
    backend: str = "local"
    shards: int = 1
    _moves: npt.NDArray[np.uint16] | None = field(default=None, repr=False)
    _offsets: npt.NDArray[np.int64] | None = field(default=None, repr=False)

    @property
    def games(self) -> int:
        return int(self.winners.shape[0])

    @property
    def policies(self) -> tuple[str, ...]:
        """Deprecated: the old name of ``seats``."""
        renamed("SimulationResult.policies", "SimulationResult.seats")
        return self.seats

    def __repr__(self) -> str:
        """A summary, as numpy-heavy libraries show their results (the arrays are fields)."""
        finished = self.winners >= 0
        n = int(finished.sum())
        wins = np.bincount(self.winners[finished], minlength=self.players)
        share = " ".join(
            f"{PLAYER_LETTERS[k]} {w / n:.1%}" if n else f"{PLAYER_LETTERS[k]} -"
            for k, w in enumerate(wins.tolist())
        )
        mean = float(self.plies.mean()) if self.games else 0.0
        cut = f", {self.games - n:,} unfinished" if n < self.games else ""
        return (
            f"<SimulationResult {self.games:,} games, {self.width}x{self.height} "
            f"{self.rules.name}, seats {', '.join(self.seats)}; wins {share}{cut}; "
            f"mean {mean:.1f} plies; {self.elapsed:.2f} s>"
        )

    def moves(self, i: int) -> list[int]:
        """The moves of game ``i`` (needs ``record=True``); they replay through ``Game``."""
        if self._moves is None or self._offsets is None:
            raise ConfigError("moves were not recorded: run simulate(..., record=True)")
        i = check.whole(i, "game", -self.games, self.games - 1, InvalidIndexError)
        i %= self.games
        return [int(m) for m in self._moves[self._offsets[i] : self._offsets[i + 1]]]

    def summary(self) -> dict[str, Any]:
        """Win rates per seat with 95% Wilson intervals (over finished games), the length
        distribution and the speed of the run."""
        finished = self.winners >= 0
        n = int(finished.sum())
        wins = np.bincount(self.winners[finished], minlength=self.players).tolist()
        plies = self.plies.astype(np.float64)
        total_plies = int(self.plies.sum(dtype=np.int64))
        pct = np.percentile(plies, [10, 50, 90]).tolist() if self.games else [0.0] * 3
        return {
            "games": self.games,
            "finished": n,
            "truncated": self.games - n,
            "board": f"{self.width}x{self.height}",
            "rules": self.rules.name,
            "players": self.players,
            "seats": list(self.seats),
            "seed": self.seed,
            "wins": wins,
            "win_rate": [w / n if n else 0.0 for w in wins],
            "win_rate_ci95": [list(wilson_interval(w, n)) for w in wins],
            "plies": {
                "mean": float(plies.mean()) if self.games else 0.0,
                "std": float(plies.std()) if self.games else 0.0,
                "min": int(self.plies.min()) if self.games else 0,
                "p10": pct[0],
                "median": pct[1],
                "p90": pct[2],
                "max": int(self.plies.max()) if self.games else 0,
            },
            "waves_per_ply": float(self.waves.sum(dtype=np.int64)) / max(total_plies, 1),
            "longest_cascade": int(self.longest_cascade.max()) if self.games else 0,
            "threads": self.threads,
            "backend": self.backend,
            "shards": self.shards,
            "seconds": self.elapsed,
            "games_per_second": self.games / self.elapsed if self.elapsed > 0 else 0.0,
            "plies_per_second": total_plies / self.elapsed if self.elapsed > 0 else 0.0,
        }

    def write(self, path: str | Path) -> None:
        """Per-game results as CSV (``.csv``) or, with the summary, as JSON (``.json``),
        written atomically: the file is the old one or the whole new one, whatever happens
        (Ctrl-C, a full disk). A folder that is missing or not writable, or a write that
        fails, is a ``FileError`` naming the file."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".json"):
            raise ConfigError(
                f"cannot write {check.show(path.name)}: the output must end in .csv or .json"
            )
        columns: dict[str, npt.NDArray[Any]] = {
            "game": np.arange(self.games),
            "winner": self.winners,
            "plies": self.plies,
            "waves": self.waves,
            "longest_cascade": self.longest_cascade,
            "first_move": self.first_moves,
        }
        with atomic_open(path, "the results", "w") as f:
            if suffix == ".csv":
                w = csv.writer(f)
                w.writerow(columns)
                w.writerows(zip(*(c.tolist() for c in columns.values()), strict=True))
            else:
                doc: dict[str, Any] = {
                    "summary": self.summary(),
                    "games": {k: v.tolist() for k, v in columns.items()},
                }
                if self._moves is not None:
                    doc["moves"] = [self.moves(i) for i in range(self.games)]
                f.write(json.dumps(doc))


def longest_game(config: GameConfig) -> int | None:
    """The most plies a game can last under ``config``'s rules, or None where no bound exists.

    Under the subtract burst a cascade never loses an orb and every move adds at least one,
    while a board at rest holds at most its total capacity C, plus at most 2 orbs on each
    untouched opening cell (a drop of 3, which itself added 2 more than a move): so a game
    lasts at most C + 1 plies (RULES-NOTES section 4), drop3 opening or not. Under the empty
    burst orbs vanish in cascades and nothing bounds a game's length."""
    if config.rules.burst != "subtract":
        return None
    w, h = config.width, config.height
    capacity = 2 * (w * (h - 1) + h * (w - 1)) - w * h  # the sum of degree - 1 over cells
    return capacity + 1


def recorded_plies(config: GameConfig, max_plies: int | None) -> int:
    """The plies per game the memory check plans to record: the rules' bound or
    ``max_plies``, whichever is smaller; an estimate where neither exists."""
    bounds = [b for b in (longest_game(config), max_plies) if b is not None]
    return min(bounds) if bounds else UNBOUNDED_PLIES_PER_CELL * config.cells


def native_progress(progress: Progress | None, total: int) -> Callable[[int], None] | None:
    """The native engine reports ``done``; the caller's ``progress`` takes ``(done, total)``."""
    if progress is None:
        return None
    report = progress

    def callback(done: int) -> None:
        report(done, total)

    return callback


def simulate(
    games: int = 10_000,
    width: int = 5,
    height: int = 5,
    players: int = 2,
    rules: RulesLike = "colorwars",
    seats: str | Sequence[str] | Sequence[Any] | Any = "random",
    seed: int = 0,
    threads: int = 0,
    max_plies: int | None = None,
    record: bool = False,
    first: int = 0,
    progress: Progress | None = None,
    backend: str = "local",
    address: str | None = None,
    shards: int | Sequence[int] | None = None,
    *,
    policies: str | Sequence[str] | Sequence[Any] | Any = None,
) -> SimulationResult:
    """Plays ``games`` complete games natively, on ``threads`` threads (0: all cores) with the
    GIL released, and returns per-game numpy arrays.

    ``seats`` is one player for all the seats, or a list of one for each seat (``players`` is
    their count):
    ``"random"`` (uniform over legal moves), ``"greedy"`` (the move leaving the mover the
    most orbs after its cascade, ties broken at random), ``"mcts[:SIMULATIONS]"`` or
    ``"alphabeta[:DEPTH]"``, or ``colorwars.ai`` player objects (``MCTS(simulations=200)``,
    ...); ``policies=`` is its deprecated old name. Game ``i`` draws its
    randomness from ``(seed, i)`` only, so the same seed gives the same games whatever the
    thread count. ``max_plies`` cuts games off and marks them unfinished (winner -1).
    ``progress(done, total)`` is called about ten times a second; Ctrl-C stops the run.
    ``record=True`` keeps every game's moves (``SimulationResult.moves``); a run whose
    results or recorded moves would not fit in memory is refused with ``MemoryError`` before
    any game is played, the moves bounded by the longest game the rules allow (capacity + 1
    plies under the subtract burst, see ``longest_game``) or ``max_plies``.

    ``backend="ray"`` runs the games as shards on a Ray cluster (``address``, or a local one
    started and stopped for the call; ``shards``: a count or the sizes of the shards) and
    returns the same games as the local backend (see ``colorwars.distributed``).

    >>> r = simulate(games=1000, seed=1)
    >>> r.winners.shape, int((r.winners >= 0).sum())
    ((1000,), 1000)
    """
    seats = renamed_argument("simulate", "policies", "seats", policies, seats, "random")
    c = check.config(width, height, players, rules, first)
    r, width, height, players, first = c.rules, c.width, c.height, c.players, c.first
    games = check.games(games)
    seed = check.seed(seed)
    threads = check.threads(threads)
    max_plies = check.max_plies(max_plies)
    backend, address = check.backend(backend, address)
    record = check.flag(record, "record")
    if progress is not None and not callable(progress):
        check.fail(ConfigError, "progress", progress, "expected a function(done, total) or None")
    chosen = seat_players(seats, players)
    names = tuple(p.name for p in chosen)
    specs = [p.native_spec() for p in chosen]
    # Random and greedy seats run in the lean simulation loop; any search player needs the
    # match loop (which chooses with the same generators, so the games are the same).
    fast = all(spec.kind in PLAYOUTS for spec in specs)
    if record:
        per_game = RECORD_GAME_BYTES + RECORD_PLY_BYTES * recorded_plies(c, max_plies)
        check.memory(games * (GAME_BYTES + per_game), f"the recorded moves of {games:,} games")
    check.memory(games * GAME_BYTES, f"simulate(games={games:,})")
    callback = native_progress(progress, games)
    start = time.perf_counter()
    if backend == "ray":
        from colorwars.distributed import run_sharded

        args: dict[str, Any] = {
            "config": c, "seed": seed, "max_plies": max_plies, "record": record,
        }  # fmt: skip
        if fast:
            args["playouts"] = [spec.kind for spec in specs]
        else:
            args["seats"] = specs
        arrays = run_sharded(args, games, shards, address, record, progress)
    else:
        if shards is not None:
            raise ConfigError(f"shards go with backend='ray', not {backend!r}")
        if fast:
            arrays = _core.simulate(
                c, [spec.kind for spec in specs], seed, games, threads=threads,
                max_plies=max_plies, record=record, progress=callback,
            )  # fmt: skip
        else:
            arrays = _core.play_match(
                c, specs, games, seed, max_plies=max_plies, threads=threads, record=record,
                progress=callback,
            )  # fmt: skip
    wall = time.perf_counter() - start
    return SimulationResult(
        width=width,
        height=height,
        players=players,
        rules=r,
        seats=names,
        seed=seed,
        first=first,
        max_plies=max_plies,
        threads=threads,
        winners=arrays["winners"],
        plies=arrays["plies"],
        waves=arrays["waves"],
        longest_cascade=arrays["longest_cascade"],
        first_moves=arrays["first_moves"],
        elapsed=float(arrays["elapsed"]),
        wall=wall,
        backend=backend,
        shards=int(arrays.get("shards", 1)),
        _moves=arrays.get("moves"),
        _offsets=arrays.get("offsets"),
    )


def __getattr__(name: str) -> Any:
    if name == "POLICIES":  # the old name of PLAYOUTS
        renamed("colorwars.simulation.POLICIES", "colorwars.simulation.PLAYOUTS")
        return PLAYOUTS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
