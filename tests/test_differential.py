"""The native engine against the reference engine, move by move (RULES.md §3.1: every engine
must give identical boards after every move and every wave)."""

from __future__ import annotations

from typing import Any

import colorwars
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


@st.composite
def configs(draw: st.DrawFn) -> tuple[int, int, int, str, int]:
    width = draw(st.integers(2, 9))
    height = draw(st.integers(2, 9))
    players = draw(st.integers(2, min(8, width * height)))
    rules = draw(st.sampled_from(RULES))
    first = draw(st.integers(0, players - 1))
    return width, height, players, rules, first


class NativeAgainstReference(RuleBasedStateMachine):
    native: Any
    ref: Any

    @initialize(cfg=configs())
    def start(self, cfg: tuple[int, int, int, str, int]) -> None:
        note(f"config {cfg}")
        self.native = colorwars.Game(*cfg)
        self.ref = reference.Game(*cfg)

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

    @rule(cell=st.integers(-3, 90))
    def play_anything(self, cell: int) -> None:
        """Any cell, legal or not: both engines agree, and a refused move changes nothing."""
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
    cfg = draw(configs())
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
