"""The learned player (issue 22, sections 2 and 3): the network and its two inferences, its
file, the shipped networks, ``Zero``, the ladder and its Bradley-Terry fit. None of this
needs the ``train`` extra (the training's own tests are in test_train.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import colorwars
import numpy as np
import pytest
from colorwars import views
from colorwars.ai import Zero
from colorwars.errors import (
    ConfigError,
    FileError,
    GameOverError,
    InvalidNetworkError,
    InvalidPlayerError,
    InvalidRulesError,
)
from colorwars.ladder import bradley_terry, ladder
from colorwars.players import native_game, parse_player
from colorwars.puct import PUCT
from colorwars.zero import Network, load, random_network, shipped
from colorwars.zero.network import SHIPPED, degrees, features


def random_planes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(0, 4, shape).astype(np.uint8)


# -- the network -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(3, 3), (5, 5), (9, 6), (6, 9), (10, 10), (2, 7)])
def test_native_inference_matches_the_numpy_reference(size: tuple[int, int]) -> None:
    w, h = size
    net = random_network("classic", seed=w * 10 + h)
    planes = random_planes(np.random.default_rng(w + h), (7, 2, h, w))
    logits, values = net.forward(planes)
    ref_logits, ref_values = net.forward_numpy(planes)
    assert logits.shape == (7, w * h)
    assert values.shape == (7,)
    assert logits.dtype == np.float32
    assert values.dtype == np.float32
    np.testing.assert_allclose(logits, ref_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, ref_values, rtol=1e-4, atol=1e-5)
    assert np.all(np.abs(values) <= 1)


def test_a_position_is_evaluated_alike_alone_and_in_a_batch() -> None:
    net = random_network("colorwars", seed=4)
    planes = random_planes(np.random.default_rng(1), (9, 2, 5, 5))
    logits, values = net.forward(planes)
    for i in (0, 4, 8):
        one_l, one_v = net.forward(planes[i : i + 1])
        np.testing.assert_allclose(one_l[0], logits[i], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(one_v[0], values[i], rtol=1e-5, atol=1e-6)


def test_threads_evaluating_one_network_at_once_get_what_each_gets_alone() -> None:
    """Each evaluation has buffers of its own (the web's games search one network at once, side
    by side): threads evaluating boards of different sizes at the same time, reusing each
    other's buffers afterwards, get exactly what each evaluation gives alone."""
    from concurrent.futures import ThreadPoolExecutor

    net = random_network("classic", seed=9)
    rng = np.random.default_rng(3)
    shapes = [(1, 3, 3), (40, 8, 8), (5, 6, 9), (17, 10, 10), (2, 5, 5)] * 4
    batches = [random_planes(rng, (b, 2, h, w)) for b, h, w in shapes]
    alone = [net.forward(p) for p in batches]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            together = list(pool.map(net.forward, batches))
            for (la, va), (lt, vt) in zip(alone, together, strict=True):
                np.testing.assert_array_equal(lt, la)
                np.testing.assert_array_equal(vt, va)


def test_the_features_follow_the_rules_notes_degrees() -> None:
    """RULES-NOTES: a cell's critical mass is its number of neighbours (2, 3 or 4)."""
    d = degrees(3, 4)
    assert d.tolist() == [[2, 3, 3, 2], [3, 4, 4, 3], [2, 3, 3, 2]]
    planes = np.zeros((1, 2, 3, 4), np.uint8)
    planes[0, 0, 0, 0] = 1  # a corner with one orb: one from bursting (loaded)
    planes[0, 0, 1, 1] = 2  # an interior cell with 2 of 4: not loaded
    planes[0, 1, 1, 2] = 3  # the opponent's interior cell with 3: loaded
    x = features(planes)[0]
    assert x[0, 0, 2] == 1
    assert x[1, 1, 2] == 0
    assert x[1, 2, 3] == 1
    assert x[0, 0, 6] == 1
    assert x[0, 1, 7] == 1
    assert x[1, 1, 6] == x[1, 1, 7] == 0
    assert x[..., 8].max() == 0
    assert x[..., 9].max() == 0
    assert features(np.zeros((1, 2, 3, 4), np.uint8))[0, ..., 8].min() == 1


