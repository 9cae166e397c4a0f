"""The `colorwars` command line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import colorwars
import pytest
from colorwars.cli import main

GAMES = Path(__file__).parent.parent / "seeds" / "games"


def test_replay_shows_every_move_and_wave(capsys: pytest.CaptureFixture[str]) -> None:
    path = GAMES / "31-classic-2x2-2p-never-settles.cwr"
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1. player" in out
    assert "wave 1:" in out
    assert "burst" in out
    assert "player a wins" in out
    assert "match the replay" in out


def test_replay_on_the_reference_engine(capsys: pytest.CaptureFixture[str]) -> None:
    path = GAMES / "05-colorwars-5x5-2p.cwr"
    assert main(["replay", "--engine", "reference", "--final-only", str(path)]) == 0
    native_out = capsys.readouterr().out
    assert main(["replay", "--final-only", str(path)]) == 0
    assert capsys.readouterr().out == native_out


def test_replay_errors_are_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.cwr"
    bad.write_text("size: 3x3\nmoves: a1 a1\n")
    assert main(["replay", str(bad)]) == 1
    assert "move 2" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.cwr")]) == 2


def test_console_script_is_installed() -> None:
    """The `colorwars` entry point runs as a program (python -m colorwars.cli as a stand-in
    for the console script that pip installs)."""
    path = GAMES / "01-colorwars-2x2-2p.cwr"
    done = subprocess.run(
        [sys.executable, "-m", "colorwars.cli", "replay", "--quiet", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "final position" in done.stdout


@pytest.mark.parametrize("command", [["simulate", "--games", "10"], ["tournament", "--games", "2"]])
def test_a_closed_standard_output_is_one_error(command: list[str]) -> None:
    # `colorwars simulate >&-` printed a traceback: Python gives None for a closed stream.
    done = subprocess.run(
        [sys.executable, "-m", "colorwars", *command], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, timeout=300, check=False,
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert done.stderr == "error: standard output: it is closed\n"
    assert done.returncode == 2


@pytest.mark.parametrize("command", ["simulate", "openings"])
def test_the_batch_commands_help_lists_the_players_they_take(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # openings' help listed zero, zeroab, perfect and engine:, which it refuses.
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for name in ("random", "greedy", "mcts[:SIMULATIONS]", "alphabeta[:DEPTH]", "learned"):
        assert name in help_text
    for name in ("zero", "perfect", "engine:"):
        assert name not in help_text
    assert main([command, "--size", "3x3", "--games", "2", "--seats", "learned:1,mcts:8"]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # "invalid address 'x': expected an address text with backend='ray'", and for
        # simulate --shards 0 the API's "shards and address go with backend='ray'".
        (["tournament", "--games", "2", "--address", "x"], "--address needs --backend ray"),
        (["openings", "--address", "x"], "--address needs --backend ray"),
        (["ladder", "random", "greedy", "--address", "x"], "--address needs --backend ray"),
        (["simulate", "--shards", "0"], "--shards needs --backend ray"),
        (["simulate", "--shards", "2", "--address", "x"], "--address and --shards need --backe"),
    ],
)
def test_ray_options_without_the_ray_backend_are_named(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # The total was called each match's ("12 matches of 6,597,069,766,656 games").
        (["tournament"], "12 matches, 6,597,069,766,656 games in all, needs about"),
        (["openings", "--size", "3x3"], "9 matches, 9,895,604,649,984 games in all, needs"),
        # numpy's own "Unable to allocate 4.00 TiB for an array with shape ...".
        (["ladder", "random", "greedy"], "1 pair, 1,099,511,627,776 games in all, needs about"),
    ],
)
def test_too_many_games_for_memory_says_how_many_in_all(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--games", str(2**40)]) == 1
    assert capsys.readouterr().err.startswith(f"error: out of memory: {said}")


def test_a_tournament_tells_entrants_of_one_name_apart_and_refuses_an_empty_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Two rows named random, and random,,greedy silently dropped the empty name.
    assert main(["tournament", "--entrants", "random,greedy,random", "--games", "2",
                 "--size", "3x3"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "random#0" in out
    assert "random#2" in out
    assert "greedy" in out
    assert main(["tournament", "--entrants", "random,,greedy", "--games", "2"]) == 1
    assert "an empty name" in capsys.readouterr().err


def test_simulate_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3000", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "3,000 games, 5x5 colorwars, 2 players, seed 4" in out
    assert "a (first)" in out
    assert "95% interval" in out
    assert "game length: mean" in out
    assert "plies/s" in out
    assert "s on all cores)" in out
    for threads, said in (("1", "on 1 thread)"), ("2", "on 2 threads)")):
        assert main(["simulate", "--games", "200", "--threads", threads]) == 0
        assert said in capsys.readouterr().out


def test_simulate_options_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "games.json"
    code = main(
        [
            "simulate",
            "--games",
            "500",
            "--size",
            "6x4",
            "--rules",
            "classic",
            "--players",
            "3",
            "--seats",
            "greedy,random,random",
            "--first",
            "b",
            "--threads",
            "1",
            "--max-plies",
            "40",
            "--output",
            str(out_file),
            "--record",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)  # stdout is the JSON alone
    assert summary["board"] == "6x4"
    assert summary["seats"] == ["greedy", "random", "random"]
    doc = json.loads(out_file.read_text())
    assert len(doc["moves"]) == 500
    assert max(doc["games"]["plies"]) <= 40
    # The recorded games replay.
    g = colorwars.Game(6, 4, 3, "classic", first=1)
    for m in doc["moves"][0]:
        g.play(m)
    assert (g.winner if g.winner is not None else -1) == doc["games"]["winner"][0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "smart"], "invalid player"),
        (["--size", "1x5"], "2 to 32"),
        (["--output", "x.txt"], ".csv or .json"),
        # "invalid first player 2": the index, not the letter typed.
        (["--first", "c"], "invalid --first c: a game of 2 players has the players a to b"),
    ],
)
def test_simulate_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "10", *args]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "0"],
        ["simulate", "--games", "-5"],
        ["tournament", "--entrants", "random,greedy", "--games", "0"],
        ["openings", "--games", "0"],
        # The API's range, "from 0 to 2**40", named a 0 the command refuses.
        ["simulate", "--games", "99999999999999999999999"],
    ],
)
def test_no_games_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Before, --games 0 printed tables of nothing and exited 0.
    with pytest.raises(SystemExit) as usage:
        main(argv)
    assert usage.value.code == 2
    assert "games: expected from 1 to 2**40" in capsys.readouterr().err


@pytest.mark.parametrize("games", ["-2", "0", "3", str(2**41)])
def test_the_ladders_games_are_even_from_two(
    games: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["ladder", "random", "greedy", "--games", games])
    assert usage.value.code == 2
    assert f"{games} games: expected an even number from 2 to 2**40" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_that_cannot_be_made_stops_the_run_before_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # /proc passes every permission check for root and takes no new file: the file is made
    # and removed before the games, rather than failing after them.
    assert main(["simulate", "--games", "2", "--output", "/proc/results.csv"]) == 2
    captured = capsys.readouterr()
    assert "cannot write results /proc/results.csv" in captured.err
    assert "games/s" not in captured.out
    with pytest.raises(colorwars.FileError, match="cannot write"):
        colorwars.simulate(2).write("/proc/results.csv")


def test_ladder_outputs_must_be_named_for_what_they_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ladder", "random", "greedy", "--games", "2", "--png", "x.txt"]) == 1
    assert "picture 'x.txt': the file name must end in .png" in capsys.readouterr().err
    assert main(["ladder", "random", "greedy", "--games", "2", "--json", "x.csv"]) == 1
    assert "must end in .json" in capsys.readouterr().err


def test_solve_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path))
    assert main(["solve", "3x3", "--rules", "classic"]) == 0
    out = capsys.readouterr().out
    assert "3x3 classic: player a wins in 13 plies" in out
    assert (tmp_path / "solutions.cache").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # An option the method named does not take was quietly ignored: `--method alphabeta
        # --time 1` ran proof-number search, `--threads -1` with alpha-beta was never read.
        (["--method", "alphabeta", "--time", "1"], "--time is for --method pn or --method length"),
        (["--method", "alphabeta", "--threads", "2"], "--threads is for --method pn, not alpha"),
        (["--method", "length", "--threads", "0"], "--threads is for --method pn, not length"),
        (["--method", "pn", "--max-depth", "30"], "--max-depth is for --method alphabeta"),
        (["--time", "5", "--max-depth", "30"], "--max-depth is for --method alphabeta, not proof"),
        (["--method", "length", "--no-split"], "--no-split is for --method pn"),
        (["--method", "alphabeta", "--verify"], "--verify is for --method pn or --method length"),
        (["--method", "length", "--backend", "ray"], "--backend ray is for --method pn"),
        (["--method", "alphabeta", "--checkpoint", "x.bin"], "--checkpoint is for --method pn"),
        (["--address", "127.0.0.1:1"], "--address needs --backend ray"),
        (["--method", "pn", "--save-every", "5"], "--save-every needs --checkpoint"),
        # 0 is allowed (only at the end), which the range the API gave did not say.
        (["--checkpoint", "c.proofs", "--save-every", "0.05"], "from 0.1 to 1e+09, or 0 (save"),
        (["--method", "length", "--checkpoint", "c.t", "--save-every", "0.5"], "from 1 to 1e+09"),
        (["--checkpoint", "c.proofs", "--save-every", "nan"], "invalid --save-every nan"),
        (["--threads", "-1"], "invalid threads -1"),  # pn's options imply pn, which checks it
        (["--max-depth", "0"], "invalid --max-depth 0: expected a whole number from 1"),
        (["--log-every", "-1"], "invalid --log-every -1: expected seconds from 0"),
        (["--method", "pn", "--log-every", "nan"], "invalid --log-every nan"),
    ],
)
def test_solve_refuses_options_its_method_does_not_take(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", "3x3", "--no-progress", *args]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_cache_setting_that_names_a_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # It said "cannot read solver cache F/solutions.cache: Not a directory; delete it", and
    # deleting the cache was no remedy: the setting named a file.
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "a-file"))
    assert main(["solve", "3x3"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'a-file'} is a file, not a folder; point COLORWARS_CACHE_DIR at" in err
    assert err.count("\n") == 1
    assert (tmp_path / "a-file").read_text() == "x"
    assert main(["solve", "3x3", "--no-cache"]) == 0


@pytest.mark.parametrize("board", ["33x33", "2x40"])
def test_solve_refuses_a_board_too_large_before_any_note(
    board: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A board that is not allowed got alpha-beta's "may take hours" note first.
    assert main(["solve", board]) == 1
    err = capsys.readouterr().err
    said = f"error: invalid board size {board}: width and height must each be a whole number"
    assert err == said + " from 2 to 32\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "3x3 colorwars: player b wins in 10 plies"),  # alpha-beta
        (["--max-depth", "12"], "player b wins in 10 plies"),
        (["--time", "30"], "after each first move, the winner"),  # proof-number search
        (["--threads", "1"], "after each first move, the winner"),
        (["--start", "6"], "player b wins in exactly 10 plies"),  # the exact length
        (["--method", "PN"], "after each first move, the winner"),  # methods ignore case
        (["--verify"], "; proof checked: "),  # proof-number search, each proof walked
        (["--method", " Length "], "player b wins in exactly 10 plies"),
        # The length's proof and refutation, each walked to the end of every line.
        (["--start", "10", "--verify"], "; checked: proof "),
        (["--method", "length", "--verify"], "; checked: proof "),
    ],
)
def test_solve_runs_the_method_its_options_are_for(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", "3x3", "--no-cache", "--no-progress", *args]) == 0
    assert said in capsys.readouterr().out


@pytest.mark.parametrize("method", ["alphabeta", "pn", "length"])
def test_solve_off_a_terminal_logs_its_progress_on_stderr(
    method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run of hours under nohup showed nothing in its log until it ended: off a terminal a
    # plain line goes to stderr every --log-every seconds (tiny here: every report is one),
    # and the result alone to stdout.
    args = ["solve", "3x3", "--rules", "classic", "--no-cache", "--method", method]
    assert main([*args, "--log-every", "1e-9"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines, "no progress line"
    said = re.compile(r"[^\n]+: [\d,]+ positions, [\d,]+ s")
    assert all(said.fullmatch(line) for line in lines)
    assert not any(said.fullmatch(line) for line in out.splitlines())
    assert "player a wins" in out
    assert main([*args, "--log-every", "0"]) == 0  # 0: none
    assert capsys.readouterr().err == ""
    assert main([*args, "--no-progress", "--log-every", "1e-9"]) == 0
    assert capsys.readouterr().err == ""


def test_a_length_check_logs_the_positions_it_walks(capsys: pytest.CaptureFixture[str]) -> None:
    # The check of a length walks its proof and refutation; its log said the search's count,
    # which stood still meanwhile (4x4 classic's check was stopped after 20 minutes of it).
    args = ["solve", "4x4", "--rules", "colorwars", "--method", "length", "--verify"]
    assert main([*args, "--log-every", "1e-9"]) == 0
    out, err = capsys.readouterr()
    walks = re.findall(r"exact length, checking the proof and refutation: ([\d,]+) positions", err)
    assert walks, err
    assert int(walks[-1].replace(",", "")) > 10_000
    assert "checked: proof " in out


@pytest.mark.parametrize(("method", "kept"), [("pn", "the proofs"), ("length", "the table")])
def test_ctrl_c_during_a_solve_with_a_checkpoint_says_where_it_is_kept(
    method: str, kept: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run stopped by --time said "(proofs kept in FILE)"; one stopped by Ctrl-C only
    # "error: interrupted", though it saves first too.
    path = tmp_path / f"{method}.checkpoint"
    args = ["solve", "6x6", "--rules", "classic", "--method", method, "--memory", "64M"]
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    timer = threading.Timer(2.0, signal.pthread_kill, (main_thread, signal.SIGINT))
    timer.start()
    try:
        code = main([*args, "--checkpoint", str(path), "--no-progress"])
    finally:
        timer.cancel()
    assert code == 130
    assert capsys.readouterr().err == f"error: interrupted: {kept} kept in {path}\n"
    assert path.is_file()


def test_a_cached_solve_keeps_to_its_max_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cache answered whatever --max-depth said; a search within 5 plies finds nothing.
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path))
    assert main(["solve", "3x3"]) == 0
    assert "in 10 plies" in capsys.readouterr().out
    assert main(["solve", "3x3", "--max-depth", "5"]) == 1
    assert "no result proven within 5 plies" in capsys.readouterr().err
    assert main(["solve", "3x3", "--max-depth", "10"]) == 0
    assert "in 10 plies" in capsys.readouterr().out


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["solve", "3x3", "--method", "magic"], ["simulate", "--games", "x"], ["solv"]):
        with pytest.raises(SystemExit) as usage:
            main(argv)
        assert usage.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert "error:" in err
        assert "--help" in err


def test_tournament_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["tournament", "--entrants", "random,greedy", "--games", "20", "--size", "4x4"]) == 0
    )
    out = capsys.readouterr().out
    assert "round robin, 4x4 colorwars" in out
    assert "Elo" in out
    assert "greedy" in out


def test_openings_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "openings.png"
    args = ["openings", "--games", "10", "--size", "3x3", "--png", str(png)]
    code = main(args)
    out = capsys.readouterr()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert code == 1
        assert "colorwars[plot]" in out.err
        return
    assert code == 0
    assert "best opening" in out.out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_player_names_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--entrants", "random,wizard", "--games", "2"]) == 1
    assert "invalid player" in capsys.readouterr().err


def test_play_against_the_ai(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole game against greedy, the human always typing its first legal cell by name."""
    from colorwars import cli

    monkeypatch.setattr(cli, "_ask", lambda game, prompt: game.cell_name(game.legal_moves()[0]))
    assert main(["play", "--size", "4x4", "--opponent", "greedy", "--you", "b"]) == 0
    out = capsys.readouterr().out
    assert "greedy plays" in out
    assert "you win!" in out or "greedy wins." in out


