"""Tool parameters mirrored into HTTP headers: the `x-mcp-header` rules of 2026-07-28.

A tool's inputSchema may mark a property with `"x-mcp-header": "Name"`; on a tools/call over
Streamable HTTP the client then sends `Mcp-Param-Name: value` beside the body, so gateways can
route on it without parsing JSON. An annotation is valid only if its name is a non-empty RFC 9110
token, unique (ignoring case) within the schema, on a property of type string, integer or boolean
(a type list may add "null"), reached from the root through `properties` keys alone. A client on
Streamable HTTP drops a tool with any invalid annotation from its tools/list. Pure functions over
plain JSON values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .events import ToolDropped
from .http import header_value

ANNOTATION = "x-mcp-header"
HEADER_PREFIX = "Mcp-Param-"
PRIMITIVE_TYPES = frozenset({"string", "integer", "boolean"})
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Keywords whose value maps names to subschemas, and keywords whose value is instance data.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_DATA = frozenset({"const", "enum", "default", "examples"})

Path = tuple[str, ...]


def _annotations(schema: Any, at: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every subschema carrying the annotation, with its location (the keys leading to it)."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from _annotations(item, (*at, str(i)))
        return
    if not isinstance(schema, dict):
        return
    if ANNOTATION in schema:
        yield at, schema
    for key, value in schema.items():
        if key in _DATA:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _annotations(sub, (*at, key, name))
        elif isinstance(value, dict | list):
            yield from _annotations(value, (*at, key))


def _property_path(location: Path) -> Path | None:
    """The argument path of a location reached through `properties` keys only, else None."""
    steps = location[1::2]
    if not location or len(location) % 2 or any(k != "properties" for k in location[::2]):
        return None
    return steps


def _pointer(location: Path) -> str:
    return "/" + "/".join(k.replace("~", "~0").replace("/", "~1") for k in location)


def _type_ok(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return len(kinds) == 1 and kinds[0] in PRIMITIVE_TYPES
    return kind in PRIMITIVE_TYPES


def invalid_header_params(input_schema: Any) -> list[str]:
    """Why the schema's annotations are invalid, one reason each; [] when all are valid."""
    reasons: list[str] = []
    seen: dict[str, str] = {}
    for location, schema in _annotations(input_schema):
        name, where = schema[ANNOTATION], _pointer(location)
        if not isinstance(name, str) or not name:
            reasons.append(f"{where}: {ANNOTATION} must be a non-empty string")
            continue
        if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
            reasons.append(f"{where}: {ANNOTATION} {name!r} contains control characters")
        elif not _TOKEN.fullmatch(name):
            reasons.append(f"{where}: {ANNOTATION} {name!r} is not an HTTP token")
        if name.lower() in seen:
            reasons.append(f"{where}: {ANNOTATION} {name!r} repeats {seen[name.lower()]!r}")
        else:
            seen[name.lower()] = name
        if _property_path(location) is None:
            reasons.append(f"{where}: {ANNOTATION} is not reachable through properties keys alone")
        elif not _type_ok(schema):
            reasons.append(
                f"{where}: {ANNOTATION} needs type string, integer or boolean,"
                f" not {json.dumps(schema.get('type'))}"
            )
    return reasons


def header_params(input_schema: Any) -> list[tuple[str, Path]]:
    """(name, argument path) of each statically reachable annotation, in schema order. Validity
    is invalid_header_params' business."""
    out = []
    for location, schema in _annotations(input_schema):
        path = _property_path(location)
        if path is not None and isinstance(schema[ANNOTATION], str):
            out.append((schema[ANNOTATION], path))
    return out


def _text(value: Any) -> str | None:
    """An argument as header text: strings as is, integers in decimal, booleans in lowercase."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else json.dumps(value)
    if isinstance(value, str):
        return value
    return None  # an object or array never matched a primitive schema: nothing to mirror


def param_headers(input_schema: Any, arguments: Any) -> list[tuple[str, str]]:
    """The Mcp-Param-* headers of one tools/call: one per annotated argument present and not
    null, encoded with the base64 sentinel when not plain ASCII. Refuses an invalid schema (a
    client on HTTP never calls such a tool, and its names could inject headers)."""
    reasons = invalid_header_params(input_schema)
    if reasons:
        raise ValueError("; ".join(reasons))
    headers = []
    for name, path in header_params(input_schema):
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        text = _text(value)
        if text is not None:
            headers.append((HEADER_PREFIX + name, header_value(text)))
    return headers


def drop_invalid_header_tools(
    tools: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[ToolDropped]]:
    """The tools a client on Streamable HTTP keeps, and one event per tool it MUST leave out
    (and SHOULD warn about), so one bad definition does not cost the other tools."""
    kept: list[dict[str, Any]] = []
    dropped: list[ToolDropped] = []
    for tool in tools:
        reasons = invalid_header_params(tool.get("inputSchema"))
        if reasons:
            dropped.append(ToolDropped(tool.get("name"), "; ".join(reasons)))
        else:
            kept.append(tool)
    return kept, dropped