def test_a_network_round_trips_through_its_file(tmp_path: Path) -> None:
    net = random_network("classic", channels=8, blocks=1, hidden=16, seed=2)
    net.info["note"] = "a test"
    path = tmp_path / "n.net"
    net.save(path)
    back = load(path)
    assert (back.rules, back.channels, back.blocks, back.hidden) == ("classic", 8, 1, 16)
    assert back.info == {"note": "a test"}
    planes = random_planes(np.random.default_rng(0), (3, 2, 4, 4))
    np.testing.assert_array_equal(back.forward(planes)[0], net.forward(planes)[0])
    assert [p.name for p in tmp_path.iterdir()] == ["n.net"]  # no temporary left


def test_a_damaged_network_file_is_a_file_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "n.net"
    random_network(channels=4, blocks=1, hidden=4).save(path)
    data = bytearray(path.read_bytes())
    for where in (len(data) - 10, 40, len(data) // 2):
        bad = bytearray(data)
        bad[where] ^= 0x01
        path.write_bytes(bytes(bad))
        with pytest.raises(FileError, match=r"n\.net"):
            load(path)
    path.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(FileError, match=r"n\.net"):
        load(path)
    path.write_text("not a network\n")
    with pytest.raises(FileError, match="not a colorwars network"):
        load(path)
    with pytest.raises(FileError, match="no such file"):
        load(tmp_path / "missing.net")


def test_wrong_weights_are_refused_with_what_is_wrong() -> None:
    net = random_network(channels=4, blocks=1, hidden=4)
    params = dict(net.params)
    params["stem.kernel"] = params["stem.kernel"][..., :3]
    with pytest.raises(ValueError, match=r"stem\.kernel: shape"):
        Network("colorwars", 4, 1, 4, params)
    params = dict(net.params)
    params["policy.bias"] = np.array([np.nan], np.float32)
    with pytest.raises(ValueError, match="NaN"):
        Network("colorwars", 4, 1, 4, params)
    params = dict(net.params)
    del params["value2.bias"]
    with pytest.raises(ValueError, match="missing"):
        Network("colorwars", 4, 1, 4, params)
    with pytest.raises(InvalidNetworkError, match="two-player planes"):
        net.forward(np.zeros((1, 3, 4, 4), np.uint8))
    with pytest.raises(InvalidNetworkError, match="sides 2 to 64"):
        net.forward(np.zeros((1, 2, 1, 4), np.uint8))
    with pytest.raises(InvalidNetworkError, match="uint8"):
        net.forward(np.full((1, 2, 3, 3), 300))
    with pytest.raises(InvalidNetworkError, match="blocks 0"):
        random_network(blocks=0)
    with pytest.raises(InvalidNetworkError, match="rules"):
        random_network(rules="chess")
    # Counts far beyond any position's agree between the two inferences (no overflow).
    full = np.full((2, 2, 3, 3), 255, np.uint8)
    np.testing.assert_allclose(net.forward(full)[0], net.forward_numpy(full)[0], atol=1e-3)
    assert net.forward(np.zeros((0, 2, 4, 4), np.uint8))[0].shape == (0, 16)
    assert net.forward_numpy(np.zeros((0, 2, 4, 4), np.uint8))[0].shape == (0, 16)


@pytest.mark.parametrize("rules", ["colorwars", "classic"])
def test_the_shipped_networks_load_and_say_how_they_were_made(rules: str) -> None:
    net = shipped(rules)
    assert net.rules == rules
    assert (SHIPPED / f"{rules}.net").stat().st_size < 2**20  # small enough for the wheel
    for key in ("games", "positions", "seconds", "command", "versions"):
        assert key in net.info, net.info
    assert net.info["positions"] > 10_000
    if rules == "classic":  # 16 x 1: taught by alpha-beta at depth 4, then self-play
        assert (net.channels, net.blocks) == (16, 1)
        assert "--expert-depth 4" in net.info["start_from"]["command"]
        assert net.info["start_from"]["games"] == 4000
        assert (net.info["iteration"], net.info["games"]) == (123, 4000 + 123 * 64)


def test_the_shipped_networks_are_named_as_rules_are_everywhere() -> None:
    assert shipped("Classic") is shipped("none+subtract") is shipped("classic")
    assert shipped(colorwars.Rules.parse("drop3+empty")) is shipped("colorwars")
    # Other rules, or no name at all, are the rules' error, not a file missing in the package.
    with pytest.raises(InvalidRulesError, match="no network is shipped for the rules drop3"):
        shipped("drop3+subtract")
    for bad in ("foo", None, 5, "../classic"):
        with pytest.raises(InvalidRulesError, match="invalid rules"):
            shipped(bad)  # type: ignore[arg-type]


def test_the_shipped_networks_play_without_the_train_extra() -> None:
    """A fresh interpreter with jax, flax and optax made unimportable still plays Zero."""
    code = (
        "import sys\n"
        "for name in ('jax', 'flax', 'optax', 'torch'):\n"
        "    sys.modules[name] = None\n"
        "import colorwars\n"
        "g = colorwars.Game(5, 5)\n"
        "z = colorwars.ai.Zero(simulations=50)\n"
        "while g.winner is None:\n"
        "    g.play(z.choose(g))\n"
        "print('winner', g.winner, 'jax' in sys.modules and sys.modules['jax'] is not None)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "winner"
    assert done.stdout.split()[-1] == "False"


# -- Zero ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "rules"), [((5, 5), "colorwars"), ((8, 8), "classic"), ((9, 6), "classic"),
                        ((3, 3), "colorwars"), ((10, 10), "classic")],
)  # fmt: skip
def test_zero_plays_only_legal_moves_to_the_end(size: tuple[int, int], rules: str) -> None:
    g = colorwars.Game(*size, rules=rules)
    z = Zero(simulations=32, seed=3)
    while g.winner is None and g.ply < 400:
        move = z.choose(g)
        assert move in g.legal_moves()
        g.play(move)
    assert g.winner is not None
    with pytest.raises(GameOverError):
        z.choose(g)


