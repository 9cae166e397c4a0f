"""Online games between real browsers (Debian's headless Chromium through Playwright, as in
``test_web_browser.py``): two browser contexts (two devices: a desktop and a phone) play a game
to the end from the creator's links, each seeing the other's moves within a second; a wrong or
missing token gets 403 and the game is unchanged; a spectator cannot move; a reload mid-game
resumes; a server restarted mid-game (on the same database and port) resumes the game.

Skips when Playwright, the web extra or ``/usr/bin/chromium`` is missing. Screenshots go to
``$COLORWARS_SCREENSHOTS`` when set (``docs`` remakes the docs' pictures).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

import colorwars  # noqa: E402
from colorwars.web import GameStore, serving  # noqa: E402
from colorwars.web.db import GameDB  # noqa: E402

CHROMIUM = Path(os.environ.get("COLORWARS_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

DESKTOP = {"viewport": {"width": 1100, "height": 820}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}  # fmt: skip
# Notes when the board shows each new position, against the page's own clock.
WATCH = """() => {
  const board = document.getElementById("board");
  window.shown = {};
  const now = () => performance.timeOrigin + performance.now();
  const note = () => { window.shown[board.dataset.position] = now(); };
  note();
  new MutationObserver(note).observe(board, {attributes: true, attributeFilter: ["data-position"]});
}"""


class Page:
    """A browser context's page, with the errors it logged."""

    def __init__(self, browser: Any, url: str, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on(
            "console", lambda m: self.problems.append(m.text) if m.type == "error" else None
        )
        self.open(url)

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector(
            '#board:is([data-state="ready"], [data-state="waiting"], [data-state="over"])',
            timeout=15_000,
        )
        self.page.select_option("#speed", "0")

    def board(self, name: str) -> str:
        value: str = self.page.get_attribute("#board", f"data-{name}")
        return value

    def wait_position(self, position: str, timeout: float = 10_000) -> None:
        self.page.wait_for_function(
            "p => document.getElementById('board').dataset.position === p",
            arg=position,
            timeout=timeout,
        )

    def fetch(self, method: str, path: str, token: str | None, body: Any = None) -> Any:
        return self.page.evaluate(
            """([method, path, token, body]) => fetch(path, {method,
                 headers: Object.assign({"Content-Type": "application/json"},
                                        token === null ? {} : {Authorization: "Bearer " + token}),
                 body: body === null ? undefined : JSON.stringify(body)})
               .then(async r => ({status: r.status, json: await r.json()}))""",
            [method, path, token, body],
        )

    def close(self) -> None:
        self.context.close()


PLAYABLE = '#board:is([data-state="ready"], [data-state="waiting"])'


def token_in(page: Page, game_id: str) -> str:
    """The seat's token a page keeps for a game (localStorage)."""
    token: str = page.page.evaluate(
        "id => JSON.parse(localStorage['colorwars.tokens'])[id]", game_id
    )
    return token


def create_online(host: Page) -> tuple[str, dict[str, str]]:
    """Starts a human-vs-human online game from the new-game form; its id and links."""
    page = host.page
    page.click("#new-game-button")
    kinds = page.locator("#ng-seats .seat-kind")
    kinds.nth(0).select_option("human")
    page.check("#ng-online")
    assert kinds.nth(1).input_value() == "human"  # online: the other seat is the friend's
    old = host.board("game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    page.wait_for_selector('#online-links input[data-link="b"]')
    links = {
        who: page.input_value(f'#online-links input[data-link="{who}"]')
        for who in ("b", "spectator")
    }
    return host.board("game"), links


def test_two_browsers_play_an_online_game_to_the_end(browser: Any, shots: Path) -> None:
    start = time.monotonic()
    with serving() as url:
        a = Page(browser, url, **DESKTOP)
        game_id, links = create_online(a)
        token_b = links["b"].split("token=")[1]
        b = Page(browser, links["b"], **PHONE)
        watcher = Page(browser, links["spectator"], **DESKTOP)
        try:
            # b's page: the game of the link, seat b; the token out of the address bar.
            assert b.board("game") == game_id
            assert "token" not in b.page.url
            assert b.board("state") == "waiting"  # a moves first
            token_a = a.page.evaluate(
                f"() => JSON.parse(localStorage['colorwars.tokens'])['{game_id}']"
            )
            for other in (b, watcher):
                assert token_a not in other.page.content()
                assert token_a not in other.page.evaluate("() => JSON.stringify(localStorage)")
            assert token_b not in watcher.page.content()
            assert watcher.board("state") == "waiting"
            engine = colorwars.Game()
            rng = random.Random(5)
            pages = {0: a, 1: b}
            lags = []
            for page in (a, b, watcher):
                page.page.evaluate(WATCH)
            while not engine.is_over:
                mover, other = pages[engine.to_move], pages[1 - engine.to_move]
                assert mover.board("state") == "ready"
                assert other.board("state") == "waiting"
                cell = rng.choice(engine.legal_moves())
                sent = mover.page.evaluate("() => performance.timeOrigin + performance.now()")
                if mover is b:
                    mover.page.tap(f'#board [data-cell="{cell}"]')
                else:
                    mover.page.click(f'#board [data-cell="{cell}"]')
                engine.play(cell)
                for page in (a, b, watcher):
                    page.wait_position(engine.to_text())
                seen = other.page.evaluate(f"() => window.shown[{engine.to_text()!r}]")
                lags.append((seen - sent) / 1000)
                if engine.ply == 6:
                    a.page.mouse.move(0, 0)
                    a.page.screenshot(path=str(shots / "web-online-desktop.png"))
                    b.page.screenshot(path=str(shots / "web-online-phone.png"))
            # Each saw the other's moves within a second (a generous margin: they come at once).
            assert max(lags) < 1.0, lags
            for page in (a, b, watcher):
                page.page.wait_for_selector(f'#result[data-result="{engine.winner}"]')
                assert page.board("state") == "over"
            # A rematch with the seats swapped: every browser follows, b's player now a.
            a.page.click("#rematch-swap")
            for page in (a, b, watcher):
                page.page.wait_for_function(
                    "old => { const b = document.getElementById('board');"
                    " return b.dataset.game !== old && b.dataset.ply === '0'; }",
                    arg=game_id,
                )
            b.page.wait_for_selector('#board[data-state="ready"]')
            assert a.board("state") == "waiting"
            assert watcher.board("state") == "waiting"
            assert a.board("game") == b.board("game") == watcher.board("game")
            for page in (a, b, watcher):
                assert not page.problems, page.problems
        finally:
            for page in (a, b, watcher):
                page.close()
    print(
        f"\nonline game: {engine.ply} moves between two browsers, the slowest arrived in "
        f"{max(lags):.3f} s, {time.monotonic() - start:.1f} s in all"
    )


def test_tokens_spectators_and_reloads(browser: Any) -> None:
    """A wrong or missing token gets 403 and the game is unchanged; the spectator's page lets
    nobody move; a reload mid-game resumes, seat and all."""
    with serving() as url:
        a = Page(browser, url, **DESKTOP)
        game_id, links = create_online(a)
        b = Page(browser, links["b"], **DESKTOP)
        watcher = Page(browser, links["spectator"], **DESKTOP)
        try:
            a.page.click('#board [data-cell="12"]')
            for page in (a, b, watcher):
                page.wait_position("5x5 colorwars 2 ...../...../..3a../...../..... b a - 1")
            before = watcher.fetch("GET", f"/api/games/{game_id}", None)["json"]
            moves = f"/api/games/{game_id}/moves"
            for token in (None, "made-up", links["b"].split("token=")[1] + "x"):
                r = watcher.fetch("POST", moves, token, {"cell": "a1"})
                assert r["status"] == 403, r
                assert r["json"]["type"] == "Forbidden"
            # a's token cannot move for b either.
            token_a = a.page.evaluate(
                f"() => JSON.parse(localStorage['colorwars.tokens'])['{game_id}']"
            )
            assert a.fetch("POST", moves, token_a, {"cell": "a1"})["status"] == 403
            assert watcher.fetch("GET", f"/api/games/{game_id}", None)["json"] == before
            # The spectator's board has no move to offer, and a tap plays nothing.
            assert watcher.board("state") == "waiting"
            assert watcher.page.locator("#board .cell.legal").count() == 0
            watcher.page.click('#board [data-cell="0"]')
            assert "watching" in watcher.page.inner_text("#online-seat")
            # b moves; then b reloads mid-game: the same game, b's seat, and it plays on.
            b.page.click('#board [data-cell="0"]')
            position = "5x5 colorwars 2 3b..../...../..3a../...../..... a ab - 2"
            for page in (a, b, watcher):
                page.wait_position(position)
            b.page.reload()
            b.page.wait_for_selector('#board[data-state="waiting"]')
            assert b.board("game") == game_id
            assert b.board("position") == position
            a.page.click('#board [data-cell="12"]')
            b.page.wait_for_selector('#board[data-state="ready"]')
            assert "You play b" in b.page.inner_text("#online-seat")
            watcher.page.reload()
            watcher.page.wait_for_selector('#board[data-state="waiting"]')
            assert watcher.board("position") == b.board("position")
            # Nothing went wrong but the refusals asked for above.
            for page in (a, b, watcher):
                assert all("403" in p for p in page.problems), page.problems
        finally:
            for page in (a, b, watcher):
                page.close()


def test_a_server_restart_mid_game_resumes_from_the_database(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with serving(store=GameStore(db=GameDB(path))) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        a = Page(browser, url, **DESKTOP)
        game_id, links = create_online(a)
        b = Page(browser, links["b"], **DESKTOP)
        a.page.click('#board [data-cell="12"]')
        b.wait_position("5x5 colorwars 2 ...../...../..3a../...../..... b a - 1")
    # The server is gone; a new one on the same file and port has the game.
    with serving(port=port, store=GameStore(db=GameDB(path))):
        try:
            for page in (a, b):
                page.page.reload()
                page.page.wait_for_selector(
                    '#board:is([data-state="ready"], [data-state="waiting"])'
                )
                assert page.board("game") == game_id
                assert page.board("position").endswith(" b a - 1")
            b.page.click('#board [data-cell="0"]')
            a.wait_position("5x5 colorwars 2 3b..../...../..3a../...../..... a ab - 2")
            assert a.board("state") == "ready"
            # The problems logged while the server was down are the reconnections' only.
            for page in (a, b):
                assert all(
                    "ERR_CONNECTION_REFUSED" in p or "EventSource" in p for p in page.problems
                ), page.problems
        finally:
            a.close()
            b.close()


def test_an_ai_seat_moves_when_the_creator_has_left(browser: Any) -> None:
    """Online, the browser of the human who moved last asks for the AI seats' moves: with the
    creator's page closed, the friend's move is still answered by the AI (the creator's browser
    alone asked, and the game stood still without it)."""
    import json
    import urllib.request

    with serving() as url:
        body = {"online": True, "width": 4, "height": 4, "players": 3,
                "seats": ["human", "human", "greedy"]}  # fmt: skip
        request = urllib.request.Request(
            url + "api/games", data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request) as r:
            made = json.load(r)
        b = Page(browser, made["links"]["b"], **DESKTOP)
        try:
            # The creator plays a1 from elsewhere and is gone; b sees it, and plays d4.
            a = urllib.request.Request(
                url + f"api/games/{made['id']}/moves", data=b'{"cell": "a1"}', method="POST",
                headers={"Content-Type": "application/json",
                         "Authorization": f"Bearer {made['token']}"},
            )  # fmt: skip
            urllib.request.urlopen(a).close()
            b.page.wait_for_function("() => document.getElementById('board').dataset.ply === '1'")
            b.page.wait_for_selector(PLAYABLE)
            b.page.click('#board [data-cell="15"]')
            b.page.wait_for_function(
                "() => document.getElementById('board').dataset.ply === '3'", timeout=10_000
            )
            assert b.problems == []
        finally:
            b.close()


def test_a_link_with_a_token_of_no_seat_leaves_the_seats_own(browser: Any) -> None:
    """Anyone who knows a game's id (its spectator link) could send a seat's player a link to
    it carrying a made-up token: the page keeps the seat's own token (it kept the link's, and
    the player had lost their seat for good)."""
    with serving() as url:
        a = Page(browser, url, **DESKTOP)
        try:
            game_id, _ = create_online(a)
            mine = token_in(a, game_id)
            a.open(url + f"?game={game_id}&token=made-up")
            assert token_in(a, game_id) == mine
            assert "You play a" in a.page.inner_text("#online-seat")
            a.page.click('#board [data-cell="12"]')
            a.wait_position("5x5 colorwars 2 ...../...../..3a../...../..... b a - 1")
        finally:
            a.close()


def test_the_creator_keeps_the_links_and_their_seat(browser: Any) -> None:
    """The share links survive the creator's reload (they were gone: the server gives them
    once); the creator opening the friend's link in another tab of the same browser plays b
    in that tab and keeps seat a everywhere else (the link's token replaced a's, and the game
    was stuck with nobody on a); a spectator sees the seats as humans, not as "friend"."""
    with serving() as url:
        a = Page(browser, url, **DESKTOP)
        try:
            game_id, links = create_online(a)
            mine = token_in(a, game_id)
            a.page.reload()
            a.page.wait_for_selector('#online-links input[data-link="b"]')
            assert a.page.input_value('#online-links input[data-link="b"]') == links["b"]
            # The friend's link in a second tab of the creator's browser.
            tab = a.context.new_page()
            tab.goto(links["b"])
            tab.wait_for_selector('#board[data-state="waiting"]')
            tab.select_option("#speed", "0")
            assert "You play b" in tab.inner_text("#online-seat")
            assert "other tabs keep playing a" in tab.inner_text("#message")
            assert token_in(a, game_id) == mine  # the browser's own seat is still a
            # a (reloaded: the browser's token) and b (this tab's) play each other.
            a.page.reload()
            a.page.wait_for_selector('#board[data-state="ready"]')
            assert "You play a" in a.page.inner_text("#online-seat")
            a.page.click('#board [data-cell="12"]')
            tab.wait_for_selector('#board[data-state="ready"]')
            tab.click('#board [data-cell="0"]')
            position = "5x5 colorwars 2 3b..../...../..3a../...../..... a ab - 2"
            a.wait_position(position)
            # The tab keeps b through its own reload.
            tab.reload()
            tab.wait_for_selector('#board[data-state="waiting"]')
            assert "You play b" in tab.inner_text("#online-seat")
            # A spectator's legend: "human" for both seats, never "friend" or "you".
            watcher = Page(browser, links["spectator"], **DESKTOP)
            legend = watcher.page.inner_text("#legend")
            assert "friend" not in legend
            assert "you" not in legend
            assert legend.count("human") == 2
            watcher.close()
            assert not a.problems, a.problems
        finally:
            a.close()


def test_moves_pushed_while_busy_do_not_turn_the_board_back(browser: Any) -> None:
    """Online against three AI seats: the moves pushed while this page was asking for the next
    AI move are from the past once it has shown it; the board stays on the newest position
    (a held event was shown after them: a stale board, and an AI move asked for a position
    gone, refused)."""
    import json
    import urllib.request

    with serving() as url:
        body = {"online": True, "width": 4, "height": 4, "players": 4,
                "seats": ["human", "greedy", "greedy", "greedy"]}  # fmt: skip
        request = urllib.request.Request(
            url + "api/games", data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request) as r:
            made = json.load(r)
        a = Page(browser, url + f"?game={made['id']}&token={made['token']}", **DESKTOP)
        try:
            a.page.wait_for_selector('#board[data-state="ready"]')
            a.page.click('#board [data-cell="0"]')
            a.page.wait_for_function(
                "() => document.getElementById('board').dataset.ply === '4'"
                " && document.getElementById('board').dataset.state === 'ready'",
                timeout=15_000,
            )
            time.sleep(0.5)  # any event held meanwhile has been taken by now
            with urllib.request.urlopen(url + f"api/games/{made['id']}") as r:
                now = json.load(r)
            assert a.board("ply") == str(now["ply"]) == "4"
            assert a.board("position") == now["position"]
            assert a.problems == []
        finally:
            a.close()
