"""``colorwars.ai.Perfect`` and the books it plays from (issue 19, section 4): perfect play
where the game is proven, instant from the first move on the solved boards the package has a
book for, a clear error for a damaged book."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import colorwars
import pytest
from colorwars import _core, ai
from colorwars.errors import FileError, InvalidPlayerError
from colorwars.perfect import (
    Perfect,
    _symmetries,
    book_for,
    books,
    position_key,
    read_book,
    walk_book,
)
from colorwars.players import native_game, parse_player
from stopping import search_stopped

# What the books must cover: every colorwars board up to 5x5 (the second player wins each)
# and the classic boards up to 3x4 (the first player wins), docs/solver.md.
SOLVED = [
    (3, 3, "colorwars", 1), (3, 4, "colorwars", 1), (4, 3, "colorwars", 1),
    (4, 4, "colorwars", 1), (4, 5, "colorwars", 1), (5, 4, "colorwars", 1),
    (5, 5, "colorwars", 1), (3, 3, "classic", 0), (3, 4, "classic", 0), (4, 3, "classic", 0),
]  # fmt: skip


def test_the_package_has_a_book_for_every_board_proven_in_seconds() -> None:
    assert {(w, h, r) for w, h, r, _ in SOLVED} <= set(books())
    for w, h, rules, winner in SOLVED:
        book = book_for(w, h, rules)
        assert book is not None
        assert (book.width, book.height, book.rules, book.winner) == (w, h, rules, winner)
        assert book.complete


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height", "rules", "winner"), SOLVED)
def test_every_book_wins_every_game_of_its_strategy(
    width: int, height: int, rules: str, winner: int
) -> None:
    # The loser plays every legal move, the winner the book's, to the end of every game.
    book = book_for(width, height, rules)
    assert book is not None
    assert walk_book(book) >= len(book.moves)


def test_the_key_is_the_same_for_every_symmetric_image_and_moves_map_back() -> None:
    g = colorwars.Game(5, 5)
    for move in ("b1", "c3", "b1"):
        g.play(move)
    key, image = position_key(g._native)
    text = g.to_text()
    for perm in _symmetries(5, 5):
        rows = text.split()[3].split("/")
        cells = [tok for row in rows for tok in _tokens(row)]
        mirrored = ["."] * 25
        for cell, to in enumerate(perm):
            mirrored[to] = cells[cell]
        board = "/".join("".join(mirrored[r * 5 : r * 5 + 5]) for r in range(5))
        fields = text.split()
        fields[3] = board
        other = _core.NativeGame.from_text(" ".join(fields))
        assert position_key(other)[0] == key
    # A rectangle has four symmetries, a square eight.
    assert len(_symmetries(4, 5)) == 4
    assert len(_symmetries(5, 5)) == 8
    assert image in _symmetries(5, 5)


def _tokens(row: str) -> list[str]:
    out, i = [], 0
    while i < len(row):
        if row[i] == ".":
            out.append(".")
            i += 1
        else:
            j = i
            while row[j].isdigit():
                j += 1
            out.append(row[i : j + 1])
            i = j + 1
    return out


OPPONENTS = {
    "random": lambda seed: ai.Random(seed=seed),
    "greedy": lambda seed: ai.Greedy(seed=seed),
    "mcts": lambda seed: ai.MCTS(time=0.02, seed=seed),
    "alphabeta": lambda seed: ai.AlphaBeta(time=0.02, seed=seed),
}


@pytest.mark.parametrize("opponent", sorted(OPPONENTS))
def test_perfect_as_the_second_player_on_5x5_colorwars_never_loses(opponent: str) -> None:
    # The full count (200 games each, every opponent at 0.1 s a move) is benchmarks/perfect.py.
    perfect = Perfect(time=0.1)
    for seed in range(6):
        other = OPPONENTS[opponent](seed)
        g = colorwars.Game(5, 5)
        while g.winner is None:
            if g.to_move == 0:
                g.play(other.choose(g))
            else:
                d = perfect.search(g)
                assert d.kind == "win"
                assert d.book  # instant: every move from the book, no search
                assert d.work == 0
                g.play(d.cell)
        assert g.winner == 1


def test_perfect_holds_out_longest_when_lost_and_wins_fastest() -> None:
    # 3x3 colorwars is lost for the first player (RULES.md, docs/solver.md): Perfect as a
    # plays the move that lasts longest; every move's exact length is the solver's.
    g = colorwars.Game(3, 3)
    d = Perfect(time=2).search(g)
    assert d.kind == "hold"
    exact = colorwars.solve(g).moves
    assert d.plies == max(p for _, p in exact.values()) == exact[d.cell][1]
    # 2x3 classic is won for a, the mover; without a book the search proves it and the
    # exact solver picks the fastest win.
    g = colorwars.Game(2, 3, rules="classic")
    d = Perfect(time=2, book=False).search(g)
    assert d.kind == "win"
    assert not d.book
    solution = colorwars.solve(g)
    assert solution.winning_moves()[0] == d.cell or solution.moves[d.cell] == (0, d.plies)
    assert d.plies == min(p for w, p in solution.moves.values() if w == 0)


def test_perfect_falls_back_where_nothing_is_proven() -> None:
    g = colorwars.Game(8, 8, rules="classic")
    d = Perfect(time=0.05).search(g)
    assert d.kind == "fallback"
    assert d.cell in g.legal_moves()
    three = colorwars.Game(4, 4, players=3)
    d = Perfect(time=0.05).search(three)
    assert d.kind == "fallback"
    assert d.cell in three.legal_moves()
    d = Perfect(time=0.05, fallback="greedy").search(g)
    assert d.cell in g.legal_moves()
    assert Perfect(fallback="greedy").name == "perfect(1s)[fallback=greedy]"


@pytest.mark.parametrize("fallback", ["strongest", "mcts:time=600", "greedy"])
def test_stop_ends_perfects_search_with_the_fallbacks_move(fallback: str) -> None:
    """``stop`` (the engine's command; here a ``threading.Event``) ends the proof search,
    which alone would take 420 s of the 600 on 8 x 8 classic, and the fallback's search when
    it takes ``stop``: nothing is proven by then, so the move is the fallback's."""
    g = colorwars.Game(8, 8, rules="classic")
    player = Perfect(time=600, fallback=fallback)
    d = search_stopped(player.search, g, 0.3, 120, "Perfect's search")
    assert d.kind == "fallback"
    assert d.work > 0  # the proof search ran until the stop
    assert d.cell in g.legal_moves()
    # Set before the search: no proof search at all, the fallback stopped at once.
    stop = threading.Event()
    stop.set()
    d = Perfect(time=600, fallback=fallback).search(g, stop=stop)
    assert (d.kind, d.work) == ("fallback", 0)
    assert d.cell in g.legal_moves()


def test_prove_takes_stop_as_a_deadline_and_keeps_a_finished_proof() -> None:
    """``_core.prove(..., stop=...)``: set before, the search stops at its first look (no
    winner, ``stopped``); set only after a proof finished, the proof stands; never set, the
    search is as without it."""
    stop = threading.Event()
    table = _core.ProofTable(64 << 20)
    winner, line, _, _, _, stopped = _core.prove(
        native_game(colorwars.Game(3, 3)), table, stop=stop
    )
    assert (winner, stopped) == (1, False)
    assert line
    stop.set()
    big = native_game(colorwars.Game(8, 8, rules="classic"))
    winner, line, work, _, _, stopped = _core.prove(big, table, stop=stop)
    assert (winner, line, stopped) == (None, [], True)
    assert work < 1_000_000
    # 3 x 3 is proven already: the table answers before the stop is looked at.
    assert _core.prove(native_game(colorwars.Game(3, 3)), table, stop=stop)[0] == 1


def test_perfect_is_a_player_everywhere() -> None:
    assert parse_player("perfect").name == "perfect(1s)"
    assert parse_player("perfect:time=0.1").name == "perfect(0.1s)"
    with pytest.raises(InvalidPlayerError, match="perfect settings"):
        parse_player("perfect:depth=3")
    with pytest.raises(InvalidPlayerError, match="time"):
        Perfect(time=-1)
    for bad in (2.5e7, 1000, "12X", "0.5M", True):
        with pytest.raises(InvalidPlayerError, match="memory"):
            Perfect(memory=bad)  # type: ignore[arg-type]
    # Sizes as text, as `prove`'s and the command line's `memory` take them.
    assert Perfect(memory="64M").memory == 64 << 20
    assert Perfect(memory=" 1g ").memory == 1 << 30
    # A size below the least, as text, said "expected ... an int", which it was.
    with pytest.raises(InvalidPlayerError, match="in bytes from 1 MiB to 1 TiB, an int or a"):
        ai.parse_player("perfect:memory=1000000")
    with pytest.raises(InvalidPlayerError, match="not one of the engine's batch players"):
        Perfect().native_spec()
    result = ai.match(["random", Perfect(time=0.05)], 4, 4, 4)
    assert result["winners"].tolist() == [1, 1, 1, 1]
    lad = ai.ladder(["perfect", "greedy"], 2, 3, 3, rules="colorwars", time=0.05)
    assert lad.wins[0, 1] >= 1  # it wins as the second player at least


def test_perfect_keeps_tables_for_its_last_boards_and_pickles_without_them() -> None:
    import pickle

    from colorwars import perfect as perfect_module

    player = Perfect(time=0.02, fallback="greedy", seed=3, memory=1 << 20, book=False)
    # Its repr gives every setting that is not the default (it left out memory and book).
    assert repr(player) == (
        "Perfect(time=0.02, fallback=Greedy(seed=0), seed=3, memory=1048576, book=False)"
    )
    assert repr(Perfect()) == "Perfect(time=1, seed=0)"
    sizes = [(3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3)]
    for w, h in sizes:
        player.search(colorwars.Game(w, h, rules="classic"))
    # One table per board, the BOARDS most recent kept: a player taken over many boards
    # does not hold a table for each.
    assert list(player._tables) == [f"{w}x{h} classic" for w, h in sizes[-perfect_module.BOARDS :]]
    # Sent to another process (a Ray worker, a process pool): the settings go, the tables
    # and the lock are rebuilt.
    again = pickle.loads(pickle.dumps(player))
    assert (again.time, again.seed, again.memory, again.book) == (0.02, 3, 1 << 20, False)
    assert again.name == player.name == "perfect(0.02s)[fallback=greedy]"
    assert again._tables == {}
    g = colorwars.Game(3, 3)
    assert again.search(g).cell in g.legal_moves()
    assert pickle.loads(pickle.dumps(Perfect())).fallback is None  # "strongest" stays so


def test_a_damaged_book_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    book = book_for(5, 5, "colorwars")
    assert book is not None
    data = bytearray(Path(book.path).read_bytes())
    damaged = tmp_path / "5x5-colorwars.book"
    data[-3] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(FileError, match=re.escape(f"invalid book {damaged}")):
        read_book(damaged)
    with pytest.raises(FileError, match="no such file"):
        read_book(tmp_path / "missing.book")
    (tmp_path / "short.book").write_bytes(b"colorwars book 1\n{")
    with pytest.raises(FileError, match=r"short\.book"):
        read_book(tmp_path / "short.book")


def test_perfect_tables_use_small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    # A huge page's first touch zeroes (and often compacts) 2 MiB: a new 256 MiB table's
    # first proof took 0.2 to 0.5 s, most of a short move, so Perfect asks for small pages.
    made: list[tuple[int, object]] = []
    real = _core.ProofTable

    def spy(memory: int, huge_pages: bool | None = None) -> _core.ProofTable:
        made.append((memory, huge_pages))
        return real(memory, huge_pages=huge_pages)

    monkeypatch.setattr(_core, "ProofTable", spy)
    Perfect(time=0.05, book=False, memory="32M").search(colorwars.Game(3, 3))
    assert made == [(32 << 20, False)]


@pytest.mark.parametrize("huge", [None, False, True])
def test_a_proof_table_proves_the_same_with_any_pages(huge: bool | None) -> None:
    table = _core.ProofTable(130 << 20, huge_pages=huge)
    winner, line, work, _, _, _ = _core.prove(native_game(colorwars.Game(3, 4)), table)
    assert winner == 1
    assert line
    assert work > 0


def test_the_exact_solver_sizes_its_table_to_the_move(monkeypatch: pytest.MonkeyPatch) -> None:
    # The solver's own table (2^25 entries from 13 cells) is faulted in as a short search runs
    # and given back at its end: three times slower on 4 x 5, and the move ran 0.1 s over.
    from colorwars import perfect

    assert perfect._exact_table_bits(0.01) == 18
    assert perfect._exact_table_bits(1.0) == 20
    assert perfect._exact_table_bits(1e6) == 24
    asked: list[object] = []
    real = _core.solve_position

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("table_bits"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_core, "solve_position", spy)
    g = colorwars.Game(3, 4)
    g.play("b2")
    assert Perfect(time=1.0, book=False).search(g).kind == "win"
    assert asked
    assert all(isinstance(b, int) and 18 <= b <= 24 for b in asked)


@pytest.mark.parametrize("bits", [None, 10, 18, 26])
def test_the_exact_solver_answers_the_same_with_any_table(bits: int | None) -> None:
    g = colorwars.Game(4, 4)
    g.play("b2")
    g.play("c3")
    found = _core.solve_position(native_game(g), 200, table_bits=bits)
    assert found is not None
    assert (found[0], found[1], sorted(found[5])) == _FOUR_BY_FOUR_AFTER_B2_C3


def _solved_once() -> tuple[int, int, list[tuple[int, int, int]]]:
    g = colorwars.Game(4, 4)
    g.play("b2")
    g.play("c3")
    found = _core.solve_position(native_game(g), 200)
    assert found is not None
    return found[0], found[1], sorted(found[5])


_FOUR_BY_FOUR_AFTER_B2_C3 = _solved_once()


def test_a_short_win_asks_the_exact_solver_for_the_root_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The exact solver solved every legal move to pick the fastest win: here 762,105
    # positions for a win in 3 plies (and more than 10 s on other 8 x 8 positions); the
    # root's own exact result names the fastest win (or longest hold) in its line.
    position = (
        "8x8 classic 2 1b1b2b1a.1a2a1b/1b3b3b2b3a1a3a./.2b1b3b3b3a2a2b/2b2b3b2b3b2a2a1a/"
        "2b3b1b2b3b3a2a1b/2b1b2b2b.1b1b2b/2b3b3b3b3b3a.2b/1b.1b2b1b.1b. b ab - 111"
    )
    asked: list[object] = []
    real = _core.solve_position

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("moves", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(_core, "solve_position", spy)
    game = colorwars.Game.from_text(position)
    decision = Perfect(time=30.0, book=False).search(game)
    assert (decision.kind, decision.plies) == ("win", 3)
    assert asked == [False]
    game.play(decision.cell)  # and it is a win in 3: the opponent loses in 2 more plies
    after = real(_core.NativeGame.from_text(game.to_text()), 2, moves=False)
    assert after is not None
    assert (after[0], after[1]) == (1, 2)


def test_a_fallback_of_ones_own_is_stopped_with_the_move() -> None:
    # A fallback with a budget of its own (AlphaBeta(time=3) under Perfect(time=0.3)) ran
    # its three seconds; one whose search takes `stop` now gets one set when the move's time
    # is up. This one would wait a minute for it.
    import time

    class Patient:
        name = "patient"
        told = False

        def search(self, game: Any, stop: Any = None) -> Any:
            end = time.monotonic() + 60
            while not stop.is_set() and time.monotonic() < end:
                time.sleep(0.005)
            self.told = bool(stop.is_set())
            return colorwars.ai.Greedy().search(game)

        def choose(self, game: Any) -> int:
            return int(self.search(game).cell)

    patient = Patient()
    decision = Perfect(time=0.2, fallback=patient, book=False).search(
        colorwars.Game(8, 8, rules="classic")
    )
    assert decision.kind == "fallback"
    assert patient.told
