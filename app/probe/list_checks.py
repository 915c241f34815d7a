"""The probe's checks of how a server lists its tools: pagination, an invented cursor, listChanged
and its 2026 listen acknowledgement, and 2026 cache hints (see app.probe.checks for the list).
Shapes (a nextCursor that is no string, a missing ttlMs) are the schema check's, not these."""

from __future__ import annotations

from typing import Any

from .levels import Check, found, passed
from .session import Session, counted, listed

__all__ = ["cache_hints", "cursors", "list_changed", "pagination"]


def _declares_tools(s: Session) -> bool:
    return isinstance(s.capabilities.get("tools"), dict)


def pagination(s: Session) -> Check:
    version = s.version or s.requested
    detail = f"{counted(len(s.pages), 'page')}, {counted(len(s.tools), 'tool')}"
    events = s.gather_events
    if "repeated-cursor" in events:
        loop = f"{detail}; a nextCursor came back twice, so a client that follows it never stops"
        return found("pagination", "stable-cursors", version, loop)
    if "page-cap" in events:
        endless = f"{detail}; the list did not end within the client's page cap"
        return found("pagination", "stable-cursors", version, endless)
    if "gather-failed" in events or "list-error" in events:
        if not _declares_tools(s):
            none = "the server declares no tools capability, and tools/list says so"
            return passed("pagination", "list-tools", version, none)
        return found("pagination", "list-tools", version, f"{detail}; tools/list answered an error")
    if "published" not in events:
        why = s.failure or f"{detail}; the list was not completed"
        return found("pagination", "json-rpc" if s.silent else "list-tools", version, why)
    return passed("pagination", "stable-cursors", version, detail)


def _code(reply: dict[str, Any]) -> Any:
    error = reply.get("error")
    return error.get("code") if isinstance(error, dict) else None


def cursors(s: Session) -> Check | None:
    """An invented cursor SHOULD get -32602; a server that never issued a cursor does not
    paginate, and may answer it with its one page."""
    if s.version is None:
        return None
    reply = s.invalid_cursor_reply
    followed = counted(sum(1 for p in s.pages if "nextCursor" in p), "cursor")
    if reply is None:
        if s.silent:
            silent = "no answer to tools/list with an invented cursor"
            return found("cursors", "json-rpc", s.version, silent)
        return None  # the walk stopped before the probe could try one
    code = _code(reply)
    if code == -32602:
        detail = f"{followed} followed; an invented one got -32602"
        return passed("cursors", "invalid-cursor", s.version, detail)
    if code is None and not s.paginates:
        detail = (
            "the server never issued a cursor and answered an invented one with its list: "
            "a server that does not paginate may ignore a cursor"
        )
        return passed("cursors", "invalid-cursor", s.version, detail)
    got = f"error {code}" if code is not None else "a result"
    detail = f"{followed} followed; an invented cursor got {got}, not -32602"
    return found("cursors", "invalid-cursor", s.version, detail)


def list_changed(s: Session) -> Check | None:
    if s.version is None:
        return None
    tools = s.capabilities.get("tools")
    declared = isinstance(tools, dict) and bool(tools.get("listChanged"))
    if not declared:
        detail = "tools.listChanged not declared: clients learn of changes only by listing again"
        return passed("list-changed", "list-changed", s.version, detail)
    if s.era != "modern":
        return passed("list-changed", "list-changed", s.version, "tools.listChanged declared")
    if s.listen_ack is None:
        if not s.listen_asked:
            return passed("list-changed", "list-changed", s.version, "tools.listChanged declared")
        detail = "declared, but subscriptions/listen was not acknowledged"
        return found("list-changed", "listen-ack", s.version, detail)
    params = s.listen_ack.get("params")
    notifications = params.get("notifications") if isinstance(params, dict) else None
    if not (isinstance(notifications, dict) and notifications.get("toolsListChanged")):
        detail = "declared, but the listen acknowledgement leaves toolsListChanged out"
        return found("list-changed", "list-changed", s.version, detail)
    detail = "declared, and the listen stream honours toolsListChanged"
    return passed("list-changed", "listen-ack", s.version, detail)


def cache_hints(s: Session) -> Check | None:
    """2026-07-28: one cacheScope on every page of a list (their presence and values are the
    schema's to check)."""
    if s.era != "modern" or s.version is None:
        return None
    scopes = sorted({str(p["cacheScope"]) for p in s.pages if "cacheScope" in p})
    if len(scopes) > 1:
        detail = f"the pages of one list disagree on cacheScope: {listed(scopes)}"
        return found("cache-hints", "cache-scope", s.version, detail)
    ttls = [p.get("ttlMs") for p in s.pages]
    detail = f"ttlMs {listed(ttls)}, cacheScope {listed(scopes) or 'none'}"
    return passed("cache-hints", "cache-hints", s.version, detail)
