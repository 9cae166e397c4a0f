"""The torture suite's machinery: the promise every call must keep, the tally of inputs tried,
findings grouped by cause, state snapshots, and children for the calls that could abort,
exhaust memory or hang the interpreter (see tests/torture/ and issues 8 and 17).

The promise: a call succeeds or raises a ``colorwars.ColorwarsError`` (our ``ValueError``
subclasses), ``TypeError``, ``MemoryError`` or ``KeyboardInterrupt``; a rejected call changes
nothing; nothing aborts, hangs past its bound or raises ``pyo3_runtime.PanicException``."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import colorwars
import pytest

ALLOWED: tuple[type[BaseException], ...] = (
    colorwars.ColorwarsError,
    TypeError,
    MemoryError,
    KeyboardInterrupt,
)

# A child may use this much address space: a call that allocates without bound shows up as a
# MemoryError (or an abort) instead of eating the machine.
CHILD_MEMORY = 4 * 2**30

# Inputs tried, by entry point; printed at the end of the session (tests/conftest.py).
TALLY: Counter[str] = Counter()
# (what, seconds from SIGINT to exit) for every Ctrl-C test; the goal is 0.5 s.
LATENCIES: list[tuple[str, float]] = []
LATENCY_GOAL = 0.5


def tried(area: str, n: int = 1) -> None:
    TALLY[area] += n


def class_name(e: BaseException) -> str:
    t = type(e)
    return f"{t.__module__}.{t.__qualname__}".removeprefix("builtins.")


def is_allowed(e: BaseException) -> bool:
    return isinstance(e, ALLOWED) and not isinstance(e, Warning)


def safe_repr(value: object, limit: int = 100) -> str:
    """A short repr that never raises (a 5000-digit int has no repr under Python's limit)."""
    try:
        text = repr(value)
    except Exception:
        if isinstance(value, int):
            text = f"<int of {value.bit_length()} bits>"
        else:
            text = f"<{type(value).__name__} without a repr>"
    if len(text) > limit:
        text = text[: limit - 12] + f"...({len(text)} chars)"
    return text


def _shape_of_message(message: str) -> str:
    """The message with its particulars (quoted values, numbers) blurred, so one cause with
    many inputs groups as one finding."""
    message = message.splitlines()[0] if message else ""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:90]


@dataclass
class Finding:
    count: int
    example: str
    detail: str


@dataclass
class Findings:
    """Broken promises, grouped by where and why; ``check()`` fails the test listing them all
    (one line each: how often, where, what, and one input that shows it)."""

    items: dict[tuple[str, str], Finding] = field(default_factory=dict)

    def add(self, where: str, problem: str, example: str, detail: str = "") -> None:
        key = (where, problem)
        if key in self.items:
            self.items[key].count += 1
        else:
            self.items[key] = Finding(1, example, detail)

    def raised(self, where: str, e: BaseException, example: str) -> None:
        self.add(
            where,
            f"raised {class_name(e)}: {_shape_of_message(str(e))}",
            example,
            str(e)[:200],
        )

    def check(self) -> None:
        if not self.items:
            return
        lines = [f"{len(self.items)} broken promises:"]
        for (where, problem), f in sorted(self.items.items()):
            lines.append(f"- [{f.count}x] {where}: {problem}\n      e.g. {f.example}")
            if f.detail:
                lines.append(f"      message: {f.detail}")
        pytest.fail("\n".join(lines), pytrace=False)


@dataclass
class Outcome:
    ok: bool
    value: Any = None
    error: BaseException | None = None


def probe(
    findings: Findings,
    area: str,
    where: str,
    example: str,
    fn: Callable[..., Any],
    *args: Any,
    **kwargs: Any,
) -> Outcome:
    """Calls ``fn`` once, counts it, and records a finding if it broke the promise."""
    tried(area)
    try:
        return Outcome(True, fn(*args, **kwargs))
    except KeyboardInterrupt:
        raise  # a real Ctrl-C of the test run
    except BaseException as e:
        if not is_allowed(e):
            findings.raised(where, e, example)
        return Outcome(False, error=e)


# -- state snapshots -----------------------------------------------------------------------
def game_state(g: Any) -> tuple[Any, ...]:
    """Everything a rejected call must leave as it was."""
    return (
        g.to_text(),
        tuple(g.moves()),
        tuple(g.legal_moves()),
        g.ply,
        g.winner,
        tuple(tuple(w.bursts) for w in g.waves()),
    )


def env_state(env: Any) -> tuple[Any, ...]:
    """The observation, the mask, the player to move and every environment's board."""
    obs, info = env._obs, env._info
    boards = []
    for i in range(env.num_envs):
        b = env.board(i)
        boards.append((tuple(b["counts"]), tuple(b["owners"]), b["to_move"], b["ply"]))
    return (
        obs.tobytes(),
        info["action_mask"].tobytes(),
        info["to_move"].tobytes(),
        tuple(boards),
    )


# -- children ------------------------------------------------------------------------------
_CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
import numpy as np
import colorwars
from colorwars import ai
ALLOWED = (colorwars.ColorwarsError, TypeError, MemoryError, KeyboardInterrupt)
def ready():
    print("TORTURE-READY", flush=True)
start = time.perf_counter()
try:
{body}
except BaseException as e:
    t = type(e)
    doc = {{"raised": f"{{t.__module__}}.{{t.__qualname__}}", "message": str(e)[:300],
           "allowed": isinstance(e, ALLOWED) and not isinstance(e, Warning)}}
else:
    doc = {{"raised": None, "allowed": True}}
