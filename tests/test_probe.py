"""The endgame probe (issue 19, section 4: "the other players probe the proof search in the
endgame where it is cheap"): a short proof-number search before a player's own search, a
proven win played at once. ``colorwars.probe``, and ``probe=`` of MCTS, AlphaBeta and Zero."""

from __future__ import annotations

import pickle

import colorwars
import pytest
from colorwars import _core
from colorwars.ai import Zero
from colorwars.errors import GameOverError, InvalidPlayerError
from colorwars.players import MCTS, AlphaBeta, native_game, parse_player
from colorwars.probe import Probe
from colorwars.zero.player import PROBE

# 3 x 3 classic, a to move with orbs on a2 and c2, b's on c1 and b3: a1 is a's only winning
# move, a cascade deeper than depth-3 alpha-beta sees (it plays c3); the proof takes about
# 3,000 positions (RULES-NOTES §2: classic, any cell may take the mover's orb while empty).
POSITION = "3x3 classic 2 ..1b/1a.1a/.1b. a ab - 4"


def winning_moves(text: str) -> set[int]:
    """Every move after which the mover is proven to win (each child proven on its own)."""
    g = colorwars.Game.from_text(text)
    table = _core.ProofTable(1 << 24)
    wins = set()
    for cell in g.legal_moves():
        child = g.copy()
        child.play(cell)
        winner = child.winner
        if winner is None:
            winner = _core.prove(native_game(child), table)[0]
        if winner == g.to_move:
            wins.add(cell)
    return wins


def test_the_probe_plays_a_proven_win_and_counts_its_positions() -> None:
    g = colorwars.Game.from_text(POSITION)
    probe = Probe(positions=50_000)
    cell = probe.winning_move(g)
    assert cell is not None
    assert cell in winning_moves(POSITION)
    assert probe.last.proven
    assert 0 < probe.last.positions <= 50_000 + 1024


def test_the_budget_stops_the_probe() -> None:
    """A budget of 1 stops after the first 1,024 positions: nothing is proven here then (the
    proof needs about 3,000), and the probe says so rather than guess."""
    g = colorwars.Game.from_text(POSITION)
    probe = Probe(positions=1)
    assert probe.winning_move(g) is None
    assert not probe.last.proven
    assert probe.last.positions <= 1024
    assert Probe(positions=100_000).winning_move(g) in winning_moves(POSITION)


def test_the_probe_keeps_its_table_between_calls() -> None:
    """One table per board, kept: the second probe of a position reads the first one's
    proof instead of searching it again."""
    g = colorwars.Game.from_text(POSITION)
    probe = Probe(positions=100_000)
    first = probe.search(g)
    second = probe.search(g)
    assert first.cell == second.cell
    assert first.cell in winning_moves(POSITION)
    assert second.positions < first.positions


def test_the_threshold_makes_the_probe_give_up_far_from_a_win() -> None:
    """The opening of 8 x 8 classic: far from any forced win, the probe gives up at once
    (threshold_for(64) = 256) instead of spending its budget."""
    from colorwars.probe import threshold_for

    assert threshold_for(64) == 256
    assert threshold_for(9) > threshold_for(25) > threshold_for(100) >= 16
    g = colorwars.Game(8, 8, rules="classic")
    g.play(g.cell("d4"))
    found = Probe(positions=1_000_000).search(g)
    assert found.cell is None
    assert found.gave_up
    assert found.positions < 5000


def test_a_lost_position_and_other_games_give_nothing() -> None:
    # b to move in a position where a wins whatever b does: nothing to play for b.
    g = colorwars.Game.from_text(POSITION)
    wins = winning_moves(POSITION)
    g.play(min(wins))
    assert Probe(positions=100_000).winning_move(g) is None
    three = colorwars.Game(4, 4, players=3)
    probe = Probe(positions=100_000)
    assert probe.winning_move(three) is None
    assert probe.last.positions == 0
    assert Probe(positions=0).winning_move(colorwars.Game.from_text(POSITION)) is None


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10", 10**9])
def test_bad_probe_budgets_are_refused(bad: object) -> None:
    with pytest.raises(InvalidPlayerError, match="probe"):
        Probe(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidPlayerError, match="probe"):
        AlphaBeta(probe=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidPlayerError, match="probe"):
        MCTS(probe=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidPlayerError, match="probe"):
        Zero(probe=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1e6, 2.5e6, 1000, 1 << 41, "1M", True, None])
