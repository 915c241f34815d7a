"""The shape of a what-if, checked before anything runs: whatif.schema.json says what each
change kind holds and within which bounds, and each problem becomes a sentence a student can
read (which change, which field, what is allowed), never a validator's English.

The envelope is checked first, then each change against its own kind's schema, so an error
names one change and one field instead of the "is not valid under any of the given schemas"
a schema-wide oneOf would give.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from . import model
from .model import WhatIf, WhatIfError


@cache
def schema() -> dict[str, Any]:
    text = resources.files("app.engine.whatif").joinpath("whatif.schema.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _validator(ref: str) -> jsonschema.Draft202012Validator:
    root = schema()
    target = root if not ref else {"$ref": f"#/$defs/{ref}", "$defs": root["$defs"]}
    return jsonschema.Draft202012Validator(target)


def read(value: Any) -> WhatIf:
    """A WhatIf from parsed JSON of unknown origin; WhatIfError says what is wrong with it."""
    if not isinstance(value, dict):
        raise WhatIfError("unreadable", "not a JSON object")
    found = value.get("format")
    if found != model.FORMAT:
        if isinstance(found, int) and not isinstance(found, bool):
            raise WhatIfError("format", found=found, known=model.FORMAT)
        raise WhatIfError("unreadable", "no format number")
    changes = value.get("changes")
    if isinstance(changes, list) and len(changes) > model.MAX_CHANGES:
        raise WhatIfError("too-many", most=model.MAX_CHANGES)
    errors = sorted(_validator("").iter_errors(value), key=lambda e: list(map(str, e.path)))
    for error in errors:
        if list(error.path)[:1] != ["changes"]:
            raise WhatIfError("unreadable", f"{_dotted(error)}: {error.message}")
    for n, change in enumerate(changes or [], 1):
        check_change(change, n)
    return WhatIf(value["scenario"], value["version"], value["transport"], tuple(changes or []))


def check_change(change: Any, n: int) -> None:
    """One change against its kind's schema; `n` counts from 1 as a student would."""
    kind = change.get("change") if isinstance(change, dict) else None
    if kind not in model.KINDS:
        shown = kind if isinstance(kind, str) and len(kind) <= 40 else "?"
        raise WhatIfError("unknown-change", n=n, kind=shown)
    error = next(iter(_validator(str(kind)).iter_errors(change)), None)
    if error is None:
        return
    where = {"n": n, "kind": kind, "field": _dotted(error) or "change"}
    if error.validator == "required":
        missing = next(p for p in error.validator_value if p not in error.instance)
        raise WhatIfError("missing", **{**where, "field": missing})
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        shown = extra[0] if extra and len(extra[0]) <= 40 else "?"
        raise WhatIfError("unknown-field", **{**where, "field": shown})
    if error.validator in ("minimum", "maximum") or (
        error.validator == "type"
        and error.validator_value == "integer"
        and "maximum" in error.schema
    ):
        raise WhatIfError(
            "range", **where, low=error.schema["minimum"], high=error.schema["maximum"]
        )
    if error.validator == "pattern":
        rule = "server-id" if "32" in str(error.validator_value) else "tool-name"
        raise WhatIfError(rule, **where)
    if error.validator in ("maxLength", "maxItems", "maxProperties", "minItems", "minLength"):
        raise WhatIfError("size", **where)
    raise WhatIfError("field", str(error.message)[:200], **where)


def _dotted(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.path if not isinstance(p, int) or p > -1)
