"""What a newcomer stumbled on (issue 18): one default rule set, progress on every long
command, and the command line's rough edges. Each test failed before its fix."""

from __future__ import annotations

import inspect
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import colorwars
import pytest
from colorwars import cli
from colorwars.cli import build_parser, main
from rich.console import Console

ROOT = Path(__file__).parent.parent


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "cache"))


# -- one default rule set ------------------------------------------------------------------


@pytest.mark.parametrize(
    "function",
    [colorwars.solve, colorwars.prove, colorwars.Game, colorwars.simulate],
    ids=lambda f: f.__name__,
)
def test_every_entry_point_defaults_to_colorwars(function: Any) -> None:
    assert inspect.signature(function).parameters["rules"].default == "colorwars"


@pytest.mark.parametrize("command", ["solve", "simulate", "play", "tournament", "openings"])
def test_every_command_defaults_to_colorwars(command: str) -> None:
    extra = ["4x4"] if command == "solve" else []
    assert build_parser().parse_args([command, *extra]).rules == "colorwars"


def test_solve_without_rules_solves_colorwars() -> None:
    assert colorwars.solve(3, 3, cache=False).rules == "colorwars"


# -- progress within a second --------------------------------------------------------------


def test_solve_reports_progress() -> None:
    seen: list[int] = []
    s = colorwars.solve(3, 3, rules="classic", cache=False, progress=seen.append)
    assert seen, "progress was never called"
    assert all(isinstance(n, int) and 0 <= n <= s.positions for n in seen)


def test_solve_of_a_position_reports_progress() -> None:
    g = colorwars.Game(3, 3, rules="classic")
    g.play("a1")
    seen: list[int] = []
    colorwars.solve(g, progress=seen.append)
    assert seen


def test_solve_refuses_a_progress_that_is_not_callable() -> None:
    with pytest.raises(colorwars.ConfigError, match="progress"):
        colorwars.solve(3, 3, cache=False, progress=5)  # type: ignore[arg-type]


def test_solve_says_what_is_wrong_with_a_size() -> None:
    with pytest.raises(colorwars.ConfigError, match=r"solve\(3\) has no height"):
        colorwars.solve(3)
    with pytest.raises(colorwars.InvalidSizeError, match=r"3\.5x3"):
        colorwars.solve(3.5, 3)
    with pytest.raises(colorwars.ConfigError, match="takes the game alone"):
        colorwars.solve(colorwars.Game(3, 3), 3)


def test_the_solvers_take_a_size_as_the_command_line_writes_it() -> None:
    # solve("3x3") used to say "a player chooses a move in a colorwars.Game ..., not str".
    assert colorwars.solve("3x3", rules="classic", cache=False).plies == (
        colorwars.solve(3, 3, rules="classic", cache=False).plies
    )
    assert colorwars.prove(" 3X4 ").winner == colorwars.prove(3, 4).winner
    assert colorwars.exact_length("4x3").plies == colorwars.exact_length(4, 3).plies


@pytest.mark.parametrize("call", ["solve", "prove", "exact_length"])
def test_the_solvers_say_what_they_take(call: str) -> None:
    f = getattr(colorwars, call)
    with pytest.raises(colorwars.ConfigError, match=rf"{call}\(3\) has no height"):
        f(3)
    with pytest.raises(colorwars.ConfigError, match=r"a board size such as '5x5'"):
        f("five by five")
    with pytest.raises(colorwars.ConfigError, match=r"a board size such as"):
        f([3, 3])
    with pytest.raises(colorwars.ConfigError, match=r"give the size as"):
        f("3x3", 3)
    with pytest.raises(colorwars.InvalidSizeError, match="40x3"):
        f("40x3")
    with pytest.raises(colorwars.ConfigError, match="takes the game alone"):
        f(colorwars.Game(3, 3), 3)


def test_rule_names_given_as_arguments_ignore_case() -> None:
    assert colorwars.Game(3, 3, rules="Classic").rules.name == "classic"
    assert colorwars.Game(3, 3, rules=" DROP3+Subtract ").rules.name == "drop3+subtract"
    assert main(["simulate", "--rules", "Classic", "--games", "20", "--size", "3x3"]) == 0
    # The position notation keeps its exact names.
    text = colorwars.Game(3, 3, rules="classic").to_text().replace("classic", "Classic")
    with pytest.raises(colorwars.ColorwarsError):
        colorwars.Game.from_text(text)
    with pytest.raises(colorwars.InvalidRulesError, match="'Klassic'"):
        colorwars.Game(3, 3, rules="Klassic")


