"""The web app's HTTP API (``colorwars serve``) through the ASGI test client: full games, bad
requests (4xx with a JSON error, the game unchanged), concurrency, the command line."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from importlib.resources import files
from typing import Any

import pytest

pytest.importorskip("starlette")
# Starlette's test client runs on httpx2 (Starlette 1.x) or httpx (earlier versions).
try:
    import httpx2 as httpx
except ModuleNotFoundError:
    httpx = pytest.importorskip("httpx")

import colorwars
from colorwars.web import GameStore, create_app
from colorwars.web import store as web_store
from colorwars.zero.player import MAX_SIDE as ZERO_MAX_SIDE
from colorwars.zero.player import Zero

with warnings.catch_warnings():
    # Starlette 1.x warns when its test client runs on httpx rather than httpx2.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

KEYS = {"id", "position", "to_move", "legal_moves", "winner"}


@pytest.fixture
def client() -> Any:
    with TestClient(create_app()) as c:
        yield c


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_the_default_game(client: TestClient) -> None:
    g = new_game(client)
    assert set(g) >= KEYS
    assert g["position"] == "5x5 colorwars 2 ...../...../...../...../..... a - - 0"
    assert g["to_move"] == 0
    assert g["legal_moves"] == list(range(25))
    assert g["winner"] is None
    assert g["seats"] == ["human", "medium"]  # a real game for a new player
    assert client.get(f"/api/games/{g['id']}").json() == g


def test_a_full_game_against_greedy_matches_the_engine(client: TestClient) -> None:
    """Every answer's position, legal moves, winner and waves are the engine's, move by move,
    until the game is won; then the record replays to the same end."""
    g = new_game(client, seed=3, seats=["human", "greedy"])
    engine = colorwars.Game()
    rng = random.Random(1)
    while g["winner"] is None:
        if g["to_move"] == 0:
            cell = rng.choice(g["legal_moves"])
            r = client.post(f"/api/games/{g['id']}/moves", json={"cell": cell, "ply": g["ply"]})
        else:
            r = client.post(f"/api/games/{g['id']}/ai-move")
        assert r.status_code == 200, r.text
        g = r.json()
        engine.play(g["move"]["cell"])
        assert g["position"] == engine.to_text()
        assert g["legal_moves"] == engine.legal_moves()
        assert g["winner"] == engine.winner
        assert g["to_move"] == engine.to_move
        assert [w["bursts"] for w in g["waves"]] == [list(w.bursts) for w in engine.waves()]
        assert [w["counts"] for w in g["waves"]] == [list(w.counts) for w in engine.waves()]
        assert [w["owners"] for w in g["waves"]] == [list(w.owners) for w in engine.waves()]
        assert g["move"]["name"] == engine.cell_name(g["move"]["cell"])
        if g["move"]["player"] == 1:
            assert g["move"]["ai"] == "greedy"
    assert g["moves"][-1]["cell"] == engine.peek()
    r = client.post(f"/api/games/{g['id']}/moves", json={"cell": 0})
    assert r.status_code == 409
    assert r.json()["type"] == "GameOverError"
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["filename"].endswith(".cwr")
    replayed = colorwars.GameRecord.parse(record["record"]).replay()
    assert replayed.to_text() == g["position"]


def test_ai_against_ai_with_every_kind_of_player(client: TestClient) -> None:
    g = new_game(client, seats=["mcts:300", "alphabeta:2"], seed=5)
    assert g["seats"] == ["mcts:300", "alphabeta:2"]
    names = set()
    while g["winner"] is None:
        r = client.post(f"/api/games/{g['id']}/ai-move")
        assert r.status_code == 200, r.text
        g = r.json()
        names.add(g["move"]["ai"])
        assert g["move"]["work"] >= 0
    assert names == {"mcts:300", "alphabeta:2"}
    # Alpha-beta with the learned evaluation keeps it (and its name) in the web's bounds.
    g = new_game(client, seats=["learned:2", "learned:time=0.05"], seed=5)
    assert g["seats"] == ["learned:2", "learned:time=0.05"]
    game = colorwars.Game(5, 5)
    player = web_store.ai_player("learned:time=0.05", game, 0, web_store.AI_SECONDS)
    assert (player.eval, player.time) == ("learned", 0.05)
    while g["winner"] is None:
        g = client.post(f"/api/games/{g['id']}/ai-move").json()
        assert g["move"]["ai"] in {"learned:2", "learned:time=0.05"}
    g = new_game(client, width=3, height=3, players=3, seats=["random", "greedy", "mcts"])
    assert g["seats"] == ["random", "greedy", "mcts:1000"]
    while g["winner"] is None:
        g = client.post(f"/api/games/{g['id']}/ai-move", json={"ply": g["ply"]}).json()
    # A human seat moves by the AI named in the request.
    h = new_game(client, seats=["human", "human"])
    r = client.post(f"/api/games/{h['id']}/ai-move", json={"ai": "random"})
    assert r.status_code == 200
    assert r.json()["move"]["ai"] == "random"


def test_zero_sits_at_the_table(client: TestClient) -> None:
    """Zero, the shipped network's search (docs/learned.md), is a seat of the web app as it is
    a player everywhere else: within the web's limits of simulations and time, with the
    network of the board's rules, refused in one clear error where no network fits."""
    g = new_game(client, seats=["zero:40", "zero:time=0.05"], seed=3)
    assert g["seats"] == ["zero:40", "zero:time=0.05"]
    game = colorwars.Game(5, 5)
    player = web_store.ai_player("zero:40", game, 7, web_store.AI_SECONDS)
    assert isinstance(player, Zero)
    assert (player.simulations, player.time, player.seed) == (40, web_store.AI_SECONDS, 7)
    assert player.probe == Zero().probe  # a budget of simulations keeps its endgame probe
    timed = web_store.ai_player("zero:time=0.05", game, 0, web_store.AI_SECONDS)
    assert (timed.time, timed.probe) == (0.05, 0)
    engine = colorwars.Game(5, 5)
    while g["winner"] is None:
        r = client.post(f"/api/games/{g['id']}/ai-move")
        assert r.status_code == 200, r.text
        g = r.json()
        assert g["move"]["ai"] in {"zero:40", "zero:time=0.05"}
        engine.play(g["move"]["cell"])  # a legal move, the engine's own game agreeing
        assert g["position"] == engine.to_text()
    classic = new_game(client, width=8, height=8, rules="classic", seats=["human", "zero"])
    assert classic["seats"] == ["human", "zero:400"]
    client.post(f"/api/games/{classic['id']}/moves", json={"cell": "d4"})
    reply = client.post(f"/api/games/{classic['id']}/ai-move").json()
    assert reply["move"]["ai"] == "zero:400"
    assert reply["ply"] == 2
    options = client.get("/api/options").json()
    assert "zero" in options["seats"]
    assert "zero:400" in options["ai_defaults"]
    assert options["limits"]["zero_side"] == ZERO_MAX_SIDE
    assert options["limits"]["zero_simulations"] == web_store.MAX_ZERO_SIMULATIONS
    assert options["zero_rules"] == ["colorwars", "classic"]
    # Every name a Zero seat is given reads back as itself, to the same player: the seat is
    # rebuilt from its name at each move and from the database.
    asked = {
        "zero": "zero:400",
        "zero:40": "zero:40",
        "zero:probe=0": "zero:simulations=400:probe=0",
        "zero:simulations=40:time=0.05": "zero:simulations=40:time=0.05",
        "zero:time=5": "zero:time=5",  # a time alone: as many simulations as the web allows
        "zero:time=1:probe=500": "zero:time=1:probe=500",
    }
    for name, shown in asked.items():
        assert web_store.seat_name(name, game) == shown
        assert web_store.seat_name(shown, game) == shown
        one = web_store.ai_player(name, game, 0, web_store.AI_SECONDS)
        two = web_store.ai_player(shown, game, 0, web_store.AI_SECONDS)
        assert repr(one) == repr(two)
    limit = web_store.MAX_ZERO_SIMULATIONS
    assert web_store.ai_player("zero:time=5", game, 0, 5.0).simulations == limit
    g = new_game(client, seats=["zero:probe=0", "human"])
    assert g["seats"] == ["zero:simulations=400:probe=0", "human"]
    r = client.post(f"/api/games/{g['id']}/ai-move")
    assert r.status_code == 200, r.text
    live = GameStore().create({"seats": ["zero:probe=0", "human"]})
    rebuilt = web_store.LiveGame.from_data("rebuilt", "client", live.to_data())
    assert rebuilt.seats == live.seats == ("zero:simulations=400:probe=0", "human")


