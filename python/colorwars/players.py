"""Players: what chooses a seat's moves. ``Random``, ``Greedy``, ``MCTS`` and ``AlphaBeta``
(all native), their names (``"mcts:200"``), and the list of players for the seats of a game.

A *player* is one of these objects; a *seat* is a place in the turn order (seat 0 is player
a). ``simulate(seats=...)``, ``ai.match(seats=...)`` and ``ai.tournament(players=...)`` all
take players as objects or names, checked here.

>>> import colorwars
>>> g = colorwars.Game(width=5, height=5)
>>> d = MCTS(simulations=200, seed=0).search(g)
>>> d.cell in g.legal_moves(), d.work
(True, 200)
>>> best = max(MCTS(simulations=200, seed=0).analyse(g), key=lambda m: m.visits)
>>> best.cell == d.cell
True
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, fields
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from colorwars import _core
from colorwars import _validate as check
from colorwars._deprecation import renamed
from colorwars.errors import GameOverError, InvalidPlayerError, NotAGameError, show
from colorwars.probe import before_search

__all__ = [
    "MCTS",
    "AlphaBeta",
    "Decision",
    "Greedy",
    "MoveValue",
    "Player",
    "Random",
    "native_game",
    "parse_player",
    "seat_players",
]


@dataclass(frozen=True, slots=True)
class NativeSpec:
    """What the native engine reads of a player (by attribute): its kind and budget. The
    names are the engine's: ``seconds`` is the player's ``time`` budget."""

    kind: str
    simulations: int = 0
    depth: int = 0
    seconds: float | None = None
    c: float = 0.0
    trees: int = 1
    greedy: float = 0.0
    solver: bool = False
    minimax: float = 0.0
    cutoff: int = 0
    reuse: bool = False
    eval: str = "hand"
    weights: tuple[int, ...] = ()


class MoveValue(NamedTuple):
    """What an MCTS search thinks of one legal move: the simulations through it, their share
    of all simulations, and the player to move's win rate over them (None when the search
    never tried the move)."""

    cell: int
    visits: int
    share: float
    win_rate: float | None


class Decision(NamedTuple):
    """A player's choice: the cell, the work done to find it (MCTS: simulations; alpha-beta:
    positions searched; greedy: moves tried; random: 0) and the seconds it took."""

    cell: int
    work: int
    seconds: float


@runtime_checkable
class Player(Protocol):
    """What every player offers: a name, its native description and ``choose(game)``."""

    @property
    def name(self) -> str: ...

    @property
    def seed(self) -> int: ...

    def native_spec(self) -> NativeSpec: ...

    def choose(self, game: Any) -> int: ...


# Where a player that is not one of the engine's batch players is played.
PLAY_IT = (
    "play it with colorwars tournament or colorwars ladder (from Python: choose(game), "
    "ai.match, ai.tournament or ai.ladder)"
)


def native_game(game: object, call: str | None = None) -> _core.NativeGame:
    """The native game behind ``colorwars.Game``, or a native copy of a reference game;
    ``NotAGameError`` (a ``ConfigError`` and a ``TypeError``) for anything else, naming
    ``call`` (a function that also takes a board size, such as ``solve``) when given."""
    native = getattr(game, "_native", None)
    if isinstance(native, _core.NativeGame):
        return native
    from colorwars.reference import Game as ReferenceGame

    if isinstance(game, ReferenceGame):
        return _core.NativeGame.from_text(game.to_text())
    if call is not None:
        raise NotAGameError(
            f"{call}({show(game)}): expected a colorwars.Game or colorwars.reference.Game, "
            f"width and height such as {call}(5, 5), or a board size such as {call}('5x5')"
        )
    raise NotAGameError(
        f"a player chooses a move in a colorwars.Game or colorwars.reference.Game, not "
        f"{type(game).__name__}"
    )


def _takes_stop(search: Any) -> bool:
    """Whether a player's ``search`` takes ``stop`` (a search that cannot be introspected is
    taken not to)."""
    try:
        return "stop" in inspect.signature(search).parameters
    except (TypeError, ValueError):
        return False


def _live(game: object) -> _core.NativeGame:
    """The native game of ``game`` (see ``native_game``), refused with ``GameOverError`` once
    it is won: there is no move to choose."""
    native = native_game(game)
    if native.winner is not None:
        raise GameOverError(
            f"illegal move: the game is over (player {'abcdefgh'[native.winner]} has won); "
            "no move is allowed"
        )
    return native


def _as_given(value: object, checked: float) -> int | float:
    """The checked number of a real-valued setting, kept as a whole number if one was given
    (``time=1`` is named ``mcts(1s)``, ``time=1.0`` ``mcts(1.0s)``)."""
    return int(checked) if isinstance(value, int | np.integer) else checked


class _Base:
    seed: int = 0

    def _keep(self, name: str, value: object) -> None:
        """Stores the value a check returned: the object the caller passed may answer
        differently when asked again (``__index__``, ``__float__``)."""
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        self._keep("seed", check.seed(self.seed))

    @property
    def name(self) -> str:
        raise NotImplementedError

    def _spec(self) -> NativeSpec:
        """What the engine's search reads of this player (its probe aside)."""
        raise NotImplementedError

    def native_spec(self) -> NativeSpec:
        """The player as the engine's batch matches play it; a player with an endgame probe
        (``probe``) is played move by move instead (``InvalidPlayerError`` here)."""
        if getattr(self, "probe", 0):
            raise InvalidPlayerError(
                f"invalid player: {self.name} probes proofs before its search and is not one "
                "of the engine's batch players; " + PLAY_IT
            )
        return self._spec()

    def search(self, game: Any, stop: Any = None) -> Decision:
        """The move this player makes in ``game``, with the work it did (deterministic for
        its seed and budget, except under a time budget). With a ``probe``, a proven win
        found by the probe (``probe.shared``: one per budget) is played at once (its work is
        the probe's positions), and under a time budget the probe takes at most a quarter of
        it (``probe.PROBE_SHARE``). ``stop`` (anything with ``is_set()``) ends the search
        early with its best move. Raises ``GameOverError`` once the game is won; Ctrl-C stops
        a long search."""
        check.stop_flag(stop)
        native = _live(game)
        start = time.perf_counter()
        spec = self._spec()
        probe = getattr(self, "probe", 0)
        if probe:
            found, left = before_search(probe, native, spec.seconds, start, stop)
            if found.cell is not None:
                return Decision(found.cell, found.positions, time.perf_counter() - start)
            spec = dataclasses.replace(spec, seconds=left)
        cell, work = _core.ai_choose(native, spec, self.seed, stop)
        return Decision(cell, work, time.perf_counter() - start)

    def choose(self, game: Any) -> int:
        """The move this player makes in ``game``: ``search(game).cell``."""
        return self.search(game).cell


