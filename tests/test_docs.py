"""The front page and the docs site hold what a newcomer runs first (issue 18, "the newcomer's
stumbles"): the quick start works in any order on a fresh virtualenv, the install lines work
without a package index, the Ray example runs without a cluster, and the docs' figures come
from the files the benchmarks write."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CI = ROOT / ".ci" / "run"

pytestmark = pytest.mark.skipif(
    not (DOCS / "hooks.py").is_file() or not CI.is_file(),
    reason="the docs and CI script are not part of this copy of the suite",
)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def quick_start() -> list[str]:
    """The command lines of the README's quick start, in order."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## Quick start\n")
    end = text.index("\n## ", start + 1)
    blocks = re.findall(r"```sh\n(.*?)```", text[start:end], flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The quick start, in any order --------------------------------------------------------------


def test_quick_start_begins_with_the_two_commands() -> None:
    lines = quick_start()
    assert lines[:2] == [
        "pip install . && colorwars simulate",
        "pip install -e '.[test]' && pytest",
    ]


def test_quick_start_installs_with_extras_keep_the_checkout_editable() -> None:
    """A plain `pip install '.[web]'` after the editable test install replaced it, and pytest
    then imported colorwars from site-packages next to the checkout's python/colorwars."""
    lines = quick_start()
    extras = [line for line in lines if re.search(r"pip install [^&]*'\.\[", line)]
    assert extras, lines
    for line in extras:
        assert "pip install -e '.[" in line, f"{line!r} replaces the editable install"


def test_ci_runs_every_quick_start_line_in_order_then_pytest() -> None:
    ci = CI.read_text(encoding="utf-8")
    at = 0
    for line in quick_start():
        # `colorwars serve --open` blocks; CI runs the install verbatim, then checks the page.
        wanted = line.split(" && colorwars serve")[0]
        found = ci.find(wanted, at)
        assert found >= 0, f".ci/run does not run {wanted!r} after the lines before it"
        at = found + len(wanted)
    # (the run may be told where to note what it skipped: COLORWARS_LEFT_OUT=... pytest)
    assert re.search(
        r"^\s*(COLORWARS_LEFT_OUT=\S+\s+)?pytest\s*$", ci[at:].split("echo ==")[0], flags=re.M
    ), ".ci/run runs no pytest after the quick start's last line"


def test_module_doctests_left_out_when_colorwars_is_installed_elsewhere(tmp_path: Path) -> None:
    """After `pip install .`, colorwars comes from site-packages: collecting python/colorwars's
    doctests then failed with `import file mismatch`; now they are left out, and said so."""
    fake = tmp_path / "site" / "colorwars"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('"""An installed colorwars, not the checkout\'s."""\n')
    code = (
        "import sys, colorwars, pytest; "
        "sys.exit(pytest.main(['--collect-only', '-p', 'no:cacheprovider', "
        "'python/colorwars']))"
    )
    env = {**os.environ, "PYTHONPATH": str(fake.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    out = done.stdout + done.stderr
    assert "import file mismatch" not in out, out
    assert done.returncode in (0, 5), out  # 5: nothing collected
    assert "not this checkout" in out, out


# Install lines that work ---------------------------------------------------------------------


def test_install_lines_work_without_a_package_index() -> None:
    """colorwars is not on an index: `pip install 'colorwars[x]'` only as "once published"."""
    for page in pages():
        for paragraph in re.split(r"\n\s*\n", page.read_text(encoding="utf-8")):
            if re.search(r"pip install '?colorwars\b", paragraph):
                assert "published" in paragraph, (
                    f"{page.name}: an install from a package index that does not exist yet:\n"
                    f"{paragraph}"
                )


# The Ray example runs without a cluster ------------------------------------------------------


def test_ray_examples_show_the_local_form_first() -> None:
    for page in pages():
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
        ray = [b for b in blocks if 'backend="ray"' in b]
        if not ray:
            continue
        assert "address=" not in ray[0], f"{page.name}: the first Ray example needs a cluster"
        for block in ray:
            if "address=" in block:
                assert block.startswith("# needs a running Ray cluster"), block


# Figures from the benchmarks' files -----------------------------------------------------------


@pytest.mark.parametrize("name", ["simulate", "ai", "gymnasium"])
def test_results_files_are_stamped(name: str) -> None:
    data = json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())
    assert data["benchmark"] == name
    assert data["figures"]
    assert re.fullmatch(r"[0-9a-f]{7,}|unknown", data["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["date"])
    assert {"platform", "cpu_count", "cpu_model"} <= set(data["machine"])
    assert {"colorwars", "python"} <= set(data["versions"])


def test_every_placeholder_of_the_docs_is_filled() -> None:
    fill = hooks().fill
    for page in sorted(DOCS.glob("*.md")):
        text = fill(page.read_text(encoding="utf-8"), page.name)
        assert not re.search(r"(?<!`)\{\{\s*(bench|include):", text), page.name
    performance = fill((DOCS / "performance.md").read_text(encoding="utf-8"))
    assert "quick" in performance
    assert "M plies/s" in performance


def test_placeholders_format_and_fail_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = hooks()
    monkeypatch.setattr(module, "RESULTS", tmp_path)
    monkeypatch.setattr(module, "ROOT", tmp_path.parent)
    monkeypatch.setattr(module, "BENCHMARKS", tmp_path)
    stamp = {
        "commit": "abc1234",
        "date": "2026-01-02",
        "quick": True,
        "machine": {"platform": "Linux", "cpu_count": 2, "cpu_model": "CPU", "machine": "x"},
        "versions": {"colorwars": "0.1.0", "python": "3.11"},
    }
    figures = {
        "rate": 43_705_466.9,
        "share": 0.9918,
        "count": 1234,
        "runs": [230.96, 212.971],
        "sizes": [89_198_975, 1234],
    }
    (tmp_path / "x.json").write_text(json.dumps({**stamp, "figures": figures}))
    filled = module.fill(
        "{{ bench:x:rate | M.1f }} {{ bench:x:share | .1% }} {{ bench:x:count }} "
        "{{ bench:x:commit }} {{ bench:x:machine.cpu_model }} `{{ bench:x:rate }}`"
    )
    assert filled == "43.7 99.2% 1,234 abc1234 CPU `{{ bench:x:rate }}`"
    assert module.fill("{{ bench:x:runs | .1f }} / {{ bench:x:sizes }}") == (
        "231.0, 213.0 / 89,198,975, 1,234"
    )
    assert "quick run" in module.fill("{{ bench:x:stamp }}")
    # A missing file names the script that writes it, or says it is a script's results
    # under another name (`ladder.py --name ladder-classic`, `zero_goals.py --results ...`).
    (tmp_path / "bench_missing.py").write_text("")
    with pytest.raises(module.PlaceholderError, match=r"bench_missing\.py --quick"):
        module.fill("{{ bench:missing:rate }}", "page.md")
    (tmp_path / "goals.py").write_text("")
    with pytest.raises(module.PlaceholderError, match=r"run `python benchmarks/goals\.py`"):
        module.fill("{{ bench:goals:rate }}", "page.md")
    with pytest.raises(
        module.PlaceholderError, match=r"other\.json: no benchmark script.*--results other"
    ) as e:
        module.fill("{{ bench:other:rate }}", "page.md")
    assert "bench_other.py" not in str(e.value)
    with pytest.raises(module.PlaceholderError, match=r"page\.md.*no figure 'nope'"):
        module.fill("{{ bench:x:nope }}", "page.md")
    with pytest.raises(module.PlaceholderError, match="cannot format"):
        module.fill("{{ bench:x:commit | M.1f }}")


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="the docs extra is not installed")
def test_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        ["mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "performance" / "index.html").is_file()
