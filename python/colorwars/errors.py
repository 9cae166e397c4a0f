"""The errors colorwars raises, all of them, in one place. Every one is a ``ValueError`` and
says what was wrong and what is allowed. Both engines (native and reference) raise these same
classes.

Besides these, a call may raise ``TypeError`` (a wrong kind of object where an engine object
is needed), ``MemoryError`` (a request larger than the machine's memory) or
``KeyboardInterrupt`` (Ctrl-C stops every long native call).

Deprecated: ``InvalidPolicyError`` is the old name of ``InvalidPlayerError`` (the same class,
so ``except InvalidPolicyError`` still catches it); it will be removed in a later version.
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "ColorwarsError",
    "ConfigError",
    "EngineError",
    "FileError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidEvaluatorError",
    "InvalidIndexError",
    "InvalidMoveError",
    "InvalidNetworkError",
    "InvalidPlayerError",
    "InvalidPlayersError",
    "InvalidPolicyError",
    "InvalidPositionError",
    "InvalidProofError",
    "InvalidRecordError",
    "InvalidRulesError",
    "InvalidSizeError",
    "MissingExtraError",
    "NotAGameError",
    "SearchLimitError",
    "ShardError",
]


def show(value: object) -> str:
    """A short, safe description of a caller's value for an error message: never huge, never
    raising (a 5000-digit int cannot even be turned into text by default)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a {value.bit_length()}-bit whole number"
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 60 else text[:57] + "..."


class ColorwarsError(ValueError):
    """Base class of every colorwars error."""


class ConfigError(ColorwarsError):
    """A game configuration that is not supported."""


class FileError(ConfigError):
    """A file colorwars reads or writes that cannot be trusted or written: damaged (a checksum
    that does not match, a truncated or altered part), of another format or version, locked
    by another run, or an output whose folder is missing, not writable or full. The message
    names the path and what failed."""


class InvalidSizeError(ConfigError):
    """A board width or height outside 2 to 32."""


class InvalidPlayersError(ConfigError):
    """A player count outside 2 to 8 (or above the number of cells), or an unknown player."""


class InvalidRulesError(ConfigError):
    """An unknown rule set, opening or burst."""


class InvalidPlayerError(ConfigError):
    """A player (what chooses a seat's moves: random, greedy, MCTS, alpha-beta) that is not
    known or not allowed: an unknown name, a bad budget or setting (simulations, depth, time,
    c, greedy share, trees), or a list of players of the wrong length (``simulate(seats=...)``
    names the players of the seats)."""


#: Deprecated: the old name of ``InvalidPlayerError`` (the same class).
InvalidPolicyError = InvalidPlayerError


class InvalidMoveError(ColorwarsError):
    """Move input that does not name a cell of the board (bad notation, off-board, wrong type)."""


class IllegalMoveError(ColorwarsError):
    """A cell of the board on which the player to move may not place."""


class GameOverError(IllegalMoveError):
    """A move after the game has been won."""


class InvalidPositionError(ColorwarsError):
    """Position notation that does not parse, or that describes an impossible position."""


class InvalidProofError(ColorwarsError):
    """A proof that its check refuted: ``prove(verify=True)`` walked the proven strategy to the
    end of every game and found a line the claimed winner does not win. The proofs it rested
    on were wrong (read from a forged checkpoint, which is then named, or a bug)."""


class InvalidRecordError(ColorwarsError):
    """A game record that does not parse, or whose moves or result do not replay."""


class BackendError(ColorwarsError):
    """A backend (Ray, an optional library) that is not installed or cannot be reached."""


class MissingExtraError(BackendError, ModuleNotFoundError):
    """An optional extra that is not installed (matplotlib, Ray, Gymnasium, PettingZoo,
    OpenSpiel, the web app's libraries); the message names the pip line that installs it.
    Also a ``ModuleNotFoundError``, so ``except ImportError`` catches it too."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


def missing_extra(extra: str, needs: str, module: str | None = None) -> MissingExtraError:
    """The error for a missing optional extra: ``needs`` says what needs it (``"--png needs
    matplotlib"``), and the message ends with the pip lines, from a package index and from a
    checkout."""
    return MissingExtraError(
        f"{needs}, an optional extra that is not installed: pip install 'colorwars[{extra}]' "
        f"(from a checkout: pip install '.[{extra}]')",
        name=module,
    )


class ShardError(ColorwarsError):
    """A shard of a distributed simulation that still failed after Ray's retries."""


class NotAGameError(ConfigError, TypeError):
    """Something other than a game where a game is needed: a player's ``choose`` or
    ``search``, ``solve(game)``, ``prove(game)``. Also a ``TypeError``."""


class InvalidIndexError(ColorwarsError, IndexError):
    """An index outside what exists: ``pop()`` with no move to undo, an environment of a
    ``VectorEnv`` or a game of a simulation that does not exist. Also an ``IndexError``."""


class SearchLimitError(ColorwarsError):
    """The solver did not prove a result within its depth limit."""


class EngineError(ColorwarsError):
    """A program driven through the engine protocol (``colorwars.engine.Client``,
    ``colorwars.ai.Engine``) that did not do what the protocol asks: it could not be started,
    answered ``error``, garbage, an illegal move or a line that is too long, gave no answer in
    time, or exited. Also a bad line sent to ``colorwars engine``. The message says which."""


class InvalidNetworkError(ConfigError):
    """A network (``colorwars.zero.Network``) that cannot be built or evaluated: a layout out
    of range, a parameter of the wrong shape, NaN or infinity in the weights, or planes that
    are not two-player planes of a board of sides 2 to 64. The message names what."""


class InvalidEvaluatorError(ColorwarsError):
    """A network evaluator (``colorwars.puct.PUCT``, ``self_play``) that returned what the
    search cannot use: not a pair ``(logits, values)``, a wrong shape or dtype, NaN or
    infinity at a legal move, or a value outside -1 to 1. The message names what was wrong."""
