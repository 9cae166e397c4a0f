"""The web app end to end in a real headless Chromium (Debian's ``chromium`` package, driven by
Playwright through ``executable_path``): load the page, start a 5x5 game against greedy from the
new-game form, play it to the end by clicking cells, and check after every move that the
board's ``data-position`` is the engine's position, that every wave of every cascade was
animated, and that the page logged no error; the result screen and a rematch; then the tools
around the board (hint, undo, and in the Study view analysis, replay, position and record), and
the page at a phone's width. ``tests/test_web_browser_online.py`` plays online games between
browsers.

Skips when Playwright, the web extra or ``/usr/bin/chromium`` is missing (``.ci/run`` installs
them). Screenshots go to pytest's temporary folder, or to ``$COLORWARS_SCREENSHOTS`` when set
(``COLORWARS_SCREENSHOTS=docs pytest tests/test_web_browser.py`` remakes the README's).
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

import colorwars  # noqa: E402
from colorwars.web import serving  # noqa: E402

CHROMIUM = Path(os.environ.get("COLORWARS_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

# Records, in the page, every position the board shows, whether an animation ran and how many
# orbs flew: the test reads them back after each move.
WATCH = """() => {
  const board = document.getElementById("board");
  window.seen = {positions: [], animating: 0, flyers: 0};
  const note = () => {
    const p = board.dataset.position, list = window.seen.positions;
    if (p && list[list.length - 1] !== p) list.push(p);
  };
  note();
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.type === "attributes" && c.attributeName === "data-position") note();
      if (c.type === "attributes" && c.attributeName === "data-animating"
          && board.dataset.animating === "true") window.seen.animating += 1;
      for (const n of c.addedNodes || []) {
        if (n.nodeType === 1 && n.classList.contains("flyer")) window.seen.flyers += 1;
      }
    }
  }).observe(board, {attributes: true, childList: true, subtree: true});
}"""

IDLE = """(ply) => {
  const b = document.getElementById("board");
  return ["ready", "over"].includes(b.dataset.state) && b.dataset.ply !== String(ply);
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The web app on 127.0.0.1, a free port, in a thread; stopped after the tests."""
    with serving() as url:
        yield url


def open_page(browser: Any, url: str, **context: Any) -> tuple[Any, list[str]]:
    page = browser.new_context(**context).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_selector('#board[data-state="ready"]', timeout=10_000)
    return page, problems


def wins_at_once(game: colorwars.Game, cell: int) -> bool:
    after = game.copy()
    after.play(cell)
    return after.is_over


def sensible_moves(game: colorwars.Game, take_wins: bool) -> list[int]:
    """The human's choices: a winning move when ``take_wins``, else the moves after which
    greedy cannot win at once (so that the game lasts a while), else any."""
    legal = game.legal_moves()
    if take_wins and (wins := [c for c in legal if wins_at_once(game, c)]):
        return wins
    safe = []
    for cell in legal:
        after = game.copy()
        after.play(cell)
        if not after.is_over and not any(wins_at_once(after, r) for r in after.legal_moves()):
            safe.append(cell)
    return safe or legal


def board(page: Any, name: str) -> str:
    value: str = page.get_attribute("#board", f"data-{name}")
    return value


def test_a_game_against_greedy_played_to_the_end_by_clicking(
    browser: Any, server: str, shots: Path, tmp_path: Path
) -> None:
    start = time.monotonic()
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 860})
    # The default game is there at once; start a fresh 5x5 one against greedy from the form.
    assert board(page, "position") == "5x5 colorwars 2 ...../...../...../...../..... a - - 0"
    page.click("#new-game-panel summary")
    page.select_option("#ng-board", "5x5")
    page.select_option("#ng-rules", "colorwars")
    page.select_option("#ng-players", "2")
    kinds = page.locator("#ng-seats .seat-kind")
    kinds.nth(0).select_option("human")
    kinds.nth(1).select_option("greedy")
    old = board(page, "game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    assert not page.locator("#new-game-panel").get_attribute("open")  # closed on start
    page.click("#first-game-close")  # the first-game walkthrough, read
    page.select_option("#speed", "50")  # animated, quickly
    page.evaluate(WATCH)
    assert page.locator("#board [data-cell]").count() == 25

    engine = colorwars.Game()
    positions = [engine.to_text()]
    waves = 0
    rng = random.Random(2)
    clicks = 0
    while not engine.is_over:
        assert board(page, "position") == engine.to_text()
        cell = rng.choice(sensible_moves(engine, take_wins=clicks >= 5))
        page.click(f'#board [data-cell="{cell}"]')
        clicks += 1
        page.wait_for_function(IDLE, arg=engine.ply, timeout=15_000)
        # The page's move list holds the human's move and greedy's reply: play them here.
        listed = page.eval_on_selector_all(
            "#moves li", "items => items.map(i => Number(i.dataset.moveCell))"
        )
        assert listed[: engine.ply] == engine.moves()
        assert listed[engine.ply] == cell
        for move in listed[engine.ply :]:
            engine.play(move)
            waves += len(engine.waves())
            positions.append(engine.to_text())
        assert board(page, "position") == engine.to_text()
        server_game = page.evaluate(
            "id => fetch('/api/games/' + id).then(r => r.json())", board(page, "game")
        )
        assert server_game["position"] == engine.to_text()
        if clicks <= 6 and not engine.is_over:  # a game in progress, as late as click 6
            page.mouse.move(0, 0)  # no hover frame in the picture
            page.screenshot(path=str(shots / "web-game.png"))
    seen = page.evaluate("() => window.seen")
    # After every move (the human's and greedy's), the board showed the engine's position.
    assert seen["positions"] == positions
    # Every wave of every cascade was animated, with orbs flying to the neighbours.
    assert waves > 0
    assert int(board(page, "waves-animated")) == waves
    assert seen["animating"] > 0
    assert seen["flyers"] > 0
    assert board(page, "state") == "over"
    assert "win" in page.inner_text("#status")
    # The result screen: the winner's seat, the moves, the decisive cascade; then a rematch.
    result = page.locator(f'#result[data-result="{engine.winner}"]')
    assert result.is_visible()
    text = result.inner_text()
    assert f"{engine.ply} moves" in text
    assert ("You win" in text) == (engine.winner == 0)
    if engine.waves():
        assert "decisive cascade" in text
    page.mouse.move(0, 0)
    page.screenshot(path=str(shots / "web-result.png"))
    finished = board(page, "game")
    page.click("#rematch")
    page.wait_for_function(
        "old => { const b = document.getElementById('board');"
        " return b.dataset.game !== old && b.dataset.state === 'ready'; }",
        arg=finished,
    )
    assert page.locator("#result").is_hidden()
    rematch = page.evaluate(
        "id => fetch('/api/games/' + id).then(r => r.json())", board(page, "game")
    )
    assert rematch["seats"] == ["human", "greedy"]
    assert rematch["ply"] == 0
    assert (rematch["width"], rematch["height"], rematch["rules"]) == (5, 5, "colorwars")
    assert not problems, problems
    print(
        f"\nbrowser game: {clicks} clicks, {engine.ply} moves, {waves} waves animated, "
        f"{time.monotonic() - start:.1f} s"
    )


def test_the_tools_around_the_board(browser: Any, server: str) -> None:
    """Hint, undo, analysis shading, replay with the slider, copy and paste of the position,
    saving and loading a record."""
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 860})
    page.select_option("#speed", "0")
    # A fresh game against greedy (a page reload would resume the last one).
    page.click("#new-game-button")
    page.locator("#ng-seats .seat-kind").nth(1).select_option("greedy")
    old = board(page, "game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    page.click('#board [data-cell="12"]')  # a's opening on c3; greedy replies
    page.wait_for_function(IDLE, arg=0)
    page.click("#hint")
    page.wait_for_selector("#board .cell.hint")
    hinted = page.get_attribute("#board .cell.hint", "data-cell")
    assert "Hint:" in page.inner_text("#message")
    # The hint's mark is its own (a ring and a star), not the dashed "bursts next" frame.
    assert page.locator("#board .cell.hint .hint-ring").count() == 1
    # A tap on an illegal cell says why, in the rules' words.
    legal_now = colorwars.Game.from_text(board(page, "position")).legal_moves()
    illegal = next(c for c in range(25) if c not in legal_now)
    page.click(f'#board [data-cell="{illegal}"]')
    page.wait_for_function("() => document.getElementById('message').textContent.includes('only')")
    said = page.inner_text("#message")
    assert str(illegal) not in said.split(":")[0]
    assert "illegal move" not in said  # the server's prefix is cut
    assert "(cell" not in said
    page.click(f'#board [data-cell="{hinted}"]')
    page.wait_for_function(IDLE, arg=2)
    assert int(board(page, "ply")) in (3, 4)  # 3 when the hint won at once
    later = board(page, "position")
    # Undo takes back your move and greedy's reply.
    page.click("#undo")
    page.wait_for_function("() => document.getElementById('board').dataset.ply === '2'")
    page.click("#undo")
    page.wait_for_function("() => document.getElementById('board').dataset.ply === '0'")
    assert page.is_disabled("#undo")
    page.click('#board [data-cell="12"]')
    page.wait_for_function(IDLE, arg=0)
    # The Study view: notation, records, replay and analysis.
    assert page.locator("#analyse").is_hidden()
    page.click("#view-study")
    # Analysis: every legal cell shaded, with its win rate, and the exact result.
    page.fill("#analysis-simulations", "3000")
    page.click("#analyse")
    page.wait_for_selector("#board .shade")
    legal = colorwars.Game.from_text(board(page, "position")).legal_moves()
    assert page.locator("#board .shade").count() == len(legal)
    assert "3,000 simulations" in page.inner_text("#analysis-result")
    # The exact result, or what the proof-number search found in its time and why it differs.
    assert re.search(
        r"Exact: player [ab] wins|Exact result: not proven \(proof-number",
        page.inner_text("#analysis-result"),
    )
    # Replay: the slider shows earlier positions; back to the game afterwards.
    live = board(page, "position")
    page.fill("#replay", "0")
    page.wait_for_function("() => document.getElementById('board').dataset.state === 'replay'")
    assert board(page, "position") == "5x5 colorwars 2 ...../...../...../...../..... a - - 0"
    # The legend counts the replayed position's orbs, not the game's.
    orbs = page.eval_on_selector_all("#legend .seat", "s => s.map(e => Number(e.dataset.orbs))")
    assert orbs == [0, 0]
    page.click("#replay-step")
    page.wait_for_function("() => document.getElementById('board').dataset.position.endsWith(' 1')")
    assert board(page, "position") == "5x5 colorwars 2 ...../...../..3a../...../..... b a - 1"
    page.click("#replay-live")
    assert board(page, "position") == live
    # Save the record, and load it back.
    with page.expect_download() as download:
        page.click("#save-record")
    path = download.value.path()
    record = colorwars.GameRecord.parse(Path(path).read_text())
    assert record.completed().final == record.final
    page.set_input_files("#load-record", path)
    page.wait_for_function("() => document.getElementById('board').dataset.state === 'replay'")
    assert page.locator("#moves li").count() == len(record.moves)
    # The position box holds the notation; pasting one starts a game from it.
    assert page.input_value("#position-text") == board(page, "position")
    page.fill("#position-text", later)
    page.click("#paste-position")
    page.wait_for_function(f"() => document.getElementById('board').dataset.position === {later!r}")
    # A game from a pasted position has no record (records start from the empty board).
    assert page.is_disabled("#save-record")
    assert "pasted position" in page.get_attribute("#save-record", "title")
    # Watch AI against AI: the page asks for the AIs' moves until one wins.
    pasted = board(page, "game")
    page.click("#new-game-panel summary")
    page.click("#ng-watch")
    page.wait_for_function(
        "old => { const b = document.getElementById('board');"
        " return b.dataset.game !== old && b.dataset.state === 'over'; }",
        arg=pasted,
    )
    watched = page.evaluate(
        "id => fetch('/api/games/' + id).then(r => r.json())", board(page, "game")
    )
    assert watched["seats"] == ["medium", "greedy"]  # the human seat a became medium
    assert watched["winner"] is not None
    assert board(page, "position") == watched["position"]
    assert not problems, problems


def test_a_game_against_zero_the_network(browser: Any, server: str) -> None:
    """Zero (the shipped network's search) is a seat of the new-game form, with its budget of
    simulations, and plays its replies; where no network fits (three players, a side above
    the networks', rules no network was trained for) the form offers it disabled, saying
    why."""
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 860})
    page.select_option("#speed", "0")
    page.click("#new-game-button")
    page.select_option("#ng-board", "5x5")
    page.select_option("#ng-rules", "classic")
    page.select_option("#ng-players", "2")
    seat = page.locator("#ng-seats .seat-kind").nth(1)
    seat.select_option("zero")
    budget = page.locator("#ng-seats .seat-budget").nth(1)
    assert budget.is_visible()
    assert budget.get_attribute("title") == "simulations"
    assert budget.input_value() == "400"  # the server's default for Zero
    budget.fill("60")
    old = board(page, "game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    engine = colorwars.Game(5, 5, rules="classic")
    for cell in (12, 6):  # c3, then b2 or wherever is still legal
        if cell not in engine.legal_moves():
            cell = engine.legal_moves()[0]
        page.click(f'#board [data-cell="{cell}"]')
        page.wait_for_function(IDLE, arg=engine.ply)
        listed = page.eval_on_selector_all(
            "#moves li", "items => items.map(i => Number(i.dataset.moveCell))"
        )
        assert listed[engine.ply] == cell
        for move in listed[engine.ply :]:
            engine.play(move)  # Zero's reply, legal on the engine
        assert board(page, "position") == engine.to_text()
    assert engine.ply == 4
    # No network fits three players, a board of side 13 or other rules: offered, disabled,
    # with the reason.
    page.click("#new-game-button")
    zero = "#ng-seats .seat-kind >> nth=1 >> option[value='zero']"
    assert not page.locator(zero).is_disabled()
    page.select_option("#ng-players", "3")
    assert page.locator(zero).is_disabled()
    assert "two players" in (page.locator(zero).get_attribute("title") or "")
    page.select_option("#ng-players", "2")
    page.select_option("#ng-board", "custom")
    page.fill("#ng-width", "13")
    page.dispatch_event("#ng-width", "change")
    assert page.locator(zero).is_disabled()
    page.fill("#ng-width", "12")
    page.dispatch_event("#ng-width", "change")
    assert not page.locator(zero).is_disabled()
    page.select_option("#ng-rules", "none+empty")  # no network was trained for these rules
    assert page.locator(zero).is_disabled()
    assert "colorwars or classic rules" in (page.locator(zero).get_attribute("title") or "")
    page.select_option("#ng-rules", "colorwars")
    assert not page.locator(zero).is_disabled()
    # Hard is the strongest at a second for the game: Zero on the classic boards it plays.
    hard = "#ng-seats .seat-kind >> nth=1 >> option[value='hard']"
    assert "(learned:time=1)" in (page.locator(hard).text_content() or "")
    page.select_option("#ng-rules", "classic")
    assert "(zero:time=1)" in (page.locator(hard).text_content() or "")
    page.fill("#ng-width", "13")
    page.dispatch_event("#ng-width", "change")
    assert "(learned:time=1)" in (page.locator(hard).text_content() or "")
    assert not problems, problems


def test_the_page_at_a_phones_width(browser: Any, server: str, shots: Path) -> None:
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
             "device_scale_factor": 2}  # fmt: skip
    page, problems = open_page(browser, server, **phone)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    box = page.locator("#board svg").bounding_box()
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    cell = page.locator('#board [data-cell="12"] .bg').bounding_box()
    assert cell["width"] >= 44  # a comfortable touch target
    page.select_option("#speed", "0")
    page.tap('#board [data-cell="12"]')
    page.wait_for_function(IDLE, arg=0)
    assert board(page, "position").endswith(" a ab - 2")
    # The board comes first: nothing of the study tools above or beside it, and they are
    # hidden in the play view.
    assert page.locator("#study").is_hidden()
    assert box["y"] < 200
    page.screenshot(path=str(shots / "web-phone.png"))
    # A new game is one tap away.
    page.tap("#new-game-button")
    page.wait_for_selector("#new-game-panel[open] #ng-start")
    start = page.locator("#ng-start").bounding_box()
    assert 0 <= start["y"] <= 844
    assert not problems, problems


def start_from_form(page: Any, board_value: str, seats: tuple[str, str]) -> None:
    """A new game from the form: the board's preset (``"8x10"``) or any size (``"3x3"``, set
    as a custom board when it is no preset), the two seats' kinds."""
    page.click("#new-game-button")
    presets = page.eval_on_selector_all("#ng-board option", "os => os.map(o => o.value)")
    if board_value in presets:
        page.select_option("#ng-board", board_value)
    else:
        width, height = board_value.split("x")
        page.select_option("#ng-board", "custom")
        page.fill("#ng-width", width)
        page.fill("#ng-height", height)
        page.dispatch_event("#ng-height", "change")
    kinds = page.locator("#ng-seats .seat-kind")
    for k, kind in enumerate(seats):
        kinds.nth(k).select_option(kind)
    old = board(page, "game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")


def test_a_tall_board_and_the_toolbar_fit_the_window(browser: Any, server: str) -> None:
    """The board is sized to the window's height as well as its width: on a laptop's screen an
    8 x 10 board and the toolbar under it are in view without scrolling (it was sized to the
    width only, and the toolbar was below the fold); on a phone, a game started from the form
    (below the board) scrolls back to the board."""
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 720})
    start_from_form(page, "8x10", ("human", "greedy"))
    for selector in ("#board svg", "#undo", "#skip"):
        box = page.locator(selector).bounding_box()
        assert box["y"] >= 0, (selector, box)
        assert box["y"] + box["height"] <= 720, (selector, box)
    cell = page.locator('#board [data-cell="0"] .bg').bounding_box()
    assert cell["height"] >= 40  # not shrunk more than it must be
    assert not problems, problems
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    page, problems = open_page(browser, server, **phone)
    page.tap("#new-game-button")
    page.wait_for_selector("#new-game-panel[open] #ng-start")
    page.locator("#ng-start").scroll_into_view_if_needed()
    assert page.locator("#board svg").bounding_box()["y"] < 0  # the form is below the board
    old = board(page, "game")
    page.tap("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    page.wait_for_function(
        "() => document.getElementById('play').getBoundingClientRect().top >= -1"
    )
    box = page.locator("#board svg").bounding_box()
    assert 0 <= box["y"] < 844 / 2
    assert not problems, problems


