"""Which phrase narrates a message of a real session, from what an observer made of it.

The lab's simulated peers are narrated from inside the client (app.engine.narration): it knows
what the client did with each answer. A real client's session is narrated from the wire
(app.mcp.observer): what crossed and what the client now holds, never what it did with it. The
phrases are the seen.* keys of phrases.yaml, said by the same phrasebook; each step names the
client by its clientInfo. As for a simulated step, some events add a sentence after the step's
own (the list complete and how it differs from the previous one, a walk left unfinished, a
counter-offer).
"""

from __future__ import annotations

from typing import Any

from app.mcp import events as ev
from app.mcp.events import Event
from app.mcp.mirror import ClientMirror
from app.mcp.observer import Observation

from .phrasebook import joined, text
from .step import Text

__all__ = ["console_change", "console_lines", "label", "narrate", "narrate_change"]

SHORT_TEXT = 160  # a call's result is quoted up to this many characters

# Why a walk began, said after the step's own phrase (the observer's reasons).
_WALK_REASONS = {
    "list_changed": "seen.walk-after-change",
    "unknown tool": "seen.walk-after-unknown-tool",
    "cursor rejected": "seen.walk-after-cursor",
}


def label(mirror: ClientMirror) -> str:
    """The client as its clientInfo names it: name and version."""
    info = mirror.client_info
    return f"{info.get('name') or 'client'} {info.get('version', '')}".strip()


def _short(said: str) -> str:
    return said if len(said) <= SHORT_TEXT else said[: SHORT_TEXT - 1] + "…"


def _first(events: list[Event], kind: type[Event]) -> Any:
    return next((e for e in events if isinstance(e, kind)), None)


def narrate(seen: Observation, mirror: ClientMirror) -> Text:
    """The step's narration: its own phrase, then a sentence for each notable event."""
    who = label(mirror)
    key, params = _phrase(seen, mirror)
    said = text(key, {"client": who, **params})
    for follow, extra in _follow_ups(seen.events):
        said = joined(said, text(follow, {"client": who, **extra}))
    return said


def _phrase(seen: Observation, mirror: ClientMirror) -> tuple[str, dict[str, Any]]:
    message, events = seen.message, seen.events
    if seen.from_client:
        return _client_phrase(seen, mirror)
    method = message.get("method")
    if isinstance(method, str):
        if "id" in message:
            return "seen.server-request", {"method": method}
        if isinstance(_first(events, ev.ListChanged), ev.ListChanged):
            return "seen.list-changed", {}
        if _first(events, ev.ListenAcknowledged) is not None:
            return "seen.listen-acknowledged", {}
        return "seen.server-notification", {"method": method}
    unexpected = _first(events, ev.UnexpectedResponse)
    if unexpected is not None:
        return "seen.unexpected", {"id": unexpected.id}
    error = message.get("error")
    if isinstance(error, dict):
        return "seen.error", {
            "method": seen.answers,
            "code": error.get("code"),
            "message": error.get("message", ""),
        }
    return _result_phrase(seen, mirror)


def _client_phrase(seen: Observation, mirror: ClientMirror) -> tuple[str, dict[str, Any]]:
    events = seen.events
    cancelled = _first(events, ev.RequestCancelled)
    if cancelled is not None:
        key = "seen.stream-closed" if cancelled.stream_closed else "seen.cancelled"
        return key, {"id": cancelled.id, "method": cancelled.method}
    method = seen.message.get("method")
    if not isinstance(method, str):
        return "seen.client-answers", {}
    sent = _first(events, ev.InitializeSent)
    if sent is not None:
        return "seen.initialize", {"version": sent.version}
    if _first(events, ev.ProbeSent) is not None:
        return "seen.discover", {}
    if method == "tools/list" and "id" in seen.message:
        g = mirror.gathering
        params = seen.message.get("params")
        cursor = params.get("cursor") if isinstance(params, dict) else None
        if cursor is None and g is not None:
            return "seen.list-first", {"generation": g.generation}
        if g is not None and g.pages and cursor == g.next_cursor:
            return "seen.list-next", {"page": len(g.pages) + 1}
        return "seen.list-cursor-unknown", {}
    call = _first(events, ev.CallSent)
    if call is not None:
        return "seen.call", {"name": call.name}
    if _first(events, ev.ListenSent) is not None:
        return "seen.listen", {}
    key = "seen.request" if "id" in seen.message else "seen.notification"
    return key, {"method": method}


def _result_phrase(seen: Observation, mirror: ClientMirror) -> tuple[str, dict[str, Any]]:
    events = seen.events
    negotiated = _first(events, ev.Negotiated)
    if negotiated is not None:
        return "seen.initialized", {"version": negotiated.version}
    discovered = _first(events, ev.Discovered)
    if discovered is not None:
        offered = discovered.versions
        return "seen.discovered", {"versions": offered if isinstance(offered, list) else "?"}
    stale = _first(events, ev.StaleResponse)
    if stale is not None:
        return "seen.page-stale", {"generation": stale.generation, "current": stale.current}
    page = _first(events, ev.PageReceived)
    if page is not None:
        key = "seen.page-more" if page.next_cursor is not None else "seen.page-last"
        return key, {"page": page.page, "count": len(page.names), "names": page.names}
    ok = _first(events, ev.CallOk)
    if ok is not None:
        return "seen.call-ok", {"name": ok.name, "text": _short(ok.text)}
    failed = _first(events, ev.CallToolError)
    if failed is not None:
        return "seen.call-tool-error", {"name": failed.name, "text": _short(failed.text)}
    return "seen.response", {"method": seen.answers}


def _follow_ups(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    """The sentences some events add after the step's own phrase, in the events' order."""
    out: list[tuple[str, dict[str, Any]]] = []
    for event in events:
        if isinstance(event, ev.Published):
            detail = event.detail
            if event.generation == 1:
                out.append(("seen.published-first", detail))
            else:
                out.append(("seen.published", detail))
        elif isinstance(event, ev.GatherAbandoned):
            out.append(("seen.gather-abandoned", event.detail))
        elif isinstance(event, ev.CacheExpired):
            out.append(("seen.cache-expired", event.detail))
        elif isinstance(event, ev.GatherStarted) and event.reason in _WALK_REASONS:
            out.append((_WALK_REASONS[event.reason], event.detail))
        elif isinstance(event, ev.CounterOffer):
            out.append(("seen.counter-offer", event.detail))
        elif isinstance(event, ev.RepeatedCursor):
            out.append(("seen.repeated-cursor", event.detail))
    return out


def console_lines(seen: Observation, mirror: ClientMirror) -> list[Text]:
    """What the served server's console prints for this message: sessions opened, walks
    served whole, notifications sent."""
    who = label(mirror)
    lines: list[Text] = []
    if not seen.from_client and isinstance(seen.message.get("method"), str):
        lines.append(text("seen.console-notified", {"client": who, "method": seen.answers}))
    for event in seen.events:
        if isinstance(event, ev.Negotiated):
            lines.append(text("seen.console-session", {"client": who, "version": event.version}))
        elif isinstance(event, ev.Published):
            params = {"client": who, "count": event.count, "generation": event.generation}
            lines.append(text("seen.console-walk", params))
    return lines


def narrate_change(changes: dict[str, list[str]], announced: bool) -> Text:
    """A catalog change as one session's internal step: what changed, and whether the client
    is told (a server that does not declare listChanged stays silent)."""
    return text("seen.change" if announced else "seen.change-silent", dict(changes))


def console_change(number: int, changes: dict[str, list[str]]) -> Text:
    return text("seen.console-change", {"number": number, **changes})
