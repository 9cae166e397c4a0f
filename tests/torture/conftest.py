"""Fixtures of the torture suite."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's cache goes to a temporary folder, never the user's."""
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(tmp_path / "cache"))
