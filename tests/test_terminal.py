"""The terminal game, ``colorwars play`` (colorwars.terminal): driven through its input seam
(``colorwars.cli._ask``) and through real pipes, and, where tmux is installed, on a real
terminal with the animation."""

from __future__ import annotations

import io
import itertools
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from colorwars import GameRecord, terminal
from colorwars.cli import main
from colorwars.game import Game
from rich.console import Console
from rich.style import Style

Answer = str | Callable[[Game], str]
ESC = "\x1b"


def first_legal(game: Game) -> str:
    return game.cell_name(game.legal_moves()[0])


def random_legal(seed: int) -> Callable[[Game], str]:
    rng = random.Random(seed)
    return lambda game: game.cell_name(rng.choice(game.legal_moves()))


class _Typed(io.StringIO):
    """A standard input that says it is a terminal, so lines are not echoed back."""

    def isatty(self) -> bool:
        return True


@dataclass
class Session:
    """A game driven through ``colorwars.cli._ask``: after it, ``outputs[i]`` is what the game
    printed after answer ``i - 1`` (``outputs[0]``: before the first question), ``prompts[i]``
    and ``positions[i]`` the question asked and the position when answer ``i`` was asked
    for."""

    capsys: pytest.CaptureFixture[str] | None  # None: the output is not collected
    answers: Iterable[Answer]
    outputs: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    code: int | None = None
    err: str = ""

    def __post_init__(self) -> None:
        self._answers = iter(self.answers)

    def ask(self, game: Game, prompt: str) -> str:
        if self.capsys is not None:
            self.outputs.append(self.capsys.readouterr().out)
        self.prompts.append(prompt)
        self.positions.append(game.to_text())
        answer = next(self._answers, None)
        if answer is None:
            raise EOFError
        return answer(game) if callable(answer) else answer

    @property
    def out(self) -> str:
        return "".join(self.outputs)


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    answers: Iterable[Answer] = (),
) -> Session:
    """Runs ``colorwars play ARGS``, answering each question from ``answers`` (EOF after
    the last)."""
    from colorwars import cli

    session = Session(capsys, answers)
    monkeypatch.setattr(cli, "_ask", session.ask)
    monkeypatch.setattr(sys, "stdin", _Typed())
    session.code = main(["play", *args])
    out, session.err = capsys.readouterr()
    session.outputs.append(out)
    return session


