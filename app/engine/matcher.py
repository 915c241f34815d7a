"""Matchers: small data patterns over a step, used by checkpoints, expectations and
misconceptions in scenario files.

A matcher is a mapping of dotted paths into the step (`message.params.cursor`,
`state.clients.files.cache.generation`; a key with dots in brackets: `_meta[io.x/y]`) to an
expected value, or to an operator object:
`{$present: bool}`, `{$in: [...]}`, `{$contains: x}` (a list holds x, or a string contains it),
`{$len: n}`, `{$not: value}`. Plain values compare with ==.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .step import Step

_MISSING = object()


_PART = re.compile(r"\[([^\]]+)\]|([^.\[\]]+)")


def lookup(step: Any, path: str) -> Any:
    """Follow a dotted path; list indices are numbers; a key with dots in it goes in brackets
    (`message.params._meta[io.modelcontextprotocol/subscriptionId]`); a missing link gives
    _MISSING."""
    value = step
    for match in _PART.finditer(path):
        part = match.group(1) or match.group(2)
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _check(value: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and expected and all(k.startswith("$") for k in expected):
        for op, arg in expected.items():
            if op == "$present":
                ok = (value is not _MISSING) == bool(arg)
            elif op == "$in":
                ok = value in arg
            elif op == "$contains":
                ok = isinstance(value, list | str) and (
                    arg in value
                    if isinstance(value, str) or not isinstance(arg, dict)
                    else any(matches(item, arg) for item in value)
                )
            elif op == "$len":
                ok = isinstance(value, list | str | dict) and len(value) == arg
            elif op == "$not":
                ok = not _check(value, arg)
            else:
                raise ValueError(f"unknown matcher operator {op}")
            if not ok:
                return False
        return True
    return value is not _MISSING and value == expected


def matches(step: Any, matcher: dict[str, Any]) -> bool:
    return all(_check(lookup(step, path), expected) for path, expected in matcher.items())


def first_match(steps: Sequence[Step], matcher: dict[str, Any], start: int = 0) -> int | None:
    return next((i for i in range(start, len(steps)) if matches(steps[i], matcher)), None)
