"""Which phrase narrates a message a server sent to one of the lab's simulated clients: an
answer (read with the request it answers and the events the client reported on reading it) or
a notification.

Resources and prompts are app.engine.offer_narration's; everything else (the lifecycle, the
tools/list walk, calls and their errors) is decided here. Callers go through
app.engine.narration, the one door to the lab's phrases.
"""

from __future__ import annotations

import re
from typing import Any

from app.mcp import events as ev
from app.mcp import jsonrpc, versions
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.jsonrpc import Message

from . import offer_narration

# How the lab's servers word a successful call ("read_order ran with order_id=7 (call 2)").
RAN = re.compile(r"^\S+ ran with (?P<args>.+) \(call (?P<n>\d+)\)$")
# ... and arguments that break a tool's inputSchema ("Invalid arguments for x: ...").
_INVALID = re.compile(r"^Invalid arguments for \S+: ")


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
        ran = RAN.match(text)
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