def test_bad_table_sizes_are_refused(bad: object) -> None:
    """A table's bytes are a whole number (a float such as 1e6 is refused, not truncated)."""
    with pytest.raises(InvalidPlayerError, match="memory"):
        Probe(1000, memory=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "player",
    # (budgets no other test uses: players of one budget share one probe and its table)
    [AlphaBeta(depth=3, probe=50_001), MCTS(simulations=50, probe=50_002),
     Zero(simulations=8, probe=50_003)],
)  # fmt: skip
def test_players_with_a_probe_play_the_proven_win(player: object) -> None:
    g = colorwars.Game.from_text(POSITION)
    d = player.search(g)  # type: ignore[attr-defined]
    assert d.cell in winning_moves(POSITION)
    assert d.work > 0


def test_without_a_win_the_player_searches_as_without_a_probe() -> None:
    """On an open 6 x 6 board the probe proves nothing in 2,000 positions, and the player's
    own search decides: the same move as without a probe (depth-bounded, deterministic)."""
    g = colorwars.Game(6, 6, rules="classic")
    g.play(g.cell("c3"))
    plain, probing = AlphaBeta(depth=3), AlphaBeta(depth=3, probe=2000)
    assert probing.choose(g) == plain.choose(g)
    z = Zero(simulations=50, probe=2000)
    assert z.search(g).cell == Zero(simulations=50, probe=0).search(g).cell


def test_alpha_beta_at_depth_3_misses_the_win_the_probe_finds() -> None:
    """What the probe adds: the win lies beyond the depth-3 horizon."""
    g = colorwars.Game.from_text(POSITION)
    assert AlphaBeta(depth=3).choose(g) not in winning_moves(POSITION)
    assert AlphaBeta(depth=3, probe=50_000).choose(g) in winning_moves(POSITION)


def test_probe_names_settings_and_matches() -> None:
    assert parse_player("learned:time=0.1:probe=20000").name == "learned(0.1s)[probe=20000]"
    assert parse_player("alphabeta:probe=500").probe == 500
    assert parse_player("mcts:probe=500").name == "mcts(1000)[probe=500]"
    assert parse_player("zero:probe=0").probe == 0
    with pytest.raises(InvalidPlayerError, match="probe"):
        parse_player("alphabeta:probe=x")
    # A prober is played move by move: not one of the engine's batch players.
    with pytest.raises(InvalidPlayerError, match="probes proofs"):
        AlphaBeta(probe=10).native_spec()
    assert AlphaBeta().native_spec().kind == "alphabeta"
    result = colorwars.ai.match(["learned:depth=2:probe=2000", "greedy"], 2, 4, 4, rules="classic")
    assert result["forfeits"] == []
    assert set(result["winners"].tolist()) <= {0, 1}


def test_a_probing_player_pickles_and_keeps_its_budget() -> None:
    """Ray sends players to workers by pickle: the prober goes without its tables."""
    player = AlphaBeta(depth=2, probe=50_000)
    again = pickle.loads(pickle.dumps(player))
    assert again == player
    assert again.choose(colorwars.Game.from_text(POSITION)) in winning_moves(POSITION)


def test_a_finished_game_is_refused() -> None:
    g = colorwars.Game.from_text(POSITION)
    g.play(min(winning_moves(POSITION)))
    while g.winner is None:
        g.play(AlphaBeta(depth=2, probe=50_000).choose(g))
    for player in (AlphaBeta(probe=100), Zero(simulations=8, probe=100)):
        with pytest.raises(GameOverError):
            player.choose(g)