def test_new_game_options(client: TestClient) -> None:
    seats = ["human", "human", "greedy", "random"]
    g = new_game(
        client, width=8, height=10, players=4, rules="drop3+subtract", first="c", seats=seats
    )
    assert g["position"].startswith("8x10 drop3+subtract 4 ")
    assert g["to_move"] == 2
    assert g["first"] == 2
    assert len(g["counts"]) == 80
    g = new_game(client, width=2, height=2, rules="classic", first=1)
    assert g["to_move"] == 1
    assert g["seats"] == ["human", "medium"]
    options = client.get("/api/options").json()
    assert options["board_presets"] == [[5, 5], [6, 6], [8, 8], [8, 10]]
    assert options["limits"]["simulations"] == web_store.MAX_SIMULATIONS
    assert len(options["colours"]) == 8


def test_moves_by_index_name_and_xy(client: TestClient) -> None:
    g = new_game(client, seats=["human", "human"])
    url = f"/api/games/{g['id']}/moves"
    assert client.post(url, json={"cell": "c3"}).json()["move"]["cell"] == 12
    assert client.post(url, json={"cell": [0, 0]}).json()["move"]["name"] == "a1"
    assert client.post(url, json={"cell": 12}).json()["position"] == (
        "5x5 colorwars 2 3b..../..1a../.1a.1a./..1a../..... b ab - 3"
    )


