"""The torture suite: notation, records, player names: generated text."""

from __future__ import annotations

import colorwars
import pytest
import torture_core as tc
from colorwars import ai
from hypothesis import given
from hypothesis import strategies as st
from torture_values import (
    digits,
    ints,
    texts,
)

from torture.common import (
    ENGINES,
    FUZZ,
    _after_player,
    _after_record,
    game_pool,
    usable,
)


def base_positions() -> list[str]:
    texts_ = [g.to_text() for g in game_pool(colorwars.Game, seed=2)]
    return [*texts_, "2x2 classic 2 1a1a/1a1b a ab - 6", "3x3 colorwars 2 .../.../... a - - 0"]


TOKENS = [
    *list("0123456789abcdefghxyz/.-+ "),
    "9" * 25,
    "\u00b2",
    "\ud800",
    "7a",
    "8h",
    "99a",
    "  ",
    "\n",
    "\x00",
    "[/x]",
    "33x33",
    "0x0",
    "2x2",
    "drop3+empty",
    "-",
    "ab",
    "abcdefghi",
    "4294967296",
    "18446744073709551616",
]


@st.composite
def mutated_positions(draw: st.DrawFn) -> str:
    text: str = draw(st.sampled_from(base_positions()))
    token = st.one_of(
        st.sampled_from(TOKENS), st.text(st.characters(exclude_categories=()), max_size=3)
    )
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "insert", "delete", "field", "swap"]))
        i = draw(st.integers(0, len(text)))
        if op == "replace":
            text = text[:i] + draw(token) + text[i + 1 :]
        elif op == "insert":
            text = text[:i] + draw(token) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 5)) :]
        else:
            fields = text.split(" ")
            k = draw(st.integers(0, len(fields) - 1))
            if op == "field":
                fields[k] = draw(st.one_of(token, st.integers().map(digits)))
            else:
                j = draw(st.integers(0, len(fields) - 1))
                fields[k], fields[j] = fields[j], fields[k]
            text = " ".join(fields)
    return text


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_position_notation_mutations(engine: str) -> None:
    """Positions one to four edits away from real ones: parsed or refused, never a crash;
    what parses must be a game that plays, undoes and writes itself back."""
    findings = tc.Findings()
    cls = ENGINES[engine]
    name = f"{'reference.' if engine == 'reference' else ''}Game.from_text"

    @FUZZ
    @given(st.lists(mutated_positions(), min_size=1, max_size=20))
    def run(positions: list[str]) -> None:
        for text in positions:
            example = f"{name}({tc.safe_repr(text, 160)})"
            out = tc.probe(findings, name, name, example, cls.from_text, text)
            if out.ok:
                usable(findings, example, out.value)

    run()
    findings.check()


RECORD_KEYS = ("size", "rules", "players", "first", "moves", "result", "final", "note")


@st.composite
def records(draw: st.DrawFn) -> str:
    """Record text: the real keys with awkward values, junk lines, repeated keys, markup."""
    size = st.one_of(
        st.builds(lambda w, h: f"{w}x{h}", st.integers(-1, 40), st.integers(-1, 40)),
        st.builds(lambda w, h: f"{digits(w)}x{digits(h)}", ints(), ints()),
        st.sampled_from(
            ["\u00b2x5", "5x\u0663", "3x3x3", "x", "", "3X3", " 3 x 3 ", "9" * 5000 + "x2"]
        ),
        texts(),
    )
    names = st.builds(lambda c, r: f"{c}{r}", st.sampled_from("abcdz"), st.integers(0, 40))
    moves = st.lists(st.one_of(names, texts()), max_size=30).map(" ".join)
    value = {
        "size": size,
        "rules": st.one_of(st.sampled_from(["classic", "colorwars", "drop3+subtract"]), texts()),
        "players": st.one_of(st.integers(-1, 12).map(str), texts()),
        "first": st.one_of(st.sampled_from("abcdefghi"), texts()),
        "moves": moves,
        "result": st.one_of(st.sampled_from(["a", "b", "-", "z"]), texts()),
        "final": st.one_of(mutated_positions(), texts()),
        "note": st.one_of(st.sampled_from(["[/bold]", "[red]x[/red]", "[plot]"]), texts()),
    }
    keys = draw(st.lists(st.sampled_from(RECORD_KEYS), max_size=10))
    lines = [f"{k}: {draw(value[k])}" for k in ["size", "moves", *keys]]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(texts()))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)


@pytest.mark.slow
def test_game_records_generated() -> None:
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(records(), min_size=1, max_size=6))
    def run(texts_: list[str]) -> None:
        for text in texts_:
            example = f"GameRecord.parse({tc.safe_repr(text, 160)})"
            out = tc.probe(
                findings,
                "GameRecord.parse",
                "GameRecord.parse",
                example,
                colorwars.GameRecord.parse,
                text,
            )
            if out.ok:
                _after_record(findings, example, out.value)

    run()
    findings.check()


@st.composite
def setting_texts(draw: st.DrawFn) -> str:
    """``key=value`` settings after a player's name, the keys near the real ones."""
    keys = ["simulations", "time", "c", "threads", "seed", "greedy", "solver", "reuse",
            "minimax", "cutoff", "depth", "x", ""]  # fmt: skip
    values = st.one_of(
        ints().map(digits),
        st.sampled_from(["0.5", "1e-3", "true", "false", "nan", "inf", "-1", "1e400", ""]),
        texts(),
    )
    items = draw(st.lists(st.tuples(st.sampled_from(keys), values), min_size=1, max_size=4))
    return ":".join(f"{k}={v}" for k, v in items)


@st.composite
def player_names(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["random", "greedy", "mcts", "alphabeta", "ab", "MCTS", "x", ""]))
    arg = draw(st.one_of(st.none(), ints().map(digits), texts(), setting_texts()))
    sep = draw(st.sampled_from([":", "::", " : ", "="]))
    pad = draw(st.sampled_from(["", " ", "\t", "\u00a0"]))
    return pad + kind + ("" if arg is None else sep + arg) + pad


@pytest.mark.slow
def test_player_names_generated() -> None:
    """``ai.parse_player`` on names near the real ones; what it accepts must play."""
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(player_names(), min_size=1, max_size=30))
    def run(names: list[str]) -> None:
        for text in names:
            example = f"ai.parse_player({tc.safe_repr(text)})"
            out = tc.probe(
                findings, "ai.parse_player", "ai.parse_player", example, ai.parse_player, text
            )
            if out.ok:
                _after_player(findings, example, out.value)

    run()
    findings.check()
