"""The web app over HTTP: ``create_app()`` builds the Starlette (ASGI) application that serves
the page and the JSON API, ``serve()`` runs it with uvicorn. The games themselves, their seats
and limits are in ``store.py``; this module only speaks HTTP.

AI searches, analyses and record replays run in worker threads (at most one per core at once),
never on the event loop, so the server answers other requests while an AI thinks. A game whose
AI is thinking refuses changes (409) until it has moved.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from importlib.resources import files
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from colorwars import _validate as check
from colorwars.errors import BackendError, ConfigError
from colorwars.web.store import (
    DEFAULT_ANALYSIS,
    MAX_SIMULATIONS,
    GameStore,
    LiveGame,
    RequestError,
    analyse,
    body_fields,
    build,
    error_json,
    hint_player,
    options,
)

__all__ = ["MAX_BODY_BYTES", "create_app", "listen", "serve", "serving"]

MAX_BODY_BYTES = 1 << 20  # a request body (a long game's record is far smaller)
LOOPBACK = ("127.0.0.1", "localhost")
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
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise RequestError(413, "TooLarge", f"the body is larger than {MAX_BODY_BYTES} bytes")
    if not data.strip():
        return None
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise RequestError(400, "BadJSON", f"the body is not valid JSON: {e}") from None


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


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (unknown path, wrong method) as JSON too."""
    assert isinstance(exc, HTTPException)
    kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(exc.status_code, "HTTPError")
    return JSONResponse(
        {"error": f"{exc.detail}: {request.method} {request.url.path}", "type": kind},
        status_code=exc.status_code,
        headers=exc.headers,
    )


