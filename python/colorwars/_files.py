"""Files colorwars writes and reads back: written atomically, sealed with a version and
checksums, checked before they are trusted (SQLite's write-temp-fsync-rename, a BLAKE2b digest).

- ``check_output(path, what)`` before the work: the folder exists and takes a new file.
- ``atomic_open(path, what)`` / ``atomic_write(path, data, what)``: a temporary file in the
  same folder, flushed and fsynced, then renamed over the target (and the folder fsynced), so
  the file is either the old one or the new one whatever happens in between (a crash, Ctrl-C,
  ``kill -9``, a full disk); on any failure the temporary file is removed and an ``OSError``
  becomes our ``FileError`` naming the path. On Linux the temporary file has no name until it
  is complete (``O_TMPFILE``), so even ``kill -9`` mid-write leaves nothing behind.
- ``seal(kind, version, header, body)`` / ``unseal(path, data, kind, version)``: a container
  of a JSON header and a binary body, each with a BLAKE2b-256 digest::

      colorwars <kind> <version>\\n
      <header: one line of JSON, which holds "body_bytes" and "body_blake2b">\\n
      blake2b <digest of the two lines above>\\n
      <body>

  ``unseal`` says exactly what failed (another kind or version, the header's digest, a
  truncated or altered body) in a ``FileError`` naming the file, before anything is used.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal, overload

from colorwars.errors import FileError, show

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "atomic_open",
    "atomic_write",
    "check_output",
    "digest",
    "read_sealed",
    "seal",
    "unseal",
]


def digest(data: bytes) -> str:
    """The BLAKE2b-256 digest of ``data`` in hex."""
    return hashlib.blake2b(data, digest_size=32).hexdigest()


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def check_output(path: str | os.PathLike[str], what: str, *, probe: bool = True) -> Path:
    """``path`` as a ``Path`` once its folder is known to exist and be writable (checked before
    any work, so a long run never ends in a file it cannot write); else a ``FileError``. With
    ``probe`` a file is made in the folder and removed, which finds what permissions do not
    say (root, ``/proc``, a read-only disk)."""
    if not isinstance(path, str | os.PathLike) or not str(path):
        raise FileError(f"invalid {what} {show(path)}: expected a file's path (a str or Path)")
    target = Path(os.fspath(path))
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise FileError(f"cannot write {what} {target}: it is a folder")
    if not folder.is_dir():
        raise FileError(f"cannot write {what} {target}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileError(f"cannot write {what} {target}: the folder {folder} is not writable")
    if not probe:
        return target
    # Permissions do not tell everything (root passes every check, /proc takes no new
    # files, a disk can be read-only): a file is made there and removed, as the write will.
    claimed: list[Path] = []
    try:
        os.close(_create(folder, target, 0o600, claimed))
    except OSError as e:
        raise FileError(f"cannot write {what} {target}: {_reason(e)}") from None
    finally:
        _remove(claimed)
    return target


def _fsync_folder(folder: Path) -> None:
    # The rename is durable once the folder's entry is on disk (POSIX); not every system
    # lets a folder be opened, and a failure here leaves a complete file anyway.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@overload
def atomic_open(
    path: str | os.PathLike[str], what: str, mode: Literal["wb"] = "wb"
) -> contextlib.AbstractContextManager[IO[bytes]]: ...
@overload
def atomic_open(
    path: str | os.PathLike[str], what: str, mode: Literal["w"]
) -> contextlib.AbstractContextManager[IO[str]]: ...
def atomic_open(path: str | os.PathLike[str], what: str, mode: str = "wb") -> Any:
    """A file object to write ``path`` atomically: the data lands only when the ``with`` block
    ends without an error. ``mode`` is ``"wb"`` or ``"w"`` (UTF-8 text, ``\\n`` line ends)."""
    return _atomic(check_output(path, what, probe=False), what, mode)  # the write tries


#: Per file system (``st_dev``): whether an anonymous file can be given a name there.
_LINKABLE: dict[int, bool] = {}


def _anonymous(folder: Path, mode: int, target: Path) -> int | None:
    """A file with no name yet in ``folder`` (Linux's ``O_TMPFILE``) to write ``target``
    through, or None where the system or the file system has none, or cannot name one
    afterwards (some sandboxes): then nothing at all is left behind by a process killed
    mid-write (``kill -9``), since the file only gets a name once it is complete."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        device = os.stat(folder).st_dev
        fd = os.open(folder, flag | os.O_WRONLY, mode)
    except OSError as e:
        if e.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None
        raise
    if device not in _LINKABLE:
        # Naming the file must work here too: try it once on this file system, with a file
        # of its own (an anonymous file can be named only once: once named and unnamed again,
        # Linux refuses to name it a second time).
        claimed: list[Path] = []
        probe = None
        try:
            probe = os.open(folder, flag | os.O_WRONLY, mode)
            _name(probe, folder, target, claimed)  # a name like the write's own
            _LINKABLE[device] = True
        except OSError:
            _LINKABLE[device] = False
        except BaseException:
            os.close(fd)
            raise
        finally:
            if probe is not None:
                os.close(probe)
            _remove(claimed)
    if not _LINKABLE[device]:
        os.close(fd)
        return None
    return fd


def _temporary(folder: Path, target: Path) -> Path:
    return folder / f".{target.name}.{secrets.token_hex(6)}.tmp"


def _name(fd: int, folder: Path, target: Path, claimed: list[Path]) -> Path:
    """Gives the anonymous file ``fd`` a temporary name beside ``target``. The name goes into
    ``claimed`` before the link is made: a Ctrl-C that lands between the link and the return
    still leaves the caller the name to remove."""
    while True:
        tmp = _temporary(folder, target)
        claimed[:] = [tmp]
        try:
            os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
        except FileExistsError:
            claimed.clear()
            continue
        return tmp


def _create(folder: Path, target: Path, mode: int, claimed: list[Path]) -> int:
    """A new file with a temporary name beside ``target`` (as ``tempfile.mkstemp`` makes one,
    with ``mode`` instead of 0600), its name in ``claimed`` before it exists (``_name``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    while True:
        tmp = _temporary(folder, target)
        claimed[:] = [tmp]
        try:
            return os.open(tmp, flags, mode)
        except FileExistsError:
            claimed.clear()


def _remove(claimed: list[Path]) -> None:
    """Removes the temporary names in ``claimed`` (those that exist)."""
    for tmp in claimed:
        with contextlib.suppress(OSError):
            tmp.unlink()
    claimed.clear()


@contextlib.contextmanager
def _atomic(target: Path, what: str, mode: str) -> Iterator[IO[Any]]:
    folder = target.parent if str(target.parent) else Path(".")
    umask = os.umask(0)
    os.umask(umask)
    # The temporary file's name, known before the file has it: whatever interrupts the write
    # (Ctrl-C, SIGTERM, an error), from the file's creation on, the name is removed.
    claimed: list[Path] = []
    fd: int | None = None  # until a file object owns it
    try:
        try:
            fd = _anonymous(folder, 0o666 & ~umask, target)
            if fd is None:
                fd = _create(folder, target, 0o666 & ~umask, claimed)
        except OSError as e:
            raise FileError(f"cannot write {what} {target}: {_reason(e)}") from None
        if mode == "w":
            f: IO[Any] = os.fdopen(fd, "w", encoding="utf-8", newline="")
        else:
            f = os.fdopen(fd, "wb")
        fd = None
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            if not claimed:
                _name(f.fileno(), folder, target, claimed)
        os.replace(claimed[0], target)
        claimed.clear()
    except BaseException as e:
        if fd is not None:  # closed before its name is removed (Windows removes no open file)
            with contextlib.suppress(OSError):
                os.close(fd)
        _remove(claimed)
        if isinstance(e, OSError):
            raise FileError(f"cannot write {what} {target}: {_reason(e)}") from None
        raise
    _fsync_folder(folder)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, what: str) -> None:
    """Writes ``data`` to ``path`` atomically (see ``atomic_open``)."""
    if isinstance(data, str):
        with atomic_open(path, what, "w") as f:
            f.write(data)
    else:
        with atomic_open(path, what) as fb:
            fb.write(data)


def _magic(kind: str, version: int) -> bytes:
    return f"colorwars {kind} {version}\n".encode()


def seal(kind: str, version: int, header: dict[str, Any], body: bytes = b"") -> bytes:
    """The bytes of a sealed file: ``header`` (JSON-able, without the reserved keys
    ``body_bytes`` and ``body_blake2b``) and ``body``, each under a digest."""
    fields = {**header, "body_bytes": len(body), "body_blake2b": digest(body)}
    head = _magic(kind, version) + json.dumps(fields, sort_keys=True).encode() + b"\n"
    return head + b"blake2b " + digest(head).encode() + b"\n" + body


def unseal(
    path: str | os.PathLike[str], data: bytes, kind: str, version: int, what: str
) -> tuple[dict[str, Any], bytes]:
    """The header and body of a sealed file's ``data``, read from ``path``; a ``FileError``
    naming the file and what failed if it is not a sealed ``kind`` of this ``version`` or if
    any digest does not match."""

    def bad(reason: str) -> FileError:
        return FileError(f"invalid {what} {os.fspath(path)}: {reason}")

    magic = _magic(kind, version)
    if not data.startswith(magic):
        first = data[: data.find(b"\n") + 1 if b"\n" in data[:80] else 40]
        prefix = f"colorwars {kind} ".encode()
        if first.startswith(prefix):
            found = first[len(prefix) :].decode("ascii", "replace").strip()
            raise bad(
                f"it is format {found!r} and this colorwars reads format {version}"
                " (move it aside or delete it to start again)"
            )
        raise bad(f"not a colorwars {what}")
    end = data.find(b"\n", len(magic))
    if end < 0:
        raise bad("the header is truncated")
    head = data[: end + 1]
    check_end = data.find(b"\n", end + 1)
    if check_end < 0:
        raise bad("the header's checksum is missing (truncated)")
    line = data[end + 1 : check_end]
    if not line.startswith(b"blake2b ") or line[8:].decode("ascii", "replace") != digest(head):
        raise bad("the header's checksum does not match (the file is damaged)")
    try:
        header = json.loads(head[len(magic) :])
    except (ValueError, RecursionError) as e:
        raise bad(f"the header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    size, body_digest = header.pop("body_bytes", None), header.pop("body_blake2b", None)
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(body_digest, str):
        raise bad("the header does not describe its body")
    body = data[check_end + 1 :]
    if len(body) != size:
        how = "cut short" if len(body) < size else "something added after it"
        raise bad(f"the body is {len(body)} bytes where the header says {size} ({how})")
    if digest(body) != body_digest:
        raise bad("the body's checksum does not match (the file is damaged)")
    return header, body


def read_sealed(
    path: str | os.PathLike[str], kind: str, version: int, what: str
) -> tuple[dict[str, Any], bytes] | None:
    """``unseal`` of the file at ``path``; None if there is no file. A file that cannot be read
    is a ``FileError`` naming it."""
    try:
        data = Path(os.fspath(path)).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FileError(f"cannot read {what} {os.fspath(path)}: {_reason(e)}") from None
    return unseal(path, data, kind, version, what)


@contextlib.contextmanager
def locked(path: Path, what: str) -> Iterator[None]:
    """Holds ``<path>.lock`` (``flock``, checked to be the file at that name) while the
    block runs: a second run on the same ``what`` is a ``FileError`` at once, not a race over
    its files. The lock file is removed at the end."""
    if fcntl is None:
        yield
        return
    lock = path.with_name(path.name + ".lock")
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            raise FileError(f"cannot lock {what} {path}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise FileError(
                f"{what} {path} is in use by another run (its lock {lock} is held); "
                f"wait for it to finish or give another {what}"
            ) from None
        # The file locked must still be the one at that name (a run that just finished
        # removes it); otherwise lock the new one.
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)
