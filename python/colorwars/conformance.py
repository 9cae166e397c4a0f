"""The conformance suite: data that pins the rules (``seeds/RULES.md``) for any implementation
of the game, and the checks that run it against colorwars' engines or against any program that
speaks the engine protocol (``colorwars.engine``).

The data is ``seeds/conformance/`` (its README documents the format field by field): JSON
lines, one case a line, computed by ``tools/make-conformance`` on the reference engine (but
the deepest perft levels, which the native engine counted, each marked so) and sealed by
``manifest.json`` (each file's case count, size and SHA-256). Two kinds of case:

- a **move case**: a position, a move, the board after every wave of the move's cascade, and
  the position that results (its legal moves, the player to move, who is out, the winner);
- a **perft case**: from the empty board of a size, rule set and player count, the number of
  move sequences of each length and of the distinct positions they reach.

>>> from colorwars import conformance
>>> suite = conformance.load()
>>> report = conformance.check_native(suite, kinds=["opening"])
>>> report.ok, report.failed
(True, [])

``load`` reads and checks the data; ``check_native`` / ``check_reference`` / ``check`` run it
on a ``Game``-like class; ``check_engine`` runs it through the protocol; ``run`` is what
``colorwars conformance`` does. A ``Report`` holds a result per case and a summary.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from colorwars._common import PLAYER_LETTERS, column_name
from colorwars._files import atomic_write, check_output
from colorwars.errors import ColorwarsError, ConfigError, FileError
from colorwars.rules import Rules

__all__ = [
    "ENGINE_PERFT_POSITIONS",
    "FORMAT",
    "GO_GRACE",
    "GO_KIND",
    "GO_TIME",
    "KINDS",
    "MOVE_KINDS",
    "RULE_SETS",
    "VERSION",
    "CaseResult",
    "GameLike",
    "GoCase",
    "Missing",
    "MoveCase",
    "NewGame",
    "PerftCase",
    "PerftDepth",
    "Position",
    "Report",
    "Suite",
    "WaveRecord",
    "add_arguments",
    "board_fields",
    "cell_name",
    "check",
    "check_engine",
    "check_native",
    "check_reference",
    "default_folder",
    "dump_line",
    "go_cases",
    "load",
    "main",
    "parse_cell",
    "parse_notation",
    "run",
    "write",
]

#: The format's name and version (``manifest.json``'s ``format`` and ``version``).
FORMAT = "colorwars-conformance"
VERSION = 1
MANIFEST = "manifest.json"
#: The kinds of move case, each in its own file ``KIND.jsonl``, then the perft counts.
MOVE_KINDS = (
    "random",
    "cascade",
    "order",
    "decided",
    "never-settles",
    "opening",
    "elimination",
)
KINDS = (*MOVE_KINDS, "perft")
#: The rule sets the suite covers (RULES.md §2).
RULE_SETS = ("colorwars", "classic", "drop3+subtract", "none+empty")
#: The most a data file may hold (the whole suite is far smaller).
MAX_FILE_BYTES = 64 * 2**20
#: The protocol's perft is bounded: the depths whose distinct positions, summed from depth 1,
#: stay within this many (see ``_perft_depths``).
ENGINE_PERFT_POSITIONS = 500
#: The kind of the cases that ask an engine for a move (``go``): made from the move cases'
#: positions (``go_cases``), run through the protocol only.
GO_KIND = "go"
#: The budget of those ``go`` commands (``go time=GO_TIME``), and the seconds an answer may take
#: beyond it: what a match allows an ``engine:`` player before it forfeits (``Engine``'s grace).
GO_TIME = 0.05
GO_GRACE = 5.0


# -- the data --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Position:
    """A position as the data gives it: ``text`` in the one-line notation, and the same in
    plain fields (players as numbers from 0, owners -1 for an empty cell)."""

    text: str
    counts: tuple[int, ...]
    owners: tuple[int, ...]
    to_move: int
    moved: tuple[int, ...]
    out: tuple[int, ...]
    ply: int
    winner: int | None
    legal: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WaveRecord:
    """One wave of a cascade: the cells that burst together, the board right after."""

    bursts: tuple[int, ...]
    counts: tuple[int, ...]
    owners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MoveCase:
    """A position, a move, the board after each wave and the resulting position."""

    id: str
    kind: str
    file: str
    line: int
    width: int
    height: int
    rules: Rules
    players: int
    note: str
    tags: tuple[str, ...]
    before: Position
    cell: int
    name: str
    waves: tuple[WaveRecord, ...]
    after: Position


@dataclass(frozen=True, slots=True)
class PerftDepth:
    """Move sequences of ``depth`` moves from the start, the distinct positions they reach,
    the sequences whose last move won, and which engine counted them."""

    depth: int
    sequences: int
    positions: int
    finished: int
    engine: str


@dataclass(frozen=True, slots=True)
class PerftCase:
    """Perft counts from the empty board (``start``) of a size, rule set and player count."""

    id: str
    kind: str
    file: str
    line: int
    width: int
    height: int
    rules: Rules
    players: int
    first: int
    start: str
    depths: tuple[PerftDepth, ...]
    complete: bool


Case = MoveCase | PerftCase


@dataclass(frozen=True, slots=True)
class GoCase:
    """A position to send ``go`` in, through the protocol (``go_cases``): a live one must be
    answered with one of its legal moves, in time; a won one with an ``error`` line. ``file``
    and ``line`` are those of the move case it comes from."""

    id: str
    kind: str
    file: str
    line: int
    width: int
    height: int
    rules: Rules
    players: int
    position: Position


@dataclass(frozen=True)
class Suite:
    """The cases of a conformance folder, read and checked by ``load``."""

    folder: Path
    version: int
    cases: tuple[Case, ...]

    def select(
        self,
        rules: Iterable[str] | None = None,
        kinds: Iterable[str] | None = None,
        ids: Iterable[str] | None = None,
    ) -> list[Case]:
        """The cases of these rule sets (names as in ``RULE_SETS``), kinds and ids (all when
        None); an unknown rule set or kind is a ``ConfigError``."""
        wanted_rules = _rule_names(rules)
        wanted_kinds = _choices(_given(kinds), KINDS, "kind")
        wanted_ids = None if ids is None else set(_given(ids) or ())
        return [
            c
            for c in self.cases
            if (wanted_rules is None or c.rules.name in wanted_rules)
            and (wanted_kinds is None or c.kind in wanted_kinds)
            and (wanted_ids is None or c.id in wanted_ids)
        ]


def _rule_name(name: str) -> str:
    """A rule set's name as the data writes it (``none+subtract`` is ``classic``)."""
    try:
        return Rules.parse(name.strip()).name
    except ValueError:
        return name


def _given(given: Iterable[str] | None) -> list[str] | None:
    """Names given to a public entry point: one name given alone is that name, not its
    letters ("order" as o, r, d, e)."""
    if given is None:
        return None
    return [given] if isinstance(given, str) else list(given)


def _rule_names(rules: Iterable[str] | None) -> set[str] | None:
    """The rule sets ``rules`` names, as the data writes them (all when None)."""
    named = _given(rules)
    return _choices(
        None if named is None else [_rule_name(r) for r in named], RULE_SETS, "rule set"
    )


