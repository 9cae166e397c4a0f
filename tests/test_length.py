"""Exact lengths by depth-bounded proof-number search (issue 19, section 3):
``colorwars.exact_length`` and ``colorwars solve --method length``.

Every length is checked against the alpha-beta solver (``solve``, whose lengths the tests
check against a brute force) on boards and positions both finish, and every line must replay
on the reference engine to the winner's win in exactly the length's plies.
"""

from __future__ import annotations

import random
from pathlib import Path

import colorwars
import pytest
from colorwars import ConfigError, InvalidPlayerError, InvalidSizeError, reference
from colorwars.cli import main

BOARDS = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)]


def replays_in(text: str, line: list[int], winner: int, plies: int) -> None:
    """The line, played on the reference engine from ``text``, ends in ``winner``'s win at
    its last move and not before, after exactly ``plies`` plies."""
    game = reference.Game.from_text(text)
    assert len(line) == plies
    for cell in line:
        assert game.winner is None, f"{text}: {line} goes on after the game ended"
        game.play(cell)
    assert game.winner == winner, f"{text}: {line} does not end in {winner}'s win"


@pytest.mark.parametrize("rules", ["classic", "colorwars", "drop3+subtract", "none+empty"])
@pytest.mark.parametrize(("width", "height"), BOARDS)
def test_the_length_agrees_with_alpha_beta(width: int, height: int, rules: str) -> None:
    ab = colorwars.solve(width, height, rules=rules, cache=False)
    n = colorwars.exact_length(width, height, rules)
    assert (n.winner, n.plies) == (ab.winner, ab.plies)
    # Both sides, each by a search of its own.
    assert n.proven
    assert n.refuted
    assert n.at_least == n.at_most == ab.plies
    replays_in(n.position, n.line, ab.winner, ab.plies)