def test_check_move_says_why(client: TestClient) -> None:
    """The rules' reason for a cell the player to move may not play; nothing is played."""
    g = new_game(client, seats=["human", "human"])
    url = f"/api/games/{g['id']}"
    client.post(f"{url}/moves", json={"cell": "c3"})
    r = client.get(f"{url}/check-move", params={"cell": "c3"}).json()
    assert r["legal"] is False
    assert "three orbs on an empty cell" in r["reason"]
    assert client.get(f"{url}/check-move", params={"cell": "12"}).json()["legal"] is False
    assert client.get(f"{url}/check-move", params={"cell": "a1"}).json() == {
        "cell": 0, "name": "a1", "legal": True, "reason": None
    }  # fmt: skip
    assert client.get(url).json()["ply"] == 1
    r = client.get(f"{url}/check-move", params={"square": "a1"})
    assert r.status_code == 400
    r = client.get(f"{url}/check-move")  # no cell: a bad request, not "None is not a cell"
    assert r.status_code == 400
    assert r.json() == {"error": "check move needs a cell, e.g. ?cell=c3", "type": "BadRequest"}


def test_undo(client: TestClient) -> None:
    g = new_game(client, seats=["human", "human"])
    url = f"/api/games/{g['id']}"
    for cell in ("c3", "a1", "c3"):
        client.post(f"{url}/moves", json={"cell": cell})
    r = client.post(f"{url}/undo", json={"plies": 2})
    assert r.status_code == 200
    undone = r.json()
    assert [m["name"] for m in undone["undone"]] == ["c3", "a1"]
    assert undone["ply"] == 1
    assert undone["position"] == "5x5 colorwars 2 ...../...../..3a../...../..... b a - 1"
    r = client.post(f"{url}/undo", json={"plies": 2})
    assert r.status_code == 409
    assert r.json()["type"] == "InvalidIndexError"
    assert client.post(f"{url}/undo").json()["ply"] == 0
    r = client.post(f"{url}/undo")
    assert r.status_code == 409
    assert r.json()["error"] == "cannot undo 1 move: 0 played since the game began"
    # A JSON null is refused (an empty body is no fields), and the game is unchanged.
    r = client.post(f"{url}/undo", content="null", headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert "JSON null" in r.json()["error"]


def test_a_won_game_names_the_winner_by_letter(client: TestClient) -> None:
    """Every message names players by letter: "player b has won", never "player 1"."""
    g = new_game(client, width=3, height=3, seats=["human", "human"])
    url = f"/api/games/{g['id']}"
    for cell in (0, 4, 0, 4):
        g = client.post(f"{url}/moves", json={"cell": cell}).json()
    assert g["winner"] == 1
    r = client.post(f"{url}/moves", json={"cell": 1})
    assert r.status_code == 409
    assert "(player b has won)" in r.json()["error"]
    assert "(player b has won)" in client.get(f"{url}/check-move?cell=1").json()["reason"]


def test_records_and_positions_load(client: TestClient) -> None:
    g = new_game(client, seats=["human", "greedy"], seed=2)
    for cell in ("c3", None, "c3", None):
        if cell is None:
            g = client.post(f"/api/games/{g['id']}/ai-move").json()
        else:
            g = client.post(f"/api/games/{g['id']}/moves", json={"cell": cell}).json()
    text = client.get(f"/api/games/{g['id']}/record").json()["record"]
    loaded = new_game(client, record=text, seats=["human", "human"])
    assert loaded["position"] == g["position"]
    assert loaded["moves"] == g["moves"]
    assert loaded["first"] == 0
    assert client.post(f"/api/games/{loaded['id']}/undo").json()["ply"] == 3
    history = client.get(f"/api/games/{g['id']}/history").json()
    assert len(history["positions"]) == g["ply"] + 1
    assert history["positions"][-1] == g["position"]
    assert history["positions"][0] == "5x5 colorwars 2 ...../...../...../...../..... a - - 0"
    pasted = new_game(client, position=g["position"])
    assert pasted["position"] == g["position"]
    assert pasted["moves"] == []
    assert pasted["start"] == g["position"]
    r = client.get(f"/api/games/{pasted['id']}/record")
    assert r.status_code == 409
    assert r.json()["type"] == "NoRecord"
    # A pasted empty board is a start a record can describe.
    empty = new_game(client, position="3x3 classic 2 .../.../... b - - 0")
    assert empty["first"] == 1
    assert "first: b" in client.get(f"/api/games/{empty['id']}/record").json()["record"]


def test_hint_and_analysis(client: TestClient, tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path))
    g = new_game(client, seats=["human", "human"])
    client.post(f"/api/games/{g['id']}/moves", json={"cell": "c3"})
    g = client.get(f"/api/games/{g['id']}").json()
    hint = client.post(f"/api/games/{g['id']}/hint").json()
    assert hint["cell"] in g["legal_moves"]
    # 5x5 colorwars is solved (the package's book): b wins, and the hint is a proven win.
    assert hint["ai"] == "proof"
    assert hint["exact"]["solved"] is True
    assert hint["exact"]["winner"] == 1
    assert hint["cell"] == hint["exact"]["best"]["cell"]
    assert "proven win" in hint["why"]
    assert client.get(f"/api/games/{g['id']}").json() == g  # a hint plays nothing
    a = client.post(f"/api/games/{g['id']}/analysis", json={"simulations": 2000}).json()
    assert a["position"] == g["position"]
    assert sorted(m["cell"] for m in a["moves"]) == g["legal_moves"]
    assert sum(m["share"] for m in a["moves"]) == pytest.approx(1.0)
    assert a["simulations"] == 2000
    assert a["exact"]["solved"] is True  # not only on boards of at most 16 cells
    assert a["exact"]["winner"] == 1
    assert a["exact"]["best"]["cell"] == hint["cell"]
    assert a["exact"]["moves"][str(hint["cell"])]["winner"] == 1
    assert "opening book" in a["exact"]["method"]
    # The empty 5x5 board: every one of a's 25 moves is proven lost; the hint says so.
    empty = new_game(client, seats=["human", "human"])
    a = client.post(f"/api/games/{empty['id']}/analysis", json={"simulations": 100}).json()
    assert a["exact"]["complete"] is True
    assert {m["winner"] for m in a["exact"]["moves"].values()} == {1}
    assert len(a["exact"]["moves"]) == 25
    hint = client.post(f"/api/games/{empty['id']}/hint").json()
    assert hint["ai"] == "learned:6"
    assert "every move loses" in hint["why"]
    # The exact result where the solver gives one: any position of a small game.
    small = new_game(client, width=3, height=3, rules="classic", first="b")
    a = client.post(f"/api/games/{small['id']}/analysis", json={"simulations": 200}).json()
    assert a["exact"]["solved"] is True
    assert a["exact"]["winner"] == 1  # 3x3 classic: the first player wins, here b
    assert a["exact"]["plies"] == 13
    assert a["exact"]["best"]["cell"] in small["legal_moves"]
    assert sorted(int(c) for c in a["exact"]["moves"]) == small["legal_moves"]
    after = client.post(f"/api/games/{small['id']}/moves", json={"cell": 4}).json()
    a = client.post(f"/api/games/{small['id']}/analysis", json={"simulations": 200}).json()
    exact = a["exact"]
    assert exact["solved"] is True
    assert exact["moves"].keys() == {str(c) for c in after["legal_moves"]}
    # The position's value is its best move's: a winner's fastest win, a loser's longest loss.
    best = exact["moves"][str(exact["best"]["cell"])]
    assert (best["winner"], best["plies"]) == (exact["winner"], exact["plies"])
    big = new_game(client, width=8, height=8)
    a = client.post(f"/api/games/{big['id']}/analysis", json={"simulations": 50}).json()
    assert a["exact"]["solved"] is False
    assert "did not settle" in a["exact"]["reason"]
    three = new_game(client, width=3, height=3, players=3)
    a = client.post(f"/api/games/{three['id']}/analysis", json={"simulations": 50}).json()
    assert "two-player" in a["exact"]["reason"]
    assert client.post(f"/api/games/{three['id']}/hint").json()["ai"] == "mcts:5000"


