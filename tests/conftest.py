from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium (``$COLORWARS_CHROMIUM``, else ``/usr/bin/chromium``) driven
    by Playwright, for the web app's browser tests (which skip before this without either)."""
    from playwright import sync_api

    chromium_path = os.environ.get("COLORWARS_CHROMIUM", "/usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=chromium_path, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where a browser test saves its screenshots: ``$COLORWARS_SCREENSHOTS`` (the docs'
    pictures) or the test's temporary folder."""
    where = os.environ.get("COLORWARS_SCREENSHOTS")
    return Path(where) if where else tmp_path


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The torture suite's tally: inputs tried and Ctrl-C latencies (tests/torture_core.py)."""
    import sys

    torture = sys.modules.get("torture_core")
    if torture is not None:
        torture.summary(terminalreporter.write_line)