def test_zero_takes_a_win_in_one() -> None:
    """Classic (RULES-NOTES: a corner's critical mass is 2): a's corner a1 holds one orb next
    to b's only cell b1; a second orb in a1 bursts it, captures b1 and wins at once."""
    g = colorwars.Game(4, 4, rules="classic")
    g.play(g.cell("a1"))
    g.play(g.cell("b1"))
    assert g.winner is None
    assert g.to_move == 0
    move = Zero(simulations=64).choose(g)
    assert move == g.cell("a1")
    g.play(move)
    assert g.winner == 0


def test_zero_is_deterministic_for_its_seed_and_budget() -> None:
    g = colorwars.Game(6, 6, rules="classic")
    g.play(g.cell("c3"))
    a = [Zero(simulations=100, seed=5).choose(g) for _ in range(2)]
    assert a[0] == a[1]


def test_zero_with_time_stops_in_time() -> None:
    g = colorwars.Game(8, 8, rules="classic")
    d = Zero(time=0.2).search(g)
    assert d.cell in g.legal_moves()
    assert d.work > 0
    assert d.seconds < 5


def test_zero_says_where_no_network_fits() -> None:
    z = Zero(simulations=8)
    with pytest.raises(InvalidPlayerError, match="3 players"):
        z.choose(colorwars.Game(5, 5, players=3))
    with pytest.raises(InvalidPlayerError, match="16x16"):
        z.choose(colorwars.Game(16, 16))
    with pytest.raises(InvalidPlayerError, match="drop3"):
        z.choose(colorwars.Game(5, 5, rules="drop3+subtract"))
    other = Zero(simulations=8, network=random_network("classic", channels=4, blocks=1, hidden=4))
    with pytest.raises(InvalidPlayerError, match="trained for classic"):
        other.choose(colorwars.Game(5, 5, rules="colorwars"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"simulations": 0}, "simulations"), ({"time": -1}, "time"), ({"seed": -1}, "seed"),
     ({"batch": 0}, "batch"), ({"c_puct": -1}, "c_puct"), ({"network": 3}, "network")],
)  # fmt: skip
def test_zero_refuses_bad_settings(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Zero(**kwargs)  # type: ignore[arg-type]


def test_zero_is_a_player_name_everywhere() -> None:
    assert parse_player("zero").name == "zero(400)"
    assert parse_player("zero:200").name == "zero(200)"
    assert parse_player("zero:time=0.1").name == "zero(0.1s)"
    with pytest.raises(InvalidPlayerError, match="zero settings"):
        parse_player("zero:depth=3")
    with pytest.raises(InvalidPlayerError, match="not one of the engine's batch players"):
        Zero().native_spec()
    # A match with Zero plays move by move in Python (issue 21: players outside the engine).
    result = colorwars.ai.match([Zero(simulations=16), "random"], 2, 4, 4, rules="classic")
    assert result["forfeits"] == []
    assert set(result["winners"].tolist()) <= {0, 1}


def test_zero_is_puct_with_the_network_searched_natively() -> None:
    """The native search (network and tree in Rust) and PUCT driving the same network from
    Python build the same tree: the same visits, move for move."""
    net = random_network("classic", seed=9)
    g = colorwars.Game(6, 6, rules="classic")
    g.play(g.cell("b2"))
    native = PUCT(net, simulations=300, batch=8, dirichlet_weight=0.0, seed=1)
    python = PUCT(lambda p, m: net.forward(p), simulations=300, batch=8, dirichlet_weight=0.0,
                  seed=1)  # fmt: skip
    a, b = native.analyse(g), python.analyse(g)
    assert [m.visits for m in a] == [m.visits for m in b]
    assert sum(m.visits for m in a) >= 300


def test_zero_evaluate_gives_the_networks_view() -> None:
    g = colorwars.Game(5, 5)
    value, policy = Zero().evaluate(g)
    assert -1 <= value <= 1
    assert sorted(policy) == list(g.legal_moves())
    assert abs(sum(policy.values()) - 1) < 1e-5
    assert views.planes(g).shape == (2, 5, 5)


# -- the ladder ------------------------------------------------------------------------------


def test_bradley_terry_recovers_known_strengths() -> None:
    """Games drawn from known Elo gaps: the fit finds them within its own interval."""
    rng = np.random.default_rng(0)
    true = np.array([0.0, 200.0, -300.0, 500.0])
    n = len(true)
    wins, games = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
            won = rng.binomial(2000, p)
            wins[i, j], wins[j, i] = won, 2000 - won
            games[i, j] = games[j, i] = 2000
    elo, se = bradley_terry(wins, games)
    want = true - true.mean()
    assert np.all(np.abs(elo - want) < 3 * se + 1), (elo, want, se)
    assert abs(elo.mean()) < 1e-6
    assert np.all(se > 0)
    assert np.all(se < 40)


def test_an_unbeaten_player_stays_finite() -> None:
    wins = np.array([[0.0, 10.0], [0.0, 0.0]])
    games = np.array([[0.0, 10.0], [10.0, 0.0]])
    elo, se = bradley_terry(wins, games)
    assert np.isfinite(elo).all()
    assert elo[0] > elo[1]
    assert np.isfinite(se).all()


def test_the_ladder_plays_every_pair_from_both_seats() -> None:
    net = random_network("colorwars", channels=8, blocks=1, hidden=8)
    players = ["random", "greedy", "alphabeta:2", Zero(simulations=16, network=net)]
    r = ladder(players, games_per_pair=6, width=4, height=4, rules="colorwars", seed=2)
    assert r.names == ["random", "greedy", "alphabeta(2)", "zero(16)"]
    n = len(players)
    for i in range(n):
        for j in range(n):
            assert r.games[i, j] == (0 if i == j else 6)
            if i != j:
                assert r.wins[i, j] + r.wins[j, i] == 6
    assert abs(sum(r.elo)) < 1e-6
    for e, (lo, hi) in zip(r.elo, r.interval, strict=True):
        assert lo < e < hi
    assert r.elo[r.names.index("alphabeta(2)")] > r.elo[r.names.index("random")]
    again = ladder(players, games_per_pair=6, width=4, height=4, rules="colorwars", seed=2)
    np.testing.assert_array_equal(again.wins, r.wins)  # deterministic players: same games


def test_the_ladder_gives_time_to_players_without_a_budget() -> None:
    from colorwars.ladder import with_time

    assert with_time(parse_player("mcts"), 0.1).name == "mcts(0.1s)"
    assert with_time(parse_player("alphabeta"), 0.1).name == "alphabeta(0.1s)"
    assert with_time(parse_player("zero"), 0.1).name == "zero(0.1s)"
    assert with_time(parse_player("zeroab"), 0.1).name == "zeroab(0.1s)"
    assert with_time(parse_player("mcts:500"), 0.1).name == "mcts(500)"
    assert with_time(parse_player("greedy"), 0.1).name == "greedy"


def test_the_ladders_default_board_is_the_command_lines() -> None:
    """5 x 5 Color Wars, as ``colorwars ladder`` and every other entry point (it was 8 x 8
    classic in Python alone)."""
    r = ladder(["random", "greedy"], games_per_pair=2)
    assert (r.size, r.rules.name) == ((5, 5), "colorwars")
    assert r.games[0, 1] == 2


def test_the_ladder_refuses_bad_requests() -> None:
    with pytest.raises(InvalidPlayerError, match="at least two"):
        ladder(["random"])
    with pytest.raises(InvalidPlayerError, match="even"):
        ladder(["random", "greedy"], games_per_pair=3)
    with pytest.raises(InvalidPlayerError):
        ladder(["random", "nobody"])
    with pytest.raises(InvalidPlayerError, match="choose"):
        ladder(["random", object()])


def test_colorwars_ladder_prints_ratings_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from colorwars.cli import main

    out = tmp_path / "ladder.json"
    args = ["ladder", "random", "greedy", "zero:simulations=16", "--size", "4x4",
            "--rules", "colorwars", "--games", "4", "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed
    assert "zero(16)" in printed
    data = json.loads(out.read_text())
    assert data["format"] == "colorwars ladder 1"
    assert len(data["elo"]) == 3
    assert main(["ladder", "random", "--games", "4"]) == 1
    err = capsys.readouterr().err
    assert "at least two" in err
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as usage:  # a usage error, as every command's --games
        main(["ladder", "random", "greedy", "--games", "3"])
    assert usage.value.code == 2
    assert "even" in capsys.readouterr().err


def test_ctrl_c_stops_a_long_zero_search() -> None:
    """Zero's search runs natively with the GIL released; Ctrl-C stops it within the
    watcher's tick and the interpreter goes on."""
    code = (
        "import colorwars, os, signal, threading, time\n"
        "g = colorwars.Game(8, 8, rules='classic')\n"
        "z = colorwars.ai.Zero(time=60)\n"
        "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "t = time.perf_counter()\n"
        "try:\n"
        "    z.choose(g)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.perf_counter() - t)\n"
        "print(colorwars.ai.Zero(simulations=20).choose(g) in g.legal_moves())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("interrupted")
    assert float(first.split()[1]) < 5
    assert second == "True"


def test_stop_ends_zeros_search_with_a_legal_move() -> None:
    """``Zero.search(game, stop)`` ends early once ``stop.is_set()``, with the best move of
    the simulations done by then."""
    import threading

    g = colorwars.Game(8, 8, rules="classic")
    stop = threading.Event()
    stop.set()
    decision = Zero(simulations=1_000_000, probe=0).search(g, stop)
    assert decision.cell in g.legal_moves()
    assert decision.work < 1_000_000
    # The Python evaluator's loop (a network given as a plain function) stops too.
    net = shipped("classic")
    puct = PUCT(lambda planes, mask: net.forward(planes), simulations=1_000_000)
    with puct._lock:
        tree = puct._searched(g, None, stop)
        _, done = tree.stats(0)
    assert done < 1_000_000


def test_a_long_think_fits_the_tree_in_memory_instead_of_refusing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under a time alone the simulations are a cap: on a board where a tree of that many
    would not fit in a quarter of the memory, Zero searches fewer (and still moves) instead
    of raising ``MemoryError``; a pickled copy keeps the time alone."""
    import pickle

    from colorwars import _core
    from colorwars import _validate as check
    from colorwars.puct import _config_of

    # A machine of 8 GiB: a tree of the time's cap (10 M simulations) would need far more.
    monkeypatch.setattr(check, "memory_limit", lambda: 8 << 30)
    z = Zero(time=600)
    g = colorwars.Game(10, 10, rules="classic")
    fitted = z._simulations_for(g)
    assert fitted < z.simulations // 4
    config = _config_of(native_game(g))
    assert fitted <= z.simulations
    assert _core.NativePuct.memory_bound(config, 1, fitted) <= check.memory_limit() // 4
    assert "simulations=None" in repr(z)  # the time alone, as given
    assert Zero(simulations=50, time=600)._simulations_for(g) == 50  # asked for: kept
    again = pickle.loads(pickle.dumps(z))
    assert again._simulations_for(g) == fitted
    assert again.name == z.name == "zero(600s)"


def test_zeroab_is_alpha_beta_with_the_networks_value() -> None:
    from colorwars.zero.player import ZeroAlphaBeta

    g = colorwars.Game(4, 4, rules="classic")
    g.play(g.cell("a1"))
    g.play(g.cell("b1"))
    player = parse_player("zeroab:2")
    assert player.name == "zeroab(2)"
    assert player.choose(g) == g.cell("a1")  # the win in one
    g = colorwars.Game(6, 6, rules="colorwars")
    for _ in range(6):
        move = ZeroAlphaBeta(depth=2).choose(g)
        assert move in g.legal_moves()
        g.play(move)
    assert parse_player("zeroab:time=0.05").name == "zeroab(0.05s)"
    with pytest.raises(InvalidPlayerError, match="3 players"):
        ZeroAlphaBeta(depth=1).choose(colorwars.Game(5, 5, players=3))


def test_the_match_goal_benchmark_runs() -> None:
    """benchmarks/zero_goals.py (issue 22's matches against alpha-beta) on a tiny budget."""
    script = Path(__file__).parent.parent / "benchmarks" / "zero_goals.py"
    if not script.exists():
        pytest.skip("the benchmarks are not in this copy of the suite (the wheel's test)")
    out = subprocess.run(
        [sys.executable, str(script), "--quick", "--no-write", "--boards", "4x4:classic",
         "--players", "zero,learned", "--processes", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert re.search(r"4x4 classic: zero\S* scores [\d.]+/4 = .* against alphabeta\(0.01s\)", out)
    assert re.search(r"4x4 classic: learned\S* scores [\d.]+/4", out)
    # --opponent: the match that chose the default where people play (Zero against learned).
    out = subprocess.run(
        [sys.executable, str(script), "--quick", "--no-write", "--boards", "3x3:classic",
         "--players", "zero", "--opponent", "learned", "--processes", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert re.search(r"3x3 classic: zero\S* scores [\d.]+/4 = .* against learned\(0.01s\)", out)


def test_zero_pickles_with_its_settings_and_plays_the_same() -> None:
    """Sent to another process (a process pool, a Ray worker, or as ``Perfect``'s fallback),
    Zero keeps its settings and network and, fresh, plays the same move for its seed; its
    trees and lock are rebuilt, and a network that has played is sent without its native
    inference (which cannot be pickled)."""
    import pickle

    from colorwars.zero import load, shipped

    g = colorwars.Game(5, 5)
    g.play("c3")
    used = load(files("colorwars") / "networks" / "colorwars.net")  # a copy of its own
    used.forward(views.planes(g)[None])  # it has built its native inference
    assert used._native is not None
    for player in (
        Zero(simulations=30, seed=4, probe=0, c_puct=2.0, batch=4),
        Zero(simulations=20, network=used, probe=500),
        Zero(simulations=20, network=shipped("colorwars")),
        Zero(time=0.05),
    ):
        again = pickle.loads(pickle.dumps(player))
        assert repr(again) == repr(player)
        assert again.name == player.name
        assert again._options == player._options
        assert (again.network is None) == (player.network is None)
        if player.time is None:
            assert again.choose(g) == player.choose(g)
        else:
            assert again.choose(g) in g.legal_moves()
    fallback = pickle.loads(pickle.dumps(colorwars.ai.Perfect(time=0.05, fallback="zero")))
    assert fallback.name == "perfect(0.05s)[fallback=zero(400)]"


KEPT = Path(__file__).resolve().parent.parent / "benchmarks" / "networks"


@pytest.mark.skipif(not KEPT.is_dir(), reason="benchmarks/networks is in a checkout only")
@pytest.mark.parametrize(
    "name",
    [
        "classic-16x1", "classic-8x1", "classic-8x2", "classic-16x1-d4", "classic-16x1-d4-4000",
        "classic-32x3",
    ],
)  # fmt: skip
def test_the_small_networks_the_docs_measure_load_and_play(name: str) -> None:
    """docs/learned.md measures the networks kept in benchmarks/networks: each loads (its
    digests checked), is the layout its name says, and plays on the boards measured."""
    from colorwars.ai import Zero
    from colorwars.zero import load

    net = load(KEPT / f"{name}.net")
    channels, blocks = (int(x) for x in name.split("-")[1].split("x"))
    assert net.rules == "classic"
    assert (net.channels, net.blocks) == (channels, blocks)
    if name.endswith("-32x3"):  # the classic network shipped before 2026-12-07's
        assert "--expert-depth 3" in net.info["command"]
        assert (net.info["games"], net.info["iteration"]) == (3000, 0)
    elif "-d4" in name:  # taught by alpha-beta at depth 4, on the games its name says
        assert "--expert-depth 4" in net.info["command"]
        assert net.info["games"] == (4000 if name.endswith("-4000") else 1200)
    for w, h in ((8, 8), (9, 6)):
        g = colorwars.Game(w, h, rules="classic")
        assert Zero(simulations=32, network=net).choose(g) in g.legal_moves()


def test_the_strongest_player_for_a_game() -> None:
    """colorwars.strongest, the default where people play: Zero for two players on classic
    boards of sides up to Zero's own limit, learned alpha-beta for other two-player games,
    MCTS beyond two players."""
    from colorwars import strongest as s
    from colorwars.zero import player

    assert s.MAX_SIDE == player.MAX_SIDE
    assert s.zero_is_strongest(2, "classic", 8, 8)
    assert s.zero_is_strongest(2, " Classic ", 12, 3)
    assert s.zero_is_strongest(2, "none+subtract", 9, 6)
    assert not s.zero_is_strongest(2, "classic", 13, 8)
    assert not s.zero_is_strongest(3, "classic", 8, 8)
    assert not s.zero_is_strongest(2, "colorwars", 8, 8)
    assert not s.zero_is_strongest(2, "drop3+subtract", 8, 8)
    zero = s.strongest(2, "classic", 8, 8, time=0.5, seed=3)
    assert isinstance(zero, Zero)
    assert (zero.time, zero.seed) == (0.5, 3)
    assert s.strongest(2, "colorwars", 8, 8).name == "learned(1.0s)"
    assert s.strongest(4, "classic", 8, 8, time=0.2).name == "mcts(0.2s)"
    # Without the rules or the board, never Zero (it may not play the game).
    assert s.strongest(2).name == "learned(1.0s)"
    assert s.strongest(2, "classic", 8).name == "learned(1.0s)"
    assert s.strongest(3, time=0.5).name == "mcts(0.5s)"
    g = colorwars.Game(6, 6, rules="classic")
    assert zero.choose(g) in g.legal_moves()
