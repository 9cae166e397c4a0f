"""The engine protocol: ``colorwars engine`` answers it on stdin/stdout, ``Client`` drives any
program that speaks it, and ``colorwars.ai.Engine`` plays with one.

The protocol (``colorwars-engine 1``; docs/engine.md has a transcript) is one command a line
and, for each command, zero or more ``info ...`` lines and then exactly one final line: the
command's answer or ``error REASON``. Moves are cell names (``a1``, ``c3``, ``aa12``) and
positions the one-line notation of ``Game.to_text()``. ``stop`` and ``quit`` have no answer
of their own: ``stop`` makes the running search answer now, ``quit`` (or the end of the
input) ends the engine once the search has answered.

======================================  ===================================================
command                                 answer
======================================  ===================================================
``protocol``                            ``protocol colorwars-engine 1 NAME VERSION``
``isready``                             ``readyok`` (also while a search runs)
``newgame W H [RULES [PLAYERS]]``       ``ok``: the empty board (colorwars rules, 2 players)
``position NOTATION [moves M ...]``     ``ok``: that position, then the moves played
``play MOVE`` / ``undo``                ``ok``
``legal``                               ``legal M M ...`` (``legal`` alone once won)
``show``                                ``position NOTATION``
``status``                              ``status to_move=a winner=- ply=N out=-``
``go [time=T] [simulations=N]           ``info ...`` then ``bestmove M`` (the move is not
[depth=D]``                             played)
``analyse JSON``                        one JSON object a line (see ``analyse``)
``setoption player=NAME`` / ``seed=N``  ``ok``
``stop`` / ``quit``                     none
======================================  ===================================================

A bad line gets ``error ...`` and the engine keeps going; a line is at most ``MAX_LINE``
bytes and an analysis request at most ``MAX_POSITIONS`` positions.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from queue import Empty, Queue
from typing import IO, Any

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS
from colorwars.errors import (
    ColorwarsError,
    EngineError,
    FileError,
    InvalidIndexError,
    InvalidPlayerError,
    SearchLimitError,
)
from colorwars.game import Game
from colorwars.players import (
    _SETTINGS,
    PLAY_IT,
    Decision,
    _live,
    _takes_stop,
    native_game,
    parse_player,
)

__all__ = [
    "MAX_LINE",
    "MAX_POSITIONS",
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "Client",
    "Engine",
    "EngineServer",
    "serve",
]

PROTOCOL = "colorwars-engine"
PROTOCOL_VERSION = 1
#: The longest line either side sends, in bytes (without its newline).
MAX_LINE = 65536
#: The most positions one ``analyse`` request may hold.
MAX_POSITIONS = 64
#: Seconds ``analyse`` spends on the exact result of a position unless told (``exact``).
EXACT_SECONDS = 1.0
#: Seconds ``analyse`` searches a position unless told (``time`` or ``simulations``).
ANALYSE_SECONDS = 1.0

_COMMANDS = (
    "protocol, isready, newgame, position, play, undo, legal, show, status, go, analyse, "
    "setoption, stop, quit"
)
#: The commands that take no arguments: a word after one is refused (``error usage: show``),
#: as a bad argument of any other command is, rather than ignored.
_NO_ARGUMENTS = ("protocol", "isready", "undo", "legal", "show", "status", "stop", "quit")
_BUDGET_KEYS = ("time", "simulations", "depth")
#: What an ``analyse`` request may hold.
_ANALYSE_KEYS = ("positions", "id", "time", "simulations", "exact")


class _StoppedError(Exception):
    """Raised inside an exact solve when its time is up or a ``stop`` came."""


def _letter(player: int | None) -> str:
    return "-" if player is None else PLAYER_LETTERS[player]


def _number(text: str, what: str, whole: bool) -> float:
    try:
        # Python's own readers also take other scripts' digits (U+FF15) and underscores (1_000).
        if not text.isascii() or "_" in text:
            raise ValueError(text)
        value = int(text) if whole else float(text)
    except ValueError:
        raise EngineError(
            f"invalid {what} {text!r}: expected {'a whole number' if whole else 'a number'}"
        ) from None
    return value


def _budgeted(name: str, budget: dict[str, float], seed: int) -> Any:
    """The player ``name`` (as ``parse_player`` reads it) with the budget of a ``go``
    (``time``, ``simulations``, ``depth``) in place of its own and the engine's seed (when
    not 0); random and greedy take neither."""
    if name.lower().startswith("engine:"):
        if set(budget) - {"time"}:
            raise EngineError("an engine player takes only time= in go")
        command = name[len("engine:") :]
        return Engine(command, time=budget["time"]) if budget else Engine(command)
    kind, *items = name.split(":")
    kind = kind.strip().lower()
    takes = _go_keys(kind)
    if takes is not None and set(budget) - set(takes):
        wrong = sorted(set(budget) - set(takes))[0]
        raise EngineError(
            f"go {wrong}= does not apply to the player {kind}: it takes "
            + " and ".join(f"{k}=" for k in takes)
        )
    if kind not in _SHORTHAND or (not budget and not seed):
        return parse_player(name)
    # The shorthand budget (mcts:2000, alphabeta:6) written out, so that settings can follow.
    items = [f"{_SHORTHAND[kind]}={i}" if i.strip().isdigit() else i for i in items]
    drop = (_BUDGET_KEYS if budget else ()) + (("seed",) if seed else ())
    kept = [i for i in items if i.partition("=")[0].strip().lower() not in drop]
    given = [f"{k}={v if k == 'time' else int(v)}" for k, v in budget.items()]
    return parse_player(":".join([kind, *kept, *given, *([f"seed={seed}"] if seed else [])]))


def _go_keys(kind: str) -> tuple[str, ...] | None:
    """The keys of a ``go`` the player ``kind`` takes: the budget keys among its settings
    (None for random and greedy, which take none and ignore them all, so that a program
    that always sends a time can play them too)."""
    settings = _SETTINGS.get("alphabeta" if kind == "ab" else kind)
    return None if settings is None else tuple(k for k in _BUDGET_KEYS if k in settings)


# The players a budget and a seed apply to, and what their shorthand number is.
_SHORTHAND = {"mcts": "simulations", "zero": "simulations", "alphabeta": "depth",
              "ab": "depth", "learned": "depth", "zeroab": "depth",
              "perfect": "time"}  # fmt: skip


class _StopFlag:
    """What a search started by command number ``seq`` asks to know whether to stop: a
    ``stop`` (or ``quit``) read after that command."""

    def __init__(self, server: EngineServer, seq: int) -> None:
        self._server = server
        self._seq = seq
        #: Whether a search asking has been told to stop: a ``go`` whose search ended
        #: before it looked has run to its end, though a ``stop`` came after.
        self.seen = False

    def is_set(self) -> bool:
        if self._server.stopped_after > self._seq:
            self.seen = True
        return self.seen


class EngineServer:
    """The engine's state and its answers. ``handle(line, seq)`` answers command number
    ``seq`` through ``write`` (one call a line), running a ``go`` or an ``analyse`` to its end
    on the calling thread; ``stop(seq)``, from any thread, ends every search of a command
    read before ``seq`` (running or still to come)."""

    def __init__(self, write: Callable[[str], object], player: str = "alphabeta") -> None:
        self._write = write
        self._lock = threading.Lock()
        self.game = Game()
        self.player = "alphabeta"
        self.seed = 0
        self._set_player(player)
        # The default player is alpha-beta, which plays two players only: it hands games of
        # more to MCTS, as colorwars play's ai does. A player named outright is kept.
        self._default = player == "alphabeta"
        self.stopped_after = -1

    def say(self, line: str) -> None:
        with self._lock:
            self._write(line)

    def stop(self, seq: int) -> None:
        self.stopped_after = max(self.stopped_after, seq)

    def _set_player(self, name: str) -> None:
        _budgeted(name, {}, 0)  # refuses a name that is no player
        self.player = name

    # -- the commands ------------------------------------------------------------------------
    def handle(self, line: str, seq: int = 0) -> None:
        """Answers one line (``stop`` and ``quit`` are the reader's: see ``serve``)."""
        words = line.split()
        if not words or words[0].startswith("#"):
            return
        command, rest = words[0].lower(), words[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if command in _NO_ARGUMENTS and rest:  # stop and quit reach here only so
            self.say(f"error usage: {command} (it takes no arguments)")
            return
        if handler is None or command in ("stop", "quit"):
            self.say(f"error unknown command {command[:40]!r}: expected one of {_COMMANDS}")
            return
        try:
            answer = handler(rest, line, _StopFlag(self, seq))
        except (ColorwarsError, MemoryError) as e:
            answer = f"error {_one_line(e)}"
        except Exception as e:  # a bug of ours: still an answer, never a hang
            answer = f"error internal error: {type(e).__name__}: {_one_line(e)}"
        self.say(answer)

    def _cmd_protocol(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        return f"protocol {PROTOCOL} {PROTOCOL_VERSION} colorwars {_core.VERSION}"

    def _cmd_isready(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        return "readyok"

    def _cmd_newgame(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        if not 2 <= len(rest) <= 4:
            raise EngineError("usage: newgame WIDTH HEIGHT [RULES [PLAYERS]]")
        width = int(_number(rest[0], "width", True))
        height = int(_number(rest[1], "height", True))
        rules = rest[2] if len(rest) > 2 else "colorwars"
        players = int(_number(rest[3], "player count", True)) if len(rest) > 3 else 2
        self.game = Game(width, height, players, rules)
        return "ok"

    def _cmd_position(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        if "moves" in rest:
            at = rest.index("moves")
            text, moves = rest[:at], rest[at + 1 :]
        else:
            text, moves = rest, []
        if not text:
            raise EngineError("usage: position NOTATION [moves MOVE ...]")
        game = Game.from_text(" ".join(text))
        for move in moves:  # on a new game: a bad move leaves the engine's game as it was
            game.play(move)
        self.game = game
        return "ok"

    def _cmd_play(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        if len(rest) != 1:
            raise EngineError("usage: play MOVE")
        self.game.play(rest[0])
        return "ok"

    def _cmd_undo(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        try:
            self.game.pop()
        except InvalidIndexError:
            raise EngineError(
                "no move to undo: none has been played since the last newgame or position"
            ) from None
        return "ok"

    def _cmd_legal(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        return " ".join(["legal", *(self.game.cell_name(c) for c in self.game.legal_moves())])

    def _cmd_show(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        return f"position {self.game.to_text()}"

    def _cmd_status(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        g = self.game
        out = "".join(PLAYER_LETTERS[p] for p in g.out) or "-"
        to_move = "-" if g.winner is not None else _letter(g.to_move)
        return f"status to_move={to_move} winner={_letter(g.winner)} ply={g.ply} out={out}"

    def _cmd_setoption(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        text = line.strip()[len(line.split()[0]) :].strip()
        key, eq, value = text.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or not value:
            raise EngineError("usage: setoption player=NAME or setoption seed=N")
        if key == "player":
            self._set_player(value)
            self._default = False
        elif key == "seed":
            self.seed = check.seed(int(_number(value, "seed", True)))
        else:
            raise EngineError(f"unknown option {key[:40]!r}: expected player or seed")
        return "ok"

    def _budget(self, items: list[str]) -> dict[str, float]:
        budget: dict[str, float] = {}
        for item in items:
            key, eq, value = item.partition("=")
            key = key.lower()
            if not eq or key not in _BUDGET_KEYS:
                raise EngineError(
                    f"invalid search budget {item[:40]!r}: expected time=SECONDS, "
                    "simulations=N or depth=D"
                )
            budget[key] = _number(value, key, key != "time")
        if "time" in budget:
            check.time_budget(budget["time"])
        return budget

    def _cmd_go(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        budget = self._budget(rest)
        game = self.game.copy()
        name = self.player
        if self._default and game.players > 2:
            name = "mcts"
            budget.pop("depth", None)  # alpha-beta's; MCTS takes time or simulations
        player = _budgeted(name, budget, self.seed)
        if game.winner is not None:
            raise EngineError(
                f"the game is over (player {_letter(game.winner)} has won): no move to search"
            )
        decision = _decide(player, game, stop)
        self.say(
            f"info player={player.name} work={decision.work} seconds={decision.seconds:.3f} "
            f"stopped={'yes' if stop.seen else 'no'}"
        )
        return f"bestmove {game.cell_name(decision.cell)}"

    def _cmd_analyse(self, rest: list[str], line: str, stop: _StopFlag) -> str:
        text = line.strip()[len(line.split()[0]) :].strip()
        try:
            request = json.loads(text)
        except json.JSONDecodeError as e:
            raise EngineError(f"analyse expects one JSON object: {e}") from None
        if not isinstance(request, dict):
            raise EngineError("analyse expects one JSON object (with positions)")
        _known_keys(request, _ANALYSE_KEYS, "analyse: unknown key {key}: expected {allowed}")
        jobs = _analysis_jobs(request, self.game)
        ident = request.get("id")
        if not (ident is None or (isinstance(ident, str | int) and not isinstance(ident, bool))):
            raise EngineError("analyse: id must be a text or a whole number")
        budget = _analysis_budget(request)
        started = time.perf_counter()
        analysed = 0
        for index, job in enumerate(jobs):
            answer: dict[str, Any] = {"id": ident, "index": index}
            if stop.is_set():  # every position gets its line, those not searched say why
                answer["error"] = "not analysed: stopped"
            elif isinstance(job, str):
                answer["error"] = job
            else:
                answer.update(_analyse(job, budget, self.seed, stop))
                analysed += 1
            self.say(json.dumps(answer, separators=(",", ":")))
        return json.dumps({
            "id": ident, "done": True, "positions": len(jobs), "analysed": analysed,
            "stopped": stop.is_set(),
            "seconds": round(time.perf_counter() - started, 3),
        }, separators=(",", ":"))  # fmt: skip


_INTERPRETERS = ("python", "sh", "bash", "dash", "node", "ruby", "perl", "java")


def _label(args: Sequence[str]) -> str:
    """What to call the program ``args`` runs: its file name, or the script's (or module's)
    an interpreter runs (``python3 x/bot.py`` is ``bot.py``, ``python3 -m colorwars``
    ``colorwars``)."""
    base = os.path.basename(args[0])
    if base.startswith(_INTERPRETERS) and len(args) > 1:
        if args[1] == "-m" and len(args) > 2:
            return args[2]
        if not args[1].startswith("-"):
            return os.path.basename(args[1])
    return base


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _decide(player: Any, game: Game, stop: _StopFlag) -> Decision:
    """The player's move: a player whose ``search`` takes ``stop`` (the engine's own, with
    or without a probe, ``Zero``, ``ZeroAlphaBeta``, ``Perfect``, an ``Engine``, which sends
    its program ``stop``, or anyone's) ends its search early on ``stop``; any other runs its
    own budget out."""
    search = getattr(player, "search", None)
    if search is not None:
        decision: Decision = search(game, stop) if _takes_stop(search) else search(game)
        return decision
    start = time.perf_counter()
    return Decision(player.choose(game), 0, time.perf_counter() - start)


def _known_keys(obj: dict[str, Any], allowed: Sequence[str], message: str) -> None:
    """Refuses a key of ``obj`` outside ``allowed`` (a misspelt key would otherwise be
    ignored without a word): ``message`` with ``{key}`` and ``{allowed}`` filled in."""
    unknown = sorted(str(k) for k in obj if k not in allowed)
    if unknown:
        raise EngineError(message.format(key=repr(unknown[0][:40]), allowed=", ".join(allowed)))


def _analysis_jobs(request: dict[str, Any], current: Game) -> list[Game | str]:
    """The games of an analysis request (``positions``: notations, optionally with
    ``moves ...``, or objects ``{"position": ..., "moves": [...]}``; none: the engine's
    current game); a position that cannot be read is its error text, answered in its turn."""
    positions = request.get("positions")
    if positions is None:  # the current game, answered like any other position
        if current.winner is not None:
            return [f"the game is over (player {_letter(current.winner)} has won)"]
        return [current.copy()]
    if not isinstance(positions, list) or not positions:
        raise EngineError("analyse: positions must be a non-empty list")
    if len(positions) > MAX_POSITIONS:
        raise EngineError(
            f"analyse: {len(positions)} positions in one request, at most {MAX_POSITIONS}"
        )
    jobs: list[Game | str] = []
    for item in positions:
        try:
            if isinstance(item, str):
                words = item.split()
                at = words.index("moves") if "moves" in words else len(words)
                text, moves = " ".join(words[:at]), words[at + 1 :]
            elif isinstance(item, dict) and isinstance(item.get("position"), str):
                _known_keys(
                    item,
                    ("position", "moves"),
                    "unknown key {key} in a position: expected {allowed}",
                )
                text, moves = item["position"], item.get("moves", [])
                if not isinstance(moves, list):
                    raise EngineError("moves must be a list of cell names")
            else:
                raise EngineError("a position is a notation text or {position, moves}")
            game = Game.from_text(text)
            for move in moves:
                game.play(move)
            if game.winner is not None:
                raise EngineError(f"the game is over (player {_letter(game.winner)} has won)")
            jobs.append(game)
        except (ColorwarsError, TypeError) as e:
            jobs.append(_one_line(e))
    return jobs


def _analysis_budget(request: dict[str, Any]) -> dict[str, float]:
    budget: dict[str, float] = {}
    for key in ("time", "simulations", "exact"):
        value = request.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EngineError(f"analyse: {key} must be a number")
        budget[key] = value
    if "time" in budget:
        check.time_budget(budget["time"])
    if "simulations" in budget:
        check.simulations(budget["simulations"], 1)
    if "exact" in budget and not 0 <= budget["exact"] <= 3600:
        raise EngineError("analyse: exact must be from 0 to 3600 seconds")
    if "time" not in budget and "simulations" not in budget:
        budget["time"] = ANALYSE_SECONDS
    return budget


def _exact(game: Game, seconds: float, stop: _StopFlag) -> Any:
    """The exact solution of ``game`` if the solver proves it within ``seconds`` (two
    players), else None."""
    if seconds <= 0 or game.players != 2:
        return None
    from colorwars.solver import solve

    deadline = time.perf_counter() + seconds

    def tick(positions: int) -> None:
        if stop.is_set() or time.perf_counter() > deadline:
            raise _StoppedError

    try:
        return solve(game, progress=tick)
    except (_StoppedError, SearchLimitError):
        return None


def _analyse(game: Game, budget: dict[str, float], seed: int, stop: _StopFlag) -> dict[str, Any]:
    """One position's analysis: every legal move's visits, share and value (MCTS with its
    solver), and the exact result where the solver proves it in time."""
    from colorwars.players import MCTS

    start = time.perf_counter()
    mcts = MCTS(
        simulations=int(budget["simulations"]) if "simulations" in budget else None,
        time=budget.get("time"), seed=seed,
    )  # fmt: skip
    rows, simulations = _core.ai_analyse(native_game(game), mcts.native_spec(), seed, stop)
    solution = _exact(game, budget.get("exact", EXACT_SECONDS), stop)
    total = max(sum(v for _, v, _ in rows), 1)
    moves = []
    for cell, visits, reward in sorted(rows, key=lambda r: -r[1]):
        row: dict[str, Any] = {
            "move": game.cell_name(cell),
            "visits": visits,
            "share": round(visits / total, 4),
            "value": round(2 * reward / visits - 1, 4) if visits else None,
            "exact": None,
        }
        if solution is not None and cell in solution.moves:
            winner, plies = solution.moves[cell]
            row["exact"] = {"winner": _letter(winner), "plies": plies}
        moves.append(row)
    answer: dict[str, Any] = {
        "position": game.to_text(),
        "to_move": _letter(game.to_move),
        "bestmove": moves[0]["move"] if moves else None,
        "moves": moves,
        "simulations": simulations,
        "exact": None,
        "stopped": stop.is_set(),
        "seconds": round(time.perf_counter() - start, 3),
    }
    if solution is not None:
        answer["exact"] = {"winner": _letter(solution.winner), "plies": solution.plies}
        best = solution.winning_moves()
        if best:  # a proven win: the fastest one is the move
            answer["bestmove"] = game.cell_name(best[0])
    return answer


_TOO_LONG = "\0 too long"
_NOT_UTF8 = "\0 not UTF-8"


def _lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of ``stream`` without their newline; ``_TOO_LONG`` for one over ``MAX_LINE``
    bytes (the rest of it is skipped), ``_NOT_UTF8`` for one that is not UTF-8."""
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE + 1)
            yield _TOO_LONG
            continue
        try:
            yield raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            yield _NOT_UTF8


#: Commands read but not yet answered, at most: the reader waits beyond that (a ``stop``
#: behind them is then read once the queue has room).
MAX_QUEUED = 1024
#: Seconds the lines a program wrote before it exited have to arrive, once it has exited; then
#: it is taken as ended, even when a program it started still holds its output open (the end
#: of the output would come only when that one ends, or at the timeout).
EXITED_GRACE = 0.5


def serve(
    stdin: IO[bytes] | None = None, stdout: IO[str] | None = None, player: str = "alphabeta"
) -> int:
    """Answers the protocol on ``stdin`` (bytes) and ``stdout`` (text), with ``player``
    searching (``setoption`` changes it), until ``quit`` or the end of the input; returns 0.

    This thread reads; another answers the commands in order, one at a time, a search
    included. So ``stop`` is seen while a search runs and ends it (and any search queued
    before it); ``quit`` stops the searches before it and ends the engine once every command
    before it is answered; at the end of the input every command read is answered in full.

    An output closed early (``colorwars engine | head -1``) ends it with ``BrokenPipeError``,
    for the caller to end quietly; an output that cannot be written otherwise (a full disk)
    with ``FileError`` saying so. Either way the commands still queued go unanswered."""
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout
    where = "standard output" if stdout is None else "the engine's output"

    def write(line: str) -> None:
        sink.write(line + "\n")
        sink.flush()

    server = EngineServer(write, player)
    queue: Queue[tuple[int, str] | None] = Queue(MAX_QUEUED)
    closed = threading.Event()  # the output's reader has gone, or it cannot be written
    failed: list[OSError] = []  # why it cannot be written, when not a closed pipe

    def answer() -> None:
        while (item := queue.get()) is not None:
            if closed.is_set():
                continue  # nobody reads the answers: take the rest off the queue unanswered
            seq, line = item
            try:
                if line == _TOO_LONG:
                    server.say(f"error line too long: at most {MAX_LINE} bytes")
                elif line == _NOT_UTF8:
                    server.say("error the line is not UTF-8 text")
                else:
                    server.handle(line, seq)
            except OSError as e:  # a closed pipe, a full disk: nothing more can be said
                if not isinstance(e, BrokenPipeError):
                    failed.append(e)
                closed.set()
                server.stop(sys.maxsize)

    worker = threading.Thread(target=answer, name="colorwars engine", daemon=True)
    worker.start()
    try:
        for seq, line in enumerate(_lines(source)):
            if closed.is_set():
                break
            words = line.split()
            # stop and quit with words after them are refused in their turn (handle).
            command = words[0].lower() if len(words) == 1 else ""
            if command in ("stop", "quit"):
                server.stop(seq)
                if command == "quit":
                    break
            else:
                queue.put((seq, line))
    except BaseException:
        server.stop(sys.maxsize)  # Ctrl-C: stop searching, then end
        raise
    finally:
        queue.put(None)
        worker.join()
    if failed:
        e = failed[0]
        raise FileError(f"cannot write to {where}: {e.strerror or e}")
    if closed.is_set():
        raise BrokenPipeError("the engine's output was closed")  # the caller ends quietly
    return 0


def _command_words(command: str | Sequence[str], error: type[Exception]) -> list[str]:
    """An engine command as its program and arguments: a text is split as a shell would
    (an unbalanced quote is ``error``, saying so), a sequence taken as it is."""
    if not isinstance(command, str):
        if isinstance(command, (bytes, bytearray)) or not isinstance(command, Sequence):
            raise error(
                f"invalid engine command {command!r:.80}: expected a text (split as a shell "
                "would) or a sequence of arguments"
            )
        return [str(a) for a in command]
    try:
        return shlex.split(command)
    except ValueError as e:  # "No closing quotation", "No escaped character"
        raise error(
            f"invalid engine command {command[:80]!r}: {str(e).lower()} (it is split as a "
            "shell would: quote an argument with spaces in it, and close every quote)"
        ) from None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kills every program of ``process``'s group (it runs in a session of its own)."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)


class Client:
    """Drives a program that speaks the engine protocol: starts ``command`` (a list of
    arguments, or a text split as a shell would), checks its ``protocol`` answer, then
    ``request(line)`` sends one command and returns its final answer line. Anything the
    engine does wrong (an ``error`` answer, garbage, a line over ``MAX_LINE`` bytes, no
    answer within the timeout, an exit) is an ``EngineError`` saying which; the process is
    then killed. ``info`` holds the ``info`` lines of the last answer. A context manager;
    ``close()`` ends the engine (``quit``, then a kill if it lingers)."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 10.0,
        env: dict[str, str] | None = None,
    ) -> None:
        args = _command_words(command, EngineError)
        if not args:
            raise EngineError("invalid engine command: it is empty")
        self.command = args
        self.name = _label(args)
        self.timeout = timeout
        self.info: list[str] = []
        self._answers: Queue[str | None] = Queue()  # None: the engine's output ended
        self._exited_at: float | None = None  # when the program was first seen to have exited
        self._stderr: deque[str] = deque(maxlen=5)
        try:
            self._process = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, start_new_session=True,  # Ctrl-C reaches us, and we stop it
            )  # fmt: skip
        except OSError as e:
            raise EngineError(
                f"cannot start engine {shlex.join(args)}: {e.strerror or e}"
            ) from None
        threading.Thread(target=self._read, name="colorwars engine reader", daemon=True).start()
        self._errors = threading.Thread(
            target=self._read_errors, name="colorwars engine stderr", daemon=True
        )
        self._errors.start()
        try:
            answer = self.request("protocol")
            words = answer.split()
            if words[:3] != ["protocol", PROTOCOL, str(PROTOCOL_VERSION)]:
                raise self._failed(
                    f"does not speak {PROTOCOL} {PROTOCOL_VERSION} (it answered {answer[:80]!r})"
                )
        except BaseException:
            self.kill()
            raise

    # The readers close their own streams at the end of the output (every writer gone):
    # closing a stream under a thread blocked reading it raised in that thread and waited
    # for whatever still held the pipe open (a program the engine had started).
    def _read(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            for line in _lines(stream):
                self._answers.put(line)
        self._answers.put(None)
        with contextlib.suppress(OSError):
            stream.close()

    def _read_errors(self) -> None:
        stream = self._process.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            for line in _lines(stream):
                if line:
                    self._stderr.append(line[:200])
        with contextlib.suppress(OSError):
            stream.close()

    def _failed(self, what: str) -> EngineError:
        self.kill()
        return EngineError(f"engine {self.name} {what}")

    def _exited(self) -> EngineError:
        try:
            status = self._process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            status = None
        # Its last words, read to the end (a program it started may hold them open: then
        # what it wrote before it exited has had EXITED_GRACE seconds to arrive).
        self._errors.join(timeout=1 if self._exited_at is None else 0.2)
        said = f" (its last words: {self._stderr[-1]!r})" if self._stderr else ""
        how = "ended its output" if status is None else f"exited with status {status}"
        return self._failed(f"{how}{said}")

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def send(self, line: str) -> None:
        """Sends one command that has no answer (``stop``, ``quit``)."""
        if "\n" in line or len(line.encode()) > MAX_LINE:
            raise EngineError(
                f"invalid command for engine {self.name}: one line of at most {MAX_LINE} bytes"
            )
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(line.encode() + b"\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._exited() from None

    def answer(self, timeout: float | None = None) -> str:
        """The next line the engine writes (``info`` lines included)."""
        wait = self.timeout if timeout is None else timeout
        try:
            line = self._next(wait)
        except Empty:
            raise self._failed(f"gave no answer within {wait:g} s") from None
        return self._checked(line)

    def _next(self, timeout: float) -> str | None:
        """The next line read from the engine (None: its output ended), within ``timeout``
        seconds, else ``Empty``. A program that has exited is taken as ended once the lines it
        wrote have had ``EXITED_GRACE`` seconds to arrive, not at the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            if self._exited_at is None and self._process.poll() is not None:
                self._exited_at = now
            if self._exited_at is not None and now - self._exited_at >= EXITED_GRACE:
                try:
                    return self._answers.get_nowait()
                except Empty:
                    return None
            try:  # in slices, to look at the program between them (a line comes at once)
                return self._answers.get(timeout=max(min(deadline - now, 0.05), 0))
            except Empty:
                if time.monotonic() >= deadline:
                    raise

    def _checked(self, line: str | None) -> str:
        """A line read from the engine, or the error it stands for."""
        if line is None:
            raise self._exited()
        if line == _TOO_LONG:
            raise self._failed(f"wrote a line over {MAX_LINE} bytes")
        if line == _NOT_UTF8:
            raise self._failed("wrote a line that is not UTF-8 text")
        return line

    def request(
        self,
        line: str,
        timeout: float | None = None,
        expect: str | None = None,
        stop: Any = None,
    ) -> str:
        """Sends ``line`` and returns its final answer (the ``info`` lines before it go to
        ``info``); ``expect``: the word the answer must start with. ``stop`` (anything with
        ``is_set()``) is watched while the answer is awaited: once it is set, the engine is
        sent ``stop`` (once), and the answer it then gives is returned as usual."""
        self.info = []
        self.send(line)
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        sent = False
        while True:
            if stop is not None:
                # Looks at ``stop`` before every line and every 20 ms while none comes (an
                # engine may write ``info`` lines all the time), until it is sent on.
                if not sent:
                    try:
                        sent = bool(stop.is_set())
                    except BaseException:
                        self.kill()  # the answer will not be read: the engine is out of step
                        raise
                    if sent:
                        self.send("stop")
                try:
                    raw = self._next(min(max(deadline - time.monotonic(), 0), 0.02))
                except Empty:
                    if time.monotonic() >= deadline:
                        raise self._failed(f"gave no answer within {wait:g} s") from None
                    continue
                answer = self._checked(raw)
            else:
                try:
                    raw = self._next(max(deadline - time.monotonic(), 0.001))
                except Empty:
                    raise self._failed(f"gave no answer within {wait:g} s") from None
                answer = self._checked(raw)
            if answer.startswith("info ") or answer == "info":
                self.info.append(answer)
                continue
            if answer.startswith("error"):
                raise EngineError(f"engine {self.name} refused {line[:60]!r}: {answer[5:].strip()}")
            if expect is not None and answer.split(" ", 1)[0] != expect:
                raise self._failed(
                    f"answered {answer[:80]!r} to {line[:60]!r} (expected {expect} ...)"
                )
            return answer

    def analyse(
        self, request: dict[str, Any], timeout: float | None = None
    ) -> Iterator[dict[str, Any]]:
        """Sends an ``analyse`` request and yields its answers as they come, the final
        ``{"done": true, ...}`` one last."""
        self.send("analyse " + json.dumps(request, separators=(",", ":")))
        wait = self.timeout if timeout is None else timeout
        while True:
            line = self.answer(wait)
            if line.startswith("info"):
                continue
            if line.startswith("error"):
                raise EngineError(f"engine {self.name} refused the analysis: {line[5:].strip()}")
            try:
                answer = json.loads(line)
            except json.JSONDecodeError:
                raise self._failed(
                    f"answered {line[:80]!r} to an analysis (expected JSON)"
                ) from None
            if not isinstance(answer, dict):
                raise self._failed(f"answered {line[:80]!r} to an analysis (expected an object)")
            yield answer
            if answer.get("done"):
                return

    def kill(self) -> None:
        """Kills the engine and every program it started (its process group: it runs in a
        session of its own), so that none of them keeps its output open."""
        # The group outlives its first program while any other member lives (a launcher
        # script may have exited and left the program it started), and its number is not
        # given to a new process meanwhile.
        _kill_group(self._process)
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        if self._process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self._process.stdin.close()

    def close(self) -> None:
        """Ends the engine: ``quit``, a second to go, then killed."""
        if self._process.poll() is None:
            try:
                self.send("quit")
                self._process.wait(timeout=1)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None and process.returncode is None:
            _kill_group(process)
            with contextlib.suppress(OSError):
                process.kill()


class Engine:
    """A player that is another program speaking the engine protocol (``colorwars engine``
    or any other): ``Engine("CMD ARGS", time=1.0)``. Each move sends the position and ``go
    time=T`` and checks the answer; in a name, ``engine:CMD ARGS``. An engine that does not
    answer in time (``time`` plus ``grace`` seconds), answers garbage or an illegal move, or
    exits, makes ``choose`` raise ``EngineError`` saying which, and is killed (the next move
    starts it again, with ``startup`` seconds to answer ``protocol``); ``ai.match``,
    ``tournament`` and ``ladder`` score that game as lost by its seat. A program that could
    not be started at all (not there, exited, or no ``protocol`` answer in time) is not
    started again: every later move raises the same ``EngineError`` at once, and
    ``start_failure`` says why (a new ``Engine`` tries again). One process per ``Engine``,
    started at its first move; ``close()`` ends it."""

    def __init__(
        self,
        command: str | Sequence[str],
        time: float = 1.0,
        seed: int = 0,
        *,
        grace: float = 5.0,
        startup: float = 30.0,
        name: str | None = None,
    ) -> None:
        args = _command_words(command, InvalidPlayerError)
        if not args:
            check.fail(InvalidPlayerError, "engine command", command, "expected a program to run")
        self.command = args
        budget = check.time_budget(time)
        if budget is None:
            check.fail(InvalidPlayerError, "engine time", time, "expected seconds per move")
        self.time: float = budget
        self.seed = check.seed(seed)
        self.grace = check.number(grace, "grace", 0.0, 3600.0, InvalidPlayerError)
        self.startup = check.number(startup, "startup", 0.1, 3600.0, InvalidPlayerError)
        self._label = name or _label(args)
        self._client: Client | None = None
        self._lock = threading.Lock()
        #: Why the program could not be started, once it could not: it is not started again.
        self.start_failure: str | None = None

    @property
    def name(self) -> str:
        """``engine(PROGRAM)``: the program's file name (or the ``name`` given)."""
        return f"engine({self._label})"

    def __repr__(self) -> str:
        return f"Engine({shlex.join(self.command)!r}, time={self.time:g})"

    def native_spec(self) -> Any:
        raise InvalidPlayerError(
            f"invalid player: {self.name} is another program and not one of the engine's batch "
            "players; " + PLAY_IT
        )

    def _started(self) -> Client:
        if self.start_failure is not None:
            # A program that could not be started (none there, it exited or did not answer
            # protocol) is not tried again: a tournament's every game would wait for it.
            raise EngineError(self.start_failure)
        if self._client is None or not self._client.alive:
            try:
                self._client = Client(self.command, timeout=self.startup)
            except EngineError as e:
                self.start_failure = str(e)
                raise
            if self.seed:
                self._client.request(f"setoption seed={self.seed}", timeout=self.grace)
        return self._client

    def search(self, game: Any, stop: Any = None) -> Decision:
        """The engine's move in ``game`` with the work it reports (its ``info`` line's
        ``work=``, else 0) and the seconds it took; ``EngineError`` if it misbehaves.
        ``stop`` (anything with ``is_set()``; the engine's own ``stop`` command when this
        player plays inside ``colorwars engine``) sends the program ``stop`` while it thinks,
        and its answer then is the move."""
        check.stop_flag(stop)
        native = _live(game)  # GameOverError once won, as for every player
        with self._lock:
            start = time.perf_counter()
            try:
                client = self._started()
                client.request(f"position {native.to_text()}", timeout=self.grace, expect="ok")
                answer = client.request(
                    f"go time={self.time:g}",
                    timeout=self.time + self.grace,
                    expect="bestmove",
                    stop=stop,
                )
            except BaseException:  # misbehaved, or Ctrl-C: its state is unknown, end it
                self.close()
                raise
            seconds = time.perf_counter() - start
            words = answer.split()
            here = Game.from_text(native.to_text())
            try:
                if len(words) != 2:
                    raise EngineError(f"answered {answer[:80]!r} (expected bestmove CELL)")
                cell = here.cell(words[1])
                if not here.is_legal(cell):
                    try:
                        here.play(cell)
                    except ColorwarsError as e:
                        raise EngineError(f"answered an illegal move: {_one_line(e)}") from None
            except ColorwarsError as e:
                self.close()
                message = str(e) if isinstance(e, EngineError) else f"answered {words[1]!r}: {e}"
                raise EngineError(f"engine {self._label} {message}") from None
            work = 0
            for line in client.info:
                for item in line.split()[1:]:
                    key, _, value = item.partition("=")
                    if key == "work" and value.isdigit() and len(value) < 20:
                        work = int(value)
            return Decision(cell, work, seconds)

    def choose(self, game: Any) -> int:
        """The engine's move in ``game``: ``search(game).cell``."""
        return self.search(game).cell

    def close(self) -> None:
        """Ends the engine's process (a later move starts it again)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __del__(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.kill()
