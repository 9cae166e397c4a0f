from __future__ import annotations

import os
from typing import Any

import colorwars
import pytest
from colorwars import reference
from hypothesis import HealthCheck, settings

# CI runs a bounded number of examples; `HYPOTHESIS_PROFILE=thorough` for a longer hunt.
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

ENGINES = {"native": colorwars.Game, "reference": reference.Game}


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Any:
    """Each test that takes `engine` runs once on each engine."""
    return ENGINES[request.param]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The torture suite's tally: inputs tried and Ctrl-C latencies (tests/torture_core.py)."""
    import sys

    torture = sys.modules.get("torture_core")
    if torture is not None:
        torture.summary(terminalreporter.write_line)
