"""The engine protocol (issue 21, section 1): ``colorwars engine`` answers every command of
``colorwars-engine 1``, a bad line gets one ``error`` line and the engine keeps going, ``stop``
ends a search, the end of the input ends the engine; ``colorwars.ai.Engine`` plays any
program that speaks the protocol (colorwars itself, a shell script), and a misbehaving one
loses its game with a clear reason without ever hanging the match."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import colorwars
import pytest
from colorwars import ai
from colorwars.engine import (
    MAX_LINE,
    MAX_POSITIONS,
    Client,
    Engine,
    EngineServer,
    _StopFlag,
    serve,
)
from colorwars.errors import EngineError, FileError, InvalidPlayerError
from colorwars.players import parse_player
from stopping import search_stopped

HERE = Path(__file__).resolve().parent
ENGINES = HERE / "engines"
DOCS = HERE.parent / "docs" / "engine.md"
COLORWARS = [sys.executable, "-m", "colorwars", "engine"]


def talk(*lines: str, player: str = "alphabeta") -> list[str]:
    """The engine's answers to ``lines`` (then the end of the input), in process."""
    out = io.StringIO()
    data = "".join(line + "\n" for line in lines).encode()
    assert serve(io.BytesIO(data), out, player=player) == 0
    return out.getvalue().splitlines()


# Every command, in process --------------------------------------------------------------------


def test_protocol_names_itself_and_its_version() -> None:
    assert talk("protocol") == [f"protocol colorwars-engine 1 colorwars {colorwars._core.VERSION}"]


def test_a_game_through_the_protocol_follows_the_rules() -> None:
    # RULES.md §2: a drop3 player's first move goes on an empty cell, later ones on its own.
    answers = talk(
        "newgame 3 3 colorwars 2", "play a1", "legal", "play c3", "legal", "status", "show",
        "undo", "show", "isready",
    )  # fmt: skip
    assert answers == [
        "ok",
        "ok",
        "legal b1 c1 a2 b2 c2 a3 b3 c3",
        "ok",
        "legal a1",
        "status to_move=a winner=- ply=2 out=-",
        "position 3x3 colorwars 2 3a../.../..3b a ab - 2",
        "ok",
        "position 3x3 colorwars 2 3a../.../... b a - 1",
        "readyok",
    ]


def test_position_with_moves_and_the_notation_round_trip() -> None:
    g = colorwars.Game(4, 4, rules="classic")
    for move in ("a1", "d4", "a1", "d4"):
        g.play(move)
    answers = talk("position 4x4 classic 2 ..../..../..../.... a - - 0 moves a1 d4 a1 d4", "show")
    assert answers == ["ok", f"position {g.to_text()}"]


def test_status_reports_the_winner_and_legal_is_empty_once_won() -> None:
    # RULES.md §1: once every player has moved, a player with no orbs is out; the last one
    # left wins. On 2x2 colorwars a's second orb in a1 bursts and takes b's cell b1.
    g = colorwars.Game(2, 2)
    for move in ("a1", "b1", "a1"):
        g.play(move)
    assert g.winner == 0
    answers = talk(
        "newgame 2 2", "play a1", "play b1", "play a1", "status", "legal", "go", "play a1"
    )
    assert answers[:4] == ["ok"] * 4
    assert answers[4] == "status to_move=- winner=a ply=3 out=b"
    assert answers[5] == "legal"
    assert answers[6].startswith("error the game is over (player a has won)")
    assert answers[7].startswith("error illegal move")


def test_go_answers_info_then_a_legal_bestmove_without_playing_it() -> None:
    answers = talk("newgame 5 5", "play c3", "go depth=2", "show")
    assert answers[2].startswith("info player=alphabeta(2) work=")
    assert "stopped=no" in answers[2]
    move = answers[3].removeprefix("bestmove ")
    g = colorwars.Game()
    g.play("c3")
    assert g.is_legal(move)
    assert answers[4] == f"position {g.to_text()}"  # go does not play the move


