"""Lays out the test suite to run against an installed wheel, outside the source tree.

    python tools/wheel_suite.py DEST [--site SITE]

DEST gets tests/, seeds/, README.md, the root conftest.py (as the plugin ``repo_conftest``),
a plugin ``wheel_check`` and a pyproject.toml with this checkout's pytest settings, whose
``python/colorwars`` test path points at SITE/colorwars instead: run from the checkout, pytest
would import python/colorwars rather than the wheel. SITE is the site-packages folder the wheel
is installed in (by default this interpreter's), as the Python that runs the suite sees it: under
emulation that is a path inside the emulated root. Run pytest from DEST, with DEST on the
import path (``python -m pytest`` from DEST does that).

``tools/test-wheel`` uses it on this machine (natively and under emulation) and the release
workflow (.github/workflows/release.yml) on each platform's runner, so it is plain Python with
no dependency and no POSIX-only path handling.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Fails the run if any colorwars module it imported did not come from the installed wheel.
WHEEL_CHECK = '''"""Fails the run if a colorwars module it imported is not the installed wheel's."""

import os
import sys

import pytest

SITE = os.path.normcase(os.path.realpath({site!r}))


def _inside(path: str) -> bool:
    return os.path.normcase(os.path.realpath(path)).startswith(os.path.join(SITE, ""))


def pytest_sessionfinish(session: pytest.Session) -> None:
    outside = sorted(
        f"{{name}}: {{getattr(module, '__file__', None)}}"
        for name, module in list(sys.modules.items())
        if (name == "colorwars" or name.startswith("colorwars."))
        and not _inside(getattr(module, "__file__", None) or os.sep)
    )
    if outside:
        print("\\ncolorwars modules imported from outside the wheel:", *outside, sep="\\n  ")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
'''


def pytest_settings(site: str) -> str:
    """pyproject.toml's pytest settings, with ``python/colorwars`` read from ``site``."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    source = pyproject["tool"]["maturin"]["python-source"]
    options = dict(pyproject["tool"]["pytest"]["ini_options"])
    options["testpaths"] = [
        site + path.removeprefix(source) if path.startswith(source + "/") else path
        for path in options["testpaths"]
    ]
    plugins = ["-p", "repo_conftest", "-p", "wheel_check"]
    addopts = options.get("addopts", [])
    options["addopts"] = (addopts.split() if isinstance(addopts, str) else addopts) + plugins
    lines = ["[tool.pytest.ini_options]"]
    # A JSON string or list is a TOML one too (the same escapes).
    lines += [f"{key} = {json.dumps(value)}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="a folder to create (it must not exist)")
    parser.add_argument(
        "--site",
        default=sysconfig.get_path("purelib"),
        help="site-packages holding the installed wheel (default: this Python's)",
    )
    args = parser.parse_args()
    if args.dest.exists():
        print(f"wheel_suite.py: {args.dest} already exists", file=sys.stderr)
        return 2
    # A copy (mkdir, not the caller's temporary folder) leaves no stale files behind.
    args.dest.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".hypothesis")
    for folder in ("tests", "seeds"):
        shutil.copytree(ROOT / folder, args.dest / folder, ignore=skip)
    shutil.copy(ROOT / "README.md", args.dest / "README.md")
    # The root conftest.py (it skips the doctests of adapters whose extra is missing) must also
    # see the modules in site-packages, outside the suite's folder, where a conftest does not
    # reach: so it is loaded as a plugin instead.
    shutil.copy(ROOT / "conftest.py", args.dest / "repo_conftest.py")
    (args.dest / "wheel_check.py").write_text(WHEEL_CHECK.format(site=args.site))
    settings = pytest_settings(args.site)
    (args.dest / "pyproject.toml").write_text(settings)
    print(settings, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
