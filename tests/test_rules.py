"""Every rule of seeds/RULES.md, pinned on both engines. Each test cites the rule it checks."""

from __future__ import annotations

import itertools
import random
from typing import Any

import colorwars
import pytest
from colorwars import GameOverError, IllegalMoveError, Wave


def new(engine: Any, width: int, height: int, rules: str = "colorwars", **kw: Any) -> Any:
    return engine(width=width, height=height, rules=rules, **kw)


# -- §1 board, cells and turns ---------------------------------------------------------------


def test_capacity_is_degree_minus_one(engine: Any) -> None:
    """RULES.md §1: capacity 1 in a corner, 2 on an edge, 3 inside; one more orb bursts.
    Under classic a player can stack on an own cell, so count how many orbs each cell takes."""
    for cell, capacity in [(0, 1), (1, 2), (4, 3)]:  # corner, edge, centre of 3x3
        g = new(engine, 3, 3, "classic")
        other = 8 if cell != 8 else 6
        for _ in range(capacity):
            g.play(cell)
            g.play(other if g.counts()[other] < 1 else other - 1)
        assert g.counts()[cell] == capacity
        assert g.waves() == []
        g.play(cell)  # one more orb: over capacity, it bursts
        assert g.waves()[0].bursts == (cell,)


def test_neighbours_are_orthogonal(engine: Any) -> None:
    """RULES.md §1: a burst sends orbs to edge neighbours only, never diagonally."""
    g = colorwars.Game.from_text("3x3 classic 2 1a../.../..1b a ab - 2")
    g = engine.from_text(g.to_text())
    g.play("a1")
    assert g.counts() == [0, 1, 0, 1, 0, 0, 0, 0, 1]
    assert g.owners()[4] == -1


def test_capture_keeps_the_orbs(engine: Any) -> None:
    """RULES.md §2 capture: a cell that receives an orb becomes the mover's with what it held."""
    g = engine.from_text("3x3 classic 2 1a2b./.../... a ab - 3")
    g.play("a1")
    assert g.counts()[:2] == [0, 3]
    assert g.owners()[1] == 0


def test_first_player_is_settable_and_turns_go_round(engine: Any) -> None:
    """RULES.md §1: who moves first is settable; players move in seat order from there."""
    g = new(engine, 6, 6, players=3, first=2)
    seen = []
    for move in ["b2", "e2", "b5", "b2", "e2", "b5"]:
        seen.append(g.to_move)
        g.play(move)
    assert seen == [2, 0, 1, 2, 0, 1]


def test_no_elimination_before_everyone_has_moved(engine: Any) -> None:
    """RULES.md §1, §4: the elimination check waits for the first round, and no burst can
    happen in it; nobody is out and nobody has won until every player has moved."""
    for rules in ("colorwars", "classic"):
        g = new(engine, 2, 2, rules, players=4)
        for cell in range(4):
            assert g.winner is None
            assert g.out == []
            assert g.moved == list(range(cell))
            g.play(cell)
            assert g.waves() == []
        assert g.moved == [0, 1, 2, 3]


def test_invalid_configurations(engine: Any) -> None:
    """RULES.md §1: sides 2 to 32, 2 to 8 players and at most one per cell."""
    engine(width=32, height=32, players=8)
    engine(width=2, height=2, players=4)
    with pytest.raises(colorwars.InvalidSizeError, match="from 2 to 32"):
        engine(width=1, height=5)
    with pytest.raises(colorwars.InvalidSizeError):
        engine(width=5, height=33)
    with pytest.raises(colorwars.InvalidPlayersError, match="2 to 8"):
        engine(players=9)
    with pytest.raises(colorwars.InvalidPlayersError, match="number of cells"):
        engine(width=2, height=2, players=5)
    with pytest.raises(colorwars.InvalidPlayersError):
        engine(players=3, first=3)
    with pytest.raises(colorwars.InvalidRulesError, match="colorwars"):
        engine(rules="chess")
    with pytest.raises(colorwars.InvalidRulesError, match="drop3"):
        engine(rules=colorwars.Rules.parse("triple+empty"))


# -- §2 rule sets and moves ------------------------------------------------------------------


def test_drop3_opening_goes_on_an_empty_cell(engine: Any) -> None:
    """RULES.md §2: under drop3 the first move is three orbs on an empty cell, and a player may
    not open on a taken cell."""
    g = new(engine, 5, 5)
    g.play("c3")
    assert g.counts()[12] == 3
    assert 12 not in g.legal_moves()
    assert len(g.legal_moves()) == 24
    # The refusal names the cell as people type it, and its number.
    with pytest.raises(IllegalMoveError, match=r"^illegal move c3 \(cell 12\): .*empty cell"):
        g.play("c3")