@pytest.mark.parametrize(
    ("player", "go", "name"),
    [
        ("alphabeta", "go depth=3", "alphabeta(3)"),
        ("alphabeta", "go time=0.05", "alphabeta(0.05s)"),
        ("mcts:c=0.7", "go simulations=50", "mcts(50)[c=0.7]"),
        ("mcts:300", "go", "mcts(300)"),
        ("mcts:300", "go time=0.05", "mcts(0.05s)"),
        ("greedy", "go time=0.05", "greedy"),
        ("random", "go", "random"),
    ],
)
def test_go_budgets_replace_the_players_own(player: str, go: str, name: str) -> None:
    answers = talk(f"setoption player={player}", "newgame 4 4", go)
    assert answers[0] == "ok"
    assert answers[2].startswith(f"info player={name} ")
    assert answers[3].startswith("bestmove ")


@pytest.mark.parametrize(
    ("player", "go", "says"),
    [
        ("alphabeta", "go simulations=100", "go simulations= does not apply to the player "
         "alphabeta: it takes time= and depth="),
        ("mcts:100", "go depth=3", "go depth= does not apply to the player mcts: it takes "
         "time= and simulations="),
        ("zero", "go depth=3", "go depth= does not apply to the player zero"),
        ("zeroab", "go simulations=9", "go simulations= does not apply to the player zeroab"),
        ("perfect", "go depth=2", "go depth= does not apply to the player perfect: it takes "
         "time="),
    ],
)  # fmt: skip
def test_a_go_key_the_player_does_not_take_is_named(player: str, go: str, says: str) -> None:
    # It said "invalid player 'alphabeta:simulations=100'", a name the user never gave.
    answers = talk("setoption seed=5", f"setoption player={player}", "newgame 4 4", go, "show")
    assert answers[3].startswith(f"error {says}")
    assert answers[4].startswith("position 4x4")


def test_stopped_says_whether_the_search_was_told_to_stop_not_whether_a_stop_came() -> None:
    # A quit read while a search that never looks (random's) ran said stopped=yes.
    answers = talk("newgame 5 5", "setoption player=random", "go", "quit")
    assert answers[2].endswith("stopped=no")
    server = EngineServer(lambda line: None)
    flag = _StopFlag(server, 3)
    server.stop(9)
    assert not flag.seen
    assert flag.is_set()
    assert flag.seen
    assert not _StopFlag(server, 9).is_set()  # a command after the stop is not stopped
    answers = talk("newgame 5 5", "go time=30", "stop")
    assert answers[1].endswith("stopped=yes")


def test_the_seed_makes_a_search_repeatable() -> None:
    first = talk("setoption seed=7", "setoption player=mcts:200", "newgame 5 5", "go")
    again = talk("setoption seed=7", "setoption player=mcts:200", "newgame 5 5", "go")
    assert first[-1] == again[-1]
    assert first[3].split()[2] == again[3].split()[2]  # the same work


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("fly me to the moon", "error unknown command 'fly'"),
        ("newgame 1 5", "error invalid board size 1x5"),
        ("newgame 5", "error usage: newgame"),
        ("newgame 5 5 chess", "error invalid rules"),
        ("newgame 5 5 colorwars 9", "error invalid number of players 9"),
        ("newgame x 5", "error invalid width 'x'"),
        # Python's int() read other scripts' digits and underscores.
        ("newgame \uff15 5", "error invalid width '\uff15': expected a whole number"),
        ("newgame 1_0 5", "error invalid width '1_0'"),
        ("go time=0_1", "error invalid time '0_1'"),
        ("position", "error usage: position"),
        ("position 5x5 colorwars 2 ...../.. a - - 0", "error invalid position"),
        ("play", "error usage: play MOVE"),
        ("play z9", "error invalid move"),
        ("undo", "error no move to undo: none has been played since the last newgame"),
        ("go depth=3 time", "error invalid search budget 'time'"),
        ("go nodes=5", "error invalid search budget 'nodes=5'"),
        ("go time=-1", "error invalid time"),
        ("go time=nan", "error invalid time"),
        ("go depth=x", "error invalid depth 'x'"),
        ("go depth=1000", "error invalid depth"),
        ("setoption player=chess", "error invalid player"),
        ("setoption colour=red", "error unknown option 'colour'"),
        ("setoption player", "error usage: setoption"),
        ("setoption seed=-1", "error invalid seed"),
        ("analyse", "error analyse expects one JSON object"),
        ("analyse [1, 2]", "error analyse expects one JSON object"),
        ('analyse {"positions": []}', "error analyse: positions must be a non-empty list"),
        ('analyse {"time": "long"}', "error analyse: time must be a number"),
        ('analyse {"exact": -1}', "error analyse: exact must be from 0 to 3600"),
        ('analyse {"id": [1]}', "error analyse: id must be a text"),
        ('analyse {"positons": []}', "error analyse: unknown key 'positons': expected positions"),
    ],
)
def test_a_bad_line_gets_one_error_line_and_the_engine_goes_on(line: str, says: str) -> None:
    answers = talk("newgame 5 5", line, "show")
    assert answers[0] == "ok"
    assert answers[1].startswith(says), answers[1]
    assert len(answers) == 3
    assert answers[2] == "position 5x5 colorwars 2 ...../...../...../...../..... a - - 0"


