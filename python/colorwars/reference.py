"""The pure-Python reference engine.

Written to be read next to ``seeds/RULES.md``: plain lists, the rules in the order the rules
document states them, and no code shared with the native engine's rules or notation. It has the
same interface as ``colorwars.Game``; the test suite plays both side by side and requires
identical results after every move.

A game may be shared by threads: every public method that reads or changes its state holds
the game's own lock (a ``threading.RLock``). Every loop ends, even on a state that breaks the
rules' invariants: a cascade that would repeat a position (and so never end) and a turn order
with no player left raise ``InvalidPositionError``.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, TypeVar

from colorwars import _validate as check
from colorwars._common import (
    PLAYER_LETTERS,
    Move,
    Wave,
    coerce_move,
    column_name,
    notation_text,
    render_board,
    render_svg,
    status_line,
)
from colorwars.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidIndexError,
    InvalidMoveError,
    InvalidPositionError,
)
from colorwars.rules import Rules, RulesLike

__all__ = ["Game"]

MIN_SIDE, MAX_SIDE = check.MIN_SIDE, check.MAX_SIDE
MIN_PLAYERS, MAX_PLAYERS = check.MIN_PLAYERS, check.MAX_PLAYERS

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[Game, _P], _R]) -> Callable[Concatenate[Game, _P], _R]:
    """The method, run holding the game's lock (re-entrant: a method may call another)."""

    def run(self: Game, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(run, method)  # its name and docstring
    return run


@dataclass
class _State:
    """Everything a move changes (a copy of it is the undo record)."""

    counts: list[int]
    owners: list[int]  # -1: nobody
    to_move: int
    moved: set[int] = field(default_factory=set)
    out: set[int] = field(default_factory=set)
    winner: int | None = None
    ply: int = 0

    def copy(self) -> _State:
        return _State(
            list(self.counts),
            list(self.owners),
            self.to_move,
            set(self.moved),
            set(self.out),
            self.winner,
            self.ply,
        )


class Game:
    """A game on the reference engine; the same interface as ``colorwars.Game``."""

    def __init__(
        self,
        width: int = 5,
        height: int = 5,
        players: int = 2,
        rules: RulesLike = "colorwars",
        first: int = 0,
    ) -> None:
        # Arguments are checked by the same function as the native engine's (one place
        # validates); the rules below are this module's own.
        c = check.config(width, height, players, rules, first)
        self._rules = c.rules
        width, height, players, first = c.width, c.height, c.players, c.first
        self._width = width
        self._height = height
        self._players = players
        cells = width * height
        self._lock = threading.RLock()
        self._state = _State([0] * cells, [-1] * cells, first)
        # Each entry: (the state before the move, the move, the move's waves).
        self._history: list[tuple[_State, int, list[Wave]]] = []

    # -- geometry (RULES.md §1) -------------------------------------------------------------
    def _neighbours(self, cell: int) -> list[int]:
        """Orthogonal neighbours only; no diagonals."""
        x, y = cell % self._width, cell // self._width
        result = []
        if y > 0:
            result.append(cell - self._width)
        if x > 0:
            result.append(cell - 1)
        if x < self._width - 1:
            result.append(cell + 1)
        if y < self._height - 1:
            result.append(cell + self._width)
        return result

    def _capacity(self, cell: int) -> int:
        """A cell holds at most degree - 1 orbs at rest; degree is its critical mass."""
        return len(self._neighbours(cell)) - 1

    # -- moves (RULES.md §2) ----------------------------------------------------------------
    def _is_first_move(self, player: int) -> bool:
        return player not in self._state.moved

    @_locked
    def legal_moves(self) -> list[int]:
        s = self._state
        if s.winner is not None:
            return []
        p = s.to_move
        empty = [c for c in range(len(s.counts)) if s.counts[c] == 0]
        own = [c for c in range(len(s.counts)) if s.owners[c] == p]
        if self._rules.opening == "drop3":
            # The opening drop goes on an empty cell; every later orb on an own cell.
            return empty if self._is_first_move(p) else own
        # classic: one orb on an empty or own cell, always.
        return sorted(empty + own)

    @_locked
    def play(self, move: Move) -> int:
        cell = self.cell(move)
        s = self._state
        if s.winner is not None:
            raise GameOverError(
                f"illegal move: the game is over (player {PLAYER_LETTERS[s.winner]} has won); "
                "no move is allowed"
            )
        if cell not in self.legal_moves():
            raise IllegalMoveError(
                f"illegal move {self.cell_name(cell)} (cell {cell}): {self._why_illegal()}"
            )
        before = s.copy()
        try:
            waves = self._apply(cell)
        except InvalidPositionError:  # a broken state (see _apply): left as it was
            self._state = before
            raise
        self._history.append((before, cell, waves))
        return cell

    def _why_illegal(self) -> str:
        p = PLAYER_LETTERS[self._state.to_move]
        if self._rules.opening == "drop3":
            if self._is_first_move(self._state.to_move):
                return f"player {p} opens with three orbs on an empty cell, and this one is taken"
            return f"after the opening, player {p} may only add an orb to a cell of their own"
        return f"player {p} may only place on an empty cell or a cell of their own"

    def _apply(self, cell: int) -> list[Wave]:
        s = self._state
        mover = s.to_move
        first_move = self._is_first_move(mover)
        s.moved.add(mover)
        s.ply += 1
        # RULES.md §1: elimination applies once every player has had a turn (this one included).
        elimination = len(s.moved) == self._players
        waves: list[Wave] = []
        if self._rules.opening == "drop3" and first_move:
            # RULES.md §2: the opening drop puts three orbs on the cell. It is not an arrival,
            # so it never bursts, even on a corner that holds one.
            s.counts[cell] = 3
            s.owners[cell] = mover
        else:
            s.counts[cell] += 1
            s.owners[cell] = mover
            unstable = [cell] if s.counts[cell] > self._capacity(cell) else []
            # A cascade is a function of (counts, owners, unstable cells), whose values are
            # bounded (a cell's count never rises above max(its count, 2 x degree - 1)): a
            # cascade that does not end must repeat one. RULES.md §3.3 proves that no cascade
            # of a state the rules reach does, so a repeat (caught by Brent's method: the
            # state at each power of two waves kept and compared) means a broken state.
            kept: tuple[tuple[int, ...], ...] | None = None
            power, since = 1, 0
            while unstable:
                wave = self._wave(unstable, mover)
                waves.append(wave)
                # RULES.md §3.3: stop as soon as no opponent of the mover holds an orb.
                if elimination and all(
                    o == mover for o, n in zip(s.owners, s.counts, strict=True) if n > 0
                ):
                    break
                # RULES.md §2: next unstable are the cells over capacity that gained an orb or
                # have just burst (an untouched opening cell above capacity stays put).
                touched = set(unstable)
                for c in unstable:
                    touched.update(self._neighbours(c))
                unstable = sorted(c for c in touched if s.counts[c] > self._capacity(c))
                now = (wave.counts, wave.owners, tuple(unstable))
                if now == kept:
                    raise InvalidPositionError(
                        f"invalid position: the cascade of move {self.cell_name(cell)} repeats "
                        f"a position after {len(waves)} waves and would never end; the game's "
                        "state breaks the rules (was it changed by hand, or by threads "
                        "without the game's lock?)"
                    )
                since += 1
                if since == power:
                    kept, power, since = now, power * 2, 0
        self._finish_turn(mover, elimination)
        return waves

    def _wave(self, unstable: list[int], mover: int) -> Wave:
        """RULES.md §3.1: every unstable cell bursts at once. First each bursting cell is
        reduced; then each cell gains one orb per bursting neighbour and becomes the mover's."""
        s = self._state
        for c in unstable:
            if self._rules.burst == "empty":
                s.counts[c] = 0
            else:
                s.counts[c] -= len(self._neighbours(c))
        for c in unstable:
            for n in self._neighbours(c):
                s.counts[n] += 1
                s.owners[n] = mover
        for c in unstable:
            if s.counts[c] == 0:
                s.owners[c] = -1  # a cell with no orbs has no owner
        return Wave(tuple(unstable), tuple(s.counts), tuple(s.owners))

    def _finish_turn(self, mover: int, elimination: bool) -> None:
        """RULES.md §3.6: players without orbs are out once everyone has moved; the last one
        holding orbs wins; turns go round skipping players who are out."""
        s = self._state
        if elimination:
            for p in range(self._players):
                if p != mover and p not in s.out and p not in s.owners:
                    s.out.add(p)
            if len(s.out) == self._players - 1:
                s.winner = mover
        # Bounded by the players: the mover is not out, so the search ends by the mover at
        # the latest; a state where everyone is out is broken.
        for step in range(1, self._players + 1):
            nxt = (mover + step) % self._players
            if nxt not in s.out:
                s.to_move = nxt
                return
        raise InvalidPositionError(
            "invalid position: every player is out, so no one is left to move; the game's "
            "state breaks the rules"
        )

    @_locked
    def pop(self) -> int:
        if not self._history:
            raise InvalidIndexError("nothing to undo: no move has been played on this game")
        before, cell, _ = self._history.pop()
        self._state = before
        return cell

    @_locked
    def peek(self) -> int | None:
        return self._history[-1][1] if self._history else None

    @_locked
    def moves(self) -> list[int]:
        return [cell for _, cell, _ in self._history]

    @_locked
    def waves(self) -> list[Wave]:
        return list(self._history[-1][2]) if self._history else []

    @_locked
    def is_legal(self, move: Move) -> bool:
        try:
            return self.cell(move) in self.legal_moves()
        except InvalidMoveError:
            return False

    def cell(self, move: Move) -> int:
        return coerce_move(move, self._width, self._height, self._parse_cell)

    def _parse_cell(self, name: str) -> int:
        # ASCII only, no surrounding space: the same inputs the native engine accepts.
        text = name.lower() if name.isascii() else "\x00"
        letters = ""
        while text and "a" <= text[0] <= "z":
            letters, text = letters + text[0], text[1:]
        allowed = (
            f"cells are named by a column letter a to {column_name(self._width - 1)} "
            f"and a row number 1 to {self._height}"
        )
        if not letters or not text or len(letters) > 3 or not text.isascii():
            raise InvalidMoveError(f"invalid move: {name!r} is not a cell name: {allowed}")
        if not text.isdigit() or len(text) > 6:
            raise InvalidMoveError(f"invalid move: {name!r} is not a cell name: {allowed}")
        x = 0
        for ch in letters:
            x = x * 26 + (ord(ch) - ord("a") + 1)
        x -= 1
        row = int(text)
        if x >= self._width or not 1 <= row <= self._height:
            raise InvalidMoveError(f"invalid move: {name!r} is not on this board: {allowed}")
        return (row - 1) * self._width + x

    def cell_name(self, cell: int) -> str:
        c = self.cell(cell)
        return f"{column_name(c % self._width)}{c // self._width + 1}"

    # -- state ------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self._width

    @property
    def height(self) -> int:
        return self._height

    @property
    def cells(self) -> int:
        return self._width * self._height

    @property
    def players(self) -> int:
        return self._players

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    @_locked
    def to_move(self) -> int:
        return self._state.to_move

    @property
    @_locked
    def winner(self) -> int | None:
        return self._state.winner

    @property
    @_locked
    def is_over(self) -> bool:
        return self._state.winner is not None

    @property
    @_locked
    def ply(self) -> int:
        return self._state.ply

    @property
    @_locked
    def moved(self) -> list[int]:
        return sorted(self._state.moved)

    @property
    @_locked
    def out(self) -> list[int]:
        return sorted(self._state.out)

    @_locked
    def counts(self) -> list[int]:
        return list(self._state.counts)

    @_locked
    def owners(self) -> list[int]:
        return list(self._state.owners)

    @_locked
    def orbs(self, player: int) -> int:
        player = check.seat(player, self._players)
        s = self._state
        return sum(n for n, o in zip(s.counts, s.owners, strict=True) if o == player)

    @_locked
    def copy(self) -> Game:
        g = Game.__new__(Game)
        g._rules, g._width, g._height, g._players = (
            self._rules,
            self._width,
            self._height,
            self._players,
        )
        g._lock = threading.RLock()  # the copy's own
        g._state = self._state.copy()
        g._history = [(st.copy(), c, list(w)) for st, c, w in self._history]
        return g

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
        del state["_lock"]  # a lock does not pickle; the unpickled game makes its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return self.copy()

    # -- notation ---------------------------------------------------------------------------
    @_locked
    def to_text(self) -> str:
        s = self._state
        rows = []
        for y in range(self._height):
            row = ""
            for x in range(self._width):
                i = y * self._width + x
                row += "." if s.counts[i] == 0 else f"{s.counts[i]}{PLAYER_LETTERS[s.owners[i]]}"
            rows.append(row)

        def players_field(ps: set[int]) -> str:
            return "".join(PLAYER_LETTERS[p] for p in sorted(ps)) or "-"

        return " ".join(
            [
                f"{self._width}x{self._height}",
                self._rules.name,
                str(self._players),
                "/".join(rows),
                PLAYER_LETTERS[s.to_move],
                players_field(s.moved),
                players_field(s.out),
                str(s.ply),
            ]
        )

    @classmethod
    def from_text(cls, text: str) -> Game:
        return _parse_position(notation_text(text))

    # -- presentation -----------------------------------------------------------------------
    @_locked
    def __str__(self) -> str:
        board = render_board(self._width, self._state.counts, self._state.owners)
        return f"{board}\n{status_line(self.to_move, self.winner, self.ply)}"

    def __repr__(self) -> str:
        return f"colorwars.reference.Game.from_text({self.to_text()!r})"

    @_locked
    def _repr_svg_(self) -> str:
        """The board as a picture in notebooks."""
        return render_svg(self._width, self._state.counts, self._state.owners)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        # Each text under its own game's lock, never both locks at once (no deadlock when
        # two threads compare a == b and b == a).
        mine = self.to_text()
        return mine == other.to_text()

    __hash__ = None  # type: ignore[assignment]


def _bad(message: str) -> InvalidPositionError:
    return InvalidPositionError(f"invalid position: {message}")


def _number(text: str, what: str, high: int = 1_000) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise _bad(f"{what} {text!r} is not a whole number from 0 to {high}")
    return int(text)


def _player(ch: str, players: int, what: str) -> int:
    p = ord(ch) - ord("a")
    if not 0 <= p < players:
        raise _bad(f"{what} {ch!r} is not a player: players are a to {PLAYER_LETTERS[players - 1]}")
    return p


def _player_set(text: str, players: int, what: str) -> set[int]:
    if text == "-":
        return set()
    result: set[int] = set()
    for ch in text:
        p = _player(ch, players, what)
        if p in result:
            raise _bad(f"{what}: player {ch!r} is listed twice")
        result.add(p)
    return result


def _parse_position(text: str) -> Game:
    """Reads the notation and checks that the position could arise in play."""
    fields = [f for f in re.split(r"[ \t\n\r\x0c]+", text) if f]  # ASCII white space only
    if len(fields) != 8:
        raise _bad(f"expected 8 fields separated by spaces, found {len(fields)}")
    size, rules_name, players_text, board, to_move_text, moved_text, out_text, ply_text = fields
    if size.count("x") != 1:
        raise _bad(f"size {size!r} is not WIDTHxHEIGHT")
    w_text, h_text = size.split("x")
    width, height = _number(w_text, "width"), _number(h_text, "height")
    try:
        rules = Rules.parse(rules_name)
    except ValueError as e:
        raise _bad(str(e)) from None
    players = _number(players_text, "players")
    try:
        check.size(width, height)
        check.player_count(players, width * height)
    except ValueError as e:
        raise _bad(str(e)) from None
    rows = board.split("/")
    if len(rows) != height:
        raise _bad(f"the board has {len(rows)} rows but the size says {height}")
    counts: list[int] = []
    owners: list[int] = []
    for y, row in enumerate(rows):
        i, n = 0, 0
        while i < len(row):
            ch = row[i]
            if ch == ".":
                counts.append(0)
                owners.append(-1)
                i += 1
            elif "0" <= ch <= "9":
                if i + 1 >= len(row):
                    raise _bad(f"row {y + 1}: the count at its end has no owner letter")
                counts.append(int(ch))
                owners.append(_player(row[i + 1], players, f"row {y + 1}: the owner"))
                i += 2
            else:
                raise _bad(f"row {y + 1}: unexpected {ch!r}")
            n += 1
        if n != width:
            raise _bad(f"row {y + 1} has {n} cells, but the board is {width} wide")
    if len(to_move_text) != 1:
        raise _bad(f"to move {to_move_text!r} must be one player letter")
    to_move = _player(to_move_text, players, "to move")
    moved = _player_set(moved_text, players, "moved")
    out = _player_set(out_text, players, "out")
    ply = _number(ply_text, "ply", 2**31 - 1)
    if ply > 2**31 - 1:
        raise _bad(f"ply {ply} is too large")

    g = Game(width, height, players, rules, to_move)
    for i, (n, o) in enumerate(zip(counts, owners, strict=True)):
        if n == 0 and o != -1:
            raise _bad(f"cell {i} has an owner but no orbs")
        if n > 7:
            raise _bad(f"cell {i} holds {n} orbs; no cell can ever hold more than 7")
    holders = {o for o in owners if o != -1}
    if to_move in out:
        raise _bad("the player to move is out")
    if holders & out:
        raise _bad("a player who is out still holds orbs")
    if holders - moved:
        raise _bad("a player who has not moved yet holds orbs")
    if ply < len(moved):
        raise _bad("the ply is fewer than the players who have moved")
    winner = None
    if len(moved) < players:
        # The first round: the players who have moved are the ones just before the player to
        # move, each with only its opening cell (no burst is possible before everyone moved).
        if out:
            raise _bad("a player is out before every player has moved")
        expected = {(to_move - d) % players for d in range(1, len(moved) + 1)}
        if expected != moved or ply != len(moved):
            raise _bad("the players who have moved do not fit the turn order")
        opening = 3 if rules.opening == "drop3" else 1
        for p in moved:
            mine = [n for n, o in zip(counts, owners, strict=True) if o == p]
            if mine != [opening]:
                raise _bad(f"player {PLAYER_LETTERS[p]} must hold only its opening cell")
    else:
        if holders | out != set(range(players)):
            raise _bad("a player with no orbs must be marked out once everyone has moved")
        if len(holders) == 1:
            winner = holders.pop()
            if to_move != winner:
                raise _bad("the game is won, so the winner is to move")
    if winner is None:
        for i, n in enumerate(counts):
            opening_cell = rules.opening == "drop3" and n == 3
            if n > g._capacity(i) and not opening_cell:
                raise _bad(f"cell {i} holds {n} orbs, above its capacity {g._capacity(i)}")
    g._state = _State(counts, owners, to_move, moved, out, winner, ply)
    return g
