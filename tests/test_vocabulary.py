"""One vocabulary (issue 18): one name per concept in Python, the command line and the errors;
every old name that users may rely on keeps working for now and warns, naming the new one;
no import circles in the package. Each test failed before its rename."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import io
import sys
import types
from pathlib import Path
from typing import Any

import colorwars
import pytest
from colorwars import ai, cli, errors
from colorwars.cli import main
from colorwars.players import MCTS, parse_player

ROOT = Path(__file__).parent.parent
# The package as imported: the checkout's sources, or an installed wheel's (tools/test-wheel
# runs this suite from a copy, outside the source tree).
PACKAGE = Path(colorwars.__file__).parent


def _import_graph() -> Any:
    tool = ROOT / "tools" / "import_graph.py"
    if not tool.exists():
        pytest.skip("tools/import_graph.py is not here (the suite runs outside the checkout)")
    spec = importlib.util.spec_from_file_location("import_graph", tool)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    return module


# -- MCTS trees (not threads) ---------------------------------------------------------------


def test_mcts_trees() -> None:
    m = MCTS(simulations=100, trees=2)
    assert m.trees == 2
    assert m.native_spec().trees == 2  # what the native engine reads
    assert m.name == "mcts(100)[trees=2]"
    assert parse_player("mcts:simulations=100:trees=2") == m


def test_mcts_threads_is_a_deprecated_alias_of_trees() -> None:
    with pytest.warns(DeprecationWarning, match=r"trees"):
        m = MCTS(simulations=100, threads=2)  # type: ignore[call-arg]
    assert m == MCTS(simulations=100, trees=2)
    assert m.trees == 2


def test_mcts_threads_in_a_player_name_is_a_deprecated_alias() -> None:
    with pytest.warns(DeprecationWarning, match=r"trees"):
        m = parse_player("mcts:simulations=100:threads=3")
    assert m == MCTS(simulations=100, trees=3)


def test_mcts_refuses_both_trees_and_threads() -> None:
    with pytest.raises(colorwars.InvalidPlayerError, match="trees"):
        MCTS(trees=2, threads=2)  # type: ignore[call-arg]


def test_mcts_trees_is_checked_as_trees() -> None:
    with pytest.raises(colorwars.InvalidPlayerError, match=r"invalid trees 0"):
        MCTS(trees=0)


# -- player (not policy) --------------------------------------------------------------------


def test_invalid_player_error() -> None:
    assert issubclass(colorwars.InvalidPlayerError, colorwars.ConfigError)
    assert errors.InvalidPlayerError is colorwars.InvalidPlayerError
    with pytest.raises(colorwars.InvalidPlayerError, match=r"invalid player"):
        parse_player("bogus")


def test_invalid_policy_error_is_the_same_class() -> None:
    assert colorwars.InvalidPolicyError is colorwars.InvalidPlayerError
    assert errors.InvalidPolicyError is errors.InvalidPlayerError
    assert "deprecated" in (errors.__doc__ or "").lower()
    with pytest.raises(colorwars.InvalidPolicyError):
        parse_player("bogus")


def test_simulate_seats() -> None:
    r = colorwars.simulate(games=20, seats=["random", "greedy"])
    assert r.seats == ("random", "greedy")
    assert r.summary()["seats"] == ["random", "greedy"]
    assert "policies" not in r.summary()


def test_simulate_policies_is_a_deprecated_alias_of_seats() -> None:
    with pytest.warns(DeprecationWarning, match=r"seats"):
        r = colorwars.simulate(games=20, policies="greedy")  # type: ignore[call-arg]
    assert r.seats == ("greedy", "greedy")


def test_simulation_result_policies_is_a_deprecated_alias() -> None:
    r = colorwars.simulate(games=5)
    with pytest.warns(DeprecationWarning, match=r"seats"):
        assert r.policies == r.seats


def test_a_wrong_seat_list_says_player() -> None:
    with pytest.raises(colorwars.InvalidPlayerError) as e:
        colorwars.simulate(games=5, seats=["random"] * 3)
    assert "polic" not in str(e.value)


def test_the_cli_seats_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "10", "--seats", "random,greedy", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["seats"] == ["random", "greedy"]


def test_the_cli_policies_flag_is_a_hidden_deprecated_alias(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "--policies" not in cli.build_parser().format_help()
    assert main(["simulate", "--games", "10", "--policies", "greedy", "--json"]) == 0
    out = capsys.readouterr()
    import json

    assert json.loads(out.out)["seats"] == ["greedy", "greedy"]
    assert "--policies is deprecated" in out.err
    assert "--seats" in out.err


def test_openings_seats_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openings", "--size", "2x2", "--games", "2", "--seats", "greedy,random"]) == 0
    assert "greedy (seat a, first) against random" in " ".join(capsys.readouterr().out.split())


def test_tournament_entrants_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--size", "2x2", "--games", "2", "--entrants", "random,greedy"]
    assert main(args) == 0
    assert "greedy" in capsys.readouterr().out


def test_tournament_policies_flag_is_a_deprecated_alias(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["tournament", "--size", "2x2", "--games", "2", "--policies", "random,greedy"]
    assert main(args) == 0
    assert "--policies is deprecated" in capsys.readouterr().err


def test_no_policy_in_the_command_line_help() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        assert "polic" not in command.format_help().lower(), name


# -- first is the seat that starts -----------------------------------------------------------


def test_opening_win_rates_players_are_player_a_and_player_b() -> None:
    params = inspect.signature(ai.opening_win_rates).parameters
    assert list(params)[:2] == ["player_a", "player_b"]
    rates, counts = ai.opening_win_rates("greedy", "random", 2, 2, 2)
    assert rates.shape == (2, 2)
    assert int(counts.sum()) == 8


def test_opening_win_rates_first_and_second_are_deprecated_aliases() -> None:
    expected = ai.opening_win_rates("greedy", "random", 2, 2, 2, seed=3)
    with pytest.warns(DeprecationWarning, match=r"player_[ab]"):
        got = ai.opening_win_rates(  # type: ignore[call-arg]
            first="greedy", second="random", games_per_cell=2, width=2, height=2, seed=3
        )
    assert (got[0] == expected[0]).all()


def test_openings_first_flag_is_a_deprecated_alias(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["openings", "--size", "2x2", "--games", "2", "--first", "random", "--second", "greedy"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert "random (seat a, first) against greedy" in " ".join(out.out.split())
    assert "deprecated" in out.err
    assert "--seats" in out.err


# -- a missing extra -------------------------------------------------------------------------


def test_missing_extra_error() -> None:
    assert issubclass(colorwars.MissingExtraError, colorwars.BackendError)
    assert issubclass(colorwars.MissingExtraError, ImportError)  # `except ImportError` works
    assert errors.MissingExtraError is colorwars.MissingExtraError


def test_missing_ray_is_a_missing_extra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(colorwars.MissingExtraError, match=r"colorwars\[ray\]"):
        colorwars.simulate(games=10, backend="ray")

    # A folder named ray where Python looks first (Ray keeps its files in /tmp/ray) is a
    # namespace package, not Ray: the same error, naming the folder.
    shadow = types.ModuleType("ray")
    shadow.__path__ = ["/tmp/ray"]
    monkeypatch.setitem(sys.modules, "ray", shadow)
    with pytest.raises(colorwars.MissingExtraError, match=r"the folder /tmp/ray"):
        colorwars.prove(3, 3, backend="ray")


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("colorwars.gymnasium", "gymnasium", "gymnasium"),
        ("colorwars.pettingzoo", "pettingzoo", "pettingzoo"),
        ("colorwars.openspiel", "pyspiel", "openspiel"),
    ],
)
def test_missing_adapter_extras_are_missing_extra_errors(
    module: str, blocked: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(colorwars.MissingExtraError, match=rf"colorwars\[{extra}\]"):
        importlib.import_module(module)
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_missing_web_extra_is_a_missing_extra_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m == "colorwars.web" or m.startswith("colorwars.web.")]:
        monkeypatch.delitem(sys.modules, name)
    # Every starlette module, submodules too: a cached submodule is found without its parent.
    for name in [m for m in sys.modules if m == "starlette" or m.startswith("starlette.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "starlette", None)
    assert main(["serve", "--port", "0"]) == 1
    assert "colorwars[web]" in capsys.readouterr().err


# -- one parse_player ------------------------------------------------------------------------


def test_one_function_named_parse_player() -> None:
    defined = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined += [
            (path.name, n.name)
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and "parse_player" in n.name
        ]
    assert defined == [("players.py", "parse_player")]


def test_the_cli_reads_a_seat_letter_with_parse_seat() -> None:
    assert not hasattr(cli, "_player")
    assert cli.parse_seat("b") == 1


# -- one VectorEnv per name ------------------------------------------------------------------


def test_gym_vector_env() -> None:
    cg = pytest.importorskip("colorwars.gymnasium")
    envs = cg.GymVectorEnv(num_envs=2, width=3, height=3)
    assert "VectorEnv" not in cg.__all__
    assert "GymVectorEnv" in cg.__all__
    assert repr(envs).startswith("colorwars.gymnasium.GymVectorEnv(")
    envs.close()


def test_gymnasium_vector_env_is_a_deprecated_alias() -> None:
    cg = pytest.importorskip("colorwars.gymnasium")
    with pytest.warns(DeprecationWarning, match=r"GymVectorEnv"):
        cls = cg.VectorEnv
    assert cls is cg.GymVectorEnv


# -- time is time ----------------------------------------------------------------------------


def test_time_budgets_are_named_time() -> None:
    for function in (MCTS, colorwars.players.AlphaBeta, colorwars.prove):
        params = inspect.signature(function).parameters
        assert "time" in params
        assert "seconds" not in params


def test_a_bad_time_budget_says_time() -> None:
    with pytest.raises(colorwars.InvalidPlayerError, match=r"invalid time"):
        MCTS(time=-1)


# -- one board_text, one set of styles ------------------------------------------------------


def test_one_board_text_and_one_set_of_player_styles() -> None:
    from colorwars import terminal

    assert cli.board_text is terminal.board_text
    assert cli.PLAYER_STYLES is terminal.PLAYER_STYLES
    sources = [p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")]
    assert sum("def board_text(" in s for s in sources) == 1
    assert sum("PLAYER_STYLES = (" in s for s in sources) == 1


def test_replay_uses_the_colour_blind_styles(monkeypatch: pytest.MonkeyPatch) -> None:
    from colorwars import terminal
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=100)
    path = ROOT / "seeds" / "games" / "05-colorwars-5x5-2p.cwr"
    args = cli.build_parser().parse_args(["replay", "--final-only", str(path)])
    assert cli.cmd_replay(args, console) == 0
    # Seat b is a coloured block (white on blue): a background colour, not only a hue.
    styled = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor")
    with styled.capture() as cap:
        styled.print(terminal.board_text(2, [1, 1], [0, 1]))
    background = next(code for code in cap.get().split("\x1b[") if ";48;" in code or "48;" in code)
    assert background.split("m")[0] in out.getvalue()


# -- no test hooks in public signatures -------------------------------------------------------


def test_no_underscore_parameters_in_public_functions() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                args = node.args.args + node.args.kwonlyargs
                found += [f"{path.name}:{node.name}({a.arg})" for a in args if a.arg[0] == "_"]
    assert found == []


# -- no import circles ------------------------------------------------------------------------


def test_no_module_level_import_circles() -> None:
    graph = _import_graph()
    top, inner = graph.graphs()
    assert "colorwars.players" in top["colorwars.ai"]  # the graph sees the imports
    assert "colorwars.reference" in inner["colorwars.players"]  # and those in functions
    assert graph.circles(top) == []


def test_the_import_graph_finds_a_circle(tmp_path: Path) -> None:
    graph = _import_graph()
    package = tmp_path / "colorwars"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from colorwars import b\n")
    (package / "b.py").write_text(
        "from colorwars.a import x\n\ndef f():\n    from colorwars import c\n"
    )
    (package / "c.py").write_text("from colorwars import b\n")
    top, inner = graph.graphs(package)
    assert graph.circles(top) == [["colorwars.a", "colorwars.b"]]
    assert inner["colorwars.b"] == {"colorwars.c"}


# -- measured numbers leave docstrings and --help -------------------------------------------


def test_no_measured_speeds_in_docstrings_or_help() -> None:
    speed = (
        r"\d+(\.\d+)?\s*x faster|\d+x\b|plies/s\b|games/s\b|\bM plies|"
        r"\d+(\.\d+)? s a move|\d+(\.\d+)? s on \d|in \d+(\.\d+)? s\b|won \d+%|\d+ of \d+ games"
    )
    import re

    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        texts = [
            ast.get_docstring(n) or ""
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        found += [f"{path.name}: {m.group(0)}" for t in texts for m in re.finditer(speed, t)]
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        found += [f"{name} --help: {m.group(0)}" for m in re.finditer(speed, command.format_help())]
    assert found == []