def plain_env() -> dict[str, str]:
    """An environment where rich decides colour from the terminal alone."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "CI")}
    env["TERM"] = "xterm-256color"
    return env


def colorwars_play(*args: str) -> list[str]:
    return [sys.executable, "-m", "colorwars.cli", "play", *args]


# -- whole games ----------------------------------------------------------------------------
def test_a_whole_game_against_an_ai_and_its_record(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.cwr"
    s = play(
        monkeypatch,
        capsys,
        ["--size", "4x4", "--opponent", "greedy", "--seed", "1", "--save", str(path)],
        itertools.repeat(first_legal),
    )
    assert s.code == 0, s.err
    assert s.err == ""
    assert s.out.startswith("4x4 colorwars, 2 players, a moves first: a you, b greedy\n")
    assert set(s.prompts) == {"player a, your move: "}
    record = GameRecord.parse(path.read_text(encoding="utf-8"))
    game = record.replay()  # checks the stated result and final position
    assert game.winner is not None
    assert record.result == "ab"[game.winner]
    assert record.note == "seats: a you, b greedy"
    # Every move was shown, numbered, and the result was announced before the save.
    moves = re.findall(r"^(\d+)\. \(([ab])\) (?:you play|greedy plays) ([a-d][1-4])", s.out, re.M)
    assert [m[2] for m in moves] == list(record.moves)
    assert [int(m[0]) for m in moves] == list(range(1, len(record.moves) + 1))
    tail = s.out.rstrip().splitlines()[-2:]
    assert tail == ["you win!" if game.winner == 0 else "greedy wins.", f"record saved to {path}"]


def test_hot_seat_with_three_and_four_players(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Three players, two of them human: only the human seats are asked, in turn order.
    path = tmp_path / "three.cwr"
    s = play(
        monkeypatch,
        capsys,
        ["--seats", "human,greedy,human", "--size", "4x4", "--seed", "2", "--save", str(path)],
        itertools.repeat(random_legal(2)),
    )
    assert s.code == 0, s.err
    assert "a human, b greedy, c human" in s.out
    assert set(s.prompts) == {"player a, your move: ", "player c, your move: "}
    for prompt, position in zip(s.prompts, s.positions, strict=True):
        assert prompt[7] == position.split()[4]  # the player to move in the notation
    game = GameRecord.parse(path.read_text(encoding="utf-8")).replay()
    assert GameRecord.parse(path.read_text(encoding="utf-8")).players == 3
    assert game.winner is not None
    assert s.out.count(" is out\n") == 2

    # Four humans at one keyboard (one name for every seat), b first.
    path = tmp_path / "four.cwr"
    s = play(
        monkeypatch,
        capsys,
        ["--seats", "human", "--players", "4", "--first", "b", "--size", "4x4", "--save",
         str(path)],
        itertools.repeat(random_legal(4)),
    )  # fmt: skip
    assert s.code == 0, s.err
    assert s.prompts[:4] == [f"player {p}, your move: " for p in "bcda"]
    record = GameRecord.parse(path.read_text(encoding="utf-8"))
    game = record.replay()
    assert (record.players, record.first) == (4, 1)
    assert game.winner is not None
    assert f"player {'abcd'[game.winner]} (human) wins." in s.out
    assert s.out.count(" is out\n") == 3
    assert len(s.prompts) == len(record.moves)  # every move was a human's, and nothing else


def test_ai_against_ai_is_reproducible_by_seed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seats", "mcts:50,random,greedy", "--size", "5x4", "--seed", "7"]
    first = play(monkeypatch, capsys, args)
    again = play(monkeypatch, capsys, args)
    assert first.code == again.code == 0
    assert first.prompts == []  # no human seat: nothing is read
    assert first.out == again.out
    assert re.search(r"^player [abc] \((mcts\(50\)|random|greedy)\) wins\.$", first.out, re.M)


# -- commands -------------------------------------------------------------------------------
def test_hint_moves_position_undo_and_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = "5x5 colorwars 2 ...../...../...../...../..... a - - 0"
    answers = ["moves", "undo", "12", "hint", "moves", "position", "undo", "position", "help",
               "board", "quit"]  # fmt: skip
    s = play(monkeypatch, capsys, ["--opponent", "greedy", "--hint", "greedy", "--seed", "3"],
             answers)  # fmt: skip
    assert s.code == 0, s.err
    assert s.outputs[1] == "no moves yet\n"
    assert s.outputs[2] == "nothing to undo: no human has moved yet\n"
    assert s.outputs[3].startswith("1. (a) you play c3\n")  # 12 is c3 on 5x5
    reply = re.search(r"^2\. \(b\) greedy plays ([a-e][1-5])$", s.outputs[3], re.M)
    assert reply is not None
    assert re.fullmatch(r"hint: [a-e][1-5] \(greedy\)\n", s.outputs[4])
    assert re.fullmatch(rf"\s*1\. a c3\s+2\. b {reply[1]}\n", s.outputs[5])
    assert s.outputs[6] == s.positions[6] + "\n"
    assert s.positions[6].endswith(" a ab - 2")
    # undo goes back to the previous human turn: the AI's reply and the human's move.
    assert s.outputs[7].startswith(f"undone: b {reply[1]}, a c3; player a to move\n")
    assert s.outputs[8] == empty + "\n"
    assert s.positions[8] == empty
    assert "hint" in s.outputs[9]
    assert "save FILE" in s.outputs[9]
    assert s.outputs[10].startswith("   a  b  c  d  e\n1  .  .")
    assert s.outputs[-1] == "bye\n"


def test_undo_in_hot_seat_and_between_humans(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two humans: undo takes back one move, to the other human's turn.
    s = play(monkeypatch, capsys, ["--seats", "human"], ["c3", "a1", "undo", "undo", "undo"])
    assert [p[7] for p in s.prompts] == list("ababaa")
    assert s.outputs[3].startswith("undone: b a1; player b to move\n")
    assert s.outputs[4].startswith("undone: a c3; player a to move\n")
    assert s.outputs[5] == "nothing to undo: no human has moved yet\n"

    # a human, b an AI, c human. From a's turn, undo goes back to c's (one move); from c's
    # turn, back over b's move to a's.
    s = play(
        monkeypatch,
        capsys,
        ["--seats", "human,greedy,human", "--seed", "1"],
        [random_legal(1), random_legal(2), "undo", "undo", "position"],
    )
    assert [p[7] for p in s.prompts] == list("acacaa")
    assert re.match(r"undone: c [a-e][1-5]; player c to move\n", s.outputs[3])
    assert re.match(r"undone: b [a-e][1-5], a [a-e][1-5]; player a to move\n", s.outputs[4])
    assert s.outputs[5].split()[-1] == "0"  # back at the empty board


def test_bad_lines_give_one_line_and_change_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def illegal(game: Game) -> str:  # an empty cell: after the opening, a plays on its own
        return game.cell_name(next(c for c in range(game.cells) if not game.counts()[c]))

    bad: list[tuple[Answer, str]] = [
        ("z9", "is not on this 5x5 board"),
        ("hello", "unknown command 'hello'"),
        ("[bold]", "unknown command '[bold]'"),
        ("[red]x1[/red]", "is not a cell name"),
        (illegal, "may only add an orb to a cell of their own"),
        ("25", "cell 25 is not on the board"),
        ("99999999999999999999", "is not a cell name"),
        ("9" * 5000, "is not a cell name"),
        ("-1", "is not a cell name"),
        ("c3 c4", "is not a cell name"),
        ("c\x003", "is not a cell name"),
        ("\x1b[31mc3", "is not a cell name"),
        ("a1\udcff", "is not a cell name"),
        ("save", "save needs a file name: save FILE"),
    ]
    answers = ["c3", *(line for line, _ in bad), "", "   ", "quit"]
    s = play(monkeypatch, capsys, ["--opponent", "greedy", "--seed", "1"], answers)
    assert s.code == 0, s.err
    before = s.positions[1]
    for k, (line, message) in enumerate(bad, 2):
        out = s.outputs[k]
        assert s.positions[k] == before, f"{line!r} changed the game"
        assert out.count("\n") == 1, f"{line!r}: {out!r}"
        assert message in out, f"{line!r}: {out!r}"
        assert ESC not in out
    assert s.outputs[len(bad) + 2 : len(bad) + 4] == ["", ""]  # empty lines: nothing
    assert s.outputs[-1] == "bye\n"


def test_save_during_the_game_and_errors_saving(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mid = tmp_path / "[bold]mid game.cwr"
    missing = tmp_path / "no" / "such.cwr"
    answers = ["c3", f"save {mid}", f"save {missing}", f"save {tmp_path}", "c3", "quit"]
    s = play(monkeypatch, capsys, ["--opponent", "random", "--seed", "5"], answers)
    assert s.code == 0, s.err
    assert s.outputs[2] == f"record saved to {mid}\n"  # the name printed as it is
    assert s.outputs[3].startswith("cannot save the record to ")
    assert "does not exist" in s.outputs[3]
    assert s.outputs[4].count("\n") == 1
    assert "cannot save" in s.outputs[4]
    record = GameRecord.parse(mid.read_text(encoding="utf-8"))
    assert len(record.moves) == 2
    assert record.moves[0] == "c3"
    assert record.result == "-"  # unfinished
    game = record.replay()
    assert game.to_text() == s.positions[2] == record.final
    assert "4. (b) random plays" in s.out  # the game went on after the failed saves


def test_save_option_writes_on_quit_and_at_eof(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for last in ("quit", None):  # None: the end of input
        path = tmp_path / f"{last}.cwr"
        answers = ["b2", "save"] + ([last] if last else [])
        s = play(monkeypatch, capsys,
                 ["--opponent", "greedy", "--rules", "classic", "--save", str(path)],
                 answers)  # fmt: skip
        assert s.code == 0, s.err
        assert s.outputs[2] == f"record saved to {path}\n"  # 'save' alone: the --save file
        assert s.out.endswith(f"record saved to {path}\nbye\n")
        record = GameRecord.parse(path.read_text(encoding="utf-8"))
        assert record.rules.name == "classic"
        assert record.moves[0] == "b2"
        assert record.replay().to_text() == record.final


def test_end_of_input_ends_the_game_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    s = play(monkeypatch, capsys, ["--opponent", "greedy"], ["c3"])
    assert (s.code, s.err) == (0, "")
    assert s.outputs[-1] == "\nbye\n"
    done = subprocess.run(colorwars_play("--opponent", "greedy"), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=plain_env(), timeout=60)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.endswith("player a, your move: \nbye\n")


# -- options --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "1"], "invalid number of players 1"),
        (["--players", "9"], "invalid number of players 9"),
        (["--players", "5", "--size", "2x2"], "at most the number of cells (4)"),
        (["--size", "1x5"], "invalid board size 1x5"),
        (["--size", "33x5"], "invalid board size 33x5"),
        (["--rules", "[bold]chess"], "unknown rule set '[bold]chess'"),
        (["--rules", "drop3+nothing"], "unknown burst 'nothing'"),
        (["--first", "c"], "invalid first player 2"),
        (["--you", "c"], "invalid seat (--you) 2"),
        (["--seats", "human,greedy,random", "--players", "2"], "3 given for 2 players"),
        (["--seats", "human,alphabeta:4,greedy"], "alpha-beta plays two-player games only"),
        (["--seats", "human,human,human", "--hint", "alphabeta"], "two-player games only"),
        (["--seats", "human,wizard"], "invalid player 'wizard'"),
        (["--seats", "human,mcts:0"], "invalid simulations 0"),
        (["--seats", "human,greedy", "--opponent", "random"], "not both"),
        (["--opponent", "[/x]"], "invalid player '[/x]'"),
        (["--delay", "-1"], "invalid delay -1.0"),
        (["--delay", "nan"], "invalid delay nan"),
        (["--delay", "11"], "invalid delay 11.0"),
        (["--seed", "-1"], "invalid seed -1"),
        (["--save", "{tmp}/no/such/game.cwr"], "does not exist"),
        (["--save", "{tmp}"], "is a folder"),
    ],
)
def test_bad_options_give_one_error_line_before_the_game(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["play", *[a.replace("{tmp}", str(tmp_path)) for a in args]])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    assert message in err, err


def test_shorthands_and_defaults() -> None:
    s = terminal.setup(seed=1)
    assert (s.width, s.height, s.rules.name, s.players, s.first) == (5, 5, "colorwars", 2, 0)
    assert s.seats[0] is None
    assert s.seats[1] is not None
    assert s.seats[1].name == "alphabeta(1.0s)"  # ai: about a second a move
    assert s.hint.name == "alphabeta(1.0s)"
    assert s.delay == terminal.DEFAULT_DELAY
    assert s.save is None
    three = terminal.setup(players=3, you=1, opponent="ai")
    assert [p and p.name for p in three.seats] == ["mcts(1.0s)", None, "mcts(1.0s)"]
    assert terminal.setup(seats="ai").humans == 0
    assert terminal.setup(seats="human,random,greedy,mcts:9").players == 4


# -- output for pipes and terminals ---------------------------------------------------------
def test_piped_output_is_plain_text(tmp_path: Path) -> None:
    """Through real pipes: lines read are echoed after their prompt, and nothing in the
    output is a control code, whatever the terminal type says."""
    lines = "c3\nhint\nmoves\nposition\n[bold]\n\x1b[31mc3\nundo\nc3\nc3\nquit\n"
    done = subprocess.run(
        colorwars_play("--opponent", "greedy", "--hint", "greedy", "--seed", "4"),
        input=lines, capture_output=True, text=True, env=plain_env(), timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert ESC not in done.stdout
    assert "player a, your move: c3\n1. (a) you play c3\n" in done.stdout
    assert "player a, your move: [bold]\nunknown command '[bold]'" in done.stdout
    assert "player a, your move: \\x1b[31mc3\n" in done.stdout  # escaped, not sent
    assert re.search(r"^   wave 1: c3 burst$", done.stdout, re.M)
    # A whole game with no human, piped.
    done = subprocess.run(colorwars_play("--seats", "greedy,random,random", "--size", "6x6"),
                          capture_output=True, text=True, env=plain_env(), timeout=60)  # fmt: skip
    assert done.returncode == 0
    assert ESC not in done.stdout + done.stderr
    assert re.search(r"^player [abc] \(\w+\) wins\.$", done.stdout, re.M)


def fake_terminal(answers: list[str], seats: str, delay: float) -> tuple[str, Session]:
    """A game on a console that is a colour terminal (100 x 40), writing to a string."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor",
                      width=100, height=40, highlight=False)  # fmt: skip
    session = Session(None, answers)
    setup = terminal.setup(seats=seats, delay=delay)
    session.code = terminal.TerminalGame(setup, console, session.ask).run()
    return out.getvalue(), session


