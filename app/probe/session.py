"""What one probe run saw of a server, as the checks read it (app.probe.checks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.mcp.jsonrpc import Message

__all__ = ["INVALID_CURSOR", "Session", "counted", "listed"]

INVALID_CURSOR = "mcp-lab-probe-invalid-cursor"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 page', '2 pages': the probe's report is English prose, not 'page(s)'."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def listed(items: list[Any], limit: int = 5) -> str:
    """The first few items, and how many more."""
    shown = ", ".join(map(str, items[:limit]))
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


@dataclass
class Session:
    """What one probe run saw."""

    transport: str
    requested: str
    version: str | None = None  # negotiated
    era: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    wire: list[tuple[str, Message]] = field(default_factory=list)  # (sender, message)
    pages: list[dict[str, Any]] = field(default_factory=list)  # tools/list results, in order
    gather_events: list[str] = field(default_factory=list)  # the client's gather event kinds
    invalid_cursor_reply: Message | None = None
    listen_ack: Message | None = None
    listen_asked: bool = False  # the client opened a listen stream asking for toolsListChanged
    discover_result: dict[str, Any] | None = None
    failure: str | None = None  # why the session stopped early
    silent: bool = False  # it stopped because the server did not answer in time
    noise: list[str] = field(default_factory=list)

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [t for page in self.pages for t in (page.get("tools") or []) if isinstance(t, dict)]

    @property
    def paginates(self) -> bool:
        """Whether the server ever issued a cursor."""
        return any("nextCursor" in page for page in self.pages)
