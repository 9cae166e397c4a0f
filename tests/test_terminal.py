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

    # Anything that is not a cell says what can be typed here: a name or a number (the API's
    # message offered "(x, y)", which the terminal does not read).
    cell = "is not a cell of this board: type a cell's name, a column a to e and a row 1 to 5"
    bad: list[tuple[Answer, str]] = [
        ("z9", f"'z9' {cell}"),
        ("hello", "unknown command 'hello'"),
        ("[bold]", "unknown command '[bold]'"),
        ("[red]x1[/red]", cell),
        (illegal, "may only add an orb to a cell of their own"),
        ("25", f"'25' {cell} (such as c3), or its number 0 to 24"),
        ("99999999999999999999", cell),
        ("9" * 5000, cell),
        ("-1", cell),
        ("(0,0)", cell),
        ("c3 c4", cell),
        ("c\x003", cell),
        ("\x1b[31mc3", cell),
        ("a1\udcff", cell),
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
        # The letter typed, not its index ("invalid first player 2").
        (["--first", "c"], "invalid --first c: a game of 2 players has the players a to b"),
        (["--you", "c"], "invalid --you c: a game of 2 players has the players a to b"),
        (["--seats", "human,greedy,random", "--first", "d"], "3 players has the players a to c"),
        (["--seats", "human,greedy,random", "--players", "2"], "3 given for 2 players"),
        (["--seats", "human,alphabeta:4,greedy"], "alpha-beta plays two-player games only"),
        (["--opponent", "learned", "--players", "3"], "the learned evaluation (learned) plays two"),
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
    assert s.seats[1].name == "learned(1.0s)"  # ai: about a second a move, learned evaluation
    assert s.hint.name == "learned(1.0s)"
    assert s.delay == terminal.DEFAULT_DELAY
    assert s.save is None
    three = terminal.setup(players=3, you=1, opponent="ai")
    assert [p and p.name for p in three.seats] == ["mcts(1.0s)", None, "mcts(1.0s)"]
    assert terminal.setup(seats="ai").humans == 0
    # ai and the hint are the strongest at a second for the game (colorwars.strongest): Zero
    # on the classic boards it plays, learned alpha-beta elsewhere.
    classic = terminal.setup(size=(8, 8), rules="classic", seed=1)
    assert [p and p.name for p in classic.seats] == [None, "zero(1s)"]
    assert classic.hint.name == "zero(1s)"
    big = terminal.setup(size=(13, 13), rules="classic", seed=1)
    assert (big.seats[1] and big.seats[1].name, big.hint.name) == ("learned(1.0s)",) * 2
    assert terminal.default_ai(2).name == "learned(1.0s)"  # no game given
    assert terminal.default_ai(2, "classic", 9, 6).name == "zero(1s)"
    assert terminal.default_ai(3, "classic", 9, 6).name == "mcts(1.0s)"
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


# -- the live screen ------------------------------------------------------------------------
_CODES = re.compile(
    r"\x1b\[([?0-9;]*)([A-Za-z])|\x1b\][^\x07]*\x07|(\r\n|\r|\n|\x08)|([^\x1b\r\n\x08]+)"
)


class Screen:
    """A small terminal emulator, for the codes rich's live display and a terminal's echo
    write: text with wrapping and scrolling, CR and LF, the cursor moved up, down and to a
    column, a line erased; colours and the cursor's visibility ignored. ``text`` is what the
    screen shows, ``scrolled`` the lines that went off its top."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows: list[list[str]] = [[] for _ in range(height)]
        self.scrolled: list[str] = []
        self.x = self.y = 0

    def feed(self, data: str) -> Screen:
        for m in _CODES.finditer(data):
            params, final, newline, text = m.groups()
            n = int(params) if params and params.isdigit() else 1
            if final == "A":
                self.y = max(0, self.y - n)
            elif final == "B":
                self.y = min(self.height - 1, self.y + n)
            elif final == "G":
                self.x = n - 1
            elif final == "K":
                self.rows[self.y] = [] if params == "2" else self.rows[self.y][: self.x]
            elif final == "J":
                self.rows[self.y] = self.rows[self.y][: self.x]
                for r in range(self.y + 1, self.height):
                    self.rows[r] = []
            elif newline == "\x08":
                self.x = max(0, self.x - 1)
            elif newline:
                self.x = 0
                if newline != "\r":
                    self.line_feed()
            elif text:
                for ch in text:
                    if self.x >= self.width:
                        self.x = 0
                        self.line_feed()
                    row = self.rows[self.y]
                    row.extend(" " * (self.x + 1 - len(row)))
                    row[self.x] = ch
                    self.x += 1
        return self

    def line_feed(self) -> None:
        if self.y < self.height - 1:
            self.y += 1
            return
        self.scrolled.append("".join(self.rows.pop(0)).rstrip())
        self.rows.append([])

    @property
    def text(self) -> str:
        return "\n".join("".join(r).rstrip() for r in self.rows).rstrip("\n")


HEADER_5 = "    a    b    c    d    e"  # the live board's column header on a 5-wide board
HEADER_2 = "    a    b"


def live_terminal(
    answers: Callable[[Game, str], str | None],
    size: str = "5x5",
    width: int = 100,
    height: int = 32,
    **options: object,
) -> tuple[str, terminal.TerminalGame, list[str]]:
    """A game on a console that is a colour terminal writing to a string. A question's
    answer (None: the end of input) is written after its prompt, as a terminal echoes what
    is typed. Returns the output, the game and the prompts."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor",
                      width=width, height=height, highlight=False)  # fmt: skip
    prompts: list[str] = []

    def ask(game: Game, prompt: str) -> str:
        prompts.append(prompt)
        out.write(prompt)
        answer = answers(game, prompt)
        if answer is None:
            raise EOFError
        out.write(answer + "\n")
        return answer

    w, h = (int(n) for n in size.split("x"))
    setup = terminal.setup(size=(w, h), **options)  # type: ignore[arg-type]
    game = terminal.TerminalGame(setup, console, ask)
    assert game.live
    assert game.run() == 0
    return out.getvalue(), game, prompts


