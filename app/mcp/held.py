"""What the client holds besides its tool cache, as plain state: its other lists (resources,
resource templates, prompts) with the contents it read and the URIs it subscribed to, and its
access token. app.mcp.lists and app.mcp.clientauth read and change them; they live here so the
client's core can hold them without importing the modules that work on the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ClientAuth", "ClientLists", "Listing"]


@dataclass
class Listing:
    """One list as the client holds it, and the gather of its next generation."""

    generation: int = 0  # the one published; gathers of this list are numbered 1, 2, ...
    gathers: int = 0
    items: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 0
    valid: bool = False
    ttl_ms: int | None = None
    scope: str | None = None
    gathering: int | None = None  # the generation being gathered
    reason: str = ""  # why it is gathered: "host asked", "list_changed"
    got: list[list[dict[str, Any]]] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)


@dataclass
class ClientLists:
    """Everything beyond tools that one client holds about its server."""

    listings: dict[str, Listing] = field(default_factory=dict)
    contents: dict[str, str] = field(default_factory=dict)  # uri -> text last read
    subscribed: list[str] = field(default_factory=list)  # URIs the server took


@dataclass
class ClientAuth:
    token: str | None = None
    scopes: list[str] = field(default_factory=list)
    tokens: int = 0  # how many tokens this client has held