@dataclass(frozen=True)
class Random(_Base):
    """Uniform over the legal moves."""

    seed: int = 0

    @property
    def name(self) -> str:
        return "random"

    def _spec(self) -> NativeSpec:
        return NativeSpec("random")


@dataclass(frozen=True)
class Greedy(_Base):
    """The move after whose cascade the mover holds the most orbs; ties broken at random."""

    seed: int = 0

    @property
    def name(self) -> str:
        return "greedy"

    def _spec(self) -> NativeSpec:
        return NativeSpec("greedy")


@dataclass(frozen=True)
class MCTS(_Base):
    """Monte-Carlo tree search: UCT with native playouts (greedy by default), MCTS-Solver,
    implicit minimax backups of the evaluation, and transpositions (a position reached by two
    orders of moves is one node); any number of players, each seat maximising its own result
    (the solver and the minimax backups need two). ``MCTS(c=0.7, solver=False, minimax=0,
    reuse=False)`` is the plain UCT of version 0.1. Budget: ``simulations`` per move (1 to
    10**9; 1000 by default), or ``time`` seconds: with a time and no ``simulations`` the search
    thinks for that long (a long playout on a big board stops with it too); with both, it
    stops at whichever comes first.
    ``trees`` (1 to 256) searches that many independent trees at once (root parallelism,
    each on a thread of its own, with the GIL released) and merges their visits; ``threads=``
    is its deprecated old name. (A tournament's ``threads`` are the pool's workers, each of
    which runs a player's trees.) The tree stops growing at a fixed memory bound (playouts
    go on from its leaves)."""

    simulations: int | None = None
    time: float | None = None
    c: float = 0.5
    trees: int = 1
    seed: int = 0
    greedy: float = 1.0
    """The share of playout moves chosen greedily instead of at random (0 to 1): greedy
    ("heavy") playouts make a far stronger player than random ones at the same budget."""
    solver: bool = True
    """MCTS-Solver (two players): wins and losses proven in the tree propagate up it; a
    proven win is played at once and a proven loss avoided while anything else remains."""
    reuse: bool = True
    """Native matches (``ai.match``, tournaments): keep the search tree between the seat's
    moves and start each search from the part below the new position."""
    minimax: float = 0.3
    """Implicit minimax backups (two players, 0 to 1): the weight of the evaluation, backed up
    by negamax through the tree, against the playouts' mean when choosing where to search;
    0 is the plain UCT."""
    cutoff: int = 0
    """Playouts stop after this many moves and score the evaluation (two players; 0 plays
    every playout to the end)."""
    probe: int = 0
    """The endgame probe (``colorwars.probe``, two players): this many positions of
    proof-number search before each search, a proven win played at once; 0 is none."""
    threads: InitVar[int | None] = None
    """Deprecated: the old name of ``trees``."""

    def __post_init__(self, threads: int | None) -> None:
        super().__post_init__()
        if threads is not None:
            if self.trees != 1:
                raise InvalidPlayerError(
                    "invalid MCTS settings: give trees= only (threads= is its old name)"
                )
            renamed("MCTS(threads=...)", "MCTS(trees=...)", stacklevel=4)
            self._keep("trees", threads)
        # Every setting is kept as the value its check returned (one place validates).
        t = check.time_budget(self.time)
        self._keep("time", None if t is None else _as_given(self.time, t))
        simulations = self.simulations
        if simulations is None:  # the default budget: 1000, or the time alone
            simulations = 1000 if t is None else 0
        self._keep("simulations", check.simulations(simulations, 0 if t is not None else 1))
        self._keep("trees", check.whole(self.trees, "trees", 1, check.MAX_THREADS,
                                        InvalidPlayerError))  # fmt: skip
        for name, what, high in (
            ("greedy", "greedy share", 1.0),
            ("c", "c", check.MAX_C),
            ("minimax", "minimax weight", 1.0),
        ):
            value = getattr(self, name)
            self._keep(
                name, _as_given(value, check.number(value, what, 0.0, high, InvalidPlayerError))
            )
        for flag in ("solver", "reuse"):
            if not isinstance(getattr(self, flag), bool | np.bool_):
                check.fail(InvalidPlayerError, flag, getattr(self, flag), "expected True or False")
            self._keep(flag, bool(getattr(self, flag)))
        self._keep(
            "cutoff", check.whole(self.cutoff, "cutoff", 0, check.MAX_CUTOFF, InvalidPlayerError)
        )
        self._keep("probe", check.probe(self.probe))

    @property
    def name(self) -> str:
        """``mcts(1000)`` or ``mcts(0.5s)``, with any setting that is not the default after
        it (``mcts(1000)[minimax=0,solver=False]``), so that players in a table differ."""
        base = f"mcts({self.time}s)" if self.time else f"mcts({self.simulations})"
        changed = [
            f"{f.name}={getattr(self, f.name)}"
            for f in fields(self)
            if f.name in _TUNING and getattr(self, f.name) != f.default
        ]
        return base + (f"[{','.join(changed)}]" if changed else "")

    def analyse(self, game: Any) -> list[MoveValue]:
        """Every legal move of ``game`` with the search's statistics, by cell (for analysis
        boards: shade each cell by its share or win rate). The move ``choose`` picks is the
        one with the most visits. Ctrl-C stops a long search."""
        native = _live(game)
        rows, _ = _core.ai_analyse(native, self._spec(), self.seed)
        total = max(sum(v for _, v, _ in rows), 1)
        return [
            MoveValue(cell, visits, visits / total, reward / visits if visits else None)
            for cell, visits, reward in rows
        ]

    def _spec(self) -> NativeSpec:
        return NativeSpec(
            "mcts",
            simulations=int(self.simulations or 0),
            seconds=None if self.time is None else float(self.time),
            c=float(self.c),
            trees=int(self.trees),
            greedy=float(self.greedy),
            solver=bool(self.solver),
            minimax=float(self.minimax),
            cutoff=int(self.cutoff),
            reuse=bool(self.reuse),
        )


