"""Copying definitions out of app/examples/sdkpeer.py for a script: the ones a script names,
every top-level definition those use (transitively), and only the imports they need, in the
module's own order. sdkpeer.py is read as text and parsed, never imported (the SDK it uses is a
test dependency of the lab, not a dependency)."""

from __future__ import annotations

import ast
from functools import cache
from importlib import resources


@cache
def helpers() -> tuple[list[ast.Import | ast.ImportFrom], dict[str, ast.stmt], list[str]]:
    """sdkpeer's imports, its top-level definitions by name, and its source lines."""
    source = resources.files("app.examples").joinpath("sdkpeer.py").read_text("utf-8")
    tree = ast.parse(source)
    imports: list[ast.Import | ast.ImportFrom] = []
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.Import) or (
            isinstance(node, ast.ImportFrom) and node.module != "__future__"
        ):
            imports.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update((t.id, node) for t in targets if isinstance(t, ast.Name))
    return imports, defined, source.splitlines()


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _source_of(node: ast.stmt, lines: list[str]) -> str:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[first - 1 : node.end_lineno])


def helper_code(roots: set[str]) -> tuple[list[str], str]:
    """The import lines and the definitions that `roots` need, in sdkpeer's order."""
    imports, defined, lines = helpers()
    wanted: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in wanted or name not in defined:
            continue
        wanted.add(name)
        todo += _names_in(defined[name])
    nodes = list(dict.fromkeys(defined[n] for n in defined if n in wanted))
    used = set().union(*(_names_in(node) for node in nodes))
    import_lines: list[str] = []
    for node in imports:
        kept = [a for a in node.names if (a.asname or a.name.split(".")[0]) in used]
        if not kept:
            continue
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
        if isinstance(node, ast.ImportFrom):
            import_lines.append(f"from {node.module} import {names}")
        else:
            import_lines += [f"import {n}" for n in names.split(", ")]
    code = ""
    for before, definition in zip([None, *nodes], nodes, strict=False):
        # constants stay together; definitions get PEP 8's two blank lines
        follows_constant = before is None or isinstance(before, ast.Assign)
        together = isinstance(definition, ast.Assign) and follows_constant
        code += ("\n" if together else "\n\n\n") + _source_of(definition, lines)
    return import_lines, code
