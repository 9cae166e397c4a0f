"""The import graph of python/colorwars: which module imports which, at module level (run on
import) and inside functions (run on call), and every circle among the module-level imports.

    python tools/import_graph.py            # the edges, then the circles
    python tools/import_graph.py --dot      # Graphviz: module-level edges solid, others dashed

A module-level circle means a concept is missing a module of its own: move the shared piece
into the module it belongs to (tests/test_vocabulary.py fails while one exists). Imports
under ``if TYPE_CHECKING:`` are not run and are not counted.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "colorwars"
ROOT = Path(__file__).resolve().parent.parent / "python" / PACKAGE

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(
    node: ast.Import | ast.ImportFrom, here: str, is_package: bool, modules: set[str]
) -> Iterator[str]:
    """The package's modules an import statement loads: ``from colorwars import ai`` loads
    ``colorwars.ai`` (the package itself is already loading, as the parent of every module
    in it, so that is no edge to it); ``from colorwars.errors import X`` loads
    ``colorwars.errors``; ``from colorwars import __version__`` loads the package."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == PACKAGE:
                yield alias.name
        return
    if node.level:
        base = here.split(".") if is_package else here.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != PACKAGE:
        return
    for alias in node.names:
        yield f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source


def _walk(body: list[ast.stmt], top: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Import statements with whether they run at import time (module level, including
    ``try``/``if`` blocks there) or only when a function is called."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, top
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.orelse, top)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _walk(getattr(node, "body", []), False)
        elif isinstance(node, ast.ClassDef):
            yield from _walk(node.body, top)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _walk([n for n in inner if isinstance(n, ast.AST)], top)  # type: ignore[misc]
            if isinstance(node, ast.ExceptHandler):
                yield from _walk(node.body, top)


def graphs(root: Path = ROOT) -> tuple[Graph, Graph]:
    """``(module_level, function_level)``: each module's imports of the package's modules."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    # Native extensions (``_core``) are modules too, with no imports of the package.
    native = {
        module_name(p.with_name(p.name.split(".")[0] + ".py"), root) for p in root.rglob("*.so")
    } | {module_name(p.with_suffix(".py"), root) for p in root.rglob("*.pyi")}
    modules = set(paths) | native
    top: Graph = {m: set() for m in modules}
    inner: Graph = {m: set() for m in modules}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node, at_top in _walk(tree.body, True):
            for target in _targets(node, name, is_package, modules):
                if target in modules and target != name:
                    (top if at_top else inner)[name].add(target)
    for name in paths:
        inner[name] -= top[name]
    return top, inner


def circles(graph: Graph) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted; a group
    is one or more circles through the same modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dot", action="store_true", help="print a Graphviz graph")
    args = parser.parse_args(argv)
    top, inner = graphs()
    if args.dot:
        print("digraph colorwars {")
        for a in sorted(top):
            for b in sorted(top[a]):
                print(f'  "{a}" -> "{b}";')
            for b in sorted(inner[a]):
                print(f'  "{a}" -> "{b}" [style=dashed];')
        print("}")
        return 0
    n_top = sum(len(v) for v in top.values())
    n_inner = sum(len(v) for v in inner.values())
    print(f"{len(top)} modules; {n_top} module-level imports, {n_inner} function-level only")
    for a in sorted(top):
        if top[a] or inner[a]:
            print(
                f"{a}: {', '.join(sorted(top[a])) or '-'}"
                + (f"  (in functions: {', '.join(sorted(inner[a]))})" if inner[a] else "")
            )
    found = circles(top)
    print(f"module-level circles: {len(found)}")
    for group in found:
        print("  " + " <-> ".join(group))
    everything = {m: top[m] | inner[m] for m in top}
    print(f"circles counting function-level imports too: {len(circles(everything))}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