def test_difficulty_levels(client: TestClient) -> None:
    """easy, medium, hard and perfect are players of the project; perfect only on the boards
    the package has solved."""
    options = client.get("/api/options").json()
    assert options["difficulties"] == {
        "easy": "greedy", "medium": "mcts:2000", "hard": "learned:time=1", "perfect": "perfect"
    }  # fmt: skip
    assert "5x5 colorwars" in options["perfect_boards"]
    g = new_game(client, seats=["easy", "perfect"], seed=1)
    assert g["seats"] == ["easy", "perfect"]
    while g["winner"] is None:
        g = client.post(f"/api/games/{g['id']}/ai-move").json()
    assert g["winner"] == 1  # the book wins 5x5 colorwars for the second player
    r = client.post("/api/games", json={"width": 6, "height": 6, "seats": ["human", "perfect"]})
    assert r.status_code == 400
    assert "solved" in r.json()["error"]
    three = new_game(client, width=4, height=4, players=3, seats=["hard", "medium", "easy"])
    assert three["seats"] == ["hard", "medium", "easy"]
    hard = new_game(client, seats=["human", "hard"])
    client.post(f"/api/games/{hard['id']}/moves", json={"cell": "c3"})
    r = client.post(f"/api/games/{hard['id']}/ai-move").json()
    assert r["move"]["ai"] == "hard"
    assert r["move"]["seconds"] <= 3


