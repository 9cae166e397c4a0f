"""The one place that checks every public argument: each argument has one check, one limit and
one error class, used by the Python API, the CLI and every adapter alike.

| argument                          | allowed                          | error                  |
|-----------------------------------|----------------------------------|------------------------|
| width, height                     | 2 to 32                          | ``InvalidSizeError``   |
| players (a count)                 | 2 to 8, at most the cells        | ``InvalidPlayersError``|
| first, player (a seat)            | 0 to players - 1                 | ``InvalidPlayersError``|
| rules                             | a preset, OPENING+BURST, Rules   | ``InvalidRulesError``  |
| seats (the players of the seats)  | names or ``colorwars.ai`` players| ``InvalidPlayerError`` |
| simulations, depth, time, trees,..| see ``colorwars.players``        | ``InvalidPlayerError`` |
| games                             | 0 to 2**40 (and memory)          | ``ConfigError``        |
| num_envs                          | 1 to 2**24 (and memory)          | ``ConfigError``        |
| seed                              | 0 to 2**64 - 1                   | ``ConfigError``        |
| threads                           | 0 (all cores) to 256             | ``ConfigError``        |
| max_plies                         | None or 1 to 2**31 - 1           | ``ConfigError``        |
| a move, first_move                | a cell of the board              | ``InvalidMoveError``   |

Whole numbers are Python ``int`` or numpy integers, never ``bool`` or ``float``. A request
whose results would not fit in this machine's memory raises ``MemoryError`` before anything
is allocated.
"""

from __future__ import annotations

import math
import operator
import os
import re
import resource
from typing import NoReturn

import numpy as np

from colorwars import _core
from colorwars.errors import (
    ColorwarsError,
    ConfigError,
    InvalidPlayerError,
    InvalidPlayersError,
    InvalidSizeError,
    show,
)
from colorwars.rules import DEFAULT_RULES, GameConfig, Rules, RulesLike, resolve

# Every limit is the core's (src/limits.rs), read from one table; only the seed's range is a
# property of its type (a 64-bit generator seed).
_LIMITS = _core.LIMITS
MIN_SIDE, MAX_SIDE = int(_LIMITS["min_side"]), int(_LIMITS["max_side"])
MIN_PLAYERS, MAX_PLAYERS = int(_LIMITS["min_players"]), int(_LIMITS["max_players"])
MAX_GAMES = int(_LIMITS["max_games"])
MAX_ENVS = int(_LIMITS["max_envs"])
MAX_SEED = 2**64 - 1
MAX_THREADS = int(_LIMITS["max_threads"])
MAX_PLIES = int(_LIMITS["max_plies"])
MAX_SIMULATIONS = int(_LIMITS["max_simulations"])
MAX_DEPTH = int(_LIMITS["max_alphabeta_depth"])
MAX_SECONDS = float(_LIMITS["max_seconds"])
MAX_C = float(_LIMITS["max_c"])
MAX_CUTOFF = int(_LIMITS["max_cutoff"])
"""Most moves an MCTS playout may run before it is scored by the evaluation."""

__all__ = [
    "MAX_GAMES",
    "MAX_SIDE",
    "MAX_THREADS",
    "choice",
    "config",
    "fail",
    "flag",
    "games",
    "max_plies",
    "memory",
    "num_envs",
    "player_count",
    "seat",
    "seed",
    "show",
    "size",
    "threads",
    "whole",
]


def _bound(n: int) -> str:
    """A limit as people write it: 2**64 - 1 rather than 18446744073709551615."""
    if n >= 2**20 and (n + 1) & n == 0:
        return f"2**{(n + 1).bit_length() - 1} - 1"
    if n >= 2**20 and n & (n - 1) == 0:
        return f"2**{n.bit_length() - 1}"
    return str(n)


def fail(error: type[ColorwarsError], what: str, value: object, allowed: str) -> NoReturn:
    raise error(f"invalid {what} {show(value)}: {allowed}")


