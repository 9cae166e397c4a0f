"""The web app over HTTP: ``create_app()`` builds the Starlette (ASGI) application that serves
the page and the JSON API, ``serve()`` runs it with uvicorn. The games themselves, their seats
and limits are in ``store.py``; this module only speaks HTTP.

AI searches, analyses, record replays and histories run in worker threads (``workers.py``),
never on the event loop, so the server answers other requests while an AI thinks; AI work and
replays have threads of their own, so a request that needs no AI never waits for one. A game
whose AI is thinking refuses changes (409) until it has moved.

An online game (``online.py``) refuses a change without the token of the seat concerned (403,
``Forbidden``); every change of any game is pushed to the listeners of
``GET /api/games/{id}/events`` (Server-Sent Events). ``serve`` keeps the games in SQLite
(``db.py``); a change is written before it is answered, and undone if the write is refused.

**A client is the peer address of a request** (``request.client.host``): the one thing about a
request that its sender cannot choose, where a cookie or an id in a header can be dropped or
made up at will, and so bounds nothing. The store bounds the games of each client, and the
worker pools the AI requests of each (``store.py`` has the numbers). On a server listening on
loopback (the default), every program on this machine is one client, the machine's user; the
bounds per client matter once ``--host`` lets other machines in (behind a proxy, every request
would be the proxy's).

On a loopback address (127.0.0.0/8, ::1) the server answers only Host headers that name it
(``localhost`` or its address), against DNS rebinding; any other Host gets 400 (``BadHost``).
Shutting down (Ctrl-C, the end of ``with serving()``) answers every request waiting for AI work
with 503 (``ShuttingDown``) at once and abandons the running searches.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import json
import os
import socket
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from importlib.resources import files
from types import FrameType
from typing import Any, TypeVar

import anyio
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from colorwars import _validate as check
from colorwars._common import PLAYER_LETTERS
from colorwars.errors import BackendError, ColorwarsError, ConfigError, show
from colorwars.web import store as limits
from colorwars.web.db import GameDB, default_path
from colorwars.web.online import Hub, Listener, RateLimit
from colorwars.web.store import (
    DEFAULT_ANALYSIS,
    HUMAN,
    MAX_SIMULATIONS,
    GameStore,
    LiveGame,
    RequestError,
    analyse,
    body_fields,
    build,
    error_json,
    options,
    rematch,
)
from colorwars.web.store import (
    hint as hint_move,
)
from colorwars.web.workers import Pool, shutting_down

__all__ = ["MAX_BODY_BYTES", "allowed_hosts_for", "create_app", "listen", "serve", "serving"]

MAX_BODY_BYTES = 1 << 20  # a request body (a long game's record is far smaller)
# Once shutting down, the longest the server waits for a request it cannot answer at once (a
# body still coming in) before cancelling it; waiting AI work is answered at once.
SHUTDOWN_SECONDS = 1
# The page may load nothing from elsewhere: it works offline, and nothing it shows runs code
# from another site.
PAGE_POLICY = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]


async def read_json(request: Request) -> object:
    """The request's JSON body (None when empty), read with a bound."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise RequestError(413, "TooLarge", f"the body is larger than {MAX_BODY_BYTES} bytes")
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY_BYTES:
                raise RequestError(
                    413, "TooLarge", f"the body is larger than {MAX_BODY_BYTES} bytes"
                )
    except ClientDisconnect:
        # Answered to nobody, but answered: nothing for the server's log.
        raise RequestError(
            400, "ClientDisconnect", "the client left before the end of its request's body"
        ) from None
    if not data.strip():
        return None
    try:
        body = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise RequestError(400, "BadJSON", f"the body is not valid JSON: {e}") from None
    if body is None:  # a JSON null is not an empty body: the client meant something else
        raise RequestError(
            400, "BadRequest", "the body is JSON null: send an object ({} for no fields)"
        )
    return body


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def _api(handler: Callable[[Request], Awaitable[Any]], status: int = 200) -> Endpoint:
    """An endpoint answering the handler's result as JSON, and any error a client caused as
    a 4xx (or 503) with ``{"error": what was wrong, "type": its kind}``."""

    async def endpoint(request: Request) -> Response:
        try:
            result = await handler(request)
        except Exception as e:
            answer = error_json(e)
            if answer is None:
                raise
            code, body = answer
            return JSONResponse(body, status_code=code)
        return JSONResponse(result, status_code=status)

    return endpoint


