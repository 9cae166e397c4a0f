#!/usr/bin/env python3
"""Checks the structure of a macOS wheel that cannot be run here.

    tools/check-macos-wheel.py WHEEL [--arch arm64|x86_64]

Reads the extension (colorwars/_core.abi3.so) with LLVM's Mach-O readers (`llvm-objdump`,
`llvm-nm`: Debian's `llvm` package) and fails, one line per problem, unless:
- the wheel is an abi3 wheel for CPython 3.11 and later tagged macosx_X_Y_ARCH, and its WHEEL
  file carries the same tag;
- the extension is a thin 64-bit Mach-O dylib whose cputype is ARCH (ARM64 for arm64, X86_64
  for x86_64);
- its minimum macOS (LC_BUILD_VERSION's minos, or LC_VERSION_MIN_MACOSX's version) is the X.Y of
  the tag: the wheel promises no older macOS than the binary loads on;
- it exports `_PyInit__core` (the init function `import colorwars._core` looks up);
- it links only to system libraries (/usr/lib/... and /System/Library/..., libSystem among
  them), with no @rpath, @loader_path or @executable_path load;
- each undefined symbol is bound to one of those libraries or is Python's C API (`_Py...`,
  looked up in the interpreter at load time, as every extension module does).
Prints what it read. LLVM tools are found as `llvm-objdump` / `llvm-nm`, else the newest
`llvm-objdump-N` / `llvm-nm-N` on PATH, else LLVM_OBJDUMP / LLVM_NM.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CPUTYPES = {"arm64": "ARM64", "x86_64": "X86_64"}
SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")
INIT = "_PyInit__core"


def llvm_tool(name: str) -> str:
    """The path of LLVM's `name` (llvm-objdump, llvm-nm)."""
    override = os.environ.get(name.upper().replace("-", "_"))
    if override:
        return override
    found = shutil.which(name)
    if found:
        return found
    versions = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.isdir(folder):
            for entry in os.listdir(folder):
                m = re.fullmatch(re.escape(name) + r"-(\d+)", entry)
                if m:
                    versions.append((int(m.group(1)), os.path.join(folder, entry)))
    if not versions:
        sys.exit(f"check-macos-wheel: no {name} on PATH (apt-get install llvm)")
    return max(versions)[1]


