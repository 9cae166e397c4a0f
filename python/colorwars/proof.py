"""``colorwars.prove``: who wins, by proof-number search, for boards past brute force.

The native df-pn search (``src/search/pns.rs``) proves which player wins a two-player position,
with a memory-bounded table that keeps proofs, symmetry reduction (8 symmetries on square
boards, 4 on rectangles) and immediate-win detection. It proves the winner, not the length of
the game: ``colorwars.solve`` (alpha-beta) gives the exact length where that is feasible.

A split run (the default) searches the position whole first and reads the result after each
group of symmetric first moves from that search's proofs; the groups it leaves open (where the
mover wins, it needs only one) are then proven one at a time, in slices of time that double each
round, so every move makes progress. A run saves what is proven to a checkpoint file and
resumes from it, and can run the groups as Ray tasks (``backend="ray"``) whose proofs are
merged into the checkpoint.
"""

from __future__ import annotations

import contextlib
import os
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorwars import _core, _files
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars._files import atomic_write, check_output, read_sealed, seal
from colorwars.errors import (
    ConfigError,
    FileError,
    InvalidProofError,
    ShardError,
)
from colorwars.rules import DEFAULT_RULES, Rules, RulesLike, resolve

__all__ = ["DEFAULT_MEMORY", "Proof", "prove", "walk_strategy"]

#: The proof table's memory unless told otherwise: by board size (a small board fills little
#: of a large table), at most 4 GiB and at most a quarter of what the process may use.
DEFAULT_MEMORY = 4 << 30


#: The most searchers one proof search takes (the native search's limit).
MAX_THREADS = 64


def cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_memory(cells: int) -> int:
    """The default table size for a board of ``cells`` cells."""
    if cells <= 9:
        size = 16 << 20
    elif cells <= 16:
        size = 256 << 20
    elif cells <= 25:
        size = 1 << 30
    else:
        size = DEFAULT_MEMORY
    return min(size, check.memory_limit() // 4)


#: A checkpoint is a sealed file (``colorwars._files``): this kind and format version, a JSON
#: header (the position, the results this file claims, totals) and the packed proofs, each
#: under a BLAKE2b digest. Format 1 (before checksums) is refused: it cannot be trusted.
CHECKPOINT_KIND = "proofs"
CHECKPOINT_FORMAT = 2
#: Proofs whose search took fewer positions (immediate wins) are not saved: they are found again
#: at once.
SAVE_MIN_WORK = 2
FIRST_SLICE = 5.0
#: Seconds between saves of a checkpoint while a position is searched whole (unsplit, or a split
#: run's first search): a run killed outright (no Ctrl-C: a power cut, a session's end) loses at
#: most this much.
SAVE_EVERY = 600.0
#: The least ``save_every`` (seconds) a checkpointed run takes.
SAVE_EVERY_LEAST = 0.1


@dataclass
class Proof:
    """What proof-number search proved about a position (``position``, its notation).

    ``winner`` is the player proven to win (None: not proven within the time); ``line`` a line
    the winner wins by (the winner's proven moves and the loser's most stubborn-looking
    replies; its length is not the game's length under perfect play). With ``split``,
    ``groups`` lists the legal moves in groups of symmetric moves and ``moves`` maps each
    group's first cell to the proven winner after it (None if not proven). ``complete`` is
    True when every group (or, unsplit, the position) is proven. With ``verify``, ``checked``
    counts the positions of the proof, walked move by move to the end of every game."""

    width: int
    height: int
    rules: str
    position: str
    winner: int | None
    line: list[int]
    positions: int
    seconds: float
    groups: list[list[int]] = field(default_factory=list)
    moves: dict[int, int | None] = field(default_factory=dict)
    complete: bool = False
    method: str = "proof-number"
    #: With ``verify``: the distinct positions of the checked proof (summed over the groups),
    #: None if it was not checked.
    checked: int | None = None
    #: The searchers that shared the table (per Ray task with ``backend="ray"``).
    threads: int = 1
    #: The table's entries in use at the end, and how many it holds (this process's table;
    #: Ray tasks have their own).
    filled: int = 0
    capacity: int = 0
    #: What the earlier runs of its checkpoint took (``positions`` and ``seconds`` count
    #: them too, so that a proof of several sessions reports its whole cost); 0 without one.
    earlier_positions: int = 0
    earlier_seconds: float = 0.0
    #: Why the checkpoint could not be written at the end (a full disk), None when it was or
    #: there is none: the result stands, but the proofs were not kept.
    unsaved: str | None = None

    def name(self, cell: int) -> str:
        return f"{column_name(cell % self.width)}{cell // self.width + 1}"

    def __str__(self) -> str:
        head = f"{self.width}x{self.height} {self.rules}"
        if self.winner is None:
            result = "not proven"
        else:
            result = f"player {PLAYER_LETTERS[self.winner]} wins"
        threads = f", {self.threads} threads" if self.threads > 1 else ""
        effort = f"{self.positions:,} positions, {self.seconds:.1f} s{threads}"
        effort += _this_run(
            self.positions, self.seconds, self.earlier_positions, self.earlier_seconds
        )
        text = f"{head}: {result} ({effort})"
        if self.checked is not None:
            text += f"; proof checked: {self.checked:,} positions"
        if self.moves:
            each = ", ".join(
                f"{'/'.join(self.name(c) for c in group)}: "
                + ("?" if self.moves[group[0]] is None else PLAYER_LETTERS[self.moves[group[0]]])  # type: ignore[index]
                for group in self.groups
            )
            text += f"; after each first move, the winner: {each}"
        if self.line:
            text += f"; line {' '.join(self.name(c) for c in self.line)}"
        return text


def _this_run(
    positions: int, seconds: float, earlier_positions: int, earlier_seconds: float
) -> str:
    """What a result resumed from a checkpoint adds to its totals (which count the earlier
    runs too): this run's own positions and seconds; nothing for a run with no earlier one."""
    if not (earlier_positions or earlier_seconds):
        return ""
    return (
        f", with the checkpoint's earlier runs; this run {positions - earlier_positions:,} "
        f"positions, {seconds - earlier_seconds:.1f} s"
    )


def _parse_memory(value: object) -> int:
    """Bytes from an int or a text such as ``"8G"``, ``"512M"``."""
    allowed = "expected bytes as a whole number or a size such as 512M or 8G (at least 1M)"
    if isinstance(value, str):
        text = value.strip().upper().removesuffix("B").removesuffix("I")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
        number = text[:-1] if scale > 1 else text
        try:
            size = float(number)
        except ValueError:
            check.fail(ConfigError, "memory", value, allowed)
        if not (size == size and 0 < size < 1e15):
            check.fail(ConfigError, "memory", value, allowed)
        nbytes = int(size * scale)
    else:
        nbytes = check.whole(value, "memory", 1 << 20, 1 << 50)
    if nbytes < 1 << 20:
        check.fail(ConfigError, "memory", value, allowed)
    check.memory(nbytes, "the proof table")
    return nbytes


def _start(target: Any, height: int | None, rules: RulesLike, call: str = "prove") -> Any:
    """The native game to prove: a game's position, or a board's empty start (``call`` names
    the function in errors)."""
    sides = check.board(target, height, call)
    if sides is not None:
        return _core.NativeGame(check.config(*sides, 2, resolve(rules)))
    return check.two_player_game(target, call, rules)


@dataclass
class _Claims:
    """What a checkpoint's header says, its types checked. None of it is trusted as a result:
    every result is derived again from the proofs (``claimed`` only cross-checks them)."""

    claimed: dict[int, int | None] = field(default_factory=dict)
    positions: int = 0
    seconds: float = 0.0


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _claims(
    header: dict[str, Any], position: str, cells: int, bad: Callable[[str], Any]
) -> _Claims:
    """The header's fields, each of the type and range this program writes; else ``bad``."""
    found = header.get("position")
    if found != position:
        raise bad(f"it is for the position {found!r}, not {position!r}")
    moves = header.get("moves", {})
    if not isinstance(moves, dict):
        raise bad("'moves' is not a table of cells")
    claimed: dict[int, int | None] = {}
    for key, winner in moves.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < cells):
            raise bad(f"'moves' names {key!r}, which is not a cell of the board")
        if winner is not None and (not _whole(winner) or winner > 1):
            raise bad(f"'moves' gives winner {winner!r} after cell {key}: expected 0, 1 or null")
        claimed[int(key)] = winner
    for name in ("lines", "checked"):
        table = header.get(name, {})
        if not isinstance(table, dict) or not all(isinstance(k, str) for k in table):
            raise bad(f"{name!r} is not a table of cells")
    for key, line in header.get("lines", {}).items():
        if not isinstance(line, list) or not all(_whole(c) and c < cells for c in line):
            raise bad(f"'lines' of cell {key!r} is not a list of cells")
    if not all(_whole(n) for n in header.get("checked", {}).values()):
        raise bad("'checked' holds something other than counts")
    positions = header.get("positions", 0)
    seconds = header.get("seconds", 0.0)
    if not _whole(positions):
        raise bad(f"'positions' is {positions!r}: expected a count")
    if not (isinstance(seconds, int | float) and not isinstance(seconds, bool)) or not (
        0 <= seconds < 1e12
    ):
        raise bad(f"'seconds' is {seconds!r}: expected seconds")
    return _Claims(claimed, positions, float(seconds))