class EventStream(StreamingResponse):
    """A stream of Server-Sent Events that ends as soon as its client leaves (Starlette's
    own notices only at its next write, up to a keep-alive later, and a listener would count
    against the bounds till then)."""

    def __init__(self, content: Listener) -> None:
        super().__init__(
            content,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self.listener = content

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as tasks:

                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    tasks.cancel_scope.cancel()

                tasks.start_soon(watch)
                with contextlib.suppress(OSError):
                    await self.stream_response(send)
                tasks.cancel_scope.cancel()
        finally:
            # However the response ended, the listener's place in the bounds is free.
            self.listener.close()


def _events(handler: Endpoint) -> Endpoint:
    """An endpoint answering a stream, or an error as JSON (as ``_api``)."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as e:
            answer = error_json(e)
            if answer is None:
                raise
            code, body = answer
            return JSONResponse(body, status_code=code)

    return endpoint


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (unknown path, wrong method) as JSON too."""
    assert isinstance(exc, HTTPException)
    kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(exc.status_code, "HTTPError")
    return JSONResponse(
        {"error": f"{exc.detail}: {request.method} {request.url.path}", "type": kind},
        status_code=exc.status_code,
        headers=exc.headers,
    )


class _Work:
    """The app's worker pools (AI searches; replays: records and histories), and the requests
    still reading their body, all answered at once when the server stops."""

    def __init__(self) -> None:
        self.ai = Pool(
            "AI",
            "AIBusy",
            limits.AI_WORKERS,
            limits.MAX_AI_REQUESTS_PER_CLIENT,
            limits.MAX_AI_REQUESTS,
            limits.AI_WAIT_SECONDS,
        )
        self.replay = Pool(
            "replay",
            "ServerBusy",
            limits.REPLAY_WORKERS,
            limits.MAX_REPLAYS_PER_CLIENT,
            limits.MAX_REPLAYS,
            limits.REPLAY_WAIT_SECONDS,
        )
        self.hub = Hub()
        self.hub_loop: asyncio.AbstractEventLoop | None = None  # the loop the hub runs on
        self._stops: set[asyncio.Future[None]] = set()
        self._closed = False

    def open(self) -> None:
        self._closed = False
        self.ai.open()
        self.replay.open()
        self.hub.open()

    def close(self) -> None:
        """The server is stopping: answers every request waiting for work or for its body,
        and ends every event stream."""
        self._closed = True
        self.ai.close()
        self.replay.close()
        loop = self.hub_loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(self.hub.close)
        for stop in list(self._stops):
            with contextlib.suppress(RuntimeError):  # its loop has closed
                stop.get_loop().call_soon_threadsafe(_stop, stop)

    async def unless_closed(self, step: Coroutine[Any, Any, T]) -> T:
        """``step``'s result, unless the server stops first: then 503 (``ShuttingDown``)
        rather than a request cancelled with a traceback once shutting down times out."""
        if self._closed:
            step.close()
            raise shutting_down()
        stop = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(step)
        self._stops.add(stop)
        try:
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._stops.discard(stop)
            finished = task.done()
            if not finished:
                task.cancel()
        if not finished:
            raise shutting_down()
        return task.result()


def _stop(stop: asyncio.Future[None]) -> None:
    if not stop.done():
        stop.set_result(None)


def client_of(request: Request) -> str:
    """Who sent a request: its peer address (see the module's docstring)."""
    return request.client.host if request.client is not None else "unknown"


def _host_name(header: str) -> str:
    """The host a Host header names, without its port: ``[::1]:8000`` is ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _this_machine(header: str) -> bool:
    """Whether a Host header names this machine only as itself (``localhost``, a loopback or
    the unspecified address), a name no other machine reaches it by."""
    name = _host_name(header)
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


class _TrustedHosts:
    """Refuses a request whose Host header names another host than the allowed ones (400,
    ``BadHost``, our JSON error), as Starlette's ``TrustedHostMiddleware`` does in plain text."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = Headers(scope=scope).get("host", "")
            if _host_name(header) not in self.allowed:
                names = ", ".join(sorted(self.allowed))
                response = JSONResponse(
                    {
                        "error": f"the Host header {show(header)} does not name this server; "
                        f"it answers to {names}",
                        "type": "BadHost",
                    },
                    status_code=400,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def allowed_hosts_for(host: str, address: str) -> list[str] | None:
    """The Host headers a server asked to listen on ``host``, and listening on ``address``,
    answers to: on a loopback address (127.0.0.0/8, ::1), only its own names (``localhost``,
    the address and the host asked for), against DNS rebinding (another site's name pointed
    at this machine); on any other address None: every Host, so that other machines can
    reach it by whatever name they know it by."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if not ip.is_loopback:
        return None
    return sorted({"localhost", host.lower(), address.lower()})


def index_html() -> str:
    return (files("colorwars.web") / "static" / "index.html").read_text(encoding="utf-8")


def bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    header = request.headers.get("authorization", "")
    kind, _, token = header.partition(" ")
    return token.strip() or None if kind.lower() == "bearer" else None


def create_app(
    store: GameStore | None = None,
    allowed_hosts: list[str] | None = None,
    rate: RateLimit | None = None,
    hub: Hub | None = None,
    share_url: str | None = None,
) -> Starlette:
    """The web app: the page at ``/``, its files under ``/static/``, the API under ``/api/``.
    ``allowed_hosts`` restricts the Host header to those names (``serve`` passes
    ``allowed_hosts_for`` its address when it listens on loopback, against DNS rebinding).
    ``store`` keeps the games (in memory unless it has a database); ``rate`` limits the
    requests on online games per client, ``hub`` bounds the event streams. ``share_url``
    (``serve`` passes its first network address when it listens beyond loopback) is where the
    links of an online game made on this machine point, since ``localhost`` or ``0.0.0.0``
    would lead a friend's browser to their own machine."""
    games = store if store is not None else GameStore()
    work = _Work()
    if hub is not None:
        work.hub = hub
    limit = rate if rate is not None else RateLimit()

    def forgotten(game_id: str, deleted: bool) -> None:
        """A game deleted, or forgotten by the store's bounds: its listeners' streams end."""
        why = "deleted" if deleted else "forgotten"
        work.hub.publish(game_id, "deleted", {"id": game_id, "deleted": game_id, "why": why})

    games.forgotten = forgotten

    def live(request: Request) -> LiveGame:
        game = games.get(request.path_params["id"])
        if game.online:
            limit.check(client_of(request))
        return game

    def seat_of(request: Request, game: LiveGame) -> int:
        """The seat whose token the request carries; 403 for an online game without one of
        its tokens (any seat for an offline game: -1)."""
        if not game.online:
            return -1
        seat = game.seat_of(bearer(request))
        if seat is None:
            why = "carries no token" if bearer(request) is None else "carries a token of no seat"
            raise RequestError(
                403,
                "Forbidden",
                f"game {game.id} is online and this request {why}: send "
                "Authorization: Bearer TOKEN, the token of your seat's link",
            )
        return seat

    def to_move(request: Request, game: LiveGame) -> None:
        """403 unless the request may move for the player to move: in an online game, that
        player's own token; an AI seat is moved by its own AI only (``ai_seat``)."""
        seat = seat_of(request, game)
        if seat < 0 or game.game.winner is not None:
            return
        if game.seats[game.game.to_move] != HUMAN:
            raise ai_seat(game)
        if seat != game.game.to_move:
            letter = PLAYER_LETTERS[game.game.to_move]
            raise RequestError(
                403,
                "Forbidden",
                f"it is player {letter}'s turn, and this token is player "
                f"{PLAYER_LETTERS[seat]}'s: only {letter}'s token moves for {letter}",
            )

    def ai_seat(game: LiveGame) -> RequestError:
        """Online, an AI seat's move is its own AI's: a seat that chose it (a move by hand,
        another AI) would play for the AI against the other humans; 403."""
        name = game.seats[game.game.to_move]
        letter = PLAYER_LETTERS[game.game.to_move]
        return RequestError(
            403,
            "Forbidden",
            f"player {letter} is an AI seat ({name}) of an online game: its own AI moves "
            f'for it (POST ai-move without "ai"), and no player chooses its move',
        )

    def changed(game: LiveGame, kind: str, state: dict[str, Any]) -> dict[str, Any]:
        """Tells every listener of the game; the state answered."""
        work.hub_loop = asyncio.get_running_loop()
        work.hub.publish(game.id, kind, state)
        return state

    def saved(game: LiveGame, undo: Callable[[], object]) -> None:
        """Writes the changed game to the database; undoes the change if it is refused."""
        try:
            games.save(game)
        except RequestError:
            undo()
            raise

    def pop(game: LiveGame) -> None:
        game.game.pop()
        game.movers.pop()

    async def read(request: Request) -> object:
        return await work.unless_closed(read_json(request))

    async def body(request: Request, allowed: tuple[str, ...], what: str) -> dict[str, Any]:
        return dict(body_fields(await read(request), allowed, what))

    async def page(request: Request) -> Response:
        return HTMLResponse(index_html(), headers={"Content-Security-Policy": PAGE_POLICY})

    async def get_options(request: Request) -> Any:
        return options()

    async def new_game(request: Request) -> Any:
        data = await read(request)
        client = client_of(request)
        if isinstance(data, dict) and data.get("online") is True:
            limit.check(client)
        if isinstance(data, dict) and "record" in data:
            # A record replays every move: off the event loop, like any long work.
            game = await work.replay.run(client, build, data)
        else:
            game = build(data)
        games.add(game, client)
        state = game.state()
        if game.online:
            tokens, game.pending_tokens = game.pending_tokens, {}
            assert game.creator is not None
            base = str(request.base_url)
            if share_url is not None and _this_machine(request.headers.get("host", "")):
                base = share_url
            state["seat"] = game.creator
            state["token"] = tokens[game.creator]
            links = {
                PLAYER_LETTERS[p]: f"{base}?game={game.id}&token={t}"
                for p, t in tokens.items()
                if p != game.creator
            }
            links["spectator"] = f"{base}?game={game.id}"
            state["links"] = links
        return state

    async def list_games(request: Request) -> Any:
        return {"games": games.recent(client_of(request))}

    async def get_game(request: Request) -> Any:
        game = live(request)
        state = game.state()
        if game.online:
            state["seat"] = game.seat_of(bearer(request))
        return state

    async def delete_game(request: Request) -> Any:
        game_id = request.path_params["id"]
        game = live(request)
        if game.online and seat_of(request, game) != game.creator:
            raise RequestError(403, "Forbidden", "only the creator's token deletes an online game")
        games.delete(game_id)  # its listeners are told (forgotten below)
        return {"deleted": game_id}

    async def events(request: Request) -> Response:
        game = live(request)
        stream = work.hub.stream(game.id, client_of(request), game.state())
        work.hub_loop = asyncio.get_running_loop()
        return EventStream(stream)

    async def move(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("cell", "ply"), "move")
        game.guard()
        to_move(request, game)
        if "cell" not in b:
            raise RequestError(400, "BadRequest", 'a move needs a cell, e.g. {"cell": "c3"}')
        state = game.play(b["cell"], b.get("ply"))
        saved(game, lambda: pop(game))
        return changed(game, "move", state)

    async def ai_move(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("ai", "ply"), "AI move")
        game.guard()
        if game.online:
            seat_of(request, game)
            if game.seats[game.game.to_move] == HUMAN:
                to_move(request, game)
            elif b.get("ai") is not None and b["ai"] != game.seats[game.game.to_move]:
                raise ai_seat(game)
        game.check_ply(b.get("ply"))
        player, name = game.ai_for_seat(b.get("ai"))
        position = game.game.copy()
        mover = position.to_move
        game.busy = True
        try:
            # Any: a Perfect player's decision is its own NamedTuple, with the same fields.
            decision: Any = await work.ai.run(client_of(request), player.search, position)
        finally:
            game.busy = False
        state = game.play_ai(decision.cell, mover, name, decision.work, decision.seconds)
        saved(game, lambda: pop(game))
        return changed(game, "move", state)

    async def rematch_game(request: Request) -> Any:
        old = live(request)
        b = await body(request, ("swap",), "rematch")
        seat = seat_of(request, old)  # online: a player of the game asks
        swap = b.get("swap", False)
        if old.rematched is not None and old.rematched[0] in games:
            # Online, the other player asked first: the same rematch for both (two would
            # each send the other's browser to its own, and the players would never meet).
            game_id, swap = old.rematched
            game = games.get(game_id)
        else:
            game = rematch(old, swap)
            games.add(game, client_of(request))
            if game.online:
                old.rematched = (game.id, bool(swap))
        state = game.state()
        if game.online:
            state["seat"] = (1 - seat if swap else seat) if seat >= 0 else None
        # Everyone watching the old game follows to the new one (no token in it: each
        # browser keeps its own).
        work.hub.publish(
            old.id,
            "rematch",
            {"id": old.id, "ply": old.game.ply, "rematch": game.id, "swap": bool(swap)},
        )
        return state

    async def undo(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("plies",), "undo")
        game.guard()
        seat = seat_of(request, game)
        # Online, a seat takes back its own last move, before anyone has answered it.
        if seat >= 0 and (b.get("plies", 1) != 1 or not game.movers or game.movers[-1] != seat):
            raise RequestError(
                403,
                "Forbidden",
                "in an online game a seat takes back only its own last move, one ply, "
                "before the next player has moved",
            )
        state = game.undo(b.get("plies", 1))

        def redo() -> None:
            for m in reversed(state["undone"]):
                game.game.play(m["cell"])
                game.movers.append(m["player"])

        saved(game, redo)
        return changed(game, "undo", state)

    async def hint(request: Request) -> Any:
        game = live(request)
        await body(request, (), "hint")
        return await work.ai.run(client_of(request), hint_move, game.game.copy(), game.seed)

    async def analysis(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("simulations",), "analysis")
        n = check.whole(
            b.get("simulations", DEFAULT_ANALYSIS), "simulations", 1, MAX_SIMULATIONS, ConfigError
        )
        return await work.ai.run(client_of(request), analyse, game.game.copy(), n, game.seed)

    async def record(request: Request) -> Any:
        game = live(request)
        g = game.game
        name = f"colorwars-{g.width}x{g.height}-{g.rules.name.replace('+', '-')}-{game.id}.cwr"
        return {"record": game.record(), "filename": name}

    async def check_move(request: Request) -> Any:
        """Whether a cell is a legal move now, and the rules' reason when it is not (for the
        page to say why, without a refused request in the browser's console)."""
        game = live(request)
        query = body_fields(dict(request.query_params), ("cell",), "check move")
        if "cell" not in query:
            raise RequestError(400, "BadRequest", "check move needs a cell, e.g. ?cell=c3")
        cell: object = query["cell"]
        if isinstance(cell, str) and cell.isdigit():
            cell = int(cell)
        trial = game.game.copy()
        try:
            played = limits.play_json(trial, cell)
        except ColorwarsError as e:
            return {"cell": cell, "legal": False, "reason": str(e)}
        return {"cell": played, "name": trial.cell_name(played), "legal": True, "reason": None}

    async def history(request: Request) -> Any:
        game = live(request)
        query = body_fields(dict(request.query_params), ("start",), "history")
        start: object = query.get("start", 0)
        if isinstance(start, str) and start.isdigit():
            start = int(start)
        # A copy taken here, a page built in a thread: a long game's is a lot of text.
        return await work.replay.run(client_of(request), game.snapshot().history, start)

    routes = [
        Route("/", page),
        Route("/api/options", _api(get_options)),
        Route("/api/games", _api(new_game, 201), methods=["POST"]),
        Route("/api/games", _api(list_games), methods=["GET"]),
        Route("/api/games/{id}", _api(get_game), methods=["GET"]),
        Route("/api/games/{id}", _api(delete_game), methods=["DELETE"]),
        Route("/api/games/{id}/moves", _api(move), methods=["POST"]),
        Route("/api/games/{id}/ai-move", _api(ai_move), methods=["POST"]),
        Route("/api/games/{id}/undo", _api(undo), methods=["POST"]),
        Route("/api/games/{id}/rematch", _api(rematch_game, 201), methods=["POST"]),
        Route("/api/games/{id}/hint", _api(hint), methods=["POST"]),
        Route("/api/games/{id}/analysis", _api(analysis), methods=["POST"]),
        Route("/api/games/{id}/record", _api(record), methods=["GET"]),
        Route("/api/games/{id}/history", _api(history), methods=["GET"]),
        Route("/api/games/{id}/events", _events(events), methods=["GET"]),
        Route("/api/games/{id}/check-move", _api(check_move), methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("colorwars.web", "static")]), name="static"),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(_TrustedHosts, allowed_hosts=allowed_hosts))
    app = Starlette(
        routes=routes, middleware=middleware, exception_handlers={HTTPException: _http_error}
    )
    app.state.games = games
    app.state.work = work
    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); ``ConfigError`` for a host
    that is no name or address, ``OSError`` if the port is taken."""
    if not isinstance(host, str) or not host or len(host) > 255:
        check.fail(ConfigError, "host", host, "expected a host name or address")
    port = check.whole(port, "port", 0, 65535)
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as e:
        check.fail(ConfigError, "host", host, f"cannot listen there ({e.strerror})")
    except ValueError:  # an empty or too long label (idna's UnicodeError), a NUL
        check.fail(ConfigError, "host", host, "expected a host name or address")
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        hint = {
            errno.EADDRINUSE: f"port {port} on {host} is in use",
            errno.EACCES: f"port {port} on {host} needs privileges this user lacks",
        }.get(e.errno or 0)
        if hint is None:
            raise
        raise OSError(e.errno, f"{hint}: choose another port (--port 0 takes a free one)") from e
    return sock


def _server(
    host: str, port: int, app: Starlette | None, store: GameStore | None = None
) -> tuple[Any, socket.socket, str]:
    """A uvicorn server for the app, its listening socket and its address. Shutting down, the
    server first closes the app's worker pools, which answers every waiting request. Without
    an app, one on ``store`` (None: games in memory)."""
    try:
        import uvicorn
    except ModuleNotFoundError:
        raise BackendError("the web app needs uvicorn: pip install 'colorwars[web]'") from None
    sock = listen(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    if app is None:
        shared = network_urls(host, sock.getsockname()[1])
        app = create_app(
            store,
            allowed_hosts=allowed_hosts_for(host, sock.getsockname()[0]),
            share_url=shared[0] if shared else None,
        )
    work: _Work | None = getattr(app.state, "work", None)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            # A second Ctrl-C would skip the app's shutdown and leave its tasks to be
            # cancelled with tracebacks; the first one stops the server within a second.
            self.force_exit = False

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            if work is not None:
                work.hub_loop = asyncio.get_running_loop()
                work.open()
            await super().startup(sockets)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if work is not None:
                work.close()
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app, log_level="warning", access_log=False, timeout_graceful_shutdown=SHUTDOWN_SECONDS
    )
    return Server(config), sock, url


def network_urls(host: str, port: int) -> list[str]:
    """The page's addresses for other machines when the server listens on ``host`` (an
    address of every interface, or one that is not loopback); empty on loopback."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if ip is not None and ip.is_loopback:
        return []
    if ip is not None and not ip.is_unspecified:
        return [f"http://{host if ip.version == 4 else f'[{host}]'}:{port}/"]
    found: list[str] = []
    # The address this machine reaches others from (a UDP socket sends nothing).
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))
        found.append(str(probe.getsockname()[0]))
    with contextlib.suppress(OSError):
        for *_, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            name = str(address[0])
            if name not in found:
                found.append(name)
    return [f"http://{a}:{port}/" for a in found if not a.startswith("127.")]


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    announce: Callable[[str], object] = print,
    db: str | os.PathLike[str] | None = None,
) -> None:
    """Serves the web app until Ctrl-C (``colorwars serve``). Listens on 127.0.0.1 unless told
    otherwise (on an address that is not loopback any Host header is accepted, so other
    machines can reach it by address); keeps the games in the SQLite file ``db`` (None: the
    user's data folder), a ``FileError`` naming it if it is damaged. ``announce`` gets the
    page's address once the server is up and, listening beyond loopback, a line saying so
    and the addresses to share. Ctrl-C answers every request waiting for AI work (503) and
    stops at once."""
    check.flag(open_browser, "open_browser")
    try:
        import uvicorn  # noqa: F401  # before the database: a missing extra says so first
    except ModuleNotFoundError:
        raise BackendError("the web app needs uvicorn: pip install 'colorwars[web]'") from None
    store = GameStore(db=GameDB(default_path(), make_folder=True) if db is None else GameDB(db))
    try:
        server, sock, url = _server(host, port, None, store)
    except BaseException:
        assert store.db is not None
        store.db.close()
        raise
    shared = network_urls(host, sock.getsockname()[1])

    def ready() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            announce(url)
            if shared or allowed_hosts_for(host, sock.getsockname()[0]) is None:
                announce(
                    "reachable from the network: anyone who can reach this machine can open "
                    "the page; share " + (", ".join(shared) or "this machine's address")
                )
            if open_browser and not webbrowser.open(url):
                announce(f"no web browser to open here: open {url} in one")

    threading.Thread(target=ready, daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the server stops; it has answered every request by now
    finally:
        sock.close()
        assert store.db is not None
        store.db.close()


@contextmanager
def serving(
    host: str = "127.0.0.1",
    port: int = 0,
    app: Starlette | None = None,
    store: GameStore | None = None,
) -> Iterator[str]:
    """The web app served from a background thread for the length of a ``with`` block, on a
    free port unless told otherwise; gives the page's address (for scripts, notebooks and
    tests). Its games are in memory unless ``store`` says otherwise (a ``GameStore`` on a
    database)::

        with serving() as url:
            ...  # e.g. urllib.request.urlopen(url + "api/options")
    """
    server, sock, url = _server(host, port, app, store)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise BackendError(f"the web app did not start on {url}")
            time.sleep(0.01)
        yield url
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