@pytest.mark.parametrize(
    "line",
    ["protocol 1", "isready now", "undo 2", "legal a1", "show me", "status please", "stop now",
     "quit now"],
)  # fmt: skip
def test_a_command_that_takes_no_arguments_refuses_words_after_it(line: str) -> None:
    """Extra words were ignored, but by undo; a stop or quit with words is not acted on."""
    command = line.split()[0]
    answers = talk("newgame 3 3", "play b2", line, "show", "isready")
    assert answers[2] == f"error usage: {command} (it takes no arguments)"
    assert answers[3:] == ["position 3x3 colorwars 2 .../.3a./... b a - 1", "readyok"]


def test_a_bad_move_in_a_position_command_leaves_the_game_as_it_was() -> None:
    answers = talk(
        "newgame 3 3", "play b2", "position 3x3 colorwars 2 .../.../... a - - 0 moves a1 a1",
        "show",
    )  # fmt: skip
    assert answers[2].startswith("error illegal move")
    assert answers[3] == "position 3x3 colorwars 2 .../.3a./... b a - 1"


def test_a_go_with_a_player_that_does_not_fit_says_so() -> None:
    # Two-player searchers refuse three players; the engine says so and stays usable.
    answers = talk("newgame 4 4 colorwars 3", "setoption player=alphabeta", "go depth=2", "legal")
    assert answers[2].startswith("error ")
    assert answers[3].startswith("legal a1")


def test_lines_too_long_or_not_utf8_are_refused_and_skipped() -> None:
    data = b"newgame 3 3\n" + b"play " + b"a" * (MAX_LINE + 10) + b"\n" + b"\xff\xfe\n" + b"show\n"
    out = io.StringIO()
    serve(io.BytesIO(data), out)
    answers = out.getvalue().splitlines()
    assert answers == [
        "ok",
        f"error line too long: at most {MAX_LINE} bytes",
        "error the line is not UTF-8 text",
        "position 3x3 colorwars 2 .../.../... a - - 0",
    ]


def test_blank_lines_and_comments_get_no_answer_and_quit_ends_it() -> None:
    assert talk("", "   ", "# a comment", "isready", "quit", "isready") == ["readyok"]


def test_analyse_answers_each_position_then_done() -> None:
    request = {
        "id": "q1",
        "positions": [
            "3x3 colorwars 2 .../.../... a - - 0 moves a1 c3",
            {"position": "4x4 classic 2 ..../..../..../.... a - - 0", "moves": ["b2"]},
            "not a position",
            {"position": "2x2 colorwars 2 ../.. a - - 0", "moves": ["a1", "b1", "a1"]},
        ],
        "simulations": 300,
        "exact": 5,
    }
    answers = [json.loads(a) for a in talk("analyse " + json.dumps(request))]
    assert [a.get("index") for a in answers] == [0, 1, 2, 3, None]
    first, second, bad, over, done = answers
    assert first["id"] == "q1"
    assert first["to_move"] == "a"
    # 3x3 colorwars after a1 c3: a has one legal move (its own cell), and the solver knows
    # the result: the second player wins (colorwars.solve agrees).
    solution = colorwars.solve(colorwars.Game.from_text(first["position"]))
    assert [m["move"] for m in first["moves"]] == ["a1"]
    assert first["exact"] == {"winner": "ab"[solution.winner], "plies": solution.plies}
    assert first["moves"][0]["exact"]["winner"] == "ab"[solution.winner]
    assert second["to_move"] == "b"
    assert sum(m["visits"] for m in second["moves"]) == second["simulations"] or second["moves"]
    legal = colorwars.Game.from_text(second["position"]).legal_moves()
    assert len(second["moves"]) == len(legal)
    for m in second["moves"]:
        assert m["value"] is None or -1 <= m["value"] <= 1
        assert 0 <= m["share"] <= 1
    assert "invalid position" in bad["error"]
    assert "the game is over" in over["error"]
    assert done == {
        "id": "q1", "done": True, "positions": 4, "analysed": 2, "stopped": False,
        "seconds": done["seconds"],
    }  # fmt: skip