def test_drop3_later_moves_go_on_own_cells_only(engine: Any) -> None:
    """RULES.md §2: after the opening a drop3 player adds one orb to an own cell only."""
    g = new(engine, 5, 5)
    g.play("b2")
    g.play("d4")
    assert g.legal_moves() == [6]
    with pytest.raises(IllegalMoveError, match="own"):
        g.play("a1")  # empty
    with pytest.raises(IllegalMoveError, match="own"):
        g.play("d4")  # the opponent's


def test_classic_places_on_empty_or_own_never_enemy(engine: Any) -> None:
    """RULES.md §2: under the none opening a move is one orb on an empty or own cell."""
    g = new(engine, 3, 3, "classic")
    g.play(4)
    assert g.counts()[4] == 1
    assert 4 not in g.legal_moves()
    with pytest.raises(IllegalMoveError, match=r"move b2 \(cell 4\): .*empty cell or a cell of"):
        g.play(4)
    g.play(0)
    assert g.legal_moves() == [1, 2, 3, 4, 5, 6, 7, 8]


def test_drop_never_bursts_even_in_a_corner(engine: Any) -> None:
    """RULES.md §2 the opening cell, §4: a drop is not an arrival; three orbs rest on a corner
    of capacity 1."""
    for rules in ("colorwars", "drop3+subtract"):
        for cell in range(4):
            g = new(engine, 2, 2, rules)
            g.play(cell)
            assert g.waves() == []
            assert g.counts()[cell] == 3


def test_opening_cell_rests_until_an_orb_arrives(engine: Any) -> None:
    """RULES.md §2: an opening cell above capacity stays put while nothing arrives in it, even
    when a cascade runs beside it."""
    # Both opening cells rest in corners (3 orbs, capacity 1).
    g = engine.from_text("4x2 colorwars 2 3a.../...3b a ab - 2")
    g.play("a1")  # a1 now holds 4: it bursts into b1 and a2; nothing reaches d2
    assert g.counts()[7] == 3
    assert g.owners()[7] == 1
    assert [w.bursts for w in g.waves()] == [(0,)]


def test_corner_opening_cell_bursts_on_fourth_orb(engine: Any) -> None:
    """RULES.md §2: a corner opening cell that receives an orb holds 4, sends 2 and, under
    empty, loses the other 2; under subtract it keeps 2 and bursts again."""
    g = new(engine, 2, 2)
    g.play("a1")
    g.play("b2")
    g.play("a1")
    w = g.waves()[0]
    assert w.bursts == (0,)
    assert (w.counts, w.owners) == ((0, 1, 1, 3), (-1, 0, 0, 1))
    s = new(engine, 2, 2, "drop3+subtract")
    s.play("a1")
    s.play("b2")
    s.play("a1")
    first = s.waves()[0]
    assert first.counts == (2, 1, 1, 3)  # kept the excess: 4 - 2 = 2 > capacity 1
    assert s.waves()[1].bursts[0] == 0  # so it bursts again in the next wave


def test_empty_burst_loses_the_excess(engine: Any) -> None:
    """RULES.md §2 burst empty, §3.2: a full cell gaining two orbs in one wave loses the excess
    when it bursts."""
    g = engine.from_text("3x3 none+empty 2 1a2a1a/2a3a./..1b a ab - 9")
    g.play("a1")  # wave 1: a1 bursts; b1 and a2 reach 3 > 2
    waves = g.waves()
    assert [w.bursts for w in waves] == [(0,), (1, 3), (0, 2, 4), (1,)]
    # Wave 2 sends b2 (full at 3) two orbs at once: 5. In wave 3 it sends 4 and loses 1.
    assert waves[1].counts[4] == 5
    assert waves[2].counts[4] == 0
    assert sum(waves[2].counts) == sum(waves[1].counts) - 1
    assert g.owners()[8] == 1  # b keeps c3: the game goes on


def test_subtract_keeps_the_excess(engine: Any) -> None:
    """RULES.md §3.4: under subtract a full cell that gains two orbs in one wave keeps the
    excess after bursting (it is not left empty), and orbs are conserved."""
    g = engine.from_text("3x3 classic 2 1a2a1a/2a3a./..1b a ab - 9")
    g.play("a1")
    waves = g.waves()
    assert [w.bursts for w in waves] == [(0,), (1, 3), (0, 2, 4), (1,)]
    assert waves[1].counts[4] == 5
    assert waves[2].counts[4] == 1  # 5 - 4 = 1 stays
    assert all(sum(w.counts) == 11 for w in waves)  # 10 on the board + the one placed


# -- §3 cascades -----------------------------------------------------------------------------


