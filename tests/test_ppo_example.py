"""examples/ppo.py (PPO with JAX + Flax + Optax through the Gymnasium environment) runs end to
end on a tiny budget: it trains, plays greedy in both seats, prints the win rate with its
interval and writes its results, parameters and learning curve. Skipped without the training
packages, and outside a checkout (the wheel's suite has no examples/)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from colorwars._files import read_sealed

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "ppo.py"

pytestmark = pytest.mark.skipif(
    not SCRIPT.is_file(), reason="the examples are not part of this copy of the suite"
)


@pytest.fixture(autouse=True)
def _training_packages() -> None:
    for package in ("jax", "flax", "optax", "gymnasium"):
        pytest.importorskip(package, reason=f"{package} is not installed (examples/ppo.py)")


@pytest.mark.slow
def test_a_few_seconds_of_training_print_a_win_rate_and_write_the_results(
    tmp_path: Path,
) -> None:
    results, params, curve = tmp_path / "ppo.json", tmp_path / "ppo.params", tmp_path / "c.png"
    args = ["--minutes", "0.05", "--eval-games", "4", "--curve-games", "2", "--num-envs", "8"]
    args += ["--num-steps", "8", "--seed", "3", "--json", str(results), "--save", str(params)]
    plotting = importlib.util.find_spec("matplotlib") is not None
    if plotting:
        args += ["--curve", str(curve)]
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "win rate against greedy:" in out.stdout
    assert "95% CI" in out.stdout

    data = json.loads(results.read_text(encoding="utf-8"))
    evaluation = data["evaluation"]
    assert evaluation["games"] == 4
    assert evaluation["first_mover"]["games"] == evaluation["second_mover"]["games"] == 2
    assert 0 <= data["win_rate"] <= 1
    low, high = data["interval95"]
    assert 0 <= low <= data["win_rate"] <= high <= 1
    assert data["timesteps"] > 0
    assert data["timesteps"] == data["updates"] * 8 * 8
    assert data["minutes"] > 0
    assert data["hardware"]["cpu_count"] is not None
    assert data["curve"], "at least the first and last points of the learning curve"

    sealed = read_sealed(params, "ppo-params", 1, "PPO parameters")
    assert sealed is not None
    header, body = sealed
    assert header["timesteps"] == data["timesteps"]
    assert body
    if plotting:
        assert curve.read_bytes().startswith(b"\x89PNG")
