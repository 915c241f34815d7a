"""Showing untrusted protocol text safely: escaping, visible control characters, JSON colour.

Tool names and descriptions come from servers a student does not control, so every string that
reaches a page goes through `markupsafe.escape`, and control characters are shown as visible
`\\uXXXX` marks instead of being passed to the browser. `json_html` pretty-prints a JSON value as
escaped HTML with one span class per token type (key, string, number, literal), the way the
transport and output views colour messages; nothing in it is ever marked safe before escaping.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from markupsafe import Markup, escape

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _mark(match: re.Match[str]) -> str:
    return f"\x00{ord(match.group()):04x}\x01"


def visible(value: Any) -> Markup:
    """Escape `value` and show its control characters as small `\\uXXXX` marks."""
    marked = _CONTROL.sub(_mark, "" if value is None else str(value))
    html = str(escape(marked))
    html = re.sub(r"\x00([0-9a-f]{4})\x01", r'<span class="ctl">\\u\1</span>', html)
    return Markup(html)


def plain(value: Any) -> str:
    """Text for attributes: control characters replaced by `\\uXXXX` (escaped later)."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", "" if value is None else str(value))


def _string(value: str) -> str:
    return '<span class="j-s">' + str(escape(json.dumps(value, ensure_ascii=False))) + "</span>"


def _html(value: Any, depth: int) -> str:
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f'{inner}<span class="j-k">{escape(json.dumps(str(k), ensure_ascii=False))}</span>: '
            + _html(v, depth + 1)
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _html(v, depth + 1) for v in value) + "\n" + pad + "]"
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return f'<span class="j-l">{json.dumps(value)}</span>'
    if isinstance(value, int | float):
        return f'<span class="j-n">{escape(json.dumps(value))}</span>'
    return _string(str(value))


def json_html(value: Any) -> Markup:
    """Pretty-printed, escaped, colour-classed HTML for a JSON value."""
    return Markup(_html(value, 0))


def frame_html(frame: str | None) -> Markup:
    """The bytes of a transport frame: escaped, line ends and control characters made visible."""
    if frame is None:
        return Markup("")
    lines = frame.split("\n")
    out = []
    for i, line in enumerate(lines):
        cr = line.endswith("\r")
        body = visible(line[:-1] if cr else line)
        ends = ('<span class="eol">\\r</span>' if cr else "") + (
            '<span class="eol">\\n</span>' if i < len(lines) - 1 else ""
        )
        out.append(str(body) + ends)
    return Markup("\n".join(out))


def init_app(app: Flask) -> None:
    app.jinja_env.filters.update(
        visible=visible, plain=plain, json_html=json_html, frame_html=frame_html
    )