def test_lengths_from_positions_of_random_games_agree_with_alpha_beta() -> None:
    rng = random.Random(19)
    for rules, (width, height) in [("colorwars", (3, 4)), ("classic", (3, 3))]:
        game = colorwars.Game(width, height, rules=rules)
        while game.winner is None:
            ab = colorwars.solve(game)
            n = colorwars.exact_length(game)
            assert (n.winner, n.plies) == (ab.winner, ab.plies), game.to_text()
            assert n.position == game.to_text()
            replays_in(n.position, n.line, ab.winner, ab.plies)
            game.play(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("start", [1, 2, 7, 13, 14, 15, 40])
def test_where_the_bounds_start_changes_the_work_not_the_length(start: int) -> None:
    """``start`` (a length bracketed by earlier runs): below, at or above the length, of either
    parity, the same length, proven and refuted; at the length, less work than the default."""
    default = colorwars.exact_length(3, 4, "colorwars")
    n = colorwars.exact_length(3, 4, "colorwars", start=start, verify=True)
    assert (n.winner, n.plies) == (default.winner, default.plies) == (1, 14)
    assert n.proven
    assert n.refuted
    assert n.checked is not None
    replays_in(n.position, n.line, 1, 14)
    if start == 14:
        assert n.positions < default.positions


def test_verify_walks_both_sides() -> None:
    n = colorwars.exact_length(3, 3, "classic", verify=True)
    assert (n.winner, n.plies) == (0, 13)
    assert n.checked is not None
    proof, refutation = n.checked
    assert proof > 0
    assert refutation > 0
    assert "checked" in str(n)
    assert colorwars.exact_length(3, 3, "classic").checked is None


def test_the_checks_walk_is_reported_apart_from_the_positions_searched() -> None:
    """With ``verify``, the walk of the proof and refutation (tens of thousands of visits
    on 4x4 colorwars) goes to ``check_progress``, counted by 1,024, and not into the
    positions searched, which grow only by what the check's own searches expand (they
    grew by every visit before). ``progress`` is not called once the check has begun."""
    calls: list[tuple[str, int]] = []
    n = colorwars.exact_length(
        4,
        4,
        "colorwars",
        verify=True,
        progress=lambda p: calls.append(("search", p)),
        check_progress=lambda w: calls.append(("walk", w)),
    )
    plain = colorwars.exact_length(4, 4, "colorwars")
    assert (n.winner, n.plies) == (plain.winner, plain.plies) == (1, 20)
    walks = [i for i, (kind, _) in enumerate(calls) if kind == "walk"]
    assert walks, calls
    assert all(kind == "walk" for kind, _ in calls[walks[0] :])
    walked = [w for _, w in calls[walks[0] :]]
    assert walked == sorted(walked)
    assert all(w % 1024 == 0 for w in walked)
    assert walked[-1] > 10_000
    assert n.positions - plain.positions < walked[-1] // 4
    # Without ``check_progress``, ``progress(positions)`` goes on being called as before.
    seen: list[int] = []
    colorwars.exact_length(3, 3, "classic", verify=True, progress=seen.append)
    assert seen
    assert colorwars.exact_length(3, 3, "classic", check_progress=print).checked is None


def test_a_finished_game_has_length_zero() -> None:
    game = colorwars.Game(2, 2)
    for cell in colorwars.solve(game).line:
        game.play(cell)
    n = colorwars.exact_length(game)
    assert (n.winner, n.plies, n.line) == (game.winner, 0, [])


def test_a_run_out_of_time_reports_no_length() -> None:
    n = colorwars.exact_length(6, 6, "classic", time=0.05, memory="16M")
    assert n.plies is None
    assert n.line == []
    assert not n.proven
    assert not n.refuted
    assert "not found" in str(n)
    # What it established is true: no game of 6x6 classic ends that soon.
    assert 0 <= n.at_least <= 72


def test_an_exception_from_progress_stops_the_search() -> None:
    seen: list[int] = []

    class StopError(Exception):
        pass

    def progress(positions: int) -> None:
        seen.append(positions)
        raise StopError

    with pytest.raises(StopError):
        colorwars.exact_length(6, 6, "classic", memory="16M", progress=progress)
    assert seen


def test_bad_arguments_are_value_errors() -> None:
    with pytest.raises(InvalidSizeError):
        colorwars.exact_length(1, 5)
    with pytest.raises(ConfigError):
        colorwars.exact_length(3, 3, time=-1)
    with pytest.raises(ConfigError):
        colorwars.exact_length(3, 3, memory="1K")
    with pytest.raises(ConfigError):
        colorwars.exact_length(3, 3, verify="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        colorwars.exact_length(3, 3, progress=5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="check_progress"):
        colorwars.exact_length(3, 3, check_progress=5)  # type: ignore[arg-type]
    for start in (0, -2, 10_001, 2.5, True, "20"):
        with pytest.raises(ConfigError, match="start"):
            colorwars.exact_length(3, 3, start=start)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        colorwars.exact_length(colorwars.Game(3, 3), 3)
    with pytest.raises(InvalidPlayerError):
        colorwars.exact_length(colorwars.Game(3, 3, players=3))
    for bad in (ConfigError, InvalidSizeError, InvalidPlayerError):
        assert issubclass(bad, ValueError)


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "3x3", "--method", "length", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "player b wins in exactly 10 plies" in out
    assert out.count("\n") == 1
    assert main(["solve", "7x7", "--method", "length", "--time", "0.1", "--memory", "16M"]) == 3
    assert "not found" in capsys.readouterr().out
    assert main(["solve", "3x3", "--method", "length", "--backend", "ray"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    # --start: the first bound (any gives the same length); only with --method length, and a
    # bad one is one line.
    assert main(["solve", "3x4", "--method", "length", "--start", "14", "--no-progress"]) == 0
    assert "player b wins in exactly 14 plies" in capsys.readouterr().out
    for wrong in (
        ["3x3", "--method", "alphabeta", "--start", "10"],
        ["3x3", "--method", "pn", "--start", "10"],
    ):
        assert main(["solve", *wrong, "--no-progress"]) == 1
        err = capsys.readouterr().err
        assert "--start is for --method length" in err
        assert err.count("\n") == 1
    assert main(["solve", "3x3", "--method", "length", "--start", "0", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "start" in err
    assert err.count("\n") == 1


@pytest.mark.slow
def test_a_checkpointed_search_resumes_where_it_stopped(tmp_path: Path) -> None:
    # A search stopped by its time keeps its table in the checkpoint; run again, it starts
    # from there and finds the length with what the first run settled, reporting the
    # positions and seconds of both runs.
    path = tmp_path / "3x4.table"
    fresh = colorwars.exact_length(3, 4, "classic", memory="64M")
    stopped = colorwars.exact_length(
        3, 4, "classic", memory="64M", time=0.3, checkpoint=path, save_every=1
    )
    assert stopped.plies is None
    assert path.exists()
    assert not path.with_name("3x4.table.tmp").exists()
    ended = colorwars.exact_length(3, 4, "classic", memory="64M", checkpoint=path)
    assert (ended.winner, ended.plies, ended.proven, ended.refuted) == (
        fresh.winner,
        fresh.plies,
        True,
        True,
    )
    assert ended.positions >= stopped.positions
    assert ended.seconds >= stopped.seconds
    # ... and says which are this run's: the totals include the earlier run's.
    assert (stopped.earlier_positions, stopped.earlier_seconds) == (0, 0.0)
    assert "earlier" not in str(stopped)
    assert ended.earlier_positions == stopped.positions
    assert ended.earlier_seconds == pytest.approx(stopped.seconds)
    this_run = ended.positions - stopped.positions
    assert f"with the checkpoint's earlier runs; this run {this_run:,} positions" in str(ended)
    # Done, the checkpoint answers at once, with no new positions.
    again = colorwars.exact_length(3, 4, "classic", memory="64M", checkpoint=path)
    assert (again.plies, again.positions) == (ended.plies, ended.positions)


@pytest.mark.slow
def test_a_checkpointed_check_longer_than_a_part_ends(tmp_path: Path) -> None:
    # With a checkpoint the search runs in parts of save_every seconds; a check whose walks
    # took longer than a part was stopped at the part's end and began again from nothing in
    # the next, for ever. Once the length is bracketed, the rest runs in one part. 4x5
    # colorwars: the refutation's walk visits millions of positions, seconds of work.
    path = tmp_path / "4x5.table"
    n = colorwars.exact_length(
        4, 5, "colorwars", memory="512M", verify=True, checkpoint=path, save_every=1, time=300
    )
    # A check that began again at every part would run into time=300 and find no length.
    assert (n.winner, n.plies, n.proven, n.refuted) == (1, 28, True, True)
    assert n.checked is not None
    assert n.checked[1] > 1_000_000


def test_a_damaged_or_foreign_checkpoint_is_a_file_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "3x3.table"
    colorwars.exact_length(3, 3, memory="16M", checkpoint=path)
    data = path.read_bytes()
    with pytest.raises(colorwars.FileError, match=r"3x3\.table: a checkpoint of 3x3 colorwars"):
        colorwars.exact_length(3, 3, "classic", memory="16M", checkpoint=path)
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(colorwars.FileError, match=r"3x3\.table: damaged: its CRC-32"):
        colorwars.exact_length(3, 3, memory="16M", checkpoint=path)
    path.write_bytes(data[:40])
    with pytest.raises(colorwars.FileError, match=r"3x3\.table: cut short"):
        colorwars.exact_length(3, 3, memory="16M", checkpoint=path)
    path.write_bytes(b"hello, world")
    with pytest.raises(colorwars.FileError, match="not a length-table checkpoint"):
        colorwars.exact_length(3, 3, memory="16M", checkpoint=path)
    with pytest.raises(colorwars.FileError, match="does not exist"):
        colorwars.exact_length(3, 3, checkpoint=tmp_path / "no" / "such.table")
    with pytest.raises(ConfigError, match="save_every"):
        colorwars.exact_length(3, 3, checkpoint=path, save_every=0)


def test_the_cli_keeps_a_length_search_in_a_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "3x3.table"
    args = ["solve", "3x3", "--checkpoint", str(path), "--no-progress"]
    assert main([*args, "--method", "length"]) == 0
    out = capsys.readouterr().out
    assert "player b wins in exactly 10 plies" in out
    assert "the table kept in" in out
    assert path.exists()
    # --start alone picks the length search too; --save-every 0 saves only at the end.
    assert main([*args, "--start", "10", "--save-every", "0"]) == 0
    assert "in exactly 10 plies" in capsys.readouterr().out
    path.write_bytes(b"junk")
    assert main([*args, "--method", "length"]) == 2  # a file that cannot be read
    err = capsys.readouterr().err
    assert "not a length-table checkpoint" in err
    assert err.count("\n") == 1


def test_a_checkpoint_in_use_is_refused_not_written_over(tmp_path: Path) -> None:
    """The length search locks its checkpoint as a proof does: it ran beside a proof on the
    same file and wrote its table over the proofs."""
    from colorwars import _files
    from colorwars.errors import FileError

    path = tmp_path / "shared.proofs"
    # Another run (a proof) holds it.
    with (
        _files.locked(path, "checkpoint"),
        pytest.raises(FileError, match="is in use by another run"),
    ):
        colorwars.exact_length(3, 3, "classic", memory="16M", checkpoint=path)
    assert not path.exists()
    colorwars.exact_length(3, 3, "classic", memory="16M", checkpoint=path)  # free again
    assert path.exists()


def test_a_game_already_won_is_said_so_without_an_empty_line() -> None:
    """It said "a win within 0 proven, within -1 refuted" and "line " with nothing after."""
    g = colorwars.Game(2, 2, rules="classic")
    while g.winner is None:
        g.play(g.legal_moves()[0])
    assert str(colorwars.exact_length(g)).endswith(
        ": player a has won: 0 plies to go (0 positions, 0.0 s)"
    )
    assert str(colorwars.solve(g)).endswith(": player a has won (0 positions, 0.00 s)")
