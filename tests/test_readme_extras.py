"""The docs' examples for the optional extras (Gymnasium, PettingZoo, OpenSpiel, Ray, the web
app) are scripts (```python blocks) rather than doctests (```pycon), so that the pages' own
doctests pass without any extra; each runs here when its extra is installed, and is skipped
cleanly when it is not. A script whose first line is a ``# needs ...`` comment (the Ray
cluster form: ``# needs a running Ray cluster``) is shown, not run."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"

# (docs page, section heading) -> the package its extra installs.
SECTIONS = {
    ("adapters.md", "## Gymnasium"): "gymnasium",
    ("adapters.md", "## PettingZoo"): "pettingzoo",
    ("adapters.md", "## OpenSpiel"): "pyspiel",
    ("adapters.md", "## Ray: simulation on a cluster"): "ray",
    ("web.md", "## The HTTP API"): "starlette",
}


def section(page: str, heading: str) -> str:
    """The text of a page's section, from its heading to the next heading of its level."""
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    level = heading.split(" ", 1)[0]
    following = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", text, flags=re.M)]
    end = next((k for k in following if k > start), len(text))
    return text[start:end]


def scripts(page: str, heading: str) -> list[str]:
    """The ```python blocks of a section that are scripts to run (not doctests, not shown-only
    forms that start with a ``# needs`` comment)."""
    blocks = re.findall(r"```python\n(.*?)```", section(page, heading), flags=re.S)
    return [b for b in blocks if not b.lstrip().startswith((">>>", "# needs"))]


@pytest.mark.parametrize(("page", "heading"), sorted(SECTIONS))
def test_docs_example_runs(page: str, heading: str) -> None:
    if not DOCS.is_dir():
        pytest.skip("the docs pages are not part of this copy of the suite")
    package = SECTIONS[page, heading]
    found = scripts(page, heading)
    assert found, f"docs/{page}'s {heading!r} section has no runnable example"
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"the {package} extra is not installed")
    for code in found:
        exec(compile(code, f"docs/{page} {heading}", "exec"), {"__name__": "__docs__"})
