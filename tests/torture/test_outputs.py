"""Files the project writes (issue 17, items 1 and 2): ``colorwars simulate --output``,
``SimulationResult.write`` and game records. A file is either the old one or the new one,
whatever happens while it is written (Ctrl-C, SIGTERM, ``kill -9``, a full disk); a folder
that cannot take the file is one line of ours before any work."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import colorwars
import pytest
from colorwars import FileError, GameRecord
from colorwars.cli import read_record

OLD = b"game,winner\nthe old results, which must survive\n"
# Enough games that writing their CSV takes a second or more: long enough to be caught midway.
MANY = 2_000_000


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "colorwars.cli", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": "utf-8"}


@contextlib.contextmanager
def _tmpfs(folder: Path, options: str) -> Iterator[Path]:
    """A small tmpfs at ``folder`` (unmounted after), or a skip saying why there is none."""
    folder.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30, check=False)


def _one_line(err: str, *words: str) -> None:
    """``err`` is one line that holds every one of ``words`` (in any case)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word.lower() in lines[0].lower(), lines[0]


def _others(folder: Path, name: str) -> list[str]:
    return sorted(p for p in os.listdir(folder) if p != name)


def test_a_full_disk_keeps_the_old_output_and_says_so(tmp_path: Path) -> None:
    """Issue 17 item 1: a full disk during ``simulate --output`` left a partial file in place
    of the old one and a bare OS message; now the old file survives, no temporary file is
    left, and the error is one line naming the file."""
    with _tmpfs(tmp_path / "disk", "size=64k") as disk:
        out = disk / "out.csv"
        out.write_bytes(OLD)
        done = subprocess.run(
            _cli("simulate", "--games", "20000", "--output", str(out)),
            capture_output=True, text=True, timeout=120, env=_env(), check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        _one_line(done.stderr, "out.csv", "space")
        assert out.read_bytes() == OLD
        assert _others(disk, "out.csv") == []


def test_write_on_a_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    """Issue 17 item 2: ``SimulationResult.write`` is atomic: a full disk is a ``FileError``
    naming the file, and the old file is kept (CSV and JSON alike)."""
    result = colorwars.simulate(games=20_000, seed=1, record=True)
    with _tmpfs(tmp_path / "disk", "size=64k") as disk:
        for name in ("out.csv", "out.json"):
            out = disk / name
            out.write_bytes(OLD)
            with pytest.raises(FileError, match=name):
                result.write(out)
            assert out.read_bytes() == OLD
            assert _others(disk, name) == []
            out.unlink()


def test_write_into_a_missing_folder_is_our_error(tmp_path: Path) -> None:
    """Issue 17 item 2: ``SimulationResult.write`` into a missing folder raised
    ``FileNotFoundError``; it is a ``FileError`` (as the command line already says)."""
    result = colorwars.simulate(games=10, seed=1)
    for name in ("out.csv", "out.json"):
        with pytest.raises(FileError, match="does not exist"):
            result.write(tmp_path / "missing" / name)
    assert list(tmp_path.iterdir()) == []


def test_write_replaces_the_old_file_whole(tmp_path: Path) -> None:
    """Issue 17 item 2: a write that succeeds replaces the old file with the whole new one and
    leaves nothing else in the folder."""
    result = colorwars.simulate(games=100, seed=1)
    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    result.write(out)
    rows = out.read_text().splitlines()
    assert rows[0].startswith("game,winner")
    assert len(rows) == 101
    assert _others(tmp_path, "out.csv") == []


@pytest.mark.parametrize(
    ("folder", "why"),
    [("missing", "does not exist"), ("readonly", "not writable")],
)
def test_the_output_folder_is_checked_before_the_run(tmp_path: Path, folder: str, why: str) -> None:
    """Issue 17 item 1: a missing or read-only output folder is one line of ours at once,
    before a long simulation (a million games of 32x32 classic take minutes)."""
    if folder == "readonly":
        # A read-only mount: not writable even for root (a mode of 0o555 is, for root).
        ctx: contextlib.AbstractContextManager[Path] = _tmpfs(tmp_path / folder, "ro,size=64k")
    else:
        ctx = contextlib.nullcontext(tmp_path / folder)
    with ctx as where:
        start = time.monotonic()
        done = subprocess.run(
            _cli("simulate", "--games", str(10**6), "--size", "32x32", "--rules", "classic",
                 "--output", str(where / "out.csv")),
            capture_output=True, text=True, timeout=60, env=_env(), check=False,
        )  # fmt: skip
        assert time.monotonic() - start < 30
        assert done.returncode == 2, done.stderr
        _one_line(done.stderr, "out.csv", why)


def _writing_anonymously(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` holds a file without a name in ``folder`` (``O_TMPFILE``: where
    the system can name one afterwards, the output is written through one, which no listing
    of the folder shows until the write is over). Linux's ``/proc``; False elsewhere."""
    fds = Path(f"/proc/{pid}/fd")
    try:
        links = [os.readlink(fd) for fd in fds.iterdir()]
    except OSError:  # no /proc, or the process is gone or its fds changed while listed
        return False
    return any(link.startswith(f"{folder}{os.sep}#") for link in links)


def _start_and_catch_the_write(folder: Path, out: Path) -> subprocess.Popen[str]:
    """A child writing ``MANY`` games' results over ``out``, caught once the write has begun:
    ``out`` changed or another file appeared in ``folder``."""
    before = out.stat()
    child = subprocess.Popen(
        _cli("simulate", "--games", str(MANY), "--seed", "3", "--threads", "1", "--output",
             str(out), "--no-progress"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )  # fmt: skip

    def writing() -> bool:
        st = out.stat() if out.exists() else None
        changed = st is None or (st.st_size, st.st_mtime_ns, st.st_ino) != (
            before.st_size,
            before.st_mtime_ns,
            before.st_ino,
        )
        return changed or bool(_others(folder, out.name)) or _writing_anonymously(child.pid, folder)

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        # Seen twice, 20 ms apart: the check of the folder before the run makes a file there
        # and removes it at once, and a signal then is not one during the write (the write
        # of MANY rows takes a second or more).
        if writing():
            time.sleep(0.02)
            if writing():
                return child
        time.sleep(0.002)
    child.kill()
    child.communicate()
    pytest.fail("the child never began writing its output")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
    ids=["SIGINT", "SIGTERM", "SIGKILL"],
)
def test_a_signal_during_the_write_keeps_the_old_file(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    """Issue 17 item 1: Ctrl-C (exit 130 after 151,126 of 2 M rows), SIGTERM or ``kill -9``
    while ``simulate --output`` writes left a partial file in place of the old one. Now the
    old file survives intact; after Ctrl-C or SIGTERM no temporary file is left and one line
    says that nothing was written."""
    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    child = _start_and_catch_the_write(tmp_path, out)
    child.send_signal(sig)
    try:
        _, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"the child did not stop within 60 s of {sig.name}")
    assert child.returncode == status, err
    assert out.read_bytes() == OLD
    if sig == signal.SIGKILL:
        # Nothing runs after kill -9: a temporary file may be left, but only a hidden one
        # beside the old file, never in its place.
        assert all(p.startswith(".out.csv.") for p in _others(tmp_path, "out.csv"))
        return
    assert _others(tmp_path, "out.csv") == []
    _one_line(err, "out.csv", "not written")


def test_a_signal_during_the_folder_check_says_nothing_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 17 item 1: SIGTERM while ``simulate --output`` checked the output's folder
    (before the run: a file made there and removed) said only "terminated"; it says, as
    during the run, that the file was not written, and the old one is kept."""
    from colorwars import cli

    out = tmp_path / "out.csv"
    out.write_bytes(OLD)

    def signalled(path: object, what: str) -> Path:
        raise cli.Terminated

    monkeypatch.setattr(cli, "check_output", signalled)
    assert cli.main(["simulate", "--games", "10", "--output", str(out)]) == 143
    _one_line(capsys.readouterr().err, "terminated", "out.csv", "not written", "old file is kept")
    assert out.read_bytes() == OLD


def test_ctrl_c_during_the_run_says_nothing_was_written(tmp_path: Path) -> None:
    """Issue 17 item 1: Ctrl-C during the simulation says, in one line, that the output was
    not written, and leaves the old file as it was."""
    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    child = subprocess.Popen(
        _cli("simulate", "--games", str(10**5), "--size", "32x32", "--rules", "classic",
             "--output", str(out), "--no-progress"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )  # fmt: skip
    time.sleep(3)
    child.send_signal(signal.SIGINT)
    try:
        _, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("the child did not stop within 60 s of Ctrl-C")
    assert child.returncode == 130, err
    _one_line(err, "out.csv", "not written")
    assert out.read_bytes() == OLD
    assert _others(tmp_path, "out.csv") == []


def test_a_record_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    """Issue 17 item 2: a record file saved with a UTF-8 byte-order mark (as some Windows
    editors do) failed to parse; it reads like the same file without it."""
    plain = "size: 2x2\nrules: colorwars\nmoves: a1 b2\nnote: café\n"
    path = tmp_path / "bom.cwr"
    path.write_bytes(b"\xef\xbb\xbf" + plain.encode())
    assert read_record(path) == GameRecord.parse(plain)
    assert GameRecord.parse("\ufeff" + plain) == GameRecord.parse(plain)
    done = subprocess.run(
        _cli("replay", "--quiet", str(path)),
        capture_output=True, text=True, timeout=60, env=_env(), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _linkat_shim() -> Callable[..., None] | None:
    """An ``os.link`` that names an anonymous file the way Linux allows once per file,
    ``linkat(fd, "", AT_FDCWD, new, AT_EMPTY_PATH)``, for the ``/proc/self/fd/N`` paths
    ``_files`` links (some sandboxes, this CI's among them, refuse the ``/proc`` route that
    desktops and servers allow): so the anonymous-file path is tested here too. None where
    that call is not available (not Linux, or not permitted)."""
    if not sys.platform.startswith("linux") or getattr(os, "O_TMPFILE", None) is None:
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    real = os.link
    at_fdcwd, at_empty_path = -100, 0x1000

    def link(src: object, dst: object, *args: object, **kwargs: object) -> None:
        text = os.fspath(src)  # type: ignore[call-overload]
        if not (isinstance(text, str) and text.startswith("/proc/self/fd/")):
            real(src, dst, *args, **kwargs)  # type: ignore[arg-type]
            return
        fd = int(text.rsplit("/", 1)[1])
        if libc.linkat(fd, b"", at_fdcwd, os.fsencode(dst), at_empty_path) != 0:  # type: ignore[call-overload]
            e = ctypes.get_errno()
            raise (FileExistsError if e == errno.EEXIST else OSError)(e, os.strerror(e), dst)

    # Usable only if it can name an anonymous file here.
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        try:
            fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
        except OSError:
            return None
        try:
            link(f"/proc/self/fd/{fd}", os.path.join(folder, "probe"))
        except OSError:
            return None
        finally:
            os.close(fd)
    return link


@pytest.fixture(params=["this system", "anonymous files named"])
def files_system(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The atomic writes as this system makes them, and as a system that can name an
    anonymous (``O_TMPFILE``) file makes them (emulated with ``linkat``, skipped where that
    is not available): whether it can is looked up afresh for each test."""
    from colorwars import _files

    monkeypatch.setattr(_files, "_LINKABLE", {})
    if request.param == "anonymous files named":
        link = _linkat_shim()
        if link is None:
            pytest.skip("this system cannot name an anonymous file, even with linkat")
        monkeypatch.setattr(os, "link", link)
    return str(request.param)


def test_an_unnamed_temporary_file_where_the_system_has_them(
    tmp_path: Path, files_system: str
) -> None:
    """Where Linux can make a file without a name (``O_TMPFILE``) and name it later, the
    output is written through one, so a kill -9 mid-write can leave nothing behind; elsewhere
    a hidden named temporary file is used (and removed on any failure we live through)."""
    from colorwars import _files

    fd = _files._anonymous(tmp_path, 0o644, tmp_path / "out.csv")
    if fd is None:
        assert files_system == "this system"
        pytest.skip("this file system (or sandbox) cannot name an O_TMPFILE file")
    try:
        claimed: list[Path] = []
        named = _files._name(fd, tmp_path, tmp_path / "out.csv", claimed)
        assert claimed == [named]
        assert named.name.startswith(".out.csv.")
        assert named.exists()
    finally:
        os.close(fd)
    named.unlink()
    _files.atomic_write(tmp_path / "out.csv", "a,b\n", "output")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_the_first_write_of_a_process_lands(tmp_path: Path, files_system: str) -> None:
    """The first atomic write on a file system (when ``_files`` first tries whether an
    anonymous file can be named there) and the next ones all land, and leave nothing else.
    Where anonymous files can be named, the try once used the write's own file, which Linux
    then refused to name again: the first write of every process failed with "No such file
    or directory"."""
    from colorwars import _files

    for n in range(3):
        _files.atomic_write(tmp_path / "out.csv", f"write {n}\n", "output")
        assert (tmp_path / "out.csv").read_text() == f"write {n}\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    if files_system == "anonymous files named":
        assert list(_files._LINKABLE.values()) == [True]


@pytest.mark.parametrize("where", ["os.open", "os.link"])
def test_an_interrupt_as_the_temporary_file_gets_its_name_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files_system: str, where: str
) -> None:
    """A Ctrl-C that lands just as the temporary file is made (a named one, ``os.open``) or
    named (an anonymous one, ``os.link``), before the name reaches the code that cleans up:
    CI once saw ``simulate --output`` leave ``.out.csv.*.tmp`` after a SIGINT, the signal
    raised inside ``tempfile.mkstemp`` after it had made the file. The name is now known
    before the file has it."""
    from colorwars import _files

    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    _files.atomic_write(tmp_path / "warm-up", "", "output")  # the file system's try is over
    (tmp_path / "warm-up").unlink()
    anonymous = bool(_files._LINKABLE.get(os.stat(tmp_path).st_dev))
    if (where == "os.link") != anonymous:
        pytest.skip(f"{files_system} does not write through {where}")
    real = getattr(os, where.split(".")[1])

    def then_interrupt(*args: object, **kwargs: object) -> object:
        done = real(*args, **kwargs)
        if str(args[1 if where == "os.link" else 0]).endswith(".tmp"):
            raise KeyboardInterrupt  # as if Ctrl-C landed as the call returned
        return done

    monkeypatch.setattr(os, where.split(".")[1], then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _files.atomic_write(out, "new", "the results")
    monkeypatch.setattr(os, where.split(".")[1], real)
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