def test_waves_burst_together_level_by_level(engine: Any) -> None:
    """RULES.md §3.1: all unstable cells burst in the same wave; orbs move level by level."""
    g = engine.from_text("3x3 classic 2 .2a./2a3a2a/.2a1b a ab - 12")
    g.play("b2")  # b2: 4 > 3
    waves = g.waves()
    assert [w.bursts for w in waves] == [(4,), (1, 3, 5, 7)]
    assert waves[0] == Wave((4,), (0, 3, 0, 3, 0, 3, 0, 3, 1), (-1, 0, -1, 0, -1, 0, -1, 0, 1))
    # Wave 2: four edge cells burst at once; corners gain 2, the centre gains 4.
    assert waves[1].counts == (2, 0, 2, 0, 4, 0, 2, 0, 3)
    assert g.winner == 0  # b's last cell was captured: decided after wave 2 (§3.3)


def test_cascade_that_never_settles_stops_when_decided(engine: Any) -> None:
    """RULES.md §3.3: on 2x2 classic, 5 orbs cannot rest (capacity 4); the cascade stops after
    the wave that takes the opponent's last cell, and the board stays as it is then."""
    g = engine.from_text("2x2 classic 2 1a1a/1a1b a ab - 6")
    g.play("a1")
    waves = g.waves()
    assert [w.bursts for w in waves] == [(0,), (1, 2)]
    assert g.counts() == [2, 0, 0, 3]
    assert g.owners() == [0, -1, -1, 0]
    assert g.winner == 0
    assert g.out == [1]
    assert g.legal_moves() == []
    with pytest.raises(GameOverError):
        g.play("a1")


def test_winner_and_elimination_with_three_players(engine: Any) -> None:
    """RULES.md §3.6: a player without orbs is out, turns skip them, the last one wins."""
    g = engine.from_text("3x3 classic 3 1a1b./1c../... a abc - 3")
    g.play("a1")  # a1: 2 > 1 bursts into b1 (b's) and a2 (c's): both captured, over capacity?
    # b1 had 1 -> 2 (edge, capacity 2: stays); a2 had 1 -> 2 (stays). b and c hold nothing.
    assert g.winner == 0
    assert g.out == [1, 2]
    g2 = engine.from_text("3x3 classic 3 1a1b./.../..1c a abc - 3")
    g2.play("a1")
    assert g2.out == [1]
    assert g2.winner is None
    assert g2.to_move == 2  # b is skipped
    g2.play("c3")
    assert g2.to_move == 0


# -- §4 facts --------------------------------------------------------------------------------


def test_two_by_two_colorwars_ends_within_four_plies(engine: Any) -> None:
    """RULES.md §4: every 2x2 colorwars game ends within 4 plies (all games enumerated)."""

    def longest(g: Any) -> int:
        if g.winner is not None:
            return g.ply
        best = 0
        for m in g.legal_moves():
            g.play(m)
            best = max(best, longest(g))
            g.pop()
        return best

    assert longest(new(engine, 2, 2)) == 4


def test_classic_orbs_rise_by_one_per_move(engine: Any) -> None:
    """RULES.md §4: under classic the board gains exactly one orb per move until the deciding
    move, so a game lasts at most capacity + 1 plies."""
    rng = random.Random(7)
    for width, height in [(2, 2), (3, 3), (4, 3), (5, 5)]:
        capacity = sum(
            len([1 for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                 if 0 <= x + dx < width and 0 <= y + dy < height]) - 1
            for x, y in itertools.product(range(width), range(height))
        )  # fmt: skip
        for _ in range(10):
            g = new(engine, width, height, "classic")
            while g.winner is None:
                before = sum(g.counts())
                g.play(rng.choice(g.legal_moves()))
                if g.winner is None:
                    assert sum(g.counts()) == before + 1
            assert g.ply <= capacity + 1


def test_no_cell_ever_holds_more_than_seven(engine: Any) -> None:
    """RULES.md §4: no cell ever holds more than 7 orbs, not even in the middle of a cascade."""
    rng = random.Random(3)
    for rules in ("colorwars", "classic", "drop3+subtract", "none+empty"):
        for _ in range(15):
            g = new(engine, rng.randint(2, 6), rng.randint(2, 6), rules)
            while g.winner is None:
                g.play(rng.choice(g.legal_moves()))
                assert all(max(w.counts) <= 7 for w in g.waves())


def test_random_game_lengths_match_the_rules_notes() -> None:
    """RULES.md §4: random play lasts about 31 plies on 5x5 colorwars and about 121 on 8x8
    classic (native simulation, fixed seed, thousands of games)."""
    r = colorwars.simulate(games=20_000, width=5, height=5, rules="colorwars", seed=11)
    assert 30.0 < r.plies.mean() < 31.5
    assert (r.winners >= 0).all()
    r = colorwars.simulate(games=5_000, width=8, height=8, rules="classic", seed=12)
    assert 119.0 < r.plies.mean() < 123.0
