"""Server-Sent Events as the HTML Living Standard defines the stream (text/event-stream).

`encode_event` writes one event: optional `id:`, `event:`, one `data:` line per line of data
(data with line breaks becomes several `data:` lines, which a reader joins with "\\n"), and the
blank line that dispatches it. `parse_events` reads a stream the way a browser's EventSource
does: lines end in CRLF, LF or CR; a line starting with ":" is a comment; "field:value" drops one
space after the colon if there is one (so `data:x` and `data: x` are the same); several `data`
lines join with "\\n"; a blank line dispatches the event if it has data; an unknown field is
ignored; `id` without NUL sets the last event id, which later events keep; `retry` takes digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: its type ("message" unless named), data, last event id, retry."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None

    def as_fields(self) -> dict[str, str]:
        fields = {"event": self.event, "data": self.data}
        if self.id is not None:
            fields["id"] = self.id
        return fields


def encode_event(data: str, *, event: str | None = None, event_id: str | None = None) -> str:
    """The text of one event; `event` and `event_id` may not contain a line break."""
    for name, value in (("event", event), ("id", event_id)):
        if value is not None and _LINE_BREAK.search(value):
            raise ValueError(f"an SSE {name} cannot contain a line break: {value!r}")
    if event_id is not None and "\0" in event_id:
        raise ValueError("an SSE id cannot contain NUL")
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines += [f"data: {line}" for line in _LINE_BREAK.split(data)]
    return "\n".join(lines) + "\n\n"


def comment(text: str) -> str:
    """A comment line (a keep-alive, say): readers ignore it."""
    return "".join(f":{' ' if line else ''}{line}\n" for line in _LINE_BREAK.split(text))


def parse_events(text: str) -> list[SseEvent]:
    """Every event the stream dispatches, in order (an unterminated last event is not one)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    events: list[SseEvent] = []
    data: list[str] = []
    kind = ""
    last_id: str | None = None
    retry: int | None = None
    lines = _LINE_BREAK.split(text)
    for line in lines[:-1]:  # the text after the last line break is not a complete line
        if not line:
            if data:
                events.append(SseEvent(kind or "message", "\n".join(data), last_id, retry))
            data, kind = [], ""
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            kind = value
        elif name == "id" and "\0" not in value:
            last_id = value
        elif name == "retry" and value.isdigit():
            retry = int(value)
    return events