def test_hard_and_the_hint_are_the_strongest_for_the_game(client: TestClient) -> None:
    """Hard and the hint are the strongest player at a second for the game
    (``colorwars.strongest``, docs/learned.md "Where people play"): Zero on the classic
    boards it plays, alpha-beta with the learned evaluation on other two-player games, MCTS
    beyond two players; the options say where Hard is Zero."""
    from colorwars.web.store import ai_player, hint_player

    assert client.get("/api/options").json()["hard_zero"] == {
        "player": "zero:time=1", "rules": ["classic"], "side": 12
    }  # fmt: skip
    classic = colorwars.Game(8, 8, rules="classic")
    hard = ai_player("hard", classic, 0, 5.0)
    assert isinstance(hard, Zero)
    # The player measured: a second alone, not the web's cap for the Zero seats clients name.
    assert (hard.time, hard.simulations) == (1.0, colorwars.ai.Zero(time=1).simulations)
    assert hard.simulations > web_store.MAX_ZERO_SIMULATIONS
    game = colorwars.Game
    for other in (game(13, 8, rules="classic"), game(8, 8), game(6, 6, rules="drop3+subtract")):
        assert ai_player("hard", other, 0, 5.0).name == "learned(1s)"
        assert hint_player(2, 0, other)[1] == "learned:6"
    three = game(8, 8, 3, "classic")
    assert isinstance(ai_player("hard", three, 0, 5.0), colorwars.ai.MCTS)
    assert hint_player(2, 0, classic)[1] == "zero:time=1"
    assert hint_player(3, 0, three)[1] == "mcts:5000"
    # Through the API: Zero answers Hard's move and the hint on 6 x 6 classic.
    g = new_game(client, width=6, height=6, rules="classic", seats=["human", "hard"])
    assert g["seats"] == ["human", "hard"]
    client.post(f"/api/games/{g['id']}/moves", json={"cell": "c3"})
    r = client.post(f"/api/games/{g['id']}/ai-move").json()
    assert r["move"]["ai"] == "hard"
    assert r["move"]["seconds"] <= 3
    hint = client.post(f"/api/games/{g['id']}/hint").json()
    assert hint["ai"] == "zero:time=1"
    assert hint["cell"] in r["legal_moves"]


# ---- bad requests: a 4xx with a JSON error saying what was wrong; nothing changes ----------

BAD_NEW_GAMES = [
    ({"width": 1}, 400, "InvalidSizeError", "invalid board size 1x5"),
    ({"width": 33, "height": 5}, 400, "InvalidSizeError", "from 2 to 32"),
    ({"width": "5"}, 400, "InvalidSizeError", "invalid board size"),
    ({"height": True}, 400, "InvalidSizeError", "invalid board size"),
    ({"players": 9}, 400, "InvalidPlayersError", "number of players"),
    ({"width": 2, "height": 2, "players": 5}, 400, "InvalidPlayersError", "at most"),
    ({"rules": "chess"}, 400, "InvalidRulesError", "unknown rule set"),
    ({"first": "z"}, 400, "InvalidPlayersError", "first player"),
    ({"first": 2}, 400, "InvalidPlayersError", "first player"),
    ({"seats": ["human"]}, 400, "InvalidPlayerError", "list of 2 seats"),
    ({"seats": "human"}, 400, "InvalidPlayerError", "list of 2 seats"),
    ({"seats": ["human", "chess-engine"]}, 400, "InvalidPlayerError", "invalid player"),
    ({"seats": ["human", "mcts:999999999"]}, 400, "InvalidPlayerError", "simulations"),
    ({"seats": ["human", "alphabeta:40"]}, 400, "InvalidPlayerError", "depth"),
    ({"players": 3, "seats": ["alphabeta"] * 3}, 400, "InvalidPlayerError", "two-player"),
    ({"players": 3, "seats": ["zero"] * 3}, 400, "InvalidPlayerError", "3 players"),
    ({"width": 13, "seats": ["human", "zero"]}, 400, "InvalidPlayerError", "sides 2 to 12"),
    ({"seats": ["human", "zero:999999999"]}, 400, "InvalidPlayerError", "simulations"),
    ({"seats": ["human", "zero:20001"]}, 400, "InvalidPlayerError", "simulations"),
    ({"rules": "none+empty", "seats": ["human", "zero"]}, 400, "InvalidPlayerError", "rules"),
    ({"seats": ["human", 7]}, 400, "InvalidPlayerError", "invalid player"),
    # A web seat names only the web's players: nothing a client names is run or allocated.
    (
        {"seats": ["human", "perfect:time=100:memory=64G"]},
        400,
        "InvalidPlayerError",
        "perfect player takes no settings",
    ),
    ({"seats": ["human", "engine:./bot"]}, 400, "InvalidPlayerError", "web app's players"),
    ({"seats": ["human", "zeroab"]}, 400, "InvalidPlayerError", "web app's players"),
    ({"seats": ["human", "random:3"]}, 400, "InvalidPlayerError", "web app's players"),
    ({"seed": -1}, 400, "ConfigError", "seed"),
    ({"colour": "red"}, 400, "BadRequest", "unknown field 'colour'"),
    ({"position": "garbage"}, 400, "InvalidPositionError", "position"),
    ({"position": 5}, 400, "InvalidPositionError", "notation"),
    ({"record": "size: 3x3\nmoves: a1 a1\n"}, 400, "InvalidRecordError", "move 2"),
    ({"record": "size: 3x3\nmoves: a1\nresult: b\n"}, 400, "InvalidRecordError", "result"),
    ({"position": "2x2 classic 2 ../.. a - - 0", "width": 2}, 400, "ConfigError", "width"),
    ({"position": "2x2 classic 2 ../.. a - - 0", "record": "x"}, 400, "ConfigError", "not both"),
]


