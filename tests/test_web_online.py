"""Online games over the HTTP API: a token per seat, 403 for a wrong or missing one (the game
unchanged), links for the other seats and a spectator, the event stream (Server-Sent Events)
pushing every change, the rate limit and the bounds."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ModuleNotFoundError:
    httpx = pytest.importorskip("httpx")

from colorwars.web import GameStore, create_app, serving
from colorwars.web.db import GameDB
from colorwars.web.online import Hub, RateLimit

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as c:
        yield c


def online_game(client: Any, **body: Any) -> dict[str, Any]:
    body.setdefault("seats", ["human", "human"])
    r = client.post("/api/games", json={"online": True, **body})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def token_of(link: str) -> str | None:
    values = parse_qs(urlparse(link).query).get("token")
    return values[0] if values else None


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def test_an_online_game_gives_a_token_and_links(client: TestClient) -> None:
    g = online_game(client)
    assert g["online"] is True
    assert g["seat"] == 0
    assert len(g["token"]) >= 40  # 32 random bytes
    assert set(g["links"]) == {"b", "spectator"}
    b = token_of(g["links"]["b"])
    assert b is not None
    assert b != g["token"]
    assert token_of(g["links"]["spectator"]) is None
    assert parse_qs(urlparse(g["links"]["b"]).query)["game"] == [g["id"]]
    # Nothing else shows a token: not the state, not another seat's view, not the list.
    for headers in ({}, auth(b), auth(g["token"])):
        text = client.get(f"/api/games/{g['id']}", headers=headers).text
        assert g["token"] not in text
        assert b not in text
    assert client.get(f"/api/games/{g['id']}", headers=auth(b)).json()["seat"] == 1
    assert client.get(f"/api/games/{g['id']}").json()["seat"] is None
    listed = client.get("/api/games").text
    assert g["token"] not in listed
    assert b not in listed
    # Three seats, one of them an AI: links for the other human only, and the spectator.
    three = online_game(client, width=3, height=3, players=3, seats=["human", "greedy", "human"])
    assert set(three["links"]) == {"c", "spectator"}
    r = client.post("/api/games", json={"online": True, "seats": ["greedy", "random"]})
    assert r.status_code == 400
    assert "needs a human seat" in r.json()["error"]
    r = client.post("/api/games", json={"online": "yes"})
    assert r.status_code == 400


def test_only_the_seats_token_moves_it(client: TestClient) -> None:
    g = online_game(client)
    a, b = g["token"], token_of(g["links"]["b"])
    url = f"/api/games/{g['id']}"
    before = client.get(url).json()
    for headers in ({}, auth("not-a-token"), auth(b), {"Authorization": f"Basic {a}"}):
        r = client.post(f"{url}/moves", json={"cell": "c3"}, headers=headers)
        assert r.status_code == 403, (headers, r.text)
        assert r.json()["type"] == "Forbidden"
        assert client.get(url).json() == before
    r = client.post(f"{url}/moves", json={"cell": "c3"}, headers=auth(a))
    assert r.status_code == 200
    after_a = client.get(url).json()
    # Now b's turn: a's token cannot move for b, nor can the spectator (no token).
    for headers in (auth(a), {}):
        r = client.post(f"{url}/moves", json={"cell": "a1"}, headers=headers)
        assert r.status_code == 403
        assert client.get(url).json() == after_a
    # Undo: only the seat's own last move; deleting: only the creator.
    for headers in ({}, auth(b)):
        assert client.post(f"{url}/undo", headers=headers).status_code == 403
    assert client.delete(url, headers=auth(b)).status_code == 403
    assert client.delete(url).status_code == 403
    assert client.get(url).json() == after_a
    assert client.post(f"{url}/moves", json={"cell": "a1"}, headers=auth(b)).status_code == 200
    assert client.post(f"{url}/undo", headers=auth(b)).json()["ply"] == 1
    assert client.post(f"{url}/ai-move", json={"ai": "greedy"}).status_code == 403
    assert client.delete(url, headers=auth(a)).status_code == 200


def test_a_rematch_keeps_each_players_token(client: TestClient) -> None:
    g = online_game(client)
    a, b = g["token"], token_of(g["links"]["b"])
    url = f"/api/games/{g['id']}"
    client.post(f"{url}/moves", json={"cell": "c3"}, headers=auth(a))
    assert client.post(f"{url}/rematch", json={"swap": True}).status_code == 403  # no token
    r = client.post(f"{url}/rematch", json={"swap": True}, headers=auth(b))
    assert r.status_code == 201, r.text
    again = r.json()
    assert again["ply"] == 0
    assert again["seat"] == 0  # b's player moves first now
    assert "token" not in again
    assert "links" not in again
    moves = f"/api/games/{again['id']}/moves"
    assert client.post(moves, json={"cell": "c3"}, headers=auth(a)).status_code == 403
    assert client.post(moves, json={"cell": "c3"}, headers=auth(b)).status_code == 200
    assert client.post(moves, json={"cell": "a1"}, headers=auth(a)).status_code == 200
    # Offline, the same setup and seats (swapped when asked).
    off = client.post("/api/games", json={"width": 4, "height": 6, "seats": ["human", "easy"]})
    r = client.post(f"/api/games/{off.json()['id']}/rematch", json={"swap": True}).json()
    assert (r["width"], r["height"], r["seats"], r["online"]) == (4, 6, ["easy", "human"], False)


def test_an_online_game_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(GameStore(db=GameDB(path)))) as client:
        g = online_game(client)
        client.post(f"/api/games/{g['id']}/moves", json={"cell": "c3"}, headers=auth(g["token"]))
    assert g["token"].encode() not in path.read_bytes()  # only digests are kept
    with TestClient(create_app(GameStore(db=GameDB(path)))) as client:
        b = token_of(g["links"]["b"])
        url = f"/api/games/{g['id']}/moves"
        assert client.post(url, json={"cell": "a1"}, headers=auth(g["token"])).status_code == 403
        r = client.post(url, json={"cell": "a1"}, headers=auth(b))
        assert r.status_code == 200
        assert r.json()["ply"] == 2


def test_requests_on_online_games_are_rate_limited() -> None:
    with TestClient(create_app(rate=RateLimit(per_second=0.001, burst=5))) as client:
        g = online_game(client)
        codes = [client.get(f"/api/games/{g['id']}").status_code for _ in range(6)]
        assert codes == [200] * 4 + [429] * 2  # the creation took one
        r = client.get(f"/api/games/{g['id']}")
        assert r.json()["type"] == "TooManyRequests"
        # Offline games are not the limit's business.
        r = client.post("/api/games", json={})
        assert r.status_code == 201


def test_the_online_games_are_bounded() -> None:
    with TestClient(create_app(GameStore(online_limit=2, online_per_client=2))) as client:
        first = online_game(client)
        online_game(client)
        third = online_game(client)  # the client's oldest online game is forgotten
        assert client.get(f"/api/games/{first['id']}").status_code == 404
        assert client.get(f"/api/games/{third['id']}").status_code == 200
    with TestClient(create_app(GameStore(online_limit=1, online_per_client=5))) as client:
        online_game(client)
        r = client.post("/api/games", json={"online": True, "seats": ["human", "human"]})
        assert r.status_code == 503
        assert r.json()["type"] == "TooManyOnlineGames"


class Listener:
    """Reads a game's event stream in a thread, over a plain socket (HTTP/1.0: the body is the
    stream as sent): every event's name and data, with the time it arrived. ``close()`` shuts
    the socket, which the server notices at once."""

    def __init__(self, url: str) -> None:
        self.events: list[tuple[str, dict[str, Any], float]] = []
        self.status: int | None = None
        parts = urlparse(url)
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        request = f"GET {parts.path} HTTP/1.0\r\nHost: {parts.hostname}\r\n\r\n"
        self._sock.sendall(request.encode())
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(10)

    def _run(self) -> None:
        buffer = b""
        kind = ""
        try:
            while chunk := self._sock.recv(65536):
                buffer += chunk
                if self.status is None and b"\r\n" in buffer:
                    self.status = int(buffer.split(b" ", 2)[1])
                    self._ready.set()
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    text = line.decode().rstrip("\r")
                    if text.startswith("event: "):
                        kind = text[7:]
                    elif text.startswith("data: "):
                        self.events.append((kind, json.loads(text[6:]), time.monotonic()))
        except OSError:
            pass  # closed by close()
        finally:
            self._ready.set()

    def wait_for(self, count: int, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.events) >= count, self.events

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(10)


def test_the_event_stream_pushes_every_change() -> None:
    with serving() as url:
        g = httpx.post(url + "api/games", json={"online": True, "seats": ["human", "human"]}).json()
        b = token_of(g["links"]["b"])
        listeners = [Listener(url + f"api/games/{g['id']}/events") for _ in range(2)]
        try:
            for listener in listeners:
                assert listener.status == 200
                listener.wait_for(1)
                kind, state, _ = listener.events[0]
                assert kind == "state"
                assert state["ply"] == 0
            moves = url + f"api/games/{g['id']}/moves"
            sent = time.monotonic()
            r = httpx.post(moves, json={"cell": "c3"}, headers=auth(g["token"]))
            assert r.status_code == 200
            for listener in listeners:
                listener.wait_for(2)
                kind, state, when = listener.events[1]
                assert kind == "move"
                assert state["move"]["name"] == "c3"
                assert state["position"] == r.json()["position"]
                assert "waves" in state
                assert when - sent < 1.0  # "at once": well within a second
                assert g["token"] not in json.dumps(state)
                assert b not in json.dumps(state)
            # A refused move sends nothing.
            r = httpx.post(moves, json={"cell": "e5"}, headers=auth(g["token"]))
            assert r.status_code == 403
            httpx.post(moves, json={"cell": "e5"}, headers=auth(b))
            for listener in listeners:
                listener.wait_for(3)
                assert [e[1]["ply"] for e in listener.events] == [0, 1, 2]
            # A listener that comes later (a reconnection) starts from the state now.
            late = Listener(url + f"api/games/{g['id']}/events")
            late.wait_for(1)
            assert late.events[0][1]["ply"] == 2
            late.close()
            r = httpx.get(url + "api/games/nope/events")
            assert r.status_code == 404
            assert r.json()["type"] == "UnknownGame"
        finally:
            for listener in listeners:
                listener.close()


def test_the_event_streams_are_bounded() -> None:
    app = create_app(hub=Hub(total=3, per_client=2))
    with serving(app=app) as url:
        g = httpx.post(url + "api/games", json={"online": True, "seats": ["human", "human"]}).json()
        events = url + f"api/games/{g['id']}/events"
        open_ = [Listener(events) for _ in range(2)]
        try:
            for listener in open_:
                listener.wait_for(1)
            r = httpx.get(events, timeout=10)
            assert r.status_code == 503
            assert r.json()["type"] == "TooManyStreams"
        finally:
            for listener in open_:
                listener.close()
        # Closed streams are counted no more.
        deadline = time.monotonic() + 10
        while len(app.state.work.hub) and time.monotonic() < deadline:
            time.sleep(0.05)
        again = Listener(events)
        again.wait_for(1)
        again.close()


def test_the_addresses_to_share() -> None:
    """Listening beyond loopback, `colorwars serve` says so and gives the addresses to share;
    on loopback there is none."""
    from colorwars.web.app import network_urls

    assert network_urls("127.0.0.1", 8000) == []
    assert network_urls("::1", 8000) == []
    assert network_urls("192.168.1.20", 8000) == ["http://192.168.1.20:8000/"]
    for link in network_urls("0.0.0.0", 8000):
        assert link.startswith("http://")
        assert link.endswith(":8000/")
        assert "127." not in link


def test_no_seat_plays_for_an_ai_seat_online(client: TestClient) -> None:
    """Online, an AI seat's move comes from its own AI: no human seat picks it (a move of its
    choosing, or a weaker AI), which would cheat the other humans; the game is unchanged."""
    g = online_game(client, width=3, height=3, players=3, seats=["human", "greedy", "human"])
    a, c = g["token"], token_of(g["links"]["c"])
    url = f"/api/games/{g['id']}"
    assert client.post(f"{url}/moves", json={"cell": "a1"}, headers=auth(a)).status_code == 200
    before = client.get(url).json()
    for token in (a, c):
        r = client.post(f"{url}/moves", json={"cell": "c3"}, headers=auth(token))
        assert r.status_code == 403, r.text
        assert r.json()["type"] == "Forbidden"
        assert "AI seat" in r.json()["error"]
        r = client.post(f"{url}/ai-move", json={"ai": "random"}, headers=auth(token))
        assert r.status_code == 403, r.text
        assert client.get(url).json() == before
    # Its own AI, asked for by any seat (or named as it is), moves it.
    r = client.post(f"{url}/ai-move", json={"ai": "greedy"}, headers=auth(c))
    assert r.status_code == 200, r.text
    assert r.json()["move"]["player"] == 1
    # Offline, a seat may still be played by hand or by another AI.
    off = client.post("/api/games", json={"seats": ["human", "greedy"]}).json()
    moves = f"/api/games/{off['id']}/moves"
    assert client.post(moves, json={"cell": "a1"}).status_code == 200
    assert client.post(moves, json={"cell": "e5"}).status_code == 200


def test_both_players_asking_for_a_rematch_get_the_same_one(client: TestClient) -> None:
    """Two players who ask for a rematch of the same online game at about the same time play
    one new game together (each browser follows the other's rematch event: two games would
    send each to the other's, and they would never meet)."""
    g = online_game(client)
    a, b = g["token"], token_of(g["links"]["b"])
    url = f"/api/games/{g['id']}/rematch"
    first = client.post(url, json={"swap": True}, headers=auth(a))
    assert first.status_code == 201, first.text
    second = client.post(url, json={}, headers=auth(b))
    assert second.status_code == 201, second.text
    assert second.json()["id"] == first.json()["id"]
    assert (first.json()["seat"], second.json()["seat"]) == (1, 0)  # swapped, as first asked
    assert client.post(url, json={}).status_code == 403  # still a player's request
    # Once the rematch is gone, a new one can be made.
    again = first.json()["id"]
    assert client.delete(f"/api/games/{again}", headers=auth(a)).status_code == 200
    third = client.post(url, json={}, headers=auth(b))
    assert third.status_code == 201
    assert third.json()["id"] != again


def test_the_rate_limit_remembers_a_bounded_number_of_clients() -> None:
    """Many clients (an IPv6 network has plenty of addresses) each making a few requests do
    not grow the limit's memory without end, and a client that comes after them is limited
    all the same (it was forgotten after each request, so never limited)."""
    limit = RateLimit(per_second=0.001, burst=3)
    for i in range(12_000):
        assert limit.allow(f"2001:db8::{i:x}", now=0.0)
        assert limit.allow(f"2001:db8::{i:x}", now=0.0)
    assert len(limit._buckets) <= 10_000
    assert [limit.allow("10.0.0.1", now=1.0) for _ in range(4)] == [True, True, True, False]
    started = time.monotonic()
    for i in range(20_000):
        limit.allow(f"2001:db8:1::{i:x}", now=2.0)
    assert time.monotonic() - started < 2.0  # no scan of every client at each request


def test_a_stream_never_read_is_counted_no_more_once_closed() -> None:
    """A listener whose response ends before its first event (its client gone at once) is
    released all the same: a generator never started runs no ``finally``."""
    import asyncio

    from colorwars.web.app import EventStream

    hub = Hub(total=5, per_client=1)

    async def run() -> None:
        stream = hub.stream("g1", "10.0.0.9", {"id": "g1", "ply": 0})
        assert len(hub) == 1

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            raise OSError("the client is gone")

        await EventStream(stream)({"type": "http"}, receive, send)
        assert len(hub) == 0
        hub.stream("g1", "10.0.0.9", {"id": "g1", "ply": 0})  # not refused: none is held

    asyncio.run(run())


def test_links_made_on_this_machine_point_to_an_address_others_reach() -> None:
    """The creator on the server's machine (http://localhost:8000/, or the http://0.0.0.0:8000/
    that serve prints) gets links a friend can open: the network address serve shares, not
    localhost; a creator on another machine gets the address it used."""
    app = create_app(share_url="http://192.168.1.20:8000/")
    with TestClient(app, base_url="http://localhost:8000") as client:
        for host in ("localhost:8000", "127.0.0.1:8000", "0.0.0.0:8000", "[::1]:8000"):
            g = client.post(
                "/api/games",
                json={"online": True, "seats": ["human", "human"]},
                headers={"Host": host},
            ).json()
            for link in g["links"].values():
                assert link.startswith("http://192.168.1.20:8000/?game="), (host, link)
        g = client.post(
            "/api/games",
            json={"online": True, "seats": ["human", "human"]},
            headers={"Host": "colorwars.example:8000"},
        ).json()
        assert g["links"]["spectator"] == f"http://colorwars.example:8000/?game={g['id']}"


def test_ctrl_c_stops_serve_with_event_streams_open(tmp_path: Path) -> None:
    """`colorwars serve` stopped by Ctrl-C while browsers listen: every stream ends, the server
    stops within seconds with status 0 and no traceback."""
    import re
    import signal
    import subprocess
    import sys

    db = str(tmp_path / "games.sqlite3")
    with subprocess.Popen(
        [sys.executable, "-m", "colorwars.cli", "serve", "--port", "0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", child.stdout.readline())
        assert match
        url = match[0]
        g = httpx.post(url + "api/games", json={"online": True, "seats": ["human", "human"]})
        listeners = [Listener(url + f"api/games/{g.json()['id']}/events") for _ in range(3)]
        try:
            for listener in listeners:
                listener.wait_for(1)
            started = time.monotonic()
            child.send_signal(signal.SIGINT)
            code = child.wait(timeout=20)
            assert time.monotonic() - started < 5
            for listener in listeners:
                listener._thread.join(5)
                assert not listener._thread.is_alive()  # the stream ended
        finally:
            for listener in listeners:
                listener.close()
        assert child.stderr is not None
        errors = child.stderr.read()
    assert code == 0
    assert "Traceback" not in errors, errors


def test_a_forgotten_game_ends_its_streams() -> None:
    """An online game the server forgets (its client's bound of online games reached) tells
    its listeners, as a deletion does, and their streams end (they waited on for good)."""
    app = create_app(GameStore(online_per_client=1))
    with serving(app=app) as url:
        old = httpx.post(url + "api/games", json={"online": True, "seats": ["human", "human"]})
        listener = Listener(url + f"api/games/{old.json()['id']}/events")
        try:
            listener.wait_for(1)
            r = httpx.post(url + "api/games", json={"online": True, "seats": ["human", "human"]})
            assert r.status_code == 201
            listener.wait_for(2)
            assert listener.events[1][0] == "deleted"
            listener._thread.join(5)
            assert not listener._thread.is_alive()
            assert len(app.state.work.hub) == 0
        finally:
            listener.close()
