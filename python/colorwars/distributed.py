"""Simulation on a Ray cluster: ``colorwars.simulate(..., backend="ray")``.

The games are split into shards of consecutive game indices; each shard is one Ray task that
runs the native simulator on all cores of its node. Game ``i`` draws its randomness from
``(seed, i)`` only, so the merged result is identical, game for game, to the local backend with
the same arguments, whatever the shard count or the cluster.

Ray is an optional extra: ``pip install 'colorwars[ray]'``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from colorwars import _core
from colorwars import _validate as check
from colorwars.errors import BackendError, ConfigError, ShardError, missing_extra

__all__ = ["MAX_SHARDS", "run_sharded", "split_games"]

MAX_SHARDS = 100_000


def split_games(games: int, shards: int | Sequence[int]) -> list[tuple[int, int]]:
    """``(start, count)`` per shard: an even split into ``shards`` parts, or the given sizes
    (which must add up to ``games``)."""
    allowed = f"expected a count from 1 to {MAX_SHARDS} or shard sizes adding up to {games}"
    if isinstance(shards, str) or not isinstance(shards, Sequence):
        n = min(check.whole(shards, "shards", 1, MAX_SHARDS), max(games, 1))
        sizes = [games // n + (1 if k < games % n else 0) for k in range(n)]
    else:
        if not 1 <= len(shards) <= MAX_SHARDS:
            check.fail(ConfigError, "shards", shards, allowed)
        sizes = [check.whole(s, "shards entry", 0, games) for s in shards]
        if sum(sizes) != games:
            check.fail(ConfigError, "shards", shards, allowed)
    out, start = [], 0
    for size in sizes:
        out.append((start, size))
        start += size
    return out


def _run_shard(args: dict[str, Any], start: int, count: int) -> dict[str, Any]:
    """One shard, on whichever node Ray picked: the native simulator on all its cores."""
    if "seats" in args:  # search players: the native match loop
        return _core.play_match(**args, start=start, games=count, threads=0)
    return _core.simulate(**args, start=start, games=count, threads=0)


@contextlib.contextmanager
def _cluster(address: str | None) -> Iterator[Any]:
    """Ray, connected: an existing connection, the cluster at ``address``, or a local
    instance that is shut down afterwards."""
    try:
        import ray
    except ImportError:
        raise missing_extra("ray", "the Ray backend needs Ray", "ray") from None
    if not hasattr(ray, "is_initialized"):
        # A folder named ray where Python looks first (Ray keeps its session files in
        # /tmp/ray): a namespace package, not Ray.
        where = ", ".join(getattr(ray, "__path__", [])) or "here"
        raise missing_extra(
            "ray", f"the Ray backend needs Ray (the module ray found is the folder {where})", "ray"
        )
    if ray.is_initialized():
        yield ray
        return
    try:
        if address is None:
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except Exception as e:  # Ray raises several types for an unreachable cluster
        raise BackendError(f"cannot connect to the Ray cluster at {address}: {e}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def run_sharded(
    args: dict[str, Any],
    games: int,
    shards: int | Sequence[int] | None,
    address: str | None,
    record: bool,
    progress: Callable[[int, int], object] | None,
    max_retries: int = 3,
) -> dict[str, Any]:
    """Runs the shards as Ray tasks and merges their arrays in game order."""
    with _cluster(address) as ray:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        node_cpus = [int(n.get("Resources", {}).get("CPU", 1)) for n in nodes] or [1]
        # A task uses all the cores of its node; a few shards per node balance the load.
        plan = split_games(games, shards if shards is not None else 4 * len(node_cpus))
        task = ray.remote(_run_shard).options(
            num_cpus=min(node_cpus), max_retries=max_retries, retry_exceptions=True
        )
        start_time = time.perf_counter()
        pending = {task.remote(args, start, count): k for k, (start, count) in enumerate(plan)}
        results: dict[int, dict[str, Any]] = {}
        done = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                k = pending.pop(ref)
                try:
                    results[k] = ray.get(ref)
                except Exception as e:
                    for other in pending:
                        ray.cancel(other)
                    start, count = plan[k]
                    raise ShardError(
                        f"shard {k} (games {start} to {start + count - 1}) failed after "
                        f"{max_retries} retries: {e}"
                    ) from None
                done += plan[k][1]
                if progress is not None:
                    progress(done, games)
        elapsed = time.perf_counter() - start_time
    parts = [results[k] for k in range(len(plan))]
    merged: dict[str, Any] = {
        name: np.concatenate([p[name] for p in parts])
        for name in ("winners", "plies", "waves", "longest_cascade", "first_moves")
    }
    if record:
        merged["moves"] = np.concatenate([p["moves"] for p in parts])
        offsets, base = [], 0
        for p in parts:
            offsets.append(p["offsets"][:-1] + base)
            base += int(p["offsets"][-1])
        merged["offsets"] = np.concatenate([*offsets, np.array([base], dtype=np.int64)])
    merged["elapsed"] = elapsed
    merged["complete"] = all(p["complete"] for p in parts)
    merged["shards"] = len(plan)
    merged["nodes"] = len(node_cpus)
    return merged