def whole(
    value: object,
    what: str,
    low: int,
    high: int,
    error: type[ColorwarsError] = ConfigError,
    allowed: str | None = None,
) -> int:
    """A whole number (``int`` or a numpy integer, not ``bool``) from ``low`` to ``high``;
    ``allowed`` replaces the message's "expected a whole number from low to high"."""
    expected = allowed or f"expected a whole number from {low} to {_bound(high)}"
    if isinstance(value, bool | np.bool_):
        fail(error, what, value, expected)
    try:
        n = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        fail(error, what, value, expected)
    if not low <= n <= high:
        fail(error, what, value, expected)
    return n


def table_bytes(value: object, low: int, high: int, error: type[ColorwarsError]) -> int:
    """A table's size in bytes: an ``int`` (or numpy integer) from ``low`` to ``high``; a
    float such as ``1e6`` is refused rather than truncated."""
    allowed = f"expected the table's size in bytes, an int from {_bound(low)} to {_bound(high)}"
    return whole(value, "memory", low, high, error, allowed)


def number(
    value: object, what: str, low: float, high: float, error: type[ColorwarsError] = ConfigError
) -> float:
    """A finite real number (int, float or numpy number, not ``bool``) from low to high."""
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        fail(error, what, value, f"expected a number from {low:g} to {high:g}")
    try:
        x = float(value)
    except OverflowError:
        fail(error, what, value, f"expected a number from {low:g} to {high:g}")
    if not (math.isfinite(x) and low <= x <= high):
        fail(error, what, value, f"expected a finite number from {low:g} to {high:g}")
    return x


def size(width: object, height: object) -> tuple[int, int]:
    """The board's sides, each 2 to 32 (RULES.md §2)."""
    sides = []
    for value in (width, height):
        try:
            n = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            n = None
        if isinstance(value, bool | np.bool_) or n is None or not MIN_SIDE <= n <= MAX_SIDE:
            w, h = show(width), show(height)
            said = f"{w}x{h}" if " " not in w + h else f"(width {w}, height {h})"
            raise InvalidSizeError(
                f"invalid board size {said}: width and height must each be a whole number "
                f"from {MIN_SIDE} to {MAX_SIDE}"
            )
        sides.append(n)
    return sides[0], sides[1]


def board(target: object, height: object, call: str) -> tuple[int, int] | None:
    """The board of ``call(width, height)`` or ``call("WxH")`` (the command line's form) as
    checked sides; None when ``target`` is a game (``call(game)``, to be checked by the
    caller). A size with no height, a game with a height, or text that is no size is a
    ``ConfigError`` (``InvalidSizeError`` for sides out of range) saying what to give."""
    if isinstance(target, str):
        if height is not None:
            raise ConfigError(
                f"{call}({show(target)}, {show(height)}): give the size as {call}(width, "
                f"height) or as one text such as {call}('5x5')"
            )
        found = re.fullmatch(r"\s*([0-9]{1,6})\s*[xX]\s*([0-9]{1,6})\s*", target)
        if found is None:
            raise ConfigError(
                f"{call}({show(target)}): expected a board size such as '5x5', width and "
                f"height such as {call}(5, 5), or a game"
            )
        return size(int(found[1]), int(found[2]))
    sized = isinstance(target, int | float | np.integer | np.floating)
    if sized and not isinstance(target, bool | np.bool_):
        if height is None:
            raise ConfigError(
                f"{call}({show(target)}) has no height: give {call}(width, height, rules=...), "
                f"{call}('WxH', rules=...) or {call}(game)"
            )
        return size(target, height)
    if height is not None:
        if isinstance(target, bool | np.bool_):
            size(target, height)  # a width that is no number: say so as a size
        raise ConfigError(f"{call}(game) takes the game alone: its size and rules are its own")
    return None


