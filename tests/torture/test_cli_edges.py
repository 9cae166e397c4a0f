"""The command line at the edges of its terminal (issue 17, item 6): a terminal that cannot
show every character, and an output pipe closed early (``colorwars ... | head -1``). Each case
runs ``python -m colorwars.cli`` in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GAMES = Path(__file__).parent.parent.parent / "seeds" / "games"
NOTE = "café — déjà vu 🎲"
RECORD = f"size: 3x3\nrules: colorwars\nmoves: a1 c3 a1\nnote: {NOTE}\n"
ASCII_ENVIRONMENTS = {
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "LC_ALL=C PYTHONUTF8=0": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
}


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env = {k: v for k, v in env.items() if not k.startswith("LC_")}
    return {**env, **extra}


def _run(
    args: list[str], extra: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "colorwars.cli", *args],
        capture_output=True, env=_env(extra), timeout=timeout, stdin=subprocess.DEVNULL,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize("where", sorted(ASCII_ENVIRONMENTS))
def test_replay_of_a_non_ascii_note_on_an_ascii_terminal(tmp_path: Path, where: str) -> None:
    """Issue 17 item 6: ``colorwars replay`` of a record with a non-ASCII note on an ASCII
    terminal ended in a ``UnicodeEncodeError`` traceback; the note is shown with escapes."""
    path = tmp_path / "note.cwr"
    path.write_text(RECORD, encoding="utf-8")
    done = _run(["replay", str(path)], ASCII_ENVIRONMENTS[where])
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    assert b"caf\\xe9" in done.stdout
    assert b"final position" in done.stdout


@pytest.mark.parametrize("where", sorted(ASCII_ENVIRONMENTS))
def test_an_error_naming_a_non_ascii_file_on_an_ascii_terminal(tmp_path: Path, where: str) -> None:
    """Issue 17 item 6: an error line that names a non-ASCII file is one line on an ASCII
    terminal, not a traceback."""
    done = _run(["replay", str(tmp_path / "déjà.cwr")], ASCII_ENVIRONMENTS[where])
    assert done.returncode == 2
    lines = done.stderr.decode("ascii").strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")


@pytest.mark.parametrize("where", sorted(ASCII_ENVIRONMENTS))
def test_a_table_on_an_ascii_terminal(where: str) -> None:
    """Issue 17 item 6: ``simulate``'s table on an ASCII terminal (every command writes
    through the same tolerant streams)."""
    done = _run(["simulate", "--games", "200"], ASCII_ENVIRONMENTS[where])
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"game length" in done.stdout


COMMANDS = {
    "replay": ["replay", str(GAMES / "11-colorwars-8x8-2p.cwr")],
    "replay --quiet": ["replay", "--quiet", str(GAMES / "01-colorwars-2x2-2p.cwr")],
    "simulate": ["simulate", "--games", "1000"],
    "simulate --json": ["simulate", "--games", "1000", "--json"],
    "solve": ["solve", "3x3", "--no-cache"],
    "tournament": ["tournament", "--entrants", "random,greedy", "--games", "4", "--size", "3x3"],
    "openings": ["openings", "--games", "2", "--size", "3x3"],
    "play": ["play", "--size", "3x3", "--seats", "random,greedy", "--delay", "0"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_into_a_closed_pipe_ends_quietly(command: str) -> None:
    """Issue 17 item 6: output into a pipe closed early (``colorwars ... | head -1``) exited
    with status 1 and nothing said; every command now stops quietly, as a program stopped
    by SIGPIPE does (status 141), with nothing on stderr."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line: every write fails
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "colorwars.cli", *COMMANDS[command]],
            stdout=write, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            env=_env({"PYTHONIOENCODING": "utf-8"}),
        )  # fmt: skip
    finally:
        os.close(write)
    try:
        _, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"colorwars {command} did not stop within 120 s")
    assert child.returncode == 141, err.decode(errors="replace")
    assert err == b""


def test_a_pipe_closed_after_the_first_line(tmp_path: Path) -> None:
    """Issue 17 item 6: ``colorwars replay ... | head -1`` as a shell runs it: one line
    through, then a quiet stop."""
    path = GAMES / "11-colorwars-8x8-2p.cwr"
    command = f"{sys.executable} -m colorwars.cli replay {path} | head -1; echo ${{PIPESTATUS[0]}}"
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=120,
        env=_env({"PYTHONIOENCODING": "utf-8"}), check=False,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    assert lines[0].startswith("11-colorwars-8x8-2p.cwr: ")
    assert lines[1] == "141"
    assert done.stderr == ""
