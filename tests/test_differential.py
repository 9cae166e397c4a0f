"""The native engine against the reference engine, move by move (RULES.md §3.1: every engine
must give identical boards after every move and every wave)."""

from __future__ import annotations

import random
from typing import Any

import colorwars
import pytest
from colorwars import ColorwarsError, reference
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

RULES = ["colorwars", "classic", "drop3+subtract", "none+empty"]
LETTERS = "abcdefgh"

# The native engine stores a board in 1, 2, 4 or 16 words of 64 bits (up to 64, 128, 256 and
# 1024 cells): these sizes sit on either side of each change of width, with rows that straddle
# word boundaries (9, 13, 17 and 31 wide) and the long sides of RULES.md §1 (32 x 2 to 32 x 32).
WIDE_SIZES = [
    (9, 8),
    (17, 16),
    (32, 32),
    (8, 9),
    (16, 8),
    (13, 10),
    (16, 16),
    (16, 17),
    (32, 2),
    (2, 32),
    (32, 3),
    (31, 9),
]


@st.composite
def configs(draw: st.DrawFn, wide: bool = False) -> tuple[int, int, int, str, int]:
    """Small boards (sides 2 to 9), or with `wide` the sizes above or any other board of more
    than 64 cells (more than one storage word) up to 32 x 32."""
    if not wide:
        width = draw(st.integers(2, 9))
        height = draw(st.integers(2, 9))
    elif draw(st.integers(0, 3)):
        width, height = draw(st.sampled_from(WIDE_SIZES))
    else:
        width = draw(st.integers(3, 32))
        height = draw(st.integers(65 // width + 1, 32))
    players = draw(st.integers(2, min(8, width * height)))
    rules = draw(st.sampled_from(RULES))
    first = draw(st.integers(0, players - 1))
    return width, height, players, rules, first


def degree(cell: int, width: int, height: int) -> int:
    """RULES.md §1: neighbours share an edge; capacity is degree - 1."""
    x, y = cell % width, cell // width
    return (x > 0) + (x < width - 1) + (y > 0) + (y < height - 1)


def loaded_position(cfg: tuple[int, int, int, str, int], seed: int, full: float) -> str:
    """A position in the middle of a game (everyone has moved, nobody is out) with a share
    `full` of the cells at capacity, so that the next moves set off long cascades that cross
    storage words: random play from the empty board takes thousands of moves to get there
    on a big board. Under a drop3 opening some players keep an untouched opening cell of 3,
    the only cell allowed to rest above capacity (RULES.md §2, "The opening cell")."""
    width, height, players, rules, _ = cfg
    rng = random.Random(seed)
    cells = width * height
    counts = [0] * cells
    owners = [-1] * cells
    for c in range(cells):
        capacity = degree(c, width, height) - 1
        counts[c] = capacity if rng.random() < full else rng.randint(0, capacity)
        owners[c] = rng.randrange(players) if counts[c] else -1
    if rules.startswith("drop3"):
        for p in range(players):
            if rng.random() < 0.3:
                c = rng.randrange(cells)
                counts[c], owners[c] = 3, p
    # Every player holds orbs (else RULES.md §3.6 would have put them out).
    for p, c in enumerate(rng.sample(range(cells), players)):
        counts[c], owners[c] = max(counts[c], 1), p
    rows = [
        "".join(
            f"{counts[i]}{LETTERS[owners[i]]}" if counts[i] else "."
            for i in range(y * width, (y + 1) * width)
        )
        for y in range(height)
    ]
    to_move = LETTERS[rng.randrange(players)]
    ply = players + rng.randrange(200)
    return (
        f"{width}x{height} {rules} {players} {'/'.join(rows)} {to_move} {LETTERS[:players]} - {ply}"
    )


@st.composite
def starts(
    draw: st.DrawFn, wide: bool = False
) -> tuple[tuple[int, int, int, str, int], str | None]:
    """A config, and either no position (the empty board) or a loaded one with a share of
    its cells at capacity: one time in three on small boards, three times in four on wide
    ones (where a short run from the empty board never gets as far as a burst)."""
    cfg = draw(configs(wide))
    kinds = ["loaded", "loaded", "loaded", "empty"] if wide else ["empty", "empty", "loaded"]
    if draw(st.sampled_from(kinds)) == "empty":
        return cfg, None
    full = draw(st.sampled_from([0.3, 0.6, 0.8, 0.95]))
    return cfg, loaded_position(cfg, draw(st.integers(0, 2**32 - 1)), full)


class NativeAgainstReference(RuleBasedStateMachine):
    native: Any
    ref: Any

    @initialize(start=starts())
    def start(self, start: tuple[tuple[int, int, int, str, int], str | None]) -> None:
        cfg, position = start
        note(f"config {cfg}")
        if position is None:
            self.native = colorwars.Game(*cfg)
            self.ref = reference.Game(*cfg)
        else:
            note(f"from {position!r}")
            self.native = colorwars.Game.from_text(position)
            self.ref = reference.Game.from_text(position)

    @precondition(lambda self: self.native.winner is None)
    @rule(data=st.data())
    def play_legal(self, data: st.DataObject) -> None:
        moves = self.native.legal_moves()
        cell = data.draw(st.sampled_from(moves), label="move")
        form = data.draw(st.sampled_from(["int", "name", "xy"]), label="form")
        w = self.native.width
        move: Any = {"int": cell, "name": self.native.cell_name(cell), "xy": (cell % w, cell // w)}[
            form
        ]
        assert self.native.play(move) == self.ref.play(move) == cell

    @rule(data=st.data())
    def play_anything(self, data: st.DataObject) -> None:
        """Any cell, legal or not: both engines agree, and a refused move changes nothing."""
        cell = data.draw(st.integers(-3, self.native.width * self.native.height + 5), label="cell")
        before = self.native.to_text()
        outcomes = []
        for g in (self.native, self.ref):
            try:
                g.play(cell)
                outcomes.append("ok")
            except ColorwarsError as e:
                outcomes.append(type(e).__name__)
                assert g.to_text() == before
        assert outcomes[0] == outcomes[1]

    @precondition(lambda self: self.native.ply > 0 and self.native.moves())
    @rule()
    def undo(self) -> None:
        assert self.native.pop() == self.ref.pop()

    @rule()
    def round_trip_text(self) -> None:
        """The position notation reads back identically on both engines (history is not part
        of it, so this replaces both games by their text-built copies only in the check)."""
        text = self.native.to_text()
        assert colorwars.Game.from_text(text).to_text() == text
        assert reference.Game.from_text(text).to_text() == text

    @rule()
    def copy_is_independent(self) -> None:
        c = self.native.copy()
        if c.legal_moves():
            c.play(c.legal_moves()[0])
            assert self.native.to_text() != c.to_text() or c.ply != self.native.ply

    @invariant()
    def same_game(self) -> None:
        n, r = self.native, self.ref
        assert n.to_text() == r.to_text()
        assert n.counts() == r.counts()
        assert n.owners() == r.owners()
        assert n.legal_moves() == r.legal_moves()
        assert n.to_move == r.to_move
        assert n.winner == r.winner
        assert n.out == r.out
        assert n.moved == r.moved
        assert n.ply == r.ply
        assert n.moves() == r.moves()
        assert n.waves() == r.waves()
        assert [n.orbs(p) for p in range(n.players)] == [r.orbs(p) for p in range(r.players)]
        assert str(n) == str(r)


TestNativeAgainstReference = NativeAgainstReference.TestCase
# Long enough runs to finish games on small boards and reach deep cascades on larger ones.
TestNativeAgainstReference.settings = settings(stateful_step_count=150)


class WideNativeAgainstReference(NativeAgainstReference):
    """The same rules and invariants on boards of more than 64 cells, where the native engine
    spreads a board over several words and a cascade crosses from one word to the next."""

    @initialize(start=starts(wide=True))
    def start(self, start: tuple[tuple[int, int, int, str, int], str | None]) -> None:
        NativeAgainstReference.start(self, start)


TestWideNativeAgainstReference = WideNativeAgainstReference.TestCase
# The reference engine is pure Python and a wide board costs it up to 16 times more per move:
# shorter runs than on small boards, where loaded starts reach deep cascades within a few moves.
TestWideNativeAgainstReference.settings = settings(stateful_step_count=60)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(("width", "height"), [(9, 8), (17, 16), (32, 32)])
def test_wide_boards_wave_by_wave(width: int, height: int, rules: str) -> None:
    """Whatever hypothesis draws, every run compares one game on each storage width beyond a
    word, from a loaded position, wave by wave (RULES.md §3.1) until it is decided (§3.3)
    or 60 moves have been played, with bursts in every word of the board."""
    cfg = (width, height, 3, rules, 0)
    position = loaded_position(cfg, seed=width * height, full=0.6)
    native, ref = colorwars.Game.from_text(position), reference.Game.from_text(position)
    rng = random.Random(position)
    words: set[int] = set()
    while native.winner is None and len(native.moves()) < 60:
        assert native.legal_moves() == ref.legal_moves()
        cell = rng.choice(ref.legal_moves())
        assert native.play(cell) == ref.play(cell)
        assert native.waves() == ref.waves()
        assert native.to_text() == ref.to_text()
        assert native.out == ref.out
        assert native.winner == ref.winner
        words.update(cell // 64 for wave in ref.waves() for cell in wave.bursts)
    assert len(words) == (width * height + 63) // 64  # cells burst in every storage word


def assert_same_reading(text: str) -> None:
    """Both engines read `text` as the same position, or both reject it."""
    results = []
    for engine in (colorwars.Game, reference.Game):
        try:
            results.append(engine.from_text(text).to_text())
        except colorwars.InvalidPositionError:
            results.append(None)
    assert results[0] == results[1]


@given(st.text(alphabet="0123456789abcdefghx./- +\t", max_size=60))
def test_notation_fuzz_agrees(text: str) -> None:
    """Arbitrary text: both engines accept it as the same position or both reject it with
    InvalidPositionError; neither crashes."""
    assert_same_reading(text)


@st.composite
def mutated_positions(draw: st.DrawFn) -> str:
    """Real positions with one field or one cell changed: close to valid, so they probe the
    checks for impossible positions rather than the parser."""
    cfg = draw(configs(wide=draw(st.integers(0, 3)) == 3))
    g = reference.Game(*cfg)
    for _ in range(draw(st.integers(0, 40))):
        if g.winner is not None:
            break
        g.play(draw(st.sampled_from(g.legal_moves())))
    fields = g.to_text().split(" ")
    k = draw(st.integers(0, 7))
    if k == 3:
        cells = list(fields[3])
        i = draw(st.integers(0, len(cells) - 1))
        cells[i] = draw(st.sampled_from(list("0123456789.abcdefgh")))
        fields[3] = "".join(cells)
    else:
        fields[k] = draw(
            st.sampled_from(
                [
                    "-",
                    "a",
                    "b",
                    "c",
                    "ab",
                    "abc",
                    "bc",
                    "0",
                    "1",
                    "2",
                    "3",
                    "7",
                    "9",
                    "2x2",
                    "classic",
                    "colorwars",
                    "drop3+subtract",
                ]
            )
        )
    return " ".join(fields)


@given(mutated_positions())
def test_near_valid_positions_agree(text: str) -> None:
    assert_same_reading(text)


@given(st.text(max_size=8), st.integers(2, 30), st.integers(2, 30))
def test_cell_names_agree(name: str, width: int, height: int) -> None:
    """Move names: both engines read the same cell or both raise InvalidMoveError."""
    results = []
    for engine in (colorwars.Game, reference.Game):
        g = engine(width=width, height=height)
        try:
            results.append(g.cell(name))
        except colorwars.InvalidMoveError:
            results.append(None)
    assert results[0] == results[1]
