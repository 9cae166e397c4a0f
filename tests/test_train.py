"""The training pipeline (issue 22, section 2): a run folder that is checkpointed, resumed,
and refused when damaged; the network it makes plays. Needs the ``train`` extra (JAX, Flax,
Optax); skipped cleanly without it."""

from __future__ import annotations

from pathlib import Path

import colorwars
import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra is not installed: pip install '.[train]'")
pytest.importorskip("flax", reason="the train extra is not installed: pip install '.[train]'")
pytest.importorskip("optax", reason="the train extra is not installed: pip install '.[train]'")

from colorwars.errors import ConfigError, FileError
from colorwars.zero import load
from colorwars.zero.network import features, random_network
from colorwars.zero.training import (
    Buffer,
    RunSettings,
    _jax,
    _model,
    _to_flax,
    expert_game,
    expert_games,
    train,
)


def tiny(**kw: object) -> RunSettings:
    base = {
        "rules": "colorwars", "sizes": [(4, 4, 1.0), (3, 3, 0.5)], "minutes": 5.0,
        "iterations": 2, "bootstrap": 12, "bootstrap_steps": 10, "games": 6,
        "simulations": 8, "steps": 5, "batch": 32, "eval_games": 2, "eval_simulations": 8,
        "channels": 8, "blocks": 1, "hidden": 16,
    }  # fmt: skip
    base.update(kw)
    return RunSettings(**base)  # type: ignore[arg-type]


