"""The web app's games, without HTTP: each live game with its seats (a human or an AI player),
the bounded store that keeps them, the AI players a request may ask for (with the web's
limits), and the JSON the HTTP API answers with (``app.py`` serves it).

>>> store = GameStore()
>>> live = store.create({"seats": ["human", "greedy"], "seed": 7})
>>> live.seats, live.game.to_move
(('human', 'greedy'), 0)
>>> state = live.play("c3")
>>> state["position"], [w["bursts"] for w in state["waves"]]
('5x5 colorwars 2 ...../...../..3a../...../..... b a - 1', [])
>>> store.get(live.id) is live
True
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from colorwars import _core
from colorwars import _validate as check
from colorwars._common import PLAYER_COLOURS, PLAYER_LETTERS, column_name
from colorwars.errors import (
    ColorwarsError,
    ConfigError,
    IllegalMoveError,
    InvalidIndexError,
    InvalidMoveError,
    InvalidPlayerError,
    InvalidPlayersError,
)
from colorwars.game import Game
from colorwars.perfect import Perfect
from colorwars.players import (
    MCTS,
    PLAYER_NAMES,
    AlphaBeta,
    Greedy,
    Player,
    Random,
    native_game,
    parse_player,
)
from colorwars.record import GameRecord
from colorwars.rules import PRESETS, resolve
from colorwars.strongest import zero_is_strongest
from colorwars.web.db import GameDB, StoreError
from colorwars.zero.player import MAX_SIDE as ZERO_MAX_SIDE
from colorwars.zero.player import Zero, _time_cap

__all__ = [
    "AI_SECONDS",
    "AI_WAIT_SECONDS",
    "AI_WORKERS",
    "ANALYSIS_SECONDS",
    "HINT_SECONDS",
    "HISTORY_PAGE",
    "HUMAN",
    "MAX_AI_REQUESTS",
    "MAX_AI_REQUESTS_PER_CLIENT",
    "MAX_DEPTH",
    "MAX_GAMES_PER_CLIENT",
    "MAX_LIVE_GAMES",
    "MAX_ONLINE_GAMES",
    "MAX_ONLINE_GAMES_PER_CLIENT",
    "MAX_REPLAYS",
    "MAX_REPLAYS_PER_CLIENT",
    "MAX_SIMULATIONS",
    "REPLAY_WAIT_SECONDS",
    "REPLAY_WORKERS",
    "GameStore",
    "LiveGame",
    "RequestError",
    "ai_player",
    "analyse",
    "body_fields",
    "build",
    "error_json",
    "exact",
    "hint_player",
    "options",
    "rematch",
]

HUMAN = "human"
# The web's limits, all of them (a local server shares its cores with the browser). A client is
# the peer address of a request (see ``app.py``). The live games kept, per client and in all
# (a 32x32 game of 6,000 plies holds about 9 MB):
MAX_GAMES_PER_CLIENT = 100
MAX_LIVE_GAMES = 500
# Online games (a link for each seat, moves pushed to every browser watching): in all, and per
# client (beyond it, the client's online game left alone longest is forgotten).
MAX_ONLINE_GAMES = 100
MAX_ONLINE_GAMES_PER_CLIENT = 20
# Every AI search's budget and time:
MAX_SIMULATIONS = 200_000
# Zero's simulations when a client names them: each evaluates the network (about 25,000 a
# second on one core with the colorwars network on 5 x 5, 80,000 with the classic one on
# 8 x 8: benchmarks/bench_zero.py), and its tree takes memory by the simulation: 20,000 take
# up to about 150 MB on a 12 x 12 board.
# Hard and the hint, the server's own choice, search Zero's time alone (``HARD_ZERO``).
MAX_ZERO_SIMULATIONS = 20_000
MAX_DEPTH = 10
AI_SECONDS = 5.0  # an AI seat's move stops by then, whatever its budget
HINT_SECONDS = 1.0
ANALYSIS_SECONDS = 10.0
# AI requests (AI moves, hints, analyses) run in AI_WORKERS threads; beyond them they wait, at
# most AI_WAIT_SECONDS, and at most MAX_AI_REQUESTS_PER_CLIENT of one client and
# MAX_AI_REQUESTS in all are running or waiting: any more is refused at once (503).
AI_WORKERS = os.cpu_count() or 1
MAX_AI_REQUESTS_PER_CLIENT = 8
MAX_AI_REQUESTS = 32
AI_WAIT_SECONDS = 5.0
# Replays (a new game from a record) and histories run in threads of their own, never behind
# AI work, with the same kinds of bounds; a history comes in pages of HISTORY_PAGE positions
# (under 2 MB on a 32x32 board).
REPLAY_WORKERS = os.cpu_count() or 1
MAX_REPLAYS_PER_CLIENT = 8
MAX_REPLAYS = 32
REPLAY_WAIT_SECONDS = 10.0
HISTORY_PAGE = 1000
# Boards the exact solver answers quickly, by opening (measured from the empty board: 4x4
# colorwars 0.9 s, 3x3 classic 0.01 s, 3x4 classic 6 s, 3x4 none+empty 21 s).
SOLVE_MAX_CELLS = {"drop3": 16, "none": 9}
# Beyond them (and on them, when the exact solver runs out of time), proof-number search, for
# EXACT_SECONDS in an analysis and HINT_EXACT_SECONDS in a hint, with a table of
# PROOF_TABLE_BYTES kept for each of the PROOF_TABLES boards used last.
EXACT_SECONDS = 3.0
HINT_EXACT_SECONDS = 1.0
PROOF_TABLE_BYTES = 64 << 20
PROOF_TABLES = 4
BOARD_PRESETS = ((5, 5), (6, 6), (8, 8), (8, 10))
# What the page offers by default: budgets that answer within about a second on the presets.
# The difficulty levels a player picks from, each one of the project's players (docs/web.md
# gives their measured strength): easy greedy, medium MCTS with 2,000 simulations, hard the
# strongest at a second a move for the game (``colorwars.strongest``: alpha-beta with the
# learned evaluation, Zero on the classic boards it plays (``HARD_ZERO``), MCTS beyond two
# players; docs/learned.md measures them), perfect the package's opening book and
# proof-number search, on the boards it has solved.
DIFFICULTIES = {"easy": "greedy", "medium": "mcts:2000", "hard": "learned:time=1",
                "perfect": "perfect"}  # fmt: skip
HARD_ZERO_SECONDS = 1.0
HARD_ZERO = f"zero:time={HARD_ZERO_SECONDS:g}"
"""Hard's player where Zero is the strongest at a second (``zero_is_strongest``): Zero with
``HARD_ZERO_SECONDS`` alone, as measured (docs/learned.md, "Where people play")."""
PERFECT_SECONDS = 1.0
PERFECT_MEMORY = 64 << 20
DEFAULT_SEATS = ("human", "medium")
AI_CHOICES = ("random", "greedy", "mcts:2000", "alphabeta:4", "zero:400")
DEFAULT_ANALYSIS = 10_000

AiPlayer = Random | Greedy | MCTS | AlphaBeta | Perfect | Zero


class RequestError(Exception):
    """A request the API cannot carry out for a reason outside the engine's rules (an unknown
    game, a game busy with an AI search, a full store, malformed JSON): an HTTP status, a
    short type name and a message for the client."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message


