"""The base of every event (`Event`, `optional`) and what a call into the client returns.

Narration, the console and the tests match events by type (`isinstance`, `match`), never by a
string. Each class still has a stable `kind`, the name a trace shows: `as_dict()` gives the JSON
object a step carries (`{"kind": "page", "generation": 1, ...}`), its keys the fields' names in
camelCase (or `metadata["key"]`), in declaration order. A field declared with `optional()` is
left out while it holds its default, as the trace has always done for such details. `Output` is
what a call into the client returns: messages to send and the events that explain them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from app.mcp.jsonrpc import Message


def optional(default: Any = None) -> Any:
    """A field left out of `as_dict()` while it holds `default`."""
    return field(default=default, metadata={"omit_default": True})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True)
class Event:
    """Base of every event; `kind` is its name in a trace."""

    kind: ClassVar[str] = "event"

    @property
    def detail(self) -> dict[str, Any]:
        """The event's fields as the trace shows them (camelCase keys, without `kind`)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("omit_default") and value == f.default:
                continue
            out[f.metadata.get("key", _camel(f.name))] = value
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.detail}


@dataclass
class Output:
    """What one call into the client returns: the messages to send and the events it caused."""

    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def extend(self, other: Output) -> Output:
        self.messages += other.messages
        self.events += other.events
        return self
