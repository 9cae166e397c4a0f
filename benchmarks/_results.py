"""The figures a benchmark measured, written to ``benchmarks/results/<name>.json`` for the
docs to read (``docs/hooks.py`` fills ``{{ bench:<name>:<key> }}`` from them), stamped with
what was measured where: the commit, the date, the machine and the versions.

    write_results("simulate", {"native_plies_per_second": 3.6e7}, quick=True)
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import colorwars
from colorwars._files import atomic_write

RESULTS = Path(__file__).resolve().parent / "results"


def commit() -> str:
    """The checkout's short commit (`git rev-parse --short HEAD`), or ``"unknown"``."""
    root = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head or "unknown"


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def stamp(quick: bool, **versions: str) -> dict[str, Any]:
    """What a result file says about its run."""
    return {
        "commit": commit(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "quick": quick,
        "machine": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "cpu_model": cpu_model(),
        },
        "versions": {
            "colorwars": colorwars.__version__,
            "python": platform.python_version(),
            **versions,
        },
    }


def write_results(name: str, figures: dict[str, Any], quick: bool, **versions: str) -> Path:
    """Writes ``figures`` (JSON-able) with the stamp to ``benchmarks/results/<name>.json``
    atomically, and returns the path."""
    path = RESULTS / f"{name}.json"
    RESULTS.mkdir(exist_ok=True)
    data = {"benchmark": name, **stamp(quick, **versions), "figures": figures}
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n", "benchmark results")
    print(f"\nfigures written to {os.path.relpath(path)}", file=sys.stderr)
    return path


def score_figures(key: str, points: float, games: int, seconds: float) -> dict[str, float]:
    """A match's figures under ``key``: the score (points / games), its 95% Wilson interval
    (``low``, ``high``) and the match's ``seconds``."""
    from colorwars.statistics import wilson_interval

    low, high = wilson_interval(round(points), games)
    return {f"{key}:score": points / games, f"{key}:low": low, f"{key}:high": high,
            f"{key}:seconds": seconds}  # fmt: skip
