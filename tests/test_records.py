"""Golden game records (seeds/games/) replayed by both engines, and the record format."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import colorwars
import pytest
from colorwars import GameRecord, InvalidRecordError, reference

GAMES = sorted((Path(__file__).parent.parent / "seeds" / "games").glob("*.cwr"))


def test_the_corpus_covers_the_game() -> None:
    records = [GameRecord.parse(p.read_text()) for p in GAMES]
    assert len(records) >= 30
    assert {r.rules.name for r in records} >= {
        "colorwars",
        "classic",
        "drop3+subtract",
        "none+empty",
    }
    assert len({(r.width, r.height) for r in records}) >= 8
    assert {r.players for r in records} >= {2, 3, 4, 8}
    assert all(r.result is not None and r.final is not None for r in records)
    assert sum("never settle" in (r.note or "") for r in records) >= 5


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_golden_record_replays_on_both_engines(path: Path) -> None:
    record = GameRecord.parse(path.read_text())
    native = record.new_game(colorwars.Game)
    ref = record.new_game(reference.Game)
    for move in record.moves:
        assert native.play(move) == ref.play(move)
        assert native.to_text() == ref.to_text()
        assert native.waves() == ref.waves()
    record.check(native)
    record.check(ref)
    assert record.replay().to_text() == record.final


@pytest.mark.parametrize("path", [p for p in GAMES if "never-settles" in p.name])
def test_never_settling_records_really_could_not_settle(path: Path) -> None:
    """RULES.md §3.3: under subtract orbs are conserved in a cascade, so a final board with
    more orbs than its capacity had no stable position: the cascade stopped because the game
    was decided, right after the wave that took the last opposing cell."""
    record = GameRecord.parse(path.read_text())
    game = record.replay()
    capacity = sum(len(_neighbours(c, game.width, game.height)) - 1 for c in range(game.cells))
    assert record.rules.burst == "subtract"
    assert sum(game.counts()) > capacity
    assert game.winner is not None
    assert any(
        n > len(_neighbours(c, game.width, game.height)) - 1 for c, n in enumerate(game.counts())
    )


def _neighbours(c: int, w: int, h: int) -> list[tuple[int, int]]:
    x, y = c % w, c // w
    return [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= x + dx < w and 0 <= y + dy < h]  # fmt: skip


def test_record_round_trip_and_checks() -> None:
    text = "size: 3x3\nrules: classic\nmoves: a1 c3 a1\n"
    record = GameRecord.parse(text)
    assert (record.players, record.first, record.result) == (2, 0, None)
    full = record.completed()
    assert GameRecord.parse(full.to_text()) == full
    assert full.result == "-"
    wrong = GameRecord.parse(full.to_text().replace("result: -", "result: a"))
    with pytest.raises(InvalidRecordError, match="result"):
        wrong.replay()
    stale = replace(full, final=colorwars.Game(3, 3, rules="classic").to_text())
    with pytest.raises(InvalidRecordError, match="final"):
        stale.replay()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("moves: a1", "size"),
        ("size: 3x3", "moves"),
        ("size: 3by3\nmoves:", "size"),
        ("size: 3x3\nmoves: a1\ncolour: red", "key"),
        ("size: 3x3\nsize: 3x3\nmoves:", "twice"),
        ("size: 3x3\nrules: chess\nmoves:", "rule"),
        ("size: 3x3\nfirst: z\nmoves:", "first"),
        ("size: 3x3\nplayers: two\nmoves:", "players"),
        ("size: 40x3\nmoves:", "size"),
        ("size: 3x3\nfirst: c\nmoves:", "first c, but a game of 2 players has the players a to b"),
        ("size: 2x2\nplayers: 5\nmoves:", "at most the number of cells"),
        ("size: 3x3\nmoves: a1 a1", "move 2"),
        ("size: 3x3\nmoves: a1 q9", "move 2"),
    ],
)
def test_bad_records(text: str, match: str) -> None:
    with pytest.raises(InvalidRecordError, match=match):
        GameRecord.parse(text).replay()


def test_a_record_whose_setup_is_no_game_is_refused_as_it_is_read() -> None:
    """Before anything (a replay's header) reads it as a game."""
    with pytest.raises(InvalidRecordError, match="first c"):
        GameRecord.parse("size: 3x3\nfirst: c\nmoves:")
