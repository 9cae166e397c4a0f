"""The torture suite: VectorEnv: step, reset and board with bad input; a rejected step changes
nothing."""

from __future__ import annotations

import math
from typing import Any

import colorwars
import numpy as np
import pytest
import torture_core as tc
from hypothesis import given
from hypothesis import strategies as st
from torture_values import (
    Arg,
    Index,
    as_int,
    bad_values,
    must_reject,
)

from torture.common import (
    CATALOGUE,
    FUZZ,
    U64,
)


class Box:
    """A VectorEnv and the arrays its last successful reset/step handed back."""

    def __init__(self, **kwargs: Any) -> None:
        self.env = colorwars.VectorEnv(**kwargs)
        self.obs, self.info = self.env.reset(seed=3)
        self.label = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        self.moves = 0
        for _ in range(5):
            self.advance()

    def advance(self) -> None:
        out = self.env.step(self.env.sample_legal().copy())
        self.obs, self.info = out[0], out[4]
        self.moves += 1

    def state(self) -> tuple[Any, ...]:
        boards = []
        for i in range(self.env.num_envs):
            b = self.env.board(i)
            boards.append((tuple(b["counts"]), tuple(b["owners"]), b["to_move"], b["ply"]))
        return (
            self.obs.tobytes(),
            self.info["action_mask"].tobytes(),
            self.info["to_move"].tobytes(),
            tuple(boards),
        )


def env_pool() -> list[Box]:
    return [
        Box(num_envs=3, width=3, height=3, players=2, rules="classic", threads=1),
        Box(
            num_envs=4,
            width=5,
            height=5,
            rules="colorwars",
            illegal="lose",
            threads=1,
            max_plies=40,
        ),
        Box(num_envs=2, width=17, height=16, players=3, threads=1),
        Box(
            num_envs=2, width=32, height=32, players=8, rules="colorwars", threads=2, illegal="lose"
        ),
    ]


def classify_actions(actions: object, n: int) -> tuple[str, list[int] | str]:
    """``("reject", why)``, ``("either", why)`` (arguable input: refused, or played as the
    integers it holds) or ``("ints", values)`` (integer input that must be taken as is)."""
    if isinstance(actions, np.ndarray):
        if actions.shape != (n,):
            return ("reject", f"shape {actions.shape}, not ({n},)")
        if actions.dtype.kind in "iu":
            return ("ints", [int(a) for a in actions])
        if actions.dtype.kind != "O":
            return ("reject", f"dtype {actions.dtype} is not an integer type")
        items = list(actions)
        lenient = True
    elif isinstance(actions, list | tuple):
        items = list(actions)
        lenient = False
        if len(items) != n:
            return ("reject", f"{len(items)} actions for {n} environments")
    elif isinstance(actions, range | bytearray | memoryview):
        return ("either", "a sequence of integers")
    else:
        return ("reject", f"{type(actions).__name__} is not one action per environment")
    values = []
    for item in items:
        v = as_int(item)
        if v is None:
            if isinstance(item, Index) or (
                isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu"
            ):
                return ("either", "index-able")
            return ("reject", f"an action {tc.safe_repr(item, 40)} is not an integer")
        values.append(v)
    return ("either", "object array") if lenient else ("ints", values)


def torture_step(findings: tc.Findings, box: Box, actions: object, how: str) -> None:
    env = box.env
    n, cells = env.num_envs, env.num_actions
    example = f"VectorEnv({box.label}).step({tc.safe_repr(actions, 140)}) [{how}]"
    verdict, detail = classify_actions(actions, n)
    mask = box.info["action_mask"].copy()
    before = box.state()
    out = tc.probe(findings, "VectorEnv.step", "VectorEnv.step", example, env.step, actions)
    if not out.ok:
        if box.state() != before:
            findings.add("VectorEnv.step", "a rejected step changed the environments", example)
        if verdict == "ints":
            values = detail
            assert isinstance(values, list)
            if all(0 <= v < cells and mask[i, v] for i, v in enumerate(values)):
                findings.add(
                    "VectorEnv.step", "refused legal integer actions", example, str(out.error)[:160]
                )
        return
    box.obs, box.info = out.value[0], out.value[4]
    if verdict == "reject":
        findings.add("VectorEnv.step", f"accepted ({detail})", example)
        return
    if isinstance(detail, str):
        return  # arguable input, played
    for i, v in enumerate(detail):
        legal = 0 <= v < cells and bool(mask[i, v])
        if legal:
            continue
        if env.illegal == "raise":
            why = "off the board" if not 0 <= v < cells else "illegal"
            findings.add(
                "VectorEnv.step", f"accepted an action {why} under illegal='raise'", example
            )
        elif not box.info["illegal"][i]:
            findings.add("VectorEnv.step", "an illegal action was not marked as lost", example)


