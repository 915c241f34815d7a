"""The one JSON reader for everything the lab is sent: bounded in size and in nesting depth.

Python's `json.loads` recurses once per nested array or object, so a few thousand `[` that fit
well inside any size limit end in a RecursionError (a traceback, or an HTTP 500 written into an
open websocket). Every entry that reads JSON from outside (socket commands, uploaded traces,
the lab's JSON API, a real server's answers) reads it here: the size is checked first, then
the depth by one linear scan that does not recurse, and only then is the text parsed. Each
refusal is a `JsonRefused` whose `reason` says which rule it broke, so the caller can say so
in the user's language.
"""

from __future__ import annotations

import json
from typing import Any, Literal

__all__ = ["DEPTH", "JsonRefused", "depth_of", "read_json"]

# Deeper than any message or step the lab sends or accepts (a step's state is about 8 levels).
DEPTH = 64

Reason = Literal["binary", "size", "depth", "syntax", "type"]


class JsonRefused(ValueError):
    """JSON the lab will not read: `reason` is the rule broken, `limit` its bound (or 0)."""

    def __init__(self, reason: Reason, detail: str = "", limit: int = 0) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason: Reason = reason
        self.detail = detail
        self.limit = limit


def depth_of(text: str, stop: int = DEPTH) -> int:
    """The deepest nesting of arrays and objects in `text`, not counting brackets inside strings;
    the scan stops as soon as it passes `stop`, so a hostile text costs one partial pass."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _not_json(name: str) -> Any:
    # Python reads NaN and Infinity, which JSON does not have (RFC 8259): a peer that sent them
    # would be told its message is fine by us and refused by everyone else.
    raise JsonRefused("syntax", f"{name} is not JSON")


# One decoder for every read: json.loads with an option builds a new one (and its scanner) per
# call, three times the parse of a socket command.
_DECODER = json.JSONDecoder(parse_constant=_not_json)


def read_json(
    data: str | bytes | bytearray | memoryview | Any,
    limit: int,
    depth: int = DEPTH,
    want: type | tuple[type, ...] | None = None,
) -> Any:
    """Parse `data` as JSON of at most `limit` bytes and `depth` levels (and of type `want`).

    Raises JsonRefused: `binary` for anything that is not text (or not UTF-8), `size`, `depth`,
    `syntax` for text that is not JSON, `type` when the value is not a `want`.
    """
    if isinstance(data, bytes | bytearray | memoryview):
        if len(data) > limit:
            raise JsonRefused("size", f"{len(data)} bytes", limit)
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise JsonRefused("binary", "not UTF-8 text") from None
    elif isinstance(data, str):
        text = data
        # a character is 1 to 4 bytes: only count exactly when the cheap bound is not enough
        if len(text) > limit or (len(text) * 4 > limit and len(text.encode("utf-8")) > limit):
            raise JsonRefused("size", f"{len(text.encode('utf-8', 'replace'))} bytes", limit)
    else:
        raise JsonRefused("binary", type(data).__name__)
    if depth_of(text, depth) > depth:
        raise JsonRefused("depth", f"more than {depth} levels", depth)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise JsonRefused("syntax", f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # cannot happen within DEPTH; kept so no caller ever sees it
        raise JsonRefused("depth", "too deeply nested", depth) from None
    if want is not None and not isinstance(value, want):
        raise JsonRefused("type", type(value).__name__)
    return value
