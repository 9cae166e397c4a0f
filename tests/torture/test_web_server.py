"""The web server under load and abuse (issue 17, the web items): clients that leave in the
middle of a body, a full AI queue, long histories, many clients at once, bad Host headers and
host names, and Ctrl-C with work queued. Every refusal is our JSON error, never a traceback.

A client is its peer address (``colorwars.web.app``): the in-process tests give each client its
own address through the ASGI scope. AI searches that must stay busy are stalled (``stalled``),
so the machine's cores stay free; the child-process test runs real searches.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ModuleNotFoundError:
    httpx = pytest.importorskip("httpx")

import colorwars
from colorwars.errors import ConfigError
from colorwars.players import MCTS, Decision
from colorwars.web import GameStore, create_app, serving
from colorwars.web import store as web_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette 1.x warns when its test client runs on httpx
    from starlette.testclient import TestClient

BOUND = 10.0  # seconds: generous; a request that should be answered at once is, within this
HUMAN_VS_MCTS = {"seats": ["mcts:100", "human"]}


def client(app: Any, address: str = "127.0.0.1") -> httpx.AsyncClient:
    """An HTTP client of the app in-process, whose requests come from ``address``."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def settle(tasks: list[asyncio.Task[Any]], pending: int) -> set[asyncio.Task[Any]]:
    """The tasks done once no more than ``pending`` are left (or the bound has passed)."""
    deadline = time.monotonic() + BOUND
    while sum(not t.done() for t in tasks) > pending and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # and a moment more, for any that should not have waited
    return {t for t in tasks if t.done()}


async def answer(request: Any) -> httpx.Response:
    """The response of a request that must be answered within the bound."""
    response: httpx.Response = await asyncio.wait_for(request, BOUND)
    return response


