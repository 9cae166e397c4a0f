"""Proof checkpoints that nothing can forge (issue 17, "A damaged checkpoint becomes a proof").

A checkpoint is a sealed file: a format version and BLAKE2b digests over its header and its
proofs, checked before any search starts. Every result is derived again from the proofs in
the run that reports it (the header's claims only cross-check them), and ``verify=True``
walks each proven strategy to the end of every game, so its verdict comes from the game.

The property tests damage real checkpoints in every way a disk, a copy or a hand can: any
single-bit flip, a truncation, a header field changed (with or without the checksum made to
match again), a proof's flag flipped and the file resealed. Each damaged file must be refused
with our ``FileError`` naming it, or give the true result: never a wrong ``complete=True``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import colorwars
import pytest
import torture_core as tc
from colorwars._files import seal, unseal
from colorwars.cli import main as cli_main
from colorwars.errors import FileError, InvalidProofError
from colorwars.proof import CHECKPOINT_FORMAT, CHECKPOINT_KIND
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torture.fulldisk import run_on_full_disk

#: Boards whose checkpoints are made once and damaged: (width, height, rules).
BOARDS = [(3, 3, "classic"), (3, 3, "colorwars"), (4, 4, "colorwars"), (4, 3, "colorwars")]
FUZZ = settings(suppress_health_check=list(HealthCheck), deadline=None)
#: A proof record: key (8 bytes), work (4), mover wins (4).
RECORD = 16


class Truth:
    """A board's checkpoint as a complete run writes it, and the true results."""

    def __init__(self, folder: Path, width: int, height: int, rules: str) -> None:
        self.args = (width, height)
        self.rules = rules
        path = folder / f"{width}x{height}-{rules}.proofs"
        proof = colorwars.prove(width, height, rules=rules, checkpoint=path)
        assert proof.complete
        self.winner = proof.winner
        self.moves = dict(proof.moves)
        self.data = path.read_bytes()

    def prove(self, path: Path, **kwargs: Any) -> colorwars.Proof:
        return colorwars.prove(*self.args, rules=self.rules, checkpoint=path, **kwargs)


@pytest.fixture(scope="module")
def truths(tmp_path_factory: pytest.TempPathFactory) -> list[Truth]:
    folder = tmp_path_factory.mktemp("truths")
    return [Truth(folder, *board) for board in BOARDS]


def _outcome(truth: Truth, path: Path, what: str, findings: tc.Findings, **kwargs: Any) -> None:
    """Proves from the damaged file at ``path``: refused with our error naming it, or true."""
    tc.tried("prove (damaged checkpoint)")
    try:
        p = truth.prove(path, **kwargs)
    except (FileError, InvalidProofError) as e:
        if isinstance(e, FileError) and str(path) not in str(e):
            findings.add("prove", "a FileError that does not name the file", f"{what}: {e}")
        return
    except Exception as e:  # anything else breaks the promise
        findings.add("prove", f"raised {type(e).__name__}", f"{what}: {e}")
        return
    if p.complete and p.winner != truth.winner:
        findings.add("prove", "a wrong result reported as proven", what)
    wrong = {c: w for c, w in p.moves.items() if w is not None and w != truth.moves[c]}
    if wrong:
        findings.add("prove", "a wrong group result", f"{what}: {wrong}")
    for stale in path.parent.glob("*.tmp"):
        findings.add("prove", "left a temporary file", f"{what}: {stale.name}")


def _parts(data: bytes) -> tuple[dict[str, Any], bytes]:
    return unseal("checkpoint", data, CHECKPOINT_KIND, CHECKPOINT_FORMAT, "checkpoint")


def _reseal(header: dict[str, Any], proofs: bytes) -> bytes:
    return seal(CHECKPOINT_KIND, CHECKPOINT_FORMAT, header, proofs)


