"""Proof-number search (issue 11): ``colorwars.prove`` and ``colorwars solve --method pn``.

Every result is checked against an independent search: the alpha-beta solver (``solve``, whose
own results the tests check against a brute force) must find the same winner on every board and
position both finish, and every proof's line must replay through the reference engine
(RULES.md §4: the last player holding orbs wins) to the proven winner.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import colorwars
import pytest
from colorwars import ConfigError, reference
from colorwars._files import seal, unseal
from colorwars.cli import main
from colorwars.proof import CHECKPOINT_FORMAT, CHECKPOINT_KIND, walk_strategy

BOARDS = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (2, 5)]


def replays_to(width: int, height: int, rules: str, moves: list[int], winner: int) -> None:
    """The line, played on the reference engine from the start, ends with ``winner`` winning."""
    game = reference.Game(width, height, 2, rules)
    for cell in moves:
        game.play(cell)
    assert game.winner == winner, f"{width}x{height} {rules}: {moves} does not end in a win"


@pytest.mark.parametrize("rules", ["classic", "colorwars", "drop3+subtract", "none+empty"])
@pytest.mark.parametrize(("width", "height"), BOARDS)
def test_the_board_winner_agrees_with_alpha_beta(width: int, height: int, rules: str) -> None:
    ab = colorwars.solve(width, height, rules=rules, cache=False)
    pn = colorwars.prove(width, height, rules=rules)
    assert pn.winner == ab.winner
    assert pn.complete
    replays_to(width, height, rules, pn.line, ab.winner)
    # Every group of symmetric first moves: proof-number search and alpha-beta agree.
    start = colorwars.Game(width, height, rules=rules)
    exact = colorwars.solve(start).moves
    assert sorted(c for g in pn.groups for c in g) == sorted(exact)
    for group in pn.groups:
        assert len({exact[c] for c in group}) == 1, f"group {group} is not symmetric"
        assert pn.moves[group[0]] == exact[group[0]][0]


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height", "rules"), [(3, 3, "classic"), (3, 4, "colorwars")])
def test_positions_of_random_games_agree_with_alpha_beta(
    width: int, height: int, rules: str
) -> None:
    rng = random.Random(f"{width}x{height}{rules}")
    for _ in range(6):
        game = colorwars.Game(width, height, rules=rules)
        while game.winner is None:
            ab = colorwars.solve(game)
            pn = colorwars.prove(game)
            assert pn.winner == ab.winner, game.to_text()
            for cell, winner in pn.moves.items():
                assert winner == ab.moves[cell][0], (game.to_text(), cell)
            replayed = reference.Game.from_text(game.to_text())
            for cell in pn.line:
                replayed.play(cell)
            assert replayed.winner == ab.winner
            game.play(rng.choice(game.legal_moves()))


def test_the_reference_game_is_accepted_and_a_finished_game_is_its_winner() -> None:
    ref = reference.Game(3, 3, 2, "classic")
    ref.play(4)
    native = colorwars.Game.from_text(ref.to_text())
    assert colorwars.prove(ref).winner == colorwars.solve(native).winner
    done = colorwars.Game(2, 2, rules="classic")
    for cell in colorwars.solve(2, 2, rules="classic", cache=False).line:
        done.play(cell)
    p = colorwars.prove(done)
    assert (p.winner, p.line, p.groups, p.complete) == (done.winner, [], [], True)


def test_unsplit_proves_the_position_alone() -> None:
    p = colorwars.prove(4, 4, rules="colorwars", split=False)
    assert (p.winner, p.groups, p.moves) == (1, [], {})
    replays_to(4, 4, "colorwars", p.line, 1)


def test_a_split_run_reads_every_group_from_the_positions_search() -> None:
    """Split (the default) searches the position whole first, in df-pn's own order, and reads
    each group's result from its proofs: no more positions than the unsplit search, where
    proving group after group took more (4 x 5 Color Wars: 126,222 against 89,952)."""
    whole = colorwars.prove(4, 5, rules="colorwars", split=False)
    split = colorwars.prove(4, 5, rules="colorwars")
    assert whole.winner == split.winner == 1
    assert split.complete
    assert set(split.moves) == {g[0] for g in split.groups}
    assert set(split.moves.values()) == {1}
    assert split.positions == whole.positions
    replays_to(4, 5, "colorwars", split.line, 1)


def test_a_proof_read_from_a_checkpoint_is_checked_without_searching_it_again(
    tmp_path: Path,
) -> None:
    """Where the table that found a proof was too small to keep all of it, the check reads
    what the checkpoint kept and searches again only where the walk needs a proof it lost:
    at the winner's turns the position itself, so that df-pn proves it through its best move.
    Searching each move in turn to its end spent the check disproving losing moves: 86,181
    positions here (and over ten minutes on 5 x 5 and on 6 x 6's centre group, which now
    check in seconds)."""
    path = tmp_path / "4x6.proofs"
    found = colorwars.prove(4, 6, split=False, memory="1M", threads=1, checkpoint=path)
    assert found.winner == 1
    checked = colorwars.prove(4, 6, split=False, verify=True, checkpoint=path, save_every=None)
    assert checked.winner == 1
    assert checked.checked is not None
    assert checked.checked > 10_000  # every game walked to its end, not a few lines
    assert checked.positions - found.positions < 5_000


def test_the_check_of_a_proof_reports_the_positions_it_walks() -> None:
    """With ``verify``, the walk of a found proof is progress of its own: the search's count
    went on growing by the positions walked, read as positions searched (a walk of 6 x 6's
    centre group showed billions)."""
    said: list[tuple[str, int]] = []
    p = colorwars.prove(
        4, 5, split=False, verify=True, progress=lambda message, n: said.append((message, n))
    )
    assert p.checked is not None
    searched = [n for m, n in said if m == "the position"]
    walked = [n for m, n in said if m == "the position, checking its proof"]
    assert searched
    assert walked, said
    assert max(searched) <= p.positions
    # The walk counts by 1,024 positions (each visit, the positions it walks again too).
    assert 0 < walked[-1] <= 1024 * (p.checked // 1024 + 64)
    assert walked == sorted(walked)
    first = next(i for i, (m, _) in enumerate(said) if m.endswith("checking its proof"))
    assert all(m.endswith("checking its proof") for m, _ in said[first:])


def test_the_native_search_calls_progress_with_one_argument_or_with_verify_two() -> None:
    """``_core.prove``'s progress contract: ``progress(positions)`` without ``verify``, and
    ``progress(positions, walked)`` at every call with it (``walked`` counted by 1,024, so 0
    until the check has walked its first 1,024 positions). It used to switch from one
    argument to two once the walk had passed 1,024 positions, so a callback written for the
    first calls failed later in the run."""
    from colorwars import _core

    game = colorwars.Game(4, 5)._native
    calls: list[tuple[int, ...]] = []
    for verify in (False, True):
        calls.clear()
        found = _core.prove(
            game,
            _core.ProofTable(1 << 24),
            progress=lambda *args: calls.append(args),
            interval=0.001,
            verify=verify,
        )
        assert found[0] == 1
        assert calls
        assert {len(args) for args in calls} == {2 if verify else 1}
        # The last call: every position searched (counted by 1,024).
        assert found[2] - 1024 < calls[-1][0] <= found[2]
    assert calls[-1][1] > 0  # and the walk's visits, once it has walked
    assert [args[1] for args in calls] == sorted(args[1] for args in calls)


def test_a_split_run_where_the_mover_wins_proves_the_other_groups_after() -> None:
    """Where the first player wins, the position's search needs one winning group: the others
    are proven after it, and every group agrees with alpha-beta (2 x 5 with bursts that lose
    their orbs: positions can repeat, and some first moves lose)."""
    said: list[str] = []
    p = colorwars.prove(
        2, 5, rules="none+empty", verify=True, progress=lambda message, _: said.append(message)
    )
    exact = colorwars.solve(colorwars.Game(2, 5, rules="none+empty")).moves
    # The position's search settled one group; the others were proven in slices after it.
    assert said[0].startswith("the position (0 of 3 groups proven)")
    assert {m.removesuffix(", checking its proof") for m in said if "slices" in m} == {
        "after a2 (1 of 3 groups proven, 5 s slices)",
        "after a3 (1 of 3 groups proven, 5 s slices)",
    }
    assert p.winner == 0
    assert p.complete
    assert p.checked is not None
    assert {c: w for c, w in p.moves.items()} == {g[0]: exact[g[0]][0] for g in p.groups}
    assert set(p.moves.values()) == {0, 1}  # not every first move wins


def test_a_checkpoint_whose_groups_were_proven_from_their_own_side_is_read(
    tmp_path: Path,
) -> None:
    """A checkpoint of an earlier version holds each group's proof from the side of the
    group's own mover (under Color Wars each side's proofs are kept apart): a resumed run reads
    them at once rather than search the whole position again."""
    from colorwars import _core

    whole = colorwars.prove(4, 5, rules="colorwars", split=False)
    path = tmp_path / "new.bin"
    colorwars.prove(4, 5, rules="colorwars", checkpoint=path)
    header, _ = unseal(path, path.read_bytes(), CHECKPOINT_KIND, CHECKPOINT_FORMAT, "c")
    start = _core.NativeGame.from_text(header["position"])
    table = _core.ProofTable(64 << 20)
    for group in _core.symmetric_moves(start):
        child = start.copy()
        child.play(group[0])
        assert _core.prove(child, table)[0] == 1  # the group's mover's side first, as before
    header.update(moves={}, lines={}, checked={}, positions=0, seconds=0.0)
    old = tmp_path / "old.bin"
    old.write_bytes(seal(CHECKPOINT_KIND, CHECKPOINT_FORMAT, header, table.proofs(2)))
    resumed = colorwars.prove(4, 5, rules="colorwars", checkpoint=old)
    assert resumed.complete
    assert resumed.winner == 1
    assert set(resumed.moves.values()) == {1}
    assert resumed.positions < whole.positions / 10


def test_a_search_can_try_either_sides_win_first() -> None:
    """``_core.prove(..., first=player)`` reads a position its parent's search settled (under
    Color Wars each side's proofs are kept apart); a player past 1 is refused."""
    from colorwars import _core

    start = _core.NativeGame.from_text(colorwars.Game(4, 5, rules="colorwars").to_text())
    table = _core.ProofTable(64 << 20)
    assert _core.prove(start, table)[0] == 1
    for group in _core.symmetric_moves(start):
        child = start.copy()
        child.play(group[0])
        winner, line, positions, *_ = _core.prove(child, table, positions=1, first=0)
        assert (winner, positions) == (1, 0)
        replays_to(4, 5, "colorwars", [group[0], *line], 1)
    with pytest.raises(ValueError, match="first"):
        _core.prove(start, table, first=2)


