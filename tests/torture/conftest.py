"""Fixtures of the torture suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The torture suite drives POSIX: address-space limits (``resource``), signals such as SIGKILL
# and SIGTERM sent to children, ``os.fork``, ``flock``. On Windows (the release workflow's
# wheel test) it is not collected at all rather than failing to import.
if sys.platform == "win32":
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's cache goes to a temporary folder, never the user's."""
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "cache"))