def test_the_flax_model_is_the_numpy_network() -> None:
    """The network trained in Flax and the one played natively and in numpy compute the
    same numbers from the same weights."""
    jax, jnp, nn, _ = _jax()
    s = tiny(channels=16, blocks=2, hidden=8)
    model = _model(nn, jnp, s)
    net = random_network("classic", channels=16, blocks=2, hidden=8, seed=7)
    planes = np.random.default_rng(0).integers(0, 4, (6, 2, 5, 7)).astype(np.uint8)
    logits, values = model.apply(_to_flax(net.params), features(planes))
    np.testing.assert_allclose(np.asarray(logits), net.forward(planes)[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(values), net.forward(planes)[1], rtol=1e-4, atol=1e-5)
    init = model.init(jax.random.PRNGKey(0), features(planes))
    assert {
        k: v.shape for k, v in _to_flax(net.params)["params"].items() for v in [v["kernel"]]
    } == {k: v["kernel"].shape for k, v in init["params"].items()}


def test_a_run_checkpoints_resumes_and_records_how_it_was_made(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    lines: list[str] = []
    first = train(folder, tiny(), log=lines.append)
    assert sorted(p.name for p in folder.iterdir()) == ["curve.png", "network.net", "run.ckpt"]
    assert first.info["iteration"] == 2
    assert first.info["games"] == 12 + 2 * 6
    assert load(folder / "network.net").info["positions"] == first.info["positions"]
    # Resumed with more iterations: it goes on from iteration 2, keeping its settings.
    lines.clear()
    second = train(folder, tiny(iterations=3, games=99), log=lines.append)
    assert any(line.startswith(f"resuming {folder}: iteration 2") for line in lines), lines
    assert any(line.startswith("games 99 ignored") for line in lines), lines
    assert second.info["iteration"] == 3
    assert second.info["games"] == 12 + 3 * 6  # the run's own games per iteration, not 99
    assert (folder / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The network plays.
    z = colorwars.ai.Zero(simulations=16, network=second)
    g = colorwars.Game(4, 4)
    while g.winner is None:
        g.play(z.choose(g))


def test_a_run_starts_from_another_past_its_expert_games(tmp_path: Path) -> None:
    """``start_from``: a new run takes another run's network, Adam's state and positions (as
    many as its own buffer keeps), its rules and network shape; it then plays self-play
    iterations under its own settings. Its checkpoint and network say where it started."""
    from colorwars import _files
    from colorwars.zero import training

    old, new = tmp_path / "old", tmp_path / "new"
    base = train(old, tiny(iterations=0))
    kept = {p.name: p.read_bytes() for p in old.iterdir()}
    lines: list[str] = []
    s = tiny(iterations=0, rules="classic", channels=16, buffer=50, simulations=4, games=2)
    same = train(new, s, start_from=old, log=lines.append)
    assert sorted(p.name for p in new.iterdir()) == ["network.net", "run.ckpt"]
    for k in base.params:  # no iteration yet: the other run's network
        np.testing.assert_array_equal(same.params[k], base.params[k])
    assert same.rules == "colorwars"
    assert any(line.startswith("channels 16 ignored") for line in lines), lines
    assert any(line.startswith("rules 'classic' ignored") for line in lines), lines
    assert same.info["start_from"]["games"] == 12
    assert same.info["start_from"]["command"] == base.info["command"]
    before = training._Run(old, tiny(), lambda _: None)
    run = training._Run(new, tiny(), lambda _: None)
    assert (run.s.channels, run.s.rules, run.s.simulations, run.s.buffer) == (
        8, "colorwars", 4, 50,
    )  # fmt: skip
    assert (run.phase, run.iteration, run.games) == ("self-play", 0, 12)
    # The newest 50 of the other run's positions, every board in proportion (each board's
    # share rounded down).
    assert 50 - len(run.buffer.parts) <= len(run.buffer) <= 50 < len(before.buffer)
    for size, rows in run.buffer.parts.items():
        np.testing.assert_array_equal(rows["z"], before.buffer.parts[size]["z"][-len(rows["z"]) :])
    found = _files.read_sealed(old / "run.ckpt", training.KIND, training.VERSION, "checkpoint")
    assert found is not None
    assert run.start is not None
    assert run.start["body_blake2b"] == _files.digest(found[1])
    assert run.start["history"] == before.history
    assert run.start["folder"] == str(old)
    # The other run's arrays are read once, not carried along for the whole run.
    start = training._read_start(old, tmp_path / "third")
    assert (start.settings.channels, start.settings.rules) == (8, "colorwars")
    assert start.body == found[1]
    training._Run(tmp_path / "third", tiny(), lambda _: None, None, start)
    assert start.body == b""
    # It goes on: self-play iterations of its own, the other run untouched.
    lines.clear()
    more = train(new, tiny(iterations=1), start_from=old, log=lines.append)
    assert any("ignored" in line and "resumes" in line for line in lines), lines
    assert (more.info["iteration"], more.info["games"]) == (1, 12 + 2)
    assert more.info["start_from"] == same.info["start_from"]
    assert any(not np.array_equal(more.params[k], base.params[k]) for k in base.params)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == kept


def test_a_run_is_refused_a_start_it_cannot_take(tmp_path: Path) -> None:
    """``start_from`` a folder with no checkpoint, a damaged one, one still in its expert
    games, or the run's own folder: a clear error of ours naming it, before any folder is
    made."""
    from colorwars.zero import training

    s = tiny(iterations=0)
    with pytest.raises(FileError, match="no training checkpoint"):
        train(tmp_path / "a", s, start_from=tmp_path / "missing")
    with pytest.raises(ConfigError, match="own folder"):
        train(tmp_path / "a", s, start_from=tmp_path / "a")
    assert not (tmp_path / "a").exists()
    # A run saved in its expert games (as every five minutes of them): no network yet.
    early = tmp_path / "early"
    early.mkdir()
    training._Run(early, s, lambda _: None).save(outputs=False)
    with pytest.raises(ConfigError, match="expert games are not all played"):
        train(tmp_path / "b", s, start_from=early)
    done = tmp_path / "done"
    train(done, s)
    data = bytearray((done / "run.ckpt").read_bytes())
    data[-100] ^= 0xFF
    (done / "run.ckpt").write_bytes(bytes(data))
    with pytest.raises(FileError, match=r"done/run\.ckpt"):
        train(tmp_path / "c", s, start_from=done)
    assert not (tmp_path / "b").exists()
    assert not (tmp_path / "c").exists()


def test_a_damaged_checkpoint_is_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    train(folder, tiny(iterations=1))
    ckpt = folder / "run.ckpt"
    data = bytearray(ckpt.read_bytes())
    data[len(data) // 2] ^= 0xFF
    ckpt.write_bytes(bytes(data))
    with pytest.raises(FileError, match=r"run\.ckpt"):
        train(folder, tiny(iterations=2))


def test_bad_settings_are_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="rules"):
        train(tmp_path / "a", tiny(rules="drop3+subtract"))
    with pytest.raises(ConfigError, match="board"):
        train(tmp_path / "b", tiny(sizes=[(1, 40, 1.0)]))
    with pytest.raises(ConfigError, match="games"):
        train(tmp_path / "c", tiny(games=0))
    # and before the run folder is made: a refused run leaves nothing behind
    assert not any((tmp_path / name).exists() for name in "abc")


def test_colorwars_train_runs_from_the_command_line(tmp_path: Path) -> None:
    from colorwars.cli import main

    out = tmp_path / "n.net"
    args = ["train", str(tmp_path / "run"), "--board", "3x3", "--bootstrap", "6",
            "--bootstrap-steps", "4", "--iterations", "1", "--games", "4", "--simulations", "4",
            "--steps", "2", "--batch", "16", "--eval-games", "2", "--eval-simulations", "4",
            "--channels", "4", "--blocks", "1", "--no-progress", "--export", str(out)]  # fmt: skip
    assert main(args) == 0
    assert load(out).info["iteration"] == 1
    # --start-from: a second run goes on from the first with settings of its own.
    more = ["train", str(tmp_path / "more"), "--start-from", str(tmp_path / "run"),
            "--iterations", "1", "--games", "2", "--simulations", "8", "--steps", "2",
            "--batch", "16", "--eval-games", "2", "--eval-simulations", "4", "--no-progress",
            "--export", str(out)]  # fmt: skip
    assert main(more) == 0
    network = load(out)
    assert (network.info["iteration"], network.info["games"]) == (1, 6 + 4 + 2)
    assert network.info["start_from"]["games"] == 6 + 4
    # What it was not given is the first run's (its board, its channels), but the budget.
    assert network.info["sizes"] == [[3, 3, 1.0]]
    assert network.channels == 4
    assert main(["train", str(tmp_path / "y"), "--start-from", str(tmp_path / "none")]) == 2
    assert not (tmp_path / "y").exists()
    with pytest.raises(SystemExit) as usage:  # argparse: a usage error, exit status 2
        main(["train", str(tmp_path / "x"), "--board", "3x3:0"])
    assert usage.value.code == 2


def test_a_resumed_run_keeps_its_budget_unless_asked(tmp_path: Path) -> None:
    """`colorwars train FOLDER` again, without --iterations, goes on to the run's own budget
    (it used to fall back to the defaults); a changed setting is named and ignored."""
    from colorwars.cli import main

    folder = tmp_path / "run"
    train(folder, tiny(iterations=2))
    lines: list[str] = []
    again = train(folder, tiny(iterations=99, channels=4), log=lines.append, given={"channels"})
    assert again.info["iteration"] == 2  # the checkpoint's two iterations: already done
    assert any("channels 4 ignored" in line for line in lines), lines
    assert main(["train", str(folder), "--no-progress", "--iterations", "3"]) == 0
    assert load(folder / "network.net").info["iteration"] == 3


def test_two_runs_on_one_folder_are_refused(tmp_path: Path) -> None:
    from colorwars import _files

    folder = tmp_path / "run"
    folder.mkdir()
    with (
        _files.locked(folder / "run.ckpt", "run folder's checkpoint"),
        pytest.raises(FileError, match="in use by another run"),
    ):
        train(folder, tiny())
    assert not (folder / "run.ckpt").exists()


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"eval_games": 0}, "eval_games"), ({"eval_games": 3}, "even"),
     ({"bootstrap": 0}, "bootstrap"), ({"bootstrap_steps": 0}, "bootstrap_steps"),
     ({"channels": 0}, "channels"), ({"blocks": 0}, "blocks"), ({"lr": float("nan")}, "lr"),
     ({"minutes": float("nan")}, "minutes"), ({"expert_eval": "deep"}, "expert_eval")],
)  # fmt: skip
def test_every_setting_is_checked_before_any_work(
    tmp_path: Path, kw: dict[str, object], match: str
) -> None:
    with pytest.raises(ConfigError, match=match):
        train(tmp_path / "run", tiny(**kw))
    assert not (tmp_path / "run" / "run.ckpt").exists()


