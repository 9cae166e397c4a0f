"""Test collection for the whole repository.

- The modules for optional extras (the adapters ``colorwars.gymnasium``,
  ``colorwars.pettingzoo``, ``colorwars.openspiel`` and the web app ``colorwars.web``) are
  collected for their doctests only when their extra is installed, so ``pytest`` passes
  without extras.
- The doctests of a ``colorwars`` package folder (``python/colorwars`` in this checkout, or the
  installed one that ``tools/test-wheel`` points the run at) are collected only when it is the
  ``colorwars`` that Python imports. After a plain ``pip install .`` (or ``pip install
  '.[web]'``), ``import colorwars`` finds site-packages, and collecting ``python/colorwars``
  would import each module a second time from the checkout ("import file mismatch"); those
  doctests are then left out, and the run's header says so.
- With ``COLORWARS_LEFT_OUT`` naming a file, a run appends to it, one per line, the node id
  of every test it skipped and the path of every extra's module it left out: ``.ci/run``
  runs the quick start's suite without extras, then, with the extras installed, runs what
  that file names ("runs everything else") rather than the whole suite a third time.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

# Module (or package folder) of colorwars -> the package its extra installs.
EXTRAS = {
    "gymnasium.py": "gymnasium",
    "pettingzoo.py": "pettingzoo",
    "openspiel.py": "pyspiel",
    "web": "starlette",
}

# Code in docs/ that is not a test (the mkdocs hooks).
collect_ignore = ["docs/hooks.py"]


def imported_package() -> Path | None:
    """The folder of the ``colorwars`` package that ``import colorwars`` gives, or None."""
    try:
        spec = importlib.util.find_spec("colorwars")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(os.path.realpath(spec.origin)).parent


def package_folder(path: Path) -> Path | None:
    """The ``colorwars`` package folder that ``path`` is in (or is), or None."""
    for folder in (path, *path.parents):
        if folder.name == "colorwars" and (folder / "__init__.py").is_file():
            return folder
    return None


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    package = package_folder(collection_path)
    if package is None:
        return None
    if imported_package() != Path(os.path.realpath(package)):
        return True
    name = collection_path.name
    adapter = collection_path.parent.name == "colorwars" and name in EXTRAS
    if adapter and importlib.util.find_spec(EXTRAS[name]) is None:
        left_out(str(collection_path))
        return True
    return None


def left_out(what: str) -> None:
    """Note a test skipped, or a module left out, in ``$COLORWARS_LEFT_OUT`` (if set)."""
    where = os.environ.get("COLORWARS_LEFT_OUT")
    if not where:
        return
    root = Path(__file__).parent
    path = Path(what.split("::", 1)[0])
    if path.is_absolute():  # a module left out: named from the repository, as node ids are
        what = str(path.relative_to(root)) if path.is_relative_to(root) else what
    with open(where, "a", encoding="utf-8") as f:
        f.write(what + "\n")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:  # a whole module skipped (pytest.importorskip at its top)
        left_out(report.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        left_out(report.nodeid)


def pytest_report_header(config: pytest.Config) -> str | None:
    imported = imported_package()
    here = Path(os.path.realpath(Path(__file__).parent / "python" / "colorwars"))
    if here.is_dir() and imported is not None and imported != here:
        return (
            f"colorwars is imported from {imported}, not this checkout: the doctests of "
            "python/colorwars are not collected (pip install -e . to include them)"
        )
    return None
