"""How much of a long message the handout prints: a message is folded after a number of printed
lines, and the handout says how many lines it left out and where the whole message is.

A tools/list result with a dozen tools is several screens of JSON; printed whole it takes a page
by itself and a step's other parts with it. Lines are counted as they print: a line longer than
the paper's width wraps onto several (`PRINTED_WIDTH` characters of the handout's mono type at
7.5 pt on A4 or Letter, with some room), so a one-line stdio frame of 3,000 characters counts as
the thirty lines it takes. The HTML of `json_html` and `frame_html` keeps every span within its
line (JSON strings carry no raw newline), so cutting between lines never cuts a tag.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from app.web.text import frame_html, json_html

PRINTED_WIDTH = 96  # characters a printed line holds
MESSAGE_LINES = 12  # printed lines of a JSON-RPC message before it is folded
FRAME_LINES = 6  # printed lines of a frame (its body repeats the message it carries)
SLACK = 4  # a message at most this much over its limit is printed whole: no note for 2 lines
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Folded:
    html: Markup
    hidden: int  # printed lines left out (0: printed whole)


def _printed_lines(line: str) -> int:
    """How many printed lines one line of the HTML takes once wrapped."""
    text = html.unescape(_TAG.sub("", line))
    return max(1, -(-len(text) // PRINTED_WIDTH))


def _fold(markup: Markup, limit: int) -> Folded:
    lines = str(markup).split("\n")
    costs = [_printed_lines(line) for line in lines]
    if sum(costs) <= limit + SLACK:
        return Folded(markup, 0)
    kept: list[str] = []
    used = 0
    for line, cost in zip(lines, costs, strict=True):
        if used + cost > limit:
            if not kept:  # one very long line: keep the part of it that fits
                visible = _TAG.sub("", line)
                kept.append(str(Markup.escape(html.unescape(visible)[: limit * PRINTED_WIDTH])))
                used = limit
            break
        kept.append(line)
        used += cost
    return Folded(Markup("\n".join(kept) + "\n…"), sum(costs) - used)


def fold_message(message: Any) -> Folded:
    return _fold(json_html(message), MESSAGE_LINES)


def fold_frame(frame: str | None) -> Folded:
    return _fold(frame_html(frame), FRAME_LINES)