def scripted(moves: Iterable[Answer], **replies: str) -> Callable[[Game, str], str | None]:
    """Answers from ``moves`` to a move's prompt (then the end of input), and to the other
    questions by their first word (``save``, ``rematch``) from ``replies``."""
    it = iter(moves)

    def answer(game: Game, prompt: str) -> str | None:
        if prompt.startswith("player "):
            move = next(it, None)
            return move(game) if callable(move) else move
        return replies.get(prompt.split()[0].strip("?").lower())

    return answer


def board_rows(screen: str, header: str = HEADER_5, height: int = 5) -> list[str]:
    lines = screen.splitlines()
    top = lines.index(header)
    return lines[top + 1 : top + 1 + height]


def test_the_live_screen_is_redrawn_in_place() -> None:
    moves = ["c3", "b2", "c3", "hint", "moves", "position", "xyz", "b2", "undo", "b2", "quit"]
    out, _, prompts = live_terminal(
        scripted(moves, save=""), seats="human", hint="greedy", delay=0.001
    )
    screen = Screen(100, 32).feed(out)
    # One board on the screen, none scrolled off, and every redraw began by moving back up
    # over the last one: each board in the output comes after cursor-up codes.
    assert screen.text.count(HEADER_5) == 1
    assert not any(HEADER_5 in line for line in screen.scrolled)
    frames = out.split(HEADER_5)
    assert len(frames) > len(moves)  # every answer and every wave redrew the board
    assert all("\x1b[1A" in before for before in frames[1:-1] if before)
    assert out.count(HEADER_5) == len(frames) - 1
    # The cascade's frames: the wave drawn in the status line, with the bursting cell.
    assert "wave 1 of 1: c3 burst" in out
    text = screen.text
    assert "wave 1 of" not in text  # the last frame is the board after the move
    assert text.startswith("5x5 colorwars, 2 players, a moves first: a human, b human\n")
    assert "last: 4. (b) human plays b2: 1 wave" in text  # b2 again after the undo
    assert "unknown command 'xyz'; type a cell such as c3, or help" in text
    assert re.search(r"^hint: [a-e][1-5] \(greedy\)$", text, re.M)
    assert "5x5 colorwars 2 " in text  # the position, among the recent messages
    assert "undone: b b2; player b to move" in text
    assert text.endswith("\nbye")  # the last frame stays, and bye under it
    assert prompts[-1].startswith("save the game record?")
    assert "38;2;214;39;40" in out  # in colour