def body_fields(body: object, allowed: tuple[str, ...], what: str) -> Mapping[str, Any]:
    """A JSON object with only the allowed keys."""
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise RequestError(400, "BadRequest", f"{what}: expected a JSON object")
    unknown = sorted(k for k in body if k not in allowed)
    if unknown:
        known = f"allowed are {', '.join(allowed)}" if allowed else "it takes none"
        raise RequestError(400, "BadRequest", f"{what}: unknown field {unknown[0]!r}; {known}")
    return body


def ai_player(name: object, game: Game, seed: int, seconds: float) -> AiPlayer:
    """An AI player from its name (a difficulty: ``easy``, ``medium``, ``hard``, ``perfect``;
    or ``random``, ``greedy``, ``mcts[:SIMULATIONS]``, ``alphabeta[:DEPTH]``,
    ``zero[:SIMULATIONS]``, the shipped network's search) within the web's limits, searching
    at most ``seconds``, for ``game``'s board."""
    if isinstance(name, str) and name.strip().lower() in DIFFICULTIES:
        level = name.strip().lower()
        if level == "perfect":
            return _perfect(game)
        name = DIFFICULTIES[level]
        if level == "hard" and game.players != 2:
            name = "mcts:time=1"
        elif level == "hard" and zero_is_strongest(2, game.rules, game.width, game.height):
            # The player measured the strongest, as the hint's: Zero with the time alone (as
            # many simulations as a second allows, within Zero's own memory check), not the
            # web's MAX_ZERO_SIMULATIONS for the Zero seats clients name, about a quarter of
            # a second of the classic network's search on 8 x 8.
            return Zero(time=min(seconds, HARD_ZERO_SECONDS), seed=seed)
    player = web_player(name)
    if isinstance(player, MCTS):
        # A time alone (``mcts:time=1``): as many simulations as the web allows within it.
        asked = player.simulations or (MAX_SIMULATIONS if player.time else 0)
        n = check.whole(asked, "simulations", 1, MAX_SIMULATIONS, InvalidPlayerError)
        budget = seconds if player.time is None else min(seconds, player.time)
        return MCTS(simulations=n, time=budget, seed=seed, probe=player.probe)
    if isinstance(player, AlphaBeta):
        # A depth is bounded here; a time (``alphabeta:time=1``) bounds itself.
        depth = (
            player.depth
            if player.time is not None
            else check.whole(player.depth, "depth", 1, MAX_DEPTH, InvalidPlayerError)
        )
        if game.players != 2:
            raise InvalidPlayerError(
                f"invalid player {name!r}: alpha-beta plays two-player games only, not "
                f"{game.players}"
            )
        budget = seconds if player.time is None else min(seconds, player.time)
        # whichever comes first, with the evaluation asked for (``learned:time=1``)
        return AlphaBeta(
            depth=depth, time=budget, seed=seed, eval=player.eval, weights=player.weights,
            probe=player.probe,
        )  # fmt: skip
    if isinstance(player, Random | Greedy):
        return Random(seed=seed) if isinstance(player, Random) else Greedy(seed=seed)
    if isinstance(player, Zero):
        # The shipped network for the board (InvalidPlayerError where none fits: more
        # players, a bigger board, other rules); simulations within the web's limit (a time
        # alone, ``zero:time=1``: as many as the limit allows within it), the time within its.
        player.network_for(game)
        n = (
            check.whole(
                player.simulations, "simulations", 1, MAX_ZERO_SIMULATIONS, InvalidPlayerError
            )
            if _zero_simulations_asked(player)
            else min(player.simulations, MAX_ZERO_SIMULATIONS)
        )
        budget = seconds if player.time is None else min(seconds, player.time)
        return Zero(simulations=n, time=budget, seed=seed, probe=player.probe)
    raise not_a_web_player(name)


# The names a web seat takes: a difficulty, or one of these kinds with its settings. The
# others (an engine's command, zeroab, perfect with settings) are the command line's: a
# server does not run what a client names, nor give it a proof table of the size it asks.
WEB_PLAYERS = (
    "human, easy, medium, hard, perfect, random, greedy, mcts[:SIMULATIONS], "
    "alphabeta[:DEPTH], learned[:DEPTH], zero[:SIMULATIONS], or settings after the name as "
    "mcts:time=1, alphabeta:time=0.5, learned:time=1 or zero:time=0.1"
)
_WEB_KINDS = ("random", "greedy", "mcts", "alphabeta", "ab", "learned", "zero")


def not_a_web_player(name: object, why: str = "") -> InvalidPlayerError:
    """The error for a seat the web app does not take, listing the ones it does."""
    return InvalidPlayerError(
        f"invalid player {name!r}: {why}the web app's players are {WEB_PLAYERS}"
    )


def web_player(name: object) -> Player:
    """An AI a web seat may name, parsed (``InvalidPlayerError`` naming the web's players for
    any other, before anything is built: ``perfect:memory=64G`` allocates nothing)."""
    if not isinstance(name, str):
        raise not_a_web_player(name, "expected a name; ")
    kind = name.strip().lower().partition(":")[0]
    if kind == "perfect":
        raise InvalidPlayerError(
            f"invalid player {name!r}: the web app's perfect player takes no settings (the "
            "server sets its time and memory); name it 'perfect'"
        )
    if kind not in _WEB_KINDS:
        raise not_a_web_player(name)
    try:
        return parse_player(name)
    except InvalidPlayerError as e:
        if PLAYER_NAMES in str(e):  # the command line's list: say the web's
            raise not_a_web_player(name) from None
        raise