def two_player_game(
    target: object, call: str, rules: RulesLike = DEFAULT_RULES
) -> _core.NativeGame:
    """The native game ``call(game)`` searches: ``NotAGameError`` for what is no game,
    ``InvalidPlayerError`` for a game of more than two players (the solvers' games). The game
    plays its own rules: ``rules`` given with it must be those (a ``ConfigError`` otherwise,
    rather than rules quietly ignored)."""
    from colorwars.players import native_game

    game = native_game(target, call)
    if game.players != 2:
        raise InvalidPlayerError(
            f"invalid game: {call} searches two-player games, this one has {game.players}"
        )
    if rules is not DEFAULT_RULES:
        asked = resolve(rules)
        if (asked.opening, asked.burst) != (game.opening, game.burst):
            own = Rules(game.opening, game.burst).name
            raise ConfigError(
                f"{call}(game, rules={show(rules)}): the game plays its own rules ({own}); "
                f"leave rules out, or give a board size with the rules wanted"
            )
    return game


def player_count(value: object, cells: int) -> int:
    """The number of players: 2 to 8, and never more than the board's cells (RULES.md §2)."""
    n = whole(value, "number of players", MIN_PLAYERS, MAX_PLAYERS, InvalidPlayersError)
    if n > cells:
        fail(
            InvalidPlayersError,
            "number of players",
            value,
            f"at most the number of cells ({cells})",
        )
    return n


def seat(value: object, count: int, what: str = "player") -> int:
    """A seat (player number) 0 to ``count - 1``; seat 0 is player a. The message gives the
    letters too (``--first c`` with two players is seat 2: "a or b")."""
    letters = "abcdefgh"[: max(1, min(count, 8))]
    named = " or ".join(letters) if count <= 2 else f"{letters[0]} to {letters[-1]}"
    allowed = f"expected a whole number from 0 to {count - 1} (players {named})"
    return whole(value, what, 0, count - 1, InvalidPlayersError, allowed)


def seat_given(flag: str, seat: int, players: object) -> None:
    """A seat given on the command line by letter (``--first c``) checked against the game's
    number of players, the message in the letters the user typed; a count that is not 2 to
    8 is left to ``config`` to refuse."""
    if isinstance(players, int) and 2 <= players <= 8 and seat >= players:
        raise InvalidPlayersError(f"invalid {flag} {'abcdefgh'[seat]}: {seats_of(players)}")


def seats_of(players: int) -> str:
    """What a seat beyond the game's says: ``a game of 2 players has the players a to b``."""
    return f"a game of {players} players has the players a to {'abcdefgh'[players - 1]}"


def config(
    width: object, height: object, players: object, rules: RulesLike, first: object = 0
) -> GameConfig:
    """A whole game configuration: rules, size, number of players, first player."""
    r = resolve(rules)
    w, h = size(width, height)
    n = player_count(players, w * h)
    return GameConfig(w, h, n, r, seat(first, n, "first player"))


def games(value: object) -> int:
    return whole(value, "number of games", 0, MAX_GAMES)


def num_envs(value: object) -> int:
    return whole(value, "num_envs", 1, MAX_ENVS)


def seed(value: object) -> int:
    return whole(value, "seed", 0, MAX_SEED)


def threads(value: object, low: int = 0, error: type[ColorwarsError] = ConfigError) -> int:
    """A thread count: 0 means one per core (where allowed), at most 256."""
    return whole(value, "thread count", low, MAX_THREADS, error)


def max_plies(value: object) -> int | None:
    if value is None:
        return None
    return whole(value, "max_plies", 1, MAX_PLIES)


def simulations(value: object, low: int) -> int:
    return whole(value, "simulations", low, MAX_SIMULATIONS, InvalidPlayerError)


def depth(value: object) -> int:
    return whole(value, "depth", 1, MAX_DEPTH, InvalidPlayerError)


#: The largest endgame probe: positions of proof search before a player's own search.
MAX_PROBE = 100_000_000


