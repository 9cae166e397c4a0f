"""The Python API: notation, history, copies, presentation and errors, on both engines."""

from __future__ import annotations

import copy
from typing import Any

import colorwars
import pytest
from colorwars import (
    ColorwarsError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPlayersError,
    InvalidPositionError,
    InvalidSizeError,
    reference,
)


def test_issue_example() -> None:
    g = colorwars.Game(width=5, height=5, players=2, rules="colorwars", first=0)
    colorwars.Game(width=8, height=8, rules=colorwars.Rules(opening="drop3", burst="subtract"))
    assert len(g.legal_moves()) == 25
    assert g.play(12) == 12
    assert g.play("a1") == 0
    assert g.play((2, 2)) == 12  # c3 holds 4 > 3: it bursts into c2, b3, d3 and c4
    assert g.counts()[7] == 1
    assert g.owners()[7] == 0
    assert g.counts()[12] == 0
    assert g.to_move == 1
    assert g.winner is None
    assert g.ply == 3
    assert [w.bursts for w in g.waves()] == [(12,)]
    assert g.pop() == 12
    assert g.counts()[12] == 3
    assert g.counts()[7] == 0
    assert g.owners()[7] == -1
    h = g.copy()
    assert h == g
    assert h is not g
    assert colorwars.Game.from_text(g.to_text()) == g
    assert isinstance(g.waves(), list)
    assert "to move" in str(g)
    assert isinstance(colorwars.reference.Game(), reference.Game)


def test_all_errors_are_value_errors() -> None:
    for cls in (
        colorwars.IllegalMoveError,
        colorwars.InvalidMoveError,
        colorwars.InvalidPositionError,
        colorwars.InvalidSizeError,
        colorwars.InvalidPlayersError,
        colorwars.InvalidRulesError,
        colorwars.GameOverError,
        colorwars.InvalidRecordError,
    ):
        assert issubclass(cls, ValueError)
        assert issubclass(cls, ColorwarsError)
    assert issubclass(GameOverError, IllegalMoveError)


def test_repr_pastes_back(engine: Any) -> None:
    g = engine(width=4, height=3, players=3, rules="classic", first=1)
    for m in ["a1", "b2", "c3", "a1"]:
        g.play(m)
    text = repr(g)
    assert g.to_text() in text
    rebuilt = eval(text, {"Game": colorwars.Game, "colorwars": colorwars})
    assert rebuilt.to_text() == g.to_text()


def test_str_is_an_ascii_grid(engine: Any) -> None:
    g = engine(width=3, height=2, rules="classic")
    g.play("b2")
    assert str(g) == "   a  b  c\n1  .  .  .\n2  . 1a  .\nply 1: player b to move"


def test_pop_restores_exactly_and_empty_pop_raises(engine: Any) -> None:
    g = engine(width=4, height=4, rules="classic")
    texts = [g.to_text()]
    waves = [g.waves()]
    for m in [0, 15, 0, 15, 0, 15, 1, 14]:
        g.play(m)
        texts.append(g.to_text())
        waves.append(g.waves())
    for _ in range(8):
        texts.pop()
        waves.pop()
        g.pop()
        assert g.to_text() == texts[-1]
        assert g.waves() == waves[-1]  # the previous move's cascade comes back too
    with pytest.raises(IndexError):
        g.pop()
    assert g.peek() is None


def test_copy_is_deep(engine: Any) -> None:
    g = engine(width=3, height=3)
    g.play(0)
    for c in (g.copy(), copy.copy(g), copy.deepcopy(g)):
        c.play(8)
        assert g.ply == 1
        assert c.ply == 2
        assert g.moves() == [0]


@pytest.mark.parametrize(
    ("move", "error"),
    [
        (25, InvalidMoveError),
        (-1, InvalidMoveError),
        (2**70, InvalidMoveError),
        ("z9", InvalidMoveError),
        ("c 3", InvalidMoveError),
        ("", InvalidMoveError),
        ((5, 0), InvalidMoveError),
        ((0, -1), InvalidMoveError),
        ((1, 2, 3), InvalidMoveError),
        (1.5, InvalidMoveError),
        (None, InvalidMoveError),
        (True, InvalidMoveError),
        ("e5", IllegalMoveError),
    ],
)
def test_bad_moves_raise_and_change_nothing(engine: Any, move: Any, error: type) -> None:
    g = engine(width=5, height=5)
    g.play("a1")
    g.play("e5")
    before = g.to_text()
    with pytest.raises(error) as info:
        g.play(move)
    assert str(info.value)  # a message that says something
    assert g.to_text() == before
    assert g.moves() == [0, 24]
    assert not g.is_legal(move)


