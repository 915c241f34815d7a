"""A walk of tools/list as the wire shows it: the observer's counterpart of the simulated
client's gathering (app.mcp.gathering).

A tools/list from page 1 starts a new generation (leaving any walk under way unfinished, and
saying which pages of the last list had expired); each answer is a page of the walk under way,
or of one the client left behind; the last page publishes the whole list into the mirror's
cache, with what it added, removed and changed. These functions keep a `ClientMirror`'s
`gathering` and `cache` and return the engine's events; `SessionObserver` (app.mcp.observer)
calls them for the messages that belong to a walk.
"""

from __future__ import annotations

from typing import Any

from . import events as ev
from .cache import Cache, CachedPage, Gathering
from .events import Event
from .mirror import CLIENT_ASKED, ClientMirror
from .requests import Pending
from .tooldiff import diff_tools
from .versions import Era


def walk_starts(m: ClientMirror, at_ms: int) -> list[Event]:
    """A tools/list from page 1 (or a walk's first request): a new generation begins."""
    events: list[Event] = []
    if m.gathering is not None:  # the walk under way is left unfinished
        events.append(ev.GatherAbandoned(m.gathering.generation))
    cache = m.cache
    if cache.valid and cache.expires_at_ms is not None and at_ms >= cache.expires_at_ms:
        stale = [n for n, p in enumerate(cache.pages, 1) if at_ms >= p.expires_at_ms]
        events.append(ev.CacheExpired(cache.generation, stale, len(cache.pages)))
    reason = "list_changed" if m.list_changed_at_ms is not None else m.next_reason
    m.generations += 1
    m.gathering = Gathering(m.generations, reason)
    m.list_changed_at_ms, m.next_reason = None, CLIENT_ASKED
    events.append(ev.GatherStarted(m.generations, reason))
    return events


def page_arrived(
    m: ClientMirror, pending: Pending, result: dict[str, Any], at_ms: int
) -> list[Event]:
    """A tools/list answer: a page of the walk under way (or of one the client left)."""
    g = m.gathering
    if g is None or g.generation != pending.generation or pending.cancelled:
        current = g.generation if g else m.cache.generation
        return [ev.StaleResponse(pending.generation, current, pending.cancelled)]
    tools = [t for t in result.get("tools") or [] if isinstance(t, dict)]
    next_cursor = result.get("nextCursor")
    next_cursor = next_cursor if isinstance(next_cursor, str) else None
    g.pages.append(tools)
    if m.era is Era.MODERN:  # only 2026-07-28 pages say how long they stay fresh
        ttl = result.get("ttlMs")
        ttl_ms = max(0, ttl) if isinstance(ttl, int) and not isinstance(ttl, bool) else 0
        scope = result.get("cacheScope")
        scope = scope if isinstance(scope, str) else None
        g.entries.append(CachedPage(pending.cursor, tools, next_cursor, at_ms, ttl_ms, scope))
    names = [t.get("name") for t in tools]
    events: list[Event] = [ev.PageReceived(g.generation, len(g.pages), names, next_cursor)]
    if next_cursor is None:
        return [*events, _published(m, g, at_ms)]
    if next_cursor in g.cursors:  # a cursor the server already gave: a walk that loops
        m.gathering = None
        return [*events, ev.RepeatedCursor(next_cursor)]
    g.cursors.append(next_cursor)
    g.next_cursor = next_cursor
    return events


def _published(m: ClientMirror, g: Gathering, at_ms: int) -> Event:
    """Every page of the walk has arrived: the client holds the whole list."""
    m.gathering = None
    tools = [t for page in g.pages for t in page]
    before = m.cache.tools if m.cache.generation else []
    named = [t for t in tools if isinstance(t.get("name"), str)]
    changes = diff_tools([t for t in before if isinstance(t.get("name"), str)], named)
    m.cache = Cache(g.generation, tools, list(g.entries), at_ms, True)
    return ev.Published(
        g.generation,
        len(tools),
        len(g.pages),
        changes["added"],
        changes["removed"],
        changes["changed"],
    )