def _choices(given: Iterable[str] | None, allowed: Sequence[str], what: str) -> set[str] | None:
    if given is None:
        return None
    chosen = {str(g).strip() for g in given}
    unknown = sorted(chosen - set(allowed))
    if unknown:
        raise ConfigError(
            f"unknown {what} {', '.join(unknown)}: the suite has {', '.join(allowed)}"
        )
    return chosen


def default_folder() -> Path:
    """The suite's data: ``seeds/conformance`` of the checkout this package runs from, else of
    the current folder (a wheel has no ``seeds/``: give the folder, ``--data``)."""
    checkout = Path(__file__).resolve().parent.parent.parent
    here = checkout / "seeds" / "conformance"
    cwd = Path.cwd() / "seeds" / "conformance"
    for folder in (here, cwd):
        if (folder / MANIFEST).is_file():
            return folder
    # An installed package's own folder is no checkout: only a checkout's is worth naming.
    looked = [here] if (checkout / "Cargo.toml").is_file() else []
    looked.append(cwd)
    raise FileError(
        f"no conformance data in {' or '.join(map(str, looked))}: the data is "
        "seeds/conformance/ of the colorwars repository, not part of an installed package: "
        "run from a checkout, or give its folder (colorwars conformance --data FOLDER, "
        "load(folder))"
    )


def load(folder: str | os.PathLike[str] | None = None) -> Suite:
    """Reads the suite in ``folder`` (default: ``default_folder()``), checking every file
    against ``manifest.json`` (its format and version, each file's size, SHA-256 and case
    count) and every line's fields. Anything wrong is a ``FileError`` naming the file (and
    the line)."""
    root = default_folder() if folder is None else Path(os.fspath(folder))
    manifest_path = root / MANIFEST
    manifest = _read_json(manifest_path)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise FileError(f"invalid conformance manifest {manifest_path}: not a {FORMAT} manifest")
    version = manifest.get("version")
    if version != VERSION:
        raise FileError(
            f"invalid conformance manifest {manifest_path}: it is version {version!r} and "
            f"this colorwars reads version {VERSION}"
        )
    files = manifest.get("files")
    if not isinstance(files, list) or not files:
        raise FileError(f"invalid conformance manifest {manifest_path}: no files listed")
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for entry in files:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and entry.get("kind") in KINDS
            and isinstance(entry.get("cases"), int)
            and isinstance(entry.get("bytes"), int)
            and isinstance(entry.get("sha256"), str)
        ):
            raise FileError(
                f"invalid conformance manifest {manifest_path}: a file entry is not "
                "{name, kind, cases, bytes, sha256}"
            )
        name = entry["name"]
        if Path(name).name != name or not name.endswith(".jsonl"):
            raise FileError(
                f"invalid conformance manifest {manifest_path}: {name!r} is not a .jsonl "
                "file of the folder"
            )
        path = root / name
        data = _read_bytes(path)
        if len(data) != entry["bytes"]:
            raise FileError(
                f"invalid conformance file {path}: it is {len(data)} bytes where the manifest "
                f"says {entry['bytes']} (truncated or edited; regenerate with "
                "tools/make-conformance)"
            )
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise FileError(
                f"invalid conformance file {path}: its SHA-256 does not match the manifest "
                "(the file is damaged or was edited; regenerate with tools/make-conformance)"
            )
        file_cases = _parse_file(path, data, entry["kind"])
        if len(file_cases) != entry["cases"]:
            raise FileError(
                f"invalid conformance file {path}: it holds {len(file_cases)} cases where "
                f"the manifest says {entry['cases']}"
            )
        for case in file_cases:
            if case.id in seen:
                raise FileError(
                    f"invalid conformance file {path}, line {case.line}: the id {case.id!r} "
                    f"is already used in {seen[case.id]}"
                )
            seen[case.id] = name
        cases.extend(file_cases)
    return Suite(root, VERSION, tuple(cases))


def _read_bytes(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise FileError(f"missing conformance file {path}") from None
    except OSError as e:
        raise FileError(f"cannot read conformance file {path}: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise FileError(f"invalid conformance file {path}: larger than {MAX_FILE_BYTES} bytes")
    return data


def _read_json(path: Path) -> Any:
    data = _read_bytes(path)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise FileError(f"invalid conformance file {path}: not JSON ({e})") from None


class _BadError(Exception):
    """A field of a line that is not what the format says (becomes a ``FileError``)."""


def _parse_file(path: Path, data: bytes, kind: str) -> list[Case]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileError(f"invalid conformance file {path}: not UTF-8 (byte {e.start})") from None
    cases: list[Case] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise _BadError("the line is not a JSON object")
            if obj.get("kind") != kind:
                raise _BadError(f"kind {obj.get('kind')!r} in the file of kind {kind!r}")
            if kind == "perft":
                cases.append(_perft_case(obj, path.name, number))
            else:
                cases.append(_move_case(obj, path.name, number))
        except (ValueError, RecursionError, _BadError, KeyError, TypeError) as e:
            reason = f"missing field {e}" if isinstance(e, KeyError) else str(e)
            raise FileError(f"invalid conformance file {path}, line {number}: {reason}") from None
    return cases


def _int(obj: dict[str, Any], key: str, low: int = 0, high: int = 2**62) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _BadError(f"{key} is {value!r}, not a whole number from {low} to {high}")
    return value


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _BadError(f"{key} is {value!r}, not text")
    return value


def _players_list(obj: dict[str, Any], key: str, players: int) -> tuple[int, ...]:
    value = obj[key]
    if not isinstance(value, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and 0 <= p < players for p in value
    ):
        raise _BadError(f"{key} is {value!r}, not a list of players 0 to {players - 1}")
    return tuple(value)


def _board(counts: object, owners: object, cells: int, players: int, where: str) -> Any:
    if not isinstance(counts, str) or len(counts) != cells or not counts.isdigit():
        raise _BadError(f"{where}: counts is not {cells} digits")
    if not isinstance(owners, str) or len(owners) != cells:
        raise _BadError(f"{where}: owners is not {cells} characters")
    owner_list = []
    for ch in owners:
        if ch == ".":
            owner_list.append(-1)
        elif ch.isdigit() and int(ch) < players:
            owner_list.append(int(ch))
        else:
            raise _BadError(f"{where}: owner {ch!r} is not '.' or a player 0 to {players - 1}")
    return tuple(int(ch) for ch in counts), tuple(owner_list)


def _config(obj: dict[str, Any]) -> tuple[int, int, Rules, int]:
    width, height = _int(obj, "width", 2, 32), _int(obj, "height", 2, 32)
    players = _int(obj, "players", 2, 8)
    try:
        rules = Rules(_str(obj, "opening"), _str(obj, "burst"))
    except ValueError as e:
        raise _BadError(str(e)) from None
    if rules.name != _str(obj, "rules"):
        raise _BadError(
            f"rules {obj['rules']!r} is not opening {rules.opening} and burst {rules.burst}"
        )
    return width, height, rules, players


def _position(obj: object, cells: int, players: int, where: str) -> Position:
    if not isinstance(obj, dict):
        raise _BadError(f"{where} is not an object")
    counts, owners = _board(obj["counts"], obj["owners"], cells, players, where)
    winner = obj["winner"]
    if winner is not None and (
        not isinstance(winner, int) or isinstance(winner, bool) or not 0 <= winner < players
    ):
        raise _BadError(f"{where}: winner is {winner!r}, not null or a player")
    legal = obj["legal"]
    if not isinstance(legal, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) and 0 <= c < cells for c in legal
    ):
        raise _BadError(f"{where}: legal is not a list of cells")
    return Position(
        text=_str(obj, "text"),
        counts=counts,
        owners=owners,
        to_move=_int(obj, "to_move", 0, players - 1),
        moved=_players_list(obj, "moved", players),
        out=_players_list(obj, "out", players),
        ply=_int(obj, "ply"),
        winner=winner,
        legal=tuple(legal),
    )


def _move_case(obj: dict[str, Any], file: str, line: int) -> MoveCase:
    width, height, rules, players = _config(obj)
    cells = width * height
    move = obj["move"]
    if not isinstance(move, dict):
        raise _BadError("move is not an object")
    cell = _int(move, "cell", 0, cells - 1)
    name = _str(move, "name")
    if name != cell_name(cell, width):
        raise _BadError(f"move {name!r} is not the name of cell {cell}")
    waves = []
    if not isinstance(obj["waves"], list):
        raise _BadError("waves is not a list")
    for i, wave in enumerate(obj["waves"], 1):
        if not isinstance(wave, dict) or not isinstance(wave["bursts"], list):
            raise _BadError(f"wave {i} is not an object with bursts")
        bursts = wave["bursts"]
        if not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < cells for c in bursts
        ):
            raise _BadError(f"wave {i}: bursts is not a list of cells")
        counts, owners = _board(wave["counts"], wave["owners"], cells, players, f"wave {i}")
        waves.append(WaveRecord(tuple(bursts), counts, owners))
    tags = obj.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise _BadError("tags is not a list of text")
    return MoveCase(
        id=_str(obj, "id"),
        kind=_str(obj, "kind"),
        file=file,
        line=line,
        width=width,
        height=height,
        rules=rules,
        players=players,
        note=str(obj.get("note", "")),
        tags=tuple(tags),
        before=_position(obj["before"], cells, players, "before"),
        cell=cell,
        name=name,
        waves=tuple(waves),
        after=_position(obj["after"], cells, players, "after"),
    )