def test_analyse_of_the_current_game_after_its_end_answers_in_json() -> None:
    # Without positions the current game is analysed; won, it is an error line like any
    # other position's (it was a plain `error illegal move` line, with no done line).
    answers = talk("newgame 2 2", "play a1", "play b2", "play a1", "play b2", "analyse {}")
    over, done = (json.loads(a) for a in answers[5:])
    assert over == {"id": None, "index": 0, "error": "the game is over (player b has won)"}
    assert done["positions"] == 1
    assert done["analysed"] == 0


def test_analyse_refuses_unknown_keys_in_a_position_object() -> None:
    item = {"position": "3x3 classic 2 .../.../... a - - 0", "movs": ["a1"]}
    answers = [json.loads(a) for a in talk("analyse " + json.dumps({"positions": [item]}))]
    assert "unknown key 'movs' in a position" in answers[0]["error"]


def test_a_stopped_analysis_still_answers_every_position() -> None:
    lines: list[str] = []
    server = EngineServer(lines.append)
    start = "6x6 classic 2 ....../....../....../....../....../...... a - - 0"
    request = {"id": 7, "time": 600, "exact": 0, "positions": [start, start, "bad"]}
    thread = threading.Thread(target=server.handle, args=("analyse " + json.dumps(request), 5))
    thread.start()
    server.stop(6)
    thread.join(timeout=60)
    assert not thread.is_alive()
    answers = [json.loads(a) for a in lines]
    assert [a.get("index") for a in answers] == [0, 1, 2, None]
    assert answers[1]["error"] == answers[2]["error"] == "not analysed: stopped"
    assert answers[3]["positions"] == 3
    assert answers[3]["stopped"] is True
    assert answers[3]["analysed"] <= 1


def test_the_default_player_hands_games_of_more_than_two_players_to_mcts() -> None:
    answers = talk("newgame 4 4 classic 3", "go simulations=50", "go depth=3")
    assert answers[1].startswith("info player=mcts(50) ")
    assert answers[3].startswith("info player=mcts(")
    assert answers[4].startswith("bestmove ")
    # A player set outright is kept: a game it cannot play is an error at go.
    answers = talk("newgame 4 4 classic 3", "setoption player=alphabeta", "go")
    assert answers[2].startswith("error invalid player: alpha-beta plays two-player games only")


@pytest.mark.parametrize("player", ["learned", "learned:time=5", "learned:3"])
def test_go_budgets_apply_to_the_learned_player(player: str) -> None:
    answers = talk("newgame 6 6 classic", f"setoption player={player}", "go depth=2")
    assert answers[2].startswith("info player=learned(2) "), answers[2]
    answers = talk("newgame 6 6 classic", f"setoption player={player}", "go time=0.05")
    assert answers[2].startswith("info player=learned(0.05s) "), answers[2]


def test_analyse_refuses_too_many_positions() -> None:
    request = {"positions": ["3x3 colorwars 2 .../.../... a - - 0"] * (MAX_POSITIONS + 1)}
    (answer,) = talk("analyse " + json.dumps(request))
    assert answer.startswith(f"error analyse: {MAX_POSITIONS + 1} positions in one request")