@pytest.mark.parametrize("evaluation", ["hand", "learned"])
def test_the_expert_games_are_labelled_by_the_expert_asked_for(evaluation: str) -> None:
    """`--expert-eval learned`: every policy target is the move of alpha-beta with the
    learned evaluation at the expert's depth (the hand-made one's by default)."""
    from colorwars.ai import AlphaBeta

    s = tiny(rules="classic", expert_depth=2, expert_eval=evaluation, explore=0.0)
    planes, _mask, pi, z = expert_game((5, 5), s, np.random.default_rng(0))
    expert = AlphaBeta(depth=2, eval=evaluation)
    other = AlphaBeta(depth=2, eval="learned" if evaluation == "hand" else "hand")
    game = colorwars.Game(5, 5, rules="classic")
    differ = 0
    for row in range(len(pi)):
        move = int(np.argmax(pi[row]))
        assert move == expert.choose(game), row
        differ += move != other.choose(game)
        game.play(move)  # no exploration: the game is the expert's own line
    assert game.winner is not None
    assert len(z) == len(pi) == len(planes) > 0
    assert differ > 0  # the two experts are told apart


def test_the_buffer_keeps_the_last_positions_of_each_board_in_proportion() -> None:
    """The buffer's rows are those of a plain list of every game added, each board's oldest
    dropped in proportion whenever the total passes the limit; and they survive a checkpoint."""
    rng = np.random.default_rng(5)
    limit = 700
    buf = Buffer(limit)
    plain: dict[tuple[int, int], list[float]] = {}  # each board's value targets, in order
    serial = 0
    for _ in range(300):
        size = ((3, 3), (4, 3), (5, 5))[int(rng.integers(3))]
        n = int(rng.integers(1, 40))
        z = np.arange(serial, serial + n, dtype=np.float32)  # rows told apart by z
        serial += n
        w, h = size
        planes = np.broadcast_to((z % 4).astype(np.uint8)[:, None, None, None], (n, 2, h, w))
        mask = np.broadcast_to((z % 2).astype(np.uint8)[:, None], (n, w * h)).copy()
        pi = np.broadcast_to((z % 8 / 8).astype(np.float32)[:, None], (n, w * h)).copy()
        buf.add(size, np.ascontiguousarray(planes), mask, pi, z)
        plain.setdefault(size, []).extend(z.tolist())
        total = sum(len(v) for v in plain.values())
        if total > limit:
            keep = limit / total
            for key, rows in plain.items():
                plain[key] = rows[len(rows) - int(len(rows) * keep) :]
        assert len(buf) == sum(len(v) for v in plain.values()) <= limit
        for key, part in buf.parts.items():
            assert part["z"].tolist() == plain[key]
            assert (part["planes"][:, 0, 0, 0] == part["z"] % 4).all()
            assert (part["mask"][:, -1] == part["z"] % 2).all()
            assert (part["pi"][:, 0].astype(np.float32) == part["z"] % 8 / 8).all()
    again = Buffer.from_npz(limit, buf.to_npz())
    assert {k: p["z"].tolist() for k, p in again.parts.items()} == plain
    for _ in range(40):  # a loaded buffer goes on as the one saved
        for b in (buf, again):
            z = np.arange(serial, serial + 30, dtype=np.float32)
            b.add((3, 3), np.zeros((30, 2, 3, 3), np.uint8), np.ones((30, 9), np.uint8),
                  np.full((30, 9), 1 / 9, np.float32), z)  # fmt: skip
        serial += 30
        assert {k: p["z"].tolist() for k, p in again.parts.items()} == {
            k: p["z"].tolist() for k, p in buf.parts.items()
        }
    x, mask, pi, z = again.sample(rng, 16)
    assert len(x) == len(mask) == len(pi) == len(z) == 16


