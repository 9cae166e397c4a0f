"""The torture suite: the command line: one error line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import torture_core as tc
from colorwars.cli import main as cli_main

from torture.common import (
    clean_error,
)


def run_cli(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int | None, str, str, BaseException | None]:
    tc.tried("cli")
    code: int | None = None
    error = None
    try:
        code = cli_main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:
        error = e
    out, err = capsys.readouterr()
    return code, out, err, error


RECORD = "size: 3x3\nmoves: a1 c3\n"
CLI_FILES: dict[str, bytes] = {
    "non-utf8.cwr": b"size: 3x3\nmoves: a1\nnote: caf\xe9 \xff\xfe\n",
    "utf16.cwr": RECORD.encode("utf-16"),
    "markup-moves.cwr": b"size: 3x3\nmoves: a1 [/x]\n",
    "markup-rules.cwr": b"size: 3x3\nrules: [/red]\nmoves: a1\n",
    "superscript.cwr": "size: \u00b2x5\nmoves: a1\n".encode(),
    "arabic.cwr": "size: 5x\u0663\nmoves: a1\n".encode(),
    "digits.cwr": ("size: " + "9" * 5000 + "x5\nmoves: a1\n").encode(),
    "huge.cwr": b"size: 99999999999999999999x99999999999999999999\nmoves: a1\n",
    "zero.cwr": b"size: 0x0\nmoves:\n",
    "players.cwr": b"size: 3x3\nplayers: 99999999999999999999\nmoves: a1\n",
    "final.cwr": b"size: 3x3\nmoves: a1\nfinal: [/x] nonsense\n",
    "surrogate.cwr": b"size: 3x3\nmoves: \xed\xa0\x80\n",
    "nul.cwr": b"size: 3x3\x00\nmoves: a1\n",
    "empty.cwr": b"",
    "[red]bracket[.cwr": b"size: 1x1\nmoves:\n",
}

CLI_CASES: list[list[str]] = [
    *[["replay", f"{{tmp}}/{name}"] for name in CLI_FILES],
    ["replay", "--engine", "reference", "{tmp}/markup-moves.cwr"],
    ["replay", "{tmp}/[/x]missing.cwr"],
    ["replay", "{tmp}"],
    ["simulate", "--games", "200", "--output", "{tmp}/no/such/folder/out.csv"],
    ["simulate", "--games", "200", "--output", "{tmp}/no/such/folder/out.json"],
    ["simulate", "--games", "200", "--output", "{tmp}/out.txt"],
    ["simulate", "--games", "20", "--rules", "bogus"],
    ["simulate", "--games", "20", "--rules", "[/x]"],
    ["simulate", "--games", "20", "--rules", ""],
    ["simulate", "--games", "20", "--size", "1x1"],
    ["simulate", "--games", "20", "--size", "33x33"],
    ["simulate", "--games", "20", "--size", "0x0"],
    ["simulate", "--games", "20", "--size", "99999999999999999999x5"],
    ["simulate", "--games", "20", "--size", "\u00b2x5"],
    ["simulate", "--games", "20", "--size", "5x"],
    ["simulate", "--games", "-1"],
    ["simulate", "--games", "1" + "0" * 30],
    ["simulate", "--games", "20", "--players", "0"],
    ["simulate", "--games", "20", "--players", "99999999999999999999"],
    ["simulate", "--games", "20", "--threads", "-1"],
    ["simulate", "--games", "20", "--threads", "1" + "0" * 30],
    ["simulate", "--games", "20", "--seed", "-1"],
    ["simulate", "--games", "20", "--seed", str(2**64)],
    ["simulate", "--games", "20", "--max-plies", "0"],
    ["simulate", "--games", "20", "--max-plies", "-1"],
    ["simulate", "--games", "20", "--max-plies", "1" + "0" * 30],
    ["simulate", "--games", "20", "--first", "z"],
    ["simulate", "--games", "20", "--first", "h"],
    ["simulate", "--games", "20", "--seats", "bogus"],
    ["simulate", "--games", "20", "--seats", "[/x]"],
    ["simulate", "--games", "20", "--seats", "random,random,random"],
    ["simulate", "--games", "20", "--seats", ""],
    ["simulate", "--games", "20", "--seats", "mcts:-1"],
    ["simulate", "--games", "20", "--shards", "3"],
    ["simulate", "--games", "20", "--address", "[/x]"],
    ["solve", "1x1"],
    ["solve", "33x2"],
    ["solve", "99999999999999999999x2"],
    ["solve", "ax2"],
    ["solve", "2x2", "--rules", "nope"],
    ["solve", "2x2", "--rules", "[/x]"],
    ["solve", "2x2", "--max-depth", "0"],
    ["solve", "2x2", "--max-depth", "1" + "0" * 30],
    ["tournament", "--players", "random"],
    ["tournament", "--players", "bogus,random"],
    ["tournament", "--players", ""],
    ["tournament", "--players", "random,[/x]"],
    ["tournament", "--players", "random,greedy", "--games", "-1"],
    ["tournament", "--players", "random,greedy", "--games", "1" + "0" * 30],
    ["tournament", "--players", "random,greedy", "--size", "1x1"],
    ["tournament", "--players", "random,greedy", "--threads", "-1"],
    ["tournament", "--players", "random,greedy", "--seed", "-1"],
    ["tournament", "--players", "random,greedy", "--rules", "nope"],
    ["openings", "--first", "bogus"],
    ["openings", "--second", "[/x]"],
    ["openings", "--games", "-1"],
    ["openings", "--size", "1x1"],
    ["openings", "--size", "1000000x1000000", "--games", "1"],
    ["openings", "--threads", "-1", "--games", "1"],
    ["openings", "--rules", "nope", "--games", "1"],
    [
        "openings",
        "--size",
        "2x2",
        "--games",
        "1",
        "--first",
        "random",
        "--second",
        "random",
        "--png",
        "{tmp}/no/such/folder/map.png",
    ],
    ["play", "--opponent", "bogus"],
    ["play", "--opponent", "[/x]"],
    ["play", "--size", "1x1"],
    ["play", "--you", "z"],
    ["play", "--rules", "nope"],
]


def _cli_id(argv: list[str]) -> str:
    return " ".join(argv).replace("{tmp}/", "")[:60]


@pytest.mark.parametrize("argv", CLI_CASES, ids=[_cli_id(a) for a in CLI_CASES])
def test_cli_bad_input_gives_one_error_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in CLI_FILES.items():
        (tmp_path / name).write_bytes(data)
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err, error = run_cli(args, capsys)
    problems = clean_error(code, err, error)
    if "--output" in argv and out.strip():
        problems.append("ran the simulation before refusing the output path")
    if problems:
        pytest.fail(f"colorwars {_cli_id(argv)}: " + "; ".join(problems), pytrace=False)


NOTES = ["[/bold]", "[red]not red[/red] and [plot]", "\\[x] [/] [bold", "caf\u00e9 \u00b2"]


@pytest.mark.parametrize("note", NOTES)
@pytest.mark.parametrize("engine", ["native", "reference"])
def test_cli_prints_record_text_verbatim(
    note: str, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose note looks like rich markup replays, and the note is shown as written."""
    path = tmp_path / "note.cwr"
    path.write_text(f"size: 3x3\nmoves: a1\nnote: {note}\n", encoding="utf-8")
    code, out, err, error = run_cli(["replay", "--engine", engine, "--quiet", str(path)], capsys)
    if error is not None:
        pytest.fail(f"raised {tc.class_name(error)} out of main: {error}", pytrace=False)
    assert code == 0, err
    assert note in out, f"the note {note!r} was not printed as written: {out[:300]!r}"