@pytest.mark.parametrize(("body", "status", "kind", "words"), BAD_NEW_GAMES)
def test_bad_new_games(client: TestClient, body: Any, status: int, kind: str, words: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert r.json()["type"] == kind
    assert words in r.json()["error"]
    assert len(client.app.state.games) == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"width": NaN}', "not valid JSON"),
        ('{"width": 1' + "0" * 5000 + "}", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        ("null", "JSON null"),
    ],
)
def test_malformed_bodies(client: TestClient, content: str | bytes, words: str) -> None:
    r = client.post("/api/games", content=content, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]


def test_a_body_too_large(client: TestClient) -> None:
    r = client.post("/api/games", content=b" " * (2 << 20))
    assert r.status_code == 413
    assert r.json()["type"] == "TooLarge"


BAD_ON_A_GAME = [
    # A move that is no cell is named as JSON wrote it, and the forms offered are JSON's.
    ("moves", {"cell": 25}, 400, "InvalidMoveError", "25 is not a cell of this 5x5 board"),
    ("moves", {"cell": "z9"}, 400, "InvalidMoveError", '"z9" is not a cell'),
    ("moves", {"cell": 1.5}, 400, "InvalidMoveError", "1.5 is not a cell"),
    ("moves", {"cell": True}, 400, "InvalidMoveError", "true is not a cell"),
    ("moves", {"cell": [9, 9]}, 400, "InvalidMoveError", "[9, 9] is not a cell"),
    ("moves", {"cell": [2]}, 400, "InvalidMoveError", "or [x, y] with 0 <= x < 5"),
    ("moves", {"cell": {"x": 1}}, 400, "InvalidMoveError", '{"x": 1} is not a cell'),
    ("moves", {}, 400, "BadRequest", "needs a cell"),
    ("moves", {"cell": "a1", "colour": 1}, 400, "BadRequest", "unknown field"),
    ("moves", {"cell": "c3"}, 409, "IllegalMoveError", "illegal move c3 (cell 12)"),
    ("moves", {"cell": "e5", "ply": 0}, 409, "StalePly", "at ply 1, not 0"),
    ("moves", {"cell": "e5", "ply": "x"}, 400, "ConfigError", "ply"),
    ("undo", {"plies": 0}, 400, "ConfigError", "plies"),
    ("undo", {"plies": 5}, 409, "InvalidIndexError", "cannot undo 5"),
    ("ai-move", {}, 409, "HumanSeat", "human seat"),
    ("ai-move", {"ai": "bogus"}, 400, "InvalidPlayerError", "bogus"),
    ("ai-move", {"ai": "mcts:0"}, 400, "InvalidPlayerError", "simulations"),
    ("analysis", {"simulations": 10**9}, 400, "ConfigError", "simulations"),
    ("analysis", {"simulations": "many"}, 400, "ConfigError", "simulations"),
    ("hint", {"ai": "greedy"}, 400, "BadRequest", "unknown field 'ai'; it takes none"),
    ("rematch", {"swap": "yes"}, 400, "ConfigError", "expected true or false"),
]


@pytest.mark.parametrize(("action", "body", "status", "kind", "words"), BAD_ON_A_GAME)
def test_bad_requests_leave_the_game_unchanged(
    client: TestClient, action: str, body: Any, status: int, kind: str, words: str
) -> None:
    g = new_game(client, seats=["human", "human"])
    g = client.post(f"/api/games/{g['id']}/moves", json={"cell": "c3"}).json()
    del g["move"], g["waves"]
    r = client.post(f"/api/games/{g['id']}/{action}", json=body)
    assert r.status_code == status, r.text
    assert r.json()["type"] == kind
    assert words in r.json()["error"]
    assert client.get(f"/api/games/{g['id']}").json() == g


