"""``colorwars.Game``: the game API, backed by the native (Rust) engine."""

from __future__ import annotations

from typing import Any

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import (
    Move,
    Wave,
    coerce_move,
    notation_text,
    render_board,
    render_svg,
    status_line,
)
from colorwars.errors import InvalidIndexError, InvalidMoveError
from colorwars.rules import Rules, RulesLike

__all__ = ["Game"]


class Game:
    """A game of Color Wars / Chain Reaction on the native engine.

    >>> g = Game(width=5, height=5, players=2, rules="colorwars")
    >>> g.play("c3")
    12
    >>> g.counts()[12], g.owners()[12], g.to_move
    (3, 0, 1)

    Cells are numbered row-major, ``cell = y * width + x``; a move is that number, a name such
    as ``"c3"`` (column letter, row number from 1, row 1 on top) or ``(x, y)``.

    Thread safety: every call on a ``Game`` is atomic (the engine's calls hold Python's
    lock, and an AI's long search works on a copy of the position), so a game shared between
    threads is never corrupted; order the calls yourself if the order matters.

    A game pickles (for ``multiprocessing``, Ray, joblib) as its starting position and its
    moves, so ``pop`` still works after unpickling.
    """

    __slots__ = ("_native",)
    _native: _core.NativeGame

    def __init__(
        self,
        width: int = 5,
        height: int = 5,
        players: int = 2,
        rules: RulesLike = "colorwars",
        first: int = 0,
    ) -> None:
        self._native = _core.NativeGame(check.config(width, height, players, rules, first))

    @classmethod
    def from_text(cls, text: str) -> Game:
        """The game at a position written by ``to_text()`` (no move history)."""
        g = cls.__new__(cls)
        g._native = _core.NativeGame.from_text(notation_text(text))
        return g

    def to_text(self) -> str:
        """The position in one-line notation (docs/api.md, "Position notation");
        ``from_text`` reads it back."""
        return self._native.to_text()

    # -- configuration ---------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self._native.width

    @property
    def height(self) -> int:
        return self._native.height

    @property
    def cells(self) -> int:
        return self._native.width * self._native.height

    @property
    def players(self) -> int:
        return self._native.players

    @property
    def rules(self) -> Rules:
        return Rules(self._native.opening, self._native.burst)

    # -- state -----------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        """The player to move (after a win: the winner)."""
        return self._native.to_move

    @property
    def winner(self) -> int | None:
        return self._native.winner

    @property
    def is_over(self) -> bool:
        return self._native.winner is not None

    @property
    def ply(self) -> int:
        """Moves played since the start (a position read from text keeps its ply)."""
        return self._native.ply

    @property
    def moved(self) -> list[int]:
        """The players who have moved at least once."""
        return self._native.moved

    @property
    def out(self) -> list[int]:
        """The players who are out."""
        return self._native.out

    def counts(self) -> list[int]:
        """Orbs per cell, row-major."""
        return self._native.counts()

    def owners(self) -> list[int]:
        """Owner per cell, row-major; -1 for an empty cell."""
        return self._native.owners()

    def orbs(self, player: int) -> int:
        """The orbs ``player`` holds in total."""
        return self._native.orbs(check.seat(player, self.players))

    def moves(self) -> list[int]:
        """The moves played since the game (or ``from_text``) began, oldest first."""
        return self._native.moves()

    # -- moves -----------------------------------------------------------------------------
    def cell(self, move: Move) -> int:
        """The cell index a move names; ``InvalidMoveError`` if it names none."""
        return coerce_move(move, self.width, self.height, self._native.parse_cell)

    def cell_name(self, cell: int) -> str:
        """The name of a cell, e.g. ``"c3"``."""
        return self._native.cell_name(self.cell(cell))

    def legal_moves(self) -> list[int]:
        """The cells the player to move may play, ascending (empty once the game is won)."""
        return self._native.legal_moves()

    def is_legal(self, move: Move) -> bool:
        try:
            return self._native.is_legal(self.cell(move))
        except InvalidMoveError:
            return False

    def play(self, move: Move) -> int:
        """Plays a move for the player to move and resolves its cascade; returns the cell.
        Raises ``IllegalMoveError`` (``GameOverError`` once won) or ``InvalidMoveError``, in
        which case the game is unchanged."""
        cell = self.cell(move)
        self._native.play(cell)
        return cell

    def pop(self) -> int:
        """Undoes the last move exactly and returns it; ``InvalidIndexError`` (an
        ``IndexError``) if there is none."""
        if not self._native.moves():
            raise InvalidIndexError("nothing to undo: no move has been played on this game")
        return self._native.pop()

    def peek(self) -> int | None:
        """The last move, or ``None``."""
        moves = self._native.moves()
        return moves[-1] if moves else None

    def waves(self) -> list[Wave]:
        """The last move's cascade, wave by wave: the cells that burst together and the board
        after each wave. Empty when the last move burst nothing."""
        return [Wave(tuple(b), tuple(c), tuple(o)) for b, c, o in self._native.waves()]

    def copy(self) -> Game:
        """An independent copy, history included."""
        g = Game.__new__(Game)
        g._native = self._native.copy()
        return g

    # -- presentation ----------------------------------------------------------------------
    def __str__(self) -> str:
        board = render_board(self.width, self.counts(), self.owners())
        return f"{board}\n{status_line(self.to_move, self.winner, self.ply)}"

    def __repr__(self) -> str:
        return f"Game.from_text({self.to_text()!r})"

    def _repr_svg_(self) -> str:
        """The board as a picture in notebooks."""
        return render_svg(self.width, self.counts(), self.owners())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_text() == other.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        # The position the history starts from, and the moves: unpickling replays them, so the
        # game and its undo history come back exactly.
        root = self._native.copy()
        for _ in self._native.moves():
            root.pop()
        return (_unpickle, (root.to_text(), self._native.moves()))


def _unpickle(text: str, moves: list[int]) -> Game:
    g = Game.from_text(text)
    for cell in moves:
        g._native.play(cell)
    return g