def _load(path: Path, position: str, cells: int, table: Any) -> _Claims:
    """A checkpoint's claims, its proofs added to ``table``, everything checked first (format,
    checksums, types, the position); no claims if there is no file. Any damage is a
    ``FileError`` naming the file and what failed."""

    def bad(reason: str) -> FileError:
        return FileError(f"invalid checkpoint {path}: {reason}")

    sealed = read_sealed(path, CHECKPOINT_KIND, CHECKPOINT_FORMAT, "checkpoint")
    if sealed is None:
        return _Claims()
    header, proofs = sealed
    claims = _claims(header, position, cells, bad)
    try:
        table.add_proofs(proofs)
    except ValueError as e:
        raise bad(str(e).removeprefix("invalid position: ")) from None
    return claims


def _save(path: Path, record: dict[str, Any], proofs: bytes) -> None:
    """Writes the checkpoint sealed and atomically (a crash mid-write leaves the old one)."""
    atomic_write(path, seal(CHECKPOINT_KIND, CHECKPOINT_FORMAT, record, proofs), "checkpoint")


def _locked(path: Path | None) -> contextlib.AbstractContextManager[None]:
    """Holds ``path``'s lock file (``<checkpoint>.lock``) for the run: a second run on the same
    checkpoint is a ``FileError`` at once, not a race over the file."""
    if path is None:
        return contextlib.nullcontext()
    return _files.locked(path, "checkpoint")


def _prove_group(
    text: str,
    cell: int,
    seconds: float | None,
    memory: int,
    proofs: bytes,
    verify: bool,
    threads: int = 1,
) -> tuple[int, int | None, list[int], int, int | None, bool, bytes]:
    """One group, in a Ray task: its own table with the shared proofs, the move's position
    proven, and the proofs found to merge back."""
    table = _core.ProofTable(memory)
    table.add_proofs(proofs)
    game = _core.NativeGame.from_text(text)
    first = game.to_move
    game.play(cell)
    # The side of the position's mover first, as a search of the whole position does (see
    # ``_read_groups``): the proofs merged back serve a later search of the position too.
    winner, line, positions, _, checked, stopped = _core.prove(
        game, table, seconds, verify=verify, threads=threads, first=first
    )
    return cell, winner, line, positions, checked, stopped, table.proofs(SAVE_MIN_WORK)