def test_error_messages_say_what_is_allowed(engine: Any) -> None:
    g = engine(width=5, height=5)
    with pytest.raises(InvalidMoveError, match=r"column a to e, row 1 to 5|a to e"):
        g.play("f1")
    with pytest.raises(InvalidMoveError, match="0 to 24"):
        g.play(30)
    with pytest.raises(InvalidSizeError, match="2 to 32"):
        engine(width=0, height=5)
    with pytest.raises(InvalidSizeError):
        engine(width="5", height=5)
    with pytest.raises(InvalidSizeError):
        engine(width=2**80, height=5)
    with pytest.raises(InvalidPlayersError):
        engine(players=2.0)
    with pytest.raises(InvalidPlayersError):
        g.orbs(2)


def test_moves_after_the_game_is_over(engine: Any) -> None:
    g = engine.from_text("2x2 classic 2 1a1a/1a1b a ab - 6")
    g.play("a1")
    assert g.is_over
    assert g.winner == 0
    assert g.to_move == 0
    with pytest.raises(GameOverError, match="over"):
        g.play("a1")
    assert g.legal_moves() == []


def test_notation_example_from_the_readme(engine: Any) -> None:
    g = engine(width=5, height=5)
    g.play("b2")
    g.play("d4")
    assert g.to_text() == "5x5 colorwars 2 ...../.3a.../...../...3b./..... a ab - 2"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello",
        "5x5 colorwars 2 ...../...../...../...../..... a - - 0 extra",
        "1x5 colorwars 2 ./././././. a - - 0",
        "33x2 colorwars 2 " + "/".join(["." * 33] * 2) + " a - - 0",
        "2x2 colorwars 5 ../.. a - - 0",
        "2x2 colorwars 2 ../.. c - - 0",
        "2x2 colorwars 2 ../.. a - - -1",
        "2x2 colorwars 2 ../..  a - -",
        "2x2 colorwars 2 0a./.. a - - 0",  # an owner with no orbs
        "2x2 colorwars 2 8a./.. b a - 1",  # more than any cell can hold
        "2x2 colorwars 2 3b./.. b a - 1",  # an unmoved player holds orbs
        "2x2 colorwars 2 3a./.. a a - 1",  # the mover has moved twice in round one
        "2x2 colorwars 2 1a./.. b a - 1",  # drop3 opening must be 3 orbs
        "2x2 classic 2 3a./.. b a - 1",  # classic opening is one orb
        "3x3 classic 2 1a../.2b./... a ab - 3",  # 2 on a centre is fine, but ply fits? yes
        "2x2 classic 2 2a./.1b a ab - 4",  # a corner of capacity 1 at rest with 2
        "2x2 classic 2 1a../.1b a ab - 4",  # a row too long
        "2x2 classic 2 1a./1b. a ab b 4",  # b is out but holds orbs
        "2x2 classic 2 1a./.. a ab - 4",  # b has moved, holds nothing, and is not out
        "2x2 classic 2 1a./.. b ab b 4",  # b is out but to move
        "2x2 classic 2 1a./.. b ab - 4",  # the winner a must be to move
    ],
)
def test_invalid_positions(engine: Any, text: str) -> None:
    if text == "3x3 classic 2 1a../.2b./... a ab - 3":
        engine.from_text(text)  # a control: this one is possible
        return
    with pytest.raises(InvalidPositionError) as info:
        engine.from_text(text)
    assert str(info.value).startswith("invalid position:")


def test_large_board_round_trip(engine: Any) -> None:
    """Boards up to 32x32 (several storage widths natively) behave and round-trip."""
    for width, height in [(8, 8), (9, 8), (16, 8), (16, 16), (17, 16), (32, 32)]:
        g = engine(width=width, height=height, players=4, rules="classic")
        for k in range(40):
            g.play(g.legal_moves()[(k * 7) % len(g.legal_moves())])
        assert engine.from_text(g.to_text()).to_text() == g.to_text()
        assert g.cell_name(width * height - 1) == g.cell_name((width - 1, height - 1))


def test_svg_picture(engine: Any) -> None:
    """Notebooks show the board as SVG: valid XML, one dot per orb (a number above four)."""
    import xml.etree.ElementTree as ET

    g = engine.from_text("3x3 classic 2 1a2b./.3a./..1b a ab - 7")
    root = ET.fromstring(g._repr_svg_())
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(circles) == sum(g.counts())
    won = colorwars.Game.from_text("2x2 classic 2 1a1a/1a1b a ab - 6")
    won.play("a1")
    assert "<svg" in won._repr_svg_()