def test_loaded_cells_are_marked_as_on_the_web_page() -> None:
    # 3x3: a corner holds 1 at rest, an edge 2, the middle 3; loaded (the web's dashed
    # outline) is one orb from bursting: as many orbs as the capacity, or more (an opening's
    # three orbs in a corner).
    counts = [1, 1, 3, 2, 2, 0, 0, 1, 0]
    owners = [0, 1, 0, 1, 0, -1, -1, 0, -1]
    board = terminal.live_board(3, counts, owners, {4: terminal.LAST})
    assert [line.rstrip() for line in board.plain.splitlines()] == [
        "    a    b    c",
        "1  1a!  1b   3a!",
        "2  2b! >2a    .",
        "3   .   1a    .",
    ]
    # The cue does not rest on colour: the mark is a character, bold in the owner's colour,
    # and the loaded cell is underlined besides.
    marks = [span for span in board.spans if board.plain[span.start : span.end] == "!"]
    assert len(marks) == 3
    assert all("bold" in str(span.style) for span in marks)
    cell = next(s for s in board.spans if board.plain[s.start : s.end] == "1b")
    assert "underline" not in str(cell.style)  # an edge cell of one orb: not loaded
    loaded = next(s for s in board.spans if board.plain[s.start : s.end] == "2b")
    assert "underline" in str(loaded.style)


def test_the_live_board_marks_exactly_the_loaded_cells() -> None:
    """A whole game's last screen: '!' after a cell exactly when it holds orbs as many as
    its capacity, or more."""
    out, game, _ = live_terminal(
        scripted(itertools.repeat(random_legal(3))), opponent="greedy", seed=3, delay=0
    )
    g = game.game
    rows = board_rows(Screen(100, 32).feed(out).text)
    for cell in range(g.cells):
        x, y = cell % 5, cell // 5
        field = rows[y][1 + 5 * x : 6 + 5 * x].ljust(5)  # a gap, a mark, the cell, a mark
        capacity = (x > 0) + (x < 4) + (y > 0) + (y < 4) - 1
        n = g.counts()[cell]
        assert field[2:4] == (f"{n}{'ab'[g.owners()[cell]]}" if n else " ."), (cell, field)
        assert (field[4] == "!") == (n > 0 and n >= capacity), (cell, field)


@pytest.mark.parametrize(
    ("rules", "opening", "burst"),
    [
        ("colorwars", "drops three orbs on an empty cell", "empties the cell"),
        ("classic", "adds one orb to an empty cell or to a cell of your own", "stay in it"),
        ("drop3+subtract", "drops three orbs on an empty cell", "stay in it"),
        ("none+empty", "adds one orb to an empty cell or to a cell of your own", "empties"),
    ],
)
def test_rules_prints_the_rule_set_of_the_game(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rules: str,
    opening: str,
    burst: str,
) -> None:
    s = play(monkeypatch, capsys, ["--opponent", "greedy", "--rules", rules],
             ["rules", "help", "quit"])  # fmt: skip
    assert s.code == 0, s.err
    text = s.outputs[1]
    lines = text.splitlines()
    assert lines[0].startswith(f"the rules: {rules} (opening ")
    assert len(lines) == len(terminal.rules_summary(terminal.setup(rules=rules).rules)) + 1
    assert opening in text
    assert burst in text
    assert ("stay in it" in text) == ("subtract" in terminal.setup(rules=rules).rules.burst)
    assert ("drops three orbs" in text) == rules.startswith(("colorwars", "drop3"))
    assert "no diagonals" in text
    assert "the last player with orbs wins" in text
    assert ESC not in text  # piped: plain text
    assert "rules" in s.outputs[2]  # help lists the command
    # On the live screen the rules come with the board's marks.
    out, _, _ = live_terminal(scripted(["rules", "quit"]), rules=rules, opponent="greedy",
                              height=40)  # fmt: skip
    screen = Screen(100, 40).feed(out).text
    assert f"the rules: {rules} (opening " in screen
    assert "! after a cell: loaded, one more orb bursts it" in screen
    assert "(printed above)" not in screen  # it fits under the board


def test_rules_too_long_for_the_screen_are_printed_above_it() -> None:
    out, _, _ = live_terminal(scripted(["rules", "c3", "quit"]), width=60, height=20,
                              opponent="greedy", seed=1)  # fmt: skip
    screen = Screen(60, 20).feed(out)
    assert "(printed above)" in screen.text
    above = "\n".join(screen.scrolled) + screen.text
    assert "the rules: colorwars (opening drop3, burst empty; RULES.md)" in above
    assert screen.text.count(HEADER_5) == 1  # the board still drawn once, in place