@dataclass(frozen=True)
class AlphaBeta(_Base):
    """Iterative-deepening negamax with a transposition table (Zobrist hashing), two players.
    Evaluation (mover's view): orbs + 2 x cells, mover minus opponent, plus 5 for each
    opposing loaded cell next to a loaded cell of the mover. Budget: ``depth`` plies (1 to
    64; 4 by default), or ``time`` seconds (the deepest iteration completed in time); with
    both, it stops at whichever comes first."""

    depth: int | None = None
    time: float | None = None
    seed: int = 0
    eval: str = "hand"
    weights: tuple[int, ...] | None = None
    probe: int = 0
    """The endgame probe (``colorwars.probe``): this many positions of proof-number search
    before each search, a proven win played at once; 0 is none."""

    def __post_init__(self) -> None:
        super().__post_init__()
        t = check.time_budget(self.time)
        self._keep("time", None if t is None else _as_given(self.time, t))
        depth = self.depth
        if depth is None:  # the default budget: depth 4, or the time alone
            depth = 4 if t is None else check.MAX_DEPTH
        self._keep("depth", check.depth(depth))
        if self.eval not in EVALUATIONS:
            check.fail(
                InvalidPlayerError, "alpha-beta evaluation", self.eval,
                f"allowed are {', '.join(map(repr, EVALUATIONS))}",
            )  # fmt: skip
        if self.weights is not None:
            self._keep("weights", check.evaluation_weights(self.weights))
        self._keep("probe", check.probe(self.probe))

    @property
    def name(self) -> str:
        budget = f"{self.time}s" if self.time else f"{self.depth}"
        kind = "alphabeta" if self.eval == "hand" and self.weights is None else "learned"
        return f"{kind}({budget})" + (f"[probe={self.probe}]" if self.probe else "")

    def _spec(self) -> NativeSpec:
        seconds = None if self.time is None else float(self.time)
        return NativeSpec(
            "alphabeta", depth=int(self.depth or 0), seconds=seconds, eval=self.eval,
            weights=self.weights or (),
        )  # fmt: skip