def test_keyboard_play_skip_and_the_analysis_box(browser: Any, server: str) -> None:
    """Keyboard play keeps its focus on the board through every move (it went to the page's
    body), the arrow keys move between cells, and the result takes the focus; Skip pressed
    between moves does not skip the next move's animation; the analysis box refuses a number
    of simulations it cannot use (0 was silently 10,000) and clears the last error."""
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 860})
    page.select_option("#speed", "50")
    # 3 x 3, two humans at this keyboard: a on a1 (three orbs), b on b2, a on a1 bursts.
    start_from_form(page, "3x3", ("human", "human"))
    focused = "() => document.activeElement.dataset.cell ?? document.activeElement.id ?? ''"
    page.focus('#board [data-cell="0"]')
    page.keyboard.press("Enter")
    page.wait_for_function(IDLE, arg=0)
    assert page.evaluate(focused) == "0"  # still on a1, not on the page's body
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == "4"
    page.keyboard.press("Enter")
    page.wait_for_function(IDLE, arg=1)
    assert page.evaluate(focused) == "4"
    # Skip between moves, then a move that bursts: its waves are still shown.
    page.click("#skip")
    before = int(board(page, "waves-animated"))
    page.focus('#board [data-cell="0"]')
    page.keyboard.press("Enter")
    page.wait_for_function(IDLE, arg=2)
    assert int(board(page, "waves-animated")) > before
    # b on b2 again ends it: the result's Rematch takes the focus.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_function("() => document.activeElement.id === 'rematch'")
    # Analysis: a number it cannot use is refused in words, and the error goes with the next.
    page.click("#rematch")
    page.wait_for_function("() => document.getElementById('board').dataset.ply === '0'")
    page.click("#view-study")
    for bad in ("0", "2.5", "99999999999"):
        page.fill("#analysis-simulations", bad)
        page.click("#analyse")
        assert "a whole number from 1 to" in page.inner_text("#message")
        assert page.locator("#board .shade").count() == 0
    page.fill("#analysis-simulations", "200")
    page.click("#analyse")
    page.wait_for_selector("#board .shade")
    assert page.inner_text("#message") == ""
    assert "200 simulations" in page.inner_text("#analysis-result")
    assert not problems, problems