def test_play_commands_and_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from colorwars import cli

    answers = iter(["z9", "undo", "c3", "hint", "undo", "quit"])
    monkeypatch.setattr(cli, "_ask", lambda game, prompt: next(answers))
    assert main(["play", "--opponent", "random"]) == 0
    out = capsys.readouterr().out
    assert "'z9' is not a cell of this board: type a cell's name" in out
    assert "nothing to undo" in out
    assert "hint: " in out
    assert out.rstrip().endswith("bye")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["solve", "3x3", "--memory", "-5G"], "invalid memory '-5G'"),
        (["solve", "3x3", "--method", "pn", "--time", "-1e3"], "invalid time -1000"),
    ],
)
def test_a_negative_value_reaches_its_option_check(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse took "-5G" for an option and said only "expected one argument".
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert said in err
    assert len(err.strip().splitlines()) == 1


def test_a_negative_value_is_not_joined_to_what_is_not_an_option() -> None:
    from colorwars.cli import _negative_values

    assert _negative_values(["solve", "--memory", "-5G"]) == ["solve", "--memory=-5G"]
    assert _negative_values(["--time", "-1"]) == ["--time", "-1"]  # argparse reads it
    assert _negative_values(["3x3", "-5G"]) == ["3x3", "-5G"]
    assert _negative_values(["--memory", "--time"]) == ["--memory", "--time"]


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "2", "--output", ""],
        ["ladder", "random", "greedy", "--json", " "],
        ["openings", "--png", ""],
        ["play", "--opponent", ""],
        ["play", "--hint", ""],
        ["play", "--save", ""],
        ["serve", "--db", ""],
        ["solve", "3x3", "--checkpoint", ""],
    ],
)
def test_an_empty_text_is_no_value(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # `--output ''` quietly meant no output, `--opponent ''` the default AI.
    with pytest.raises(SystemExit) as usage:
        main(argv)
    assert usage.value.code == 2
    err = capsys.readouterr().err
    assert "expected a value, not an empty text" in err
    assert err.count("\n") == 1


def test_replay_refuses_quiet_with_final_only(capsys: pytest.CaptureFixture[str]) -> None:
    record = str(Path(__file__).parent.parent / "seeds" / "games" / "01-colorwars-2x2-2p.cwr")
    assert main(["replay", record, "--quiet", "--final-only"]) == 1
    assert "give one" in capsys.readouterr().err
    assert main(["replay", record, "--quiet"]) == 0


def test_solve_of_a_large_board_says_that_pn_is_faster(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `colorwars solve 5x5` ran alpha-beta for hours, silently.
    from colorwars import cli, solver

    seen: list[tuple[int, int]] = []
    real = solver.solve

    def fake(width: int, height: int, **_: Any) -> Any:
        seen.append((width, height))
        return real(2, 2, rules="classic", cache=False)

    monkeypatch.setattr(solver, "solve", fake)
    assert cli.main(["solve", "5x5", "--no-cache", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "--method pn proves the winner alone far sooner" in err
    assert seen == [(5, 5)]
    assert cli.main(["solve", "5x5", "--method", "alphabeta", "--no-cache"]) == 0
    assert capsys.readouterr().err == ""  # asked for by name: no note


def test_errors_name_the_options_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    # It said "invalid max_plies 0", the Python name.
    assert main(["simulate", "--games", "2", "--max-plies", "0"]) == 1
    assert capsys.readouterr().err.startswith("error: invalid --max-plies 0:")


CLI_DOCS = Path(__file__).parent.parent / "docs" / "cli.md"


@pytest.mark.skipif(not CLI_DOCS.is_file(), reason="the docs are not part of this copy")
def test_the_docs_synopsis_names_every_option_of_every_command() -> None:
    """docs/cli.md's synopsis had lost openings --seed and ladder --address."""
    import argparse

    from colorwars.cli import build_parser

    text = CLI_DOCS.read_text()
    synopsis = text.split("```sh\n", 1)[1].split("```", 1)[0]
    blocks: dict[str, str] = {}
    for line in synopsis.splitlines():
        if line.startswith("colorwars "):
            command = line.split()[1]
        blocks[command] = blocks.get(command, "") + line
    parser = build_parser()
    top = {o for a in parser._actions for o in a.option_strings if a.help != argparse.SUPPRESS}
    assert {b for b in blocks if b.startswith("-")} == top - {"-h", "--help"}
    blocks = {name: line for name, line in blocks.items() if not name.startswith("-")}
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(blocks) <= set(sub.choices)
    missing = [
        f"{name} {option}"
        for name, parser in sub.choices.items()
        if name in blocks
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings[-1:]
        if option != "--help"
        and f"{option} " not in blocks[name] + " "
        and f"{option}]" not in blocks[name]
        and f"{option}=" not in blocks[name]
    ]
    assert not missing