@FUZZ
@given(st.data())
def test_any_bit_flip_or_truncation_is_detected(
    truths: list[Truth], tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Any single-bit flip or truncation of a real checkpoint: refused, never trusted."""
    findings = tc.Findings()
    truth = data.draw(st.sampled_from(truths), "board")
    raw = bytearray(truth.data)
    if data.draw(st.booleans(), "flip"):
        bit = data.draw(st.integers(0, len(raw) * 8 - 1), "bit")
        raw[bit // 8] ^= 1 << (bit % 8)
    else:
        cut = data.draw(st.integers(0, len(raw) - 1), "length")
        del raw[cut:]
    path = tmp_path_factory.mktemp("damaged") / "c.proofs"
    path.write_bytes(bytes(raw))
    tc.tried("prove (damaged checkpoint)")
    with pytest.raises(FileError, match=r"invalid checkpoint .*c\.proofs"):
        truth.prove(path)
    findings.check()


#: Header fields changed to values of the wrong type or range, or to other results.
FIELD_VALUES: dict[str, list[object]] = {
    "moves": [{"0": 5}, {"0": None}, {"0": "b"}, {"0": -1}, {"99": 0}, {"x": 1}, [1], None, 7],
    "positions": [None, -5, "12", 1.5, True],
    "seconds": [None, "1", -2.0, 1e300, [0]],
    "lines": [{"0": "a1"}, {"0": [999]}, [], "x"],
    "checked": [{"0": -1}, {"0": "7"}, 5],
    "position": ["3x3 classic 2 ... - 1", None, 0],
}


@FUZZ
@given(st.data())
def test_a_changed_header_field_is_refused_or_harmless(
    truths: list[Truth], tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """A header field changed, with the checksum left as it was (the change is damage) or
    made to match again (a forgery): refused with our error, or the true result (the
    header's results are cross-checked against the proofs, never trusted)."""
    findings = tc.Findings()
    truth = data.draw(st.sampled_from(truths), "board")
    header, proofs = _parts(truth.data)
    name = data.draw(st.sampled_from(sorted(FIELD_VALUES)), "field")
    if name == "moves" and data.draw(st.booleans(), "flip a result"):
        # Every group's claimed winner turned over: the other player's win claimed.
        value: object = {k: None if w is None else 1 - w for k, w in header["moves"].items()}
    else:
        value = data.draw(st.sampled_from(FIELD_VALUES[name]), "value")
    header[name] = value
    resealed = data.draw(st.booleans(), "resealed")
    if resealed:
        raw = _reseal(header, proofs)
    else:
        # The same change without a new digest: the old digest line is kept.
        old = truth.data
        start = old.index(b"\n") + 1
        end = old.index(b"\n", start)
        fields = json.loads(old[start:end])
        fields[name] = value
        raw = old[:start] + json.dumps(fields, sort_keys=True).encode() + old[end:]
    path = tmp_path_factory.mktemp("field") / "c.proofs"
    path.write_bytes(raw)
    what = f"{truth.args} {truth.rules}: {name}={value!r} ({'resealed' if resealed else 'as is'})"
    _outcome(truth, path, what, findings, verify=data.draw(st.booleans(), "verify"))
    findings.check()


@pytest.mark.slow
@FUZZ
@given(st.data())
def test_forged_proofs_are_caught_by_verify(
    truths: list[Truth], tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Proofs whose 'mover wins' flags are flipped and the file resealed (a forgery the
    checksums cannot see): with ``verify=True`` the run ends, without a time limit, in our
    error or the true result: the check walks the game itself."""
    findings = tc.Findings()
    truth = data.draw(st.sampled_from(truths), "board")
    header, proofs = _parts(truth.data)
    count = len(proofs) // RECORD
    picks = data.draw(
        st.one_of(
            st.lists(st.integers(0, count - 1), min_size=1, max_size=8, unique=True),
            st.just(list(range(count))),
        ),
        "records",
    )
    forged = bytearray(proofs)
    for i in picks:
        forged[i * RECORD + 12] ^= 1
    path = tmp_path_factory.mktemp("forged") / "c.proofs"
    path.write_bytes(_reseal(header, bytes(forged)))
    what = f"{truth.args} {truth.rules}: flags of {len(picks)} of {count} proofs flipped"
    _outcome(truth, path, what, findings, verify=True)
    findings.check()


def test_a_bad_proof_record_is_refused(truths: list[Truth], tmp_path: Path) -> None:
    """A record that this program cannot have written (a flag other than 0 or 1, no work),
    resealed: refused before any search."""
    truth = truths[0]
    header, proofs = _parts(truth.data)
    for offset, value in [(12, 2), (13, 1), (8, 0)]:
        forged = bytearray(proofs)
        if offset == 8:
            forged[8:12] = b"\0\0\0\0"
        else:
            forged[offset] = value
        path = tmp_path / f"bad{offset}.proofs"
        path.write_bytes(_reseal(header, bytes(forged)))
        tc.tried("prove (damaged checkpoint)")
        with pytest.raises(FileError, match="not one this program writes"):
            truth.prove(path)


def test_an_old_format_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "old.proofs"
    path.write_bytes(b'colorwars-proofs 1\n{"position": "x"}\n')
    with pytest.raises(FileError, match="not a colorwars checkpoint"):
        colorwars.prove(3, 3, checkpoint=path)
    path.write_bytes(b"colorwars proofs 1\n{}\n")
    with pytest.raises(FileError, match="format '1'"):
        colorwars.prove(3, 3, checkpoint=path)


def test_the_cli_refuses_a_winner_out_of_range(
    truths: list[Truth], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header winner out of range (resealed) was printed as player 'f' with exit 0."""
    truth = truths[1]
    header, proofs = _parts(truth.data)
    header["moves"] = {k: 5 for k in header["moves"]}
    path = tmp_path / "f.proofs"
    path.write_bytes(_reseal(header, proofs))
    code = cli_main(
        ["solve", "3x3", "--rules", "colorwars", "--method", "pn", "--checkpoint", str(path)]
    )
    out = capsys.readouterr()
    assert code not in (0, 3), out
    assert "player f" not in out.out
    assert "winner 5" in out.err
    assert str(path) in out.err
    assert len(out.err.strip().splitlines()) == 1


def test_a_result_is_never_read_from_the_header(truths: list[Truth], tmp_path: Path) -> None:
    """The header claims results its proofs do not hold (the proofs dropped, resealed): the
    run derives every result by searching, and reports what it proved."""
    truth = truths[2]
    header, _ = _parts(truth.data)
    header["moves"] = {k: 1 - w for k, w in header["moves"].items() if w is not None}
    path = tmp_path / "claims.proofs"
    path.write_bytes(_reseal(header, b""))
    with pytest.raises(FileError, match="claims player"):
        truth.prove(path)
    # Without the false claims the proofs are found again by the search.
    header["moves"] = {}
    path.write_bytes(_reseal(header, b""))
    p = truth.prove(path, verify=True)
    assert (p.winner, p.moves, p.complete) == (truth.winner, truth.moves, True)
    assert p.checked is not None
    assert p.checked > 0


def test_a_missing_folder_is_refused_before_any_search(tmp_path: Path) -> None:
    """``prove(checkpoint="missing-folder/x")`` searched to the end before it failed."""
    called: list[int] = []
    with pytest.raises(FileError, match="does not exist"):
        colorwars.prove(
            5,
            5,
            rules="colorwars",
            checkpoint=tmp_path / "missing-folder" / "x",
            progress=lambda message, positions: called.append(positions),
        )
    assert called == []  # no search started
    assert list(tmp_path.iterdir()) == []


def test_a_second_run_on_one_checkpoint_is_refused(tmp_path: Path) -> None:
    """Two runs on one checkpoint: the second is told at once that it is in use (the loser
    used to fail with FileNotFoundError over the shared temporary file).

    The first run is held inside its search (its progress callback waits) until the second
    has been refused, so the release build's speed cannot end it first."""
    path = tmp_path / "shared.proofs"
    lock = tmp_path / "shared.proofs.lock"
    first: dict[str, object] = {}
    searching = threading.Event()
    refused = threading.Event()

    def hold(message: str, positions: int) -> None:
        searching.set()
        refused.wait(30)

    def run() -> None:
        try:
            first["proof"] = colorwars.prove(
                6, 6, rules="colorwars", time=2, checkpoint=path, progress=hold
            )
        except BaseException as e:
            first["error"] = e

    t = threading.Thread(target=run)
    t.start()
    try:
        assert searching.wait(30), first
        assert lock.exists()
        with pytest.raises(FileError, match="in use by another run"):
            colorwars.prove(6, 6, rules="colorwars", time=1, checkpoint=path)
    finally:
        refused.set()
        t.join()
    assert "error" not in first, first
    assert not lock.exists()  # the run that held it removed it
    # Once the first run is done, the checkpoint is free again.
    colorwars.prove(6, 6, rules="colorwars", time=0.5, checkpoint=path)
    assert [p.name for p in tmp_path.iterdir()] == ["shared.proofs"]


def test_a_full_disk_is_our_error_and_leaves_no_temporary(tmp_path: Path) -> None:
    """On a full disk the checkpoint's save raised a bare OSError and left its ``.tmp``; then
    it raised our FileError, losing the finished proof. Now the proof is given, with why its
    checkpoint could not be written (``Proof.unsaved``)."""
    done = run_on_full_disk(
        """
        import colorwars
        path = os.path.join(DISK, "c.proofs")  # a 3x3 classic checkpoint is about 22 KiB
        p = colorwars.prove(3, 3, rules="classic", checkpoint=path)
        print(p.winner, p.complete, p.unsaved)
        print(sorted(os.listdir(DISK)))
        """,
        tmp_path / "disk",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0 True cannot write checkpoint"), done.stdout
    assert "c.proofs" in lines[0]
    assert lines[-1] == "['filler']"  # no temporary left, no partial checkpoint


def _child(code: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize("split", [False, True])
def test_a_stack_that_cannot_be_had_is_memory_error(split: bool) -> None:
    """Under ``ulimit -v 600M`` the prover's 256 MiB thread stack cannot be had: that was
    "not proven after 0 positions" unsplit and a loop rewriting the checkpoint split."""
    done = _child(
        f"""
        import resource, tempfile, os
        import colorwars
        resource.setrlimit(resource.RLIMIT_AS, (600 << 20, 600 << 20))
        path = os.path.join(tempfile.mkdtemp(), "c.proofs")
        try:
            p = colorwars.prove(4, 4, rules="colorwars", split={split}, checkpoint=path)
        except MemoryError as e:
            print("MemoryError", e)
        else:
            # A machine that could give the stack after all must give the true result.
            print("proved", p.winner, p.complete)
        """,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("MemoryError not enough memory", "proved 1 True")), done.stdout


def test_a_refuted_proof_ends_the_run_in_bounded_time(truths: list[Truth], tmp_path: Path) -> None:
    """A checkpoint holding a forged proof (resealed) with ``verify=True`` and no time limit
    never ended: it must end in our error or the true result (a child, killed after 120 s)."""
    truth = truths[0]  # 3x3 classic
    header, proofs = _parts(truth.data)
    count = len(proofs) // RECORD
    for picks in ([0], list(range(0, count, 7)), list(range(count))):
        forged = bytearray(proofs)
        for i in picks:
            forged[i * RECORD + 12] ^= 1
        path = tmp_path / f"forged{len(picks)}.proofs"
        path.write_bytes(_reseal(header, bytes(forged)))
        done = _child(
            f"""
            import colorwars
            from colorwars.errors import FileError, InvalidProofError
            try:
                p = colorwars.prove(3, 3, rules="classic", verify=True, checkpoint={str(path)!r})
            except (FileError, InvalidProofError) as e:
                print("refused", e)
            else:
                print("proved", p.winner, p.complete, sorted(p.moves.items()))
            """,
            timeout=120,
        )
        truth_line = f"proved {truth.winner} True {sorted(truth.moves.items())}"
        out = done.stdout.strip()
        assert done.returncode == 0, done.stderr
        assert out.startswith("refused") or out == truth_line, out
