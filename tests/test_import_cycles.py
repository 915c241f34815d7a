"""No import cycles in app/: the import graph is built from the source (ast) and must be acyclic.

What counts as an edge from module A to module B: any `import B` or `from B import x` written in A,
wherever it is written, since every one of them runs: at the top, inside a function (an import
deferred to dodge a cycle is still that cycle), and under `if TYPE_CHECKING:`. TYPE_CHECKING-only
imports count too, on purpose: such an import is still a dependency of A's design (A's types
name B), and three of the cycles this test was written against (the client and its helpers,
the script's verbs and their runner, the classroom service and the parts it builds) hid behind
TYPE_CHECKING only; the cure is the same for both kinds, to depend on something smaller that
both can import (a Protocol, as app.engine.stage and app.web.classroom.needs do, a core class).
No cycle is tolerated, not even inside one package.
`from P import name` is an edge to P.name when that is a module of app/, else to P. An import
of `a.b.c` is an edge to `a.b.c` alone: Python runs the packages' `__init__` first, but a
package that registers its own children is not the tangle this test is about.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "app"


def module_names(root: Path) -> dict[str, Path]:
    """Every module under `root` by its dotted name (a package by its own name)."""
    names = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name a (possibly relative) `from ... import` in `module` refers to."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that `module` imports, anywhere in its source."""
    top = next(iter(modules)).split(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, path.name == "__init__.py", node.level, node.module)
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in modules else target)
    return {name for name in found if name in modules and name != module and name.startswith(top)}


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_app_has_no_import_cycles() -> None:
    graph = import_graph(ROOT)
    assert len(graph) > 50, "the graph should cover every module of app/"
    found = [sorted(c) for c in cycles(graph)]
    assert not found, f"import cycles in app/: {found}"


def test_a_cycle_through_a_function_or_type_checking_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "face.py").write_text("def f():\n    from app import parts\n")
    (package / "parts.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .face import f\n"
    )
    (package / "leaf.py").write_text("from app.parts import *\n")
    (package / "talk.py").write_text(
        "import typing\nif typing.TYPE_CHECKING:\n    import app.rules\n"
    )
    (package / "rules.py").write_text("from . import talk\n")
    found = sorted(sorted(c) for c in cycles(import_graph(package)))
    assert found == [["app.face", "app.parts"], ["app.rules", "app.talk"]]
