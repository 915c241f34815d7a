"""Gathering every page of tools/list into one generation, and the cache it publishes to.

A gather is numbered (its generation), fetches page after page by following nextCursor (only an
absent nextCursor ends the list; "" is a cursor), refuses a repeated cursor and stops at a page
cap, then swaps the cached list in one go. A page answering a gather that is no longer the
current one is dropped as stale: an older answer never overwrites a newer snapshot. A refresh
asked for mid-gather is queued (or abandons the gather when told to restart); a list_changed
during a gather discards what it gathered, since pages fetched across a change may mix two
catalogs. The cache is fresh while the TTL on the injected clock lasts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import calls, jsonrpc, lifecycle, params
from . import events as ev
from .events import Output
from .jsonrpc import Message
from .requests import Pending
from .snapshots import CacheState, GatheringState
from .tooldiff import diff_tools
from .versions import Era

if TYPE_CHECKING:
    from .client import MCPClient


@dataclass
class Gathering:
    generation: int
    reason: str
    pages: list[list[dict[str, Any]]] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    next_cursor: str | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    restarted: bool = False
    changed_meanwhile: bool = False  # a list_changed arrived: the pages may mix two catalogs


@dataclass
class Cache:
    generation: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    fetched_at_ms: int | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    valid: bool = False

    @property
    def expires_at_ms(self) -> int | None:
        if self.fetched_at_ms is None or self.ttl_ms is None:
            return None
        return self.fetched_at_ms + self.ttl_ms


def cache_fresh(client: MCPClient) -> bool:
    expires = client.cache.expires_at_ms
    return client.cache.valid and expires is not None and client.clock.now_ms() < expires


def list_tools(client: MCPClient, *, force: bool, reason: str) -> Output:
    """The host asks for the tools: a cache hit sends nothing; otherwise gather every page."""
    client.advance(lifecycle.LIST_TOOLS)
    cache = client.cache
    if not force and cache_fresh(client):
        assert cache.expires_at_ms is not None
        left = cache.expires_at_ms - client.clock.now_ms()
        return Output(events=[ev.CacheHit(cache.generation, left)])
    out = Output()
    if cache.valid and not force and cache.fetched_at_ms is not None:
        out.events.append(ev.CacheExpired(cache.generation))
    return out.extend(refresh(client, reason=reason))


def refresh(client: MCPClient, *, reason: str, restart: bool = False) -> Output:
    """Re-list from page 1. Mid-gather: queue one more refresh, or abandon it (restart)."""
    current = client.gathering
    if current is not None and not restart:
        client.pending_refresh = True
        return Output(events=[ev.RefreshQueued(current.generation, reason)])
    out = Output()
    if current is not None:
        client.gathering = None
        out.events.append(ev.GatherAbandoned(current.generation))
    return out.extend(start_gather(client, reason))


def start_gather(client: MCPClient, reason: str) -> Output:
    client.advance(lifecycle.LIST_TOOLS)
    client.generations += 1
    gen = client.generations
    client.gathering = Gathering(generation=gen, reason=reason)
    return Output([_list_request(client, None, gen)], [ev.GatherStarted(gen, reason)])


def _list_request(client: MCPClient, cursor: str | None, gen: int) -> Message:
    given = None if cursor is None else {"cursor": cursor}
    return client.request("tools/list", given, Pending("tools/list", gen, cursor))


def on_page(client: MCPClient, pending: Pending, result: dict[str, Any]) -> Output:
    g = client.gathering
    if g is None or g.generation != pending.generation:
        current = g.generation if g else client.cache.generation
        return Output(events=[ev.StaleResponse(pending.generation, current)])
    tools = result.get("tools") or []
    g.pages.append(tools)
    if "ttlMs" in result:
        ttl = int(result["ttlMs"])
        g.ttl_ms = ttl if g.ttl_ms is None else min(g.ttl_ms, ttl)
        g.scope = result.get("cacheScope")
    next_cursor = result.get("nextCursor")
    names = [t.get("name") for t in tools]
    page = ev.PageReceived(g.generation, len(g.pages), names, next_cursor)
    if next_cursor is None:
        return Output(events=[page]).extend(_publish(client, g))
    if next_cursor in g.cursors:
        client.gathering = None
        return Output(events=[page, ev.RepeatedCursor(next_cursor)])
    if len(g.pages) >= client.config.max_pages:
        client.gathering = None
        return Output(events=[page, ev.PageCap(len(g.pages))])
    g.cursors.append(next_cursor)
    g.next_cursor = next_cursor
    return Output([_list_request(client, next_cursor, g.generation)], [page])


def _publish(client: MCPClient, g: Gathering) -> Output:
    client.gathering = None
    new_tools = [t for page in g.pages for t in page]
    out = Output()
    cache = client.cache
    if g.changed_meanwhile:
        # No cross-page consistency is promised: this gather is not published; the refresh
        # queued behind it replaces it.
        out.events.append(ev.GatherDiscarded(g.generation, cache.generation))
    elif g.generation > cache.generation:  # an older gather never overwrites a newer one
        if client.era is Era.MODERN and client.config.http:
            new_tools, dropped = params.drop_invalid_header_tools(new_tools)
            out.events += dropped
        changes = diff_tools(cache.tools if cache.generation else [], new_tools)
        ttl = g.ttl_ms if client.era is Era.MODERN else client.config.cache_ttl_ms
        now = client.clock.now_ms()
        client.cache = Cache(g.generation, new_tools, now, ttl or 0, g.scope, True)
        out.events.append(ev.Published(g.generation, len(new_tools), len(g.pages), **changes))
    if client.pending_refresh:
        client.pending_refresh = False
        out.extend(start_gather(client, "list_changed during refresh"))
    else:
        out.extend(calls.retry_waiting(client))
    return out


def on_page_error(client: MCPClient, pending: Pending, err: dict[str, Any]) -> Output:
    g = client.gathering
    event = ev.ListError(err.get("code"), pending.cursor)
    if g is None or g.generation != pending.generation:
        return Output(events=[event])
    client.gathering = None
    stale_cursor = err.get("code") == jsonrpc.INVALID_PARAMS and pending.cursor is not None
    if stale_cursor and not g.restarted:
        # The cursor went stale: drop what was gathered and start again from page 1, once.
        out = start_gather(client, "cursor rejected")
        assert client.gathering is not None
        client.gathering.restarted = True
        return Output(events=[event]).extend(out)
    return Output(events=[event, ev.GatherFailed(g.generation)])


def cache_snapshot(client: MCPClient) -> CacheState:
    c = client.cache
    return {
        "generation": c.generation,
        "tools": list(c.tools),  # replaced wholesale on publish, never edited in place
        "fetchedAtMs": c.fetched_at_ms,
        "ttlMs": c.ttl_ms,
        "expiresAtMs": c.expires_at_ms,
        "cacheScope": c.scope,
        "valid": c.valid,
        "fresh": cache_fresh(client),
    }


def gathering_snapshot(client: MCPClient) -> GatheringState | None:
    g = client.gathering
    if g is None:
        return None
    return {
        "generation": g.generation,
        "reason": g.reason,
        "pages": [[t.get("name") for t in page] for page in g.pages],
        "nextCursor": g.next_cursor,
    }
