"""Game records: the rules, the players and the moves of a game, in a small text format that
replays (see docs/api.md, "Game records").

::

    # any comment
    size: 5x5
    rules: colorwars
    players: 2
    first: a
    moves: c3 b4 c3 b4 d3
    result: a
    final: 5x5 colorwars 2 ... a ab b 5

``size`` and ``moves`` are required; ``rules`` defaults to colorwars, ``players`` to 2,
``first`` to a. ``result`` (the winner's letter, or ``-`` for an unfinished game) and ``final``
(the position after the last move) are checked on replay when present. ``note`` is free text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS, Move, Wave
from colorwars._validate import show
from colorwars.errors import ColorwarsError, InvalidRecordError
from colorwars.rules import Rules

__all__ = ["GameLike", "GameRecord"]

KEYS = ("size", "rules", "players", "first", "moves", "result", "final", "note")


class GameLike(Protocol):
    """What a record needs of an engine: both ``colorwars.Game`` and the reference fit."""

    @property
    def winner(self) -> int | None: ...

    @property
    def to_move(self) -> int: ...

    def counts(self) -> list[int]: ...

    def owners(self) -> list[int]: ...

    def play(self, move: Move) -> int: ...

    def to_text(self) -> str: ...

    def cell_name(self, cell: int) -> str: ...

    def waves(self) -> list[Wave]: ...


class PlayedGame(GameLike, Protocol):
    """What ``GameRecord.of`` reads of a game besides ``GameLike``."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def players(self) -> int: ...

    @property
    def rules(self) -> Rules: ...

    def moves(self) -> list[int]: ...


class GameFactory(Protocol):
    def __call__(
        self, width: int, height: int, players: int, rules: Rules, first: int
    ) -> GameLike: ...


