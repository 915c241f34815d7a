"""docs/step.schema.json, generated from the TypedDicts of app.engine.step.

The step's contract is written once, as Python types; this module turns those types into a JSON
Schema (2020-12) for everyone outside Python (course pages, scripts reading the JSONL, front-end
tests). Closed objects (`additionalProperties: false`) for every TypedDict, so a key the types do
not name fails validation. `python -m app.engine.stepschema` rewrites the file; a test checks it
is current and that every trace the tests produce validates against it.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from app import paths

from . import step as step_types

SCHEMA_PATH = paths.STEP_SCHEMA
ID = "https://mcp-discovery-lab.invalid/step.schema.json"


def _is_typeddict(kind: Any) -> bool:
    return isinstance(kind, type) and typing.is_typeddict(kind)


def _schema(kind: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if kind is Any:
        return {}
    if kind is type(None):
        return {"type": "null"}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if kind in simple:
        return {"type": simple[kind]}
    if _is_typeddict(kind):
        if kind.__name__ not in defs:
            defs[kind.__name__] = {}  # reserve the name first: types may refer to each other
            defs[kind.__name__] = _object(kind, defs)
        return {"$ref": f"#/$defs/{kind.__name__}"}
    origin, args = get_origin(kind), get_args(kind)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema(a, defs) for a in args]}
    if origin is list:
        return {"type": "array", "items": _schema(args[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], defs)}
    raise TypeError(f"no JSON Schema for {kind!r}")


def _object(kind: Any, defs: dict[str, Any]) -> dict[str, Any]:
    hints = get_type_hints(kind)
    out: dict[str, Any] = {"type": "object"}
    doc = (kind.__doc__ or "").strip()
    if doc and not doc.startswith(kind.__name__ + "("):
        out["description"] = " ".join(doc.split())
    out["properties"] = {key: _schema(hints[key], defs) for key in hints}
    out["required"] = sorted(kind.__required_keys__)
    out["additionalProperties"] = False
    return out


def generate() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    root = _object(step_types.Step, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": ID,
        "title": "Step",
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def render() -> str:
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(render(), "utf-8")
    print(f"wrote {SCHEMA_PATH}")