@pytest.mark.parametrize("threads", [1, 2])
def test_a_run_stopped_in_its_expert_games_resumes_where_it_was_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """The expert games are checkpointed as they are played (here after every game): a run
    stopped among them (Ctrl-C, here in a game played on another thread too) goes on from
    its last save, on any number of threads, and keeps the same games as a run that was
    never stopped; a stopped run leaves no thread behind."""
    import threading

    from colorwars.zero import training

    s = tiny(iterations=0, bootstrap=8)
    whole = tmp_path / "whole"
    train(whole, s, threads=1)
    monkeypatch.setattr(training, "SAVE_SECONDS", 0.0)
    played = 0
    real = training.expert_game

    def stopped_at_the_sixth(*args: object, **kw: object) -> object:
        nonlocal played
        played += 1
        if played == 6:
            raise KeyboardInterrupt
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(training, "expert_game", stopped_at_the_sixth)
    folder = tmp_path / "stopped"
    with pytest.raises(KeyboardInterrupt):
        train(folder, s, threads=threads)
    assert not [t for t in threading.enumerate() if t.name.startswith("colorwars-expert")]
    assert sorted(p.name for p in folder.iterdir()) == ["run.ckpt"]  # no network trained yet
    monkeypatch.setattr(training, "expert_game", real)
    lines: list[str] = []
    resumed = train(folder, s, log=lines.append, threads=3)
    # On one thread the sixth game is game 5; on two, the threads race: game 4 or 5.
    said = "5 of 8" if threads == 1 else ""
    assert any(
        line.startswith(f"resuming {folder}: {said}") and "expert games played" in line
        for line in lines
    ), lines
    assert resumed.info["games"] == 8
    buffers_equal(*(training._Run(f, s, lambda _: None).buffer for f in (whole, folder)))


