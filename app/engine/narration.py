"""Which phrase narrates each step of the lab's simulated peers: the one door to them.

The runner and the recorder name a phrase and its parameters (`for_client_message` here,
`for_server_message` from app.engine.server_narration, or a key of their own);
app.engine.phrasebook says it in English, Chinese and Russian from phrases.yaml. Some client
events add a second sentence (the cache swap, a queued refresh, a retried call): `render`
appends them. The agent's console lines are app.engine.console_lines'. Callers import all of
these from here.
"""

from __future__ import annotations

from typing import Any

from app.mcp import events as ev
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.jsonrpc import Message
from app.mcp.leniency import UnknownFieldsIgnored

from . import offer_narration
from .console_lines import console_line
from .phrasebook import join_list, joined, phrases, plural_category, text
from .server_narration import for_server_message
from .step import LANGUAGES, Text

# Callers say a phrase through this module (narration.text, narration.render): one door.
__all__ = [
    "LANGUAGES",
    "console_line",
    "for_client_message",
    "for_server_message",
    "join_list",
    "phrases",
    "plural_category",
    "render",
    "text",
]

# Events that add a sentence after the step's own phrase, and the phrase they use.
_FOLLOW_UPS: dict[type[Event], str] = {
    ev.Published: "ev.published",
    ev.GatherDiscarded: "ev.gather-discarded",
    ev.CacheExpired: "ev.cache-expired",
    ev.RepeatedCursor: "ev.repeated-cursor",
    ev.PageCap: "ev.page-cap",
    ev.CallRetry: "ev.call-retry",
    ev.CallAbandoned: "ev.call-abandoned",
    ev.ToolDropped: "ev.tool-dropped",
    UnknownFieldsIgnored: "ev.unknown-fields-ignored",
}
# A gather started for one of these reasons says why, after the step's phrase.
_GATHER_REASONS = {
    "list_changed during refresh": "ev.refresh-again",
    "unknown tool": "ev.call-rediscover",
    "cursor rejected": "ev.cursor-restart",
}


def _follow_up(event: Event) -> str | None:
    if isinstance(event, ev.GatherStarted):
        return _GATHER_REASONS.get(event.reason)
    if isinstance(event, ev.StaleResponse) and event.cancelled:
        return "ev.cancelled-answer"
    if isinstance(event, ev.CacheExpired) and len(event.expired) < event.pages:
        return "ev.cache-expired-pages"  # some pages are still fresh: only the others go out
    return _FOLLOW_UPS.get(type(event))


def render(key: str, params: dict[str, Any], events: list[Event]) -> Text:
    """The step's phrase, then a sentence for each notable client event."""
    said = text(key, params)
    for event in events:
        follow = _follow_up(event)
        if follow is None:
            continue
        detail = event.detail
        if follow == "ev.published" and detail.get("reused"):
            follow += "-reused"
        elif follow == "ev.published":
            # a one-page list needs no page count: the page phrase already said "single page"
            follow += "-first" if _all_new(detail) else ""
            follow += "-single" if detail.get("pages") == 1 else ""
        if follow == "ev.cache-expired-pages":
            detail = {**detail, "n": len(detail["expired"])}
        said = joined(said, text(follow, {**params, **detail}))
    return said


def _all_new(published: dict[str, Any]) -> bool:
    """The first list a client publishes: every tool is new, so there is nothing to compare."""
    added = published.get("added") or []
    return len(added) == published.get("count") and not (
        published.get("removed") or published.get("changed")
    )


def for_client_message(message: Message, client: MCPClient, sid: str) -> tuple[str, dict[str, Any]]:
    found = offer_narration.client_phrase(message, client, sid)  # resources and prompts
    if found is not None:
        return found
    method = message.get("method")
    params = message.get("params") or {}
    base: dict[str, Any] = {"server": sid, "method": method, "version": client.version}
    if method == "initialize":
        return "msg.initialize", {**base, "version": params.get("protocolVersion")}
    if method == "notifications/initialized":
        return "msg.initialized", base
    if method == "server/discover":
        return "msg.discover", base
    if method == "subscriptions/listen":
        return "msg.listen", base
    if method == "notifications/cancelled":
        cancelled = client.requests.get(params.get("requestId"))
        generation = cancelled.generation if cancelled else None
        return "msg.cancelled", {**base, "id": params.get("requestId"), "generation": generation}
    # The runner narrates a request before its answer arrives: the client still tracks it.
    if "id" in message and client.requests.is_manual(message["id"]):
        return "msg.manual", base
    if method == "tools/list":
        return _list_request(message, client, base)
    if method == "tools/call":
        return "msg.call", {**base, "tool": params.get("name"), "id": message.get("id")}
    return "msg.other", base


def _list_request(
    message: Message, client: MCPClient, base: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Which gather and page a tools/list asks for, so that repeated gathers read apart."""
    pending = client.requests.get(message["id"]) if "id" in message else None
    generation = pending.generation if pending else None
    params = {**base, "generation": generation}
    cursor = (message.get("params") or {}).get("cursor")
    if cursor is None:
        return "msg.list-first", params
    g = client.gathering
    if g is None or g.generation != generation or cursor not in g.cursors:
        return "msg.list-cursor-abandoned", params
    return "msg.list-cursor", {**params, "page": g.cursors.index(cursor) + 2}