@pytest.fixture
def stalled(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every MCTS seat's search waits until the test sets the event (at most a minute), so an
    AI thread stays busy for as long as a test needs it to, without using a core."""
    release = threading.Event()

    def search(self: MCTS, game: Any) -> Decision:
        release.wait(60)
        return Decision(game.legal_moves()[0], 0, 0.0)

    monkeypatch.setattr(MCTS, "search", search)
    try:
        yield release
    finally:
        release.set()


def long_record() -> tuple[str, list[str]]:
    """A finished 32x32 game of random moves (about 3,500 plies) as a record, and its
    positions: before the first move and after each move."""
    game = colorwars.Game(32, 32)
    rng = random.Random(4)
    positions = [game.to_text()]
    while game.winner is None:
        game.play(rng.choice(game.legal_moves()))
        positions.append(game.to_text())
    return colorwars.GameRecord.of(game, 0).to_text(), positions


# ---- a client that leaves in the middle of its body ------------------------------------------


def test_a_client_that_leaves_mid_body_raises_nothing() -> None:
    """The body stops after a few bytes and the client is gone: the app answers (to nobody)
    and raises nothing, so uvicorn has no "Exception in ASGI application" to log."""
    app = create_app()
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"width": ', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/games",
        "raw_path": b"/api/games",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test"), (b"content-length", b"100")],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
    }
    asyncio.run(asyncio.wait_for(app(scope, receive, send), BOUND))
    assert len(app.state.games) == 0
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 400
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert json.loads(body)["type"] == "ClientDisconnect"


# ---- AI work is bounded, and nothing else waits for it -----------------------------------


async def _games(http: httpx.AsyncClient, n: int, body: dict[str, Any]) -> list[str]:
    ids = []
    for _ in range(n):
        r = await answer(http.post("/api/games", json=body))
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    return ids


def test_ai_requests_beyond_a_clients_bound_are_refused_at_once(
    stalled: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One client asks for 40 AI moves at once: all but its bound are refused at once with
    503 and our JSON error, while the admitted ones wait; another client still gets in; and
    once the searches end, every admitted move is played and every refused game is free."""
    monkeypatch.setattr(web_store, "AI_WAIT_SECONDS", 60.0, raising=False)

    async def main() -> None:
        app = create_app()
        async with client(app, "10.0.0.1") as greedy, client(app, "10.0.0.2") as other:
            ids = await _games(greedy, 40, HUMAN_VS_MCTS)
            tasks = [
                asyncio.create_task(greedy.post(f"/api/games/{i}/ai-move", json={"ply": 0}))
                for i in ids
            ]
            bound = web_store.MAX_AI_REQUESTS_PER_CLIENT
            done = await settle(tasks, bound)
            pending = [t for t in tasks if t not in done]
            assert len(done) == 40 - bound, "the requests beyond the client's bound waited"
            for t in done:
                r = t.result()
                assert r.status_code == 503, r.text
                assert r.json()["type"] == "AIBusy"
                assert "this client" in r.json()["error"]
            (mine,) = await _games(other, 1, HUMAN_VS_MCTS)
            theirs = asyncio.create_task(other.post(f"/api/games/{mine}/ai-move"))
            await asyncio.sleep(0.3)
            assert not theirs.done()  # admitted: it waits for a thread
            stalled.set()
            for t in [*pending, theirs]:
                r = await answer(t)
                assert r.status_code == 200, r.text
            refused = next(i for i, t in zip(ids, tasks, strict=True) if t in done)
            r = await answer(greedy.post(f"/api/games/{refused}/ai-move"))
            assert r.status_code == 200, r.text

    asyncio.run(main())


def test_ai_requests_beyond_the_total_bound_are_refused_at_once(
    stalled: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many clients, each within its own bound: the requests beyond the server's total bound
    are refused at once (503), whoever sends them."""
    monkeypatch.setattr(web_store, "AI_WAIT_SECONDS", 60.0, raising=False)

    async def main() -> None:
        app = create_app()
        n = web_store.MAX_AI_REQUESTS + 8
        clients = [client(app, f"10.0.1.{k}") for k in range(1, n + 1)]
        tasks = []
        try:
            for http in clients:
                (game,) = await _games(http, 1, HUMAN_VS_MCTS)
                tasks.append(asyncio.create_task(http.post(f"/api/games/{game}/ai-move")))
            done = await settle(tasks, web_store.MAX_AI_REQUESTS)
            assert len(done) == n - web_store.MAX_AI_REQUESTS, "the requests beyond it waited"
            for t in done:
                assert t.result().status_code == 503, t.result().text
                assert t.result().json()["type"] == "AIBusy"
                assert "in all" in t.result().json()["error"]
        finally:
            stalled.set()
            await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
            for http in clients:
                await http.aclose()

    asyncio.run(main())


def test_an_ai_request_waits_for_a_thread_at_most_its_bound(
    stalled: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every AI thread busy: a further AI request, admitted, is refused with 503 once it has
    waited its bound, rather than waiting for as long as the queue takes."""
    monkeypatch.setattr(web_store, "AI_WAIT_SECONDS", 0.5, raising=False)

    async def main() -> None:
        app = create_app()
        n = web_store.AI_WORKERS + 3
        clients = [client(app, f"10.0.2.{k}") for k in range(1, n + 1)]
        tasks = []
        try:
            for http in clients:
                (game,) = await _games(http, 1, HUMAN_VS_MCTS)
                tasks.append(asyncio.create_task(http.post(f"/api/games/{game}/ai-move")))
            done = await settle(tasks, web_store.AI_WORKERS)
            assert len(done) == n - web_store.AI_WORKERS, "the waiting requests waited on"
            for t in done:
                assert t.result().status_code == 503, t.result().text
                assert t.result().json()["type"] == "AIBusy"
                assert "no AI thread was free" in t.result().json()["error"]
        finally:
            stalled.set()
            await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
            for http in clients:
                await http.aclose()

    asyncio.run(main())


def test_requests_that_need_no_ai_never_wait_for_it(stalled: threading.Event) -> None:
    """Every AI thread busy and AI requests queued: a new game from a record (replayed in a
    thread), a move, a game's state and its history are answered all the same."""
    record, positions = long_record()

    async def main() -> None:
        app = create_app()
        clients = [client(app, f"10.0.3.{k}") for k in range(1, 9)]
        tasks = []
        try:
            for http in clients:
                for game in await _games(http, 2, HUMAN_VS_MCTS):
                    tasks.append(asyncio.create_task(http.post(f"/api/games/{game}/ai-move")))
            await asyncio.sleep(0.3)
            http = clients[0]
            r = await answer(http.post("/api/games", json={"record": record}))
            assert r.status_code == 201, r.text
            assert r.json()["position"] == positions[-1]
            (people,) = await _games(http, 1, {"seats": ["human", "human"]})
            r = await answer(http.post(f"/api/games/{people}/moves", json={"cell": "c3"}))
            assert r.status_code == 200, r.text
            r = await answer(http.get(f"/api/games/{people}/history"))
            assert r.json()["positions"][-1] == r.json()["positions"][1]
        finally:
            stalled.set()
            await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
            for http in clients:
                await http.aclose()

    asyncio.run(main())


# ---- histories ------------------------------------------------------------------------


def test_a_long_history_comes_in_pages() -> None:
    """A 3,500-ply 32x32 game's history comes in bounded pages that, put together, are every
    position and every move of the game."""
    record, positions = long_record()
    with TestClient(create_app()) as http:
        g = http.post("/api/games", json={"record": record}).json()
        got: list[str] = []
        moves: list[dict[str, Any]] = []
        start: int | None = 0
        for _ in range(len(positions) + 1):  # a bound: every page has at least one position
            page = http.get(f"/api/games/{g['id']}/history", params={"start": start}).json()
            assert page["start"] == start
            assert 1 <= len(page["positions"]) <= web_store.HISTORY_PAGE
            got += page["positions"]
            moves += page["moves"]
            start = page["next"]
            if start is None:
                break
        assert got == positions
        assert moves == g["moves"]
        for bad in ("-1", "x", str(len(positions)), "1.5"):
            r = http.get(f"/api/games/{g['id']}/history", params={"start": bad})
            assert r.status_code == 400, bad
            assert r.json()["type"] == "ConfigError"
        r = http.get(f"/api/games/{g['id']}/history", params={"page": 2})
        assert r.status_code == 400
        assert r.json()["type"] == "BadRequest"


def test_the_server_answers_while_a_history_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A history is built off the event loop: while one is slow, other requests are
    answered."""
    gate = threading.Event()
    built = web_store.LiveGame.history

    def slow(self: Any, *args: Any, **kwargs: Any) -> Any:
        gate.wait(3)
        return built(self, *args, **kwargs)

    monkeypatch.setattr(web_store.LiveGame, "history", slow)

    async def main() -> None:
        async with client(create_app()) as http:
            (game,) = await _games(http, 1, {"seats": ["human", "human"]})
            history = asyncio.create_task(http.get(f"/api/games/{game}/history"))
            await asyncio.sleep(0.2)
            r = await answer(http.get("/api/options"))
            assert r.status_code == 200
            assert not history.done(), "the options waited for the history"
            gate.set()
            assert (await answer(history)).status_code == 200

    asyncio.run(main())


# ---- games per client ---------------------------------------------------------------------


def test_one_client_cannot_forget_the_games_of_others() -> None:
    """150 clients each start a game; then one client starts 150: it forgets only its own
    oldest games, and every other client's game is still there."""

    async def main() -> None:
        app = create_app()
        clients = [client(app, f"10.1.{k // 200}.{k % 200 + 1}") for k in range(150)]
        try:
            theirs = [(await _games(http, 1, {}))[0] for http in clients]
            async with client(app, "10.2.0.1") as greedy:
                mine = await _games(greedy, 150, {})
                kept = web_store.MAX_GAMES_PER_CLIENT
                for game in mine[:-kept]:
                    r = await answer(greedy.get(f"/api/games/{game}"))
                    assert r.status_code == 404
                for game in mine[-kept:]:
                    assert (await answer(greedy.get(f"/api/games/{game}"))).status_code == 200
            for http, game in zip(clients, theirs, strict=True):
                r = await answer(http.get(f"/api/games/{game}"))
                assert r.status_code == 200, r.text
        finally:
            for http in clients:
                await http.aclose()

    asyncio.run(main())


def test_three_hundred_clients_keep_their_new_games() -> None:
    """300 clients start a game at once and come back to it: every one is still there."""

    async def one(app: Any, k: int) -> int:
        async with client(app, f"10.3.{k // 200}.{k % 200 + 1}") as http:
            (game,) = await _games(http, 1, {})
            await asyncio.sleep(0.05)
            r = await answer(http.post(f"/api/games/{game}/moves", json={"cell": "c3"}))
            return r.status_code

    async def main() -> list[int]:
        app = create_app()
        return await asyncio.gather(*(one(app, k) for k in range(300)))

    assert asyncio.run(main()) == [200] * 300


def test_the_store_bounds_games_per_client_and_in_all() -> None:
    store = GameStore(limit=5, per_client=3)
    a = [store.create({}, client="a").id for _ in range(4)]
    assert [g in store for g in a] == [False, True, True, True]  # a's oldest, not another's
    b = [store.create({}, client="b").id for _ in range(2)]
    assert len(store) == 5
    store.get(a[1])  # used again: a's oldest is now a[2]
    c = store.create({}, client="c").id  # the store is full: the biggest holder (a) pays
    assert a[2] not in store
    assert all(g in store for g in (a[1], a[3], *b, c))
    # A busy game is never forgotten; when every candidate is busy, the answer is 503.
    for g in (a[1], a[3], *b, c):
        store.get(g).busy = True
    with pytest.raises(web_store.RequestError) as e:
        store.create({}, client="d")
    assert e.value.status == 503
    assert len(store) == 5


# ---- the Host header, and host names ----------------------------------------------------------


def test_a_bad_host_gets_our_json_error() -> None:
    app = create_app(allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://evil.example") as http:
        r = http.get("/api/options")
        assert r.status_code == 400
        assert r.json()["type"] == "BadHost"
        assert "evil.example" in r.json()["error"]
        assert http.get("/").status_code == 400
    for base in ("http://127.0.0.1:8000", "http://localhost", "http://LOCALHOST:1"):
        with TestClient(app, base_url=base) as http:
            assert http.get("/api/options").status_code == 200, base


def test_the_host_check_covers_every_loopback_address() -> None:
    """Listening on any loopback address (127.0.0.0/8, ::1, a name for one), the server takes
    only Host headers that name it (its address or localhost): against DNS rebinding. On any
    other address every Host is taken."""
    from colorwars.web.app import allowed_hosts_for

    for host, address in [
        ("127.0.0.1", "127.0.0.1"),
        ("127.0.0.2", "127.0.0.2"),
        ("127.255.255.254", "127.255.255.254"),
        ("::1", "::1"),
        ("localhost", "127.0.0.1"),
        ("localhost", "::1"),
    ]:
        allowed = allowed_hosts_for(host, address)
        assert allowed is not None, host
        assert {"localhost", address} <= set(allowed)
    for host, address in [("0.0.0.0", "0.0.0.0"), ("::", "::"), ("10.1.2.3", "10.1.2.3")]:
        assert allowed_hosts_for(host, address) is None, host
    app = create_app(allowed_hosts=allowed_hosts_for("::1", "::1"))
    with TestClient(app, base_url="http://[::1]:8000") as http:
        assert http.get("/api/options").status_code == 200
    with TestClient(app, base_url="http://127.0.0.1:8000") as http:
        assert http.get("/api/options").json()["type"] == "BadHost"


def test_a_real_server_refuses_a_bad_host_with_json() -> None:
    with serving() as url:
        r = httpx.get(url + "api/options", headers={"host": "evil.example"}, timeout=BOUND)
        assert r.status_code == 400
        assert r.json()["type"] == "BadHost"
        assert httpx.get(url + "api/options", timeout=BOUND).status_code == 200


BAD_HOSTS = ["a..b", "..", "a" * 64 + ".example", "bad\x00host", ""]


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_bad_host_names_are_our_config_error(host: str) -> None:
    with pytest.raises(ConfigError, match="host"), serving(host=host):
        pass


@pytest.mark.parametrize("host", ["a..b", "..", "a" * 64])
def test_serve_with_a_bad_host_says_so_in_one_line(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from colorwars.cli import main

    assert main(["serve", "--host", host, "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "host" in err


# ---- shutting down ----------------------------------------------------------------------------


def test_leaving_serving_answers_waiting_clients(stalled: threading.Event) -> None:
    """The ``with serving()`` block ends while AI requests run and wait: each is answered
    with our JSON error (503), and the server stops without waiting for the searches."""
    with serving() as url:
        http = httpx.Client(base_url=url, timeout=BOUND)
        games = [http.post("api/games", json=HUMAN_VS_MCTS).json()["id"] for _ in range(4)]
        answers: list[httpx.Response] = []

        def ask(game: str) -> None:
            answers.append(http.post(f"api/games/{game}/ai-move"))

        threads = [threading.Thread(target=ask, args=(g,), daemon=True) for g in games]
        for t in threads:
            t.start()
        time.sleep(0.5)
    for t in threads:
        t.join(BOUND)
    assert len(answers) == 4
    for r in answers:
        assert r.status_code == 503, r.text
        assert r.json()["type"] == "ShuttingDown"
    http.close()


CHILD_STDERR = re.compile(r"Traceback|Exception in ASGI|Error", re.IGNORECASE)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_on_serve_with_ai_work_queued(presses: int) -> None:
    """`colorwars serve` with ten AI moves asked for (real searches, each up to 5 s), a client
    that left mid-body and one still sending its body: Ctrl-C stops it within a few seconds,
    every client waiting (for an AI move, or to finish its body) gets our JSON error, and
    stderr holds no traceback."""
    with subprocess.Popen(
        [sys.executable, "-m", "colorwars.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stderr is not None
            line = child.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert match, line
            url, port = match[0], int(match[1])
            with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as sock:
                sock.sendall(
                    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b'Content-Length: 1000\r\n\r\n{"width": '
                )
            # And one still sending its body when Ctrl-C comes.
            stuck = socket.create_connection(("127.0.0.1", port), timeout=BOUND)
            stuck.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"
            )
            http = httpx.Client(base_url=url, timeout=BOUND)
            slow = {"width": 8, "height": 8, "seats": ["mcts:200000", "human"]}
            games = [http.post("api/games", json=slow).json()["id"] for _ in range(10)]
            answers: list[httpx.Response] = []

            def ask(game: str) -> None:
                answers.append(http.post(f"api/games/{game}/ai-move"))

            threads = [threading.Thread(target=ask, args=(g,), daemon=True) for g in games]
            for t in threads:
                t.start()
            time.sleep(1.0)
            for _ in range(presses):  # a second Ctrl-C changes nothing: the first is enough
                child.send_signal(signal.SIGINT)
                time.sleep(0.05)
            code = child.wait(timeout=5)
            for t in threads:
                t.join(BOUND)
            http.close()
            with stuck:
                stuck_answer = stuck.recv(4096).decode()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        stderr = child.stderr.read()
    assert code == 0, stderr
    assert not CHILD_STDERR.search(stderr), stderr
    assert len(answers) == 10
    for r in answers:
        assert r.status_code in (200, 503), r.text
        assert "move" in r.json() if r.status_code == 200 else "type" in r.json()
    kinds = {r.json().get("type") for r in answers if r.status_code == 503}
    assert "ShuttingDown" in kinds
    assert stuck_answer.startswith("HTTP/1.1 503"), stuck_answer
    assert '"type":"ShuttingDown"' in stuck_answer