def _zero_simulations_asked(player: Zero) -> bool:
    """Whether a Zero's name set its simulations (``zero:400``), not only a time
    (``zero:time=1``, whose simulations are the time's cap)."""
    return player.time is None or player.simulations != _time_cap(player.time)


def zero_rules() -> list[str]:
    """The web's rule sets a shipped Zero network plays (``options()["zero_rules"]``)."""
    names = {("drop3", "empty"), ("none", "subtract")}  # colorwars, classic
    offered = [*PRESETS, "drop3+subtract", "none+empty"]
    return [r for r in offered if (resolve(r).opening, resolve(r).burst) in names]


# One perfect player a board, kept across requests (its proof table is worth keeping).
_PERFECT: dict[tuple[int, int, str], Perfect] = {}


def perfect_boards() -> list[str]:
    """The boards ``perfect`` plays: those the package has an opening book for."""
    from colorwars.perfect import books

    return [f"{w}x{h} {r}" for w, h, r in books()]


def _perfect(game: Game) -> Perfect:
    from colorwars.perfect import Perfect, book_for

    key = (game.width, game.height, game.rules.name)
    if game.players != 2 or book_for(*key) is None:
        raise InvalidPlayerError(
            f"invalid player 'perfect': it plays only two-player games on the boards the "
            f"package has solved ({', '.join(perfect_boards())}), not "
            f"{game.players} players on {game.width}x{game.height} {game.rules.name}"
        )
    player = _PERFECT.get(key)
    if player is None:
        player = _PERFECT[key] = Perfect(time=PERFECT_SECONDS, memory=PERFECT_MEMORY)
    return player


def seat_name(name: object, game: Game) -> str:
    """A seat's name as the API shows it: ``human``, a difficulty, or the AI's canonical
    name."""
    if name == HUMAN:
        return HUMAN
    if isinstance(name, str) and name.strip().lower() in DIFFICULTIES:
        ai_player(name, game, 0, AI_SECONDS)  # checks it plays this board
        return name.strip().lower()
    asked = web_player(name)
    player = ai_player(name, game, 0, AI_SECONDS)
    timed = getattr(asked, "time", None)
    if isinstance(player, MCTS):
        return (
            f"mcts:simulations={player.simulations}:time={timed:g}"
            if timed
            else (f"mcts:{player.simulations}")
        )
    if isinstance(player, AlphaBeta):
        kind = "learned" if player.eval == "learned" else "alphabeta"
        return f"{kind}:time={timed:g}" if timed else f"{kind}:{player.depth}"
    if isinstance(player, Zero) and isinstance(asked, Zero):
        # A name parse_player reads back to the same player (the seat is rebuilt from it
        # each move, and from the database): ``zero:400``, else every setting as key=value.
        if not timed and asked.probe_setting is None:
            return f"zero:{player.simulations}"
        parts = ["zero"]
        if _zero_simulations_asked(asked):
            parts.append(f"simulations={player.simulations}")
        if timed:
            parts.append(f"time={timed:g}")
        if asked.probe_setting is not None:
            parts.append(f"probe={asked.probe}")
        return ":".join(parts)
    return str(player.name)


def hint_player(players: int, seed: int, game: Game | None = None) -> tuple[AiPlayer, str]:
    """The strongest player at a modest budget for ``game``, and its name (docs/learned.md,
    "Where people play"): Zero for a second on the classic boards it plays
    (``zero_is_strongest``), else alpha-beta with the learned evaluation to depth 6 for two
    players (stronger than the hand-made evaluation, which is stronger than MCTS), MCTS with
    5,000 simulations otherwise; each stops after a second."""
    if game is not None and zero_is_strongest(players, game.rules, game.width, game.height):
        return Zero(time=HINT_SECONDS, seed=seed), f"zero:time={HINT_SECONDS:g}"
    if players == 2:
        return AlphaBeta(depth=6, time=HINT_SECONDS, seed=seed, eval="learned"), "learned:6"
    return MCTS(simulations=5000, time=HINT_SECONDS, seed=seed), "mcts:5000"


def hint(game: Game, seed: int) -> dict[str, Any]:
    """A move for the player to move, and why: where the project proves the position within
    ``HINT_EXACT_SECONDS`` (``exact``), a proven winning move, or the strongest player's move
    when every move loses; else the strongest player's move at a second (``hint_player``).
    With the proof's ``exact`` result. Runs in a worker thread."""
    start = time.perf_counter()
    proof = exact(game, HINT_EXACT_SECONDS) if game.players == 2 else None
    mover = game.to_move
    player, name = hint_player(game.players, seed, game)
    cell: int | None = None
    work = 0
    if proof is not None and proof["solved"] and proof["winner"] == mover:
        best = proof["best"]
        cell = best["cell"] if best is not None else None
        why = f"a proven win: {proof['reason']}"
        name = "proof"
    if cell is None:
        decision = player.search(game)
        cell, work = decision.cell, decision.work
        if proof is not None and proof["solved"]:
            moves = proof["moves"]
            losing = moves.get(str(cell), {}).get("winner") not in (None, mover)
            why = (
                f"every move loses against perfect play: {proof['reason']}; {name} picks the "
                "one it rates best"
                if losing
                else f"{name}'s choice"
            )
        else:
            reason = "" if proof is None else f" ({proof['reason']})"
            why = f"{name}'s choice: not proven{reason}"
    return {
        "position": game.to_text(),
        "cell": cell,
        "name": game.cell_name(cell),
        "ai": name,
        "work": work,
        "seconds": round(time.perf_counter() - start, 3),
        "why": why,
        "exact": proof,
    }


def _move(game: Game, cell: int, player: int) -> dict[str, Any]:
    return {"cell": cell, "name": game.cell_name(cell), "player": player}