def test_a_search_survives_a_bug_as_an_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import colorwars.engine as engine

    def broken(*args: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(engine, "_decide", broken)
    assert talk("newgame 3 3", "go", "isready") == [
        "ok",
        "error internal error: RuntimeError: a bug",
        "readyok",
    ]


def test_stop_ends_a_running_search_and_the_server_answers_it() -> None:
    lines: list[str] = []
    said = threading.Event()

    def write(line: str) -> None:
        lines.append(line)
        said.set()

    server = EngineServer(write)
    thread = threading.Thread(target=server.handle, args=("go time=600", 5))
    thread.start()
    server.stop(6)  # a stop read after the go
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert "stopped=yes" in lines[0]
    assert lines[1].startswith("bestmove ")


@pytest.mark.parametrize(
    "player",
    ["zero", "zero:probe=100000000", "learned:probe=100000000", "zeroab:depth=64", "perfect"],
)
def test_stop_ends_zero_and_a_probing_players_search(player: str) -> None:
    """Zero's search, a player's endgame probe and ``perfect``'s proof search and fallback
    end on ``stop`` as the other searches do (the probe's budget here would take minutes: its
    threshold is what ends it on 8 x 8; ``perfect`` would prove for 420 s of the 600)."""
    lines: list[str] = []
    server = EngineServer(lines.append)
    server.handle(f"setoption player={player}", 1)
    server.handle("newgame 8 8 classic", 2)
    thread = threading.Thread(target=server.handle, args=("go time=600", 3))
    thread.start()
    server.stop(4)
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert lines[:2] == ["ok", "ok"]
    assert "stopped=yes" in lines[2]
    assert lines[3].startswith("bestmove ")


# The engine as a program, through the Client ----------------------------------------------------


def test_the_client_drives_colorwars_engine_and_stop_interrupts_go() -> None:
    with Client(COLORWARS, timeout=60) as c:
        assert c.request("newgame 8 8 classic", expect="ok") == "ok"
        c.send("go time=600")
        c.send("stop")
        info = c.answer(timeout=60)
        assert info.startswith("info ")
        assert "stopped=yes" in info
        assert c.answer(timeout=60).startswith("bestmove ")
        assert c.request("isready") == "readyok"
        answers = list(c.analyse({"id": 3, "simulations": 100}))
        assert answers[-1]["done"] is True
        assert answers[0]["id"] == 3


def test_stop_reaches_an_engine_player_through_its_program() -> None:
    """An ``engine:`` player told to stop sends its program ``stop`` and plays the answer;
    inside ``colorwars engine``, the engine's own ``stop`` command does that (the program's
    600 s would otherwise run out)."""
    g = colorwars.Game(8, 8, rules="classic")
    player = Engine(COLORWARS, time=600)
    try:
        decision = search_stopped(player.search, g, 0.5, 120, "the engine's program")
        assert decision.cell in g.legal_moves()
    finally:
        player.close()
    lines: list[str] = []
    server = EngineServer(lines.append)
    server.handle("setoption player=engine:" + shlex.join(COLORWARS), 1)
    server.handle("newgame 8 8 classic", 2)
    thread = threading.Thread(target=server.handle, args=("go time=600", 3))
    thread.start()
    threading.Timer(0.5, server.stop, args=(4,)).start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert "stopped=yes" in lines[2]
    assert lines[3].startswith("bestmove ")


def test_stop_reaches_an_engine_that_writes_info_lines_all_the_time() -> None:
    """The stop flag is looked at before every line, not only when the engine is quiet: this
    one writes ``info`` every 5 ms and moves only once it is sent ``stop``."""
    g = colorwars.Game(8, 8, rules="classic")
    chatty = Engine([sys.executable, str(ENGINES / "misbehaving.py"), "chatty"], time=60)
    try:
        decision = search_stopped(chatty.search, g, 0.3, 30, "the chatty engine's go")
        assert g.cell_name(decision.cell) == "a1"
    finally:
        chatty.close()


def test_the_end_of_the_input_answers_everything_read_then_ends() -> None:
    run = subprocess.run(
        COLORWARS, input="newgame 4 4\ngo depth=2\n", capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "ok"
    assert lines[1].startswith("info ")
    assert lines[2].startswith("bestmove ")


def test_colorwars_engine_refuses_a_bad_player_in_one_line() -> None:
    run = subprocess.run(
        [*COLORWARS, "--player", "chess"], input="", capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1
    assert "invalid player" in run.stderr
    assert "Traceback" not in run.stderr


def test_colorwars_plays_itself_through_the_protocol() -> None:
    a = Engine(COLORWARS, time=0.02)
    b = parse_player("engine:" + " ".join([*COLORWARS, "--player", "greedy"]))
    assert isinstance(b, Engine)
    try:
        result = ai.match([a, b], 2, 4, 4, rules="classic", first_move="b2")
        assert result["forfeits"] == []
        assert set(result["winners"].tolist()) <= {0, 1}
        assert (result["first_moves"] == 5).all()
    finally:
        a.close()
        b.close()


def test_the_engine_searches_as_the_player_does_in_process() -> None:
    g = colorwars.Game(5, 5)
    for move in ("c3", "b2", "c3"):
        g.play(move)
    with Client([*COLORWARS, "--player", "alphabeta"]) as c:
        c.request(f"position {g.to_text()}", expect="ok")
        answer = c.request("go depth=3", expect="bestmove")
    assert g.cell(answer.split()[1]) == ai.AlphaBeta(depth=3).choose(g)


def test_an_unbalanced_quote_in_an_engine_command_is_our_error() -> None:
    with pytest.raises(InvalidPlayerError, match="no closing quotation"):
        Engine("./bot 'x")
    with pytest.raises(InvalidPlayerError, match="no closing quotation"):
        parse_player("engine:./bot 'x")
    with pytest.raises(EngineError, match="no closing quotation"):
        Client("./bot 'x")
    answers = talk("setoption player=engine:./bot 'x")
    assert answers[0].startswith("error invalid engine command"), answers


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_an_engine_whose_search_runs_another_program_is_stopped_with_it(tmp_path: Path) -> None:
    # A launcher or a shell engine whose `go` runs a program: killing the engine alone left
    # that program holding the pipe, and the forfeit waited for it (25 s a game).
    script = tmp_path / "slow.sh"
    script.write_text(
        'while IFS= read -r line; do case "$line" in\n'
        "protocol) echo 'protocol colorwars-engine 1 slow 1' ;;\n"
        "position*) echo ok ;;\n"
        "go*) sleep 30; echo 'bestmove a1' ;;\n"
        "quit) exit 0 ;;\n"
        "esac; done\n"
    )
    slow = Engine(["sh", str(script)], time=0.1, grace=0.5)
    started = time.monotonic()
    with pytest.raises(EngineError, match="gave no answer within"):
        slow.choose(colorwars.Game())
    assert time.monotonic() - started < 10  # a hang would be 30 s


def test_ctrl_c_while_an_engine_thinks_stops_it() -> None:
    silent = Engine([sys.executable, str(ENGINES / "misbehaving.py"), "silent"], time=60)
    main = threading.main_thread().ident
    assert main is not None
    timer = threading.Timer(0.5, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            silent.choose(colorwars.Game())
    finally:
        timer.cancel()
    assert silent._client is None  # the engine was killed with the search


@pytest.mark.skipif(shutil.which("sh") is None or shutil.which("awk") is None, reason="no sh/awk")
def test_an_engine_in_another_language_plays_a_full_match() -> None:
    shell = Engine(["sh", str(ENGINES / "first_legal.sh")], time=0.5, name="first-legal")
    assert shell.name == "engine(first-legal)"
    try:
        for rules in ("colorwars", "classic"):
            result = ai.match([shell, "random"], 4, 4, 4, rules=rules)
            assert result["forfeits"] == [], result["forfeits"]
            assert (result["winners"] >= 0).all()
        # A tournament and the ladder take it too, as an engine:CMD name.
        name = f"engine:sh {ENGINES / 'first_legal.sh'}"
        t = ai.tournament([name, "random"], 2, 3, 3)
        assert t.games.sum() == 4
        lad = ai.ladder([name, "greedy"], 2, 3, 3, rules="colorwars", time=0.2)
        assert lad.games.sum() == 4
        assert lad.forfeits == []
    finally:
        shell.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("illegal", "answered an illegal move"),
        ("offboard", "answered 'z99'"),
        ("garbage", "answered 'I resign, but in prose'"),
        ("silent", "gave no answer within"),
        ("crash", "exited with status 3 (its last words: 'segfault, nearly')"),
        ("long", "wrote a line over"),
        ("nohandshake", "does not speak colorwars-engine 1"),
        ("slowstart", "gave no answer within"),
    ],
)
def test_a_misbehaving_engine_loses_with_a_clear_reason(mode: str, reason: str) -> None:
    bad = Engine(
        [sys.executable, str(ENGINES / "misbehaving.py"), mode], time=0.05, grace=1.0, startup=3.0
    )
    result = ai.match(["greedy", bad], 2, 3, 3)
    # Seat b forfeits every game: a wins, and the reason says what went wrong.
    assert result["winners"].tolist() == [0, 0]
    assert [(g, seat) for g, seat, _ in result["forfeits"]] == [(0, 1), (1, 1)]
    for _, _, why in result["forfeits"]:
        assert why.startswith("engine misbehaving.py"), why
        assert reason in why, why
    assert bad._client is None  # killed: the next move starts it again


def test_a_forfeit_in_the_ladder_is_a_lost_game() -> None:
    bad = Engine([sys.executable, str(ENGINES / "misbehaving.py"), "garbage"], time=0.05)
    lad = ai.ladder([bad, "random"], 2, 3, 3, rules="colorwars")
    assert lad.wins[0].sum() == 0
    assert lad.wins[1].sum() == 2
    assert len(lad.forfeits) == 2
    assert "answered 'I resign, but in prose'" in lad.forfeits[0]["reason"]


def test_engine_settings_and_commands_are_checked() -> None:
    with pytest.raises(InvalidPlayerError, match="engine command"):
        Engine("")
    for command in (123, None, b"colorwars engine"):  # a bare TypeError before
        with pytest.raises(InvalidPlayerError, match=r"expected a text .* or a sequence"):
            Engine(command)  # type: ignore[arg-type]
    with pytest.raises(InvalidPlayerError, match="time"):
        Engine("x", time=-1)
    with pytest.raises(EngineError, match="cannot start engine"):
        Engine(["/nonexistent/engine"]).choose(colorwars.Game())
    with pytest.raises(InvalidPlayerError, match="another program"):
        Engine("x").native_spec()


def test_an_engine_is_not_asked_once_the_game_is_won() -> None:
    g = colorwars.Game(2, 2)
    for move in ("a1", "b1", "a1"):
        g.play(move)
    with pytest.raises(colorwars.GameOverError):
        Engine("never-started").choose(g)


# The docs' transcript is what the engine says --------------------------------------------------


def _normalised(line: str) -> str:
    line = re.sub(r"seconds=[0-9.]+", "seconds=S", line)
    line = re.sub(r'"seconds":[0-9.]+', '"seconds":S', line)
    return re.sub(r"colorwars-engine 1 colorwars \S+", "colorwars-engine 1 colorwars VERSION", line)


@pytest.mark.skipif(not DOCS.is_file(), reason="the docs are not part of this copy of the suite")
def test_the_docs_transcript_is_what_the_engine_answers() -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"<!-- transcript -->\n```text\n(.*?)```", text, flags=re.S)
    assert block is not None, "docs/engine.md has no transcript block"
    # Typed one line at a time, each answered before the next (as at a terminal).
    got: list[str] = []
    server = EngineServer(got.append)
    for seq, line in enumerate(block.group(1).splitlines()):
        if line.startswith("> "):
            got.append(line)
            if line != "> quit":
                server.handle(line[2:], seq)
    expected = block.group(1).splitlines()
    assert [_normalised(x) for x in got] == [_normalised(x) for x in expected]


def test_an_output_closed_early_ends_the_engine_quietly() -> None:
    # `colorwars engine | head -1`: the answering thread died with a BrokenPipeError
    # traceback on stderr about two runs in three.
    for _ in range(3):
        proc = subprocess.Popen(
            COLORWARS,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(b"protocol\n" * 3 + b"legal\n" * 200)
        proc.stdin.flush()
        assert proc.stdout.readline().startswith(b"protocol")
        proc.stdout.close()
        proc.stdin.close()
        proc.wait(timeout=60)
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.stderr.close()
        assert err == b"", err.decode()
        assert proc.returncode in (0, 141)


class _FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_an_output_that_cannot_be_written_is_one_error() -> None:
    with pytest.raises(FileError, match="cannot write to the engine's output: No space left"):
        serve(io.BytesIO(b"protocol\nisready\n"), _FullDisk())


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_colorwars_engine_on_a_full_disk_says_so_in_one_line() -> None:
    # It printed the answering thread's traceback and exited with 0.
    with open("/dev/full", "w") as full:
        run = subprocess.run(
            COLORWARS, input="protocol\nlegal\n", stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120, check=False,
        )  # fmt: skip
    assert run.stderr == "error: cannot write to standard output: No space left on device\n"
    assert run.returncode == 2


def _closed(fd: int) -> Callable[[], None]:
    return lambda: os.close(fd)


def test_colorwars_engine_with_its_output_or_input_closed_says_so_in_one_line() -> None:
    # `colorwars engine >&-` printed two tracebacks (Python gives None for a closed stream).
    run = subprocess.run(
        COLORWARS, input="protocol\n", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=120, check=False, preexec_fn=_closed(1),
    )  # fmt: skip
    assert run.stderr == "error: cannot write to standard output: it is closed\n"
    assert run.returncode == 2
    run = subprocess.run(
        COLORWARS, capture_output=True, text=True, timeout=120,
        check=False, preexec_fn=_closed(0),
    )  # fmt: skip
    assert (run.stdout, run.stderr) == ("", "error: standard input: it is closed\n")
    assert run.returncode == 2


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_a_program_that_exits_is_seen_at_once_though_its_child_holds_the_output(
    tmp_path: Path,
) -> None:
    # The reader waited for the end of the output, which the child kept open: the whole
    # start-up wait (30 s by default), in every game of a tournament.
    script = tmp_path / "leaves.sh"
    script.write_text("sleep 60 &\nread -r line\nexit 3\n")  # exits once it has read protocol
    with pytest.raises(EngineError, match="exited with status 3"):
        Client(["sh", str(script)], timeout=30)


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_a_program_that_could_not_start_is_not_started_again(tmp_path: Path) -> None:
    # A dead entrant was started again in every game, each start waiting its time out.
    starts = tmp_path / "starts"
    script = tmp_path / "dead.sh"
    script.write_text(f"echo started >> '{starts}'\nexit 3\n")
    dead = Engine(["sh", str(script)], time=0.05)
    result = ai.match([dead, "random"], 3, 3, 3)
    assert result["winners"].tolist() == [1, 1, 1]
    reasons = {why for _, _, why in result["forfeits"]}
    assert reasons == {"engine dead.sh exited with status 3"}
    assert len(result["forfeits"]) == 3
    assert starts.read_text().splitlines() == ["started"]  # started once
    assert dead.start_failure == "engine dead.sh exited with status 3"
    with pytest.raises(EngineError, match="exited with status 3"):
        dead.choose(colorwars.Game(3, 3))
    assert len(starts.read_text().splitlines()) == 1


def test_no_answer_in_time_names_the_timeout() -> None:
    # It named what was left of it when the wait began ("within 0.199998 s").
    with Client([sys.executable, str(ENGINES / "misbehaving.py"), "silent"]) as c:
        c.request("position 3x3 colorwars 2 .../.../... a - - 0", expect="ok")
        with pytest.raises(EngineError, match=r"gave no answer within 0\.2 s$"):
            c.request("go", timeout=0.2)


def test_the_tables_say_when_an_engine_forfeited(capsys: pytest.CaptureFixture[str]) -> None:
    # A program that cannot start lost every game and the tables said only that.
    from colorwars.cli import main

    args = ["--size", "3x3", "--games", "4"]
    assert main(["tournament", *args, "--entrants", "random,engine:/nonexistent/engine"]) == 0
    out = capsys.readouterr().out
    assert "engine(engine) forfeited 4 games: cannot start engine /nonexistent/engine" in out
    assert main(["ladder", "random", "engine:/nonexistent/engine", *args]) == 0
    assert "forfeited 4 games: cannot start" in capsys.readouterr().out
    result = colorwars.ai.tournament(["random", "engine:/nonexistent/engine"], 2, 3, 3)
    assert {f["reason"].split(":")[0] for f in result.forfeits} == {
        "cannot start engine /nonexistent/engine"
    }