def test_a_tiny_table_still_proves() -> None:
    # One megabyte: the table replaces estimates all the time, never aborts, never lies.
    p = colorwars.prove(3, 3, rules="classic", memory="1M")
    assert p.winner == colorwars.solve(3, 3, rules="classic", cache=False).winner


def test_time_runs_out_without_a_wrong_answer() -> None:
    p = colorwars.prove(6, 6, rules="classic", time=0.2)
    assert p.winner is None
    assert not p.complete
    assert p.line == []
    assert all(w is None for w in p.moves.values()) or p.winner is None


@pytest.mark.slow
def test_checkpoint_resumes(tmp_path: Path) -> None:
    path = tmp_path / "proofs.bin"
    first = colorwars.prove(3, 4, rules="classic", checkpoint=path)
    assert first.complete
    assert path.read_bytes().startswith(b"colorwars proofs 2\n")
    # A resumed run finds every result in the file's proofs: each is proven again at once
    # (a result is derived from the proofs, never taken from the header).
    again = colorwars.prove(3, 4, rules="classic", checkpoint=path)
    assert (again.winner, again.moves) == (first.winner, first.moves)
    assert again.positions - first.positions < first.positions / 20
    # Its positions and seconds count the earlier run's too, and it says which are its own
    # (a resumed run of 1 s reported "5.2 s" with nothing to say it had run three times).
    assert (first.earlier_positions, first.earlier_seconds) == (0, 0.0)
    assert "earlier" not in str(first)
    assert again.earlier_positions == first.positions
    assert 0 < again.earlier_seconds <= first.seconds  # as saved, a moment before it ended
    assert f"this run {again.positions - first.positions:,} positions, " in str(again)
    # The saved proofs alone (results dropped) make the search much shorter.
    header, proofs = unseal(path, path.read_bytes(), CHECKPOINT_KIND, CHECKPOINT_FORMAT, "c")
    header.update(moves={}, lines={}, positions=0, seconds=0.0)
    bare = tmp_path / "bare.bin"
    bare.write_bytes(seal(CHECKPOINT_KIND, CHECKPOINT_FORMAT, header, proofs))
    resumed = colorwars.prove(3, 4, rules="classic", checkpoint=bare)
    assert resumed.moves == first.moves
    assert resumed.positions < first.positions / 4