doc["seconds"] = time.perf_counter() - start
print("TORTURE-RESULT " + json.dumps(doc), flush=True)
"""

_CLI_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
from colorwars.cli import main
print("TORTURE-READY", flush=True)
sys.exit(main({argv!r}))
"""


def api_child(body: str) -> str:
    """Code for a child that runs ``body`` (which may call ``ready()``) and prints what it
    raised as one ``TORTURE-RESULT`` JSON line."""
    return _CHILD.format(memory=CHILD_MEMORY, body=textwrap.indent(textwrap.dedent(body), "    "))


def cli_child(argv: list[str]) -> str:
    """Code for a child that is the ``colorwars`` console script run with ``argv`` (it calls
    ``sys.exit(main())`` exactly as the installed script does)."""
    return _CLI_CHILD.format(memory=CHILD_MEMORY, argv=argv)


@dataclass
class Child:
    returncode: int | None  # None: still running at its bound, then killed
    seconds: float
    stdout: str
    stderr: str
    latency: float | None = None  # seconds from SIGINT to exit
    interrupted: bool = False

    @property
    def result(self) -> dict[str, Any] | None:
        for line in self.stdout.splitlines():
            if line.startswith("TORTURE-RESULT "):
                doc: dict[str, Any] = json.loads(line.removeprefix("TORTURE-RESULT "))
                return doc
        return None

    def tail(self) -> str:
        err = self.stderr.strip().splitlines()[-6:]
        return " | ".join(err)[-600:]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "200"
    return env


def run_child(code: str, bound: float, interrupt_after: float | None = None) -> Child:
    """Runs ``code`` in a fresh interpreter. With ``interrupt_after``, waits for the child's
    ready marker, then that many seconds more, sends SIGINT and measures how long the child
    takes to exit. A child still running ``bound`` seconds after its start (or after the
    SIGINT) is killed and reported with ``returncode=None``."""
    # The child writes to its own descriptors. The parent reads with ``os.pread``, which takes
    # an explicit offset and leaves the file offset alone: a seek-and-read in the parent would
    # move the offset the child's writes go to (parent and child share one open file), so a
    # line written between the parent's seek and read could land over earlier output or out
    # of the parent's sight.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=out, stderr=err, env=_environment()
        )
        latency = None
        interrupted = False
        try:
            if interrupt_after is not None:
                deadline = start + 60  # start-up and set-up before the ready marker
                while time.perf_counter() < deadline and proc.poll() is None:
                    if "TORTURE-READY" in _contents(out):
                        break
                    time.sleep(0.02)
                if proc.poll() is None:
                    time.sleep(interrupt_after)
                if proc.poll() is None:
                    sent = time.perf_counter()
                    proc.send_signal(signal.SIGINT)
                    interrupted = True
                    try:
                        proc.wait(timeout=bound)
                        latency = time.perf_counter() - sent
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                        return Child(None, time.perf_counter() - start, *_read(out, err),
                                     interrupted=True)  # fmt: skip
                else:
                    proc.wait()
            else:
                proc.wait(timeout=bound)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return Child(None, time.perf_counter() - start, *_read(out, err))
        seconds = time.perf_counter() - start
        return Child(proc.returncode, seconds, *_read(out, err), latency, interrupted)


def _contents(file: Any) -> str:
    """Everything written to ``file`` so far, read without moving its offset."""
    chunks = []
    offset = 0
    while chunk := os.pread(file.fileno(), 1 << 16, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _read(out: Any, err: Any) -> tuple[str, str]:
    return _contents(out), _contents(err)


def check_child(child: Child, what: str, bound: float, expect_rejection: bool = False) -> None:
    """The promise for a risky call run in a child: no signal death, done within its bound,
    and the exception it reports (if any) an allowed one."""
    problems = []
    if child.returncode is None:
        problems.append(f"still running after {bound:.0f} s (killed)")
    elif child.returncode < 0:
        name = signal.Signals(-child.returncode).name
        problems.append(f"died by signal {name} ({child.returncode})")
    result = child.result
    if child.returncode is not None and child.returncode >= 0:
        if result is None:
            problems.append(f"exited {child.returncode} without reporting a result")
        elif not result["allowed"]:
            problems.append(f"raised {result['raised']}: {result['message'][:160]}")
        elif expect_rejection and result["raised"] is None:
            problems.append("was accepted (it must be rejected)")
        if child.returncode != 0 and result is not None:
            problems.append(f"exited with status {child.returncode} after reporting")
    if problems:
        pytest.fail(
            f"{what}: {'; '.join(problems)} [{child.seconds:.1f} s] stderr: {child.tail()}",
            pytrace=False,
        )


def record_latency(what: str, child: Child) -> None:
    if child.latency is not None:
        LATENCIES.append((what, child.latency))
        print(f"Ctrl-C latency of {what}: {child.latency:.2f} s (goal {LATENCY_GOAL} s)")


# -- the session summary (called from tests/conftest.py) ----------------------------------
def summary(write: Callable[[str], object]) -> None:
    total = sum(TALLY.values())
    if not total and not LATENCIES:
        return
    write(f"torture: {total:,} inputs tried")
    areas = ", ".join(f"{k} {v:,}" for k, v in sorted(TALLY.items(), key=lambda kv: -kv[1]))
    write(f"torture: by entry point: {areas}")
    if LATENCIES:
        parts = ", ".join(f"{what} {s:.2f} s" for what, s in LATENCIES)
        worst = max(s for _, s in LATENCIES)
        verdict = "met" if worst <= LATENCY_GOAL else "missed"
        write(f"torture: Ctrl-C latency (goal {LATENCY_GOAL} s, {verdict}): {parts}")


def finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))
