"""``colorwars.ai.Perfect``: perfect play where proof-number search reaches, and from the
first move on the solved boards the package carries a book for.

A book (``colorwars/books/WxH-RULES.book``, one sealed file a board, written and checked by
``tools/make-books``) is the winner's strategy from the empty board: for every position the
winner can reach with it (every reply of the loser's), the winning move the proof-number
search proved, keyed by a hash of the position that is the same for all its symmetric images.
A complete book was walked to the end of every game at build time and wins every one; a book
cut at a ply (``complete`` false) leaves the deeper positions to the player's search.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from colorwars import _core
from colorwars import _validate as check
from colorwars._files import read_sealed
from colorwars.errors import FileError, InvalidPlayerError
from colorwars.players import PLAY_IT, _live, _takes_stop, parse_player
from colorwars.rules import Rules
from colorwars.strongest import strongest

__all__ = [
    "BOOK_VERSION",
    "Book",
    "Perfect",
    "PerfectDecision",
    "book_for",
    "books",
    "position_key",
    "read_book",
    "walk_book",
]

#: The format of ``.book`` files (``colorwars book 1``: a sealed file).
BOOK_VERSION = 1
#: The proof table of a ``Perfect`` player, per board it plays, unless told.
TABLE_BYTES = 256 << 20
#: The most boards whose proof tables a ``Perfect`` keeps (the most recently played).
BOARDS = 4
# A book entry: the position's key and the winning cell in the key's frame.
ENTRY = np.dtype([("key", "<u8"), ("cell", "<u2")])


class PerfectDecision(NamedTuple):
    """What ``Perfect.search`` did: the ``cell``, the positions searched (``work``), the
    ``seconds``, and ``kind``: ``"win"`` (a proven win for the player to move, from the book
    or the search; ``plies`` is the game's length from here with the fastest win when the
    exact solver reached it), ``"hold"`` (a proven loss: the move that holds out longest when
    the exact solver reached the lengths, else the fallback's) or ``"fallback"`` (nothing
    proven: the fallback's move). ``book`` says whether the move came from the book."""

    cell: int
    work: int
    seconds: float
    kind: str
    plies: int | None = None
    book: bool = False


@cache
def _symmetries(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The board's symmetries as cell permutations (``image[cell]``): the four that keep a
    rectangle, the eight of a square."""
    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda x, y: (x, y),
        lambda x, y: (width - 1 - x, y),
        lambda x, y: (x, height - 1 - y),
        lambda x, y: (width - 1 - x, height - 1 - y),
    ]
    if width == height:
        maps += [
            lambda x, y: (y, x),
            lambda x, y: (height - 1 - y, x),
            lambda x, y: (y, width - 1 - x),
            lambda x, y: (height - 1 - y, width - 1 - x),
        ]
    perms = []
    for f in maps:
        perm = [0] * (width * height)
        for cell in range(width * height):
            x, y = f(cell % width, cell // width)
            perm[cell] = y * width + x
        perms.append(tuple(perm))
    return tuple(perms)


def position_key(native: Any) -> tuple[int, tuple[int, ...]]:
    """A 64-bit key of the position that all its symmetric images share, and the symmetry
    that takes it to the image the key is made from (``image[cell]``): a move ``m`` of the
    position is ``image[m]`` in the key's frame."""
    counts, owners = native.counts(), native.owners()
    rest = bytes(
        [native.to_move, sum(1 << p for p in native.moved), sum(1 << p for p in native.out)]
    )
    best: tuple[bytes, tuple[int, ...]] | None = None
    for image in _symmetries(native.width, native.height):
        board = bytearray(2 * len(counts))
        for cell, to in enumerate(image):
            board[2 * to] = counts[cell]
            board[2 * to + 1] = owners[cell] + 1 if counts[cell] else 0
        text = bytes(board) + rest
        if best is None or text < best[0]:
            best = (text, image)
    assert best is not None
    digest = hashlib.blake2b(best[0], digest_size=8).digest()
    return int.from_bytes(digest, "little"), best[1]


@dataclass(frozen=True)
class Book:
    """A board's book: the winner's move for each position of its strategy (``moves``: key
    -> cell in the key's frame, see ``position_key``), whether the strategy is whole to the
    end of every game (``complete``) or cut at ``plies``, and where it came from."""

    width: int
    height: int
    rules: str
    winner: int
    complete: bool
    plies: int
    path: str
    moves: dict[int, int] = field(repr=False)

    def move(self, native: Any) -> int | None:
        """The book's winning move in this position (a cell of the board), or None."""
        if native.to_move != self.winner:
            return None
        key, image = position_key(native)
        cell = self.moves.get(key)
        if cell is None:
            return None
        return image.index(cell)


def walk_book(book: Book) -> int:
    """Plays every game of ``book``'s strategy from the empty board on the native engine: the
    loser every legal move, the winner the book's (which must be legal) until the strategy
    runs out (a book cut at a ply) or the game ends, which the winner must win; raises
    ``AssertionError`` where it does not. Returns the distinct positions walked."""
    start = _core.NativeGame(check.config(book.width, book.height, 2, book.rules))
    stack, seen = [start], set()
    while stack:
        pos = stack.pop()
        if pos.winner is not None:
            if pos.winner != book.winner:
                raise AssertionError(f"{book.path}: the book loses at {pos.to_text()}")
            continue
        key, _ = position_key(pos)
        if key in seen:
            continue
        seen.add(key)
        if pos.to_move == book.winner:
            cell = book.move(pos)
            if cell is None and not book.complete:
                continue  # past the book's last ply
            if cell is None or not pos.is_legal(cell):
                raise AssertionError(f"{book.path}: no legal book move at {pos.to_text()}")
            replies = [cell]
        else:
            replies = pos.legal_moves()
        for cell in replies:
            child = _core.NativeGame.from_text(pos.to_text())
            child.play(cell)
            stack.append(child)
    return len(seen)


def _books_folder() -> Path:
    return Path(str(resources.files("colorwars") / "books"))


def books() -> list[tuple[int, int, str]]:
    """The boards the package has a book for: (width, height, rules name)."""
    found = []
    folder = _books_folder()
    if folder.is_dir():
        for path in sorted(folder.glob("*.book")):
            size, _, rules = path.stem.partition("-")
            w, _, h = size.partition("x")
            if w.isdigit() and h.isdigit():
                found.append((int(w), int(h), rules))
    return found


def read_book(path: str | os.PathLike[str]) -> Book:
    """The book in ``path``; ``FileError`` naming it if it is missing, damaged (a digest that
    does not match) or not a book of this format."""
    sealed = read_sealed(path, "book", BOOK_VERSION, "book")
    if sealed is None:
        raise FileError(f"invalid book {os.fspath(path)}: there is no such file")
    header, body = sealed

    def bad(reason: str) -> FileError:
        return FileError(f"invalid book {os.fspath(path)}: {reason}")

    try:
        width, height, rules = int(header["width"]), int(header["height"]), str(header["rules"])
        winner, count = int(header["winner"]), int(header["entries"])
        complete, plies = bool(header["complete"]), int(header["plies"])
    except (KeyError, TypeError, ValueError):
        raise bad("its header lacks the board, the winner or the entries") from None
    if winner not in (0, 1) or len(body) != count * ENTRY.itemsize:
        raise bad(f"its header does not match its body ({len(body)} bytes, {count} entries)")
    entries = np.frombuffer(body, dtype=ENTRY)
    if count and int(entries["cell"].max()) >= width * height:
        raise bad("a move is not a cell of the board")
    moves = dict(zip(entries["key"].tolist(), entries["cell"].tolist(), strict=True))
    return Book(width, height, rules, winner, complete, plies, os.fspath(path), moves)


@cache
def _packaged(width: int, height: int, rules: str) -> Book | None:
    path = _books_folder() / f"{width}x{height}-{rules}.book"
    return read_book(path) if path.is_file() else None


def book_for(width: int, height: int, rules: str) -> Book | None:
    """The packaged book of a board (read once, then kept), or None where there is none."""
    return _packaged(width, height, rules)


class _OutOfTimeError(Exception):
    """Raised inside a search of the move when its time is up or a ``stop`` came."""


def _stopped(stop: Any) -> bool:
    return stop is not None and bool(stop.is_set())


class _Until:
    """A ``stop`` set at ``deadline`` or when the caller's ``stop`` is: a fallback of the
    user's own that takes ``stop`` ends with the move's time, whatever its own budget."""

    def __init__(self, deadline: float, stop: Any) -> None:
        self.deadline, self.stop = deadline, stop

    def is_set(self) -> bool:
        return _time.perf_counter() >= self.deadline or _stopped(self.stop)


def _exact_table_bits(seconds: float) -> int:
    """The most the exact solver's table may grow to in a search of ``seconds``: 2^bits
    entries of 24 bytes, from 2^18 (6 MiB) to 2^24 (384 MiB), about one for every two
    positions it can search (some two million a second). A table larger than the search
    can use costs its pages' faults and their release within the move (with a fixed 2^25
    table the solver was three times slower on 4 x 5 and ran the move 0.1 s past its time)."""
    return int(min(max(math.log2(max(2e6 * seconds, 1.0)), 18), 24))


def _exact(native: Any, deadline: float, stop: Any = None) -> tuple[int, int, int] | None:
    """The position's exact (winner, plies, first move of the line) from the exact solver if
    it finishes by ``deadline`` (and before ``stop`` is set), else None. The line's first move
    is the fastest win or the longest hold; the root alone is searched, not every move's own
    exact result (2.6 times less work over 31 positions of 4 x 4, 4 x 5 and 3 x 4 classic)."""
    if _time.perf_counter() >= deadline or _stopped(stop):
        return None

    def tick(positions: int) -> None:
        if _time.perf_counter() >= deadline or _stopped(stop):
            raise _OutOfTimeError

    bits = _exact_table_bits(deadline - _time.perf_counter())
    try:
        found = _core.solve_position(
            native, 200, moves=False, progress=tick, interval=0.01, table_bits=bits
        )
    except _OutOfTimeError:
        return None
    if found is None or not found[2]:
        return None
    return found[0], found[1], found[2][0]


def _prove(native: Any, table: Any, seconds: float, stop: Any) -> tuple[int | None, list[int], int]:
    """Proof-number search of the position for ``seconds`` at most: (winner or None, line,
    positions). A ``stop`` ends it as the time does (what it proved stays in the table, and a
    proof finished before it was set is kept)."""
    if _stopped(stop):
        return None, [], 0
    winner, line, work, _, _, _ = _core.prove(native, table, seconds, stop=stop)
    return winner, line, work


def _table_bytes(memory: object) -> int:
    """The proof table's bytes: an int, or a size such as ``"256M"`` or ``"1G"`` (as
    ``prove``'s ``memory``), from 1 MiB to 1 TiB."""
    if isinstance(memory, str):
        from colorwars.errors import ConfigError
        from colorwars.proof import _parse_memory

        try:
            memory = _parse_memory(memory)
        except ConfigError:
            check.fail(
                InvalidPlayerError,
                "memory",
                memory,
                "expected the table's size in bytes from 1 MiB to 1 TiB, an int or a size "
                "such as 256M or 1G",
            )
    return check.table_bytes(memory, 1 << 20, 1 << 40, InvalidPlayerError)


class Perfect:
    """Perfect play where it is proven: each move, the package's book of the board (if it
    has one and the player to move is the winner) gives the winning move at once; else
    proof-number search (``time`` seconds at most, one proof table per board kept across
    the player's moves, for its last ``BOARDS`` boards) decides the position if it can. A
    proven win plays a winning move (the fastest when the exact solver also finishes in
    time); a proven loss plays the move that holds out longest (when the exact solver gives
    the lengths; else the fallback's); anything else is the ``fallback`` player's move
    (``"strongest"``: the strongest at about a second for the game, ``colorwars.strongest``,
    with the time left: Zero on the classic boards it plays, alpha-beta with the learned
    evaluation elsewhere, MCTS for more than two players; or any player or name).
    ``search`` says which it did. Two players for the proofs; with more, it is its
    fallback. A fallback of your own whose ``search``
    takes ``stop`` (every player of this package) is stopped when the move's time is up, at
    the latest (a tenth of ``time`` after the proof search, where that took it all); one
    that does not take ``stop`` plays by its own budget."""

    def __init__(
        self,
        time: float = 1.0,
        fallback: Any = "strongest",
        seed: int = 0,
        *,
        memory: int | str = TABLE_BYTES,
        book: bool = True,
    ) -> None:
        budget = check.time_budget(time, optional=False)
        assert budget is not None
        self.time: float = budget
        self.seed = check.seed(seed)
        self.memory = _table_bytes(memory)
        self.book = check.flag(book, "book")
        if isinstance(fallback, str) and fallback.strip().lower() == "strongest":
            self.fallback: Any = None
        else:
            self.fallback = parse_player(fallback) if isinstance(fallback, str) else fallback
            if isinstance(self.fallback, type) or not callable(
                getattr(self.fallback, "choose", None)
            ):
                check.fail(InvalidPlayerError, "fallback", fallback, "expected a player")
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """``perfect(1s)``, or ``perfect(1s)[fallback=mcts(1000)]``."""
        base = f"perfect({self.time:g}s)"
        return base if self.fallback is None else f"{base}[fallback={self.fallback.name}]"

    def __repr__(self) -> str:
        """Every setting that differs from the default, as the call that makes it."""
        parts = [f"time={self.time:g}"]
        if self.fallback is not None:
            parts.append(f"fallback={self.fallback!r}")
        parts.append(f"seed={self.seed}")
        if self.memory != TABLE_BYTES:
            parts.append(f"memory={self.memory}")
        if not self.book:
            parts.append("book=False")
        return f"Perfect({', '.join(parts)})"

    def native_spec(self) -> Any:
        raise InvalidPlayerError(
            f"invalid player: {self.name} searches proofs and is not one of the engine's batch "
            "players; " + PLAY_IT
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (sent to another process, a Ray worker) without its tables and lock: the
        tables are rebuilt as it plays."""
        return {
            "time": self.time,
            "fallback": "strongest" if self.fallback is None else self.fallback,
            "seed": self.seed,
            "memory": self.memory,
            "book": self.book,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["time"],
            state["fallback"],
            state["seed"],
            memory=state["memory"],
            book=state["book"],
        )

    def _table(self, native: Any) -> Any:
        """The board's table; the ``BOARDS`` most recently played boards keep theirs (each
        ``memory`` bytes), so a player taken across many boards does not grow without end."""
        rules = Rules(native.opening, native.burst).name
        key = f"{native.width}x{native.height} {rules}"
        table = self._tables.pop(key, None)
        if table is None:
            while len(self._tables) >= BOARDS:  # the oldest goes before the new one is made
                self._tables.pop(next(iter(self._tables)))
            # Small pages: a huge page's first touch is slow (0.2 to 0.5 s for a new 256 MiB
            # table's first 4 x 4 proof against 0.01 s), and a move's time is short.
            table = _core.ProofTable(self.memory, huge_pages=False)
        self._tables[key] = table  # last: the most recent
        return table

    def _fallback_move(self, game: Any, native: Any, left: float, stop: Any = None) -> int:
        """The fallback's move in ``left`` seconds (a tenth of the move at least): the
        strongest is made with that time; a fallback of the user's own whose ``search`` takes
        ``stop`` is stopped then (or when ``stop`` is set)."""
        player = self.fallback
        seconds = max(left, 0.1 * self.time, 0.001)
        if player is None:
            player = strongest(
                native.players, Rules(native.opening, native.burst), native.width,
                native.height, time=seconds, seed=self.seed,
            )  # fmt: skip
        else:
            stop = _Until(_time.perf_counter() + seconds, stop)
        search = getattr(player, "search", None)
        if stop is not None and search is not None and _takes_stop(search):
            return int(search(game, stop=stop).cell)
        return int(player.choose(game))

    def search(self, game: Any, stop: Any = None) -> PerfectDecision:
        """The move and what it rests on (see ``PerfectDecision``); ``GameOverError`` once the
        game is won; Ctrl-C stops it. ``stop`` (anything with ``is_set()``, such as a
        ``threading.Event``; the engine's ``stop`` command) ends the search early: the proof
        search stops (what it proved stays in the player's table, and a win or loss it proved
        is played as usual), and where nothing is proven the move is the fallback's, which is
        stopped too if its ``search`` takes ``stop``."""
        check.stop_flag(stop)
        native = _live(game)
        start = _time.perf_counter()
        deadline = start + self.time
        if native.players != 2:
            cell = self._fallback_move(game, native, self.time, stop)
            return PerfectDecision(cell, 0, _time.perf_counter() - start, "fallback")
        if self.book:
            rules = Rules(native.opening, native.burst).name
            found = book_for(native.width, native.height, rules)
            known = found.move(native) if found is not None else None
            if known is not None and native.is_legal(known):
                return PerfectDecision(known, 0, _time.perf_counter() - start, "win", book=True)
        with self._lock:
            table = self._table(native)
            # Most of the time for the proof; what is left finds the lengths or the fallback.
            winner, line, work = _prove(native, table, 0.7 * self.time, stop)
        mover = native.to_move
        kind, plies = "fallback", None
        if winner is not None and line:
            # A proven loss whose lengths the exact solver does not find falls back, with at
            # least a tenth of the move (`_fallback_move`): that tenth is kept out of the
            # solver's time, so the move stays within `time`.
            reserve = 0.1 * self.time if winner != mover else 0.0
            exact = _exact(native, deadline - reserve, stop)
            if exact is not None and exact[0] != winner:  # never seen; the proof is played
                exact = None
            if winner == mover:
                kind, cell = "win", line[0]
                if exact is not None:  # the fastest win
                    _, plies, cell = exact
            else:
                kind = "hold"
                if exact is not None:  # the longest hold
                    _, plies, cell = exact
                else:
                    left = deadline - _time.perf_counter()
                    cell = self._fallback_move(game, native, left, stop)
        else:
            cell = self._fallback_move(game, native, deadline - _time.perf_counter(), stop)
        return PerfectDecision(int(cell), int(work), _time.perf_counter() - start, kind, plies)

    def choose(self, game: Any) -> int:
        """The move: ``search(game).cell``."""
        return self.search(game).cell