def test_animation_and_colours_on_a_terminal() -> None:
    # a: c3 (3 orbs), b: a1, a: c3 again: four orbs, a burst.
    answers = ["c3", "a1", "c3", "[bold]", "quit", ""]
    out, s = fake_terminal(answers, seats="human", delay=0.01)
    assert s.code == 0
    assert s.prompts[-1].startswith("save the game record?")  # offered on a terminal
    assert "wave 1 of 1: c3 burst" in out  # the frame drawn in place
    assert "\x1b[1A" in out or "\x1b[2K" in out  # ... by moving the cursor back up
    assert "38;2;214;39;40" in out  # player a's colour (#d62728)
    assert "'[bold]'" in out  # user text is never markup
    still, _ = fake_terminal(answers, seats="human", delay=0)
    assert "wave 1 of" not in still
    assert "   wave 1: c3 burst" in still
    assert "38;2;214;39;40" in still


def test_player_styles_differ_beyond_hue() -> None:
    """Every player's style differs from every other's in more than colour: letters or
    blocks, and bold, italic, underline (the letter is written in every cell anyway)."""
    looks = set()
    for text in terminal.PLAYER_STYLES:
        style = Style.parse(text)
        looks.add((style.bold, style.italic, style.underline, style.bgcolor is None,
                   None if style.bgcolor is None else str(style.color)))  # fmt: skip
    assert len(looks) == 8
    board = terminal.board_text(2, [3, 1, 0, 2], [0, 1, -1, 0], {0: terminal.LAST, 1: "*"})
    assert board.plain == "   a  b\n1>3a*1b\n2  . 2a"


