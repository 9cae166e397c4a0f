"""``seeds/solved.json``, the table of solved boards (issue 19, section 5): well formed, in
the docs, and every entry that takes less than a minute proven again here by its method."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import colorwars
import pytest

SOLVED = Path(__file__).resolve().parent.parent / "seeds" / "solved.json"


def entries() -> list[dict[str, Any]]:
    data = json.loads(SOLVED.read_text(encoding="utf-8"))
    assert (data["format"], data["version"]) == ("colorwars solved", 1)
    boards: list[dict[str, Any]] = data["boards"]
    return boards


def test_every_entry_is_well_formed_and_once() -> None:
    seen = set()
    for e in entries():
        required = {"board", "rules", "winner", "plies", "positions", "method", "seconds",
                    "command"}  # fmt: skip
        # A note, where a board took more than one run, says how it was proven.
        assert required <= set(e) <= required | {"note"}
        assert isinstance(e.get("note", ""), str)
        w, _, h = e["board"].partition("x")
        assert 2 <= int(w) <= 32
        assert 2 <= int(h) <= 32
        assert e["rules"] in ("colorwars", "classic")
        assert e["winner"] in ("a", "b")
        assert e["method"] in ("alphabeta", "pn", "length")
        # The alpha-beta solver and the length search find the length; proof-number search
        # the winner alone.
        assert (e["plies"] is None) == (e["method"] == "pn")
        assert e["positions"] > 0
        assert e["seconds"] >= 0
        # One command, or a shell loop of them (a board proven group by group): the loop goes
        # over one first move of every group of symmetric first moves.
        command = e["command"]
        if command.startswith("for "):
            head, command = command.split("; do ", 1)
            game = colorwars.Game(int(w), int(h), rules=e["rules"])
            groups = colorwars._core.symmetric_moves(game._native)
            cells = [game.cell(m) for m in head.split(" in ", 1)[1].split()]
            assert sorted(next(i for i, g in enumerate(groups) if c in g) for c in cells) == list(
                range(len(groups))
            ), e["command"]
        assert command.split()[0] in ("colorwars", "cargo")
        assert (e["board"], e["rules"], e["method"]) not in seen
        seen.add((e["board"], e["rules"], e["method"]))
    # What the README and the docs claim is in the table.
    assert {
        ("5x5", "colorwars", "pn"),
        ("5x5", "colorwars", "length"),
        ("4x4", "classic", "pn"),
        ("5x6", "colorwars", "pn"),
        ("6x6", "colorwars", "pn"),
    } <= seen
    # Where two methods settle a board, they agree.
    winners: dict[tuple[str, str], str] = {}
    lengths: dict[tuple[str, str], int] = {}
    for e in entries():
        key = (e["board"], e["rules"])
        assert winners.setdefault(key, e["winner"]) == e["winner"], key
        if e["plies"] is not None:
            assert lengths.setdefault(key, e["plies"]) == e["plies"], key


QUICK = [e for e in entries() if e["seconds"] < 60]


@pytest.mark.slow
@pytest.mark.parametrize(
    "entry", QUICK, ids=[f"{e['board']}-{e['rules']}-{e['method']}" for e in QUICK]
)
def test_every_quick_entry_is_proven_again(entry: dict[str, Any]) -> None:
    w, _, h = entry["board"].partition("x")
    width, height = int(w), int(h)
    if entry["method"] == "alphabeta":
        s = colorwars.solve(width, height, rules=entry["rules"], cache=False)
        assert ("ab"[s.winner], s.plies) == (entry["winner"], entry["plies"])
    elif entry["method"] == "length":
        n = colorwars.exact_length(width, height, rules=entry["rules"])
        assert ("ab"[n.winner], n.plies) == (entry["winner"], entry["plies"])
    else:
        p = colorwars.prove(width, height, rules=entry["rules"])
        assert p.complete
        assert p.winner is not None
        assert "ab"[p.winner] == entry["winner"]
