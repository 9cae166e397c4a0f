"""Test collection for the whole repository: the adapter modules for optional extras
(``colorwars.gymnasium``, ``colorwars.pettingzoo``, ``colorwars.openspiel``) are collected for
their doctests only when their extra is installed, so ``pytest`` passes without extras."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Adapter module -> the package its extra installs.
EXTRAS = {"gymnasium.py": "gymnasium", "pettingzoo.py": "pettingzoo", "openspiel.py": "pyspiel"}


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    name = collection_path.name
    adapter = collection_path.parent.name == "colorwars" and name in EXTRAS
    if adapter and importlib.util.find_spec(EXTRAS[name]) is None:
        return True
    return None
