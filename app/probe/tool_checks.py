"""The probe's checks of the tools a server lists: names by the spec's rule (from 2025-11-25), by
a model API's rule (a host's, never the spec's), duplicates, and input schemas (see
app.probe.checks for the list)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import jsonschema

from app.mcp.schema_errors import show

from .levels import Check, found, has_rule, passed
from .session import Session, counted, listed

__all__ = ["duplicates", "input_schemas", "model_safe", "spec_name_faults", "tool_names"]

MODEL_SAFE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SPEC_CHARS = re.compile(r"[A-Za-z0-9._-]")
SPEC_MAX = 128


def _names(s: Session) -> list[str]:
    return [n for n in (t.get("name") for t in s.tools) if isinstance(n, str)]


def spec_name_faults(name: str) -> tuple[list[str], list[str]]:
    """What a name breaks of the spec's advice (2025-11-25 on): its length and character faults."""
    length = []
    if not 1 <= len(name) <= SPEC_MAX:
        length.append(f"{show(name)} has {counted(len(name), 'character')}")
    bad = list(dict.fromkeys(c for c in name if not SPEC_CHARS.fullmatch(c)))
    chars = [f"{show(name)} has {', '.join(repr(c) for c in bad[:8])}"] if bad else []
    return length, chars


def tool_names(s: Session) -> Check:
    """The spec's naming advice: a SHOULD from 2025-11-25; before, no rule, so a note naming
    the version that has it. Length and characters are two sentences: the worse fault leads."""
    version = s.version or s.requested
    length: list[str] = []
    chars: list[str] = []
    for name in _names(s):
        too_long, odd = spec_name_faults(name)
        length += too_long
        chars += odd
    if not length and not chars:
        names = _names(s)
        verb = "follows" if len(names) == 1 else "follow"
        if has_rule("tool-name-chars", version):
            detail = f"{counted(len(names), 'name')} {verb} the spec's naming advice"
        else:
            count = counted(len(names), "name")
            detail = f"{version} sets no rule for names; {count} {verb} 2025-11-25's"
        return passed("tool-names", "tool-name-chars", version, detail)
    rule = "tool-name-chars" if chars else "tool-name-length"
    detail = listed(chars + length, 3)
    if not has_rule(rule, version):
        detail = f"{version} sets no rule for names; 2025-11-25 advises against: {detail}"
    return found("tool-names", rule, version, detail)


def model_safe(s: Session) -> Check:
    """What model APIs accept is a host's constraint, not the spec's: a note, for the names the
    spec's own advice accepts (a name it does not is reported once, by tool-names)."""
    version = s.version or s.requested
    unsafe = [n for n in _names(s) if not MODEL_SAFE.match(n) and spec_name_faults(n) == ([], [])]
    if unsafe:
        detail = (
            f"the spec allows {listed(unsafe)}, but model APIs take only ^[a-zA-Z0-9_-]{{1,64}}$: "
            "a host rewrites such names before a model sees them"
        )
        return found("model-safe-names", "model-names", version, detail)
    return passed(
        "model-safe-names", "model-names", version, "every name is usable by model APIs as it is"
    )


def duplicates(s: Session) -> Check | None:
    """Names listed twice; not judged when the walk looped, since a page served again repeats
    its names and that fault is the pagination check's."""
    if "repeated-cursor" in s.gather_events:
        return None
    version = s.version or s.requested
    counts = Counter(_names(s))
    twice = [f"{n} ×{c}" for n, c in counts.items() if c > 1]
    if twice:
        detail = f"listed more than once: {listed(twice)}"
        if not has_rule("tool-name-unique", version):
            detail = f"{version} sets no rule; 2025-11-25 advises unique names: {detail}"
        return found("duplicate-names", "tool-name-unique", version, detail)
    return passed("duplicate-names", "tool-name-unique", version, "no name listed twice")


def _schema_fault(schema: Any) -> str | None:
    """Why an inputSchema shaped as the official schema wants (an object whose type is
    "object": the schema check reports any other shape) is not valid JSON Schema."""
    validator = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


def input_schemas(s: Session) -> Check:
    version = s.version or s.requested
    shaped = [
        t for t in s.tools if isinstance(t.get("inputSchema"), dict)
        and t["inputSchema"].get("type") == "object"
    ]  # fmt: skip
    problems = [
        f"{t.get('name')}: not valid JSON Schema ({why})"
        for t in shaped
        if (why := _schema_fault(t["inputSchema"])) is not None
    ]
    if problems:
        detail = listed(problems, 3)
        if not has_rule("input-schema", version):
            detail = f"{version} sets no rule; from 2025-11-25 it is a MUST: {detail}"
        return found("input-schemas", "input-schema", version, detail)
    verb = "is a valid JSON Schema" if len(shaped) == 1 else "are valid JSON Schemas"
    detail = f"{counted(len(shaped), 'input schema')} {verb}"
    return passed("input-schemas", "input-schema", version, detail)
