"""The Gymnasium face against the bare native environment, in one run.

`colorwars.gymnasium.GymVectorEnv` wraps `colorwars.VectorEnv`; this measures what the wrapper
costs: environment steps per second with 4096 environments on 8x8 classic, random legal
actions from `sample_legal()`, observations and masks included, for

- the bare native `colorwars.VectorEnv` (`env.step(env.sample_legal())`);
- the wrapper with its default `copy=False` (`envs.step(envs.sample_legal())`);
- the wrapper with `copy=True` (fresh arrays from every call, as Gymnasium's `SyncVectorEnv`
  does by default), for reference.

The three take turns in short blocks of steps (a few milliseconds each), so that all see the
same machine even when other work comes and goes; a round gives each a few seconds in all.
Each figure is the best round (the least disturbed by other load), and each ratio is the
median over rounds. Goal: the default wrapper within a few percent of the bare environment.
The figures are also written to benchmarks/results/gymnasium.json (stamped with the commit,
the date, the machine and the versions), which the docs read.

    python benchmarks/bench_gymnasium.py           # about a minute
    python benchmarks/bench_gymnasium.py --quick   # a few seconds, rougher
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

import colorwars
import colorwars.gymnasium
import gymnasium
from _results import write_results

NUM_ENVS = 4096
BLOCK = 10  # steps a case takes in a row (about 3 ms on two cores)
CONFIG = {"width": 8, "height": 8, "players": 2, "rules": "classic", "illegal": "lose"}


def one_round(cases: dict[str, Callable[[], object]], seconds: float) -> dict[str, float]:
    """Environment steps per second of each case, the cases taking turns in blocks of
    `BLOCK` steps for about `seconds` each."""
    elapsed = dict.fromkeys(cases, 0.0)
    order = list(cases.items())
    end = time.perf_counter() + seconds * len(cases)
    blocks = 0
    while time.perf_counter() < end:
        for name, step in order:
            start = time.perf_counter()
            for _ in range(BLOCK):
                step()
            elapsed[name] += time.perf_counter() - start
        blocks += 1
        order = order[1:] + order[:1]  # each case goes first in turn (no order bias)
    return {name: blocks * BLOCK * NUM_ENVS / t for name, t in elapsed.items()}


def call_overhead(seconds: float) -> tuple[float, float]:
    """Seconds per `step` call on one 2x2 environment, where the native work is next to
    nothing, through the wrapped native environment and through the wrapper (the same
    environment, in alternating blocks of 500 calls): the wrapper's own cost, as free of the
    machine's noise as can be."""
    wrapped = colorwars.gymnasium.GymVectorEnv(num_envs=1, width=2, height=2, threads=1)
    wrapped.reset(seed=0)
    actions = wrapped.sample_legal().copy()  # illegal now and then: a loss and a new game
    steps: list[Callable[[], object]] = [
        lambda: wrapped.native.step(actions),
        lambda: wrapped.step(actions),
    ]
    elapsed, calls = [0.0, 0.0], 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for k, step in enumerate(steps):
            start = time.perf_counter()
            for _ in range(500):
                step()
            elapsed[k] += time.perf_counter() - start
        calls += 500
    return elapsed[0] / calls, elapsed[1] / calls


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument("--threads", type=int, default=0, help="native threads (0: all cores)")
    args = parser.parse_args()
    rounds, seconds = (3, 0.5) if args.quick else (5, 2.5)
    print(f"colorwars {colorwars.__version__}, gymnasium {gymnasium.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")  # fmt: skip
    print(f"{NUM_ENVS} environments, 8x8 classic, sample_legal() actions, threads={args.threads}"
          f"; {rounds} rounds, {seconds:g} s per case per round, in alternating blocks of "
          f"{BLOCK} steps")  # fmt: skip

    bare = colorwars.VectorEnv(num_envs=NUM_ENVS, threads=args.threads, **CONFIG)  # type: ignore[arg-type]
    wrapped = colorwars.gymnasium.GymVectorEnv(num_envs=NUM_ENVS, threads=args.threads, **CONFIG)  # type: ignore[arg-type]
    copying = colorwars.gymnasium.GymVectorEnv(
        num_envs=NUM_ENVS,
        threads=args.threads,
        copy=True,
        **CONFIG,  # type: ignore[arg-type]
    )
    for env in (bare, wrapped, copying):
        env.reset(seed=0)
    cases: dict[str, Callable[[], object]] = {
        "bare colorwars.VectorEnv": lambda: bare.step(bare.sample_legal()),
        "gymnasium VectorEnv": lambda: wrapped.step(wrapped.sample_legal()),
        "gymnasium, copy=True": lambda: copying.step(copying.sample_legal()),
    }
    one_round(cases, 0.2)  # warm up caches and the thread pool
    rates: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, rate in one_round(cases, seconds).items():
            rates[name].append(rate)

    base = rates["bare colorwars.VectorEnv"]
    keys = {
        "bare colorwars.VectorEnv": "bare",
        "gymnasium VectorEnv": "wrapper",
        "gymnasium, copy=True": "copy",
    }
    figures: dict[str, float] = {}
    print(f"\n  {'':<26}{'best steps/s':>16}{'vs bare (median of rounds)':>30}")
    for name, r in rates.items():
        ratio = statistics.median(x / b for x, b in zip(r, base, strict=True))
        print(f"  {name:<26}{max(r) / 1e6:>13.2f} M{ratio:>29.1%}")
        figures[f"{keys[name]}_steps_per_second"] = max(r)
        figures[f"{keys[name]}_over_bare"] = ratio
    best = max(rates["gymnasium VectorEnv"]) / max(base)
    print(f"\n  wrapper / bare, best against best: {best:.1%} (goal: within a few percent)")
    bare_call, wrapped_call = call_overhead(2.0 if args.quick else 10.0)
    extra = wrapped_call - bare_call
    step = NUM_ENVS / max(base)
    print(f"  the wrapper's own cost, measured on one 2x2 environment: {extra * 1e6:.2f} us a "
          f"step call ({bare_call * 1e6:.2f} bare, {wrapped_call * 1e6:.2f} wrapped), "
          f"{extra / step:.2%} of a {NUM_ENVS}-environment step ({step * 1e6:.0f} us)")  # fmt: skip
    figures |= {
        "wrapper_best_over_bare_best": best,
        "wrapper_call_seconds": extra,
        "wrapper_call_share": extra / step,
        "step_seconds": step,
    }
    write_results(
        "gymnasium",
        figures,
        quick=args.quick,
        gymnasium=gymnasium.__version__,
        threads=str(args.threads),
    )


if __name__ == "__main__":
    main()