@pytest.mark.slow
def test_an_interrupted_run_continues_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "run.bin"
    short = colorwars.prove(3, 4, rules="classic", time=0.3, checkpoint=path)
    assert not short.complete
    done = colorwars.prove(3, 4, rules="classic", checkpoint=path)
    assert done.complete
    assert done.winner == 0
    assert done.seconds >= short.seconds


def test_a_checkpoint_of_another_position_or_no_checkpoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.bin"
    colorwars.prove(2, 3, rules="classic", checkpoint=path)
    with pytest.raises(ConfigError, match="it is for the position"):
        colorwars.prove(3, 2, rules="classic", checkpoint=path)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"hello")
    with pytest.raises(ConfigError, match="not a colorwars checkpoint"):
        colorwars.prove(2, 3, checkpoint=junk)
    torn = tmp_path / "torn.bin"
    torn.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(ConfigError, match=r"where the header says \d+ \(cut short\)"):
        colorwars.prove(2, 3, rules="classic", checkpoint=torn)
    # Longer than it should be is not called cut short.
    grown = tmp_path / "grown.bin"
    grown.write_bytes(path.read_bytes() + b"xyz")
    with pytest.raises(ConfigError, match=r"\(something added after it\)"):
        colorwars.prove(2, 3, rules="classic", checkpoint=grown)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"memory": "lots"}, ConfigError),
        ({"memory": "0.5K"}, ConfigError),
        ({"memory": 10**30}, ConfigError),
        ({"memory": "900T"}, MemoryError),
        ({"time": -1}, ConfigError),
        ({"time": float("nan")}, ConfigError),
        ({"backend": "dask"}, ConfigError),
        ({"split": 1}, ConfigError),
        ({"threads": -1}, ConfigError),
        ({"threads": 65}, ConfigError),
        ({"threads": 1.5}, ConfigError),
        ({"threads": True}, ConfigError),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        colorwars.prove(2, 2, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("width", "height", "rules"),
    [
        (3, 3, "classic"),
        (3, 3, "colorwars"),
        (3, 3, "none+empty"),
        (3, 4, "colorwars"),
        (4, 3, "colorwars"),
        (2, 5, "none+empty"),
    ],
)
def test_threads_prove_what_one_thread_proves(width: int, height: int, rules: str) -> None:
    """Parallel df-pn (``threads``, one shared table): the same winners as one searcher, from
    the start and after every group of first moves, each proof walked to the end of every
    game; the lines replay to the winner."""
    one = colorwars.prove(width, height, rules=rules, threads=1, verify=True)
    assert one.threads == 1
    for threads in (2, 3):
        for split in (True, False):
            many = colorwars.prove(
                width, height, rules=rules, threads=threads, split=split, verify=True
            )
            assert many.threads == threads
            assert many.winner == one.winner
            assert many.complete
            assert many.checked is not None
            replays_to(width, height, rules, many.line, one.winner)
            if split:
                assert many.moves == one.moves


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height", "rules"), [(3, 4, "classic"), (4, 3, "none+empty")])
def test_threads_on_boards_of_millions_of_positions(width: int, height: int, rules: str) -> None:
    """Unsplit, where the threads share one search of millions of positions (and under
    ``empty``, where positions repeat): the winner of one thread, a checked proof."""
    one = colorwars.prove(width, height, rules=rules, threads=1, split=False)
    many = colorwars.prove(width, height, rules=rules, threads=2, split=False, verify=True)
    assert one.winner is not None
    assert many.winner == one.winner
    assert many.checked is not None
    replays_to(width, height, rules, many.line, one.winner)