def buffers_equal(a: Buffer, b: Buffer) -> None:
    pa, pb = a.parts, b.parts
    assert pa.keys() == pb.keys()
    for size in pa:
        for k in pa[size]:
            np.testing.assert_array_equal(pa[size][k], pb[size][k])


def rows_equal(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_the_expert_games_are_the_same_on_any_number_of_threads(tmp_path: Path) -> None:
    """Each expert game draws from its own generator (the seed and its number), so one
    thread and three make the same buffer, and a run resumed on another number of threads
    goes on with the same games."""
    from colorwars.zero import training

    s = tiny(iterations=0, bootstrap=9, sizes=[(4, 4, 1.0), (3, 3, 0.5), (5, 3, 0.5)])
    runs = {}
    for threads in (1, 3):
        train(tmp_path / f"t{threads}", s, threads=threads)
        runs[threads] = training._Run(tmp_path / f"t{threads}", s, lambda _: None).buffer
    buffers_equal(runs[1], runs[3])
    assert len(runs[1].parts) == 3  # every board was drawn

    one = list(expert_games(s, 0, threads=1))
    # Game g's generator is the g-th the seed spawns (not the run's own, nor game 0's).
    rng = np.random.default_rng(np.random.SeedSequence(s.seed).spawn(2)[1])
    size = training._pick_size(rng, s)
    assert one[1][0] == size
    rows_equal(one[1][1], expert_game(size, s, rng))
    later = list(expert_games(s, 4, threads=2))
    assert (len(one), len(later)) == (9, 5)
    for (size_a, rows_a), (size_b, rows_b) in zip(one[4:], later, strict=True):
        assert size_a == size_b
        rows_equal(rows_a, rows_b)


def test_closing_the_expert_games_stops_their_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller that stops early (an exception, Ctrl-C) closes the games: the games being
    played give up before their next move, those queued are cancelled, and no thread is
    left behind."""
    import threading

    from colorwars.zero import training

    s = tiny(iterations=0, bootstrap=10_000, sizes=[(8, 8, 1.0)], expert_depth=3)
    # Game 0 is played; every other game waits until the games are stopped, so that it is
    # being played when they are (game 0's generator, as its game gets it, tells them apart).
    first = np.random.default_rng(np.random.SeedSequence(s.seed, spawn_key=(0,)))
    training._pick_size(first, s)
    ended: list[str] = []
    started = threading.Semaphore(0)
    real = training.expert_game

    def recorded(size: object, s_: object, rng: np.random.Generator, stop: object) -> object:
        assert isinstance(stop, threading.Event)
        if rng.bit_generator.state != first.bit_generator.state:
            started.release()
            assert stop.wait(60)
        try:
            rows = real(size, s_, rng, stop)  # type: ignore[arg-type]
        except training._StoppedError:
            ended.append("given up")
            raise
        ended.append("played")
        return rows

    monkeypatch.setattr(training, "expert_game", recorded)
    games = expert_games(s, 0, threads=2)
    size, rows = next(games)
    assert (size, len(rows[3]) > 0) == ((8, 8), True)
    for _ in range(2):  # games 1 and 2 are being played
        assert started.acquire(timeout=60)
    games.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("colorwars-expert")]
    # Games 1 and 2 were being played and gave up; game 3, queued, was never started.
    assert sorted(ended) == ["given up", "given up", "played"]


def test_a_bad_thread_count_is_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="thread count"):
        train(tmp_path / "run", tiny(), threads=-1)
    assert not (tmp_path / "run").exists()