def test_a_server_that_stopped_is_said_in_words(browser: Any) -> None:
    """The browser's "Failed to fetch" says nothing to a player: the page says the server did
    not answer."""
    with serving() as url:
        page, problems = open_page(browser, url, viewport={"width": 1280, "height": 860})
    page.click('#board [data-cell="12"]')
    page.wait_for_function(
        "() => document.getElementById('message').textContent.includes('server did not answer')"
    )
    assert all("Failed to load" in p or "ERR_CONNECTION" in p for p in problems), problems


def test_dark_mode_and_colours(browser: Any, server: str, shots: Path) -> None:
    """The theme follows the system, and the toggle overrides it; a colour chosen in the
    picker colours the board, and one too close to another's is refused."""
    page, problems = open_page(
        browser, server, viewport={"width": 1280, "height": 860}, color_scheme="dark"
    )
    page.select_option("#speed", "0")
    dark = "() => getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(dark) == "rgb(18, 22, 29)"  # the system's dark
    page.click("#theme")  # system -> light
    assert page.evaluate(dark) == "rgb(255, 255, 255)"
    page.click("#theme")  # light -> dark
    assert page.evaluate(dark) == "rgb(18, 22, 29)"
    page.reload()  # remembered
    page.wait_for_selector('#board[data-state="ready"], #board[data-state="over"]')
    assert page.evaluate(dark) == "rgb(18, 22, 29)"
    page.select_option("#speed", "0")
    page.click("#new-game-button")
    page.locator("#ng-seats .seat-kind").nth(1).select_option("easy")
    old = board(page, "game")
    page.click("#ng-start")
    page.wait_for_function(f"() => document.getElementById('board').dataset.game !== '{old}'")
    page.click('#board [data-cell="12"]')
    page.wait_for_function(IDLE, arg=0)
    page.click("#settings-panel summary")
    page.locator("#colour-0").fill("#008080")
    page.wait_for_function(
        "() => document.querySelector('#board [data-cell=\"12\"] .orb').getAttribute('fill')"
        " === '#008080'"
    )
    before = page.get_attribute('#board .orb[fill]:not([fill="#008080"])', "fill")
    page.locator("#colour-1").fill("#008585")  # next to a's teal
    page.wait_for_function("() => document.getElementById('colour-message').textContent")
    assert "too close" in page.inner_text("#colour-message")
    assert page.get_attribute('#board .orb[fill]:not([fill="#008080"])', "fill") == before
    page.locator("#colour-1").fill("#fafafa")  # white on the light board
    page.wait_for_function(
        "() => document.getElementById('colour-message').textContent.includes('faint')"
    )
    page.mouse.move(0, 0)
    page.screenshot(path=str(shots / "web-dark.png"))
    page.click("#colours-reset")
    page.click("#theme")  # dark -> system, for the other tests
    # The rules page opens and closes; sound is off until turned on, and remembered.
    page.click("#rules-button")
    assert page.locator("#rules-dialog").is_visible()
    assert "three orbs" in page.inner_text("#rules-dialog")
    page.click("#rules-close")
    assert page.locator("#rules-dialog").is_hidden()
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    page.click("#sound")
    page.click('#board [data-cell="12"]')  # a sound plays (Web Audio), no error
    page.wait_for_function(IDLE, arg=2)
    assert page.evaluate("() => JSON.parse(localStorage['colorwars.settings']).sound") is True
    page.click("#sound")
    assert not problems, problems
