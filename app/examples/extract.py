"""Copying definitions out of app/examples/sdkpeer.py and sdkconnect.py for a script: the ones a
script names, every top-level definition those use (transitively), and only the imports they
need, in the modules' own order (sdkpeer's, then sdkconnect's). The files are read as text and
parsed, never imported (the SDK they use is a test dependency of the lab, not a dependency).
sdkconnect's import of sdkpeer is dropped: in a script, both modules' definitions sit in one file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from importlib import resources

SOURCES = ("sdkpeer.py", "sdkconnect.py")  # a script's definitions come in this order


@dataclass(frozen=True, eq=False)  # one per statement: an Assign may define several names
class Definition:
    node: ast.stmt
    lines: list[str]  # the source lines of the file it is in

    def source(self) -> str:
        decorators = getattr(self.node, "decorator_list", [])
        first = min([self.node.lineno] + [d.lineno for d in decorators])
        return "\n".join(self.lines[first - 1 : self.node.end_lineno])


@cache
def helpers() -> tuple[list[ast.Import | ast.ImportFrom], dict[str, Definition]]:
    """The SDK modules' imports (not of each other) and their top-level definitions by name."""
    imports: list[ast.Import | ast.ImportFrom] = []
    defined: dict[str, Definition] = {}
    for name in SOURCES:
        source = resources.files("app.examples").joinpath(name).read_text("utf-8")
        lines = source.splitlines()
        for node in ast.parse(source).body:
            if isinstance(node, ast.Import):
                imports.append(node)
            elif isinstance(node, ast.ImportFrom):
                if node.module not in ("__future__", *(f"app.examples.{s[:-3]}" for s in SOURCES)):
                    imports.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined[node.name] = Definition(node, lines)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        defined[t.id] = Definition(node, lines)
    return imports, defined


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _member_key(name: str) -> tuple[int, str]:
    """isort's order of the names in a `from` import: constants, classes, then the rest."""
    bare = name.split(" as ")[0]
    kind = 0 if bare.isupper() and len(bare) > 1 else 1 if bare[:1].isupper() else 2
    return kind, bare.lower()


def import_lines(imports: list[ast.Import | ast.ImportFrom], used: set[str]) -> list[str]:
    """The import lines that bring `used` names, merged per module and in isort's order within
    a section: every `import x` first, then `from x import ...`, each by module name."""
    straight: dict[str, None] = {}
    froms: dict[str, dict[str, None]] = {}
    for node in imports:
        for a in node.names:
            if (a.asname or a.name.split(".")[0]) not in used:
                continue
            name = a.name + (f" as {a.asname}" if a.asname else "")
            if isinstance(node, ast.ImportFrom):
                froms.setdefault(str(node.module), {})[name] = None
            else:
                straight[name] = None
    out = [f"import {name}" for name in sorted(straight, key=str.lower)]
    for module in sorted(froms, key=str.lower):
        out.append(f"from {module} import {', '.join(sorted(froms[module], key=_member_key))}")
    return out


def helper_code(roots: set[str]) -> tuple[list[str], str]:
    """The import lines and the definitions that `roots` need, in the modules' order."""
    imports, defined = helpers()
    wanted: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in wanted or name not in defined:
            continue
        wanted.add(name)
        todo += _names_in(defined[name].node)
    nodes = list(dict.fromkeys(defined[n] for n in defined if n in wanted))
    used = set().union(*(_names_in(d.node) for d in nodes))
    code = ""
    for before, definition in zip([None, *nodes], nodes, strict=False):
        # constants stay together; definitions get PEP 8's two blank lines
        follows_constant = before is None or isinstance(before.node, ast.Assign)
        together = isinstance(definition.node, ast.Assign) and follows_constant
        code += ("\n" if together else "\n\n\n") + definition.source()
    return import_lines(imports, used), code