# -- Ctrl-C and a real terminal -------------------------------------------------------------
def test_ctrl_c_exits_cleanly_and_saves(tmp_path: Path) -> None:
    path = tmp_path / "interrupted.cwr"
    child = subprocess.Popen(
        colorwars_play("--seats", "greedy,ai,ai", "--size", "6x6", "--seed", "1", "--save",
                       str(path)),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=plain_env(),
    )  # fmt: skip
    time.sleep(2.0)  # greedy moves at once, ai (MCTS for three players) a second a move
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, (out[-500:], err)
    assert err == "error: interrupted\n"
    assert f"record saved to {path}" in out
    record = GameRecord.parse(path.read_text(encoding="utf-8"))
    assert record.moves
    assert record.result == "-"
    record.replay()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_real_terminal_in_tmux(tmp_path: Path) -> None:
    """The game in a real terminal (tmux): colours, the cascade drawn in place and erased,
    and the offer to save at the end."""
    socket = f"colorwars-test-{os.getpid()}"
    tmux = ["tmux", "-L", socket]
    path = tmp_path / "tmux.cwr"
    command = " ".join(colorwars_play("--opponent", "greedy", "--seed", "1", "--delay", "0.5"))
    env = plain_env()
    env.pop("TMUX", None)

    def pane(colours: bool = False) -> str:
        capture = [*tmux, "capture-pane", "-p", "-t", "game", *(["-e"] if colours else [])]
        return subprocess.run(capture, capture_output=True, text=True, env=env).stdout

    def wait_for(what: Callable[[str], bool], seconds: float = 20) -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            text = pane()
            if what(text):
                return text
            time.sleep(0.05)
        pytest.fail(f"the terminal never showed what was expected:\n{pane()}")

    def prompt(text: str) -> bool:
        return text.rstrip().endswith("player a, your move:")

    def send(keys: str) -> None:
        subprocess.run([*tmux, "send-keys", "-t", "game", keys, "Enter"], check=True, env=env)

    subprocess.run([*tmux, "new-session", "-d", "-s", "game", "-x", "100", "-y", "45",
                    f"{command}; echo EXIT=$?; sleep 60"], check=True, env=env)  # fmt: skip
    try:
        wait_for(prompt)
        send("c3")
        wait_for(lambda t: "2. (b) greedy plays" in t and prompt(t))
        send("c3")  # four orbs on c3: a cascade
        wait_for(lambda t: "wave 1 of 1: c3 burst" in t)  # a frame, in place
        final = wait_for(lambda t: "4. (b) greedy plays" in t and prompt(t))
        assert "wave 1 of" not in final  # the frames were erased
        assert "   wave 1: c3 burst" in final
        assert re.search(r"\x1b\[[0-9;]*m", pane(colours=True))  # in colour
        send("quit")
        wait_for(lambda t: "save the game record?" in t)
        send(str(path))
        done = wait_for(lambda t: "EXIT=" in t)
        assert "bye" in done
        assert "EXIT=0" in done
        record = GameRecord.parse(path.read_text(encoding="utf-8"))
        assert record.moves[:3] == ("c3", record.moves[1], "c3")
        record.replay()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env)