def exact(game: Game, seconds: float = EXACT_SECONDS) -> dict[str, Any]:
    """The exact result of the position where the project can prove it within ``seconds``:
    on small boards the exact solver (``colorwars.solve``: the winner and each move's result
    with the game's length under perfect play); else proof-number search (``colorwars.prove``,
    with the package's opening book where it has one): the winner, and the result of each
    legal move it settles in the time (``complete`` says whether it settled all). Two
    players only. Runs in a worker thread."""
    if game.players != 2:
        return {"solved": False, "reason": "the exact solver plays two-player games only"}
    if game.winner is not None:
        return {"solved": False, "reason": "the game is over"}
    start = time.perf_counter()
    deadline = start + seconds
    native = native_game(game)
    mover = native.to_move
    if game.cells <= SOLVE_MAX_CELLS[game.rules.opening]:
        found = _solved(native, start + seconds / 2)
        if found is not None:
            return found
    moves: dict[str, dict[str, Any]] = {}
    book = _book(game)
    # The book holds the winner's strategy: a position in it is a win for its player to move.
    book_move = _book_move(book, native)
    winner: int | None = mover if book_move is not None else None
    line: list[int] = [book_move] if book_move is not None else []
    work = 0
    legal = native.legal_moves()
    children = {}
    for cell in legal:
        child = native.copy()
        child.play(cell)
        result = child.winner
        if result is None and _book_move(book, child) is not None:
            result = child.to_move
        if result is None and cell == book_move:
            result = mover
        if result is not None:
            moves[str(cell)] = {"winner": int(result), "plies": None}
        else:
            children[cell] = child
    used_book = book is not None and (book_move is not None or len(children) < len(legal))
    settled = (
        winner is not None or not children or any(m["winner"] == mover for m in moves.values())
    )
    table, lock = _table(game)
    with lock:
        if not settled:
            winner, line, work, _, _, _ = _core.prove(native, table, 0.4 * seconds)
        for k, (cell, child) in enumerate(children.items()):
            left = (deadline - time.perf_counter()) / (len(children) - k)
            if left <= 0.001:
                break
            result, _, spent, _, _, _ = _core.prove(child, table, left)
            work += spent
            if result is not None:
                moves[str(cell)] = {"winner": int(result), "plies": None}
    wins = [int(c) for c, m in moves.items() if m["winner"] == mover]
    if winner is None:
        if wins:
            winner = mover
        elif len(moves) == len(legal):
            winner = 1 - mover
    seconds_used = time.perf_counter() - start
    if winner is None:
        return {
            "solved": False,
            "moves": moves,
            "complete": False,
            "reason": f"proof-number search did not settle the position in {seconds:g} s "
            f"({work:,} positions searched)",
        }
    best: int | None
    if winner == mover:
        best = book_move if book_move is not None else line[0] if line else wins[0]
    else:
        best = line[0] if line else None
    letter = PLAYER_LETTERS[int(winner)]
    method = "the opening book and proof-number search" if used_book else "proof-number search"
    return {
        "solved": True,
        "winner": int(winner),
        "plies": None,
        "line": [game.cell_name(c) for c in line],
        "best": None if best is None else {"cell": int(best), "name": game.cell_name(best)},
        "moves": moves,
        "complete": len(moves) == len(legal),
        "method": method,
        "seconds": round(seconds_used, 3),
        "reason": f"player {letter} wins with perfect play (proved by {method}; "
        f"{len(moves)} of {len(legal)} moves settled in {seconds_used:.1f} s)",
    }


def _solved(native: Any, deadline: float) -> dict[str, Any] | None:
    """The exact solver's answer (with the lengths) if it finishes by ``deadline``."""

    class _OutOfTimeError(Exception):
        pass

    def tick(positions: int) -> None:
        if time.perf_counter() >= deadline:
            raise _OutOfTimeError

    try:
        found = _core.solve_position(native, 200, progress=tick, interval=0.01)
    except _OutOfTimeError:
        return None
    if found is None:
        return None
    winner, plies, line, _, _, moves = found
    names = [_name(native, c) for c in line]
    return {
        "solved": True,
        "winner": winner,
        "plies": plies,
        "line": names,
        "best": {"cell": line[0], "name": names[0]} if line else None,
        "moves": {str(c): {"winner": w, "plies": p} for c, w, p in moves},
        "complete": True,
        "method": "exact solver",
        "reason": f"player {PLAYER_LETTERS[winner]} wins in {plies} plies with perfect play",
    }


def _name(native: Any, cell: int) -> str:
    from colorwars._common import column_name

    return f"{column_name(cell % native.width)}{cell // native.width + 1}"


# Proof tables kept across requests, one a board (a few boards at most), each with its lock;
# a request that finds its board's table in use makes a small one of its own.
_TABLES: OrderedDict[tuple[int, int, str], tuple[Any, threading.Lock]] = OrderedDict()
_TABLES_LOCK = threading.Lock()


def _table(game: Game) -> tuple[Any, threading.Lock]:
    key = (game.width, game.height, game.rules.name)
    with _TABLES_LOCK:
        kept = _TABLES.get(key)
        if kept is None:
            kept = (_core.ProofTable(PROOF_TABLE_BYTES), threading.Lock())
            _TABLES[key] = kept
            while len(_TABLES) > PROOF_TABLES:
                _TABLES.popitem(last=False)
        _TABLES.move_to_end(key)
    if kept[1].acquire(blocking=False):
        kept[1].release()
        return kept
    return _core.ProofTable(16 << 20), threading.Lock()


def _book(game: Game) -> Any:
    """The package's opening book of the board, or None."""
    from colorwars.perfect import book_for

    return book_for(game.width, game.height, game.rules.name) if game.players == 2 else None


def _book_move(book: Any, native: Any) -> int | None:
    """The book's winning move for the player to move, if the position is in the book."""
    if book is None or native.winner is not None:
        return None
    move = book.move(native)
    return int(move) if move is not None and native.is_legal(move) else None


def analyse(game: Game, simulations: int, seed: int) -> dict[str, Any]:
    """An MCTS search's view of every legal move (visits, share, win rate of the player to
    move) and the exact result where there is one. Runs in a worker thread."""
    start = time.perf_counter()
    # The plain UCT: the board shades every move by its share of the simulations asked for;
    # MCTS-Solver would stop at the first proof (after one simulation when a move wins at
    # once), and the exact result is shown beside it anyway.
    search = MCTS(simulations=simulations, time=ANALYSIS_SECONDS, seed=seed, solver=False)
    rows = search.analyse(game)
    seconds = time.perf_counter() - start
    return {
        "position": game.to_text(),
        "to_move": game.to_move,
        "simulations": sum(r.visits for r in rows),
        "seconds": round(seconds, 3),
        "moves": [
            {
                "cell": r.cell,
                "name": game.cell_name(r.cell),
                "visits": r.visits,
                "share": r.share,
                "win_rate": r.win_rate,
            }
            for r in rows
        ],
        "exact": exact(game),
    }


