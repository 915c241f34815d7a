"""Which phrase narrates a message about resources, resource templates or prompts, and the
console lines of their events. app.engine.narration asks here first and falls back to its own
phrases when this module has nothing to say (a message about tools, a listen for tools only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.mcp import clientauth, lists, versions
from app.mcp import listevents as le
from app.mcp.client import MCPClient
from app.mcp.events import Event, ListenAcknowledged
from app.mcp.jsonrpc import Message
from app.mcp.leniency import UnknownFieldsIgnored

Phrase = tuple[str, dict[str, Any]]
_TOOLS_ONLY = {"toolsListChanged": True}


def _filters(notifications: Any) -> list[str]:
    """A listen filter as words a student can match to the fields: flags, then URIs."""
    if not isinstance(notifications, dict):
        return []
    out = [k for k, v in notifications.items() if v is True]
    uris = notifications.get("resourceSubscriptions")
    if isinstance(uris, list):
        out += [f"resourceSubscriptions {u}" for u in uris]
    return out


def client_phrase(message: Message, client: MCPClient, sid: str) -> Phrase | None:
    method = message.get("method")
    params = message.get("params") or {}
    base: dict[str, Any] = {"server": sid, "method": method}
    if method == "subscriptions/listen":
        wanted = params.get("notifications") or {}
        if wanted == _TOOLS_ONLY:
            return None
        if list(wanted) == ["resourceSubscriptions"]:
            return "offer.listen-resource", {**base, "uris": wanted["resourceSubscriptions"]}
        return "offer.listen", {**base, "filters": _filters(wanted)}
    kind = lists.BY_METHOD.get(str(method))
    if kind is not None:
        pending = client.requests.get(message.get("id"))
        generation = pending.generation if pending else None
        listing = client.lists.listings.get(kind.key)
        if "cursor" not in params:
            again = listing is not None and listing.reason == "list_changed"
            key = "offer.relist" if again else f"offer.list-first.{kind.key}"
            return key, {**base, "generation": generation}
        page = (listing.cursors.index(params["cursor"]) + 2) if listing else None
        return "offer.list-cursor", {**base, "generation": generation, "page": page}
    if method == "resources/read":
        again = params.get("uri") in client.lists.contents
        return ("offer.reread" if again else "offer.read"), {**base, "uri": params.get("uri")}
    if method == "resources/subscribe":
        return "offer.subscribe", {**base, "uri": params.get("uri")}
    return None


def server_phrase(
    message: Message, answers: str | None, events: list[Event], client: MCPClient, sid: str
) -> Phrase | None:
    method = message.get("method")
    params = message.get("params") or {}
    base: dict[str, Any] = {"server": sid, "method": method or answers}
    seen = {type(e): e for e in events}
    if method == "notifications/subscriptions/acknowledged":
        honoured = params.get("notifications") or {}
        if honoured == _TOOLS_ONLY or ListenAcknowledged not in seen:
            return None
        sub = (params.get("_meta") or {}).get(versions.META_SUBSCRIPTION_ID)
        return "offer.ack", {**base, "id": sub, "filters": _filters(honoured) or ["-"]}
    if method == "notifications/resources/updated":
        return "offer.updated", {**base, "uri": params.get("uri")}
    if method in lists.NOTIFICATIONS:
        invalidated = seen.get(le.ListInvalidated)
        relist = isinstance(invalidated, le.ListInvalidated) and invalidated.relist
        kind = next(k for k in lists.KINDS.values() if k.notification == method)
        return f"offer.list-changed.{kind.key}" + ("" if relist else "-unlisted"), base
    result = message.get("result") or {}
    caps = _capabilities(result.get("capabilities"))
    text = result.get("instructions")
    if answers in ("initialize", "server/discover") and isinstance(text, str) and text:
        settled = answers == "server/discover" or result.get("protocolVersion") == client.version
        if settled:  # (a counter-offer keeps its own phrase)
            return "offer.instructions", {**base, "caps": caps, "text": text}
    offers = any(k in (result.get("capabilities") or {}) for k in ("resources", "prompts"))
    if answers == "initialize" and offers and result.get("protocolVersion") == client.version:
        return "offer.initialize", {**base, "version": client.version, "caps": caps}
    if answers == "server/discover" and offers:
        versions_ = result.get("supportedVersions")
        return "offer.discover", {**base, "versions": versions_, "caps": caps}
    if answers in lists.BY_METHOD and "result" in message:
        return _page(message, answers, seen, base)
    if answers == "resources/read":
        read = seen.get(le.ResourceRead)
        if isinstance(read, le.ResourceRead):
            return "offer.read-result", {**base, "uri": read.uri, "text": read.text}
        failed = seen.get(le.ResourceReadFailed)
        code = failed.code if isinstance(failed, le.ResourceReadFailed) else None
        return "offer.read-missing", {**base, "code": code}
    if answers == "resources/subscribe" and "result" in message:
        subscribed = seen.get(le.Subscribed)
        uri = subscribed.uri if isinstance(subscribed, le.Subscribed) else None
        return "offer.subscribed", {**base, "uri": uri}
    return None


def _capabilities(caps: Any) -> list[str]:
    """Declared capabilities as a student reads them: "resources (subscribe, listChanged)"."""
    if not isinstance(caps, dict):
        return []
    out = []
    for name, flags in caps.items():
        on = [k for k, v in flags.items() if v is True] if isinstance(flags, dict) else []
        out.append(f"{name} ({', '.join(on)})" if on else name)
    return out


def _page(
    message: Message, answers: str, seen: dict[type[Event], Event], base: dict[str, Any]
) -> Phrase:
    kind = lists.BY_METHOD[answers]
    page = seen.get(le.ListPage)
    detail = page.detail if isinstance(page, le.ListPage) else {}
    names = detail.get("names", [])
    params = {**base, "page": detail.get("page"), "generation": detail.get("generation")}
    params.update({"count": len(names), "names": names})
    published = seen.get(le.ListPublished)
    if isinstance(published, le.ListPublished):
        params.update({"total": published.count, "added": published.added})
        params.update({"removed": published.removed, "changed": []})
        first = published.generation == 1
        return f"offer.{'done' if first else 'redone'}.{kind.key}", params
    stopped = seen.get(le.ListStopped)
    if isinstance(stopped, le.ListStopped):
        return "offer.stopped", {**params, "reason": stopped.reason}
    return f"offer.page-more.{kind.key}", params


# Console lines: the phrase is console.<kind> in phrases.yaml, with these parameters.
CONSOLE_PARAMS: dict[type[Event], Callable[[Any], dict[str, Any]]] = {
    le.ListPublished: lambda e: {"list": e.listing, "generation": e.generation, "count": e.count},
    le.ListInvalidated: lambda e: {"list": e.listing},
    le.ResourceUpdated: lambda e: {"uri": e.uri},
    le.ResourceRead: lambda e: {"uri": e.uri},
    le.Subscribed: lambda e: {"uri": e.uri},
    le.ListStopped: lambda e: {"list": e.listing, "reason": e.reason},
    # not about offers, but about what else a client meets besides the lab's tidy servers
    UnknownFieldsIgnored: lambda e: {"fields": e.fields},
    clientauth.AuthChallenged: lambda e: {"status": e.status, "scope": e.scope or ""},
    clientauth.TokenReceived: lambda e: {"scope": e.scope},
    clientauth.CacheLeftWithToken: lambda e: {"generation": e.generation},
}