@pytest.mark.parametrize(
    "player",
    [
        "alphabeta:2",
        "mcts:50",
        "zero:10",
        "zeroab:1",
        "perfect:time=0.1",
        "learned:1",
    ],
)
def test_a_stop_that_is_not_an_event_is_a_clear_error(player: str) -> None:
    # stop=True used to raise AttributeError from deep inside the search.
    import threading

    p: Any = colorwars.players.parse_player(player)
    g = colorwars.Game(4, 4)
    with pytest.raises(colorwars.ConfigError, match=r"stop True: expected None or an object"):
        p.search(g, stop=True)
    assert p.search(g, stop=threading.Event()).cell in g.legal_moves()


def test_a_time_out_of_range_reads_the_same_below_zero_and_at_zero() -> None:
    messages = set()
    for t in (0, -1, 0.0, float("nan"), 1e9):
        with pytest.raises(colorwars.InvalidPlayerError) as e:
            colorwars.ai.Perfect(time=t)
        messages.add(str(e.value).split(": ", 1)[1])
    assert messages == {"expected seconds above 0 and at most 1e+06"}  # Perfect needs a time


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120, highlight=False), out


def test_the_solve_command_shows_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from colorwars import solver

    real = solver.solve

    def slow(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        assert progress is not None, "colorwars solve gave the solver no progress callback"
        progress(12_345)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", slow)
    console, out = _terminal()
    args = build_parser().parse_args(["solve", "3x3", "--no-cache"])
    assert cli.cmd_solve(args, console) == 0
    assert "12,345 positions" in out.getvalue()


def test_the_solve_command_is_quiet_with_no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    from colorwars import solver

    seen: list[Any] = []
    real = solver.solve

    def record(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        seen.append(progress)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", record)
    console, _ = _terminal()
    args = build_parser().parse_args(["solve", "3x3", "--no-cache", "--no-progress"])
    assert cli.cmd_solve(args, console) == 0
    assert seen == [None]


# -- the command line -----------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"colorwars {colorwars.__version__}"


def _help(*command: str) -> str:
    parser = build_parser()
    if not command:
        return parser.format_help()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command[0]].format_help()  # type: ignore[index]


@pytest.mark.parametrize(
    "command", ["", "replay", "simulate", "solve", "tournament", "openings", "play", "serve"]
)
def test_help_texts_show_no_raw_percent_escapes(command: str) -> None:
    text = _help(*([command] if command else []))
    assert "%%" not in text


def test_simulate_help_says_95_percent() -> None:
    assert "95% intervals" in " ".join(_help("simulate").split())


def test_replay_help_names_a_record_that_exists() -> None:
    named = re.findall(r"seeds/games/\S+\.cwr", _help("replay"))
    assert named
    for name in named:
        assert (ROOT / name).is_file(), name


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_simulate_json_with_an_output_prints_only_the_json(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / f"results{suffix}"
    args = ["simulate", "--games", "20", "--json", "--output", str(out_file), "--no-progress"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 20  # stdout is the JSON alone
    assert out_file.exists()
    assert str(out_file) in captured.err  # the note about the file goes to stderr


def test_openings_png_without_matplotlib_refuses_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from colorwars import ai

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the games were played before matplotlib was checked")

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    monkeypatch.setattr(ai, "opening_win_rates", never)
    code = main(["openings", "--size", "3x3", "--games", "5", "--png", str(tmp_path / "h.png")])
    assert code == 1
    err = capsys.readouterr().err
    assert "matplotlib" in err
    assert "colorwars[plot]" in err


def test_missing_matplotlib_is_a_missing_extra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(colorwars.MissingExtraError, match=r"colorwars\[plot\]"):
        cli.require_matplotlib("--png")


@pytest.mark.parametrize("output", [None, "results.csv"])
def test_record_without_a_json_output_is_refused(
    tmp_path: Path, output: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["simulate", "--games", "10", "--record", "--no-progress"]
    if output is not None:
        args += ["--output", str(tmp_path / output)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "--record" in err
    assert "--output F.json" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "results.csv").exists()


def test_record_with_a_json_output_keeps_the_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "r.json"
    args = ["simulate", "--games", "5", "--record", "--output", str(out_file), "--no-progress"]
    assert main(args) == 0
    assert len(json.loads(out_file.read_text())["moves"]) == 5


def test_simulation_result_repr_is_a_short_summary() -> None:
    r = colorwars.simulate(games=1000, seed=1)
    text = repr(r)
    assert len(text.splitlines()) <= 3
    assert len(text) < 400
    for part in ("1,000 games", "5x5", "colorwars", "random", "plies", " s"):
        assert part in text, part
    assert "array(" not in text


def test_a_player_given_no_game_says_so_with_an_error_of_ours() -> None:
    # It was a bare TypeError; it still is one too, for code that caught that.
    for player in (colorwars.ai.Perfect(time=0.1), colorwars.ai.Greedy(0)):
        for thing in (None, "3x3", object()):
            with pytest.raises(colorwars.NotAGameError, match="not "):
                player.choose(thing)  # type: ignore[arg-type]
    assert issubclass(colorwars.NotAGameError, TypeError)
    assert issubclass(colorwars.NotAGameError, colorwars.ConfigError)


@pytest.mark.parametrize("call", ["solve", "prove", "exact_length"])
def test_the_solvers_given_no_game_name_themselves_and_what_they_take(call: str) -> None:
    search = getattr(colorwars, call)
    for thing in (None, object(), [3, 3]):
        with pytest.raises(colorwars.NotAGameError, match=rf"^{call}\(.*board size such as"):
            search(thing)
    three = colorwars.Game(3, 3, players=3)
    with pytest.raises(colorwars.InvalidPlayerError, match=f"{call} searches two-player games"):
        search(three)


@pytest.mark.parametrize("call", ["solve", "prove", "exact_length"])
def test_the_solvers_given_a_game_play_its_rules_and_refuse_others(call: str) -> None:
    # rules= given with a game was quietly ignored: the game's own rules were searched.
    search = getattr(colorwars, call)
    game = colorwars.Game(3, 3, rules="classic")
    game.play("b2")
    assert search(game).winner == search(game, rules=" Classic").winner == 0
    with pytest.raises(colorwars.ConfigError, match=r"plays its own rules \(classic\)"):
        search(game, rules="colorwars")
    with pytest.raises(colorwars.InvalidRulesError):
        search(game, rules="chess")
    # Without a game, the default is colorwars as ever.
    assert str(inspect.signature(search).parameters["rules"].default) == "colorwars"


def test_perfect_refuses_a_player_class_as_its_fallback() -> None:
    # The class has a `choose`, so it passed, and failed on the first move it fell back on.
    with pytest.raises(colorwars.InvalidPlayerError, match="fallback"):
        colorwars.ai.Perfect(fallback=colorwars.ai.Greedy)


def test_prove_checks_its_progress_and_checkpoint_before_any_work() -> None:
    with pytest.raises(colorwars.ConfigError, match="invalid progress 5"):
        colorwars.prove(3, 3, progress=5)  # type: ignore[arg-type]
    with pytest.raises(colorwars.FileError, match="invalid checkpoint 123"):
        colorwars.prove(3, 3, checkpoint=123)  # type: ignore[arg-type]


def test_small_wordings_a_review_found() -> None:
    # Perfect's time is required: its message no longer offers None.
    for time in (0, None):
        with pytest.raises(colorwars.InvalidPlayerError) as refused:
            colorwars.ai.Perfect(time=time)  # type: ignore[arg-type]
        assert "or None" not in str(refused.value)
    # exact_length keeps no checkpoint, so time=0 could only search a little and stop.
    with pytest.raises(colorwars.ConfigError, match="above 0"):
        colorwars.exact_length(3, 3, time=0)
    # A side too long to print read "a 67-bit whole numberx3".
    with pytest.raises(
        colorwars.InvalidSizeError, match=r"\(width a 67-bit whole number, height 3\)"
    ):
        colorwars.solve(10**20, 3)
    # Rule names as arguments: spaces around the + too.
    assert colorwars.Game(3, 3, rules=" None + EMPTY").rules.name == "none+empty"


def test_after_with_no_moves_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "3x3", "--after", " ", "--no-progress"]) == 1
    assert "--after names no move" in capsys.readouterr().err


def test_player_names_refuse_a_setting_given_twice_and_perfect_takes_its_own() -> None:
    from colorwars.players import parse_player

    for name in ("perfect:time=1:time=2", "mcts:time=1:time=2", "alphabeta:depth=3:depth=4"):
        with pytest.raises(colorwars.InvalidPlayerError, match="given twice"):
            parse_player(name)
    p = parse_player("perfect:time=0.5:memory=64M:book=false")
    assert isinstance(p, colorwars.ai.Perfect)
    assert (p.time, p.memory, p.book) == (0.5, 64 << 20, False)
    with pytest.raises(colorwars.InvalidPlayerError, match="memory"):
        parse_player("perfect:memory=12X")


def test_the_solver_cache_follows_xdg_and_a_damaged_one_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from colorwars import solver

    monkeypatch.delenv("COLORWARS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert solver.cache_path() == tmp_path / "xdg" / "colorwars" / "solutions.cache"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the spec: absolute paths only
    assert solver.cache_path() == Path.home() / ".cache" / "colorwars" / "solutions.cache"
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "mine"))
    assert solver.cache_path() == tmp_path / "mine" / "solutions.cache"
    (tmp_path / "mine").mkdir()
    solver.cache_path().write_bytes(b"not a cache")
    with pytest.raises(colorwars.FileError, match=r"delete it .* \(--no-cache\)"):
        colorwars.solve(2, 2)
    assert colorwars.solve(2, 2, cache=False).winner is not None