def prove(
    target: Any,
    height: int | None = None,
    rules: RulesLike = DEFAULT_RULES,
    *,
    time: float | None = None,
    memory: int | str | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    split: bool = True,
    verify: bool = False,
    backend: str = "local",
    address: str | None = None,
    progress: Callable[[str, int], object] | None = None,
    threads: int | None = None,
    save_every: float | None = SAVE_EVERY,
) -> Proof:
    """Proves who wins by proof-number search: ``prove(game)`` from a game's position or
    ``prove(width, height, rules=...)`` (or ``prove("WxH", ...)``) from the empty board.

    ``time`` bounds the seconds (None: until proven); ``memory`` the proof table's bytes (an
    int or a size such as ``"8G"``; the table replaces old estimates when full, never
    aborts). With ``split`` (the default) the result after each group of symmetric first moves
    is reported in ``.moves``: the position is searched whole first and each group read from
    its proofs, then the groups still open (where the mover wins it needs one) are proven in turn;
    ``checkpoint`` names a file that keeps the proven part and the results between runs (a
    run resumes from it). ``backend="ray"`` proves the groups as Ray
    tasks (one per group, each with ``memory``), on the cluster at ``address`` or a local one.
    ``verify`` walks each proof again to the end of every game before it counts. ``threads``
    searchers share the table (parallel df-pn, parting where the likely loser moves; the
    same results as one thread, found sooner): None for one, 0 for one per core here and one
    per Ray task (each task then asks Ray for that many CPUs).
    ``save_every`` (seconds, None: only at the end) saves the checkpoint that often while the
    position is searched whole (unsplit, or a split run's first search; a split run saves
    after every slice too): the search pauses, saves what is proven and goes on from the same
    table.
    ``progress(message, positions)`` is called about ten times a second (while ``verify``
    walks a proof, with ``", checking its proof"`` after the message and the positions
    walked). Ctrl-C stops the search; what was proven is saved first.

    >>> p = prove(3, 3, rules="colorwars")
    >>> p.winner, p.complete, sorted(p.moves.values())
    (1, True, [1, 1, 1])
    """
    game = _start(target, height, rules)
    position = game.to_text()
    r = Rules(game.opening, game.burst)
    seconds = None if time is None else check.number(time, "time", 0.0, 1e9)
    nbytes = (
        _parse_memory(memory) if memory is not None else default_memory(game.width * game.height)
    )
    split = check.flag(split, "split")
    verify = check.flag(verify, "verify")
    if progress is not None and not callable(progress):
        check.fail(
            ConfigError, "progress", progress, "expected a function(message, positions) or None"
        )
    backend, address = check.backend(backend, address)
    if backend == "ray" and not split:
        check.fail(
            ConfigError, "backend", backend, "the Ray backend proves each group of first moves "
            "as a task: it does not search the position unsplit (split=False, --no-split)"
        )  # fmt: skip
    every = (
        None
        if save_every is None
        else check.number(save_every, "save_every", SAVE_EVERY_LEAST, 1e9)
    )
    n = 1 if threads is None else check.whole(threads, "threads", 0, MAX_THREADS)
    if n == 0:
        n = 1 if backend == "ray" else min(cores(), MAX_THREADS)
    # The checkpoint's folder is checked before any work, and the file is locked for the run.
    path = None if checkpoint is None else check_output(checkpoint, "checkpoint")
    with _locked(path):
        return _prove(
            game,
            position,
            r,
            seconds,
            nbytes,
            path,
            split,
            verify,
            backend,
            address,
            progress,
            n,
            every,
        )


# Runs this long or longer (or with no time limit) ask for huge pages for a large table: they
# spare a long search most TLB misses, but each 2 MiB page's first touch is slow (zeroed, and
# memory compacted to find it). A 0.2 s proof of 7 x 7 in a fresh 256 MiB table searched 256
# positions with huge pages and 171,200 in 64 MiB of small ones, on a machine whose memory
# another process had fragmented.
LONG_RUN = 60.0


def huge_pages_for(seconds: float | None) -> bool | None:
    """A table's ``huge_pages`` for a run of ``seconds``: None (by the table's size) for a
    long run, False for a short one."""
    return None if seconds is None or seconds >= LONG_RUN else False