@dataclass
class LiveGame:
    """One game of the web app: the engine's game, who sits in each seat, who made each move
    (for the move list), and where it started (the empty board, or a pasted position)."""

    id: str
    game: Game
    seats: tuple[str, ...]
    seed: int
    start: str | None = None  # the pasted position it started from; None: the empty board
    first: int | None = 0
    movers: list[int] = field(default_factory=list)
    busy: bool = False  # an AI search is running for it: other changes wait
    client: str = "local"  # who started it (the store bounds the games of each client)
    # An online game's seats: the SHA-256 digest of each human seat's token (the tokens
    # themselves are given once, to their holders, and kept nowhere), and the creator's seat.
    tokens: dict[int, str] = field(default_factory=dict)
    creator: int | None = None
    # The tokens of a game just made online, until the request that made it has answered.
    pending_tokens: dict[int, str] = field(default_factory=dict, repr=False)
    used: float = 0.0  # when it was last used (time.time()), for the store's bounds
    # An online game's rematch (its id, the seats swapped or not) once one is made: a second
    # player asking for one gets the same (see ``app.py``).
    rematched: tuple[str, bool] | None = None

    @property
    def online(self) -> bool:
        return bool(self.tokens)

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token this is, or None (no token, or not one of this game's)."""
        if not token or not self.tokens:
            return None
        digest = token_digest(token)
        for seat, known in self.tokens.items():
            if hmac.compare_digest(digest, known):
                return seat
        return None

    def to_data(self) -> dict[str, Any]:
        """What rebuilds the game (``from_data``): for the database."""
        g = self.game
        return {
            "version": 1,
            "width": g.width,
            "height": g.height,
            "players": g.players,
            "rules": g.rules.name,
            "first": self.first,
            "start": self.start,
            "seats": list(self.seats),
            "seed": self.seed,
            "moves": g.moves()[len(g.moves()) - len(self.movers) :],
            "movers": list(self.movers),
            "tokens": {str(k): v for k, v in self.tokens.items()},
            "creator": self.creator,
        }

    @classmethod
    def from_data(cls, game_id: str, client: str, data: object) -> LiveGame:
        """The game a ``to_data`` object describes, every move replayed on the engine;
        ``ValueError`` (or a ``ColorwarsError``) if it does not describe one."""
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError("not a game of this version")
        start = data["start"]
        if start is not None:
            game = Game.from_text(start)
        else:
            game = Game(data["width"], data["height"], data["players"], data["rules"],
                        data["first"])  # fmt: skip
        moves, movers = list(data["moves"]), [int(m) for m in data["movers"]]
        if len(moves) != len(movers):
            raise ValueError("its moves and movers differ in length")
        for cell, mover in zip(moves, movers, strict=True):
            if game.to_move != mover:
                raise ValueError("a move's player is not the player to move")
            game.play(int(cell))
        seats = tuple(seat_name(s, game) for s in data["seats"])
        if len(seats) != game.players:
            raise ValueError("its seats are not one a player")
        tokens = {int(k): str(v) for k, v in dict(data["tokens"]).items()}
        creator = data["creator"]
        return cls(
            id=game_id, game=game, seats=seats, seed=check.seed(data["seed"]), start=start,
            first=data["first"], movers=movers, client=client, tokens=tokens,
            creator=None if creator is None else int(creator),
        )  # fmt: skip

    def guard(self) -> None:
        """Refuses a change while an AI search for this game is running."""
        if self.busy:
            raise _busy(self)

    def state(self) -> dict[str, Any]:
        """The JSON the API answers with."""
        g = self.game
        return {
            "id": self.id,
            "position": g.to_text(),
            "to_move": g.to_move,
            "legal_moves": g.legal_moves(),
            "winner": g.winner,
            "width": g.width,
            "height": g.height,
            "players": g.players,
            "rules": g.rules.name,
            "first": self.first,
            "seats": list(self.seats),
            "ply": g.ply,
            "counts": g.counts(),
            "owners": g.owners(),
            "moves": [_move(g, c, p) for c, p in zip(g.moves(), self.movers, strict=True)],
            "start": self.start,
            "online": self.online,
            "creator": self.creator,
        }

    def summary(self) -> dict[str, Any]:
        """A line of the recent games' list: no board, no moves, no tokens."""
        g = self.game
        return {
            "id": self.id,
            "width": g.width,
            "height": g.height,
            "rules": g.rules.name,
            "seats": list(self.seats),
            "ply": g.ply,
            "winner": g.winner,
            "online": self.online,
            "used": round(self.used, 3),
        }

    def check_ply(self, ply: object) -> None:
        """Refuses a request made for another ply than the game's (None: any ply), so that a
        click on a stale board never plays for the wrong player."""
        if ply is None:
            return
        if check.whole(ply, "ply", 0, check.MAX_PLIES) != self.game.ply:
            raise RequestError(
                409,
                "StalePly",
                f"the game is at ply {self.game.ply}, not {ply}: it has moved on; fetch it again",
            )

    def play(self, move: object, ply: object = None) -> dict[str, Any]:
        """Plays a move (a cell index, a name such as ``"c3"`` or ``[x, y]``) for the player
        to move; the state with the move and its cascade's waves. The game is unchanged on
        any error."""
        self.check_ply(ply)
        mover = self.game.to_move
        cell = play_json(self.game, move)
        self.movers.append(mover)
        return self._after(cell, mover)

    def _after(self, cell: int, mover: int) -> dict[str, Any]:
        state = self.state()
        state["move"] = _move(self.game, cell, mover)
        state["waves"] = [
            {"bursts": list(w.bursts), "counts": list(w.counts), "owners": list(w.owners)}
            for w in self.game.waves()
        ]
        return state

    def play_ai(
        self, cell: int, mover: int, name: str, work: int, seconds: float
    ) -> dict[str, Any]:
        """Plays the move an AI chose (on a copy, in a worker thread)."""
        if self.game.to_move != mover:  # cannot happen while busy guards the game
            raise RequestError(409, "StalePly", "the game moved on while the AI was thinking")
        self.game.play(cell)
        self.movers.append(mover)
        state = self._after(cell, mover)
        state["move"].update(ai=name, work=work, seconds=round(seconds, 3))
        return state

    def ai_for_seat(self, name: object) -> tuple[AiPlayer, str]:
        """The AI that moves now: the one named, else the seat's own."""
        if name is None:
            name = self.seats[self.game.to_move]
            if name == HUMAN:
                raise RequestError(
                    409,
                    "HumanSeat",
                    f"player {PLAYER_LETTERS[self.game.to_move]} is a human seat; name the AI "
                    'that moves for them, e.g. {"ai": "greedy"}',
                )
        seed = (self.seed + self.game.ply * 0x9E3779B9) % 2**64
        player = ai_player(name, self.game, seed, AI_SECONDS)
        return player, seat_name(name, self.game)

    def undo(self, plies: object = 1) -> dict[str, Any]:
        """Takes back the last ``plies`` moves (all or nothing)."""
        n = check.whole(plies, "plies", 1, check.MAX_PLIES)
        if n > len(self.movers):
            raise InvalidIndexError(
                f"cannot undo {n} move{'s' if n != 1 else ''}: {len(self.movers)} played "
                "since the game began"
            )
        undone = []
        for _ in range(n):
            cell = self.game.pop()
            undone.append(_move(self.game, cell, self.movers.pop()))
        state = self.state()
        state["undone"] = undone
        return state

    def record(self) -> str:
        """The game as a record (the project's format), for saving."""
        if self.first is None:
            raise RequestError(
                409,
                "NoRecord",
                "this game began from a pasted position, and a record starts from the empty "
                "board: copy the position instead",
            )
        return GameRecord.of(self.game, self.first).to_text()

    def snapshot(self) -> LiveGame:
        """A copy to read in a worker thread while this game goes on (its game and movers)."""
        return LiveGame(
            self.id, self.game.copy(), self.seats, self.seed, self.start, self.first,
            list(self.movers), client=self.client,
        )  # fmt: skip

    def history(self, start: object = 0) -> dict[str, Any]:
        """A page of the game's history, for replaying: at most ``HISTORY_PAGE`` positions
        from ply ``start`` on (``positions[k]`` is the position before move ``start + k``;
        the last page ends with the position now), the moves played from them, and ``next``,
        the ply the next page starts at (None after the last). Run it on a ``snapshot``."""
        ply = len(self.movers)
        first = check.whole(start, "start", 0, ply)
        end = min(ply, first + HISTORY_PAGE - 1)  # the ply of the page's last position
        g = self.game.copy()
        for _ in range(ply - end):
            g.pop()
        positions = [g.to_text()]
        for _ in range(end - first):
            g.pop()
            positions.append(g.to_text())
        positions.reverse()
        played = slice(first, min(end + 1, ply))
        pairs = zip(self.game.moves()[played], self.movers[played], strict=True)
        moves = [_move(g, c, p) for c, p in pairs]
        return {
            "start": first,
            "positions": positions,
            "moves": moves,
            "next": end + 1 if end < ply else None,
        }


def _first(value: object, players: int) -> object:
    """A first player given as a letter (``"b"``) or a number; the number is checked by
    ``check.config``."""
    if isinstance(value, str):
        if len(value) == 1 and value in PLAYER_LETTERS[:players]:
            return PLAYER_LETTERS.index(value)
        check.fail(
            InvalidPlayersError,
            "first player",
            value,
            f"a letter a to {PLAYER_LETTERS[players - 1]} or a number 0 to {players - 1}",
        )
    return value


NEW_GAME_FIELDS = ("width", "height", "players", "rules", "first", "seats", "seed", "position",
                   "record", "online")  # fmt: skip


class GameStore:
    """The games: at most ``per_client`` of one client and ``limit`` in all, of which at
    most ``online_limit`` online (``online_per_client`` of one client). A client's new game
    beyond its own bound forgets that client's game left alone longest; a new game beyond the
    total bound forgets the game left alone longest of the client holding the most, so that no
    client can make the server forget the games of another that holds fewer. A game whose AI
    is thinking is never forgotten (503 when every candidate is busy). A new online game
    beyond the server's online bound is refused (503). Ids are random, so one game's id says
    nothing about another's.

    With a ``db`` (``db.GameDB``), every game is kept in it: each change is written before it
    is answered (and undone if the write is refused), and a store made on the same file later
    (a server restarted) has every game back, rebuilt when first asked for."""

    def __init__(
        self,
        limit: int = MAX_LIVE_GAMES,
        per_client: int = MAX_GAMES_PER_CLIENT,
        db: GameDB | None = None,
        online_limit: int = MAX_ONLINE_GAMES,
        online_per_client: int = MAX_ONLINE_GAMES_PER_CLIENT,
    ) -> None:
        self.limit = check.whole(limit, "live game limit", 1, 1_000_000)
        self.per_client = check.whole(per_client, "games per client", 1, 1_000_000)
        self.online_limit = check.whole(online_limit, "online game limit", 1, 1_000_000)
        self.online_per_client = check.whole(
            online_per_client, "online games per client", 1, 1_000_000
        )
        self.db = db
        # Told the id of each game deleted or forgotten (the app ends its listeners' streams).
        self.forgotten: Callable[[str, bool], object] | None = None
        # Every game's client (and whether it is online), the least recently used first; the
        # games rebuilt so far (all of them without a database).
        self._index: OrderedDict[str, tuple[str, bool]] = OrderedDict()
        self._games: dict[str, LiveGame] = {}
        if db is not None:
            for game_id, client, online in db.index():
                self._index[game_id] = (client, online)
            # A database made with higher bounds: the oldest beyond these are forgotten.
            self._trim()

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._index

    def _unknown(self, game_id: str) -> RequestError:
        return RequestError(
            404,
            "UnknownGame",
            f"unknown game {game_id[:40]!r}: it never existed, was deleted, or was "
            f"forgotten (the server keeps the {self.per_client} games each client used "
            f"most recently, {self.limit} in all)",
        )

    def get(self, game_id: str) -> LiveGame:
        if game_id not in self._index:
            raise self._unknown(game_id)
        live = self._games.get(game_id)
        if live is None:
            live = self._rebuild(game_id)
        self._index.move_to_end(game_id)
        live.used = time.time()
        if self.db is not None:
            with contextlib.suppress(StoreError):  # only the order of forgetting is lost
                self.db.touch(game_id, live.used)
        return live

    def _rebuild(self, game_id: str) -> LiveGame:
        assert self.db is not None
        client, _ = self._index[game_id]
        try:
            data = self.db.load(game_id)
            if data is None:
                del self._index[game_id]
                raise self._unknown(game_id)
            live = LiveGame.from_data(game_id, client, data)
        except RequestError:
            raise
        except (ValueError, KeyError, TypeError, OverflowError) as e:
            raise RequestError(
                500,
                "DamagedGame",
                f"game {game_id} in the database {self.db.path} cannot be read back ({e}); "
                "the other games are not affected",
            ) from None
        self._games[game_id] = live
        return live

    def recent(self, client: str, count: int = 20) -> list[dict[str, Any]]:
        """The ``count`` games of ``client`` used most recently, newest first (a summary of
        each: a damaged one is left out)."""
        found: list[dict[str, Any]] = []
        for game_id in reversed(self._index):
            if len(found) >= count:
                break
            if self._index[game_id][0] != client:
                continue
            live = self._games.get(game_id)
            try:
                live = live or self._rebuild(game_id)
            except RequestError:
                continue
            found.append(live.summary())
        return found

    def save(self, live: LiveGame, new: bool = False) -> None:
        """Writes a game to the database (nothing without one); ``RequestError`` (503,
        ``StoreFull``) if the database refuses it, (404) if the game is no longer kept (deleted
        or forgotten while the change was under way: written back, it would return after a
        restart). ``new``: a game being added."""
        if not new and self._games.get(live.id) is not live:
            raise self._unknown(live.id)
        if self.db is None:
            return
        try:
            self.db.save(live.id, live.client, live.used, live.to_data(), live.online)
        except StoreError as e:
            raise RequestError(503, "StoreFull", str(e)) from None

    def delete(self, game_id: str) -> None:
        self.get(game_id).guard()
        self._forget(game_id, deleted=True)

    def _forget(self, game_id: str, deleted: bool = False) -> None:
        if self.db is not None:
            try:
                self.db.delete(game_id)
            except StoreError as e:
                raise RequestError(503, "StoreFull", str(e)) from None
        del self._index[game_id]
        self._games.pop(game_id, None)
        if self.forgotten is not None:
            self.forgotten(game_id, deleted)

    def create(self, body: object, client: str = "local") -> LiveGame:
        """A new game from a request body (every field optional): ``width``, ``height``,
        ``players``, ``rules``, ``first``, ``seats``, ``seed``; or ``position`` (notation)
        or ``record`` (a game record's text) with ``seats``. Nothing is kept on an error."""
        live = build(body)
        self.add(live, client)
        return live

    def _busy_id(self, game_id: str) -> bool:
        live = self._games.get(game_id)
        return live is not None and live.busy

    def _trim(self) -> None:
        while len(self._index) > self.limit:
            self._forget(next(iter(self._index)))

    def add(self, live: LiveGame, client: str = "local") -> None:
        """Keeps a new game of ``client``, forgetting another within the bounds."""
        live.client = client
        live.used = time.time()
        if live.online:
            online = [k for k, (c, o) in self._index.items() if o]
            mine = [k for k in online if self._index[k][0] == client and not self._busy_id(k)]
            if len([k for k in online if self._index[k][0] == client]) >= self.online_per_client:
                if not mine:
                    raise RequestError(
                        503, "TooManyOnlineGames", "every online game of this client is busy"
                    )
                self._forget(mine[0])
            elif len(online) >= self.online_limit:
                raise RequestError(
                    503,
                    "TooManyOnlineGames",
                    f"the server holds {self.online_limit} online games, the most it takes; "
                    "try again later",
                )
        held = Counter(c for c, _ in self._index.values())
        while held[client] >= self.per_client or len(self._index) >= self.limit:
            idle = [(k, c) for k, (c, _) in self._index.items() if not self._busy_id(k)]
            if held[client] >= self.per_client:
                idle = [(k, c) for k, c in idle if c == client]
                whose = f"this client holds {self.per_client} games"
            else:
                most = max((held[c] for _, c in idle), default=0)
                idle = [(k, c) for k, c in idle if held[c] == most]
                whose = f"the server holds {self.limit} games"
            if not idle:
                raise RequestError(
                    503,
                    "TooManyGames",
                    f"{whose} and every one it could forget is busy; try again soon",
                )
            self._forget(idle[0][0])
            held[idle[0][1]] -= 1
        self.save(live, new=True)
        self._index[live.id] = (client, live.online)
        self._games[live.id] = live


def token_digest(token: str) -> str:
    """How a seat's token is kept: its SHA-256 digest (a token is 32 random bytes, so a
    digest cannot be turned back into one)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _busy(live: LiveGame) -> RequestError:
    return RequestError(
        409, "GameBusy", f"game {live.id} is busy: an AI is choosing a move; try again when it has"
    )


def build(body: object) -> LiveGame:
    """A game from a ``POST /api/games`` body, not yet stored (see ``GameStore.create``)."""
    b = body_fields(body, NEW_GAME_FIELDS, "new game")
    seed = check.seed(b["seed"]) if b.get("seed") is not None else secrets.randbits(63)
    start: str | None = None
    first: int | None
    movers: list[int] = []
    source = [k for k in ("position", "record") if k in b]
    given = [k for k in NEW_GAME_FIELDS[:5] if k in b]
    if len(source) == 2:
        raise ConfigError("a new game starts from a position or from a record, not both")
    if source and given:
        raise ConfigError(
            f"a game from a {source[0]} takes its {given[0]} from the {source[0]}: give only "
            "seats and seed with it"
        )
    if "record" in b:
        rec = GameRecord.parse(b["record"])
        played = rec.new_game()
        for step in rec.steps():
            played, _, mover = step
            movers.append(mover)
        rec.check(played)
        assert isinstance(played, Game)
        game = played
        first = rec.first
    elif "position" in b:
        start = b["position"]
        game = Game.from_text(start)  # from_text checks the type
        start = game.to_text()
        # A pasted empty board is where a record can start from.
        first = game.to_move if game.ply == 0 and not game.moved else None
        if first is not None:
            start = None
    else:
        players = b.get("players", 2)
        width, height = check.size(b.get("width", 5), b.get("height", 5))
        n = check.player_count(players, width * height)
        cfg = check.config(
            width, height, n, b.get("rules", "colorwars"), _first(b.get("first", 0), n)
        )
        game = Game(cfg.width, cfg.height, cfg.players, cfg.rules, cfg.first)
        first = cfg.first
    seats = b.get("seats")
    if seats is None:
        seats = [HUMAN] + [DEFAULT_SEATS[1]] * (game.players - 1)
    if not isinstance(seats, list) or len(seats) != game.players:
        check.fail(
            InvalidPlayerError,
            "seats",
            seats,
            f"expected a list of {game.players} seats, each 'human' or an AI "
            "(easy, medium, hard, perfect, random, greedy, mcts:SIMULATIONS, alphabeta:DEPTH, "
            "zero:SIMULATIONS)",
        )
    names = tuple(seat_name(s, game) for s in seats)
    live = LiveGame(
        id=secrets.token_hex(8),
        game=game,
        seats=names,
        seed=seed,
        start=start,
        first=first,
        movers=movers,
    )
    if check.flag(b.get("online", False), "online"):
        live.pending_tokens = go_online(live)
    return live


def rematch(old: LiveGame, swap: bool) -> LiveGame:
    """A new game with ``old``'s setup from its start, the seats as they were or (``swap``,
    two players) swapped. Online, each player keeps their token: the seat they move to
    accepts the token of the seat they had, so every browser plays on without a new link."""
    swap = check.flag(swap, "swap")
    g = old.game
    if swap and g.players != 2:
        raise ConfigError("seats are swapped in two-player games only")
    if old.start is not None:
        game = Game.from_text(old.start)
    else:
        assert old.first is not None  # a game from the empty board
        game = Game(g.width, g.height, g.players, g.rules.name, old.first)

    def where(p: int) -> int:
        return 1 - p if swap else p

    seats = [""] * g.players
    for p, seat in enumerate(old.seats):
        seats[where(p)] = seat
    live = LiveGame(
        id=secrets.token_hex(8),
        game=game,
        seats=tuple(seats),
        seed=secrets.randbits(63),
        start=old.start,
        first=old.first,
    )
    if old.online:
        live.tokens = {where(p): digest for p, digest in old.tokens.items()}
        live.creator = None if old.creator is None else where(old.creator)
    return live


def go_online(live: LiveGame) -> dict[int, str]:
    """Makes a game online: a token for each human seat (their digests kept, the tokens
    returned once), the first human seat the creator's."""
    humans = [p for p, s in enumerate(live.seats) if s == HUMAN]
    if not humans:
        raise ConfigError("an online game needs a human seat: seats has none")
    tokens = {p: new_token() for p in humans}
    live.tokens = {p: token_digest(t) for p, t in tokens.items()}
    live.creator = humans[0]
    return tokens