def test_threads_default_to_the_cores_and_show_in_the_result() -> None:
    from colorwars.proof import cores

    p = colorwars.prove(3, 3, rules="colorwars", threads=0)
    assert p.threads == min(cores(), 64)
    assert colorwars.prove(3, 3, rules="colorwars").threads == 1
    assert colorwars.prove(3, 3, rules="colorwars", threads=0).threads == p.threads
    assert (", 2 threads" in str(colorwars.prove(3, 3, threads=2))) is True
    assert "threads" not in str(colorwars.prove(3, 3, threads=1))


def test_threads_stop_on_time_and_resume_from_a_checkpoint(tmp_path: Path) -> None:
    """Time runs out with two threads: nothing wrong is claimed; the checkpoint then lets a
    run with one thread finish, and it agrees."""
    path = tmp_path / "t.bin"
    first = colorwars.prove(4, 4, rules="classic", time=0.3, threads=2, checkpoint=path)
    assert first.winner is None
    assert not first.complete
    done = colorwars.prove(3, 4, rules="colorwars", threads=2, checkpoint=tmp_path / "u.bin")
    again = colorwars.prove(3, 4, rules="colorwars", threads=1, checkpoint=tmp_path / "u.bin")
    fresh = colorwars.prove(3, 4, rules="colorwars", threads=1)
    assert done.winner == again.winner == fresh.winner == colorwars.solve(3, 4, cache=False).winner
    # The resumed run counts the checkpoint's positions and adds its own: a few, to walk the
    # saved proofs back up to the root (3 to 13 in 200 runs after two threads, whose saved
    # proofs vary), not a search anew.
    assert done.positions <= again.positions < done.positions + fresh.positions // 10


