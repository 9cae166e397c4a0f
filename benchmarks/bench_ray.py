"""The Ray backend's overhead against the local backend, on a local Ray cluster.

Runs 100,000 games (5x5 colorwars, random) with `backend="local"` and with `backend="ray"` on a
local cluster of this machine, checks that the games are identical, and prints the times:
Ray's start-up, the sharded run itself, and the local run.

    python benchmarks/bench_ray.py [--games N] [--shards N]
"""

from __future__ import annotations

import argparse
import time

import colorwars
import numpy as np
import ray


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--shards", type=int, default=None, help="default: 4 per node")
    args = parser.parse_args()
    kw = {"games": args.games, "width": 5, "height": 5, "rules": "colorwars", "seed": 3}

    local_times = []
    for _ in range(3):
        t = time.perf_counter()
        local = colorwars.simulate(**kw)  # type: ignore[arg-type]
        local_times.append(time.perf_counter() - t)

    t = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - t
    ray_times = []
    for _ in range(3):
        t = time.perf_counter()
        remote = colorwars.simulate(**kw, backend="ray", shards=args.shards)  # type: ignore[arg-type]
        ray_times.append(time.perf_counter() - t)
    ray.shutdown()

    assert np.array_equal(local.winners, remote.winners)
    assert np.array_equal(local.plies, remote.plies)
    best_local, best_ray = min(local_times), min(ray_times)
    print(f"{args.games:,} games of 5x5 colorwars, {remote.shards} shards, identical results: yes")
    print(f"  local backend:               {best_local * 1000:8.1f} ms (best of 3)")
    overhead = (best_ray - best_local) * 1000
    print(f"  ray backend, cluster running:{best_ray * 1000:8.1f} ms (best of 3), "
          f"overhead {overhead:+.1f} ms ({best_ray / best_local:.2f}x)")  # fmt: skip
    print(f"  starting the local cluster:  {startup * 1000:8.1f} ms (once)")


if __name__ == "__main__":
    main()
