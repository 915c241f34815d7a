"""How the lab's client treats tool fields its negotiated version does not define.

The official schemas leave objects open, and no version of the spec says what a receiver does
with a field it does not know. A client written for its version, as this one is when
`known_fields_only` is set, keeps the fields that version defines and ignores the rest, without
failing: what a server built for another version added (a `title` sent to a 2024-11-05 client,
an `execution` that 2026-07-28 moved out of the core) is dropped and reported once per page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from . import versions
from .events import Event


@dataclass(frozen=True)
class UnknownFieldsIgnored(Event):
    """A page carried tool fields the client's version does not define; they were dropped."""

    kind: ClassVar[str] = "unknown-fields-ignored"
    fields: list[str]
    tools: list[Any]


def keep_known(tools: list[Any], version: str) -> tuple[list[Any], list[Event]]:
    """The tools with only the fields `version` defines, and the event saying what went."""
    known = versions.tool_fields(version)
    kept: list[Any] = []
    dropped: dict[str, None] = {}
    touched: list[Any] = []
    for tool in tools:
        if not isinstance(tool, dict):
            kept.append(tool)
            continue
        extra = [k for k in tool if k not in known]
        if extra:
            touched.append(tool.get("name"))
            dropped.update(dict.fromkeys(extra))
        kept.append({k: v for k, v in tool.items() if k in known})
    if not dropped:
        return tools, []
    return kept, [UnknownFieldsIgnored(sorted(dropped), touched)]