class _Searched:
    """Counts the positions a proof's searches take, an interrupted search's too (the binding
    puts its count on the exception): a checkpoint saved on Ctrl-C records them."""

    def __init__(self, earlier: int) -> None:
        self.total = earlier

    def prove(self, *args: Any, **kw: Any) -> Any:
        try:
            found = _core.prove(*args, **kw)
        except BaseException as e:
            self.total += getattr(e, "positions", 0)
            raise
        self.total += found[2]
        return found


def _prove(
    game: Any,
    position: str,
    r: Rules,
    seconds: float | None,
    nbytes: int,
    path: Path | None,
    split: bool,
    verify: bool,
    backend: str,
    address: str | None,
    progress: Callable[[str, int], object] | None,
    threads: int = 1,
    save_every: float | None = None,
) -> Proof:
    """``prove`` once its arguments are checked and the checkpoint is locked."""
    table = _core.ProofTable(nbytes, huge_pages=huge_pages_for(seconds))
    claims = _load(path, position, game.width * game.height, table) if path else _Claims()
    # Every result is derived in this run, from a search through the table (which holds the
    # checkpoint's proofs, so what they prove is proven again at once); the checkpoint's
    # own claims only cross-check it.
    results: dict[int, int] = {}
    lines: dict[int, list[int]] = {}
    sizes: dict[int, int] = {}
    # Groups with no proof either way (a search that ended without a result before its
    # time): more time would not change that.
    stuck: set[int] = set()
    searched = _Searched(claims.positions)
    spent = claims.seconds
    start = _time.perf_counter()
    deadline = None if seconds is None else start + seconds
    groups: list[list[int]] = _core.symmetric_moves(game) if split and game.winner is None else []

    def left() -> float | None:
        return None if deadline is None else max(0.0, deadline - _time.perf_counter())

    unsaved: list[str | None] = [None]

    def save() -> None:
        if path is None:
            return
        # What earlier runs proved and this one has not derived again (it ran out of time)
        # stays claimed, to be cross-checked by the next run.
        moves: dict[str, int | None] = {str(c): w for c, w in claims.claimed.items()}
        moves.update({str(c): w for c, w in results.items()})
        data = {
            "position": position,
            "width": game.width,
            "height": game.height,
            "rules": r.name,
            "moves": moves,
            "lines": {str(c): line for c, line in lines.items()},
            "checked": {str(c): n for c, n in sizes.items()},
            "positions": searched.total,
            "seconds": spent + _time.perf_counter() - start,
        }
        # A save that fails (a full disk) does not end the search: the result stands, and the
        # failure is reported with it (``Proof.unsaved``) unless a later save succeeds.
        try:
            _save(path, data, table.proofs(SAVE_MIN_WORK))
        except FileError as e:
            unsaved[0] = str(e)
        else:
            unsaved[0] = None

    def report(message: str) -> Callable[..., None] | None:
        if progress is None:
            return None
        base = searched.total

        def tick(done: int, walked: int = 0) -> None:
            # With ``verify``, once the proof is found its check walks it: the count is then
            # the positions walked, not searched.
            if walked:
                progress(f"{message}, checking its proof", walked)
            else:
                progress(message, base + done)

        return tick

    def is_open(group: list[int]) -> bool:
        return group[0] not in results and group[0] not in stuck

    def settle(
        cell: int | None,
        winner: int | None,
        line: list[int],
        checked: int | None,
        stopped: bool,
    ) -> int | None:
        """Takes one search's result (``cell``: the group's first move, None for the
        position); returns the winner it establishes, if any."""
        where = "the position" if cell is None else f"after {game.cell_name(cell)}"
        if winner is not None and verify and checked is None and not stopped:
            source = f" read from the checkpoint {path}" if path is not None else ""
            raise (FileError if path is not None else InvalidProofError)(
                f"the proof that player {PLAYER_LETTERS[winner]} wins {where} did not check: "
                f"walking it found a game that player does not win; the proofs{source} "
                "are wrong" + (" (delete or move the checkpoint)" if path else "")
            )
        if winner is None or (verify and checked is None):
            if not stopped and cell is not None:
                stuck.add(cell)
            return None
        claim = claims.claimed.get(cell) if cell is not None else None
        if claim is not None and claim != winner:
            raise FileError(
                f"invalid checkpoint {path}: it claims player {PLAYER_LETTERS[claim]} wins "
                f"{where}, but its proofs prove player {PLAYER_LETTERS[winner]} does "
                "(the file was altered; delete or move it)"
            )
        if cell is not None:
            results[cell] = winner
            lines[cell] = line
            if checked is not None:
                sizes[cell] = checked
        return winner

    root_winner: int | None = None
    root_line: list[int] = []
    root_checked = None
    try:
        if not groups:
            # With a checkpoint, the search runs in parts of ``save_every`` seconds, each
            # followed by a save; the next part goes on from the same table.
            every = save_every if path is not None else None
            while True:
                budget = left()
                if every is not None:
                    budget = every if budget is None else min(budget, every)
                winner, line, _, _, root_checked, stopped = searched.prove(
                    game, table, budget, report("the position"), 0.1, verify, threads
                )
                if settle(None, winner, line, root_checked, stopped) is not None:
                    root_winner, root_line = winner, line
                    break
                if not stopped or every is None or (deadline is not None and left() == 0):
                    break
                save()
                if winner is not None:
                    # Proven, but the walk that checks the proof ran out of the part's time:
                    # it starts again from the root each part, so the next part has all the
                    # time left, or it might never finish.
                    every = None
        else:
            if backend == "ray":
                searched.total += _prove_on_ray(
                    game,
                    [g for g in groups if is_open(g)],
                    settle,
                    table,
                    left(),
                    nbytes,
                    verify,
                    address,
                    progress,
                    threads,
                )
            else:
                # The position first, whole: df-pn's own order through the groups proves
                # them sooner than group after group (5 x 6 Color Wars: 89 M positions
                # against 117 M), and every group it proves is read from the table. Where
                # the mover wins it needs one group: the others are proven after, in slices.
                _root_first(
                    searched,
                    game,
                    table,
                    groups,
                    is_open,
                    settle,
                    left,
                    save,
                    report,
                    verify,
                    threads,
                    save_every if path is not None else None,
                )
                slice_ = FIRST_SLICE
                while True:
                    open_groups = [g for g in groups if is_open(g)]
                    if not open_groups or (deadline is not None and left() == 0):
                        break
                    for group in open_groups:
                        budget = slice_ if deadline is None else min(slice_, left() or 0.0)
                        if budget <= 0:
                            break
                        child = game.copy()
                        child.play(group[0])
                        done = len(groups) - len(open_groups)
                        name = (
                            f"after {game.cell_name(group[0])} "
                            f"({done} of {len(groups)} groups proven, {slice_:.0f} s slices)"
                        )
                        winner, line, _, _, checked, stopped = searched.prove(
                            child,
                            table,
                            budget,
                            report(name),
                            0.1,
                            verify,
                            threads,
                            first=game.to_move,
                        )
                        settle(group[0], winner, line, checked, stopped)
                        save()
                    slice_ *= 2
            mover = game.to_move
            wins = [c for c, w in results.items() if w == mover]
            reps = {g[0] for g in groups}
            if wins:
                root_winner = mover
                best = min(wins)
                root_line = [best, *lines.get(best, [])]
            elif reps and all(results.get(c) == 1 - mover for c in reps):
                root_winner = 1 - mover
                hardest = max(reps, key=lambda c: len(lines.get(c, [])))
                root_line = [hardest, *lines.get(hardest, [])]
    except BaseException:
        # What was proven is saved even when the run stops (Ctrl-C, an error); a failure to
        # save then must not hide why the run stopped.
        save()
        raise
    save()
    moves = {g[0]: results.get(g[0]) for g in groups}
    complete = all(w is not None for w in moves.values()) if groups else root_winner is not None
    if not verify:
        checked = None
    elif groups:
        checked = sum(sizes[g[0]] for g in groups) if complete else None
    else:
        checked = root_checked
    return Proof(
        game.width,
        game.height,
        r.name,
        position,
        root_winner,
        root_line,
        searched.total,
        spent + _time.perf_counter() - start,
        groups,
        moves,
        complete,
        checked=checked,
        threads=threads,
        filled=table.filled,
        capacity=table.capacity,
        earlier_positions=claims.positions,
        earlier_seconds=claims.seconds,
        unsaved=unsaved[0],
    )


