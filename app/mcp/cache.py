"""The client's cache of tools/list pages, and a gather under way: plain state.

Each page is cached on its own, keyed by the cursor that fetched it (None for page 1), with its
own fetch time and lifetime; the list is the pages of one generation, swapped in whole when a
gather publishes. `Gathering` is a walk in progress: the pages so far, the cursors followed, and
whether a list_changed arrived meanwhile. What the client does with them is app.mcp.gathering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Cache", "CachedPage", "Gathering"]


@dataclass(frozen=True)
class CachedPage:
    """One tools/list page as cached: the cursor that fetched it is its key (None: page 1)."""

    cursor: str | None
    tools: list[dict[str, Any]]
    next_cursor: str | None
    fetched_at_ms: int
    ttl_ms: int
    scope: str | None = None

    @property
    def expires_at_ms(self) -> int:
        return self.fetched_at_ms + self.ttl_ms


@dataclass
class Gathering:
    generation: int
    reason: str
    pages: list[list[dict[str, Any]]] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    next_cursor: str | None = None
    entries: list[CachedPage] = field(default_factory=list)  # the pages, as the cache keeps them
    reuse: bool = False  # take pages that are still fresh from the cache (modern walks)
    reused: int = 0
    restarted: bool = False
    changed_meanwhile: bool = False  # a list_changed arrived: the pages may mix two catalogs


@dataclass
class Cache:
    generation: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    pages: list[CachedPage] = field(default_factory=list)
    fetched_at_ms: int | None = None  # when this generation was published
    valid: bool = False

    @property
    def ttl_ms(self) -> int | None:
        """The shortest lifetime of any of its pages (None before the first list)."""
        return min((p.ttl_ms for p in self.pages), default=None)

    @property
    def expires_at_ms(self) -> int | None:
        """When the first of its pages goes stale: from then on the list needs a fetch."""
        return min((p.expires_at_ms for p in self.pages), default=None)

    @property
    def scope(self) -> str | None:
        return self.pages[0].scope if self.pages else None

    def page_for(self, cursor: str | None) -> CachedPage | None:
        return next((p for p in self.pages if p.cursor == cursor), None)