def run(*args: str) -> str:
    result = subprocess.run(args, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"check-macos-wheel: {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def load_commands(text: str) -> list[dict[str, str]]:
    """`llvm-objdump --macho --private-headers` output, one dict of `key value` per command."""
    commands: list[dict[str, str]] = []
    for line in text.splitlines():
        if line.startswith("Load command"):
            commands.append({})
        elif commands and line.strip():
            key, _, value = line.strip().partition(" ")
            commands[-1].setdefault(key, value.strip())
    return commands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--arch", choices=sorted(CPUTYPES), help="default: from the tag")
    args = parser.parse_args()
    wheel: Path = args.wheel
    problems: list[str] = []

    m = re.fullmatch(
        r"colorwars-[^-]+-cp311-abi3-macosx_(\d+)_(\d+)_(arm64|x86_64)\.whl", wheel.name
    )
    if not m:
        sys.exit(f"check-macos-wheel: {wheel.name} is not named as an abi3 macOS wheel")
    tag_os = f"{m.group(1)}.{m.group(2)}"
    tag_arch = m.group(3)
    arch = args.arch or tag_arch
    if arch != tag_arch:
        problems.append(f"the tag says {tag_arch}, wanted {arch}")
    tag = wheel.name.removesuffix(".whl").split("-", 2)[2]

    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        extensions = [n for n in names if re.fullmatch(r"colorwars/_core[^/]*\.so", n)]
        wheel_files = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/WHEEL", n)]
        if len(wheel_files) != 1:
            sys.exit(
                f"check-macos-wheel: {wheel.name} has {len(wheel_files)} .dist-info/WHEEL files"
            )
        tags = [
            line.split(":", 1)[1].strip()
            for line in z.read(wheel_files[0]).decode().splitlines()
            if line.startswith("Tag:")
        ]
        if tags != [tag]:
            problems.append(f"its WHEEL file has the tags {tags}, the file name {tag}")
        if extensions != ["colorwars/_core.abi3.so"]:
            sys.exit(f"check-macos-wheel: wanted one colorwars/_core.abi3.so, found {extensions}")
        with tempfile.TemporaryDirectory() as work:
            so = z.extract(extensions[0], work)
            objdump, nm = llvm_tool("llvm-objdump"), llvm_tool("llvm-nm")
            header = run(objdump, "--macho", "--private-header", so).split()
            commands = load_commands(run(objdump, "--macho", "--private-headers", so))
            exports = run(objdump, "--macho", "--exports-trie", so).split()
            undefined = run(nm, "-m", "--undefined-only", so).splitlines()

    print(f"{wheel.name}: {extensions[0]}")
    # Mach header / magic cputype cpusubtype caps filetype ...
    fields = header[header.index("magic") + 1 :] if "magic" in header else []
    if "flags" in fields:
        fields = fields[fields.index("flags") + 1 :]
    magic, cputype, filetype = (fields[0], fields[1], fields[4]) if len(fields) > 4 else ("?",) * 3
    print(f"  header: {magic}, cputype {cputype}, filetype {filetype}")
    if magic != "MH_MAGIC_64" or cputype != CPUTYPES[arch] or filetype not in ("DYLIB", "BUNDLE"):
        wanted = f"MH_MAGIC_64 {CPUTYPES[arch]} DYLIB"
        problems.append(f"the extension is {magic} {cputype} {filetype}, wanted {wanted}")

    minos = [c["minos"] for c in commands if c.get("cmd") == "LC_BUILD_VERSION"]
    minos += [c["version"] for c in commands if c.get("cmd") == "LC_VERSION_MIN_MACOSX"]
    platforms = [c.get("platform") for c in commands if c.get("cmd") == "LC_BUILD_VERSION"]
    named = ", ".join(map(str, platforms)) or "-"
    print(f"  minimum macOS: {', '.join(minos) or 'none'} (platform {named}), tag {tag_os}")
    if len(minos) != 1 or minos[0] not in (tag_os, tag_os + ".0"):
        problems.append(f"its minimum macOS is {minos or 'not recorded'}, the tag says {tag_os}")
    if any(p not in ("macos", "1", "PLATFORM_MACOS") for p in platforms):
        problems.append(f"LC_BUILD_VERSION names the platform {platforms}, wanted macos")

    print(f"  exports {INIT}: {'yes' if INIT in exports else 'no'}")
    if INIT not in exports:
        problems.append(f"{INIT} is not in its exports trie")

    libraries = [
        c["name"].split(" (offset")[0] for c in commands if c.get("cmd") == "LC_LOAD_DYLIB"
    ]
    for cmd in (
        "LC_LOAD_WEAK_DYLIB",
        "LC_REEXPORT_DYLIB",
        "LC_LAZY_LOAD_DYLIB",
        "LC_LOAD_UPWARD_DYLIB",
    ):
        libraries += [c["name"].split(" (offset")[0] for c in commands if c.get("cmd") == cmd]
    print(f"  links to: {', '.join(libraries)}")
    foreign = [lib for lib in libraries if not lib.startswith(SYSTEM_PREFIXES)]
    if foreign:
        problems.append(f"it links to libraries that are not macOS's own: {foreign}")
    if not any(lib.startswith("/usr/lib/libSystem") for lib in libraries):
        problems.append("it does not link to libSystem")
    rpaths = [c.get("path", "") for c in commands if c.get("cmd") == "LC_RPATH"]
    if rpaths:
        problems.append(f"it carries run paths {rpaths}")

    # `(undefined) external _name (from libSystem)`; Python's symbols have no `(from ...)`.
    bound: dict[str, int] = {}
    unbound: list[str] = []
    for line in undefined:
        m = re.search(r"external (\S+)(?: \(from ([^)]+)\))?", line)
        if not m:
            continue
        if m.group(2):
            bound[m.group(2)] = bound.get(m.group(2), 0) + 1
        elif not re.match(r"__?Py", m.group(1)):
            unbound.append(m.group(1))
    python = sum(1 for line in undefined if re.search(r"external __?Py\S*$", line.strip()))
    print(
        f"  undefined symbols: {python} of Python's C API, "
        + ", ".join(f"{n} from {lib}" for lib, n in bound.items())
    )
    if unbound:
        problems.append(
            f"undefined symbols neither Python's nor bound to a library: {unbound[:10]}"
        )
    short = {Path(lib).name.split(".")[0] for lib in libraries}
    strays = sorted(lib for lib in bound if lib not in short)
    if strays:
        problems.append(f"symbols bound to libraries it does not load: {strays}")

    for problem in problems:
        print(f"check-macos-wheel: {wheel.name}: {problem}", file=sys.stderr)
    if not problems:
        print("  ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
