"""Gathering every page of tools/list into one generation, and the per-page cache behind it.

A gather is numbered (its generation), walks the list page by page by following nextCursor (only
an absent nextCursor ends the list; "" is a cursor), refuses a repeated cursor and stops at a
page cap, then swaps the cached list in one go. Each page is cached on its own, keyed by the
cursor that fetched it (none for page 1), with its own fetch time and lifetime: in 2026-07-28
the page's own ttlMs, in the legacy era (no cache hints) the client's policy. A modern walk
takes every page that is still fresh from the cache and fetches only the expired ones, each with
its own cursor; a legacy client, whose pages share one policy, re-lists from page 1. A page
answering a gather that is no longer the current one is dropped as stale: an older answer never
overwrites a newer snapshot. A refresh asked for mid-gather is queued, or abandons the gather
(cancelling its request in flight) when told to restart; a list_changed invalidates every page
and, mid-gather, discards what was gathered, since pages fetched across a change may mix two
catalogs.
"""

from __future__ import annotations

from typing import Any

from . import calls, jsonrpc, leniency, lifecycle, params
from . import events as ev
from .cache import Cache, CachedPage, Gathering
from .clientcore import ClientCore
from .events import Output
from .jsonrpc import Message
from .requests import Pending
from .snapshots import CachedPageState, CacheState, GatheringState
from .tooldiff import diff_tools
from .versions import Era


def page_fresh(client: ClientCore, page: CachedPage) -> bool:
    return client.cache.valid and client.clock.now_ms() < page.expires_at_ms


def cache_fresh(client: ClientCore) -> bool:
    pages = client.cache.pages
    return bool(pages) and all(page_fresh(client, p) for p in pages)


def list_tools(client: ClientCore, *, force: bool, reason: str) -> Output:
    """The host asks for the tools: a cache hit sends nothing; otherwise gather what is needed."""
    client.advance(lifecycle.LIST_TOOLS)
    cache = client.cache
    force = force or not client.config.cache  # a client without a cache always asks
    if not force and cache_fresh(client):
        assert cache.expires_at_ms is not None
        left = cache.expires_at_ms - client.clock.now_ms()
        return Output(events=[ev.CacheHit(cache.generation, left)])
    out = Output()
    if cache.valid and not force and cache.pages:
        expired = [n for n, p in enumerate(cache.pages, 1) if not page_fresh(client, p)]
        out.events.append(ev.CacheExpired(cache.generation, expired, len(cache.pages)))
    # Each 2026-07-28 page has its own ttlMs: re-fetch only the expired ones. Legacy results
    # carry no hints; the client's one policy covers the whole list, so it re-lists it.
    reuse = not force and client.era is Era.MODERN
    return out.extend(refresh(client, reason=reason, reuse=reuse))


def refresh(
    client: ClientCore, *, reason: str, restart: bool = False, reuse: bool = False
) -> Output:
    """Re-list from page 1. Mid-gather: queue one more refresh, or abandon it (restart)."""
    current = client.gathering
    if current is not None and not restart:
        client.pending_refresh = True
        return Output(events=[ev.RefreshQueued(current.generation, reason)])
    out = Output()
    if current is not None:
        out.extend(abandon(client, "Abandoned: the tool list refresh was restarted"))
    return out.extend(start_gather(client, reason, reuse=reuse))


def abandon(client: ClientCore, reason: str) -> Output:
    """Give up the gather under way and cancel its request in flight: its answer is unwanted."""
    g = client.gathering
    if g is None:
        return Output()
    client.gathering = None
    out = Output(events=[ev.GatherAbandoned(g.generation)])
    for request_id in client.requests.in_flight:
        pending = client.requests.get(request_id)
        if pending and pending.method == "tools/list" and pending.generation == g.generation:
            out.extend(client.cancel(request_id, reason))
    return out


def start_gather(client: ClientCore, reason: str, *, reuse: bool = False) -> Output:
    client.advance(lifecycle.LIST_TOOLS)
    client.generations += 1
    gen = client.generations
    client.gathering = Gathering(generation=gen, reason=reason, reuse=reuse)
    return Output(events=[ev.GatherStarted(gen, reason)]).extend(_fetch_or_reuse(client, None))


def _fetch_or_reuse(client: ClientCore, cursor: str | None) -> Output:
    """The page `cursor` names: from the cache while it is fresh (a reusing walk), else asked."""
    g = client.gathering
    assert g is not None
    cached = client.cache.page_for(cursor) if g.reuse else None
    if cached is None or not page_fresh(client, cached):
        return Output([_list_request(client, cursor, g.generation)])
    g.reused += 1
    left = cached.expires_at_ms - client.clock.now_ms()
    names = [t.get("name") for t in cached.tools]
    reused = ev.PageReused(g.generation, len(g.pages) + 1, cursor, names, left)
    return Output(events=[reused]).extend(_take(client, g, cached))


