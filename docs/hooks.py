"""mkdocs hooks (mkdocs.yml `hooks:`): the docs' figures come from the files the benchmarks
write, and the rules page shows the one rules document.

- ``{{ bench:NAME:KEY }}`` is the figure ``KEY`` of ``benchmarks/results/NAME.json`` (written
  by ``benchmarks/bench_NAME.py``); ``{{ bench:NAME:KEY | SPEC }}`` formats it, where ``SPEC``
  is a Python format spec, optionally after a scale: ``M`` (millions), ``k`` (thousands) or
  ``u`` (micro), so ``{{ bench:simulate:8x8_classic:native_plies_per_second | M.1f }}`` is
  ``43.7``. A list of figures (a benchmark's runs) is each of them so formatted, separated by
  commas. A ``KEY`` that is not a figure is read from the file's stamp (``commit``,
  ``date``, ``machine.cpu_model``, ``versions.python``, ...); ``{{ bench:NAME:stamp }}`` says
  in a sentence what was measured where.
- ``{{ include:PATH }}`` is the text of ``PATH`` (from the top of the repository), its headings
  one level down.
- ``{{ solved:table }}`` is the table of solved boards, from ``seeds/solved.json``.

A placeholder right after a backtick (`` `{{ bench:NAME:KEY }}` ``, in code) is left as it
is, so pages can show the syntax. A missing file, a missing key or a bad spec stops the build
with a message that names the page, the placeholder and what to run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
PLACEHOLDER = re.compile(r"\{\{\s*(bench|include|solved):([^}|]+?)\s*(?:\|\s*([^}]*?)\s*)?\}\}")
SCALES = {"M": 1e6, "k": 1e3, "u": 1e-6}


class PlaceholderError(Exception):
    """A placeholder that cannot be filled (mkdocs reports it and stops the build)."""


def _load(name: str) -> dict[str, Any]:
    path = RESULTS / f"{name}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlaceholderError(
            f"no benchmark results {path.relative_to(ROOT)}: {_writer(name)}"
        ) from None
    except (OSError, ValueError) as error:
        raise PlaceholderError(f"cannot read {path.relative_to(ROOT)}: {error}") from None
    return data


def _writer(name: str) -> str:
    """What to run to write ``results/<name>.json``: ``bench_<name>.py`` or ``<name>.py`` if
    there is one, else a script's results written under another name."""
    if (BENCHMARKS / f"bench_{name}.py").is_file():
        return f"run `python benchmarks/bench_{name}.py --quick` (or without --quick) to write it"
    if (BENCHMARKS / f"{name}.py").is_file():
        return f"run `python benchmarks/{name}.py` to write it"
    return (
        f"no benchmark script is named after it: it is written by one run with "
        f"`--name {name}` or `--results {name}` (the page that shows it gives the command)"
    )


def stamp(data: dict[str, Any]) -> str:
    """What a result file says about its run, as a sentence's part."""
    machine, versions = data["machine"], data["versions"]
    kind = "a quick run (`--quick`)" if data.get("quick") else "a full run"
    return (
        f"{kind} at commit {data['commit']} on {data['date']}: {machine['cpu_count']} CPUs, "
        f"{machine['cpu_model']}, {machine['platform']}, Python {versions['python']}, "
        f"colorwars {versions['colorwars']}"
    )


def figure(name: str, key: str, spec: str | None = None) -> str:
    """The text of ``{{ bench:name:key | spec }}``."""
    data = _load(name)
    where = f"benchmarks/results/{name}.json"
    if key == "stamp":
        return stamp(data)
    figures = data.get("figures", {})
    if key in figures:
        value = figures[key]
    else:
        value = data
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                known = ", ".join(sorted(figures))
                raise PlaceholderError(f"{where} has no figure {key!r} (it has: {known})")
            value = value[part]
    if isinstance(value, list):
        # A list of figures (a benchmark's runs): each formatted, in the list's order.
        return ", ".join(_format(v, spec, key, where) for v in value)
    return _format(value, spec, key, where)


def _format(value: Any, spec: str | None, key: str, where: str) -> str:
    """One figure as text: ``spec`` (with its scale) if given, else thousands separated."""
    if not spec:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return str(value)
        return f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"
    scale = SCALES.get(spec[0], 1.0)
    fmt = spec[1:] if spec[0] in SCALES else spec
    try:
        return format(value / scale if scale != 1.0 else value, fmt)
    except (TypeError, ValueError) as error:
        raise PlaceholderError(f"cannot format {key!r} of {where} as {spec!r}: {error}") from None


def include(path: str) -> str:
    """The text of ``path``, its headings one level down (under the page's title)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if line.startswith("#") and not fenced else line)
    return "\n".join(out) + "\n"


def solved_table() -> str:
    """``seeds/solved.json`` as a Markdown table."""
    path = ROOT / "seeds" / "solved.json"
    try:
        boards = json.loads(path.read_text(encoding="utf-8"))["boards"]
    except (OSError, ValueError, KeyError) as error:
        raise PlaceholderError(f"cannot read {path.relative_to(ROOT)}: {error}") from None
    lines = [
        "| board | rules | winner | plies | positions | method | s | command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for b in boards:
        who = {"a": "a (first)", "b": "b (second)"}[b["winner"]]
        plies = "not known" if b["plies"] is None else str(b["plies"])
        method = {
            "alphabeta": "alpha-beta",
            "pn": "proof-number",
            "length": "depth-bounded proof-number",
        }[b["method"]]
        lines.append(
            f"| {b['board']} | {b['rules']} | {who} | {plies} | {b['positions']:,} | {method} "
            f"| {b['seconds']:g} | `{b['command']}` |"
        )
    notes = [f"- {b['board']} {b['rules']}: {b['note']}." for b in boards if b.get("note")]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def fill(markdown: str, page: str = "a page") -> str:
    """``markdown`` with every placeholder filled."""

    def one(match: re.Match[str]) -> str:
        if match.start() > 0 and markdown[match.start() - 1] == "`":
            return match.group(0)  # code that shows the syntax
        kind, body, spec = match.group(1), match.group(2).strip(), match.group(3)
        try:
            if kind == "include":
                return include(body)
            if kind == "solved":
                if body != "table":
                    raise PlaceholderError("the solved boards are written {{ solved:table }}")
                return solved_table()
            name, sep, key = body.partition(":")
            if not sep or not key:
                raise PlaceholderError("a figure is written {{ bench:NAME:KEY }}")
            return figure(name.strip(), key.strip(), spec)
        except (PlaceholderError, OSError) as error:
            raise PlaceholderError(f"{page}: {match.group(0)}: {error}") from None

    return PLACEHOLDER.sub(one, markdown)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """mkdocs' hook: fills the page's placeholders, or stops the build."""
    try:
        return fill(markdown, page.file.src_path)
    except PlaceholderError as error:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(error)) from None