def test_rematch_same_settings_and_swapped_seats(tmp_path: Path) -> None:
    """2x2: every game ends within four moves. The first game, then a rematch with the
    seats swapped (the human at b), then one with the same seats, then no more."""
    path = tmp_path / "game.cwr"
    replies = iter(["maybe", "s", "y", "n"])

    def answer(game: Game, prompt: str) -> str | None:
        if prompt == terminal.REMATCH:
            return next(replies)
        return first_legal(game)

    out, _, prompts = live_terminal(
        answer, size="2x2", opponent="greedy", seed=1, save=str(path), delay=0
    )
    assert prompts.count(terminal.REMATCH) == 4
    records = [GameRecord.parse(p.read_text(encoding="utf-8"))
               for p in (path, tmp_path / "game-2.cwr", tmp_path / "game-3.cwr")]  # fmt: skip
    assert not (tmp_path / "game-4.cwr").exists()
    assert [r.note for r in records] == [
        "seats: a you, b greedy",
        "seats: a greedy, b you",  # swapped
        "seats: a greedy, b you",  # the same as the game before
    ]
    for r in records:  # the same settings, every game played out
        assert (r.width, r.height, r.players, r.rules.name, r.first) == (2, 2, 2, "colorwars", 0)
        assert r.replay().winner is not None
    # The human was asked for moves as a, then as b.
    first_b = prompts.index("player b, your move: ")
    assert set(prompts[:first_b]) <= {"player a, your move: ", terminal.REMATCH}
    screen = Screen(100, 32).feed(out).text
    assert "2x2 colorwars, 2 players, a moves first: a greedy, b you (game 3)" in screen
    assert "game 3: the same seats" in screen
    assert screen.endswith("\nbye")
    assert "'maybe': answer y (a rematch), s (a rematch with the seats swapped) or n (no)" in out
    assert "game 2: the seats swapped" in out


def test_rematch_ends_at_the_end_of_input_and_is_never_asked_when_piped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _, prompts = live_terminal(
        scripted(itertools.repeat(first_legal), save=""), size="2x2", opponent="greedy",
        seed=2, delay=0,
    )  # fmt: skip
    assert prompts[-1] == terminal.REMATCH  # answered by the end of input
    assert Screen(100, 32).feed(out).text.endswith("\nbye")
    # Not a terminal: the game ends with its result, as before.
    s = play(monkeypatch, capsys, ["--size", "2x2", "--opponent", "greedy"],
             itertools.repeat(first_legal))  # fmt: skip
    assert s.code == 0
    assert set(s.prompts) == {"player a, your move: "}
    assert "Rematch" not in s.out
    assert s.out.rstrip().splitlines()[-1] in ("you win!", "greedy wins.")


# -- a real terminal: a pseudo-terminal ----------------------------------------------------
class Pty:
    """``colorwars play ARGS`` with its output on a pseudo-terminal of ``width`` x
    ``height`` (and its input too, unless ``stdin`` is given: then that, through a pipe).
    ``screen`` emulates what the terminal shows."""

    def __init__(self, args: list[str], width: int = 100, height: int = 32,
                 stdin: str | None = None) -> None:  # fmt: skip
        import fcntl
        import pty
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        env = plain_env()
        env.update(COLUMNS=str(width), LINES=str(height))
        self.child = subprocess.Popen(
            colorwars_play(*args),
            stdin=slave if stdin is None else subprocess.PIPE,
            stdout=slave, stderr=slave, env=env, close_fds=True,
            # The terminal is the child's own (its controlling terminal), so Ctrl-C typed on
            # it interrupts the child.
            start_new_session=True, preexec_fn=lambda: fcntl.ioctl(1, termios.TIOCSCTTY, 0),
        )  # fmt: skip
        os.close(slave)
        if stdin is not None:
            assert self.child.stdin is not None
            self.child.stdin.write(stdin.encode())
            self.child.stdin.close()
        self.output = b""
        self.screen = Screen(width, height)

    def read(self, seconds: float) -> bool:
        """Reads what the child wrote within ``seconds``; False once it is closed."""
        import select

        ready, _, _ = select.select([self.master], [], [], seconds)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the child is gone and its terminal closed
            return False
        if not data:
            return False
        self.output += data
        self.screen.feed(data.decode("utf-8", "replace"))
        return True

    def wait_for(self, what: Callable[[str], bool], seconds: float = 30) -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if what(self.screen.text):
                return self.screen.text
            if not self.read(0.05) and not what(self.screen.text):
                break
        pytest.fail(f"the terminal never showed what was expected:\n{self.screen.text}")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\r").encode())

    def answer(self, line: str, then: Callable[[str], bool]) -> str:
        """Types ``line`` and waits for the screen to be redrawn and to show ``then``."""
        mark = len(self.output)
        self.send(line)
        return self.wait_for(lambda t: b"\x1b[1A" in self.output[mark:] and then(t))

    def close(self) -> int:
        """The child's exit status, once it has ended (ended here if it is still running)
        and all it wrote is read."""
        end = time.monotonic() + 30
        while self.child.poll() is None and time.monotonic() < end:
            self.read(0.05)
        if self.child.poll() is None:
            self.child.kill()
        code = self.child.wait(timeout=30)
        while self.read(0.05) and select_ready(self.master):
            pass
        os.close(self.master)
        return code


