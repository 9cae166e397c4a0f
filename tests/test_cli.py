"""The `colorwars` command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