def _perft_case(obj: dict[str, Any], file: str, line: int) -> PerftCase:
    width, height, rules, players = _config(obj)
    depths = []
    if not isinstance(obj["depths"], list) or not obj["depths"]:
        raise _BadError("depths is not a list of depths")
    for i, d in enumerate(obj["depths"], 1):
        if not isinstance(d, dict):
            raise _BadError(f"depth entry {i} is not an object")
        entry = PerftDepth(
            _int(d, "depth", 1),
            _int(d, "sequences"),
            _int(d, "positions"),
            _int(d, "finished"),
            _str(d, "engine"),
        )
        if entry.depth != i:
            raise _BadError(f"depth entry {i} is depth {entry.depth}")
        if entry.engine not in ("reference", "native"):
            raise _BadError(f"depth {i}: engine {entry.engine!r} is not reference or native")
        depths.append(entry)
    complete = obj["complete"]
    if not isinstance(complete, bool):
        raise _BadError("complete is not true or false")
    return PerftCase(
        id=_str(obj, "id"),
        kind="perft",
        file=file,
        line=line,
        width=width,
        height=height,
        rules=rules,
        players=players,
        first=_int(obj, "first", 0, players - 1),
        start=_str(obj, "start"),
        depths=tuple(depths),
        complete=complete,
    )


# -- writing (tools/make-conformance) ------------------------------------------------------------
def cell_name(cell: int, width: int) -> str:
    """The name of a cell (RULES.md §1): column letters, then the row number from 1."""
    return f"{column_name(cell % width)}{cell // width + 1}"


def board_fields(counts: Sequence[int], owners: Sequence[int]) -> dict[str, str]:
    """A board as the data writes it: a digit per cell for the counts, and a player digit or
    ``.`` per cell for the owners, row-major (character ``i`` is cell ``i``)."""
    if any(not 0 <= n <= 9 for n in counts):
        raise ValueError("a cell holds more than 9 orbs: RULES.md §4 says at most 7")
    return {
        "counts": "".join(str(n) for n in counts),
        "owners": "".join("." if o < 0 else str(o) for o in owners),
    }


def dump_line(record: dict[str, Any]) -> str:
    """One line of a data file: compact JSON, keys in the order given, ASCII."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=True) + "\n"


def write(folder: str | os.PathLike[str], files: dict[str, list[dict[str, Any]]]) -> None:
    """Writes the suite: ``files`` maps each kind to its records (``KIND.jsonl``), then
    ``manifest.json``; every file atomically."""
    root = Path(os.fspath(folder))
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for kind, records in files.items():
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        data = "".join(dump_line(r) for r in records).encode("ascii")
        name = f"{kind}.jsonl"
        atomic_write(root / name, data, "conformance file")
        entries.append(
            {
                "name": name,
                "kind": kind,
                "cases": len(records),
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "generator": "tools/make-conformance (the reference engine, colorwars.reference)",
        "rules": "seeds/RULES.md",
        "files": entries,
    }
    atomic_write(root / MANIFEST, json.dumps(manifest, indent=2) + "\n", "conformance manifest")


# -- checking a Game-like class ------------------------------------------------------------------
class WaveLike(Protocol):
    @property
    def bursts(self) -> Sequence[int]: ...
    @property
    def counts(self) -> Sequence[int]: ...
    @property
    def owners(self) -> Sequence[int]: ...


class GameLike(Protocol):
    """What ``check`` needs of a game: ``colorwars.Game`` and ``colorwars.reference.Game``."""

    @property
    def to_move(self) -> int: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def ply(self) -> int: ...
    @property
    def moved(self) -> list[int]: ...
    @property
    def out(self) -> list[int]: ...
    def counts(self) -> list[int]: ...
    def owners(self) -> list[int]: ...
    def legal_moves(self) -> list[int]: ...
    def play(self, move: int, /) -> int: ...
    def pop(self) -> int: ...
    def waves(self) -> Sequence[WaveLike]: ...
    def to_text(self) -> str: ...


#: A game at a position written in the notation (``colorwars.Game.from_text``).
NewGame = Callable[[str], GameLike]


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one case. ``aspect`` names what differed first (``position``,
    ``legal``, ``play``, ``waves``, ``board``, ``turn``, ``out``, ``winner``, ``notation``,
    ``perft``, ``go``, ``error``), and ``message`` says how; both empty when it passed. A
    case not run (``run`` false: through the protocol, it needs a command the engine never
    answered, see ``Missing``) has failed, with the aspect ``not run``."""

    id: str
    kind: str
    rules: str
    board: str
    players: int
    passed: bool
    aspect: str = ""
    message: str = ""
    run: bool = True

    def line(self) -> str:
        head = f"{'pass' if self.passed else 'FAIL'} {self.id}"
        return head if self.passed else f"{head}: {self.aspect}: {self.message}"


#: ``Missing.command`` for an engine that could not be started again after it exited.
GONE = "start"


@dataclass
class Missing:
    """A command an engine under test never answered, through the protocol: it refused it,
    answered something else, gave no answer in time or exited, the first time it was sent
    (``position`` and ``newgame``, which may be refused for the position or rule set they
    give, also with the engine's own position). Found in the case ``case`` (which failed),
    it is not sent again: the ``not_run`` later cases that need it fail without being run.
    ``command`` is ``GONE`` for an engine that could not be started again."""

    command: str
    reason: str
    case: str
    not_run: int = 0

    @property
    def why(self) -> str:
        """Why a case was not run."""
        if self.command == GONE:
            return "the engine could not be started again"
        return f"the engine never answered {self.command}"

    def line(self) -> str:
        cases = f"{self.not_run} later case{'' if self.not_run == 1 else 's'}"
        if self.command == GONE:
            return (
                f"GONE: the engine could not be started again after case {self.case} "
                f"({self.reason}); {cases} were not run"
            )
        return (
            f"MISSING {self.command}: the engine never answered it ({self.reason}), found in "
            f"case {self.case}; {cases} that need {self.command} were not run"
        )


