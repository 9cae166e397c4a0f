"""The web app's games in SQLite (``colorwars.web.db``): a restarted server has every game back,
writes are transactions, a damaged file is one line naming it, the database is bounded."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("platformdirs")
# Starlette's test client runs on httpx2 (Starlette 1.x) or httpx (earlier versions): the test
# tools of the test-web extra, not installed by the web extra alone.
try:
    import httpx2  # noqa: F401
except ModuleNotFoundError:
    pytest.importorskip("httpx")

import colorwars
from colorwars.errors import FileError
from colorwars.web import GameStore, create_app
from colorwars.web import db as web_db
from colorwars.web.db import GameDB

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def app_on(path: Path, **store: Any) -> TestClient:
    return TestClient(create_app(GameStore(db=GameDB(path), **store)))


def post(client: TestClient, url: str, body: Any = None, **headers: str) -> Any:
    r = client.post(url, json=body, headers=headers)
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_a_restarted_server_has_every_game_back(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        a = post(client, "/api/games", {"seats": ["human", "human"], "seed": 4})
        for cell in ("c3", "e5", "c3"):
            a = post(client, f"/api/games/{a['id']}/moves", {"cell": cell})
        a = post(client, f"/api/games/{a['id']}/ai-move", {"ai": "greedy"})
        b = post(client, "/api/games", {"width": 3, "height": 4, "rules": "classic", "first": 1})
        c = post(client, "/api/games", {"position": a["position"], "seats": ["human", "human"]})
        c = post(client, f"/api/games/{c['id']}/moves", {"cell": c["legal_moves"][-1]})
        record = client.get(f"/api/games/{a['id']}/record").json()["record"]
        d = post(client, "/api/games", {"record": record, "seats": ["human", "human"]})
        d = post(client, f"/api/games/{d['id']}/undo")
        gone = post(client, "/api/games", {})
        assert client.delete(f"/api/games/{gone['id']}").status_code == 200
        before = {g["id"]: client.get(f"/api/games/{g['id']}").json() for g in (a, b, c, d)}
    # A new server on the same file: every game as it was, and it plays on.
    with app_on(path) as client:
        for game_id, state in before.items():
            assert client.get(f"/api/games/{game_id}").json() == state
        assert client.get(f"/api/games/{gone['id']}").status_code == 404
        cell = before[a["id"]]["legal_moves"][0]
        after = post(client, f"/api/games/{a['id']}/moves", {"cell": cell})
        engine = colorwars.Game()
        for m in after["moves"]:
            engine.play(m["cell"])
        assert engine.to_text() == after["position"]
        listed = client.get("/api/games").json()["games"]
        assert listed[0]["id"] == a["id"]  # the one used last first
        assert {g["id"] for g in listed} == set(before)
        assert all("token" not in g for g in listed)
        undo = post(client, f"/api/games/{d['id']}/undo")
        assert undo["ply"] == d["ply"] - 1


def test_a_database_in_a_missing_folder_is_refused_unless_it_is_the_default(
    tmp_path: Path,
) -> None:
    """A mistyped --db builds no folders (as every file colorwars writes); the default
    file's folder, in the user's data folder, is made on first use."""
    missing = tmp_path / "no" / "such" / "games.sqlite3"
    with pytest.raises(FileError, match=r"games\.sqlite3: the folder .*such does not exist"):
        GameDB(missing)
    assert not (tmp_path / "no").exists()
    GameDB(missing, make_folder=True).close()
    assert missing.is_file()


def test_a_damaged_database_is_one_line_naming_it(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database, whatever it is " * 100)
    with pytest.raises(FileError, match=r"invalid game database .*garbage\.sqlite3: it is damaged"):
        GameDB(garbage)
    assert garbage.read_bytes().startswith(b"not a database")  # left as it was
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE notes (text)")
    with pytest.raises(FileError, match="not a colorwars game database"):
        GameDB(other)
    newer = tmp_path / "newer.sqlite3"
    GameDB(newer).close()
    with sqlite3.connect(newer) as c:
        c.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(FileError, match="schema is version 99"):
        GameDB(newer)
    # A file cut short: SQLite's own check finds it.
    cut = tmp_path / "cut.sqlite3"
    with app_on(cut) as client:
        for _ in range(40):
            post(client, "/api/games", {"width": 8, "height": 8})
    data = cut.read_bytes()
    damaged = cut.with_name("damaged.sqlite3")
    damaged.write_bytes(data[:4096] + b"\xff" * (len(data) - 4096))
    with pytest.raises(FileError, match=r"invalid game database .*damaged\.sqlite3: it is damaged"):
        GameDB(damaged)
    # On the command line: one line naming the file, status 2, no traceback.
    done = subprocess.run(
        [sys.executable, "-m", "colorwars.cli", "serve", "--port", "0", "--db", str(garbage)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert str(garbage) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_damaged_game_does_not_take_the_others_with_it(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        good = post(client, "/api/games", {"seats": ["human", "human"]})
        good = post(client, f"/api/games/{good['id']}/moves", {"cell": "c3"})
        bad = post(client, "/api/games", {"seats": ["human", "human"]})
    with sqlite3.connect(path) as c:
        c.execute('UPDATE games SET data = \'{"version": 1, "moves"\' WHERE id = ?', (bad["id"],))
    with app_on(path) as client:
        r = client.get(f"/api/games/{bad['id']}")
        assert r.status_code == 500
        assert r.json()["type"] == "DamagedGame"
        assert str(path) in r.json()["error"]
        del good["move"], good["waves"]
        assert client.get(f"/api/games/{good['id']}").json() == good
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [good["id"]]
    # A row whose text is not even UTF-8 (SQLite refuses to read it back): the same.
    with sqlite3.connect(path) as c:
        c.execute("UPDATE games SET data = CAST(x'7bff' AS TEXT) WHERE id = ?", (bad["id"],))
    with app_on(path) as client:
        r = client.get(f"/api/games/{bad['id']}")
        assert r.status_code == 500
        assert r.json()["type"] == "DamagedGame"
        assert client.get(f"/api/games/{good['id']}").json() == good
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [good["id"]]


def test_the_database_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.sqlite3"
    with app_on(path, limit=3) as client:
        ids = [post(client, "/api/games", {})["id"] for _ in range(5)]
    with sqlite3.connect(path) as c:
        assert c.execute("SELECT count(*) FROM games").fetchone()[0] == 3
    # A server with a lower bound forgets the oldest at start.
    with app_on(path, limit=2) as client:
        assert client.get(f"/api/games/{ids[2]}").status_code == 404
        assert client.get(f"/api/games/{ids[4]}").status_code == 200
    # A game's row is bounded: a move past it is refused (503) and not played.
    monkeypatch.setattr(web_db, "MAX_GAME_BYTES", 300)
    with app_on(tmp_path / "small.sqlite3") as client:
        body = {"width": 8, "height": 8, "rules": "classic", "seats": ["human", "human"]}
        g = post(client, "/api/games", body)
        codes = []
        for _ in range(40):
            cell = g["legal_moves"][len(g["legal_moves"]) // 2]
            r = client.post(f"/api/games/{g['id']}/moves", json={"cell": cell})
            codes.append(r.status_code)
            if r.status_code != 200:
                assert r.json()["type"] == "StoreFull"
                break
            g = r.json()
        assert codes[-1] == 503
        assert client.get(f"/api/games/{g['id']}").json()["ply"] == g["ply"]
    with app_on(tmp_path / "small.sqlite3") as client:
        assert client.get(f"/api/games/{g['id']}").json()["ply"] == g["ply"]
    # The file is bounded too (SQLite's max_page_count).
    db = GameDB(tmp_path / "pages.sqlite3")
    pages = db._db.execute("PRAGMA max_page_count").fetchone()[0]
    size = db._db.execute("PRAGMA page_size").fetchone()[0]
    assert pages * size <= web_db.MAX_DB_BYTES
    db.close()


def test_the_default_database_is_in_the_users_data_folder() -> None:
    import platformdirs

    path = web_db.default_path()
    assert path.name == "web-games.sqlite3"
    assert str(path).startswith(platformdirs.user_data_dir("colorwars", appauthor=False))


def test_a_game_deleted_meanwhile_is_not_written_back(tmp_path: Path) -> None:
    """A change that was under way when its game was deleted or forgotten (a move whose body
    was still coming in) does not write the game back: after a restart it stays gone."""
    from colorwars.web.store import RequestError

    path = tmp_path / "games.sqlite3"
    store = GameStore(db=GameDB(path))
    live = store.create({"seats": ["human", "human"]})
    store.delete(live.id)
    live.play("c3")
    with pytest.raises(RequestError) as refused:
        store.save(live)
    assert refused.value.status == 404
    assert store.db is not None
    store.db.close()
    again = GameStore(db=GameDB(path))
    assert live.id not in again
    assert again.db is not None
    assert again.db.load(live.id) is None
    again.db.close()
