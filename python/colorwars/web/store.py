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
import os
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from colorwars import _validate as check
from colorwars._common import PLAYER_COLOURS, PLAYER_LETTERS
from colorwars.errors import (
    ColorwarsError,
    ConfigError,
    IllegalMoveError,
    InvalidIndexError,
    InvalidPlayerError,
    InvalidPlayersError,
    SearchLimitError,
)
from colorwars.game import Game
from colorwars.players import MCTS, AlphaBeta, Greedy, Random, parse_player
from colorwars.record import GameRecord
from colorwars.rules import PRESETS
from colorwars.web.db import GameDB, StoreError

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
BOARD_PRESETS = ((5, 5), (6, 6), (8, 8), (8, 10))
# What the page offers by default: budgets that answer within about a second on the presets.
DEFAULT_SEATS = ("human", "greedy")
AI_CHOICES = ("random", "greedy", "mcts:2000", "alphabeta:4")
DEFAULT_ANALYSIS = 10_000

AiPlayer = Random | Greedy | MCTS | AlphaBeta


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
        raise RequestError(
            400,
            "BadRequest",
            f"{what}: unknown field {unknown[0]!r}; allowed are {', '.join(allowed)}",
        )
    return body


def ai_player(name: object, players: int, seed: int, seconds: float) -> AiPlayer:
    """An AI player from its name (``random``, ``greedy``, ``mcts[:SIMULATIONS]``,
    ``alphabeta[:DEPTH]``) within the web's limits, searching at most ``seconds``."""
    player = parse_player(name)  # type: ignore[arg-type]  # parse_player checks the type
    if isinstance(player, MCTS):
        n = check.whole(player.simulations, "simulations", 1, MAX_SIMULATIONS, InvalidPlayerError)
        return MCTS(simulations=n, time=seconds, seed=seed)
    if isinstance(player, AlphaBeta):
        depth = check.whole(player.depth, "depth", 1, MAX_DEPTH, InvalidPlayerError)
        if players != 2:
            raise InvalidPlayerError(
                f"invalid player {name!r}: alpha-beta plays two-player games only, not {players}"
            )
        return AlphaBeta(depth=depth, time=seconds, seed=seed)  # whichever comes first
    return Random(seed=seed) if isinstance(player, Random) else Greedy(seed=seed)


def seat_name(name: object, players: int) -> str:
    """A seat's name as the API shows it: ``human`` or the AI's canonical name."""
    if name == HUMAN:
        return HUMAN
    player = ai_player(name, players, 0, AI_SECONDS)
    if isinstance(player, MCTS):
        return f"mcts:{player.simulations}"
    if isinstance(player, AlphaBeta):
        return f"alphabeta:{player.depth}"
    return player.name


def hint_player(players: int, seed: int) -> tuple[AiPlayer, str]:
    """The strongest player at a modest budget, and its name: alpha-beta to depth 6 for two
    players (stronger than MCTS with 5,000 simulations on 5x5: see the docs' AI page), MCTS
    with 5,000 simulations otherwise; either stops after a second."""
    if players == 2:
        return AlphaBeta(depth=6, time=HINT_SECONDS, seed=seed), "alphabeta:6"
    return MCTS(simulations=5000, time=HINT_SECONDS, seed=seed), "mcts:5000"


def _move(game: Game, cell: int, player: int) -> dict[str, Any]:
    return {"cell": cell, "name": game.cell_name(cell), "player": player}


def exact(game: Game) -> dict[str, Any]:
    """The exact result of the position (``colorwars.solve(game)``) where the solver gives it
    quickly: two players, a small board. With it, every legal move's exact result."""
    from colorwars.solver import solve

    if game.players != 2:
        return {"solved": False, "reason": "the exact solver plays two-player games only"}
    limit = SOLVE_MAX_CELLS[game.rules.opening]
    if game.cells > limit:
        return {
            "solved": False,
            "reason": f"the board is too large for an exact answer here (at most {limit} cells "
            f"under the {game.rules.opening} opening)",
        }
    try:
        s = solve(game)
    except SearchLimitError as e:
        return {"solved": False, "reason": str(e)}
    line = s.line_names()
    return {
        "solved": True,
        "winner": s.winner,
        "plies": s.plies,
        "line": line,
        "best": {"cell": s.line[0], "name": line[0]} if s.line else None,
        "moves": {str(cell): {"winner": w, "plies": p} for cell, (w, p) in s.moves.items()},
        "reason": f"player {PLAYER_LETTERS[s.winner]} wins in {s.plies} plies with perfect play",
    }


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
        seats = tuple(seat_name(s, game.players) for s in data["seats"])
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
        if isinstance(move, list):
            move = tuple(move)
        mover = self.game.to_move
        cell = self.game.play(move)  # type: ignore[arg-type]  # the engine checks the type
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
        player = ai_player(name, self.game.players, seed, AI_SECONDS)
        return player, seat_name(name, self.game.players)

    def undo(self, plies: object = 1) -> dict[str, Any]:
        """Takes back the last ``plies`` moves (all or nothing)."""
        n = check.whole(plies, "plies", 1, check.MAX_PLIES)
        if n > len(self.movers):
            raise InvalidIndexError(
                f"cannot undo {n} moves: {len(self.movers)} played since the game began"
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

    def save(self, live: LiveGame) -> None:
        """Writes a game to the database (nothing without one); ``RequestError`` (503,
        ``StoreFull``) if the database refuses it."""
        if self.db is None:
            return
        try:
            self.db.save(live.id, live.client, live.used, live.to_data(), live.online)
        except StoreError as e:
            raise RequestError(503, "StoreFull", str(e)) from None

    def delete(self, game_id: str) -> None:
        self.get(game_id).guard()
        self._forget(game_id)

    def _forget(self, game_id: str) -> None:
        if self.db is not None:
            try:
                self.db.delete(game_id)
            except StoreError as e:
                raise RequestError(503, "StoreFull", str(e)) from None
        del self._index[game_id]
        self._games.pop(game_id, None)

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
        self.save(live)
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
            "(random, greedy, mcts:SIMULATIONS, alphabeta:DEPTH)",
        )
    names = tuple(seat_name(s, game.players) for s in seats)
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
        "seats": [HUMAN, "random", "greedy", "mcts", "alphabeta"],
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
            "ai_seconds": AI_SECONDS,
            "hint_seconds": HINT_SECONDS,
            "analysis_seconds": ANALYSIS_SECONDS,
        },
        "analysis_default": DEFAULT_ANALYSIS,
    }


def error_json(e: Exception) -> tuple[int, dict[str, Any]] | None:
    """The status and JSON body for an error a request ran into; None for an error that is
    not the client's (a bug: the server's generic 500)."""
    if isinstance(e, RequestError):
        return e.status, {"error": e.message, "type": e.kind}
    if isinstance(e, ColorwarsError):
        # A move the rules refuse in this position, or nothing to undo: the game's state is in
        # the way (409); anything else the request got wrong (400).
        status = 409 if isinstance(e, IllegalMoveError | InvalidIndexError) else 400
        return status, {"error": str(e), "type": type(e).__name__}
    if isinstance(e, MemoryError):
        return 503, {"error": f"out of memory: {e}", "type": "MemoryError"}
    return None