class _Workers:
    """Runs blocking work (AI searches) in threads, at most one per core at a time. The limiter
    belongs to an event loop, so one is made for each loop that asks (tests run several)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        if self._limiter is None or self._loop is not loop:
            self._loop = loop
            self._limiter = anyio.CapacityLimiter(os.cpu_count() or 1)
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._limiter)


def index_html() -> str:
    return (files("colorwars.web") / "static" / "index.html").read_text(encoding="utf-8")


def create_app(store: GameStore | None = None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The web app: the page at ``/``, its files under ``/static/``, the API under ``/api/``.
    ``allowed_hosts`` restricts the Host header (``serve`` passes the loopback names when it
    listens on 127.0.0.1, against DNS rebinding)."""
    games = store if store is not None else GameStore()
    workers = _Workers()

    def live(request: Request) -> LiveGame:
        return games.get(request.path_params["id"])

    async def body(request: Request, allowed: tuple[str, ...], what: str) -> dict[str, Any]:
        return dict(body_fields(await read_json(request), allowed, what))

    async def page(request: Request) -> Response:
        return HTMLResponse(index_html(), headers={"Content-Security-Policy": PAGE_POLICY})

    async def get_options(request: Request) -> Any:
        return options()

    async def new_game(request: Request) -> Any:
        data = await read_json(request)
        # A record replays every move: off the event loop, like any long work.
        game = await workers.run(build, data)
        games.add(game)
        return game.state()

    async def get_game(request: Request) -> Any:
        return live(request).state()

    async def delete_game(request: Request) -> Any:
        game_id = request.path_params["id"]
        games.delete(game_id)
        return {"deleted": game_id}

    async def move(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("cell", "ply"), "move")
        game.guard()
        if "cell" not in b:
            raise RequestError(400, "BadRequest", 'a move needs a cell, e.g. {"cell": "c3"}')
        return game.play(b["cell"], b.get("ply"))

    async def ai_move(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("ai", "ply"), "AI move")
        game.guard()
        game.check_ply(b.get("ply"))
        player, name = game.ai_for_seat(b.get("ai"))
        position = game.game.copy()
        mover = position.to_move
        game.busy = True
        try:
            decision = await workers.run(player.search, position)
        finally:
            game.busy = False
        return game.play_ai(decision.cell, mover, name, decision.work, decision.seconds)

    async def undo(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("plies",), "undo")
        game.guard()
        return game.undo(b.get("plies", 1))

    async def hint(request: Request) -> Any:
        game = live(request)
        await body(request, (), "hint")
        position = game.game.copy()
        player, name = hint_player(position.players, game.seed)
        decision = await workers.run(player.search, position)
        return {
            "position": position.to_text(),
            "cell": decision.cell,
            "name": position.cell_name(decision.cell),
            "ai": name,
            "work": decision.work,
            "seconds": round(decision.seconds, 3),
        }

    async def analysis(request: Request) -> Any:
        game = live(request)
        b = await body(request, ("simulations",), "analysis")
        n = check.whole(
            b.get("simulations", DEFAULT_ANALYSIS), "simulations", 1, MAX_SIMULATIONS, ConfigError
        )
        return await workers.run(analyse, game.game.copy(), n, game.seed)

    async def record(request: Request) -> Any:
        game = live(request)
        g = game.game
        name = f"colorwars-{g.width}x{g.height}-{g.rules.name.replace('+', '-')}-{game.id}.cwr"
        return {"record": game.record(), "filename": name}

    async def history(request: Request) -> Any:
        game = live(request)
        return {"positions": game.history(), "moves": game.state()["moves"]}

    routes = [
        Route("/", page),
        Route("/api/options", _api(get_options)),
        Route("/api/games", _api(new_game, 201), methods=["POST"]),
        Route("/api/games/{id}", _api(get_game), methods=["GET"]),
        Route("/api/games/{id}", _api(delete_game), methods=["DELETE"]),
        Route("/api/games/{id}/moves", _api(move), methods=["POST"]),
        Route("/api/games/{id}/ai-move", _api(ai_move), methods=["POST"]),
        Route("/api/games/{id}/undo", _api(undo), methods=["POST"]),
        Route("/api/games/{id}/hint", _api(hint), methods=["POST"]),
        Route("/api/games/{id}/analysis", _api(analysis), methods=["POST"]),
        Route("/api/games/{id}/record", _api(record), methods=["GET"]),
        Route("/api/games/{id}/history", _api(history), methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("colorwars.web", "static")]), name="static"),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    app = Starlette(
        routes=routes, middleware=middleware, exception_handlers={HTTPException: _http_error}
    )
    app.state.games = games
    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); ``OSError`` if taken."""
    if not isinstance(host, str) or not host or len(host) > 255:
        check.fail(ConfigError, "host", host, "expected a host name or address")
    port = check.whole(port, "port", 0, 65535)
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _server(host: str, port: int, app: Starlette | None) -> tuple[Any, socket.socket, str]:
    """A uvicorn server for the app, its listening socket and its address."""
    try:
        import uvicorn
    except ModuleNotFoundError:
        raise BackendError("the web app needs uvicorn: pip install 'colorwars[web]'") from None
    sock = listen(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    if app is None:
        app = create_app(allowed_hosts=list(LOOPBACK) if host in LOOPBACK else None)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    return uvicorn.Server(config), sock, url


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    announce: Callable[[str], object] = print,
) -> None:
    """Serves the web app until Ctrl-C (``colorwars serve``). Listens on 127.0.0.1 unless told
    otherwise (then any Host header is accepted, so other machines can reach it by address);
    ``announce`` gets the page's address once the server is up."""
    check.flag(open_browser, "open_browser")
    server, sock, url = _server(host, port, None)

    def ready() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            announce(url)
            if open_browser:
                webbrowser.open(url)

    threading.Thread(target=ready, daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the server stops; uvicorn has shut it down cleanly by now
    finally:
        sock.close()


@contextmanager
def serving(host: str = "127.0.0.1", port: int = 0, app: Starlette | None = None) -> Iterator[str]:
    """The web app served from a background thread for the length of a ``with`` block, on a
    free port unless told otherwise; gives the page's address (for scripts, notebooks and
    tests)::

        with serving() as url:
            ...  # e.g. urllib.request.urlopen(url + "api/options")
    """
    server, sock, url = _server(host, port, app)
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