def new_token() -> str:
    """A seat's token: 32 random bytes (``secrets``), URL-safe."""
    return secrets.token_urlsafe(32)


def options() -> dict[str, Any]:
    """What the page needs to offer a new game: presets, rules, limits, colours, defaults."""
    return {
        "board_presets": [list(p) for p in BOARD_PRESETS],
        "rules": [*PRESETS, "drop3+subtract", "none+empty"],
        "sides": [check.MIN_SIDE, check.MAX_SIDE],
        "players": [check.MIN_PLAYERS, check.MAX_PLAYERS],
        "letters": PLAYER_LETTERS,
        "colours": list(PLAYER_COLOURS),
        "seats": [HUMAN, *DIFFICULTIES, "random", "greedy", "mcts", "alphabeta", "zero"],
        "difficulties": DIFFICULTIES,
        # Hard on the games where Zero is the strongest at a second: two players, these
        # rules, sides up to this (``colorwars.strongest``).
        "hard_zero": {
            "player": HARD_ZERO,
            "rules": [r for r in zero_rules() if zero_is_strongest(2, r, 2, 2)],
            "side": ZERO_MAX_SIDE,
        },
        "perfect_boards": perfect_boards(),
        "zero_rules": zero_rules(),
        "ai_defaults": list(AI_CHOICES),
        "default_seats": list(DEFAULT_SEATS),
        "limits": {
            "live_games": MAX_LIVE_GAMES,
            "games_per_client": MAX_GAMES_PER_CLIENT,
            "ai_requests": MAX_AI_REQUESTS,
            "ai_requests_per_client": MAX_AI_REQUESTS_PER_CLIENT,
            "ai_wait_seconds": AI_WAIT_SECONDS,
            "history_page": HISTORY_PAGE,
            "simulations": MAX_SIMULATIONS,
            "depth": MAX_DEPTH,
            "zero_side": ZERO_MAX_SIDE,
            "zero_simulations": MAX_ZERO_SIMULATIONS,
            "ai_seconds": AI_SECONDS,
            "hint_seconds": HINT_SECONDS,
            "analysis_seconds": ANALYSIS_SECONDS,
        },
        "analysis_default": DEFAULT_ANALYSIS,
    }


