"""``colorwars.exact_length``: the length of the game under perfect play, by depth-bounded
proof-number search, for boards past the alpha-beta solver.

The native search (``src/search/length.rs``) answers "does this player win within at most d
plies?", a finite question whatever repetitions the rules allow, with a table keyed by the
position under the board's symmetries that keeps, per position, the least bound proven a win
and the bound below which none is. The length is the least bound that is a win: found by
galloping up from twice the cells until a win is proven, then descending two plies at a time
(proofs are cheap, refutations dear: only the one needed is searched), and established from
both sides: a win within ``plies`` proven and a win within ``plies - 1`` refuted, each by a
search of its own. It is the number ``colorwars.solve`` (alpha-beta) gives where that
finishes: the winner as fast as it can, the loser holding out as long as it can.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from colorwars import _core, _files
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars.errors import ConfigError
from colorwars.proof import _parse_memory, _start, _this_run, default_memory, huge_pages_for
from colorwars.rules import DEFAULT_RULES, Rules, RulesLike

#: The deepest bound of the search, and of ``start`` (the core's limit, ``src/limits.rs``).
MAX_LENGTH_BOUND = int(_core.LIMITS["max_length_bound"])

#: The least ``save_every`` (seconds) a checkpointed length search takes.
SAVE_EVERY_LEAST = 1.0

__all__ = ["Length", "exact_length"]


@dataclass(frozen=True)
class Length:
    """The exact length of a game from ``position`` (its notation).

    ``winner`` wins in exactly ``plies`` plies under perfect play; ``line`` is a principal
    line (the winner's fastest win against the longest defence) that ends in the winner's win
    after exactly ``plies`` plies. ``proven``: a win within ``plies`` was proven; ``refuted``:
    a win within ``plies - 1`` was refuted. A run that stopped (its ``time``) has ``plies``
    None and says what it established: every game lasts at least ``at_least`` plies, and the
    winner (once known) wins within ``at_most`` (None: no win proven yet). With ``verify``,
    ``checked`` counts the positions of the proof and of the refutation, each walked on real
    positions to the end of every line."""

    width: int
    height: int
    rules: str
    position: str
    winner: int | None
    plies: int | None
    line: list[int]
    positions: int
    seconds: float
    proven: bool
    refuted: bool
    at_least: int
    at_most: int | None
    checked: tuple[int, int] | None = None
    #: What the earlier runs of its checkpoint took (``positions`` and ``seconds`` count
    #: them too, so that a search of several sessions reports its whole cost); 0 without one.
    earlier_positions: int = 0
    earlier_seconds: float = 0.0

    def line_names(self) -> list[str]:
        return [f"{column_name(c % self.width)}{c // self.width + 1}" for c in self.line]

    def __str__(self) -> str:
        head = f"{self.width}x{self.height} {self.rules}"
        effort = f"{self.positions:,} positions, {self.seconds:.1f} s"
        effort += _this_run(
            self.positions, self.seconds, self.earlier_positions, self.earlier_seconds
        )
        if self.plies is None or self.winner is None:
            said = []
            if self.at_least > 1:  # a game lasts a ply at least: nothing to say
                said.append(f"at least {self.at_least} plies")
            if self.at_most is not None and self.winner is not None:
                said.append(f"player {PLAYER_LETTERS[self.winner]} wins within {self.at_most}")
            known = ", ".join(said) or "no bound settled yet"
            return f"{head}: length not found ({known}; {effort})"
        winner = PLAYER_LETTERS[self.winner]
        if self.plies == 0:  # the game is already won: nothing to prove, no line
            return f"{head}: player {winner} has won: 0 plies to go ({effort})"
        text = (
            f"{head}: player {winner} wins in exactly {self.plies} plies "
            f"(a win within {self.plies} proven, within {self.plies - 1} refuted; {effort})"
        )
        if self.checked is not None:
            text += (
                f"; checked: proof {self.checked[0]:,}, refutation {self.checked[1]:,} positions"
            )
        return text + f"; line {' '.join(self.line_names())}"


def exact_length(
    target: Any,
    height: int | None = None,
    rules: RulesLike = DEFAULT_RULES,
    *,
    time: float | None = None,
    memory: int | str | None = None,
    verify: bool = False,
    progress: Callable[[int], object] | None = None,
    check_progress: Callable[[int], object] | None = None,
    start: int | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    save_every: float = 1800.0,
) -> Length:
    """The game's exact length under perfect play: ``exact_length(game)`` from a game's
    position or ``exact_length(width, height, rules=...)`` (or ``exact_length("WxH", ...)``)
    from the empty board (two players).

    ``time`` bounds the seconds (None: until found); a run that stops returns ``plies=None``
    with the bounds it established, never a guess. ``memory`` is the table's bytes (an int
    or a size such as ``"2G"``; when full it replaces estimates, never aborts). ``verify``
    also walks the proof and the refutation on real positions. ``progress(positions)`` is
    called about twice a second with the positions this run has searched so far (the result
    counts a checkpoint's earlier runs too, ``earlier_positions``); with ``verify``, once
    the check has walked its first 1,024 positions, ``check_progress(walked)`` is called
    instead (where given) with the positions it has visited so far, counted by 1,024.
    Ctrl-C stops the search.

    ``start`` is the first bound tried (None: twice the cells). With a length bracketed by
    earlier runs, start at the least bound proven a win (their ``at_most``): it is proven
    again and the bound two plies below refuted, with no search above. A start far above the
    length costs a proof every two plies down to it. It changes the work, never the answer.

    ``checkpoint`` (a file's path) keeps the search's table: saved every ``save_every``
    seconds and when the run ends (its time, Ctrl-C, or the answer), and read back when the
    file exists, so a search of hours goes on another day (versioned, with a CRC-32, written
    atomically; a damaged file or one of another board is a ``FileError`` naming it). The
    positions and seconds reported are the run's so far, across its sessions.

    >>> n = exact_length(3, 3, rules="colorwars")
    >>> n.winner, n.plies, n.proven, n.refuted, len(n.line)
    (1, 10, True, True, 10)
    """
    game = _start(target, height, rules, "exact_length")
    seconds = None if time is None else check.number(time, "time", 0.0, 1e9)
    if seconds == 0.0:  # prove(time=0) reads a checkpoint; this search keeps none
        check.fail(ConfigError, "time", time, "expected seconds above 0 and at most 1e+09, or None")
    nbytes = (
        _parse_memory(memory) if memory is not None else default_memory(game.width * game.height)
    )
    verify = check.flag(verify, "verify")
    if progress is not None and not callable(progress):
        check.fail(ConfigError, "progress", progress, "expected a function(positions) or None")
    if check_progress is not None and not callable(check_progress):
        check.fail(
            ConfigError, "check_progress", check_progress, "expected a function(walked) or None"
        )
    if start is not None:
        start = check.whole(start, "start (plies)", 1, MAX_LENGTH_BOUND)
    path = None if checkpoint is None else _files.check_output(checkpoint, "checkpoint")
    every = check.number(save_every, "save_every", SAVE_EVERY_LEAST, 1e9)
    position = game.to_text()
    # The core's result: the Length's fields from the winner to the check, in order, then
    # whether it stopped (the plies say so) and what the checkpoint's earlier runs took.
    # The checkpoint is locked for the run, as a proof's is: a second run on the same file
    # (of either method) is a FileError at once, not two runs writing over each other.
    lock = contextlib.nullcontext() if path is None else _files.locked(path, "checkpoint")
    with lock:
        found = _core.exact_length(
            game,
            nbytes,
            seconds,
            start=start,
            verify=verify,
            progress=_progress_of(progress, check_progress, verify),
            checkpoint=path,
            save_every=every,
            huge_pages=huge_pages_for(seconds),
        )
    return Length(
        game.width,
        game.height,
        Rules(game.opening, game.burst).name,
        position,
        *found[:10],
        earlier_positions=found[11][0],
        earlier_seconds=found[11][1],
    )


def _progress_of(
    progress: Callable[[int], object] | None,
    check_progress: Callable[[int], object] | None,
    verify: bool,
) -> Callable[..., object] | None:
    """The native search's callback. Without ``verify`` it is ``progress(positions)``; with
    it the native search calls ``f(positions, walked)``: ``progress(positions)`` until the
    check has begun, then ``check_progress(walked)`` where given (else ``progress`` still)."""
    if not verify or (progress is None and check_progress is None):
        return progress

    def tick(done: int, walked: int = 0) -> None:
        if walked and check_progress is not None:
            check_progress(walked)
        elif progress is not None:
            progress(done)

    return tick