@dataclass
class Report:
    """The results of a run, case by case, and what was run; ``missing``: the commands an
    engine never answered, through the protocol, and the cases not run for want of them."""

    engine: str
    folder: str
    results: list[CaseResult] = field(default_factory=list)
    seconds: float = 0.0
    missing: list[Missing] = field(default_factory=list)

    @property
    def passed(self) -> list[CaseResult]:
        return [r for r in self.results if r.passed]

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    @property
    def not_run(self) -> list[CaseResult]:
        """The cases that failed without being run (see ``Missing``)."""
        return [r for r in self.results if not r.run]

    @property
    def ok(self) -> bool:
        """Every case passed (and there was at least one)."""
        return bool(self.results) and all(r.passed for r in self.results)

    def summary(self) -> dict[str, Any]:
        """Counts (cases, passed, failed) overall, per kind and per rule set, and the time."""

        def tally(key: Callable[[CaseResult], str]) -> dict[str, dict[str, int]]:
            out: dict[str, dict[str, int]] = {}
            for r in self.results:
                t = out.setdefault(key(r), {"cases": 0, "passed": 0, "failed": 0})
                t["cases"] += 1
                t["passed" if r.passed else "failed"] += 1
            return out

        return {
            "engine": self.engine,
            "data": self.folder,
            "cases": len(self.results),
            "passed": len(self.passed),
            "failed": len(self.failed),
            "not_run": len(self.not_run),
            "missing": [
                {"command": m.command, "reason": m.reason, "case": m.case, "not_run": m.not_run}
                for m in self.missing
            ],
            "seconds": round(self.seconds, 3),
            "kinds": tally(lambda r: r.kind),
            "rules": tally(lambda r: r.rules),
        }

    def summary_line(self) -> str:
        if not self.results:
            return f"conformance of {self.engine}: no cases selected"
        s = self.summary()
        verdict = "all passed" if self.ok else f"{s['failed']} FAILED"
        kinds = ", ".join(f"{k} {v['cases']}" for k, v in s["kinds"].items())
        not_run = f", {s['not_run']} not run" if s["not_run"] else ""
        return (
            f"conformance of {self.engine}: {s['cases']} cases, {verdict} "
            f"({s['passed']} passed{not_run}) in {self.seconds:.1f} s [{kinds}]"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "summary": self.summary(),
            "results": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "rules": r.rules,
                    "board": r.board,
                    "players": r.players,
                    "passed": r.passed,
                    "aspect": r.aspect,
                    "message": r.message,
                    "run": r.run,
                }
                for r in self.results
            ],
        }


class _MismatchError(Exception):
    def __init__(self, aspect: str, message: str) -> None:
        super().__init__(message)
        self.aspect = aspect
        self.message = message


def _cell_text(n: int, o: int) -> str:
    if n == 0 and o < 0:
        return "empty"
    return f"{n} of player {PLAYER_LETTERS[o] if 0 <= o < 8 else o}"


def _compare_board(
    aspect: str,
    what: str,
    width: int,
    counts: Sequence[int],
    owners: Sequence[int],
    got_counts: Sequence[int],
    got_owners: Sequence[int],
) -> None:
    if len(got_counts) != len(counts) or len(got_owners) != len(owners):
        raise _MismatchError(
            aspect, f"{what}: {len(got_counts)} cells where {len(counts)} expected"
        )
    # An empty cell has no owner (RULES.md §3.1): an owner reported for one is a difference.
    wrong = [
        i for i in range(len(counts)) if (counts[i], owners[i]) != (got_counts[i], got_owners[i])
    ]
    if wrong:
        i = wrong[0]
        more = f" (and {len(wrong) - 1} more cells)" if len(wrong) > 1 else ""
        raise _MismatchError(
            aspect,
            f"{what}: cell {cell_name(i, width)} holds {_cell_text(got_counts[i], got_owners[i])}"
            f", expected {_cell_text(counts[i], owners[i])}{more}",
        )


def _letter(player: int) -> str:
    return PLAYER_LETTERS[player] if 0 <= player < len(PLAYER_LETTERS) else str(player)


def _letters(players: Iterable[int]) -> str:
    return "".join(_letter(p) for p in sorted(players)) or "-"


def _names(cells: Iterable[int], width: int) -> str:
    names = [cell_name(c, width) for c in cells]
    if len(names) > 8:
        return " ".join(names[:8]) + f" ... ({len(names)} cells)"
    return " ".join(names) or "none"


def _compare_legal(what: str, width: int, expected: Sequence[int], got: Sequence[int]) -> None:
    if sorted(got) != sorted(expected) or len(set(got)) != len(got):
        missing = sorted(set(expected) - set(got))
        extra = sorted(set(got) - set(expected))
        parts = []
        if missing:
            parts.append(f"missing {_names(missing, width)}")
        if extra:
            parts.append(f"not legal but listed {_names(extra, width)}")
        if not parts:
            parts.append("a move listed twice")
        raise _MismatchError("legal", f"{what}: {'; '.join(parts)}")


@dataclass(frozen=True, slots=True)
class _Seen:
    """A position as an engine reported it."""

    text: str
    counts: Sequence[int]
    owners: Sequence[int]
    to_move: int
    moved: Sequence[int]
    out: Sequence[int]
    ply: int
    winner: int | None
    legal: Sequence[int]


def _compare_position(what: str, width: int, expected: Position, seen: _Seen) -> None:
    """RULES.md §3.6: the board, then the winner, who is out, whose turn it is (who has
    moved, the ply), the legal moves (§2) and the notation, in that order (the first
    difference is reported)."""
    _compare_board("board", what, width, expected.counts, expected.owners, seen.counts, seen.owners)
    if seen.winner != expected.winner:
        exp = "none" if expected.winner is None else PLAYER_LETTERS[expected.winner]
        got = "none" if seen.winner is None else PLAYER_LETTERS[seen.winner]
        raise _MismatchError("winner", f"{what}: winner {got}, expected {exp}")
    if sorted(seen.out) != sorted(expected.out):
        raise _MismatchError(
            "out", f"{what}: out {_letters(seen.out)}, expected {_letters(expected.out)}"
        )
    if seen.to_move != expected.to_move:
        raise _MismatchError(
            "turn",
            f"{what}: player {_letter(seen.to_move)} to move, expected {_letter(expected.to_move)}",
        )
    if sorted(seen.moved) != sorted(expected.moved):
        raise _MismatchError(
            "turn",
            f"{what}: moved {_letters(seen.moved)}, expected {_letters(expected.moved)}",
        )
    if seen.ply != expected.ply:
        raise _MismatchError("turn", f"{what}: ply {seen.ply}, expected {expected.ply}")
    _compare_legal(f"{what}: legal moves", width, expected.legal, seen.legal)
    if seen.text != expected.text:
        raise _MismatchError(
            "notation", f"{what}: notation {seen.text!r}, expected {expected.text!r}"
        )


