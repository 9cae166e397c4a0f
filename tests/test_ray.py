"""simulate(backend="ray") against a real local Ray instance (started once per test session,
two CPUs): identical to the local backend, uneven shards, a failed task retried."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import colorwars
import numpy as np
import pytest
from colorwars.distributed import split_games

ray = pytest.importorskip("ray", reason="the Ray extra is not installed: pip install '.[ray]'")

FIELDS = ("winners", "plies", "waves", "longest_cascade", "first_moves")


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def same_games(a: colorwars.SimulationResult, b: colorwars.SimulationResult) -> None:
    for name in FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_split_games() -> None:
    assert split_games(10, 3) == [(0, 4), (4, 3), (7, 3)]
    assert split_games(2, 5) == [(0, 1), (1, 1)]
    assert split_games(0, 3) == [(0, 0)]
    assert split_games(10, [7, 0, 3]) == [(0, 7), (7, 0), (7, 3)]
    for bad in (0, [5, 4], [-1, 11], True):
        with pytest.raises(colorwars.ConfigError, match="shards"):
            split_games(10, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("shards", [1, 3, 8, [1, 997, 0, 2], [500, 500]])
def test_ray_equals_local(cluster: Any, shards: int | list[int]) -> None:
    kw: dict[str, Any] = {
        "games": 1000, "width": 6, "height": 6, "players": 3, "rules": "classic",
        "seats": ["greedy", "random", "random"], "seed": 5, "record": True,
    }  # fmt: skip
    local = colorwars.simulate(**kw)
    remote = colorwars.simulate(**kw, backend="ray", shards=shards)
    same_games(local, remote)
    assert all(local.moves(i) == remote.moves(i) for i in range(0, 1000, 37))
    assert remote.moves(999) == local.moves(999)
    assert remote.summary()["backend"] == "ray"


def test_progress_as_shards_finish(cluster: Any) -> None:
    seen: list[tuple[int, int]] = []
    colorwars.simulate(games=900, seed=1, backend="ray", shards=[100, 300, 500],
                       progress=lambda d, t: seen.append((d, t)))  # fmt: skip
    assert len(seen) == 3
    assert seen[-1] == (900, 900)
    assert sorted(d for d, _ in seen) == [d for d, _ in seen]


def test_a_failed_task_is_retried(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shard's first attempt fails (an injected error); Ray retries it and no game is
    lost."""
    from colorwars import distributed

    run_shard = distributed._run_shard
    markers = str(tmp_path)

    # Defined here, so Ray ships it by value to its workers; a marker file per shard
    # remembers the first attempt.
    def fails_once(args: dict[str, Any], start: int, count: int) -> dict[str, Any]:
        from pathlib import Path

        marker = Path(markers) / f"shard-{start // 200}"
        if not marker.exists():
            marker.touch()
            raise RuntimeError(f"injected failure of the shard at game {start}")
        return run_shard(args, start, count)

    monkeypatch.setattr(distributed, "_run_shard", fails_once)
    local = colorwars.simulate(games=600, seed=9)
    remote = colorwars.simulate(games=600, seed=9, backend="ray", shards=3)
    same_games(local, remote)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard-0", "shard-1", "shard-2"]


def test_a_shard_that_keeps_failing_is_named(cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from colorwars import distributed

    def always_fails(args: dict[str, Any], start: int, count: int) -> None:
        raise RuntimeError("this node is broken")

    monkeypatch.setattr(distributed, "_run_shard", always_fails)
    with pytest.raises(colorwars.ShardError, match=r"shard \d \(games \d+ to \d+\) failed"):
        colorwars.simulate(games=100, backend="ray", shards=2)


def test_cli_ray_backend(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from colorwars.cli import main

    assert main(["simulate", "--games", "2000", "--backend", "ray", "--shards", "4", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"backend": "ray"' in out
    assert '"shards": 4' in out


def test_ray_with_search_players(cluster: Any) -> None:
    kw: dict[str, Any] = {"games": 24, "width": 4, "height": 4, "seats": ["mcts:50", "greedy"],
                          "seed": 3, "record": True}  # fmt: skip
    local = colorwars.simulate(**kw)
    remote = colorwars.simulate(**kw, backend="ray", shards=[5, 19])
    same_games(local, remote)
    assert remote.moves(20) == local.moves(20)


def test_prove_on_ray_equals_native(cluster: Any, tmp_path: Path) -> None:
    """The groups of first moves proven as Ray tasks: the same winners as here, their proofs
    merged into the checkpoint (a native run resumed from it proves every group again at once,
    from those proofs: a result is derived in the run that reports it, never read from the
    header)."""
    path = tmp_path / "ray.bin"
    remote = colorwars.prove(3, 4, rules="classic", backend="ray", checkpoint=path, verify=True)
    local = colorwars.prove(3, 4, rules="classic")
    assert remote.moves == local.moves
    assert remote.winner == local.winner == 0
    assert remote.checked is not None
    resumed = colorwars.prove(3, 4, rules="classic", checkpoint=path)
    assert resumed.moves == local.moves
    # At most a few positions searched again (for the lines), against millions the first time.
    assert 0 <= resumed.positions - remote.positions < 1000


def test_prove_on_ray_with_threads(cluster: Any) -> None:
    """Each Ray task searches with ``threads`` searchers (and asks Ray for as many CPUs): the
    same winners as one thread here."""
    remote = colorwars.prove(3, 4, rules="classic", backend="ray", threads=2)
    local = colorwars.prove(3, 4, rules="classic", threads=1)
    assert remote.threads == 2
    assert remote.moves == local.moves
    assert remote.winner == local.winner == 0
    assert colorwars.prove(3, 3, backend="ray").threads == 1


def test_tournament_and_openings_on_ray_equal_local(cluster: Any) -> None:
    """Each match a Ray task: the same games as the native batch, game for game."""
    from colorwars import ai

    kw: dict[str, Any] = {"width": 4, "height": 4, "rules": "classic", "seed": 5}
    players = ["random", "greedy", "alphabeta:2"]
    local = ai.tournament(players, 10, **kw)
    seen: list[tuple[int, int]] = []
    remote = ai.tournament(
        players, 10, **kw, backend="ray", progress=lambda d, t: seen.append((d, t))
    )
    assert np.array_equal(local.wins, remote.wins)
    assert np.array_equal(local.games, remote.games)
    assert seen[-1] == (30, 30)
    rates, counts = ai.opening_win_rates("greedy", "random", 4, **kw)
    r_rates, r_counts = ai.opening_win_rates("greedy", "random", 4, **kw, backend="ray")
    assert np.array_equal(rates, r_rates)
    assert np.array_equal(counts, r_counts)


def test_cli_tournament_on_ray(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from colorwars.cli import main

    argv = ["tournament", "--entrants", "random,greedy", "--games", "6", "--backend", "ray"]
    assert main(argv) == 0
    assert "round robin" in capsys.readouterr().out
