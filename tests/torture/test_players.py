"""The torture suite: players: choose with things that are not games; matches and tournaments with
odd seats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import colorwars
import torture_core as tc
from colorwars import ai, reference
from hypothesis import given
from hypothesis import strategies as st
from torture_values import (
    NotAGame,
    bad_values,
)

from torture.common import (
    CATALOGUE,
    FUZZ,
    game_pool,
)


def test_choose_with_non_games() -> None:
    findings = tc.Findings()
    players = [ai.Random(), ai.Greedy(), ai.MCTS(simulations=20), ai.AlphaBeta(depth=2)]
    won = game_pool(colorwars.Game)[-2]
    others: list[object] = [NotAGame(), won, won.copy(), reference.Game(3, 3), "3x3"]
    for player in players:
        for value in [*CATALOGUE, *others]:
            where = f"ai.{type(player).__name__}.choose"
            example = f"{where}({tc.safe_repr(value)})"
            state = tc.game_state(value) if hasattr(value, "legal_moves") else None
            tc.probe(findings, "player.choose", where, example, player.choose, value)
            if state is not None and tc.game_state(value) != state:
                findings.add(where, "choose changed the game", example)
    findings.check()


SEAT_ITEMS: list[object] = [
    ai.Random(),
    ai.Greedy(seed=2),
    "random",
    "greedy",
    "bogus",
    None,
    3,
    "\ud800",
    "[/x]",
    NotAGame(),
    ai.Random,
    colorwars.Game(3, 3),
    b"random",
    "mcts:5",
    "alphabeta:1",
]


def seat_lists() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(st.sampled_from(SEAT_ITEMS), max_size=9),
        st.lists(st.sampled_from(SEAT_ITEMS), min_size=2, max_size=3).map(tuple),
        bad_values(),
    )


def test_match_and_tournament_seats() -> None:
    """Seats given as player objects, names or junk; names work or are refused cleanly."""
    findings = tc.Findings()

    @FUZZ
    @given(st.lists(seat_lists(), min_size=1, max_size=8))
    def run(seat_values: list[Any]) -> None:
        for seats in seat_values:
            shown = tc.safe_repr(seats)
            tc.probe(
                findings,
                "ai.match",
                "ai.match(seats=...)",
                f"ai.match({shown}, 2)",
                ai.match,
                seats,
                2,
                3,
                3,
                threads=1,
            )
            tc.probe(
                findings,
                "ai.tournament",
                "ai.tournament(players=...)",
                f"ai.tournament({shown}, 2)",
                ai.tournament,
                seats,
                2,
                3,
                3,
                threads=1,
            )

    run()
    findings.check()


def test_names_work_wherever_players_do() -> None:
    """``ai.match([ai.Random(), 'random'], 10)`` and ``ai.tournament(['random', 'greedy'],
    10)`` play or are refused with one of our errors (issue 8)."""
    findings = tc.Findings()
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("ai.match([ai.Random(), 'random'], 10)", lambda: ai.match([ai.Random(), "random"], 10)),
        ("ai.match(['random', 'greedy'], 10)", lambda: ai.match(["random", "greedy"], 10)),
        (
            "ai.tournament(['random', 'greedy'], 10)",
            lambda: ai.tournament(["random", "greedy"], 10),
        ),
        (
            "ai.opening_win_rates('random', 'greedy', 1, 2, 2)",
            lambda: ai.opening_win_rates("random", "greedy", 1, 2, 2),
        ),  # type: ignore[arg-type]
        ("ai.match('random', 10)", lambda: ai.match("random", 10)),  # type: ignore[arg-type]
    ]
    for example, call in calls:
        tc.probe(findings, "ai.match", example, example, call)
    findings.check()