#: Seconds past a split run's time that reading the groups' results from the table may take.
READ_GRACE = 0.2


def _read_groups(
    searched: _Searched,
    game: Any,
    table: Any,
    groups: list[list[int]],
    is_open: Callable[[list[int]], bool],
    settle: Callable[[int | None, int | None, list[int], int | None, bool], int | None],
    left: Callable[[], float | None],
    verify: bool,
    threads: int,
    every_group: bool,
    report: Callable[[str], Callable[..., None] | None],
) -> bool:
    """Settles the open groups whose result the table holds (with ``every_group``, the
    position is proven lost for its mover, so every group is proven: a proof the table has
    lost since is found again). Returns whether some group's
    proofs were found only from its own mover's side (a checkpoint of an earlier version,
    whose groups were proven that way: a search of the whole position would not see them)."""
    other_side = False
    # The position's search tries its mover's win: its proofs of the groups are read from the
    # same side (where positions can repeat, each side's proofs are kept apart, and that
    # search proves "the mover does not win" where the opponent's own search would prove
    # "the opponent wins").
    mover = game.to_move
    late_since: float | None = None
    for group in groups:
        if not is_open(group):
            continue
        # A read takes the time left and the grace at most; once the time is up (the
        # position not proven), the groups not read within the grace stay open (on a big
        # board a read expands a thousand positions or two, seconds' work).
        budget = left()
        if not every_group and budget is not None:
            if budget > 0:
                budget += READ_GRACE
            else:
                late_since = _time.perf_counter() if late_since is None else late_since
                budget = READ_GRACE - (_time.perf_counter() - late_since)
                if budget <= 0:
                    break
        child = game.copy()
        child.play(group[0])
        first: int | None = mover
        if not every_group:
            # Only what the table holds: a search of a thousand or two positions at most
            # (the line included), from the position's side, then from the group's own.
            for side in (mover, None):
                winner, line, _, _, _, _ = searched.prove(
                    child, table, budget, None, 0.1, False, 1, 1, first=side
                )
                if winner is not None:
                    first = side
                    break
            else:
                continue
            other_side |= first is None
            if not verify:
                # The read already gave the line.
                settle(group[0], winner, line, None, False)
                continue
        # Proven: the line (and with ``verify`` the walk, whose progress is reported) from
        # the table.
        tick = report(f"after {game.cell_name(group[0])}") if verify else None
        winner, line, _, _, checked, stopped = searched.prove(
            child, table, left(), tick, 0.1, verify, threads, first=first
        )
        settle(group[0], winner, line, checked, stopped)
    return other_side