@pytest.mark.slow
def test_a_whole_position_run_saves_as_it_goes_and_a_killed_run_resumes(tmp_path: Path) -> None:
    """``split=False`` with a checkpoint saves every ``save_every`` seconds while it searches,
    so a run killed outright (no Ctrl-C, nothing saved at the end) keeps what it had proven:
    the next run reads it, counts its positions and finishes with the same winner."""
    import subprocess
    import sys
    import time

    path = tmp_path / "whole.bin"
    script = (
        "import colorwars\n"
        f"colorwars.prove(3, 4, rules='classic', split=False, checkpoint={str(path)!r}, "
        "save_every=0.2, memory='64M')\n"
    )
    run = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        while not path.exists() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert path.exists(), "no checkpoint was saved while the search ran"
        assert run.poll() is None, "the search ended before it was killed (make it longer)"
    finally:
        run.kill()
        run.wait()
    header, _ = unseal(path, path.read_bytes(), CHECKPOINT_KIND, CHECKPOINT_FORMAT, "c")
    assert header["positions"] > 0
    assert header["moves"] == {}
    fresh = colorwars.prove(3, 4, rules="classic", split=False, memory="64M")
    resumed = colorwars.prove(3, 4, rules="classic", split=False, checkpoint=path, memory="64M")
    assert resumed.winner == fresh.winner == colorwars.solve(3, 4, rules="classic").winner
    # The resumed count includes the saved one; the saved proofs can only spare work (a run
    # killed early may have proven nothing worth keeping yet: then the rest is a new search).
    assert header["positions"] < resumed.positions <= header["positions"] + fresh.positions
    replays_to(3, 4, "classic", resumed.line, fresh.winner)


@pytest.mark.slow
def test_a_verified_proof_whose_check_outlasts_a_part_finishes(tmp_path: Path) -> None:
    """With ``verify``, a part that proves the position but runs out of time walking the proof
    is followed by one with all the time left: the walk starts again from the root each
    time, so parts shorter than it would never finish it."""
    p = colorwars.prove(
        3, 4, rules="classic", split=False, verify=True, save_every=0.1,
        checkpoint=tmp_path / "v.bin", memory="64M", time=600,
    )  # fmt: skip
    assert p.complete
    assert p.winner == 0
    assert p.checked is not None
    assert p.checked > 0


def test_save_every_is_checked() -> None:
    with pytest.raises(ConfigError, match="save_every"):
        colorwars.prove(3, 3, save_every=0)
    with pytest.raises(ConfigError, match="save_every"):
        colorwars.prove(3, 3, save_every=float("nan"))