def play_json(game: Game, move: object) -> int:
    """Plays ``move`` as JSON gives it (a cell index, a name such as ``"c3"`` or ``[x, y]``) on
    ``game``; a move that is no cell of the board is an ``InvalidMoveError`` in JSON's words
    (the engine's own offers Python's ``(x, y)``)."""
    try:
        return game.play(tuple(move) if isinstance(move, list) else move)  # type: ignore[arg-type]
    except InvalidMoveError:
        w, h = game.width, game.height
        given = json.dumps(move)
        given = given if len(given) <= 40 else given[:37] + "..."
        raise InvalidMoveError(
            f"invalid move: {given} is not a cell of this {w}x{h} board: a cell is an index 0 "
            f'to {w * h - 1}, a name such as "c3" (a column a to {column_name(w - 1)}'
            f" and a row 1 to {h}), or [x, y] with 0 <= x < {w} and 0 <= y < {h}"
        ) from None


def error_json(e: Exception) -> tuple[int, dict[str, Any]] | None:
    """The status and JSON body for an error a request ran into; None for an error that is
    not the client's (a bug: the server's generic 500)."""
    if isinstance(e, RequestError):
        return e.status, {"error": e.message, "type": e.kind}
    if isinstance(e, ColorwarsError):
        # A move the rules refuse in this position, or nothing to undo: the game's state is in
        # the way (409); anything else the request got wrong (400).
        status = 409 if isinstance(e, IllegalMoveError | InvalidIndexError) else 400
        # A flag in JSON's words (the checks are the Python API's).
        message = str(e).replace("expected True or False", "expected true or false")
        return status, {"error": message, "type": type(e).__name__}
    if isinstance(e, MemoryError):
        return 503, {"error": f"out of memory: {e}", "type": "MemoryError"}
    return None
