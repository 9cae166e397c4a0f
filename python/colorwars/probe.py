"""The endgame probe: a short proof-number search before a player's own search.

Near the end of a game proof-number search often settles a position in a few thousand
positions, where a heuristic search can still pick a move that loses. A player with a probe
first looks for a proven win of the player to move (one proof table per board, kept across
the player's moves, so what one move proved the next one reads): at most ``positions``
positions, and it gives up at once where the proof number of that win reaches a threshold
(the proof would need at least that many more positions: the position is far from a forced
win, as it is all through the opening and middle game of a big board; the threshold shrinks
with the board, ``threshold_for``). A proven win is played at once; anything else is left to
the player's own search. So the probe is cheap where it cannot help (about 1,500 positions
a move on 8 x 8 classic) and exact where it can.

>>> import colorwars
>>> from colorwars.probe import Probe
>>> g = colorwars.Game.from_text("3x3 classic 2 ..1b/1a.1a/.1b. a ab - 4")
>>> probe = Probe(positions=20_000)
>>> g.cell_name(probe.winning_move(g))
'a1'
>>> probe.last.proven, probe.last.positions < 20_000
(True, True)
"""

from __future__ import annotations

import threading
import time
from typing import Any, NamedTuple

from colorwars import _core
from colorwars import _validate as check
from colorwars.errors import InvalidPlayerError
from colorwars.rules import Rules

__all__ = [
    "BOARDS", "PROBE_REACH", "PROBE_SHARE", "PROBE_TABLE", "SHARED", "Probe", "ProbeResult",
    "before_search", "forget", "shared", "threshold_for",
]  # fmt: skip

#: Where a probe gives up, by default: the proof number of the mover's win reaching
#: ``PROBE_REACH / cells**2`` (at least 16): 256 on 8 x 8, 1,677 on 5 x 5, 7,281 on 3 x 4.
#: A position of proof search costs about ``cells`` moves played, each a cascade over the
#: board, so a big board gets a short probe and a small one a long probe for about the same
#: time (docs/learned.md measured fixed thresholds from 32 to none).
PROBE_REACH = 1 << 20