def test_unknown_games_and_paths(client: TestClient) -> None:
    for method, path in [
        ("GET", "/api/games/nope"),
        ("POST", "/api/games/nope/moves"),
        ("POST", "/api/games/nope/ai-move"),
        ("POST", "/api/games/nope/undo"),
        ("POST", "/api/games/nope/hint"),
        ("POST", "/api/games/nope/analysis"),
        ("GET", "/api/games/nope/record"),
        ("GET", "/api/games/nope/history"),
        ("DELETE", "/api/games/nope"),
    ]:
        r = client.request(method, path, json={"cell": 1} if path.endswith("moves") else None)
        assert r.status_code == 404, (method, path)
        assert r.json()["type"] == "UnknownGame"
        assert "unknown game 'nope'" in r.json()["error"]
    r = client.get("/api/nothing-here")
    assert r.status_code == 404
    assert r.json()["type"] == "NotFound"
    r = client.delete("/api/games")
    assert r.status_code == 405
    assert r.json()["type"] == "MethodNotAllowed"
    g = new_game(client)
    assert client.delete(f"/api/games/{g['id']}").json() == {"deleted": g["id"]}
    assert client.get(f"/api/games/{g['id']}").status_code == 404


def test_the_live_games_are_bounded() -> None:
    """A new game beyond the bound forgets the one left alone longest."""
    with TestClient(create_app(GameStore(limit=3))) as client:
        ids = [new_game(client)["id"] for _ in range(3)]
        client.get(f"/api/games/{ids[0]}")  # used again: the oldest is now ids[1]
        ids.append(new_game(client)["id"])
        assert client.get(f"/api/games/{ids[1]}").status_code == 404
        assert all(client.get(f"/api/games/{i}").status_code == 200 for i in (ids[0], *ids[2:]))
        assert len(client.app.state.games) == 3  # type: ignore[attr-defined]


