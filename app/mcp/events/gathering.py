"""Events of tools/list walks and the cache: pages, publishing, stale and cancelled answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Event, optional

__all__ = [
    "CacheExpired",
    "CacheHit",
    "GatherAbandoned",
    "GatherDiscarded",
    "GatherFailed",
    "GatherStarted",
    "ListError",
    "PageCap",
    "PageReceived",
    "PageReused",
    "Published",
    "RefreshQueued",
    "RepeatedCursor",
    "RequestCancelled",
    "StaleResponse",
    "ToolDropped",
]


@dataclass(frozen=True)
class CacheHit(Event):
    kind: ClassVar[str] = "cache-hit"
    generation: int
    ttl_left_ms: int


@dataclass(frozen=True)
class CacheExpired(Event):
    """Some cached pages went stale: `expired` are their numbers, of `pages` in the list."""

    kind: ClassVar[str] = "cache-expired"
    generation: int
    expired: list[int]
    pages: int


@dataclass(frozen=True)
class GatherStarted(Event):
    kind: ClassVar[str] = "gather-start"
    generation: int
    reason: str


@dataclass(frozen=True)
class RefreshQueued(Event):
    kind: ClassVar[str] = "refresh-queued"
    generation: int
    reason: str


@dataclass(frozen=True)
class GatherAbandoned(Event):
    kind: ClassVar[str] = "gather-abandoned"
    generation: int


@dataclass(frozen=True)
class PageReceived(Event):
    kind: ClassVar[str] = "page"
    generation: int
    page: int
    names: list[Any]
    next_cursor: str | None


@dataclass(frozen=True)
class PageReused(Event):
    """A page still fresh in the cache, taken from there instead of being fetched again."""

    kind: ClassVar[str] = "page-cached"
    generation: int
    page: int
    cursor: str | None
    names: list[Any]
    ttl_left_ms: int


@dataclass(frozen=True)
class StaleResponse(Event):
    kind: ClassVar[str] = "stale-response"
    generation: int
    current: int
    cancelled: bool = optional(False)  # the client had cancelled the request this answers


@dataclass(frozen=True)
class RepeatedCursor(Event):
    kind: ClassVar[str] = "repeated-cursor"
    cursor: str


@dataclass(frozen=True)
class PageCap(Event):
    kind: ClassVar[str] = "page-cap"
    pages: int


@dataclass(frozen=True)
class ListError(Event):
    kind: ClassVar[str] = "list-error"
    code: Any
    cursor: str | None


@dataclass(frozen=True)
class GatherFailed(Event):
    kind: ClassVar[str] = "gather-failed"
    generation: int


@dataclass(frozen=True)
class GatherDiscarded(Event):
    kind: ClassVar[str] = "gather-discarded"
    generation: int
    kept: int


@dataclass(frozen=True)
class Published(Event):
    kind: ClassVar[str] = "published"
    generation: int
    count: int
    pages: int
    added: list[str]
    removed: list[str]
    changed: list[str]
    reused: int = optional(0)  # pages taken from the cache, still fresh, instead of fetched


@dataclass(frozen=True)
class ToolDropped(Event):
    kind: ClassVar[str] = "tool-dropped"
    name: Any
    reason: str


@dataclass(frozen=True)
class RequestCancelled(Event):
    """The client gave up on a request: notifications/cancelled with its id and a reason, or,
    on 2026-07-28 Streamable HTTP, closing that request's response stream (`stream_closed`)."""

    kind: ClassVar[str] = "request-cancelled"
    id: Any
    method: str
    reason: str
    generation: int | None = optional()
    stream_closed: bool = optional(False)