def test_the_parallel_benchmark_runs() -> None:
    """benchmarks/bench_prove.py (the speedup of two threads) on its small boards."""
    import subprocess
    import sys

    script = Path(__file__).parent.parent / "benchmarks" / "bench_prove.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    out = subprocess.run(
        [sys.executable, str(script), "--quick", "--no-write", "--threads", "2"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert "| 4x4 | colorwars | 2 |" in out
    assert "| 3x3 | classic | 1 |" in out


def test_the_solve_table_benchmark_runs() -> None:
    """benchmarks/solve_table.py (both searches on every small board, which must agree) on
    the boards of up to nine cells."""
    import subprocess
    import sys

    script = Path(__file__).parent.parent / "benchmarks" / "solve_table.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    out = subprocess.run(
        [sys.executable, str(script), "--quick", "--no-write"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert "| 3x3 | classic | a (first) | 13 |" in out
    assert "| 3x3 | colorwars | b (second) | 10 |" in out
    assert "3x4" not in out


def test_more_than_two_players_are_refused() -> None:
    with pytest.raises(colorwars.InvalidPlayerError, match="two-player"):
        colorwars.prove(colorwars.Game(3, 3, players=3))


def test_the_cli_proves_and_keeps_a_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.bin"
    assert main(["solve", "3x3", "--rules", "colorwars", "--checkpoint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3x3 colorwars: player b wins" in out
    assert "a1/c1/a3/c3: b" in out
    assert path.exists()
    args = ["solve", "3x3", "--rules", "classic", "--method", "pn", "--memory", "8M", "--no-split"]
    assert main(args) == 0
    assert "player a wins" in capsys.readouterr().out
    assert main([*args, "--threads", "2"]) == 0
    assert "player a wins" in capsys.readouterr().out
    assert main([*args, "--threads", "99"]) == 1
    assert "threads" in capsys.readouterr().err


def test_the_cli_proves_one_group_after_its_first_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--after MOVES`` proves the position after those moves (how a group of a big board,
    6 x 6's c3, is proven alone), with a checkpoint and the same winner as ``prove(game)``."""
    game = colorwars.Game(4, 4)
    game.play("b2")
    expected = colorwars.prove(game, split=False).winner
    path = tmp_path / "b2.bin"
    args = ["solve", "4x4", "--after", "b2", "--no-split", "--checkpoint", str(path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"4x4 colorwars after b2: player {'ab'[expected]} wins" in out
    assert path.exists()

    # --verify walks the proof read back from the checkpoint to the end of every game, not a
    # proof searched again: the positions (the checkpoint's count and this run's) barely grow.
    def searched(text: str) -> int:
        found = re.search(r"wins \(([\d,]+) positions", text)
        assert found is not None, text
        return int(found.group(1).replace(",", ""))

    assert main([*args, "--verify", "--no-progress"]) == 0
    checked = capsys.readouterr().out
    assert f"after b2: player {'ab'[expected]} wins" in checked
    assert "; proof checked: " in checked
    assert searched(checked) - searched(out) < searched(out) // 10
    assert main(["solve", "4x4", "--after", "b2,a1", "--no-progress"]) == 0
    assert "4x4 colorwars after b2 a1: player" in capsys.readouterr().out
    # A cell's number, as the game takes it, said by its name ("12" was "not a cell name").
    assert main(["solve", "4x4", "--after", "5 0", "--no-progress"]) == 0
    assert "4x4 colorwars after b2 a1: player" in capsys.readouterr().out
    assert main(["solve", "4x4", "--after", "z9"]) == 1
    err = capsys.readouterr().err
    assert "z9" in err
    assert len(err.strip().splitlines()) == 1
    # An illegal move among several: which one, named as typed, and why.
    assert main(["solve", "4x4", "--after", "b2 a1 a1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --after, move 3 of 3 (a1): illegal move a1 (cell 0): ")
    assert "a cell of their own" in err
    assert len(err.strip().splitlines()) == 1
    assert main(["solve", "4x4", "--after", "b2", "--method", "length"]) == 1
    assert "--after is for --method pn, not length" in capsys.readouterr().err


def test_the_cli_says_when_nothing_was_proven(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "7x7", "--method", "pn", "--time", "0.2", "--threads", "1"]) == 3
    assert "not proven" in capsys.readouterr().out
    assert main(["solve", "3x3", "--memory", "lots"]) == 1
    assert "memory" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("width", "height", "rules"),
    [(3, 3, "classic"), (3, 3, "colorwars"), (4, 3, "colorwars"), (4, 4, "colorwars")],
)
def test_the_proof_is_a_winning_strategy_on_the_reference_engine(
    width: int, height: int, rules: str
) -> None:
    start = colorwars.Game(width, height, rules=rules)
    proof = colorwars.prove(start, verify=True)
    assert proof.winner is not None
    assert proof.checked is not None
    assert proof.checked > 0
    assert walk_strategy(start) >= proof.checked / 8  # symmetric positions count once in checked


@pytest.mark.slow
def test_the_second_player_wins_5x5_color_wars() -> None:
    """The phone app's board (5 x 5, drop3 + empty): the second player wins, after every
    first move; the strategy is walked to the end of every game on the reference engine."""
    proof = colorwars.prove(5, 5, rules="colorwars", verify=True)
    assert proof.winner == 1
    assert proof.complete
    assert len(proof.groups) == 6
    assert set(proof.moves.values()) == {1}
    replays_to(5, 5, "colorwars", proof.line, 1)
    assert walk_strategy(5, 5, rules="colorwars") > 1000


def test_a_split_run_out_of_time_reads_no_group_past_its_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a big board each group's read expands a thousand positions or two (seconds on
    32 x 32): a run whose time is up stops reading groups once the grace is spent, rather than
    read every group of first moves (it overran a one-second budget by minutes)."""
    from colorwars import proof

    calls: list[float | None] = []
    real = proof._core.prove

    def counting(*args: object, **kw: object) -> object:
        calls.append(args[2])  # type: ignore[arg-type]  # the seconds it may take
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(proof._core, "prove", counting)
    monkeypatch.setattr(proof, "READ_GRACE", 0.0)
    p = colorwars.prove(12, 12, rules="classic", time=0.2)
    assert p.winner is None
    assert p.complete is False
    assert len(calls) == 1  # the position's search; no read after the time was up
    # With grace, every read is bounded by the time left and the grace.
    calls.clear()
    monkeypatch.setattr(proof, "READ_GRACE", 0.5)
    colorwars.prove(12, 12, rules="classic", time=0.2)
    assert len(calls) > 1
    assert all(s is not None and s <= 0.2 + 0.5 for s in calls[1:])


@pytest.mark.parametrize("split", [True, False])
def test_a_checkpoint_saved_on_an_interrupt_counts_the_positions_searched(
    tmp_path: Path, split: bool
) -> None:
    """Ctrl-C (here from the progress callback) saves the checkpoint with the positions the
    interrupted search had taken; it recorded 0, and the resumed run's total left them out."""
    path = tmp_path / "cut.proofs"
    seen: list[int] = []

    def progress(message: str, positions: int) -> None:
        seen.append(positions)
        if positions > 20_000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        colorwars.prove(5, 5, checkpoint=path, progress=progress, split=split)
    header, _ = unseal(path, path.read_bytes(), CHECKPOINT_KIND, CHECKPOINT_FORMAT, "c")
    assert header["positions"] >= max(seen) > 20_000


def test_a_proof_whose_checkpoint_cannot_be_written_still_gives_its_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full disk at the last save lost a finished proof: only the error was printed."""
    from colorwars import proof
    from colorwars.errors import FileError

    def full(path: Path, *args: object) -> None:
        raise FileError(f"cannot write checkpoint {path}: No space left on device")

    monkeypatch.setattr(proof, "_save", full)
    path = tmp_path / "p.proofs"
    p = colorwars.prove(3, 3, rules="classic", checkpoint=path)
    assert (p.winner, p.complete) == (0, True)
    assert p.unsaved == f"cannot write checkpoint {path}: No space left on device"
    assert main(["solve", "3x3", "--rules", "classic", "--method", "pn", "--no-progress",
                 "--checkpoint", str(path)]) == 2  # fmt: skip
    out, err = capsys.readouterr()
    assert out.startswith("3x3 classic: player a wins")
    assert err == (
        f"error: cannot write checkpoint {path}: No space left on device (the result above "
        "stands; its proofs were not kept)\n"
    )
