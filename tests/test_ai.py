"""Players, matches, tournaments, opening statistics and the exact solver."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import colorwars
import numpy as np
import pytest
from colorwars import GameOverError, InvalidPlayerError, ai, reference

PLAYERS = [
    ai.Random(seed=1),
    ai.Greedy(seed=1),
    ai.MCTS(simulations=200, seed=1),
    ai.MCTS(simulations=100, trees=2, greedy=0.0, seed=1),
    ai.AlphaBeta(depth=3),
]


@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.name)
def test_players_choose_legal_moves_on_both_engines(player: Any) -> None:
    for engine in (colorwars.Game, reference.Game):
        g = engine(width=5, height=4, rules="classic")
        while g.winner is None and g.ply < 30:
            move = player.choose(g)
            assert move in g.legal_moves()
            assert player.choose(g) == move  # deterministic for its seed and budget
            g.play(move)


def test_players_refuse_a_finished_game() -> None:
    g = colorwars.Game.from_text("2x2 classic 2 1a1a/1a1b a ab - 6")
    g.play("a1")
    with pytest.raises(GameOverError):
        ai.MCTS(simulations=10).choose(g)


def test_mcts_plays_several_players_and_alphabeta_refuses() -> None:
    g = colorwars.Game(width=4, height=4, players=3)
    assert ai.MCTS(simulations=100).choose(g) in g.legal_moves()
    with pytest.raises(InvalidPlayerError, match="two-player"):
        ai.AlphaBeta(depth=2).choose(g)


def test_alphabeta_takes_a_win_in_one() -> None:
    g = colorwars.Game.from_text("3x3 classic 2 1a2b./.../... a ab - 3")
    assert ai.AlphaBeta(depth=4).choose(g) == 0  # a1 bursts into b1, which takes b's last orbs
    assert ai.MCTS(simulations=300).choose(g) == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda t: ai.MCTS(simulations=0, time=t),
        lambda t: ai.MCTS(simulations=0, time=t, trees=2),
        lambda t: ai.AlphaBeta(time=t),
    ],
    ids=["mcts", "mcts-2-threads", "alphabeta"],
)
def test_time_budgets(make: Any) -> None:
    """A time budget is honoured: the search runs for about that long (not far past it, and
    not returning at once with no work done), and a longer budget does more work (MCTS:
    simulations; alpha-beta: positions searched, with no depth limit)."""
    import threading
    import time

    def timed_search(player: Any, game: Any) -> tuple[Any, float]:
        """`player.search(game)` and the seconds it took, measured here; run in a daemon
        thread (the search releases the GIL) so that a search ignoring its budget fails the
        test after 10 x budget + 1 s instead of hanging the run."""
        result: list[Any] = []
        thread = threading.Thread(target=lambda: result.append(player.search(game)), daemon=True)
        start = time.perf_counter()
        thread.start()
        thread.join(10 * player.time + 1)
        elapsed = time.perf_counter() - start
        assert result, f"{player.name} still running after {elapsed:.1f} s"
        return result[0], elapsed

    g = colorwars.Game(width=6, height=6, rules="classic")
    g.play("c3")
    g.play("d4")
    work = []
    for budget in (0.05, 0.4):
        decision, elapsed = timed_search(make(budget), g)
        assert decision.cell in g.legal_moves()
        assert decision.work > 20  # simulations or positions: it did search
        assert 0.95 * budget <= elapsed <= 10 * budget + 1
        work.append(decision.work)
    assert work[1] > work[0]


@pytest.mark.parametrize(
    ("text", "cls"),
    [
        ("random", ai.Random),
        ("greedy", ai.Greedy),
        ("mcts:50", ai.MCTS),
        ("alphabeta:2", ai.AlphaBeta),
        ("mcts:time=0.5", ai.MCTS),
        ("ab:time=0.5", ai.AlphaBeta),
    ],
)
def test_parse_player(text: str, cls: type) -> None:
    assert isinstance(ai.parse_player(text), cls)


def test_player_names_take_settings() -> None:
    """A name with ``key=value`` settings after colons is that player with those settings."""
    assert ai.parse_player("mcts:time=1:c=0.7:solver=false:minimax=0:reuse=false") == ai.MCTS(
        time=1, c=0.7, solver=False, minimax=0.0, reuse=False
    )
    assert ai.parse_player("MCTS:simulations=5000:trees=2") == ai.MCTS(simulations=5000, trees=2)
    assert ai.parse_player("alphabeta:time=0.25") == ai.AlphaBeta(time=0.25)
    assert ai.parse_player("alphabeta:depth=3:seed=4") == ai.AlphaBeta(depth=3, seed=4)


@pytest.mark.parametrize(
    "bad",
    [
        "minimax",
        "mcts:x",
        "mcts:0",
        "alphabeta:0",
        "alphabeta:99",
        "random:3",
        "mcts:time",
        "mcts:depth=3",
        "alphabeta:greedy=1",
        "mcts:time=soon",
        "mcts:time=-1",
        "mcts:minimax=2",
        "mcts:cutoff=-1",
        "mcts:solver=yes",
        "greedy:seed=1",
    ],
)
def test_bad_players(bad: str) -> None:
    with pytest.raises(InvalidPlayerError):
        ai.parse_player(bad)


@pytest.mark.parametrize(
    "name", ["mcts:solver=no", "mcts:solver=0", "mcts:reuse=1", "perfect:book=yes"]
)
def test_a_flag_in_a_name_takes_true_or_false(name: str) -> None:
    # solver=no said "expected a number", solver=0 "expected True or False" (Python's words).
    with pytest.raises(InvalidPlayerError, match=r": expected true or false$"):
        ai.parse_player(name)
    assert ai.parse_player("mcts:solver=False:reuse=TRUE").solver is False


def test_bad_budgets() -> None:
    for make in (
        lambda: ai.MCTS(simulations=-1),
        lambda: ai.MCTS(c=-1.0),
        lambda: ai.MCTS(trees=0),
        lambda: ai.MCTS(greedy=1.5),
        lambda: ai.MCTS(time=0),
        lambda: ai.MCTS(minimax=1.5),
        lambda: ai.MCTS(minimax=float("nan")),
        lambda: ai.MCTS(cutoff=-1),
        lambda: ai.MCTS(cutoff=10**6),
        lambda: ai.MCTS(reuse=1),  # type: ignore[arg-type]
        lambda: ai.AlphaBeta(depth=0),
    ):
        with pytest.raises(InvalidPlayerError):
            make()


def test_match_is_reproducible_and_replays() -> None:
    seats = [ai.MCTS(simulations=100, seed=3), ai.Greedy(seed=3)]
    a = ai.match(seats, 12, width=4, height=4, seed=5)
    b = ai.match(seats, 12, width=4, height=4, seed=5, threads=1)
    assert np.array_equal(a["winners"], b["winners"])
    assert np.array_equal(a["plies"], b["plies"])


def test_tournament_orders_the_players() -> None:
    result = ai.tournament([ai.Random(), ai.Greedy(), ai.AlphaBeta(depth=2)], 40, width=4, height=4)
    assert result.games.sum() == 3 * 40 * 2
    assert np.allclose(result.wins + result.wins.T, result.games)  # no draws
    assert result.elo[2] > result.elo[1] > result.elo[0]
    assert abs(sum(result.elo)) < 1e-6
    rate, (lo, hi) = result.score(0)
    assert lo <= rate <= hi


def test_elo_of_an_even_match_is_even() -> None:
    wins = np.array([[0.0, 50.0], [50.0, 0.0]])
    games = np.array([[0.0, 100.0], [100.0, 0.0]])
    assert ai.elo_ratings(wins, games) == pytest.approx([0.0, 0.0], abs=1e-6)
    wins = np.array([[0.0, 76.0], [24.0, 0.0]])
    elo = ai.elo_ratings(wins, games)
    assert elo[0] - elo[1] == pytest.approx(200, abs=15)  # 76% is about +200 Elo


def test_opening_win_rates_shape() -> None:
    rates, counts = ai.opening_win_rates(ai.Greedy(), ai.Greedy(), 20, width=4, height=3)
    assert rates.shape == (3, 4)
    assert counts.shape == (3, 4)
    assert ((rates >= 0) & (rates <= 1)).all()
    assert (counts == 20).all()


# -- the exact solver --------------------------------------------------------------------------

# Pinned results (winner seat, plies under perfect play), measured with `colorwars solve`.
SOLVED = {
    (2, 2, "classic"): (1, 4),
    (2, 2, "colorwars"): (1, 4),
    (2, 3, "classic"): (0, 7),
    (3, 2, "classic"): (0, 7),
    (2, 3, "colorwars"): (1, 6),
    (3, 2, "colorwars"): (1, 6),
    (2, 4, "classic"): (1, 12),
    (4, 2, "colorwars"): (1, 6),
    (3, 3, "classic"): (0, 13),
    (3, 3, "colorwars"): (1, 10),
}


@pytest.mark.parametrize(("size", "expected"), list(SOLVED.items()), ids=str)
def test_solved_results_and_lines_replay(
    size: tuple[int, int, str], expected: tuple[int, int]
) -> None:
    w, h, rules = size
    s = colorwars.solve(w, h, rules=rules, cache=False)
    assert (s.winner, s.plies) == expected
    assert len(s.line) == s.plies
    g = reference.Game(width=w, height=h, rules=rules)
    for move in s.line:
        g.play(move)
    assert g.winner == s.winner
    assert g.ply == s.plies


def _better(v: int, best: int) -> bool:
    """Any win beats any loss; the shorter win, the longer loss (more negative)."""
    if (v > 0) != (best > 0):
        return v > 0
    return v < best


def brute_force(g: Any, memo: dict[str, int]) -> int:
    """The exact value for the player to move with the reference engine, no pruning:
    +n wins in n plies, -n loses in n plies (the winner shortest, the loser longest)."""
    key = g.to_text().rsplit(" ", 1)[0]  # the ply does not change the value
    if key in memo:
        return memo[key]
    best: int | None = None
    for m in g.legal_moves():
        g.play(m)
        if g.winner is not None:
            v = 1
        else:
            w = brute_force(g, memo)
            v = -(w + 1) if w > 0 else -w + 1
        g.pop()
        if best is None or _better(v, best):
            best = v
    assert best is not None
    memo[key] = best
    return best


@pytest.mark.parametrize(
    "size",
    [
        (2, 2, "classic"),
        (2, 2, "colorwars"),
        (2, 3, "classic"),
        (3, 2, "colorwars"),
        (2, 4, "colorwars"),
    ],
)
def test_solver_matches_brute_force_on_the_reference_engine(size: tuple[int, int, str]) -> None:
    w, h, rules = size
    v = brute_force(reference.Game(width=w, height=h, rules=rules), {})
    s = colorwars.solve(w, h, rules=rules, cache=False)
    assert s.winner == (0 if v > 0 else 1)
    assert s.plies == abs(v)


def test_solutions_are_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path))
    first = colorwars.solve(3, 3, rules="colorwars")
    assert (tmp_path / "solutions.cache").exists()
    again = colorwars.solve(3, 3, rules="colorwars")
    assert again == first  # read back, not recomputed (the timing is the stored one)
    assert b"3x3 colorwars" in (tmp_path / "solutions.cache").read_bytes()


def test_solver_limits() -> None:
    with pytest.raises(colorwars.SearchLimitError, match="max_depth"):
        colorwars.solve(4, 4, rules="colorwars", max_depth=4, cache=False)
    with pytest.raises(colorwars.InvalidSizeError):
        colorwars.solve(1, 4)


def test_bad_arguments_are_clear_errors() -> None:
    # One error class per argument (colorwars._validate): a seed is a ConfigError wherever it
    # is given, a move an InvalidMoveError.
    with pytest.raises(colorwars.ConfigError, match="seed"):
        ai.Random(seed=-1)
    with pytest.raises(colorwars.ConfigError, match="seed"):
        ai.MCTS(seed=2**70)
    with pytest.raises(colorwars.InvalidMoveError, match="not on the board"):
        ai.match([ai.Random(), ai.Random()], 2, first_move=25)
    with pytest.raises(colorwars.ConfigError, match="max_depth"):
        colorwars.solve(3, 3, max_depth=0, cache=False)
    with pytest.raises(InvalidPlayerError, match="two players"):
        ai.tournament([ai.Random()], 2)
    # "expected an address text with backend='ray'" for an address that was a text.
    with pytest.raises(colorwars.ConfigError, match="an address goes with backend='ray', not"):
        ai.tournament([ai.Random(), ai.Greedy()], 2, address="127.0.0.1:1")
    with pytest.raises(colorwars.ConfigError, match="the Ray cluster's address, a text"):
        ai.tournament([ai.Random(), ai.Greedy()], 2, backend="ray", address=5)  # type: ignore[arg-type]
    # The same checks in every call that takes a backend (prove and simulate took any
    # address without Ray, and prove ran backend="ray" unsplit locally).
    with pytest.raises(colorwars.ConfigError, match="an address goes with backend='ray', not"):
        colorwars.prove(3, 3, address="x")
    with pytest.raises(colorwars.ConfigError, match="an address goes with backend='ray', not"):
        colorwars.simulate(games=2, address="x")
    with pytest.raises(colorwars.ConfigError, match="the Ray cluster's address, a text"):
        colorwars.prove(3, 3, backend="ray", address=5)  # type: ignore[arg-type]
    with pytest.raises(colorwars.ConfigError, match="does not search the position unsplit"):
        colorwars.prove(3, 3, backend="ray", split=False)


def test_tournament_and_openings_report_progress() -> None:
    seen: list[tuple[int, int]] = []
    ai.tournament([ai.Random(), ai.Greedy(), ai.Random(seed=2)], 4, width=3, height=3,
                  progress=lambda d, t: seen.append((d, t)))  # fmt: skip
    assert seen[-1] == (12, 12)  # games: 3 pairs x 4 games, counted as they finish
    assert all(t == 12 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    cells: list[tuple[int, int]] = []
    ai.opening_win_rates(ai.Random(), ai.Random(), 2, width=2, height=3,
                         progress=lambda d, t: cells.append((d, t)))  # fmt: skip
    assert cells[-1] == (12, 12)  # 6 cells x 2 games


def test_tournament_and_openings_batches_play_the_matches_match_would() -> None:
    """One native batch gives game for game what playing the matches one by one gives."""
    players = [ai.Greedy(seed=1), ai.MCTS(simulations=30, seed=2), ai.Random(seed=3)]
    t = ai.tournament(players, 6, width=4, height=3, rules="classic", seed=11)
    n = len(players)
    expected = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            for k, (a, b) in enumerate(((i, j), (j, i))):
                seed = 11 + 7919 * (i * n + j) + k
                r = ai.match([players[a], players[b]], 3, 4, 3, "classic", seed=seed)
                expected[a, b] += (r["winners"] == 0).sum()
                expected[b, a] += (r["winners"] == 1).sum()
    assert np.array_equal(t.wins, expected)
    assert (t.games + np.eye(n) * 6 == 6).all()  # 6 games for every pair, none with oneself
    rates, counts = ai.opening_win_rates(ai.Greedy(seed=4), ai.Random(seed=5), 5, 3, 3, seed=9)
    for cell in range(9):
        r = ai.match([ai.Greedy(seed=4), ai.Random(seed=5)], 5, 3, 3, seed=9 + cell,
                     first_move=cell)  # fmt: skip
        done = int((r["winners"] >= 0).sum())
        assert counts.flat[cell] == done
        assert rates.flat[cell] == float((r["winners"] == 0).sum()) / max(done, 1)


def test_mcts_analysis_reports_every_legal_move() -> None:
    g = colorwars.Game.from_text("3x3 classic 2 1a2b./.../... a ab - 3")
    player = ai.MCTS(simulations=400, seed=3, solver=False)
    moves = player.analyse(g)
    assert [m.cell for m in moves] == g.legal_moves()
    assert sum(m.visits for m in moves) == 400
    assert sum(m.share for m in moves) == pytest.approx(1.0)
    best = max(moves, key=lambda m: m.visits)
    assert best.cell == player.choose(g) == 0  # a1 wins at once
    assert best.win_rate == 1.0  # every playout through a won position is a win
    assert all(m.win_rate is None or 0 <= m.win_rate <= 1 for m in moves)
    with pytest.raises(InvalidPlayerError, match="only MCTS"):
        colorwars._core.ai_analyse(g._native, ai.Greedy().native_spec(), 0)


@pytest.mark.parametrize(
    ("size", "opening"),
    [
        ((2, 3, "classic"), ["a1"]),
        ((3, 2, "colorwars"), ["a1", "c2"]),
        ((2, 4, "colorwars"), ["b2", "a4"]),
        ((3, 3, "colorwars"), ["b2", "a1"]),
    ],
)
def test_solve_from_a_position_agrees_with_brute_force(
    size: tuple[int, int, str], opening: list[str]
) -> None:
    """`colorwars.solve(game)`: the position's value and every move's value match a brute
    force on the reference engine, and the line replays to the stated result."""
    w, h, rules = size
    for engine in (colorwars.Game, reference.Game):
        g = engine(width=w, height=h, rules=rules)
        for m in opening:
            g.play(m)
        s = colorwars.solve(g)
        memo: dict[str, int] = {}
        v = brute_force(reference.Game.from_text(g.to_text()), memo)
        assert (s.winner == g.to_move) == (v > 0)
        assert s.plies == abs(v)
        assert s.position == g.to_text()
        assert sorted(s.moves) == g.legal_moves()
        for cell, (winner, plies) in s.moves.items():
            after = reference.Game.from_text(g.to_text())
            after.play(cell)
            if after.winner is not None:
                assert (winner, plies) == (after.winner, 1)
                continue
            child = brute_force(after, memo)  # value for the player to move after the move
            assert (winner == after.to_move) == (child > 0)
            assert plies == abs(child) + 1
        replay = reference.Game.from_text(g.to_text())
        for cell in s.line:
            replay.play(cell)
        assert replay.winner == s.winner
        assert len(s.line) == s.plies
        best = s.winning_moves()
        if s.winner == g.to_move:
            assert best[0] in s.moves
            assert s.moves[best[0]] == (s.winner, s.plies)
        else:
            assert best == []


def test_solve_from_a_position_refuses_what_it_cannot_solve() -> None:
    with pytest.raises(InvalidPlayerError, match="two-player"):
        colorwars.solve(colorwars.Game(width=3, height=3, players=3))
    with pytest.raises(colorwars.ConfigError, match=r"expected a colorwars\.Game"):
        colorwars.solve(object())
    assert colorwars.solve("3x3", cache=False).winner == 1  # a size, as on the command line
    with pytest.raises(colorwars.ConfigError, match="game alone"):
        colorwars.solve(colorwars.Game(width=3, height=3), 3)
    done = colorwars.Game.from_text("2x2 classic 2 1a1a/1a1b a ab - 6")
    done.play("a1")
    s = colorwars.solve(done)
    assert (s.winner, s.plies, s.line, s.moves) == (0, 0, [], {})


def test_a_time_budget_alone_is_honoured() -> None:
    """`MCTS(time=T)` thinks for T (not until a default count of simulations), also on a big
    board where one playout is long; `AlphaBeta(depth, time)` stops at whichever comes first."""
    g = colorwars.Game(width=5, height=5)
    d = ai.MCTS(time=0.3, seed=1).search(g)
    assert d.work > 1000  # the old default count would have stopped it at 1000
    assert 0.25 <= d.seconds < 3.0
    assert ai.MCTS(time=0.3).simulations == 0
    assert ai.MCTS().simulations == 1000
    big = colorwars.Game(width=32, height=32, players=8)
    for _ in range(40):
        big.play(ai.Random(seed=big.ply).choose(big))
    d = ai.MCTS(time=0.3, seed=1).search(big)
    assert d.seconds < 3.0  # greedy playouts of 8 players on 32x32 stop with the budget
    deep = colorwars.Game(width=8, height=8, rules="classic")
    deep.play("d4")
    d = ai.AlphaBeta(depth=30, time=0.2).search(deep)
    assert d.seconds < 3.0  # depth 30 is far beyond 0.2 s: the time stops it
    assert ai.AlphaBeta().depth == 4
    assert ai.AlphaBeta(time=1.0).depth == 64


def test_mcts_solver_plays_a_proven_win_and_stops_searching() -> None:
    """MCTS-Solver: a1 wins at once (it takes b's only cell); the win is proven in the tree,
    the search stops there and the move is played."""
    g = colorwars.Game.from_text("3x3 classic 2 1a2b./.../... a ab - 3")
    d = ai.MCTS(simulations=100_000, seed=3).search(g)
    assert d.cell == 0
    assert d.work < 1000
    # Without the solver the whole budget is spent.
    assert ai.MCTS(simulations=2000, seed=3, solver=False).search(g).work == 2000


@pytest.mark.slow
def test_mcts_never_plays_into_a_short_forced_loss() -> None:
    """Positions where some moves win and some lose: MCTS (with the solver, which ranks
    proven wins first and proven losses last) never picks a move whose forced result is at
    most 4 plies away unless it wins (checked against the exact solver)."""
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(30):
        g = colorwars.Game(3, 3, rules="classic")
        while g.winner is None:
            exact = colorwars.solve(g)
            wins = exact.winning_moves()
            if wins and len(wins) < len(g.legal_moves()):
                move = ai.MCTS(simulations=3000, seed=int(rng.integers(1 << 30))).choose(g)
                checked += 1
                if exact.moves[move][1] <= 4:  # a short forced result: the tree proves it
                    assert move in wins, (g.to_text(), move)
            g.play(int(rng.choice(g.legal_moves())))
    assert checked > 20


def _plain(simulations: int = 1000, **kw: Any) -> ai.MCTS:
    """The plain UCT of earlier versions."""
    return ai.MCTS(simulations=simulations, c=0.7, solver=False, minimax=0.0, reuse=False, **kw)


def test_mcts_picks_winning_moves_more_often_than_the_plain_uct() -> None:
    """On 3x4 colorwars and 3x3 classic positions where some moves win and some lose (the
    truth from the exact solver), MCTS with its defaults picks a winning move at least as
    often as the plain UCT at the same 1,000 simulations, and in at least 95% of them
    (benchmarks/ai_accuracy.py measures this on 1,000 positions)."""
    rng = np.random.default_rng(5)
    hits = {"mcts": 0, "plain": 0}
    checked = 0
    for w, h, rules in [(3, 4, "colorwars"), (3, 3, "classic")] * 8:
        g = colorwars.Game(w, h, rules=rules)
        while g.winner is None:
            exact = colorwars.solve(g)
            wins = exact.winning_moves()
            if wins and len(wins) < len(g.legal_moves()):
                seed = int(rng.integers(1 << 30))
                hits["mcts"] += ai.MCTS(seed=seed).choose(g) in wins
                hits["plain"] += _plain(seed=seed).choose(g) in wins
                checked += 1
            g.play(int(rng.choice(g.legal_moves())))
    assert checked >= 60
    assert hits["mcts"] >= hits["plain"]
    assert hits["mcts"] >= 0.95 * checked, (hits, checked)


def test_mcts_beats_the_plain_uct_at_equal_simulations() -> None:
    """40 games on 5x5 colorwars, half with each first, 400 simulations a move each: the
    minimax backups and the solver win most of them (the README's equal-time matches are
    benchmarks/ai_versus.py)."""
    new, old = ai.MCTS(simulations=400, seed=1), _plain(400, seed=2)
    a = ai.match([new, old], 20, 5, 5, "colorwars", seed=3)
    b = ai.match([old, new], 20, 5, 5, "colorwars", seed=4)
    wins = int((a["winners"] == 0).sum()) + int((b["winners"] == 1).sum())
    assert wins >= 26, wins


def test_mcts_tree_reuse_in_matches_is_reproducible_and_changes_the_play() -> None:
    """With ``reuse`` (the default) a seat's search starts from its last tree: a match is
    still the same game for game when run again, and differs from one without reuse (the
    kept simulations change the choices)."""
    reuse = ai.MCTS(simulations=300, seed=1)
    fresh = ai.MCTS(simulations=300, seed=1, reuse=False)

    def games(p: ai.MCTS) -> list[tuple[int, int]]:
        out = ai.match([p, p], 8, 5, 5, "colorwars", seed=9)
        return list(zip(out["winners"].tolist(), out["plies"].tolist(), strict=True))

    assert games(reuse) == games(reuse)
    assert games(fresh) != games(reuse)


def test_the_versus_benchmark_runs() -> None:
    """benchmarks/ai_versus.py (the README's equal-time matches) on a tiny budget."""
    script = Path(__file__).parent.parent / "benchmarks" / "ai_versus.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    args = ["--a", "mcts:time=0.002", "--b", "alphabeta:time=0.002", "--games", "4"]
    out = subprocess.run(
        [sys.executable, str(script), *args, "--boards", "3x3:classic"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert "| 3x3 classic |" in out


@pytest.mark.slow
def test_the_ladder_benchmark_plays_in_parts_from_a_checkpoint(tmp_path: Path) -> None:
    """benchmarks/ladder.py --checkpoint (a long ladder played over several runs): each
    finished pair is kept; a second run plays none again and rates the same; a checkpoint of
    other settings, one in use by another run, or a damaged one, is one line of refusal
    naming it."""
    script = Path(__file__).parent.parent / "benchmarks" / "ladder.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    folder = tmp_path / "checkpoints"
    base = [sys.executable, str(script), "--boards", "4x4:classic", "--times", "0.01",
            "--players", "random,greedy,alphabeta", "--no-write",
            "--checkpoint", str(folder)]  # fmt: skip

    def run(*extra: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=300)
        assert (done.returncode == 0) == ok, done.stderr
        return done

    first = run("--games", "2").stdout
    assert first.count(" pairs)") == 3  # every pair played, each kept as it finished
    (checkpoint,) = folder.iterdir()
    assert checkpoint.name == "ladder-4x4-classic-0.01s.ckpt"
    second = run("--games", "2").stdout
    assert "3 pairs played before, resumed" in second
    assert " pairs)" not in second  # nothing played again

    def ratings(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith("  ") and "%" in line]

    assert ratings(second) == ratings(first)
    assert len(ratings(first)) == 3
    # --replay: the kept pairs of a player that changed are played again, the others kept;
    # the checkpoint is written without them at once.
    replayed = run("--games", "2", "--replay", "greedy").stdout
    assert "2 pairs of greedy dropped, to be played again" in replayed
    assert replayed.count(" pairs)") == 2
    assert "greedy" in replayed.split("dropped")[1].split("pairs)")[0]
    assert " pairs)" not in run("--games", "2").stdout  # all kept again
    refused = run("--games", "2", "--replay", "zero", ok=False).stderr.strip().splitlines()
    assert "--replay zero: not among the players" in refused[-1]
    alone = [a for a in base if a not in ("--checkpoint", str(folder))]
    done = subprocess.run([*alone, "--replay", "greedy"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--replay needs --checkpoint" in done.stderr.strip().splitlines()[-1]
    refused = run("--games", "4", ok=False).stderr.strip().splitlines()
    assert len(refused) == 1
    assert "holds a ladder of other settings" in refused[0]
    assert str(checkpoint) in refused[0]
    from colorwars._files import locked

    with locked(checkpoint, "ladder checkpoint"):  # another run is using it
        busy = run("--games", "2", ok=False).stderr.strip().splitlines()
    assert len(busy) == 1
    assert str(checkpoint) in busy[0]
    checkpoint.write_bytes(checkpoint.read_bytes()[:-5])
    damaged = run("--games", "2", ok=False).stderr.strip().splitlines()
    assert len(damaged) == 1
    assert damaged[0].startswith(f"invalid ladder checkpoint {checkpoint}")
