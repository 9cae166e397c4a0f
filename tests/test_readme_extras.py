"""The README's examples for the optional extras (Gymnasium, PettingZoo, OpenSpiel, the web
app) are scripts rather than doctests, so that the README's own doctest passes without any
extra; each runs here when its extra is installed."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

# README section -> the package its extra installs.
SECTIONS = {
    "## PettingZoo": "pettingzoo",
    "## Gymnasium": "gymnasium",
    "## OpenSpiel": "pyspiel",
    "## Web app": "starlette",
}


def scripts(heading: str) -> list[str]:
    """The ```python blocks of a README section that are scripts (not doctests)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    section = text[start : end if end >= 0 else len(text)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return [b for b in blocks if not b.lstrip().startswith(">>>")]


@pytest.mark.parametrize("heading", sorted(SECTIONS))
def test_readme_example_runs(heading: str) -> None:
    if importlib.util.find_spec(SECTIONS[heading]) is None:
        pytest.skip(f"the {SECTIONS[heading]} extra is not installed")
    found = scripts(heading)
    assert found, f"the README's {heading!r} section has no runnable example"
    for code in found:
        exec(compile(code, f"README {heading}", "exec"), {"__name__": "__readme__"})