def _seen(game: GameLike) -> _Seen:
    return _Seen(
        game.to_text(),
        game.counts(),
        game.owners(),
        game.to_move,
        game.moved,
        game.out,
        game.ply,
        game.winner,
        game.legal_moves(),
    )


def _check_move_case(case: MoveCase, new_game: NewGame, compare_waves: bool = True) -> None:
    w = case.width
    try:
        game = new_game(case.before.text)
    except Exception as e:
        raise _MismatchError("position", f"reading the position raised {_error(e)}") from None
    _compare_position("before the move", w, case.before, _seen(game))
    try:
        game.play(case.cell)
    except Exception as e:
        raise _MismatchError("play", f"playing {case.name} raised {_error(e)}") from None
    waves = list(game.waves()) if compare_waves else []
    for i, (want, got) in enumerate(zip(case.waves, waves, strict=False), 1):
        what = f"wave {i} of {len(case.waves)}"
        if sorted(got.bursts) != sorted(want.bursts):
            raise _MismatchError(
                "waves",
                f"{what}: bursts {_names(sorted(got.bursts), w)}, expected "
                f"{_names(want.bursts, w)}",
            )
        _compare_board("waves", what, w, want.counts, want.owners, got.counts, got.owners)
    if compare_waves and len(waves) != len(case.waves):
        raise _MismatchError("waves", f"{len(waves)} waves, expected {len(case.waves)}")
    _compare_position(f"after {case.name}", w, case.after, _seen(game))


