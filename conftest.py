"""Test collection for the whole repository: the modules for optional extras (the adapters
``colorwars.gymnasium``, ``colorwars.pettingzoo``, ``colorwars.openspiel`` and the web app
``colorwars.web``) are collected for their doctests only when their extra is installed, so
``pytest`` passes without extras."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Module (or package folder) of colorwars -> the package its extra installs.
EXTRAS = {
    "gymnasium.py": "gymnasium",
    "pettingzoo.py": "pettingzoo",
    "openspiel.py": "pyspiel",
    "web": "starlette",
}


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    name = collection_path.name
    adapter = collection_path.parent.name == "colorwars" and name in EXTRAS
    if adapter and importlib.util.find_spec(EXTRAS[name]) is None:
        return True
    return None
