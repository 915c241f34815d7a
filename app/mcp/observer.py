"""A sans-IO observer of a real MCP session: the messages both sides sent, as the engine's events.

The lab's simulated client reports what it does as events (app.mcp.events). A real client does
not, but what it does crosses the wire, and an observer that sees every message of one session
in both directions can tell the same story: `client_sent` and `server_sent` take each message
with the time the caller saw it (the observer keeps no clock, opens no socket, starts no
thread) and return an `Observation`: the message, the request it answers, and the events the
simulated client would have reported in the real client's place (initialize sent, negotiated,
a walk of tools/list started, each page, the list complete with what it added and removed,
list_changed, a call and its result, a request cancelled, an answer nobody waits for). The
tools/list walk itself (a generation begins, each page, the list published) is
app.mcp.observed_walk's, as the simulated client's is app.mcp.gathering's.

Alongside, the observer keeps a `ClientMirror` (app.mcp.mirror): the client as far as the wire
shows it, with the same parts as the simulated client (`requests` by the ids the real client
chose, the `gathering` under way, the `cache` of the last complete list with its pages'
ttlMs); its `snapshot` is the client's state in a step. `stream_closed` is the one thing that
is not a message: on 2026-07-28 HTTP, closing a request's stream cancels it. What
the wire cannot show (whether the client swapped its cache, whether it will list again) is no
event: a grader of the client (issue 20's tap) reads the observations in order and judges by
what was sent when, e.g. a tools/call after the list expired and before a new walk, or a
list_changed followed by no walk.

Who feeds it: the served server (app.serving.sessions) sees each message of its own sessions;
a tap between a real host and a real server would see both and feed the same calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import jsonrpc, observed_walk, versions
from .events import Event
from .jsonrpc import Message, RequestId
from .lifecycle import ClientPhase
from .mirror import ClientMirror
from .negotiation import modern_error
from .requests import Pending
from .versions import Era

__all__ = ["ClientMirror", "Observation", "SessionObserver"]


@dataclass(frozen=True)
class Observation:
    """One message seen on the session and what it means."""

    from_client: bool
    message: Message
    answers: str | None  # for a response: the method of the request it answers
    events: list[Event]
    at_ms: int
    request: Pending | None = None  # for a response: the record of the request it answers


def _params(message: Message) -> dict[str, Any]:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _id(message: Message) -> RequestId | None:
    rid = message.get("id")
    return rid if isinstance(rid, int | str) and not isinstance(rid, bool) else None


class SessionObserver:
    """Everything one session's two sides sent, in order; `mirror` is the client so far."""

    def __init__(self) -> None:
        self.mirror = ClientMirror()

    # ----------------------------------------------------------------- the client's side
    def client_sent(self, message: Message, at_ms: int) -> Observation:
        """A message from the client to the server."""
        m = self.mirror
        params = _params(message)
        meta = _dict(params.get("_meta"))
        if isinstance(meta.get(versions.META_VERSION), str):  # every 2026 request names it
            m.era, m.version = Era.MODERN, meta[versions.META_VERSION]
            m.client_info = _dict(meta.get(versions.META_CLIENT_INFO)) or m.client_info
        method, rid = message.get("method"), _id(message)
        events: list[Event] = []
        if isinstance(method, str) and rid is not None:
            events = self._request(method, rid, params, at_ms)
        elif method == "notifications/cancelled":
            events = self._cancelled(params.get("requestId"), str(params.get("reason", "")))
        return Observation(
            True, message, method if isinstance(method, str) else None, events, at_ms
        )

    def _request(
        self, method: str, rid: RequestId, params: dict[str, Any], at_ms: int
    ) -> list[Event]:
        m = self.mirror
        pending = Pending(method)
        events: list[Event] = []
        if method == "initialize":
            asked = str(params.get("protocolVersion", "?"))
            m.era, m.phase, m.asked_version = Era.LEGACY, ClientPhase.INITIALIZING, asked
            if asked in versions.VERSIONS:  # the version in play until the server answers
                m.version = asked
            m.client_info = _dict(params.get("clientInfo")) or m.client_info
            events.append(ev.InitializeSent(asked))
        elif method == "server/discover":
            m.phase = ClientPhase.PROBING
            events.append(ev.ProbeSent(m.version))
        elif method == "tools/list":
            cursor = params.get("cursor")
            cursor = cursor if isinstance(cursor, str) else None
            if cursor is None or m.gathering is None:
                events += observed_walk.walk_starts(m, at_ms)
            assert m.gathering is not None
            pending = Pending(method, m.gathering.generation, cursor)
        elif method == "tools/call":
            name = str(params.get("name", "?"))
            pending = Pending(method, call={"name": name, "arguments": params.get("arguments")})
            events.append(ev.CallSent(name))
        elif method == "subscriptions/listen":
            events.append(ev.ListenSent(rid))
        m.requests.track(rid, pending)
        return events

    def _cancelled(self, rid: Any, reason: str, *, stream_closed: bool = False) -> list[Event]:
        pending = self.mirror.requests.get(rid)
        if pending is None or pending.cancelled:
            return []
        generation = pending.generation if pending.method == "tools/list" else None
        if stream_closed:
            self.mirror.requests.close(rid)
        else:
            pending.cancelled = True  # an answer may still come: it is recognised, unwanted
        return [ev.RequestCancelled(rid, pending.method, reason, generation, stream_closed)]

    def stream_closed(self, rid: RequestId, at_ms: int) -> Observation | None:
        """The client closed the stream of request `rid` before its answer: on 2026-07-28
        Streamable HTTP that is how a request is cancelled (and a listen stream ended)."""
        pending = self.mirror.requests.get(rid)
        if pending is None:
            return None
        if pending.method == "subscriptions/listen":
            self.mirror.requests.close(rid)
            self.mirror.listening = False
            events: list[Event] = [ev.ListenClosed()]
        else:
            events = self._cancelled(rid, "stream closed", stream_closed=True)
        return Observation(True, {}, pending.method, events, at_ms, pending)

    # ----------------------------------------------------------------- the server's side
    def server_sent(self, message: Message, at_ms: int) -> Observation:
        """A message from the server to the client."""
        method = message.get("method")
        if isinstance(method, str):
            events = [] if "id" in message else self._notification(method, _params(message), at_ms)
            return Observation(False, message, method, events, at_ms)
        rid = _id(message)
        pending = self.mirror.requests.close(rid)
        if pending is None:
            return Observation(False, message, None, [ev.UnexpectedResponse(rid)], at_ms)
        error = message.get("error")
        if isinstance(error, dict):
            events = self._error(pending, error)
        elif pending.cancelled and pending.method != "tools/list":
            events = [ev.UnexpectedResponse(rid)]  # cancelled: nobody waits for it
        else:
            events = self._result(pending, _dict(message.get("result")), at_ms)
        return Observation(False, message, pending.method, events, at_ms, pending)

    def _notification(self, method: str, params: dict[str, Any], at_ms: int) -> list[Event]:
        m = self.mirror
        if method == "notifications/tools/list_changed":
            m.cache.valid = False
            if m.gathering is not None:
                m.gathering.changed_meanwhile = True
            if m.list_changed_at_ms is None:  # the first change since the last walk began
                m.list_changed_at_ms = at_ms
            return [ev.ListChanged(m.declares_list_changed())]
        if method == "notifications/subscriptions/acknowledged":
            m.listening = True
            return [ev.ListenAcknowledged(_dict(params.get("notifications")))]
        return [ev.OtherNotification(method)]

    def _error(self, pending: Pending, error: dict[str, Any]) -> list[Event]:
        m, code = self.mirror, error.get("code")
        if pending.method == "initialize":
            m.phase = ClientPhase.FAILED
            return [ev.InitializeFailed(code)]
        if pending.method == "server/discover":
            if not modern_error(error):
                return [ev.FallbackLegacy(code)]  # a legacy server: initialize should follow
            if code != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
                return [ev.ModernRefused(code)]
            return []  # the client may retry in a version the error lists
        if pending.method == "tools/list":
            events: list[Event] = [ev.ListError(code, pending.cursor)]
            g = m.gathering
            if g is not None and g.generation == pending.generation:
                m.gathering = None
                events.append(ev.GatherFailed(g.generation))
                if code == jsonrpc.INVALID_PARAMS and pending.cursor is not None:
                    m.next_reason = "cursor rejected"
            return events
        if pending.call is not None:
            name = str(pending.call["name"])
            if code == jsonrpc.INVALID_PARAMS:
                m.next_reason = "unknown tool"
            return [ev.CallRejected(name, code, error.get("message"))]
        return [ev.RequestFailed(code, pending.method)]

    def _result(self, pending: Pending, result: dict[str, Any], at_ms: int) -> list[Event]:
        m = self.mirror
        if pending.method == "initialize":
            offered = str(result.get("protocolVersion", "?"))
            m.phase, m.version = ClientPhase.READY, offered
            m.server_capabilities = _dict(result.get("capabilities"))
            m.server_info = _dict(result.get("serverInfo"))
            events: list[Event] = []
            if m.asked_version is not None and offered != m.asked_version:
                events.append(ev.CounterOffer(m.asked_version, offered))
            return [*events, ev.Negotiated(offered, m.declares_list_changed())]
        if pending.method == "server/discover":
            m.phase = ClientPhase.READY
            m.server_capabilities = _dict(result.get("capabilities"))
            m.server_info = _dict(_dict(result.get("_meta")).get(versions.META_SERVER_INFO))
            return [ev.Discovered(result.get("supportedVersions"), m.declares_list_changed())]
        if pending.method == "tools/list":
            return observed_walk.page_arrived(m, pending, result, at_ms)
        if pending.call is not None:
            name = str(pending.call["name"])
            text = _text_of(result)
            return [
                ev.CallToolError(name, text) if result.get("isError") else ev.CallOk(name, text)
            ]
        if pending.method == "subscriptions/listen":
            m.listening = False
            return [ev.ListenClosed()]
        return []


def _text_of(result: dict[str, Any]) -> str:
    """The text a tools/call result carries (its text content, joined)."""
    content = result.get("content")
    parts = content if isinstance(content, list) else []
    return " ".join(
        str(c.get("text")) for c in parts if isinstance(c, dict) and c.get("type") == "text"
    )