def _list_request(client: ClientCore, cursor: str | None, gen: int) -> Message:
    given = None if cursor is None else {"cursor": cursor}
    return client.request("tools/list", given, Pending("tools/list", gen, cursor))


def on_page(client: ClientCore, pending: Pending, result: dict[str, Any]) -> Output:
    g = client.gathering
    if g is None or g.generation != pending.generation or pending.cancelled:
        current = g.generation if g else client.cache.generation
        return Output(events=[ev.StaleResponse(pending.generation, current, pending.cancelled)])
    tools = result.get("tools") or []
    ignored: list[ev.Event] = []
    if client.config.known_fields_only:  # a client written for its version (app.mcp.leniency)
        tools, ignored = leniency.keep_known(tools, client.version)
    next_cursor = result.get("nextCursor")
    if client.era is Era.MODERN:
        # A missing or negative ttlMs counts as 0: immediately stale (caching.mdx).
        ttl = max(0, int(result.get("ttlMs") or 0))
    else:
        ttl = client.config.cache_ttl_ms
    now = client.clock.now_ms()
    entry = CachedPage(pending.cursor, tools, next_cursor, now, ttl, result.get("cacheScope"))
    names = [t.get("name") for t in tools]
    page = ev.PageReceived(g.generation, len(g.pages) + 1, names, next_cursor)
    return Output(events=[page, *ignored]).extend(_take(client, g, entry))


def _take(client: ClientCore, g: Gathering, entry: CachedPage) -> Output:
    """Add one page to the gather and go on: publish, stop, or fetch (or reuse) the next."""
    g.pages.append(entry.tools)
    g.entries.append(entry)
    next_cursor = entry.next_cursor
    if next_cursor is None:
        return _publish(client, g)
    if next_cursor in g.cursors:
        client.gathering = None
        return Output(events=[ev.RepeatedCursor(next_cursor)])
    if len(g.pages) >= client.config.max_pages:
        client.gathering = None
        return Output(events=[ev.PageCap(len(g.pages))])
    g.cursors.append(next_cursor)
    g.next_cursor = next_cursor
    return _fetch_or_reuse(client, next_cursor)


def _publish(client: ClientCore, g: Gathering) -> Output:
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
        now = client.clock.now_ms()
        client.cache = Cache(g.generation, new_tools, list(g.entries), now, True)
        out.events.append(
            ev.Published(g.generation, len(new_tools), len(g.pages), reused=g.reused, **changes)
        )
    if client.pending_refresh:
        client.pending_refresh = False
        out.extend(start_gather(client, "list_changed during refresh"))
    else:
        out.extend(calls.retry_waiting(client))
    return out


def on_page_error(client: ClientCore, pending: Pending, err: dict[str, Any]) -> Output:
    g = client.gathering
    event = ev.ListError(err.get("code"), pending.cursor)
    if g is None or g.generation != pending.generation:
        return Output(events=[event])
    client.gathering = None
    stale_cursor = err.get("code") == jsonrpc.INVALID_PARAMS and pending.cursor is not None
    if stale_cursor and not g.restarted:
        # The cursor went stale: every cached page goes (their cursors may be as stale), and
        # the client starts again from page 1, once.
        client.cache.valid = False
        out = start_gather(client, "cursor rejected")
        assert client.gathering is not None
        client.gathering.restarted = True
        return Output(events=[event]).extend(out)
    return Output(events=[event, ev.GatherFailed(g.generation)])


def cache_snapshot(client: ClientCore) -> CacheState:
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
        "pages": [_page_snapshot(client, n, p) for n, p in enumerate(c.pages, 1)],
    }


def _page_snapshot(client: ClientCore, number: int, page: CachedPage) -> CachedPageState:
    return {
        "page": number,
        "cursor": page.cursor,
        "tools": [t.get("name") for t in page.tools],
        "nextCursor": page.next_cursor,
        "fetchedAtMs": page.fetched_at_ms,
        "ttlMs": page.ttl_ms,
        "expiresAtMs": page.expires_at_ms,
        "fresh": page_fresh(client, page),
    }


def gathering_snapshot(client: ClientCore) -> GatheringState | None:
    g = client.gathering
    if g is None:
        return None
    return {
        "generation": g.generation,
        "reason": g.reason,
        "pages": [[t.get("name") for t in page] for page in g.pages],
        "nextCursor": g.next_cursor,
    }