def _error(e: BaseException) -> str:
    text = " ".join(str(e).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _perft_depths(case: PerftCase, limit: int | None) -> tuple[PerftDepth, ...]:
    """The depths to check in full: all, or those whose positions summed from depth 1 stay
    within ``limit`` (none when depth 1 alone is over it: then only its sequences, the
    legal moves of the empty board, are counted)."""
    if limit is None:
        return case.depths
    chosen: list[PerftDepth] = []
    total = 0
    for d in case.depths:
        total += d.positions
        if total > limit:
            break
        chosen.append(d)
    return tuple(chosen)


def _perft_counts(
    start: str,
    depth: int,
    expand: Callable[[str], list[tuple[str, bool]]],
) -> list[tuple[int, int, int]]:
    """Perft by transpositions: the positions of each depth with how many sequences reach
    each, so a position reached twice is expanded once. ``expand(text)`` gives each legal
    move's resulting position and whether that move won."""
    level = {start: 1}
    result = []
    for _ in range(depth):
        nxt: dict[str, int] = {}
        won: set[str] = set()
        for text, count in level.items():
            for child, finished in expand(text):
                nxt[child] = nxt.get(child, 0) + count
                if finished:
                    won.add(child)
        level = nxt
        result.append((sum(level.values()), len(level), sum(level[t] for t in won)))
    return result


def _check_perft(
    case: PerftCase,
    depths: Sequence[PerftDepth],
    expand: Callable[[str], list[tuple[str, bool]]],
    legal_count: Callable[[str], int],
    start: str,
) -> None:
    if start != case.start:
        raise _MismatchError("position", f"the empty board is {start!r}, expected {case.start!r}")
    if not depths:
        first = case.depths[0]
        count = legal_count(case.start)
        if count != first.sequences:
            raise _MismatchError(
                "perft", f"depth 1: {count} sequences (legal moves), expected {first.sequences}"
            )
        return
    counts = _perft_counts(case.start, len(depths), expand)
    for d, (sequences, positions, finished) in zip(depths, counts, strict=True):
        if (sequences, positions, finished) != (d.sequences, d.positions, d.finished):
            raise _MismatchError(
                "perft",
                f"depth {d.depth}: {sequences} sequences, {positions} positions, {finished} "
                f"won; expected {d.sequences}, {d.positions}, {d.finished}",
            )


def _game_expand(new_game: NewGame) -> Callable[[str], list[tuple[str, bool]]]:
    def expand(text: str) -> list[tuple[str, bool]]:
        game = new_game(text)
        children = []
        for move in game.legal_moves():
            game.play(move)
            children.append((game.to_text(), game.winner is not None))
            game.pop()
        return children

    return expand


def _result(case: Case | GoCase, failure: _MismatchError | None) -> CaseResult:
    return CaseResult(
        id=case.id,
        kind=case.kind,
        rules=case.rules.name,
        board=f"{case.width}x{case.height}",
        players=case.players,
        passed=failure is None,
        aspect="" if failure is None else failure.aspect,
        message="" if failure is None else failure.message,
    )


Progress = Callable[[CaseResult], None]


def check(
    new_game: NewGame,
    suite: Suite | None = None,
    *,
    engine: str = "a Game class",
    rules: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
    perft_positions: int | None = None,
    waves: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Runs the suite (default: ``load()``) on games made by ``new_game(notation)``, which
    must behave like ``colorwars.Game`` (``legal_moves``, ``play``, ``pop``, ``waves``,
    ``to_text`` and the state properties). Every move case compares the position read, its
    legal moves, the board after each wave and the resulting position; every perft case the
    counts of its depths (only those within ``perft_positions`` distinct positions summed
    from depth 1, if given). With ``waves=False`` the waves are not compared, only the
    resulting position (what the protocol shows). An exception the game raises fails that
    case. ``progress`` is called with each case's result."""
    suite = load() if suite is None else suite
    cases = suite.select(rules, kinds, ids)
    report = Report(engine, str(suite.folder))
    started = time.perf_counter()
    for case in cases:
        failure: _MismatchError | None = None
        try:
            if isinstance(case, MoveCase):
                _check_move_case(case, new_game, waves)
            else:
                try:
                    start = new_game(case.start).to_text()
                except Exception as e:
                    raise _MismatchError(
                        "position", f"reading the start raised {_error(e)}"
                    ) from None
                _check_perft(
                    case,
                    _perft_depths(case, perft_positions),
                    _game_expand(new_game),
                    lambda text: len(new_game(text).legal_moves()),
                    start,
                )
        except _MismatchError as m:
            failure = m
        except Exception as e:  # the game under test raised, anywhere: that case fails
            failure = _MismatchError("error", f"the game raised {_error(e)}")
        result = _result(case, failure)
        report.results.append(result)
        if progress is not None:
            progress(result)
    report.seconds = time.perf_counter() - started
    return report


def check_native(
    suite: Suite | None = None,
    *,
    rules: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
    perft_positions: int | None = None,
    progress: Progress | None = None,
) -> Report:
    """``check`` on the native engine, ``colorwars.Game`` (every perft depth by default)."""
    from colorwars.game import Game

    return check(
        Game.from_text,
        suite,
        engine="colorwars (native engine)",
        rules=rules,
        kinds=kinds,
        ids=ids,
        perft_positions=perft_positions,
        progress=progress,
    )


def check_reference(
    suite: Suite | None = None,
    *,
    rules: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
    perft_positions: int | None = None,
    progress: Progress | None = None,
) -> Report:
    """``check`` on the pure-Python reference engine, ``colorwars.reference.Game`` (every
    perft depth by default: a minute; ``perft_positions=1500`` takes seconds)."""
    from colorwars import reference

    return check(
        reference.Game.from_text,
        suite,
        engine="colorwars (reference engine)",
        rules=rules,
        kinds=kinds,
        ids=ids,
        perft_positions=perft_positions,
        progress=progress,
    )


# -- checking a program through the engine protocol ----------------------------------------------
def parse_notation(text: str) -> dict[str, Any]:
    """The fields of a position in the one-line notation (``Game.to_text()``), read without
    checking that the position could arise (an engine under test may print any): ``width``,
    ``height``, ``rules``, ``players``, ``counts``, ``owners`` (-1 for none), ``to_move``,
    ``moved``, ``out``, ``ply``. A ``ValueError`` if it is not notation at all."""
    fields = text.split()
    if len(fields) != 8:
        raise ValueError(f"expected 8 fields, found {len(fields)}")
    size, rules, players_text, board, to_move, moved, out, ply = fields
    width_text, _, height_text = size.partition("x")
    width, height, players = int(width_text), int(height_text), int(players_text)
    counts: list[int] = []
    owners: list[int] = []
    rows = board.split("/")
    if len(rows) != height:
        raise ValueError(f"{len(rows)} rows on a board {height} high")
    for row in rows:
        i, n = 0, 0
        while i < len(row):
            if row[i] == ".":
                counts.append(0)
                owners.append(-1)
                i += 1
            elif row[i].isdigit() and i + 1 < len(row) and row[i + 1] in PLAYER_LETTERS:
                counts.append(int(row[i]))
                owners.append(PLAYER_LETTERS.index(row[i + 1]))
                i += 2
            else:
                raise ValueError(f"unexpected {row[i : i + 2]!r} in row {row!r}")
            n += 1
        if n != width:
            raise ValueError(f"a row of {n} cells on a board {width} wide")

    def player(letter: str) -> int:
        if len(letter) != 1 or letter not in PLAYER_LETTERS:
            raise ValueError(f"{letter!r} is not a player letter")
        return PLAYER_LETTERS.index(letter)

    def players_of(field_text: str) -> list[int]:
        return [] if field_text == "-" else [player(ch) for ch in field_text]

    return {
        "width": width,
        "height": height,
        "rules": rules,
        "players": players,
        "counts": counts,
        "owners": owners,
        "to_move": player(to_move),
        "moved": players_of(moved),
        "out": players_of(out),
        "ply": int(ply),
    }


def parse_cell(name: str, width: int, height: int) -> int:
    """The cell a name such as ``c3`` or ``aa12`` names (RULES.md §1); ``ValueError`` if
    none of this board."""
    letters = name.rstrip("0123456789")
    digits = name[len(letters) :]
    if not letters or not digits or not letters.isalpha() or not letters.islower():
        raise ValueError(f"{name!r} is not a cell name")
    x = 0
    for ch in letters:
        x = x * 26 + (ord(ch) - ord("a") + 1)
    x, y = x - 1, int(digits) - 1
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{name!r} is not on a {width}x{height} board")
    return y * width + x


class _Protocol:
    """A program speaking the protocol, (re)started as needed: a case that kills it fails,
    and the next one starts it again. The commands it never answered are ``missing`` (see
    ``Missing``); ``case`` is the id of the case being run."""

    def __init__(self, command: str | Sequence[str], timeout: float) -> None:
        self.command = command
        self.timeout = timeout
        self.client: Any = None
        self.name = ""
        self.case = ""
        self.answered: set[str] = set()
        self.failures: dict[str, int] = {}  # of the commands never answered
        self.missing: dict[str, Missing] = {}
        self.start()

    def start(self) -> None:
        from colorwars.engine import Client

        self.client = Client(self.command, timeout=self.timeout)
        words = self.client.request("protocol", expect="protocol").split()
        self.name = " ".join(words[3:]) or self.client.name

    def blocking(self, needs: Iterable[str]) -> Missing | None:
        """What keeps a case that sends these commands from running, if anything: the engine
        is gone, or the first of them found missing."""
        wanted = set(needs) | {GONE}
        return next((m for c, m in self.missing.items() if c in wanted), None)

    def _running(self, aspect: str) -> None:
        """Starts the engine again if it has exited (the case that ended it has failed)."""
        from colorwars.errors import EngineError

        if self.client.alive:
            return
        self.client.close()
        try:
            self.start()
        except EngineError as e:
            reason = _error_text(e)
            self.missing[GONE] = Missing(GONE, reason, self.case)
            raise _MismatchError(
                aspect, f"the engine could not be started again: {reason}"
            ) from None

    def request(self, line: str, expect: str, aspect: str, timeout: float | None = None) -> str:
        from colorwars.errors import EngineError

        command = line.split()[0]
        self._running(aspect)
        try:
            answer: str = self.client.request(line, timeout=timeout, expect=expect)
        except EngineError as e:
            text = _error_text(e)
            if command not in self.answered and command not in self.missing:
                self.failures[command] = self.failures.get(command, 0) + 1
                if self._is_missing(command):
                    self.missing[command] = Missing(command, text, self.case)
            raise _MismatchError(aspect, text) from None
        self.answered.add(command)
        return answer

    def _is_missing(self, command: str) -> bool:
        """Whether ``command``, failed before the engine ever answered it, is missing rather
        than refused for its arguments: ``position`` and ``newgame`` may be refused for the
        position or rule set the case gave (a difference that fails that case alone), so they
        are sent again with the engine's own position (``show``), and are missing if that
        fails too (or, when the engine cannot show its position, once they failed twice).
        Every other command is missing at its first failure."""
        from colorwars.errors import EngineError

        if command not in ("position", "newgame"):
            return True
        try:
            if "show" in self.missing:
                raise _MismatchError("notation", "missing")
            text = self.request("show", "position", "notation").removeprefix("position").strip()
            f = parse_notation(text)
        except (_MismatchError, ValueError):
            return self.failures[command] >= 2
        own = (
            f"position {text}"
            if command == "position"
            else f"newgame {f['width']} {f['height']} {f['rules']} {f['players']}"
        )
        try:
            self.client.request(own, expect="ok")
        except EngineError:
            return True
        self.answered.add(command)
        return False

    def refuses(self, line: str, aspect: str, timeout: float, what: str) -> None:
        """Sends ``line``, whose answer must be an ``error`` line (after any ``info`` lines);
        ``what``: the case's words for the position."""
        from colorwars.errors import EngineError

        self._running(aspect)
        deadline = time.monotonic() + timeout
        try:
            self.client.send(line)
            answer: str = self.client.answer(timeout)
            while answer == "info" or answer.startswith("info "):
                answer = self.client.answer(max(deadline - time.monotonic(), 0.001))
        except EngineError as e:
            raise _MismatchError(aspect, _error_text(e)) from None
        if answer != "error" and not answer.startswith("error "):
            raise _MismatchError(
                aspect, f"{what}: {line} answered {answer[:80]!r}, expected an error line"
            )

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def _error_text(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _engine_seen(engine: _Protocol, width: int, height: int, what: str) -> _Seen:
    """The position as the engine shows it: ``show``, ``status`` and ``legal``."""
    text = engine.request("show", "position", "notation").removeprefix("position").strip()
    try:
        fields = parse_notation(text)
    except ValueError as e:
        raise _MismatchError("notation", f"{what}: show gave {text!r}: {e}") from None
    if (fields["width"], fields["height"]) != (width, height):
        raise _MismatchError("notation", f"{what}: show gave a board of another size: {text!r}")
    status = engine.request("status", "status", "status")
    values = dict(word.partition("=")[::2] for word in status.split()[1:])
    try:
        winner_text = values["winner"]
        winner = None if winner_text == "-" else PLAYER_LETTERS.index(winner_text)
        status_out = (
            [] if values["out"] == "-" else [PLAYER_LETTERS.index(c) for c in values["out"]]
        )
        status_ply = int(values["ply"])
        status_to_move = values["to_move"]
    except (KeyError, ValueError):
        raise _MismatchError("status", f"{what}: status gave {status!r}") from None
    # The protocol's status agrees with show: the same player to move (colorwars writes "-"
    # once the game is won, where the notation names the winner, RULES.md §3.6; either is
    # taken), the same players out and the same ply.
    to_move_letter = PLAYER_LETTERS[fields["to_move"]]
    turn_ok = status_to_move == to_move_letter or (winner is not None and status_to_move == "-")
    if not turn_ok or (sorted(status_out), status_ply) != (sorted(fields["out"]), fields["ply"]):
        raise _MismatchError(
            "status", f"{what}: status {status!r} does not agree with show {text!r}"
        )
    legal_line = engine.request("legal", "legal", "legal")
    try:
        legal = [parse_cell(name, width, height) for name in legal_line.split()[1:]]
    except ValueError as e:
        raise _MismatchError("legal", f"{what}: legal gave {e}") from None
    return _Seen(
        text,
        fields["counts"],
        fields["owners"],
        fields["to_move"],
        fields["moved"],
        fields["out"],
        fields["ply"],
        winner,
        legal,
    )


def _engine_move_case(engine: _Protocol, case: MoveCase) -> None:
    w, h = case.width, case.height
    engine.request(f"position {case.before.text}", "ok", "position")
    _compare_position("before the move", w, case.before, _engine_seen(engine, w, h, "before"))
    engine.request(f"play {case.name}", "ok", "play")
    after = _engine_seen(engine, w, h, f"after {case.name}")
    _compare_position(f"after {case.name}", w, case.after, after)


def _engine_go_case(engine: _Protocol, case: GoCase) -> None:
    """docs/engine.md: ``go time=T`` answers ``bestmove M``, a legal move of the position,
    within T plus ``GO_GRACE`` seconds; in a won position, an ``error`` line (there is no move
    to search)."""
    w, h, p = case.width, case.height, case.position
    engine.request(f"position {p.text}", "ok", "position")
    go = f"go time={GO_TIME:g}"
    if p.winner is not None:
        won = f"in a won position (player {_letter(p.winner)} has won)"
        engine.refuses(go, "go", GO_TIME + GO_GRACE, won)
        return
    answer = engine.request(go, "bestmove", "go", timeout=GO_TIME + GO_GRACE)
    words = answer.split()
    if len(words) != 2:
        raise _MismatchError("go", f"{go} answered {answer[:80]!r}, expected bestmove CELL")
    try:
        cell = parse_cell(words[1], w, h)
    except ValueError as e:
        raise _MismatchError("go", f"{go} answered bestmove {e}") from None
    if cell not in p.legal:
        raise _MismatchError(
            "go",
            f"{go} answered bestmove {words[1]}, not a legal move of {p.text!r} (legal: "
            f"{_names(p.legal, w)})",
        )


def _engine_perft(engine: _Protocol, case: PerftCase, limit: int | None) -> None:
    """Perft through ``legal``, ``play``, ``show``, ``status`` and ``undo``, from the empty
    board set up by ``newgame`` (or ``position`` when another player moves first)."""
    if case.first == 0:
        engine.request(
            f"newgame {case.width} {case.height} {case.rules.name} {case.players}",
            "ok",
            "position",
        )
    else:
        engine.request(f"position {case.start}", "ok", "position")
    start = engine.request("show", "position", "notation").removeprefix("position").strip()

    def expand(text: str) -> list[tuple[str, bool]]:
        engine.request(f"position {text}", "ok", "position")
        names = engine.request("legal", "legal", "legal").split()[1:]
        children = []
        for name in names:
            engine.request(f"play {name}", "ok", "play")
            child = engine.request("show", "position", "notation").removeprefix("position")
            status = engine.request("status", "status", "status")
            children.append((child.strip(), "winner=-" not in status.split()))
            engine.request("undo", "ok", "undo")
        return children

    def legal_count(text: str) -> int:
        engine.request(f"position {text}", "ok", "position")
        return len(engine.request("legal", "legal", "legal").split()) - 1

    _check_perft(case, _perft_depths(case, limit), expand, legal_count, start)


def check_engine(
    command: str | Sequence[str],
    suite: Suite | None = None,
    *,
    rules: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
    timeout: float = 10.0,
    perft_positions: int | None = ENGINE_PERFT_POSITIONS,
    progress: Progress | None = None,
) -> Report:
    """Runs the suite against the program ``command`` (a command line, split as a shell
    would, or a list of arguments) through the engine protocol (``colorwars.engine``). The
    waves of a cascade cannot be seen through the protocol: a move case sends the position
    (``position``), compares what the engine shows (``show``, ``status``, ``legal``), plays
    the move (``play``) and compares again; a perft case counts from ``newgame`` through
    ``legal``, ``play``, ``show``, ``status`` and ``undo``, for the depths within
    ``perft_positions`` distinct positions summed from depth 1 (``None``: every depth). A
    refused line, garbage or no answer within ``timeout`` seconds fails the case; an engine
    that exits is started again for the next one. The ``go`` cases (kind ``GO_KIND``, see
    ``go_cases``) follow the others. A command the engine never answered is not sent again:
    the later cases that need it fail without being run, and ``Report.missing`` says which
    and why (see ``Missing``). An engine that cannot be started at all is an
    ``EngineError``."""
    suite = load() if suite is None else suite
    wanted = _choices(_given(kinds), (*KINDS, GO_KIND), "kind")
    cases: list[Case | GoCase] = list(
        suite.select(rules, None if wanted is None else wanted - {GO_KIND}, ids)
    )
    if wanted is None or GO_KIND in wanted:
        cases += go_cases(suite, rules, ids)
    engine = _Protocol(command, timeout)
    report = Report(f"{engine.name} (engine {engine.client.name})", str(suite.folder))
    started = time.perf_counter()
    try:
        for case in cases:
            engine.case = case.id
            missing = engine.blocking(_needs(case, perft_positions))
            if missing is not None:
                missing.not_run += 1
                result = dataclasses.replace(
                    _result(case, _MismatchError("not run", missing.why)), run=False
                )
            else:
                failure: _MismatchError | None = None
                try:
                    if isinstance(case, MoveCase):
                        _engine_move_case(engine, case)
                    elif isinstance(case, GoCase):
                        _engine_go_case(engine, case)
                    else:
                        _engine_perft(engine, case, perft_positions)
                except _MismatchError as m:
                    failure = m
                result = _result(case, failure)
            report.results.append(result)
            if progress is not None:
                progress(result)
    finally:
        engine.close()
        report.missing = list(engine.missing.values())
    report.seconds = time.perf_counter() - started
    return report


def _needs(case: Case | GoCase, limit: int | None) -> tuple[str, ...]:
    """The commands a case sends through the protocol."""
    if isinstance(case, GoCase):
        return ("position", "go")
    if isinstance(case, MoveCase):
        return ("position", "show", "status", "legal", "play")
    setup = "newgame" if case.first == 0 else "position"
    if not _perft_depths(case, limit):  # the legal moves of the empty board alone
        return (setup, "show", "position", "legal")
    return (setup, "show", "position", "legal", "play", "status", "undo")


def go_cases(
    suite: Suite,
    rules: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
) -> list[GoCase]:
    """The positions ``check_engine`` sends ``go`` in (kind ``GO_KIND``), four a rule set,
    taken from the suite's move cases: the empty board (the first move), a position of two
    players after the first round (under ``drop3``, own cells only), one after a player of
    three or more was put out (the turn skips them), each answered with a legal move, and a
    won position, answered with an ``error`` line. ``rules`` and ``ids`` select as in
    ``Suite.select``."""
    wanted_rules = _rule_names(rules)
    wanted_ids = None if ids is None else set(_given(ids) or ())
    moves = [c for c in suite.cases if isinstance(c, MoveCase)]
    picks: tuple[tuple[str, bool, Callable[[MoveCase], bool]], ...] = (
        # (a name, whether the position is the one after the move, which case)
        ("first", False, lambda c: c.players == 2 and c.before.ply == 0 and c.width >= 3),
        ("later", False, lambda c: c.players == 2 and c.before.ply >= 2 * c.players + 2),
        ("after-out", True, lambda c: c.after.winner is None and bool(c.after.out)),
        ("won", True, lambda c: c.after.winner is not None),
    )
    cases = []
    for name in RULE_SETS:
        if wanted_rules is not None and name not in wanted_rules:
            continue
        for label, after, fits in picks:
            source = next((c for c in moves if c.rules.name == name and fits(c)), None)
            if source is None:
                continue
            case = GoCase(
                id=f"go-{label}-{source.id}",
                kind=GO_KIND,
                file=source.file,
                line=source.line,
                width=source.width,
                height=source.height,
                rules=source.rules,
                players=source.players,
                position=source.after if after else source.before,
            )
            if wanted_ids is None or case.id in wanted_ids:
                cases.append(case)
    return cases


#: ``perft_positions`` by default: every depth, but through the protocol.
DEFAULT = -1


def run(
    engine: str | None = None,
    *,
    folder: str | os.PathLike[str] | None = None,
    rules: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    reference: bool = False,
    timeout: float = 10.0,
    perft_positions: int | None = DEFAULT,
    progress: Progress | None = None,
) -> Report:
    """``colorwars conformance``: the suite in ``folder`` against the program ``engine``
    (a command line, through the protocol), else against the reference engine if
    ``reference``, else against colorwars' native engine. ``perft_positions`` bounds the
    perft depths checked (see ``check``); by default every depth, but through the protocol
    ``ENGINE_PERFT_POSITIONS``. The ``go`` cases need an engine: ``--kind go`` without one
    is a ``ConfigError``."""
    kinds = _given(kinds)
    if engine is None and kinds is not None and GO_KIND in {str(k).strip() for k in kinds}:
        raise ConfigError(
            "the go cases ask an engine for a move through the protocol: --kind go needs "
            "--engine CMD"
        )
    suite = load(folder)
    if engine is not None:
        limit = ENGINE_PERFT_POSITIONS if perft_positions == DEFAULT else perft_positions
        return check_engine(
            engine,
            suite,
            rules=rules,
            kinds=kinds,
            timeout=timeout,
            perft_positions=limit,
            progress=progress,
        )
    limit = None if perft_positions == DEFAULT else perft_positions
    which = check_reference if reference else check_native
    return which(suite, rules=rules, kinds=kinds, perft_positions=limit, progress=progress)


# -- the command line ------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``colorwars conformance``."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--engine",
        metavar="CMD",
        help="the command line of a program speaking the engine protocol, e.g. "
        "'python3 -m colorwars engine' (default: check colorwars' native engine directly)",
    )
    which.add_argument(
        "--reference",
        action="store_true",
        help="check colorwars' pure-Python reference engine instead (slower)",
    )
    parser.add_argument(
        "--data",
        metavar="FOLDER",
        help="the suite's folder (default: seeds/conformance of this checkout or of the "
        "current folder)",
    )
    parser.add_argument(
        "--rules",
        help=f"only these rule sets, comma-separated: {', '.join(RULE_SETS)}",
    )
    parser.add_argument(
        "--kind",
        help=f"only these kinds, comma-separated: {', '.join(KINDS)}, and with --engine {GO_KIND}",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="with --engine: seconds the engine may take to answer one line (10)",
    )
    parser.add_argument(
        "--perft-positions",
        type=int,
        metavar="N",
        help="check only the perft depths whose distinct positions, summed from depth 1, "
        f"are at most N (default: every depth; with --engine {ENGINE_PERFT_POSITIONS})",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="also write the report as JSON to PATH (- for stdout)"
    )
    parser.add_argument("--verbose", action="store_true", help="print every case that passes too")


def _comma_list(text: str | None) -> list[str] | None:
    """A comma list of names; one that names nothing (``--rules ''``) is a bad option."""
    if text is None:
        return None
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"no names in {text!r}: expected a comma-separated list")
    return names


def main(args: argparse.Namespace) -> int:
    """Runs ``colorwars conformance`` with the options of ``add_arguments``: one line per
    failing case (and per passing one with ``--verbose``; a case not run for want of a command
    the engine never answered only then), a line per such command, then a summary line; 0
    when every case passed, 1 otherwise. Errors before any case runs (an option out of range,
    no data, a damaged file, an engine that cannot be started) are ``ColorwarsError`` (a
    ``FileError`` for the data) for the caller to print, with the exit status 2."""
    json_path = getattr(args, "json", None)
    out = sys.stderr if json_path == "-" else sys.stdout
    if json_path not in (None, "-"):
        check_output(json_path, "conformance report")  # before the run, not after it
    verbose = bool(getattr(args, "verbose", False))

    def show(result: CaseResult) -> None:
        if verbose or (not result.passed and result.run):
            print(result.line(), file=out, flush=True)

    limit = getattr(args, "perft_positions", None)
    if limit is not None and limit < 0:
        raise ConfigError(f"--perft-positions must be 0 or more, got {limit}")
    timeout = getattr(args, "timeout", None)
    if timeout is not None and getattr(args, "engine", None) is None:
        raise ConfigError("--timeout is for --engine (how long the program may take to answer)")
    timeout = 10.0 if timeout is None else timeout
    if not 0 < timeout <= 86400:
        raise ConfigError(f"--timeout must be above 0 and at most 86400, got {timeout}")
    report = run(
        getattr(args, "engine", None),
        folder=getattr(args, "data", None),
        rules=_comma_list(getattr(args, "rules", None)),
        kinds=_comma_list(getattr(args, "kind", None)),
        reference=bool(getattr(args, "reference", False)),
        timeout=float(timeout),
        perft_positions=DEFAULT if limit is None else limit,
        progress=show,
    )
    for missing in report.missing:
        print(missing.line(), file=out, flush=True)
    print(report.summary_line(), file=out, flush=True)
    if json_path is not None:
        text = json.dumps(report.to_json(), indent=1) + "\n"
        if json_path == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            atomic_write(json_path, text, "conformance report")
    return 0 if report.ok else 1


def _standalone(argv: Sequence[str] | None = None) -> int:
    """``python -m colorwars.conformance``: the same as ``colorwars conformance``."""
    parser = argparse.ArgumentParser(
        prog="python -m colorwars.conformance", description="Run the conformance suite."
    )
    add_arguments(parser)
    try:
        return main(parser.parse_args(argv))
    except ColorwarsError as e:  # before any case ran: see main
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(_standalone())
