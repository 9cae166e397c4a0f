"""The conformance suite (seeds/conformance/, colorwars.conformance): its data agrees with both
engines, is sealed by its manifest and regenerates byte for byte; it detects an engine that
breaks any one rule; and it runs through the engine protocol against colorwars' own engine
and against broken ones."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib.machinery
import importlib.util
import json
import shutil
import sys
import textwrap
from collections import Counter, deque
from pathlib import Path
from types import ModuleType
from typing import Any

import colorwars
import pytest
from colorwars import conformance, reference
from colorwars._common import PLAYER_LETTERS, Wave
from colorwars.errors import ConfigError, EngineError, FileError, IllegalMoveError

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds" / "conformance"
GENERATOR = ROOT / "tools" / "make-conformance"
#: The reference engine counts perft depths up to this many distinct positions summed from
#: depth 1 (every move case, and most of the depths it counted itself, in a few seconds).
REFERENCE_PERFT_POSITIONS = 1500
#: Through the protocol, perft is bounded more tightly (four requests a move).
ENGINE_PERFT_POSITIONS = 100
ENGINE = [sys.executable, "-m", "colorwars", "engine"]


@pytest.fixture(scope="module")
def suite() -> conformance.Suite:
    return conformance.load(SEEDS)


def test_the_suite_covers_the_game(suite: conformance.Suite) -> None:
    cases = suite.cases
    assert {c.kind for c in cases} == set(conformance.KINDS)
    assert {c.rules.name for c in cases} == set(conformance.RULE_SETS)
    for kind in conformance.KINDS:
        rules = {c.rules.name for c in cases if c.kind == kind}
        # never-settles and opening cases exist for every rule set too (RULES.md §3.3, §2)
        assert rules == set(conformance.RULE_SETS), kind
    sizes = {(c.width, c.height) for c in cases}
    assert {(2, 2), (32, 32)} <= sizes
    assert any(w != h for w, h in sizes)
    assert len(sizes) >= 20
    assert {c.players for c in cases} == set(range(2, 9))
    moves = [c for c in cases if isinstance(c, conformance.MoveCase)]
    tags = Counter(t for c in moves for t in c.tags)
    for tag in ("drop", "gain2", "excess", "cut", "never-settles", "eliminates-several", "skips",
                "opening-cell-bursts", "opening-cell-rests"):  # fmt: skip
        assert tags[tag] >= 10, tag
    # RULES.md §3.3: cascades that never settle under both bursts (orbs go round for ever under
    # empty too, while every bursting cell holds exactly its critical mass).
    assert {c.rules.burst for c in moves if "never-settles" in c.tags} == {"empty", "subtract"}
    perft = [c for c in cases if isinstance(c, conformance.PerftCase)]
    assert sum(c.complete for c in perft) >= 20
    assert {d.engine for c in perft for d in c.depths} == {"reference", "native"}


def test_every_native_depth_follows_reference_depths(suite: conformance.Suite) -> None:
    """The native engine counted only the deep levels, after the reference engine counted
    every depth before them (the generator checks that the two agreed on those)."""
    for case in suite.cases:
        if isinstance(case, conformance.PerftCase):
            engines = [d.engine for d in case.depths]
            assert engines[0] == "reference", case.id
            assert engines == sorted(engines, key=lambda e: e == "native"), case.id


def test_the_native_engine_passes_every_case(suite: conformance.Suite) -> None:
    report = conformance.check_native(suite)
    assert report.failed == []
    assert len(report.results) == len(suite.cases)
    assert report.ok


@pytest.mark.slow
def test_the_reference_engine_passes_every_move_case(suite: conformance.Suite) -> None:
    """Every move case, and the perft depths within REFERENCE_PERFT_POSITIONS positions."""
    report = conformance.check_reference(suite, perft_positions=REFERENCE_PERFT_POSITIONS)
    assert report.failed == []
    assert len(report.results) == len(suite.cases)


def test_the_cases_are_what_their_tags_say(suite: conformance.Suite) -> None:
    """RULES.md §2, §3.3, §3.6: the tags match the positions (a check of the generator)."""
    for case in suite.cases:
        if not isinstance(case, conformance.MoveCase):
            continue
        b, a = case.before, case.after
        assert case.cell in b.legal
        assert ("wins" in case.tags) == (a.winner is not None)
        assert ("bursts" in case.tags) == bool(case.waves)
        assert ("eliminates" in case.tags) == (set(a.out) > set(b.out))
        if "drop" in case.tags:
            # RULES.md §2: the drop puts three orbs on an empty cell and never bursts.
            assert (b.counts[case.cell], a.counts[case.cell], case.waves) == (0, 3, ())
        if a.winner is not None:
            assert (a.to_move, a.legal) == (a.winner, ())
        if case.waves:
            assert (case.waves[-1].counts, case.waves[-1].owners) == (a.counts, a.owners)


# -- the data is sealed ---------------------------------------------------------------------------
def test_the_manifest_seals_every_file() -> None:
    manifest = json.loads((SEEDS / "manifest.json").read_text())
    assert manifest["format"] == conformance.FORMAT
    assert manifest["version"] == conformance.VERSION
    names = {e["name"] for e in manifest["files"]}
    assert names == {p.name for p in SEEDS.glob("*.jsonl")}
    for entry in manifest["files"]:
        data = (SEEDS / entry["name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert len(data) == entry["bytes"]
        assert data.count(b"\n") == entry["cases"]
    total = sum(p.stat().st_size for p in SEEDS.iterdir())
    assert total < 2_500_000  # the suite stays small enough to ship in a repository


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "conformance"
    shutil.copytree(SEEDS, folder)
    return folder


def _reseal(folder: Path) -> None:
    """Rewrites the manifest to match the files (to get past the digests)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["files"]:
        data = (folder / entry["name"]).read_bytes()
        entry["bytes"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
        entry["cases"] = data.count(b"\n")
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_an_edited_file_is_named(copy: Path) -> None:
    path = copy / "order.jsonl"
    data = bytearray(path.read_bytes())
    data[100] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(FileError, match=r"order\.jsonl: its SHA-256 does not match"):
        conformance.load(copy)


def test_a_truncated_file_is_named(copy: Path) -> None:
    path = copy / "perft.jsonl"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(FileError, match=r"perft\.jsonl: it is \d+ bytes where the manifest says"):
        conformance.load(copy)


def test_a_missing_file_is_named(copy: Path) -> None:
    (copy / "random.jsonl").unlink()
    with pytest.raises(FileError, match=r"missing conformance file .*random\.jsonl"):
        conformance.load(copy)


def test_a_bad_line_is_named_with_its_number(copy: Path) -> None:
    path = copy / "opening.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    case = json.loads(lines[4])
    case["after"]["counts"] = case["after"]["counts"][:-1]  # one cell short
    lines[4] = json.dumps(case) + "\n"
    path.write_text("".join(lines))
    _reseal(copy)
    with pytest.raises(FileError, match=r"opening\.jsonl, line 5: after: counts is not"):
        conformance.load(copy)
    lines[4] = "{not json\n"
    path.write_text("".join(lines))
    _reseal(copy)
    with pytest.raises(FileError, match=r"opening\.jsonl, line 5"):
        conformance.load(copy)


def test_a_manifest_of_another_version_or_none(copy: Path, tmp_path: Path) -> None:
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["version"] = 2
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(FileError, match="it is version 2 and this colorwars reads version 1"):
        conformance.load(copy)
    (copy / "manifest.json").write_text("[")
    with pytest.raises(FileError, match=r"manifest\.json: not JSON"):
        conformance.load(copy)
    with pytest.raises(FileError, match=r"missing conformance file .*manifest\.json"):
        conformance.load(tmp_path / "nowhere")


def test_an_installed_package_without_the_data_says_where_to_find_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed (no checkout around the package) and run elsewhere: the message names the
    current folder and the way out, not the package's own folder inside the virtualenv."""
    package = tmp_path / "venv" / "lib" / "site-packages" / "colorwars"
    monkeypatch.setattr(conformance, "__file__", str(package / "conformance.py"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileError) as caught:
        conformance.load()
    message = str(caught.value)
    assert f"no conformance data in {tmp_path / 'seeds' / 'conformance'}:" in message
    assert "site-packages" not in message
    assert "run from a checkout, or give its folder (colorwars conformance --data" in message


def test_selecting_an_unknown_kind_or_rule_set(suite: conformance.Suite) -> None:
    with pytest.raises(ConfigError, match="unknown kind perfect"):
        suite.select(kinds=["perfect"])
    with pytest.raises(ConfigError, match="unknown rule set chess"):
        suite.select(rules=["chess"])
    assert {c.kind for c in suite.select(kinds=["order"], rules=["classic"])} == {"order"}
    # One name given alone is that name: "order" was read as the kinds o, r, d and e.
    assert suite.select(kinds="order", rules="classic") == suite.select(["classic"], ["order"])
    report = conformance.check_native(suite, rules="classic", kinds="order")
    assert report.ok
    assert {r.kind for r in report.results} == {"order"}
    # The go cases too, and an id alone ("move-1" was read as the ids m, o, v, ...).
    one = conformance.go_cases(suite, rules="classic")
    assert one
    assert one == conformance.go_cases(suite, rules=["classic"])
    first = suite.cases[0].id
    assert suite.select(ids=first) == suite.select(ids=[first]) == [suite.cases[0]]


# -- regeneration -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generator() -> ModuleType:
    if not GENERATOR.is_file():
        pytest.skip("tools/make-conformance is not here (the suite runs outside the checkout)")
    loader = importlib.machinery.SourceFileLoader("make_conformance", str(GENERATOR))
    spec = importlib.util.spec_from_loader("make_conformance", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_conformance"] = module  # its dataclasses look their module up
    try:
        loader.exec_module(module)
    finally:
        del sys.modules["make_conformance"]
    return module


@pytest.mark.parametrize("kind", ["order", "decided", "never-settles", "opening", "elimination"])
def test_a_kind_regenerates_byte_for_byte(generator: ModuleType, tmp_path: Path, kind: str) -> None:
    generator.main(["--out", str(tmp_path), "--kinds", kind])
    assert (tmp_path / f"{kind}.jsonl").read_bytes() == (SEEDS / f"{kind}.jsonl").read_bytes()


def _committed_lines(kind: str) -> dict[str, str]:
    lines = (SEEDS / f"{kind}.jsonl").read_text().splitlines(keepends=True)
    return {json.loads(line)["id"]: line for line in lines}


def test_random_and_cascade_cases_regenerate(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The random and cascade cases of a few boards (all of them take seconds more); each
    case's choices are seeded by its name alone, so a part regenerates as the whole does."""
    monkeypatch.setattr(generator, "RANDOM_BOARDS", [(2, 2, (2, 3, 4)), (12, 5, (3,))])
    monkeypatch.setattr(generator, "CASCADE_BOARDS", [(3, 3, 2, 6), (12, 5, 4, 2)])
    for kind, boards in (("random", ("-2x2-", "-12x5-")), ("cascade", ("-3x3-", "-12x5-"))):
        committed = _committed_lines(kind)
        fresh = [conformance.dump_line(r) for r in getattr(generator, f"{kind}_cases")()]
        ids = [json.loads(line)["id"] for line in fresh]
        assert set(ids) == {i for i in committed if any(b in i for b in boards)}
        assert all(line == committed[i] for i, line in zip(ids, fresh, strict=True))


def test_perft_cases_regenerate(generator: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generator, "PERFT_BOARDS", [(2, 2, 3, 0), (3, 2, 2, 0), (4, 4, 4, 0)])
    committed = _committed_lines("perft")
    for record in generator.perft_cases():
        assert conformance.dump_line(record) == committed[record["id"]]


# -- broken rules are detected ------------------------------------------------------------------
class NeverSettlesError(RuntimeError):
    """A cascade that repeats a board: without the stop it would never end."""


@dataclasses.dataclass(frozen=True)
class Rulebook:
    """The rules of RULES.md, with switches that each break one of them."""

    capacity_is_degree: bool = False  # §1: a cell holds its degree at rest, not degree - 1
    drop_is_arrival: bool = False  # §2: the drop3 drop bursts like an arrival
    drop_one: bool = False  # §2: the drop3 opening is one orb
    scan_all: bool = False  # §2: every cell above capacity is unstable, untouched or not
    burst_swapped: bool = False  # §2: empty and subtract swapped
    no_stop: bool = False  # §3.3: the cascade runs on once the game is decided
    order: str = "waves"  # §3.1: "waves", or one cell at a time from a "queue" or a "stack"


class SmallEngine:
    """A second small implementation of the rules, written here from RULES.md (it reads the
    notation through the reference engine, and nothing else of it), so that one rule can be
    broken at a time."""

    def __init__(self, text: str, book: Rulebook) -> None:
        g = reference.Game.from_text(text)
        self.book = book
        self.width, self.height, self.players, self.rules = g.width, g.height, g.players, g.rules
        self._counts, self._owners = g.counts(), g.owners()
        self.to_move, self._moved, self._out = g.to_move, set(g.moved), set(g.out)
        self.winner, self.ply = g.winner, g.ply
        self._waves: list[Wave] = []
        self._history: list[tuple[Any, ...]] = []

    # RULES.md §1
    def _neighbours(self, c: int) -> list[int]:
        w, h = self.width, self.height
        x, y = c % w, c // w
        near = ((c - w, y > 0), (c - 1, x > 0), (c + 1, x < w - 1), (c + w, y < h - 1))
        return [n for n, on_board in near if on_board]

    def _capacity(self, c: int) -> int:
        return len(self._neighbours(c)) - (0 if self.book.capacity_is_degree else 1)

    # RULES.md §2
    def legal_moves(self) -> list[int]:
        if self.winner is not None:
            return []
        p, cells = self.to_move, range(len(self._counts))
        if self.rules.opening == "drop3":
            if p not in self._moved:
                return [c for c in cells if self._counts[c] == 0]
            return [c for c in cells if self._owners[c] == p]
        return [c for c in cells if self._counts[c] == 0 or self._owners[c] == p]

    def _burst(self, cells: list[int], mover: int) -> None:
        empty = (self.rules.burst == "empty") != self.book.burst_swapped
        for c in cells:
            self._counts[c] = 0 if empty else self._counts[c] - len(self._neighbours(c))
        for c in cells:
            for n in self._neighbours(c):
                self._counts[n] += 1
                self._owners[n] = mover
        for c in cells:
            if self._counts[c] == 0:
                self._owners[c] = -1

    def _decided(self, mover: int, active: bool) -> bool:
        # RULES.md §3.3
        if self.book.no_stop or not active:
            return False
        return all(o == mover for o, n in zip(self._owners, self._counts, strict=True) if n)

    def play(self, cell: int) -> int:
        if cell not in self.legal_moves():
            raise IllegalMoveError(f"illegal move {cell}")
        self._history.append(
            (list(self._counts), list(self._owners), self.to_move, set(self._moved),
             set(self._out), self.winner, self.ply, self._waves)
        )  # fmt: skip
        mover = self.to_move
        first = mover not in self._moved
        self._moved.add(mover)
        self.ply += 1
        active = len(self._moved) == self.players  # RULES.md §1: the elimination check
        if self.rules.opening == "drop3" and first and not self.book.drop_one:
            self._counts[cell], self._owners[cell] = 3, mover
            arrived = self.book.drop_is_arrival
        else:
            self._counts[cell] += 1
            self._owners[cell] = mover
            arrived = True
        unstable = [cell] if arrived and self._counts[cell] > self._capacity(cell) else []
        self._waves = self._cascade(unstable, mover, active)
        # RULES.md §3.6
        if active:
            for p in range(self.players):
                if p != mover and p not in self._out and p not in self._owners:
                    self._out.add(p)
            if len(self._out) == self.players - 1:
                self.winner = mover
        for step in range(1, self.players + 1):
            if (mover + step) % self.players not in self._out:
                self.to_move = (mover + step) % self.players
                break
        return cell

    def _cascade(self, unstable: list[int], mover: int, active: bool) -> list[Wave]:
        waves: list[Wave] = []
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

        def after(bursts: list[int]) -> Wave:
            wave = Wave(tuple(bursts), tuple(self._counts), tuple(self._owners))
            if (wave.counts, wave.owners, wave.bursts) in seen:
                raise NeverSettlesError("the cascade repeats a board: it would never end")
            seen.add((wave.counts, wave.owners, wave.bursts))
            waves.append(wave)
            return wave

        if self.book.order == "waves":  # RULES.md §3.1
            while unstable:
                self._burst(unstable, mover)
                after(unstable)
                if self._decided(mover, active):
                    break
                touched = set(range(len(self._counts))) if self.book.scan_all else set(unstable)
                for c in unstable:
                    touched.update(self._neighbours(c))
                unstable = sorted(c for c in touched if self._counts[c] > self._capacity(c))
        else:
            pending = deque(unstable)
            while pending:
                c = pending.popleft() if self.book.order == "queue" else pending.pop()
                if self._counts[c] <= self._capacity(c):
                    continue
                self._burst([c], mover)
                if len(waves) > 10 * len(self._counts):
                    raise NeverSettlesError("the cascade goes on and on")
                waves.append(Wave((c,), tuple(self._counts), tuple(self._owners)))
                if self._decided(mover, active):
                    break
                pending.extend(n for n in [c, *self._neighbours(c)]
                               if self._counts[n] > self._capacity(n))  # fmt: skip
        return waves

    def pop(self) -> int:
        (self._counts, self._owners, self.to_move, self._moved, self._out, self.winner,
         self.ply, self._waves) = self._history.pop()  # fmt: skip
        return 0

    def waves(self) -> list[Wave]:
        return list(self._waves)

    def counts(self) -> list[int]:
        return list(self._counts)

    def owners(self) -> list[int]:
        return list(self._owners)

    @property
    def moved(self) -> list[int]:
        return sorted(self._moved)

    @property
    def out(self) -> list[int]:
        return sorted(self._out)

    def to_text(self) -> str:
        rows = []
        for y in range(self.height):
            cells = [(self._counts[i], self._owners[i])
                     for i in range(y * self.width, (y + 1) * self.width)]  # fmt: skip
            rows.append("".join("." if n == 0 else f"{n}{PLAYER_LETTERS[o]}" for n, o in cells))

        def letters(ps: set[int]) -> str:
            return "".join(PLAYER_LETTERS[p] for p in sorted(ps)) or "-"

        return (
            f"{self.width}x{self.height} {self.rules.name} {self.players} {'/'.join(rows)} "
            f"{PLAYER_LETTERS[self.to_move]} {letters(self._moved)} {letters(self._out)} "
            f"{self.ply}"
        )


def _small(book: Rulebook) -> conformance.NewGame:
    return lambda text: SmallEngine(text, book)


def test_the_small_engine_passes_every_case(suite: conformance.Suite) -> None:
    """Without a switch the small engine is right: every failure below is its switch's."""
    report = conformance.check(_small(Rulebook()), suite, perft_positions=300)
    assert report.failed == []


# (the switch, the kinds that must fail, for each the least share of its cases that fail)
BROKEN = {
    "capacity": (Rulebook(capacity_is_degree=True), {"random": 0.3, "cascade": 0.9,
                 "order": 0.9, "decided": 0.5, "elimination": 0.5}),
    "drop-is-arrival": (Rulebook(drop_is_arrival=True), {"opening": 0.1, "random": 0.05}),
    "drop-one-orb": (Rulebook(drop_one=True), {"opening": 0.1, "random": 0.05}),
    "untouched-opening-cell-bursts": (Rulebook(scan_all=True), {"opening": 0.1}),
    "burst-swapped": (Rulebook(burst_swapped=True), {"order": 0.9, "cascade": 0.5}),
    "no-stop-once-decided": (Rulebook(no_stop=True), {"decided": 1.0, "never-settles": 1.0}),
    "bursts-from-a-queue": (Rulebook(order="queue"), {"order": 0.2, "decided": 0.2}),
    "bursts-from-a-stack": (Rulebook(order="stack"), {"order": 0.2, "decided": 0.2}),
}  # fmt: skip


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_rule_fails_the_suite(suite: conformance.Suite, name: str) -> None:
    """RULES.md §1 (capacity), §2 (opening, burst), §3.1 (waves), §3.3 (stop once decided):
    an engine that breaks one of them fails cases on the resulting positions alone (what the
    protocol shows), not only on the waves."""
    book, least = BROKEN[name]
    report = conformance.check(_small(book), suite, kinds=conformance.MOVE_KINDS, waves=False)
    failed = Counter(r.kind for r in report.failed)
    cases = Counter(c.kind for c in suite.cases)
    for kind, share in least.items():
        assert failed[kind] >= share * cases[kind], (kind, failed[kind], cases[kind])
    assert all(r.aspect != "waves" for r in report.failed)


def test_without_the_stop_decided_cascades_settle_elsewhere_and_never_settling_ones_loop(
    suite: conformance.Suite,
) -> None:
    """RULES.md §3.3: every never-settles case repeats a board when the cascade runs on (so
    it would never end), every decided case settles, on another board."""
    report = conformance.check(
        _small(Rulebook(no_stop=True)), suite, kinds=["decided", "never-settles"], waves=False
    )
    for r in report.results:
        assert not r.passed
        if r.kind == "never-settles":
            assert r.aspect == "play", r
            assert "NeverSettlesError" in r.message, r
        else:
            assert r.aspect == "board", r


def test_the_checks_say_what_differs(suite: conformance.Suite) -> None:
    """The message of a failing case names the first difference."""
    case = next(c for c in suite.cases if c.id.startswith("cascade-colorwars-5x5"))
    assert isinstance(case, conformance.MoveCase)
    counts = list(case.after.counts)
    counts[0] = (counts[0] + 1) % 4
    wrong_after = dataclasses.replace(case.after, counts=tuple(counts))
    wrong_wave = dataclasses.replace(case.waves[0], bursts=(*case.waves[0].bursts, 99))
    wrong_legal = dataclasses.replace(case.before, legal=case.before.legal[1:])
    variants = {
        "board": dataclasses.replace(case, after=wrong_after),
        "waves": dataclasses.replace(case, waves=(wrong_wave, *case.waves[1:])),
        "legal": dataclasses.replace(case, before=wrong_legal),
    }
    for aspect, wrong in variants.items():
        one = conformance.Suite(suite.folder, suite.version, (wrong,))
        (result,) = conformance.check_native(one).results
        assert (result.passed, result.aspect) == (False, aspect), result
    one = conformance.Suite(suite.folder, suite.version, (variants["board"],))
    (result,) = conformance.check_native(one).results
    assert "after " + case.name + ": cell a1 holds" in result.message
    perft = next(c for c in suite.cases if isinstance(c, conformance.PerftCase))
    depth = dataclasses.replace(perft.depths[1], positions=perft.depths[1].positions + 1)
    wrong_perft = dataclasses.replace(perft, depths=(perft.depths[0], depth))
    one = conformance.Suite(suite.folder, suite.version, (wrong_perft,))
    (result,) = conformance.check_native(one).results
    assert result.aspect == "perft"
    assert "depth 2" in result.message


# -- through the engine protocol ----------------------------------------------------------------
def test_colorwars_engine_passes_through_the_protocol(suite: conformance.Suite) -> None:
    report = conformance.check_engine(ENGINE, suite, perft_positions=ENGINE_PERFT_POSITIONS)
    assert report.failed == []
    go = conformance.go_cases(suite)
    assert len(report.results) == len(suite.cases) + len(go)
    assert report.summary()["kinds"]["go"] == {"cases": 16, "passed": 16, "failed": 0}
    assert report.missing == []
    assert report.engine.startswith(f"colorwars {colorwars.__version__}")


def test_the_go_cases_cover_each_rule_set(suite: conformance.Suite) -> None:
    """docs/engine.md: go answers a legal move; once the game is won, an error line. Four
    positions a rule set: the first move, a later one of two players, one after a player of
    three or more went out, and a won one."""
    cases = conformance.go_cases(suite)
    assert [c.id.split("-")[1] for c in cases] == ["first", "later", "after", "won"] * 4
    assert [c.rules.name for c in cases[::4]] == list(conformance.RULE_SETS)
    for case in cases:
        p = case.position
        assert (p.winner is not None) == case.id.startswith("go-won-"), case.id
        assert bool(p.legal) == (p.winner is None), case.id
    assert all(c.position.ply == 0 for c in cases[::4])
    assert all(c.players >= 3 and c.position.out for c in cases[2::4])
    assert conformance.go_cases(suite, rules=["classic"]) == cases[4:8]
    assert conformance.go_cases(suite, ids=[cases[5].id]) == [cases[5]]


GO_ENGINE = """\
import sys
import time

from colorwars.engine import EngineServer

mode = sys.argv[1]
server = EngineServer(lambda line: print(line, flush=True))
for line in sys.stdin:
    game, go = server.game, line.split()[:1] == ["go"]
    if line.split() == ["quit"]:
        break
    elif go and mode == "illegal" and game.winner is None:  # a cell it may not play
        cells = [c for c in range(len(game.counts())) if not game.is_legal(c)]
        print("bestmove " + (game.cell_name(cells[0]) if cells else "z99"), flush=True)
    elif go and mode == "won" and game.winner is not None:  # a move, though the game is over
        print("info thinking", flush=True)
        print("bestmove a1", flush=True)
    elif go and mode == "slow":
        time.sleep(30)
    else:
        server.handle(line.strip())
"""


def test_an_engine_whose_go_is_wrong_fails_the_go_cases(
    suite: conformance.Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _script(tmp_path, "go.py", GO_ENGINE)
    one = {"kinds": ["go"], "rules": ["colorwars"]}
    report = conformance.check_engine([*engine, "illegal"], suite, **one)
    assert [r.passed for r in report.results] == [False, False, False, True]
    assert {r.aspect for r in report.failed} == {"go"}
    assert report.failed[0].message == "go time=0.05 answered bestmove 'z99' is not on a 6x4 board"
    assert "answered bestmove a1, not a legal move of '3x2 colorwars 2" in report.failed[1].message
    assert report.missing == []
    report = conformance.check_engine([*engine, "won"], suite, **one)
    assert [r.passed for r in report.results] == [True, True, True, False]
    assert "in a won position (player " in report.failed[0].message
    assert "answered 'bestmove a1', expected an error line" in report.failed[0].message
    # No answer within the budget and the grace: the case fails, and go is not sent again.
    monkeypatch.setattr(conformance, "GO_GRACE", 0.3)
    report = conformance.check_engine([*engine, "slow"], suite, **one)
    assert report.results[0].message == "engine go.py gave no answer within 0.35 s"
    assert [m.command for m in report.missing] == ["go"]
    assert len(report.not_run) == 3


@pytest.mark.skipif(shutil.which("sh") is None or shutil.which("awk") is None, reason="no sh/awk")
def test_the_shell_engine_passes_the_go_cases(suite: conformance.Suite) -> None:
    """What a match needs (position and go) is all the go cases send."""
    shell = ["sh", str(ROOT / "tests" / "engines" / "first_legal.sh")]
    report = conformance.check_engine(shell, suite, kinds=["go"])
    assert report.ok, report.failed


BROKEN_ENGINE = """\
import sys

import colorwars.engine as engine
from colorwars import reference


class Broken(reference.Game):
    '''Capacity = degree (RULES.md section 1 says degree - 1).'''

    def _capacity(self, cell):
        return len(self._neighbours(cell))

    @classmethod
    def from_text(cls, text):
        game = reference.Game.from_text(text)
        game.__class__ = cls
        return game


engine.Game = Broken
sys.exit(engine.serve())
"""

DYING_ENGINE = """\
import sys

from colorwars.engine import EngineServer

server = EngineServer(lambda line: print(line, flush=True))
plays = 0
for line in sys.stdin:
    if line.split()[:1] == ["play"]:
        plays += 1
        if plays == 3:
            sys.exit(3)  # at its third move
    server.handle(line.strip())
"""


def _script(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text)
    return [sys.executable, str(path)]


def test_a_broken_engine_fails_through_the_protocol(
    suite: conformance.Suite, tmp_path: Path
) -> None:
    broken = _script(tmp_path, "broken.py", BROKEN_ENGINE)
    report = conformance.check_engine(broken, suite, kinds=["cascade", "perft"],
                                      perft_positions=ENGINE_PERFT_POSITIONS)  # fmt: skip
    failed = Counter(r.kind for r in report.failed)
    assert failed["cascade"] >= 0.9 * sum(c.kind == "cascade" for c in suite.cases)
    assert failed["perft"] > 0
    assert report.missing == []  # it answers every command, wrongly
    # Its perft also fails on reading positions it made itself: they break RULES.md §1.
    assert {r.aspect for r in report.failed} <= {"board", "perft", "position", "winner", "out"}


def test_an_engine_that_dies_fails_its_cases_and_is_started_again(
    suite: conformance.Suite, tmp_path: Path
) -> None:
    dying = _script(tmp_path, "dying.py", DYING_ENGINE)
    ids = [c.id for c in suite.cases if c.kind == "opening"][:5]
    report = conformance.check_engine(dying, suite, ids=ids, timeout=5)
    assert [r.passed for r in report.results] == [True, True, False, True, True]
    assert report.results[2].aspect == "play"
    assert "exited with status 3" in report.results[2].message
    with pytest.raises(EngineError, match="cannot start engine"):
        conformance.check_engine([str(tmp_path / "no-such-engine")], suite, ids=ids)


SMALL_BOARDS_REFUSED = """\
import sys

from colorwars.engine import EngineServer

server = EngineServer(lambda line: print(line, flush=True))
for line in sys.stdin:
    if line.split() == ["quit"]:
        break
    elif line.startswith("position 2x"):  # as if it did not play on boards 2 cells wide
        print("error boards from 3 x 3 only", flush=True)
    else:
        server.handle(line.strip())
"""

ENGINE_OF_TWO_COMMANDS = """\
import sys

from colorwars.engine import EngineServer

server = EngineServer(lambda line: print(line, flush=True))
for line in sys.stdin:
    if line.split() == ["quit"]:
        break
    elif line.split()[0] in ("protocol", "position", "go"):
        server.handle(line.strip())
    else:
        print("error unknown command", flush=True)
"""

STARTS_ONCE = """\
import pathlib
import sys

started = pathlib.Path(sys.argv[1])
if started.exists():
    sys.exit(5)  # a second start fails
if sys.argv[2:] != ["again"]:  # else it starts each time
    started.write_text("yes")
for line in sys.stdin:
    if line.split()[0] == "protocol":
        print("protocol colorwars-engine 1 once 1", flush=True)
    else:
        sys.exit(4)  # any other command: it exits
"""


def test_a_missing_command_is_said_once_and_the_cases_needing_it_are_not_run(
    suite: conformance.Suite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine that answers only what a match needs (protocol, position, go) failed all
    1,186 rule cases, each with the same line; now the first says it, then one line."""
    two = " ".join(_script(tmp_path, "two.py", ENGINE_OF_TWO_COMMANDS))
    assert conformance.main(_args("--data", str(SEEDS), "--engine", two)) == 1
    out = capsys.readouterr().out.splitlines()
    first = suite.cases[0].id
    assert out[0] == f"FAIL {first}: notation: engine two.py refused 'show': unknown command"
    assert out[1] == (
        "MISSING show: the engine never answered it (engine two.py refused 'show': unknown "
        f"command), found in case {first}; {len(suite.cases) - 1} later cases that need show "
        "were not run"
    )
    assert len(out) == 3
    assert out[2].startswith(f"conformance of colorwars {colorwars.__version__} (engine two.py): "
                             f"{len(suite.cases) + 16} "
                             f"cases, {len(suite.cases)} FAILED (16 passed, "
                             f"{len(suite.cases) - 1} not run) in ")  # fmt: skip
    report = conformance.check_engine(two.split(), suite, kinds=["perft"])
    assert [m.command for m in report.missing] == ["show"]  # newgame alone is not said
    assert report.summary()["not_run"] == len(report.results) - 1
    assert report.to_json()["results"][1]["run"] is False


def test_an_engine_that_dies_at_once_or_cannot_start_again_is_said_once(
    suite: conformance.Suite, tmp_path: Path
) -> None:
    once = _script(tmp_path, "once.py", STARTS_ONCE)
    report = conformance.check_engine([*once, str(tmp_path / "started")], suite)
    assert [r.run for r in report.results[:2]] == [True, False]
    assert report.results[0].message == "engine once.py exited with status 4"
    (gone,) = report.missing
    assert gone.line() == (
        f"GONE: the engine could not be started again after case {suite.cases[0].id} (engine "
        f"once.py exited with status 5); {len(report.results) - 1} later cases were not run"
    )
    # Started again each time, it exits at every command but the handshake.
    report = conformance.check_engine([*once, str(tmp_path / "never"), "again"], suite)
    assert [m.command for m in report.missing] == ["show", "position"]
    assert len(report.results) - len(report.not_run) == 2  # the case of each


def test_a_position_refused_for_its_board_is_not_a_missing_command(
    suite: conformance.Suite, tmp_path: Path
) -> None:
    """position (and newgame) may be refused for what they give: the engine is asked to
    read its own position too before the command counts as missing."""
    picky = _script(tmp_path, "picky.py", SMALL_BOARDS_REFUSED)
    report = conformance.check_engine(picky, suite, kinds=["random"], rules=["classic"])
    assert report.missing == []
    assert report.failed
    assert all(r.board.startswith("2x") for r in report.failed)
    assert {r.aspect for r in report.failed} == {"position"}
    assert len(report.passed) > len(report.failed)


# -- the command line -------------------------------------------------------------------------
def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    conformance.add_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = ["--data", str(SEEDS)]
    assert conformance.main(_args(*data, "--kind", "opening", "--rules", "classic")) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    assert "all passed" in out[0]
    assert f"[opening {len(conformance.load(SEEDS).select(['classic'], ['opening']))}]" in out[0]
    assert conformance.main(_args(*data, "--kind", "order", "--verbose")) == 0
    out = capsys.readouterr().out.splitlines()
    assert all(line.startswith("pass order-") for line in out[:-1])
    assert len(out) == 1 + sum(c.kind == "order" for c in conformance.load(SEEDS).cases)
    report = tmp_path / "report.json"
    code = conformance.main(_args(*data, "--reference", "--kind", "decided", "--json", str(report)))
    assert code == 0
    assert "all passed" in capsys.readouterr().out
    written = json.loads(report.read_text())
    assert written["summary"]["failed"] == 0
    assert written["summary"]["kinds"]["decided"]["cases"] > 0
    assert conformance.main(_args(*data, "--kind", "never-settles", "--json", "-")) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["passed"] > 0
    assert "all passed" in captured.err
    # RULES.md §2: only the legal moves of each empty board, in the perft cases.
    assert conformance.main(_args(*data, "--kind", "perft", "--perft-positions", "0")) == 0
    perft = sum(c.kind == "perft" for c in conformance.load(SEEDS).cases)
    assert f"[perft {perft}]" in capsys.readouterr().out
    assert conformance.main(_args(*data, "--rules", "none+subtract", "--kind", "decided")) == 0
    assert "all passed" in capsys.readouterr().out  # none+subtract is classic
    with pytest.raises(ConfigError, match="unknown kind"):
        conformance.main(_args(*data, "--kind", "everything"))
    with pytest.raises(ConfigError, match="--perft-positions must be 0 or more"):
        conformance.main(_args(*data, "--perft-positions", "-3"))
    with pytest.raises(ConfigError, match="--timeout must be above 0"):
        conformance.main(_args(*data, "--engine", "colorwars engine", "--timeout", "nan"))
    with pytest.raises(ConfigError, match="--timeout is for --engine"):  # it was ignored
        conformance.main(_args(*data, "--timeout", "5"))
    with pytest.raises(FileError, match="missing conformance file"):
        conformance.main(_args("--data", str(tmp_path / "none")))


def test_the_command_line_fails_a_broken_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = " ".join(_script(tmp_path, "broken.py", BROKEN_ENGINE))
    args = _args("--data", str(SEEDS), "--engine", broken, "--kind", "cascade", "--rules",
                 "classic")  # fmt: skip
    assert conformance.main(args) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL cascade-classic-")
    assert ": board: " in out[0]
    assert "FAILED" in out[-1]


def test_python_m_conformance_reports_errors_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    suite: conformance.Suite,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert conformance._standalone(["--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: missing conformance file")
    assert err.count("\n") == 1
    monkeypatch.setattr(conformance, "load", lambda folder=None: suite)  # read once
    assert conformance._standalone(["--engine", str(tmp_path / "no-such-engine")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot start engine")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--engine", "/nonexistent/engine"], "cannot start engine /nonexistent/engine"),
        (["--engine", ""], "invalid engine command: it is empty"),
        (["--engine", "./bot 'x"], "no closing quotation"),
        (["--kind", "everything"], "unknown kind everything"),
        (["--kind", "go"], "--kind go needs --engine CMD"),
        (["--timeout", "5"], "--timeout is for --engine"),
        (["--perft-positions", "-3"], "--perft-positions must be 0 or more"),
        (["--timeout", "x"], "argument --timeout: invalid float value"),
        # "no cases selected", exit 1 as for a failed case.
        (["--rules", ""], "no names in '': expected a comma-separated list"),
        (["--kind", " , "], "no names in ' , '"),
    ],
)
def test_usage_and_setup_errors_exit_2_in_one_line(
    argv: list[str],
    says: str,
    suite: conformance.Suite,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/api.md: 2 for bad usage; a failed case is 1. The errors before any case ran
    were 1, as a failed case is."""
    from colorwars.cli import main

    monkeypatch.setattr(conformance, "load", lambda folder=None: suite)  # read once
    try:
        code = main(["conformance", "--data", str(SEEDS), *argv])
    except SystemExit as e:  # argparse's own usage errors
        code = int(str(e.code))
    assert code == 2
    err = capsys.readouterr().err
    assert says in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_the_docs_give_the_suites_size(suite: conformance.Suite) -> None:
    """docs/conformance.md's table of cases is the data's."""
    page = ROOT / "docs" / "conformance.md"
    if not page.is_file():
        pytest.skip("docs/ is not here")
    text = page.read_text()
    counts = Counter(c.kind for c in suite.cases)
    for kind, n in counts.items():
        assert f"| `{kind}` | {n:,} |" in text, kind
    assert f"**{len(suite.cases):,} cases**" in textwrap.dedent(text)