def test_zero_probes_by_default_with_simulations_and_not_with_time() -> None:
    """The defaults docs/learned.md measured: the probe lifts Zero's accuracy at its default
    budget of simulations; at an equal time a move on 8 x 8 classic its share cost more
    than it gained, so a timed Zero probes only when told."""
    from colorwars.ladder import with_time
    from colorwars.zero.player import PROBE

    assert Zero().probe == PROBE > 0
    assert Zero(time=0.1).probe == 0
    assert Zero(time=0.1, probe=500).probe == 500
    assert with_time(parse_player("zero"), 0.1).probe == 0
    assert with_time(parse_player("zero:probe=500"), 0.1).probe == 500


def test_the_match_benchmark_runs() -> None:
    """benchmarks/probe_gain.py (each player with its probe against itself without)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "benchmarks" / "probe_gain.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    out = subprocess.run(
        [sys.executable, str(script), "--quick", "--no-write", "--boards", "4x4:classic",
         "--players", "learned,zero", "--processes", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert "4x4 classic: learned with a probe of 100,000 scores" in out
    assert "4x4 classic: zero with a probe of 100,000 scores" in out


def test_a_match_with_a_probing_player_plays_different_games() -> None:
    """A player with a probe is played move by move: each game gives it a seed of its own,
    as the engine's matches do, so the games are not one game repeated."""
    result = colorwars.ai.match(
        ["mcts:simulations=50:probe=100", "mcts:simulations=50"], 6, 4, 4, rules="classic"
    )
    assert len(set(zip(result["plies"].tolist(), result["winners"].tolist(), strict=True))) > 1


def test_a_probing_player_is_checked_before_the_games() -> None:
    """Alpha-beta plays two players: refused before any game, probe or not (as the
    terminal's setup checks its seats)."""
    for name in ("alphabeta", "alphabeta:probe=10"):
        with pytest.raises(InvalidPlayerError, match="two-player"):
            colorwars.ai.match([name, "random", "random"], 0, 4, 4, rules="classic")


def test_players_with_one_budget_share_one_probe() -> None:
    """A player rebuilt for every move (a new seed) keeps what its probes proved."""
    from colorwars.probe import shared

    assert shared(123) is shared(123)
    g = colorwars.Game.from_text(POSITION)
    AlphaBeta(depth=2, probe=123_456).choose(g)
    again = AlphaBeta(depth=2, probe=123_456, seed=9).search(g)
    assert again.cell in winning_moves(POSITION)
    assert again.work < 1024  # read from the shared table, not searched again


def test_zeros_names_say_when_it_probes_other_than_by_default() -> None:
    assert Zero().name == Zero(probe=PROBE).name == "zero(400)"
    assert Zero(probe=0).name == "zero(400)[probe=0]"
    assert Zero(time=0.1).name == Zero(time=0.1, probe=0).name == "zero(0.1s)"
    assert Zero(time=0.1, probe=500).name == "zero(0.1s)[probe=500]"
    assert "probe=100000" in repr(Zero())


def test_the_web_keeps_a_seats_probe() -> None:
    pytest.importorskip("starlette")
    from colorwars.web.store import ai_player

    g = colorwars.Game(4, 4, rules="classic")
    assert ai_player("alphabeta:probe=500", g, 0, 1.0).probe == 500
    assert ai_player("mcts:probe=500", g, 0, 1.0).probe == 500


def test_forget_drops_the_shared_probes() -> None:
    from colorwars.probe import forget, shared

    before = shared(777)
    forget()
    assert shared(777) is not before


def test_stop_ends_the_probe_early_with_what_it_proved() -> None:
    """``stop`` (anything with ``is_set()``) ends a probe as its time would: a probe that
    could prove 5 x 5 colorwars' start (about 2.8 M positions) stops at the first tick."""
    import threading

    stop = threading.Event()
    stop.set()
    probe = Probe(10**8, threshold=1 << 30)
    found = probe.search(colorwars.Game(5, 5), stop=stop)
    assert found.cell is None
    assert not found.proven
    assert found.positions < 1_000_000
    # Not stopped, the same probe proves 3 x 3 classic's first player's win.
    assert probe.search(colorwars.Game(3, 3, rules="classic"), stop=threading.Event()).proven