# Alpha-beta's evaluations: the hand-made one, and the one fitted to game results.
EVALUATIONS = ("hand", "learned")


#: Every player name the parser takes, with settings; its errors and the CLI's help say it.
#: The players the engine's batch plays natively (``simulate``, ``openings``): no network,
#: no probe, no other program.
BATCH_PLAYER_NAMES = (
    "random, greedy, mcts[:SIMULATIONS], alphabeta[:DEPTH] or learned[:DEPTH], or settings "
    "after the name as mcts:time=0.1, alphabeta:time=0.5 or learned:time=1 (no probe)"
)
PLAYER_NAMES = (
    "random, greedy, mcts[:SIMULATIONS], alphabeta[:DEPTH], learned[:DEPTH], "
    "zero[:SIMULATIONS], zeroab[:DEPTH], perfect, engine:COMMAND, or settings after the name "
    "as mcts:time=1:c=0.5, alphabeta:time=0.5, learned:time=1, zero:time=0.1 or "
    "perfect:time=0.1:memory=256M"
)
_SETTINGS: dict[str, tuple[str, ...]] = {
    "mcts": ("simulations", "time", "c", "trees", "seed", "greedy", "solver", "reuse",
             "minimax", "cutoff", "probe"),
    "alphabeta": ("depth", "time", "seed", "eval", "probe"),
    "learned": ("depth", "time", "seed", "probe"),
    "zero": ("simulations", "time", "seed", "c_puct", "batch", "temperature", "probe"),
    "zeroab": ("depth", "time", "seed"),
    "perfect": ("time", "seed", "memory", "book"),
}  # fmt: skip