def threshold_for(cells: int) -> int:
    """The default threshold of a probe on a board of ``cells`` cells."""
    return max(16, PROBE_REACH // (cells * cells))


#: The most of a timed move a probe takes (the player's own search has the rest): early in
#: a game on a big board the probe proves nothing, and each position of proof search costs
#: about what a few of alpha-beta's do.
PROBE_SHARE = 0.25

#: The proof table of a probe, per board it probes, in bytes.
PROBE_TABLE = 32 << 20
#: The boards a probe keeps a table for (the most recently probed), and the budgets whose
#: probe ``shared`` keeps: at most ``BOARDS * SHARED * PROBE_TABLE`` bytes in all.
BOARDS, SHARED = 4, 4


def _native_of(game: Any) -> _core.NativeGame:
    from colorwars.players import native_game  # players imports this module

    return native_game(game)


class ProbeResult(NamedTuple):
    """What the last probe did: the ``cell`` of a proven win for the player to move (None
    where none was proven), whether a win was proven (``proven``), the ``positions``
    searched, and whether it gave up at its threshold (``gave_up``)."""

    cell: int | None
    proven: bool
    positions: int
    gave_up: bool = False


class Probe:
    """A search for a proven win of the player to move: at most ``positions`` positions
    (checked every 1,024, so the last batch may run over), giving up where the proof number
    of the win reaches ``threshold``, in a table of ``memory`` bytes per board, kept across
    calls (``threshold`` None: ``threshold_for`` the board). ``search(game)`` says what it
    found; ``winning_move(game)`` is the cell of a proven win, or None. Two-player games
    only; with more players it proves nothing and costs nothing. Ctrl-C stops it.
    Thread-safe."""

    def __init__(
        self, positions: int, memory: int = PROBE_TABLE, threshold: int | None = None
    ) -> None:
        self.positions = check.probe(positions)
        self.memory = check.table_bytes(memory, 1 << 16, 1 << 40, InvalidPlayerError)
        self.threshold = (
            None
            if threshold is None
            else check.whole(threshold, "probe threshold", 2, 1 << 30, InvalidPlayerError)
        )
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.last = ProbeResult(None, False, 0)

    def __repr__(self) -> str:
        return f"Probe(positions={self.positions})"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (sent to another process) without its tables: they are rebuilt."""
        return {"positions": self.positions, "memory": self.memory, "threshold": self.threshold}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["positions"], state["memory"], state["threshold"])  # type: ignore[misc]

    def _table(self, native: _core.NativeGame) -> Any:
        """The board's table; the ``BOARDS`` most recently probed boards keep theirs."""
        key = f"{native.width}x{native.height} {Rules(native.opening, native.burst).name}"
        table = self._tables.pop(key, None)
        if table is None:
            while len(self._tables) >= BOARDS:  # the oldest goes before the new one is made
                self._tables.pop(next(iter(self._tables)))
            # Small pages: a probe is short, and a huge page's first touch is slow (as Perfect).
            table = _core.ProofTable(self.memory, huge_pages=False)
        self._tables[key] = table  # last: the most recent
        return table

    def search(self, game: Any, seconds: float | None = None, stop: Any = None) -> ProbeResult:
        """What a probe of ``game`` (a ``colorwars.Game``, a reference game or a native one)
        found: the ``cell`` of a win proven for the player to move, or None (no win proven
        within the budget or the threshold, more than two players, or the budget 0).
        ``seconds`` bounds the probe's time as well; ``stop`` (anything with ``is_set()``,
        such as a ``threading.Event``) ends it early, with what it proved by then."""
        check.stop_flag(stop)
        native = game if isinstance(game, _core.NativeGame) else _native_of(game)
        if self.positions == 0 or native.players != 2 or native.winner is not None:
            found = ProbeResult(None, False, 0)
        else:
            with self._lock:
                table = self._table(native)
                threshold = self.threshold or threshold_for(native.width * native.height)
                cell, work, gave_up = _core.probe(
                    native, table, self.positions, threshold, seconds, stop
                )
            found = ProbeResult(cell, cell is not None, int(work), gave_up)
        self.last = found
        return found

    def winning_move(self, game: Any, seconds: float | None = None) -> int | None:
        """The cell of a win proven for the player to move in ``game``, or None (``search``)."""
        return self.search(game, seconds).cell


_shared: dict[int, Probe] = {}
_shared_lock = threading.Lock()


def shared(positions: int) -> Probe:
    """The probe of ``positions`` positions that every player with that budget uses: the
    proofs one found serve the others (a proof is the position's, whoever asks), and a
    player rebuilt for each move (a new seed, a new budget) keeps what its probes proved.
    At most ``SHARED`` budgets are kept."""
    positions = check.probe(positions)
    with _shared_lock:
        probe = _shared.pop(positions, None)
        if probe is None:
            probe = Probe(positions)
            while len(_shared) >= SHARED:
                _shared.pop(next(iter(_shared)))
        _shared[positions] = probe  # last: the most recent
        return probe


def forget() -> None:
    """Drops the shared probes and their tables (the memory, and what they proved): the
    next player with a probe starts from nothing, as a benchmark's players should."""
    with _shared_lock:
        _shared.clear()


def before_search(
    positions: int, game: Any, seconds: float | None, start: float, stop: Any = None
) -> tuple[ProbeResult, float | None]:
    """A player's probe before its own search (``shared(positions)``): at most
    ``PROBE_SHARE`` of the move's ``seconds`` (None: no time budget), the move having
    started at ``start`` (``time.perf_counter()``). Returns what the probe found and the
    seconds left for the player's own search (at least a tenth of the move; None without a
    time budget). ``stop`` (anything with ``is_set()``) ends the probe early."""
    share = None if seconds is None else seconds * PROBE_SHARE
    found = shared(positions).search(game, share, stop)
    if seconds is None:
        return found, None
    return found, max(seconds - (time.perf_counter() - start), 0.1 * seconds)
