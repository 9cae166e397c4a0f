"""The torture suite: the solver's cache: a poisoned entry is never handed back as a Solution."""

from __future__ import annotations

from pathlib import Path

import colorwars
import pytest
import torture_core as tc

from torture.common import (
    _same,
)


def test_poisoned_solver_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    findings = tc.Findings()
    truth = colorwars.solve(2, 3, rules="classic", cache=False)
    good = {
        "width": 2,
        "height": 3,
        "rules": "classic",
        "winner": truth.winner,
        "plies": truth.plies,
        "line": truth.line,
        "positions": 1,
        "seconds": 0.0,
    }
    poisons: list[object] = [
        {**good, "winner": 5},
        {**good, "winner": -1},
        {**good, "winner": "a"},
        {**good, "plies": -3},
        {**good, "plies": "7"},
        {**good, "line": [999, -1]},
        {**good, "line": "c3"},
        {**good, "line": None},
        {**good, "width": 9},
        {**good, "rules": "colorwars"},
        {**good, "positions": None, "seconds": "x"},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "line"},
        [],
        "solved",
        None,
        {**good, "line": [0] * 10**5},
    ]
    cache = tmp_path / "poison"
    monkeypatch.setenv("COLORWARS_CACHE_DIR", str(cache))
    cache.mkdir()
    from colorwars._files import seal
    from colorwars.solver import CACHE_FORMAT, CACHE_KIND, _cache_key

    key = _cache_key(2, 3, "classic")
    for poison in poisons:
        # Sealed with a good checksum: the entry itself is still checked before it is used.
        sealed = seal(CACHE_KIND, CACHE_FORMAT, {"entries": {key: poison}})
        (cache / "solutions.cache").write_bytes(sealed)
        example = f"solve(2, 3, rules='classic') with the cache entry {tc.safe_repr(poison)}"
        out = tc.probe(
            findings, "solve", "solve (cache)", example, colorwars.solve, 2, 3, rules="classic"
        )
        if out.ok and not _same(out.value, truth):
            findings.add("solve (cache)", "handed back a poisoned cache entry", example)
    for raw in [b"\xff\xfe", b"{", b"[1, 2]", b'{"2x3 classic": 1e999}', b"\x00" * 100]:
        (cache / "solutions.cache").write_bytes(raw)
        example = f"solve(2, 3, rules='classic') with the cache file {raw!r:.40}"
        out = tc.probe(
            findings, "solve", "solve (cache)", example, colorwars.solve, 2, 3, rules="classic"
        )
        if out.ok and not _same(out.value, truth):
            findings.add("solve (cache)", "handed back a wrong solution", example)
    findings.check()