_TUNING = ("c", "trees", "greedy", "solver", "reuse", "minimax", "cutoff", "probe")
# The settings that are true or false (in a name, written true or false).
_FLAGS = ("solver", "reuse", "book")
_WHOLE = ("simulations", "trees", "seed", "cutoff", "depth", "batch", "probe")
# Old names of settings in player names, still read (with a DeprecationWarning).
_RENAMED_SETTINGS = {("mcts", "threads"): "trees"}


def _setting(kind: str, item: str, text: str) -> tuple[str, object]:
    """One ``key=value`` of a player name: a setting of that player and a number or
    true/false."""
    key, eq, raw = item.partition("=")
    key, raw = key.strip(), raw.strip()
    new = _RENAMED_SETTINGS.get((kind, key))
    if eq and new is not None:
        renamed(f"the {kind} setting {key}=", f"{new}=", stacklevel=5)
        key = new
    if not eq or key not in _SETTINGS[kind]:
        check.fail(
            InvalidPlayerError, "player", text,
            f"{kind} settings are {', '.join(_SETTINGS[kind])} (as key=value)",
        )  # fmt: skip
    if key in _FLAGS:
        if raw.lower() not in ("true", "false"):
            check.fail(InvalidPlayerError, "player", text, f"{key}: expected true or false")
        return key, raw.lower() == "true"
    if raw in ("true", "false"):
        return key, raw == "true"
    if key in ("eval", "memory"):  # a name; a size such as 256M
        return key, raw
    try:
        number = float(raw) if any(ch in raw for ch in ".e") or raw in ("inf", "nan") else int(raw)
    except ValueError:
        check.fail(InvalidPlayerError, "player", text, f"{key}: expected a number")
    if key in _WHOLE and isinstance(number, float) and number.is_integer():
        number = int(number)  # simulations=1e6
    return key, number


def _settings(kind: str, arg: str, text: str) -> dict[str, object]:
    """The ``key=value`` settings after a player's name, each given once."""
    settings: dict[str, object] = {}
    for item in arg.split(":"):
        key, value = _setting(kind, item, text)
        if key in settings:
            check.fail(InvalidPlayerError, "player", text, f"{key} is given twice")
        settings[key] = value
    return settings