def _root_first(
    searched: _Searched,
    game: Any,
    table: Any,
    groups: list[list[int]],
    is_open: Callable[[list[int]], bool],
    settle: Callable[[int | None, int | None, list[int], int | None, bool], int | None],
    left: Callable[[], float | None],
    save: Callable[[], None],
    report: Callable[[str], Callable[..., None] | None],
    verify: bool,
    threads: int,
    every: float | None,
) -> None:
    """A split run's first phase: the position searched whole (in parts of ``every``
    seconds with a checkpoint, each followed by a save), then each group's result read from
    the table. A table that starts with proofs (a checkpoint's) is read first; if it holds
    groups proven from their own mover's side only (an earlier version's checkpoint), the
    position is not searched whole: the groups go on in turn, as they were proven."""
    if table.filled > 0:
        other_side = _read_groups(
            searched, game, table, groups, is_open, settle, left, verify, threads, False, report
        )
        if other_side:
            return
    while any(is_open(g) for g in groups):
        budget = left()
        if budget is not None and budget <= 0:
            break
        if every is not None:
            budget = every if budget is None else min(budget, every)
        done = sum(not is_open(g) for g in groups)
        name = f"the position ({done} of {len(groups)} groups proven)"
        winner, _, _, _, _, stopped = searched.prove(
            game, table, budget, report(name), 0.1, False, threads
        )
        lost = winner is not None and winner != game.to_move
        _read_groups(
            searched, game, table, groups, is_open, settle, left, verify, threads, lost, report
        )
        save()
        if winner is not None or not stopped or every is None:
            break