def probe(value: object) -> int:
    """A player's endgame probe budget (``colorwars.probe``): 0 (none) to ``MAX_PROBE``."""
    return whole(value, "probe", 0, MAX_PROBE, InvalidPlayerError)


# The learned evaluation's weights: two sets (empty board, full board) of this many.
EVALUATION_FEATURES = 23


def evaluation_weights(value: object) -> tuple[int, ...]:
    """The learned evaluation's weights: 2 x ``EVALUATION_FEATURES`` whole numbers, each
    from -1,000,000 to 1,000,000."""
    wanted = 2 * EVALUATION_FEATURES
    if isinstance(value, str | bytes) or not hasattr(value, "__len__"):
        fail(InvalidPlayerError, "evaluation weights", value, f"expected {wanted} whole numbers")
    items = list(value)  # type: ignore[call-overload]
    if len(items) != wanted:
        raise InvalidPlayerError(
            f"invalid evaluation weights: {len(items)} given, expected {wanted} whole numbers"
        )
    return tuple(whole(w, "evaluation weight", -1_000_000, 1_000_000, InvalidPlayerError)
                 for w in items)  # fmt: skip


def time_budget(value: object, optional: bool = True) -> float | None:
    """A time budget in seconds, or None where ``optional`` (the message says which)."""
    allowed = f"expected seconds above 0 and at most {MAX_SECONDS:g}" + (
        ", or None" if optional else ""
    )
    if value is None:
        if optional:
            return None
        fail(InvalidPlayerError, "time", value, allowed)
    try:
        t = number(value, "time", 0.0, MAX_SECONDS, InvalidPlayerError)
    except InvalidPlayerError:
        fail(InvalidPlayerError, "time", value, allowed)
    if t <= 0:
        fail(InvalidPlayerError, "time", value, allowed)
    return t


def flag(value: object, what: str) -> bool:
    """A yes/no argument: ``True`` or ``False`` (numpy bools too), nothing else."""
    if not isinstance(value, bool | np.bool_):
        fail(ConfigError, what, value, "expected True or False")
    return bool(value)


def stop_flag(value: object) -> None:
    """A search's ``stop``: None, or anything with an ``is_set()`` method (a
    ``threading.Event``, a ``multiprocessing.Event``)."""
    if value is not None and not callable(getattr(value, "is_set", None)):
        fail(ConfigError, "stop", value, "expected None or an object with is_set(), such as a "
             "threading.Event")  # fmt: skip


def choice(value: object, what: str, allowed: tuple[str, ...]) -> str:
    """One of a few names."""
    if not isinstance(value, str) or value not in allowed:
        fail(ConfigError, what, value, "allowed are " + ", ".join(repr(a) for a in allowed))
    return value


def backend(value: object, address: object) -> tuple[str, str | None]:
    """The backend (``"local"`` or ``"ray"``) and the Ray cluster's address, if any (only
    with ``"ray"``)."""
    chosen = choice(value, "backend", ("local", "ray"))
    if address is not None and not isinstance(address, str):
        fail(ConfigError, "address", address, "expected the Ray cluster's address, a text")
    if address is not None and chosen != "ray":
        fail(ConfigError, "address", address, f"an address goes with backend='ray', not {chosen!r}")
    return chosen, address


def memory_limit() -> int:
    """The bytes a call may plan to use: the machine's memory, or less where the process is
    limited (``ulimit -v``, a cgroup)."""
    limit = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            text = f.read().strip()
        if text.isdigit():
            limit = min(limit, int(text))
    except OSError:
        pass
    return limit


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


def memory(nbytes: int, what: str) -> None:
    """Raises ``MemoryError`` before a request whose memory alone would exceed the limit."""
    limit = memory_limit()
    if nbytes > limit:
        raise MemoryError(
            f"{what} needs about {_gib(nbytes)} of memory, more than the {_gib(limit)} "
            "available; ask for less"
        )
