"""Word jsonschema's errors about an MCP message as short, safe sentences for students.

jsonschema reports where an instance fails (a path) and why (a message); this module turns each
error into one line such as `ListToolsResult: result.tools[0].inputSchema: 'type' is a required
property`, says for an anyOf which branch came closest, and rewrites the errors of the
definitions `schema_files` closed into one line per extra field (`result.tools[0] (tool 'search'):
field 'title' is not part of Tool in protocol version 2024-11-05`). Untrusted text (tool names,
field names) is escaped and capped before it is shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import jsonschema  # type: ignore[import-untyped,unused-ignore]

from app.mcp.schema_files import CLOSED_MARK, validator

__all__ = ["location", "schema_problems", "show"]

_MAX_SHOWN = 160
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_CLOSING_KEYWORDS = ("additionalProperties", "unevaluatedProperties")
# Whether the lab's closing of the definitions applies to the check under way. False checks what
# the official schema alone says (it leaves objects open). One flag for a whole check: a context
# variable, so that it need not be threaded through every helper of app.mcp.schemas.
CLOSED: ContextVar[bool] = ContextVar("closed", default=True)


def show(text: str, limit: int = 40) -> str:
    """A safe rendering of untrusted text: escaped (no control or invisible characters), capped."""
    if len(text) <= limit:
        return ascii(text)
    return f"{text[:limit]!a}... ({len(text)} characters)"


def location(base: str, path: Iterable[Any]) -> str:
    """A readable path: result.tools[0].inputSchema, params._meta["io.modelcontextprotocol/..."]."""
    where = base
    for part in path:
        if isinstance(part, int):
            where += f"[{part}]"
        elif _IDENTIFIER.fullmatch(str(part)):
            where += f".{part}" if where else str(part)
        else:
            where += f"[{json.dumps(str(part), ensure_ascii=True)}]"
    return where or "message"


def schema_problems(version: str, name: str, instance: Any, base: str) -> list[str]:
    """Every way `instance` (found at `base` in the message) fails definition `name`."""
    problems: list[str] = []
    for error in validator(version, name).iter_errors(instance):
        extra = _extra_fields(error, version, base)
        if extra is not None:
            if CLOSED.get():
                problems.extend(extra)
            continue
        message = error.message
        if error.context:  # anyOf/oneOf: say which branch came closest and why it failed
            best = jsonschema.exceptions.best_match(error.context)
            message = f"{message}; closest: {location(base, best.absolute_path)}: {best.message}"
        problems.append(f"{name}: {location(base, error.absolute_path)}: {_short(message)}")
    return problems


def _extra_fields(error: Any, version: str, base: str) -> list[str] | None:
    """One line per field a closed definition does not declare; None for any other error."""
    mark = error.schema.get(CLOSED_MARK) if isinstance(error.schema, dict) else None
    if error.validator not in _CLOSING_KEYWORDS or mark is None:
        return None
    instance = error.instance if isinstance(error.instance, dict) else {}
    where = location(base, error.absolute_path)
    if mark["label"] == "Tool" and isinstance(instance.get("name"), str):
        where = f"{where} (tool {show(instance['name'])})"
    declared = set(mark["declared"])
    return [
        f"{where}: field {show(key)} is not part of {mark['label']} in protocol version {version}"
        for key in instance
        if key not in declared
    ]


def _short(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."
