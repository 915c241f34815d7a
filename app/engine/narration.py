"""Which phrase narrates each step of the lab's simulated peers, and the agent's console lines.

The runner and the recorder name a phrase and its parameters (`for_client_message`,
`for_server_message`, or a key of their own); app.engine.phrasebook says it in English, Chinese
and Russian from phrases.yaml. Some client events add a second sentence (the cache swap, a
queued refresh, a retried call): `render` appends them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from app.mcp import events as ev
from app.mcp import jsonrpc, versions
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.jsonrpc import Message
from app.mcp.leniency import UnknownFieldsIgnored

from . import offer_narration
from .phrasebook import join_list, joined, phrases, plural_category, text
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


def for_server_message(
    message: Message,
    answers: str | None,
    events: list[Event],
    client: MCPClient,
    sid: str,
    in_gather: int | None,
) -> tuple[str, dict[str, Any]]:
    found = offer_narration.server_phrase(message, answers, events, client, sid)
    if found is not None:  # resources and prompts
        return found
    seen: dict[type[Event], Event] = {type(e): e for e in events}

    def detail(kind: type[Event]) -> dict[str, Any]:
        event = seen.get(kind)
        return event.detail if event is not None else {}

    base: dict[str, Any] = {
        "server": sid,
        "method": message.get("method") or answers,
        "version": client.version,
    }
    method = message.get("method")
    if method == "notifications/tools/list_changed":
        if ev.ListChangedIgnored in seen:
            return "note.list-changed-ignored", {**base, "generation": client.cache.generation}
        if ev.RefreshQueued in seen:
            return "note.list-changed-gathering", {**base, "generation": in_gather}
        return "note.list-changed", {**base, "generation": client.cache.generation}
    if method == "notifications/subscriptions/acknowledged":
        sub = ((message.get("params") or {}).get("_meta") or {}).get(versions.META_SUBSCRIPTION_ID)
        return "ack.listen", {**base, "id": sub}
    if method is not None:
        return "note.other", base
    if ev.ManualResult in seen:
        return "res.manual", base
    if ev.ManualError in seen:
        return "err.manual", {**base, "code": detail(ev.ManualError).get("code")}
    error = message.get("error")
    if error is not None:
        code = error.get("code")
        if answers == "server/discover" and ev.FallbackLegacy in seen:
            return "err.discover-legacy", {**base, "code": code}
        if answers == "server/discover" and ev.ModernRefused in seen:
            return "err.discover-modern", {**base, "code": code}
        if answers == "server/discover" and code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
            data = error.get("data") or {}
            key = "err.version-none" if ev.VersionRefused in seen else "err.version"
            return key, {
                **base,
                "requested": data.get("requested"),
                "offered": data.get("supported"),
            }
        if answers == "tools/list" and code == jsonrpc.INVALID_PARAMS:
            return "err.cursor", base
        if answers == "tools/call" and ev.CallArgumentsInvalid in seen:
            return "err.call-arguments", {**base, "tool": detail(ev.CallRejected).get("name")}
        if answers == "tools/call" and ev.CallRejected in seen and code == jsonrpc.INVALID_PARAMS:
            return "err.call-unknown", {**base, "tool": detail(ev.CallRejected).get("name")}
        return "err.other", {**base, "code": code, "message": error.get("message")}
    result = message.get("result") or {}
    if answers == "initialize":
        if ev.VersionRefused in seen:
            return "res.initialize-refused", {**base, **detail(ev.VersionRefused)}
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        if ev.CounterOffer in seen:
            return "res.initialize-counter", {**base, **detail(ev.CounterOffer)}
        return "res.initialize", {**base, "listChanged": listed}
    if answers == "server/discover":
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        return "res.discover", {
            **base,
            "versions": result.get("supportedVersions"),
            "listChanged": listed,
        }
    if answers == "tools/list":
        if ev.StaleResponse in seen:
            return "res.page-stale", {**base, **detail(ev.StaleResponse)}
        page = detail(ev.PageReceived)
        names = page.get("names", [])
        params = {
            **base,
            "page": page.get("page"),
            "generation": page.get("generation"),
            "count": len(names),
            "names": names,
        }
        reused = [e for e in events if isinstance(e, ev.PageReused)]
        if reused and "nextCursor" in result:
            # The pages after this one are still fresh in the cache: no request follows.
            left = min(e.ttl_left_ms for e in reused)
            return "res.page-reused", {
                **params,
                "n": len(reused),
                "reusedPages": [e.page for e in reused],
                "ttlLeft": f"{left / 1000:g}",
            }
        if "nextCursor" in result:
            return "res.page-more", params
        return ("res.page-only" if params["page"] == 1 else "res.page-last"), params
    if answers == "tools/call":
        name = next((e.detail.get("name") for e in events if "name" in e.detail), None)
        if ev.CallToolError in seen:
            invalid = _INVALID.match(detail(ev.CallToolError).get("text", ""))
            if invalid:  # the lab server's report of arguments that break the inputSchema
                return "res.call-invalid-args", {**base, "tool": name}
            return "res.call-iserror", {**base, "tool": name}
        checked = detail(ev.StructuredChecked)
        if checked and checked.get("problem") is None:
            return "res.call-structured", {**base, "tool": name}
        if checked:
            return "res.call-structured-bad", {**base, "tool": name, "problem": checked["problem"]}
        text = detail(ev.CallOk).get("text", "")
        ran = _RAN.match(text)
        if ran:  # the lab server's own report, told in the student's language
            args = "" if ran["args"] == "no arguments" else ran["args"]
            return "res.call-ran", {
                **base,
                "tool": name,
                "args": args,
                "call": ran["n"],
                "n": int(bool(args)),
            }
        return "res.call-ok", {**base, "tool": name, "text": text}
    return "res.other", base


# How the lab's servers word a successful call ("read_order ran with order_id=7 (call 2)").
_RAN = re.compile(r"^\S+ ran with (?P<args>.+) \(call (?P<n>\d+)\)$")
# ... and arguments that break a tool's inputSchema ("Invalid arguments for x: ...").
_INVALID = re.compile(r"^Invalid arguments for \S+: ")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# Client events the agent's console reports, and what each line needs from the event; the
# line's phrase is console.<the event's kind> in phrases.yaml.
_CONSOLE_PARAMS: dict[type[Event], Callable[[Any], dict[str, Any]]] = {
    ev.Negotiated: lambda e: {"version": e.version},
    ev.Discovered: lambda e: {"versions": _json(e.versions)},
    ev.CounterOffer: lambda e: {"offered": e.offered, "requested": e.requested},
    ev.FallbackLegacy: lambda e: {"code": e.code},
    ev.ModernRefused: lambda e: {"code": e.code},
    ev.Published: lambda e: {
        "generation": e.generation,
        "count": e.count,
        "added": e.added,
        "removed": e.removed,
        "changed": e.changed,
    },
    ev.CacheHit: lambda e: {"generation": e.generation},
    ev.ListChanged: lambda e: {},
    ev.ListChangedIgnored: lambda e: {},
    ev.RefreshQueued: lambda e: {"generation": e.generation},
    ev.StaleResponse: lambda e: {"generation": e.generation},
    ev.RepeatedCursor: lambda e: {},
    ev.CallOk: lambda e: {"name": e.name, "text": e.text},
    ev.CallToolError: lambda e: {"name": e.name, "text": e.text},
    ev.CallRejected: lambda e: {"name": e.name, "code": e.code, "message": e.message},
    ev.CallRetry: lambda e: {"name": e.name},
    ev.ToolDropped: lambda e: {"name": e.name, "reason": e.reason},
    ev.CallAbandoned: lambda e: {"name": e.name},
    ev.ListenAcknowledged: lambda e: {"notifications": _json(sorted(e.notifications))},
    ev.RequestCancelled: lambda e: {"id": e.id, "method": e.method},
    ev.CallArgumentsInvalid: lambda e: {"name": e.name},
    ev.VersionRefused: lambda e: {"offered": e.offered},
}


def console_line(sid: str, event: Event) -> Text | None:
    """What the agent's console prints for a client event, in every language."""
    make = _CONSOLE_PARAMS.get(type(event)) or offer_narration.CONSOLE_PARAMS.get(type(event))
    if make is None:
        return None
    key = event.kind
    if isinstance(event, ev.CallOk) and _RAN.match(event.text):
        key, params = "call-ran", {"name": event.name, **_ran(event.text)}
    else:
        params = make(event)
    return text(f"console.{key}", {"server": sid, **params})


def _ran(report: Any) -> dict[str, str]:
    ran = _RAN.match(str(report))
    return {"args": ran["args"], "call": ran["n"]} if ran else {}