@dataclass(frozen=True)
class GameRecord:
    width: int
    height: int
    rules: Rules
    players: int
    first: int
    moves: tuple[str, ...]
    result: str | None = None  # winner letter, "-" unfinished, None: not stated
    final: str | None = None
    note: str | None = None

    @staticmethod
    def parse(text: str) -> GameRecord:
        """Reads a record; ``InvalidRecordError`` says which line is wrong and why."""
        if not isinstance(text, str):
            raise InvalidRecordError(f"invalid record: expected text, got {show(text)}")
        # A byte-order mark (some editors save UTF-8 with one) is not part of the first line.
        text = text.removeprefix("\ufeff")
        values: dict[str, str] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition(":")
            key = key.strip().lower()
            if not sep or key not in KEYS:
                raise InvalidRecordError(
                    f"invalid record: line {number} {show(raw)} is not 'key: value' with a key "
                    f"from {', '.join(KEYS)}"
                )
            if key in values:
                raise InvalidRecordError(f"invalid record: line {number}: {key!r} given twice")
            values[key] = value.strip()
        for key in ("size", "moves"):
            if key not in values:
                raise InvalidRecordError(f"invalid record: the {key!r} line is missing")
        size = re.fullmatch(r"([0-9]{1,6})x([0-9]{1,6})", values["size"])
        if size is None:
            raise InvalidRecordError(
                f"invalid record: size {show(values['size'])} is not WIDTHxHEIGHT, e.g. 5x5"
            )
        width_text, height_text = size[1], size[2]
        players_text = values.get("players", "2")
        if re.fullmatch(r"[0-9]{1,6}", players_text) is None:
            raise InvalidRecordError(
                f"invalid record: players {show(players_text)} is not a number"
            )
        first_text = values.get("first", "a")
        if len(first_text) != 1 or first_text not in PLAYER_LETTERS:
            raise InvalidRecordError(
                f"invalid record: first {show(first_text)} is not a letter a-h"
            )
        try:
            rules = Rules.parse(values.get("rules", "colorwars"))
        except ColorwarsError as e:
            raise InvalidRecordError(f"invalid record: {e}") from None
        players, first = int(players_text), PLAYER_LETTERS.index(first_text)
        if 2 <= players <= 8 and first >= players:
            raise InvalidRecordError(
                f"invalid record: first {first_text}, but {check.seats_of(players)}"
            )
        try:  # the whole setup, before anything reads the record as a game
            check.config(int(width_text), int(height_text), players, rules, first)
        except ColorwarsError as e:
            raise InvalidRecordError(f"invalid record: {e}") from None
        return GameRecord(
            width=int(width_text),
            height=int(height_text),
            rules=rules,
            players=players,
            first=first,
            moves=tuple(values["moves"].split()),
            result=values.get("result"),
            final=values.get("final"),
            note=values.get("note"),
        )

    @staticmethod
    def of(game: PlayedGame, first: int, note: str | None = None) -> GameRecord:
        """The record of a game played from the empty board with ``first`` moving first: its
        size, rules, players, moves by name, result (``-`` while unfinished) and final
        position."""
        moves = game.moves()
        return GameRecord(
            width=game.width,
            height=game.height,
            rules=game.rules,
            players=game.players,
            first=first,
            moves=tuple(game.cell_name(c) for c in moves),
            result="-" if game.winner is None else PLAYER_LETTERS[game.winner],
            final=game.to_text(),
            note=note,
        )

    def to_text(self) -> str:
        lines = [
            "# colorwars game record",
            f"size: {self.width}x{self.height}",
            f"rules: {self.rules.name}",
            f"players: {self.players}",
            f"first: {PLAYER_LETTERS[self.first]}",
            f"moves: {' '.join(self.moves)}",
        ]
        if self.result is not None:
            lines.append(f"result: {self.result}")
        if self.final is not None:
            lines.append(f"final: {self.final}")
        if self.note is not None:
            lines.append(f"note: {self.note}")
        return "\n".join(lines) + "\n"

    def new_game(self, engine: GameFactory | None = None) -> GameLike:
        """The empty board this record starts from, on ``engine`` (default: the native one)."""
        if engine is None:
            from colorwars.game import Game

            engine = Game
        try:
            return engine(self.width, self.height, self.players, self.rules, self.first)
        except ColorwarsError as e:
            raise InvalidRecordError(f"invalid record: {e}") from None

    def steps(self, engine: GameFactory | None = None) -> Iterator[tuple[GameLike, int, int]]:
        """Plays the moves one by one, yielding the game, the cell and the player who played
        it after each move. Raises ``InvalidRecordError`` naming the move that does not play."""
        return self._play(self.new_game(engine))

    def _play(self, game: GameLike) -> Iterator[tuple[GameLike, int, int]]:
        for number, move in enumerate(self.moves, 1):
            mover = game.to_move
            try:
                cell = game.play(move)
            except ColorwarsError as e:
                raise InvalidRecordError(f"invalid record: move {number} ({move}): {e}") from None
            yield game, cell, mover

    def play_all(self, engine: GameFactory | None = None) -> GameLike:
        """The game after all the moves (nothing checked beyond the moves' legality)."""
        game = self.new_game(engine)
        for _ in self._play(game):
            pass
        return game

    def replay(self, engine: GameFactory | None = None) -> GameLike:
        """Plays the whole record and checks its stated result and final position."""
        game = self.play_all(engine)
        self.check(game)
        return game

    def check(self, game: GameLike) -> None:
        """Raises ``InvalidRecordError`` if the replayed game contradicts ``result``/``final``."""
        actual = "-" if game.winner is None else PLAYER_LETTERS[game.winner]
        if self.result is not None and self.result != actual:
            raise InvalidRecordError(
                f"invalid record: the record says result {self.result!r}, the replay gives "
                f"{actual!r}"
            )
        if self.final is not None and self.final != game.to_text():
            raise InvalidRecordError(
                f"invalid record: the final position does not match the replay\n"
                f"  record: {self.final}\n  replay: {game.to_text()}"
            )

    def completed(self, engine: GameFactory | None = None) -> GameRecord:
        """This record with ``result`` and ``final`` filled in from a replay."""
        game = self.play_all(engine)
        result = "-" if game.winner is None else PLAYER_LETTERS[game.winner]
        return replace(self, result=result, final=game.to_text())