def test_only_the_allowed_hosts() -> None:
    app = create_app(allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://evil.example") as client:
        assert client.get("/api/options").status_code == 400
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/options").status_code == 200


# ---- concurrency ------------------------------------------------------------------------


async def _play_out(http: httpx.AsyncClient, seats: list[str], seed: int) -> dict[str, Any]:
    r = await http.post("/api/games", json={"seats": seats, "seed": seed})
    g: dict[str, Any] = r.json()
    while g["winner"] is None:
        r = await http.post(f"/api/games/{g['id']}/ai-move", json={"ply": g["ply"]})
        assert r.status_code == 200, r.text
        g = r.json()
    return g


def test_concurrent_games_are_isolated() -> None:
    """Eight games played at once to the end, each its own: every one's moves replay to its
    final position on the engine."""

    async def main() -> list[dict[str, Any]]:
        transport = httpx.ASGITransport(app=create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            seats = [["mcts:100", "greedy"], ["greedy", "random"], ["random", "alphabeta:2"]]
            return await asyncio.gather(*(_play_out(http, seats[k % 3], seed=k) for k in range(8)))

    finished = asyncio.run(main())
    assert len({g["id"] for g in finished}) == 8
    for g in finished:
        engine = colorwars.Game()
        for m in g["moves"]:
            engine.play(m["cell"])
        assert engine.to_text() == g["position"]
        assert g["winner"] == engine.winner


def test_the_server_answers_while_an_ai_thinks(monkeypatch: Any) -> None:
    """An AI's search runs off the event loop: while it thinks, other requests are answered
    at once, and its own game refuses changes (409) until the AI has moved, exactly once."""
    monkeypatch.setattr(web_store, "AI_SECONDS", 1.0)

    async def main() -> None:
        transport = httpx.ASGITransport(app=create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            slow = {"width": 8, "height": 10, "seats": ["mcts:200000", "human"]}
            g = (await http.post("/api/games", json=slow)).json()
            other = (await http.post("/api/games", json={"seats": ["human", "human"]})).json()
            thinking = asyncio.create_task(http.post(f"/api/games/{g['id']}/ai-move"))
            await asyncio.sleep(0.2)
            start = time.perf_counter()
            r = await http.post(f"/api/games/{other['id']}/moves", json={"cell": "c3"})
            assert r.status_code == 200
            assert (await http.get("/api/options")).status_code == 200
            assert time.perf_counter() - start < 0.3
            assert not thinking.done()
            for action, body in [("moves", {"cell": 0}), ("undo", {}), ("ai-move", {})]:
                r = await http.post(f"/api/games/{g['id']}/{action}", json=body)
                assert r.status_code == 409
                assert r.json()["type"] == "GameBusy"
            assert (await http.delete(f"/api/games/{g['id']}")).status_code == 409
            assert (await http.get(f"/api/games/{g['id']}")).json()["ply"] == 0
            done = await thinking
            assert done.status_code == 200
            assert done.json()["ply"] == 1
            assert done.json()["move"]["seconds"] <= 1.5

    asyncio.run(main())


def test_many_requests_on_one_game_apply_once_each() -> None:
    """Twenty clients send the same move with the same expected ply at once: exactly one
    plays it, the others get 409 and the game is as after one move."""

    async def main() -> None:
        transport = httpx.ASGITransport(app=create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            g = (await http.post("/api/games", json={"seats": ["human", "human"]})).json()
            answers = await asyncio.gather(
                *(
                    http.post(f"/api/games/{g['id']}/moves", json={"cell": "c3", "ply": 0})
                    for _ in range(20)
                )
            )
            codes = sorted(a.status_code for a in answers)
            assert codes == [200] + [409] * 19
            assert (await http.get(f"/api/games/{g['id']}")).json()["ply"] == 1

    asyncio.run(main())


# ---- the page and its files -----------------------------------------------------------


def test_the_static_files_ship_in_the_package(client: TestClient) -> None:
    static = files("colorwars.web") / "static"
    for name in ("index.html", "app.js", "style.css"):
        assert (static / name).is_file(), name
        r = client.get(f"/static/{name}")
        assert r.status_code == 200
        assert r.text == (static / name).read_text(encoding="utf-8")
        # Nothing from elsewhere: the page works offline (the SVG namespace is only a name).
        assert not re.findall(r"https?://(?!www\.w3\.org/2000/svg)", r.text), name
    page = client.get("/")
    assert page.status_code == 200
    assert 'id="board"' in page.text
    assert "data-position" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert "text/javascript" in client.get("/static/app.js").headers["content-type"]


# ---- the command line ---------------------------------------------------------------------


def test_serve_on_the_command_line(tmp_path: Any) -> None:
    """`colorwars serve --port 0` listens on 127.0.0.1 on a free port, says where, serves the
    page and the API, and stops on Ctrl-C with status 0."""
    db = str(tmp_path / "games.sqlite3")
    with subprocess.Popen(
        [sys.executable, "-m", "colorwars.cli", "serve", "--port", "0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            line = child.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert match, line + (child.stderr.read() if child.stderr else "")
            url = match[0]
            assert "data-position" in httpx.get(url, timeout=10).text
            r = httpx.post(url + "api/games", json={}, timeout=10)
            assert r.status_code == 201
            assert r.json()["seats"] == ["human", "medium"]
        finally:
            child.send_signal(signal.SIGINT)
            code = child.wait(timeout=20)
    assert code == 0


def test_serve_open_says_so_where_no_browser_opens(tmp_path: Any) -> None:
    """`--open` with no browser to open (here one that fails) says where the page is rather
    than nothing."""
    db = str(tmp_path / "games.sqlite3")
    env = {**os.environ, "BROWSER": "false"}
    with subprocess.Popen(
        [sys.executable, "-m", "colorwars.cli", "serve", "--port", "0", "--db", db, "--open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        try:
            assert child.stdout is not None
            first = child.stdout.readline()
            second = child.stdout.readline()
        finally:
            child.send_signal(signal.SIGINT)
            code = child.wait(timeout=20)
    url = re.search(r"http://127\.0\.0\.1:\d+/", first)
    assert url, first
    assert second == f"colorwars: no web browser to open here: open {url[0]} in one\n"
    assert code == 0


def test_serve_refuses_bad_ports(tmp_path: Any) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        db = str(tmp_path / "games.sqlite3")
        return subprocess.run(
            [sys.executable, "-m", "colorwars.cli", "serve", "--db", db, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    done = run("--port", "70000")
    assert done.returncode == 1
    assert "invalid port 70000" in done.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = run("--port", str(taken.getsockname()[1]))
    assert done.returncode == 2
    assert "in use" in done.stderr.lower()


def test_records_of_the_api_are_the_projects_format(client: TestClient) -> None:
    g = new_game(client, width=3, height=3, seats=["greedy", "greedy"], seed=1)
    while g["winner"] is None:
        g = client.post(f"/api/games/{g['id']}/ai-move").json()
    text = client.get(f"/api/games/{g['id']}/record").json()["record"]
    record = colorwars.GameRecord.parse(text)
    assert record.result == "abcdefgh"[g["winner"]]
    assert record.final == g["position"]
    assert list(record.moves) == [m["name"] for m in g["moves"]]
    assert json.loads(json.dumps(g)) == g  # plain JSON, no NaN


def test_serve_without_the_web_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from colorwars.cli import main

    monkeypatch.setitem(sys.modules, "colorwars.web", None)
    assert main(["serve"]) == 1
    assert "pip install 'colorwars[web]'" in capsys.readouterr().err


def test_serving_in_a_background_thread() -> None:
    """`with serving() as url:` serves the app on 127.0.0.1 for the block, then stops."""
    from colorwars.web import serving

    with serving() as url:
        assert url.startswith("http://127.0.0.1:")
        r = httpx.post(url + "api/games", json={"seats": ["human", "human"]}, timeout=10)
        assert r.status_code == 201
        r = httpx.get(url + "api/options", headers={"host": "evil.example"}, timeout=10)
        assert r.status_code == 400  # only the loopback names on 127.0.0.1
    with pytest.raises(httpx.TransportError):
        httpx.get(url + "api/options", timeout=2)


def test_a_port_in_use_is_named_with_what_to_do() -> None:
    # It said only "Address already in use".
    from colorwars.web.app import listen

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"port {port} on 127.0.0.1 is in use: choose another"):
            listen("127.0.0.1", port)
