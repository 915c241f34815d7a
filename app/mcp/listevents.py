"""Events of the client's other lists (resources, resource templates, prompts) and of reading
and subscribing to resources, in the style of `app.mcp.events` (frozen dataclasses, a `kind`).

`listing` (shown as `list` in a trace) names the list: "resources", "resourceTemplates" or
"prompts", the key of the array in its result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .events import Event


@dataclass(frozen=True)
class ListGatherStarted(Event):
    kind: ClassVar[str] = "list-gather-start"
    listing: str = field(metadata={"key": "list"})
    generation: int
    reason: str


@dataclass(frozen=True)
class ListPage(Event):
    kind: ClassVar[str] = "list-page"
    listing: str = field(metadata={"key": "list"})
    generation: int
    page: int
    names: list[Any]
    next_cursor: str | None


@dataclass(frozen=True)
class ListPublished(Event):
    kind: ClassVar[str] = "list-published"
    listing: str = field(metadata={"key": "list"})
    generation: int
    count: int
    pages: int
    added: list[Any]
    removed: list[Any]


@dataclass(frozen=True)
class ListStopped(Event):
    """A gather of one list ended without a list: an error, a repeated cursor, the page cap."""

    kind: ClassVar[str] = "list-stopped"
    listing: str = field(metadata={"key": "list"})
    generation: int
    reason: str
    code: Any = None


@dataclass(frozen=True)
class ListNotOffered(Event):
    """The host asked for a list whose capability the server never declared: nothing is sent."""

    kind: ClassVar[str] = "list-not-offered"
    listing: str = field(metadata={"key": "list"})


@dataclass(frozen=True)
class ListInvalidated(Event):
    """notifications/resources/list_changed or notifications/prompts/list_changed arrived."""

    kind: ClassVar[str] = "list-invalidated"
    listing: str = field(metadata={"key": "list"})
    relist: bool  # the client had listed it before, so it lists it again


@dataclass(frozen=True)
class ResourceUpdated(Event):
    """notifications/resources/updated: one resource changed; the list did not."""

    kind: ClassVar[str] = "resource-updated"
    uri: Any


@dataclass(frozen=True)
class ResourceRead(Event):
    kind: ClassVar[str] = "resource-read"
    uri: Any
    text: str


@dataclass(frozen=True)
class ResourceReadFailed(Event):
    kind: ClassVar[str] = "resource-read-failed"
    uri: Any
    code: Any


@dataclass(frozen=True)
class Subscribed(Event):
    """The server took the subscription: a resources/subscribe result (legacy), or a listen
    stream's acknowledgement that names the URI (2026-07-28)."""

    kind: ClassVar[str] = "subscribed"
    uri: Any


@dataclass(frozen=True)
class SubscribeRefused(Event):
    """The host wanted updates of a resource, but the server did not declare subscribe."""

    kind: ClassVar[str] = "subscribe-refused"
    uri: Any


@dataclass(frozen=True)
class ResourceChanged(Event):
    """The server's side of a step: one resource's contents changed, and `notified` streams or
    sessions were told (0: nobody had subscribed to it)."""

    kind: ClassVar[str] = "resource-changed"
    uri: Any
    notified: int