def parse_player(text: str) -> Player:
    """A player from its name: ``random``, ``greedy``, ``mcts[:SIMULATIONS]``,
    ``alphabeta[:DEPTH]``, ``learned[:DEPTH]`` (alpha-beta with the learned evaluation), or a
    name with its settings as ``key=value`` after colons:
    ``mcts:time=1``, ``mcts:simulations=5000:c=0.5``, ``alphabeta:time=0.5``."""
    if not isinstance(text, str):
        check.fail(InvalidPlayerError, "player", text, f"expected a name ({PLAYER_NAMES})")
    if text.strip()[:7].lower() == "engine:" and len(text) <= 4096:
        from colorwars.engine import Engine

        return Engine(text.strip()[7:])
    if len(text) > 200:
        check.fail(InvalidPlayerError, "player", text, f"allowed are {PLAYER_NAMES}")
    kind, _, arg = text.strip().lower().partition(":")
    kind = "alphabeta" if kind == "ab" else kind
    if kind in ("random", "greedy") and not arg:
        return Random() if kind == "random" else Greedy()
    if kind == "perfect":
        from colorwars.perfect import Perfect

        if not arg:
            return Perfect()
        if "=" in arg:
            settings = _settings(kind, arg, text)
            return Perfect(**settings)  # type: ignore[arg-type]
    if kind == "zeroab":
        from colorwars.zero.player import ZeroAlphaBeta

        if not arg:
            return ZeroAlphaBeta()
        if arg.isascii() and arg.isdigit() and len(arg) <= 10:
            return ZeroAlphaBeta(depth=int(arg))
        if "=" in arg:
            settings = _settings(kind, arg, text)
            return ZeroAlphaBeta(**settings)  # type: ignore[arg-type]
    if kind == "zero":
        from colorwars.zero.player import Zero

        if not arg:
            return Zero()
        if arg.isascii() and arg.isdigit() and len(arg) <= 10:
            return Zero(simulations=int(arg))
        if "=" in arg:
            settings = _settings(kind, arg, text)
            return Zero(**settings)  # type: ignore[arg-type]
    if kind == "learned":
        if not arg:
            return AlphaBeta(eval="learned")
        if arg.isascii() and arg.isdigit() and len(arg) <= 10:
            return AlphaBeta(depth=int(arg), eval="learned")
        if "=" in arg:
            settings = _settings(kind, arg, text)
            return AlphaBeta(eval="learned", **settings)  # type: ignore[arg-type]
    if kind in ("mcts", "alphabeta"):
        if not arg:
            return MCTS() if kind == "mcts" else AlphaBeta()
        if arg.isascii() and arg.isdigit() and len(arg) <= 10:
            n = int(arg)
            return MCTS(simulations=n) if kind == "mcts" else AlphaBeta(depth=n)
        if "=" in arg:
            settings = _settings(kind, arg, text)
            return MCTS(**settings) if kind == "mcts" else AlphaBeta(**settings)  # type: ignore[arg-type]
    check.fail(InvalidPlayerError, "player", text, f"allowed are {PLAYER_NAMES}")


def as_player(item: object) -> Player:
    """A player object, or a name parsed into one."""
    if isinstance(item, str):
        return parse_player(item)
    if isinstance(item, _Base):
        return item
    from colorwars.engine import Engine
    from colorwars.perfect import Perfect
    from colorwars.puct import PUCT
    from colorwars.zero.player import Zero, ZeroAlphaBeta

    if isinstance(item, Zero | ZeroAlphaBeta | Engine | Perfect | PUCT):
        return item
    check.fail(InvalidPlayerError, "player", item, f"expected a name ({PLAYER_NAMES}) or a player")


def seat_players(policies: object, seats: int) -> list[Player]:
    """One player per seat: one player (object or name) for every seat, or a sequence with
    one per seat."""
    from colorwars.engine import Engine
    from colorwars.perfect import Perfect
    from colorwars.zero.player import Zero, ZeroAlphaBeta

    if isinstance(policies, str | _Base | Zero | ZeroAlphaBeta | Engine | Perfect):
        return [as_player(policies)] * seats
    if not isinstance(policies, Sequence):
        check.fail(
            InvalidPlayerError,
            "players",
            policies,
            "expected one player (object or name) for all the seats, or a list of one for each "
            "seat",
        )
    players = [as_player(item) for item in policies]  # a name that is no player first
    if len(players) != seats:
        raise InvalidPlayerError(
            f"invalid players: {len(players)} given for {seats} seats; give one player for all "
            "the seats, or a list of one for each seat"
        )
    return players