BAD_ACTION_SCALARS = [
    1.5,
    1.0,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    2**32,
    2**63,
    -(2**63) - 1,
    10**5000,
    True,
    None,
    "1",
    "c3",
    b"1",
    np.float64(1.0),
    np.float32(2.0),
    np.bool_(True),
    np.complex64(1),
    object(),
    [1],
    (1,),
    Index(1),
]
ACTION_DTYPES = [
    "i1",
    "i2",
    "i4",
    "i8",
    "u1",
    "u2",
    "u4",
    "u8",
    "f2",
    "f4",
    "f8",
    "c8",
    "?",
    "O",
    "U3",
    "S3",
    "M8[s]",
    "m8[s]",
]


@st.composite
def actions_for(draw: st.DrawFn, legal: list[int], cells: int) -> tuple[object, str]:
    n = len(legal)
    how = draw(st.sampled_from(["slot", "dtype", "shape", "ints", "wrap", "view", "list"]))
    if how == "slot":  # legal actions with one slot replaced
        k = draw(st.integers(0, n - 1))
        bad = draw(st.one_of(st.sampled_from(BAD_ACTION_SCALARS), bad_values()))
        out: list[object] = list(legal)
        out[k] = bad
        return out, how
    if how == "dtype":  # legal actions as another dtype
        dtype = draw(st.sampled_from(ACTION_DTYPES))
        try:
            return np.array(legal).astype(dtype), f"{how} {dtype}"
        except (TypeError, ValueError):
            return np.array(legal, dtype=object), f"{how} O"
    if how == "shape":
        shape = draw(st.sampled_from(["short", "long", "column", "row", "scalar", "empty", "nest"]))
        a = np.array(legal)
        return {
            "short": a[:-1],
            "long": np.append(a, 0),
            "column": a.reshape(n, 1),
            "row": a.reshape(1, n),
            "scalar": a[0],
            "empty": np.array([], dtype=np.int64),
            "nest": [list(legal)],
        }[shape], f"{how} {shape}"
    if how == "ints":  # any int64 values
        values = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n))
        return np.array(values, dtype=np.int64), how
    if how == "wrap":  # a legal cell plus a power of two: truncation would make it legal
        k = draw(st.integers(0, n - 1))
        shift = draw(st.sampled_from([8, 16, 31, 32, 63]))
        a = np.array(legal, dtype=np.int64)
        a[k] = (legal[k] + 2**shift) if shift < 63 else -(2**63) + legal[k]
        return a, f"{how} 2**{shift}"
    if how == "view":  # a strided view of legal actions: must be read correctly
        a = np.zeros(2 * n, dtype=np.int64)
        a[::2] = legal
        return a[::2], how
    dtype = draw(st.sampled_from(["int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64"]))
    t = np.dtype(dtype).type
    return [t(v) if v <= np.iinfo(t).max else v for v in legal], f"list of {dtype}"


@pytest.mark.slow
def test_vector_env_step_reset_board() -> None:
    findings = tc.Findings()
    pool = env_pool()

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        for box in pool:
            env = box.env
            for _ in range(4):
                legal = [int(a) for a in env.sample_legal()]
                actions, how = data.draw(actions_for(legal, env.num_actions))
                torture_step(findings, box, actions, how)
            for value in data.draw(st.lists(bad_values(), min_size=1, max_size=4)):
                torture_reset(findings, box, value)
                torture_board(findings, box, value)
            box.advance()

    run()
    for box in pool:  # the catalogue, once
        for value in CATALOGUE:
            torture_reset(findings, box, value)
            torture_board(findings, box, value)
            legal: list[object] = [int(a) for a in box.env.sample_legal()]
            legal[0] = value
            torture_step(findings, box, legal, "catalogue slot")
            torture_step(findings, box, value, "catalogue whole")
    findings.check()


def torture_reset(findings: tc.Findings, box: Box, seed: object) -> None:
    arg = Arg("seed", "optint", 0, U64)
    example = f"VectorEnv({box.label}).reset(seed={tc.safe_repr(seed)})"
    before = box.state()
    out = tc.probe(
        findings, "VectorEnv.reset", "VectorEnv.reset", example, box.env.reset, seed=seed
    )
    if out.ok:
        box.obs, box.info = out.value
        reason = must_reject(arg, seed)
        if reason is not None:
            findings.add("VectorEnv.reset", f"accepted seed ({reason})", example)
        for _ in range(3):
            box.advance()
    elif box.state() != before:
        findings.add("VectorEnv.reset", "a rejected reset changed the environments", example)


def torture_board(findings: tc.Findings, box: Box, i: object) -> None:
    arg = Arg("i", "int", 0, box.env.num_envs - 1)
    example = f"VectorEnv({box.label}).board({tc.safe_repr(i)})"
    out = tc.probe(findings, "VectorEnv.board", "VectorEnv.board", example, box.env.board, i)
    reason = must_reject(arg, i)
    if out.ok and reason is not None:
        findings.add("VectorEnv.board", f"accepted ({reason})", example)
