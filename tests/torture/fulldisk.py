"""A full disk for one child process: a small tmpfs mounted in a mount namespace of the child's
own (``unshare --mount``), so nothing outside the child ever sees it and nothing is left
mounted, whatever happens; tests that need it skip, with the reason, where the machine does
not allow it (not root, no ``unshare``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: What the child runs before the test's code: the disk filled but for ``ROOM`` bytes.
PRELUDE = """
import os, sys
DISK = sys.argv[1]
ROOM = int(sys.argv[2])
_fs = os.statvfs(DISK)
with open(os.path.join(DISK, "filler"), "wb") as _f:
    _f.write(b"\\0" * max(0, _fs.f_bavail * _fs.f_frsize - ROOM))
"""


def run_on_full_disk(
    code: str, folder: Path, room: int = 8192, size: str = "1m", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Runs Python ``code`` in a child with a ``size`` tmpfs at ``folder`` (``DISK`` in the
    code) that has ``room`` bytes free. Skips the test where that cannot be done."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("a full disk needs root and unshare(1) for a private tmpfs")
    folder.mkdir(exist_ok=True)
    script = 'mount -t tmpfs -o size="$1" tmpfs "$2" || exit 97; shift 2; exec "$@"'
    program = PRELUDE + textwrap.dedent(code)
    done = subprocess.run(
        [
            unshare,
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            size,
            str(folder),
            sys.executable,
            "-c",
            program,
            str(folder),
            str(room),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode == 97 or "unshare failed" in done.stderr:
        pytest.skip(f"cannot mount a private tmpfs here: {done.stderr.strip()[:200]}")
    return done
