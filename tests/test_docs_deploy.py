"""docs/DEPLOY.md's table of settings is the code's: every LAB_ variable, each with its default.

The settings are found in app/ by reading its source (ast), not by a list kept by hand: every
configuration key the app reads (`config.get("X")`, `config["X"]`, `config.setdefault("X", …)`,
`from_mapping(X=…)`; the app reads LAB_X into X) and every LAB_ name read from the environment.
A key the code writes for itself is not a setting (INTERNAL). Where the code gives a default as
a constant, the table's default must start with it. So a setting added, renamed or re-defaulted
anywhere in app/ fails here until the guide says what it is:

    .venv/bin/python -m tests.test_docs_deploy     # prints the settings the code has
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "DEPLOY.md"
# Keys the app sets itself, never from the environment: the policy string derived from
# FRAME_ANCESTORS at start, the ids of --trace files once loaded, the engine a test swaps in.
INTERNAL = {"CSP", "_TRACE_IDS", "LAB_ENGINE"}
# Flask's own keys the guides tell an administrator to set (LTI's cookies and sessions).
FLASK = {"SECRET_KEY", "SESSION_COOKIE_SAMESITE", "SESSION_COOKIE_SECURE"}
NO_DEFAULT = object()


def _constant(node: ast.expr | None, names: dict[str, Any]) -> Any:
    """The value of a constant expression (4 * 3600, a module constant), else NO_DEFAULT."""
    if node is None:
        return NO_DEFAULT
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    try:
        expression = ast.fix_missing_locations(ast.Expression(body=_substitute(node, names)))
        return eval(compile(expression, "<default>", "eval"), {"__builtins__": {}})
    except Exception:
        return NO_DEFAULT


def _substitute(node: ast.expr, names: dict[str, Any]) -> ast.expr:
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ValueError(node.id)
        return ast.copy_location(ast.Constant(names[node.id]), node)
    if isinstance(node, ast.BinOp):
        return ast.BinOp(_substitute(node.left, names), node.op, _substitute(node.right, names))
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(node.op, _substitute(node.operand, names))
    if isinstance(node, ast.Constant):
        return node
    raise ValueError(ast.dump(node))


def _is_config(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "config") or (
        isinstance(node, ast.Name) and node.id == "config"
    )


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _constants(tree: ast.Module) -> dict[str, Any]:
    """The module's constants, for defaults named by one (MAX_BODY = 1024 * 1024)."""
    names: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = _constant(node.value, names)
            if value is not NO_DEFAULT:
                names[node.targets[0].id] = value
    return names


def _reads(tree: ast.Module) -> Iterator[tuple[str, Any, bool]]:
    """(key, default, whether the default is the effective one) for each setting read."""
    names = _constants(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            key = _text(node.slice)
            if key and _is_config(node.value) and isinstance(node.ctx, ast.Load):
                yield key, NO_DEFAULT, False  # config["X"]
            elif key and key.startswith("LAB_") and not key.startswith("LAB_TEST"):
                yield key, NO_DEFAULT, False  # os.environ["LAB_X"], read or set by a command
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0]  # config["X"] = CONSTANT: a default filled in at start
            key = _text(target.slice)
            if key and _is_config(target.value):
                yield key, _constant(node.value, names), False
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, node.func.value
            key = _text(node.args[0]) if node.args else None
            if method in ("get", "setdefault") and _is_config(receiver) and key:
                default = _constant(node.args[1] if len(node.args) > 1 else None, names)
                yield key, default, method == "setdefault"
            elif method == "from_mapping" and _is_config(receiver):
                for keyword in node.keywords:
                    if keyword.arg:
                        yield keyword.arg, _constant(keyword.value, names), True
            elif method == "get" and key and key.startswith("LAB_"):
                yield key, NO_DEFAULT, False  # os.environ.get("LAB_X"), env.get("LAB_X")


def settings() -> dict[str, Any]:
    """{LAB_NAME: default or NO_DEFAULT} for every setting app/ reads."""
    found: dict[str, Any] = {f"LAB_{key}": NO_DEFAULT for key in FLASK}
    for path in sorted((ROOT / "app").rglob("*.py")):
        for key, default, effective in _reads(ast.parse(path.read_text(encoding="utf-8"))):
            if key in INTERNAL:
                continue
            name = key if key.startswith("LAB_") else "LAB_" + key
            if effective or found.get(name, NO_DEFAULT) is NO_DEFAULT:
                found[name] = default
    return found


def documented() -> dict[str, str]:
    """{LAB_NAME: its default cell} from the guide's table of settings."""
    rows = re.findall(r"^\| `(LAB_[A-Z0-9_]+)` \| ([^|]*) \|", GUIDE.read_text("utf-8"), re.M)
    return {name: cell.strip() for name, cell in rows}


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def test_every_setting_of_the_code_has_a_row_and_every_row_a_setting() -> None:
    code, guide = settings(), documented()
    assert {"LAB_REDIS_URL", "LAB_PUBLIC_URL", "LAB_FRAME_ANCESTORS", "LAB_LTI_CONFIG"} <= set(code)
    missing = sorted(set(code) - set(guide))
    assert missing == [], f"add a row to docs/DEPLOY.md's table for: {missing}"
    stale = sorted(set(guide) - set(code))
    assert stale == [], f"docs/DEPLOY.md lists settings the code no longer reads: {stale}"


def test_each_rows_default_is_the_codes() -> None:
    guide = documented()
    wrong = {
        name: (shown(default), guide.get(name))
        for name, default in settings().items()
        if default is not NO_DEFAULT
        and default is not None
        and not (guide.get(name) or "").strip("`").startswith(shown(default))
    }
    assert wrong == {}, f"docs/DEPLOY.md's default differs from the code's (code, guide): {wrong}"


def test_the_guide_has_the_sections_the_issue_names() -> None:
    text = GUIDE.read_text("utf-8")
    for needle in (
        "## One process, or workers and Redis",
        "appendonly yes",
        "## A reverse proxy",
        "proxy_set_header Upgrade",
        "LAB_PUBLIC_URL",
        "LAB_ALLOWED_ORIGINS",
        "LAB_FRAME_ANCESTORS",
        "## Capacity",
        "## Every setting",
    ):
        assert needle in text, needle


if __name__ == "__main__":
    for name, default in sorted(settings().items()):
        print(f"| `{name}` | {'none' if default is NO_DEFAULT else shown(default)} | |")