def select_ready(fd: int) -> bool:
    import select

    return bool(select.select([fd], [], [], 0)[0])


@pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")
def test_a_pseudo_terminal_game_with_a_rematch() -> None:
    """Typed on a real (pseudo-)terminal, which echoes each line: the screen keeps one
    board, in place; a finished game offers the save and the rematch."""
    term = Pty(["--size", "2x2", "--opponent", "greedy", "--seed", "1", "--delay", "0"])

    def asks(*prompts: str) -> Callable[[str], bool]:
        return lambda text: text.rstrip().endswith(tuple(p.rstrip() for p in prompts))

    move, over = asks("your move:"), asks("Enter for no:")
    try:
        term.wait_for(move)
        text = term.answer("rules", move)
        assert "the rules: colorwars (opening drop3, burst empty; RULES.md)" in text
        cells = itertools.cycle("0123")  # cell numbers: the illegal ones are refused
        for _ in range(40):
            if over(term.answer(next(cells), asks("your move:", "Enter for no:"))):
                break
        term.answer("", asks(terminal.REMATCH))  # no record
        text = term.answer("s", asks("player b, your move:"))  # the human at b: greedy opens
        assert "(game 2)" in text
        assert text.count(HEADER_2 + "\n") == 1  # one board on the screen
        assert HEADER_2 not in term.screen.scrolled
        term.answer("quit", over)
        term.answer("", lambda t: t.endswith("\nbye"))
    finally:
        code = term.close()
    assert code == 0
    assert "Traceback" not in term.output.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")
def test_a_pseudo_terminal_with_piped_input_ends_at_its_end() -> None:
    """Input piped, output a terminal: the hot-seat game ends (b wins on 2x2: a's a1 opens,
    b's b2, a1 bursts, b2 bursts and takes a's last orbs), the rematch is offered, and the
    end of input ends it with one line."""
    term = Pty(["--size", "2x2", "--seats", "human", "--delay", "0"], stdin="a1\nb2\na1\nb2\n")
    try:
        text = term.wait_for(lambda t: t.endswith("\nbye"))
    finally:
        code = term.close()
    assert code == 0
    assert "game over: player b (human) wins." in text
    assert text.count(HEADER_2 + "\n") == 1
    assert "Traceback" not in term.output.decode()
    assert terminal.REMATCH.strip() in term.output.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")
def test_a_pseudo_terminal_ctrl_c_is_one_line() -> None:
    term = Pty(["--opponent", "greedy", "--seed", "1"])
    try:
        term.wait_for(lambda t: t.rstrip().endswith("player a, your move:"))
        term.send("c3")
        term.wait_for(lambda t: "2. (b) greedy plays" in t and t.rstrip().endswith("move:"))
        os.write(term.master, b"\x03")  # Ctrl-C
        text = term.wait_for(lambda t: "error: interrupted" in t)
    finally:
        code = term.close()
    assert code == 130
    assert text.rstrip().endswith("error: interrupted")
    assert text.count(HEADER_5) == 1
    assert "Traceback" not in term.output.decode()


def test_ctrl_c_while_the_input_thread_starts_is_held_then_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C landing inside Thread.start's wait broke its lock ("release unlocked lock", a
    traceback in CI); it is held until the thread has started, then raised, and the handler
    put back."""
    import signal
    import threading

    from colorwars.terminal import start_holding_ctrl_c

    before = signal.getsignal(signal.SIGINT)
    ran = threading.Event()
    thread = threading.Thread(target=ran.set, daemon=True)
    real_start = threading.Thread.start

    def start_under_ctrl_c(self: threading.Thread) -> None:
        signal.raise_signal(signal.SIGINT)  # handled by whatever handler is in place now
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start_under_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        start_holding_ctrl_c(thread)
    assert ran.wait(5)  # the thread did start
    assert signal.getsignal(signal.SIGINT) is before