def _prove_on_ray(
    game: Any,
    open_groups: list[list[int]],
    settle: Callable[[int | None, int | None, list[int], int | None, bool], int | None],
    table: Any,
    seconds: float | None,
    memory: int,
    verify: bool,
    address: str | None,
    progress: Callable[[str, int], object] | None,
    threads: int = 1,
) -> int:
    """The open groups as Ray tasks (each with ``threads`` searchers and as many CPUs); their
    results and proofs merged. Returns positions."""
    from colorwars.distributed import _cluster

    if not open_groups:
        return 0
    total = 0
    with _cluster(address) as ray:
        shared = ray.put(table.proofs(SAVE_MIN_WORK))
        task = ray.remote(_prove_group).options(num_cpus=threads, max_retries=1)
        pending = {
            task.remote(game.to_text(), g[0], seconds, memory, shared, verify, threads): g[0]
            for g in open_groups
        }
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            first = pending.pop(ready[0])
            try:
                cell, winner, line, positions, checked, stopped, proofs = ray.get(ready[0])
            except Exception as e:
                for other in pending:
                    ray.cancel(other)
                name = game.cell_name(first)
                raise ShardError(f"the Ray task proving after {name} failed: {e}") from None
            table.add_proofs(proofs)
            total += positions
            settle(cell, winner, line, checked, stopped)
            if progress is not None:
                progress(f"group {game.cell_name(cell)} done on Ray", total)
    return total


def walk_strategy(target: Any, height: int | None = None, rules: RulesLike = DEFAULT_RULES) -> int:
    """Checks a proof on the reference engine alone: proves the position natively, then plays
    every move of the loser and, at the winner's turns, the move the native proofs give (which
    must be legal on the reference engine) to the end of every game, which the winner must
    win. Returns the distinct positions walked; raises ``AssertionError`` if the strategy
    fails (a bug) and ``SearchLimitError`` if nothing is proven. Meant for proofs of up to a
    few hundred thousand positions (the reference engine is pure Python).

    >>> walk_strategy(3, 3, rules="colorwars") > 0
    True
    """
    from colorwars.errors import SearchLimitError
    from colorwars.reference import Game as ReferenceGame

    game = _start(target, height, rules, "walk_strategy")
    text = game.to_text()
    table = _core.ProofTable(default_memory(game.width * game.height))
    winner = _core.prove(game, table)[0]
    if winner is None:
        raise SearchLimitError(f"{text}: not proven")
    seen: set[str] = set()
    stack = [ReferenceGame.from_text(text)]
    while stack:
        pos = stack.pop()
        here = pos.to_text()
        if here in seen:
            continue
        seen.add(here)
        if pos.winner is not None:
            if pos.winner != winner:
                raise AssertionError(f"the strategy loses at {here}")
            continue
        if pos.to_move == winner:
            cell = _core.proven_move(_core.NativeGame.from_text(here), table)
            if cell is None:
                raise AssertionError(f"no proven move for the winner at {here}")
            moves = [cell]
        else:
            moves = pos.legal_moves()
        for cell in moves:
            child = ReferenceGame.from_text(here)
            child.play(cell)
            stack.append(child)
    return len(seen)
