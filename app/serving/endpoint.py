"""MCP over HTTP as a sans-IO endpoint: an HTTP request in, an HTTP response and stream pushes out.

`McpEndpoint.handle(request)` answers one complete HTTP request with an `HttpResponse`; a
response with `stream` set keeps its connection open as a Server-Sent Events stream, and later
bytes for it come back as `Push`es (from `handle`, from `change`, or from `shutdown`). The shell
owns sockets and parsing (h11); this module owns the MCP transport rules:

- Streamable HTTP at `/mcp`, legacy era (2025-03-26 ... 2025-11-25): `initialize` without a
  session header opens a session (`Mcp-Session-Id` / `MCP-Session-Id` on its response); every
  later POST carries it (missing: 400, unknown: 404), a GET opens the session's stream for
  server-initiated messages (list_changed; events carry ids and a reconnect with Last-Event-ID
  replays what followed), DELETE ends the session. A 2025-03-26 session also takes JSON-RPC
  batches (that version only).
- Streamable HTTP at `/mcp`, modern era (2026-07-28): stateless POSTs whose MCP-Protocol-Version,
  Mcp-Method and Mcp-Name headers must mirror the body (else -32020, 400); JSON-RPC errors map to
  HTTP statuses; `subscriptions/listen` answers with an SSE stream (ack first, then the events
  it asked for) that lives until the client closes it, which is how 2026 HTTP cancels it.
- HTTP+SSE at `/sse` (the 2024-11-05 transport): the GET stream names its POST endpoint in an
  `endpoint` event, each POST there is answered 202 and its reply travels on the stream.
- Every request passes the lab's one guard (app.guard) first: a Host that does not name this
  server, or a browser's request from another origin (another port of 127.0.0.1 included), gets
  403 (DNS rebinding, cross-site requests); clients that send no Origin (SDKs, curl) pass.
- Bodies are read by the lab's one bounded JSON reader (app.bounded_json): nesting deeper than
  it allows is a -32700 parse error like any text that is not JSON, never a RecursionError.
- `/lab/change` applies the next catalog change on demand, `/lab/status` tells what is served,
  `/lab/sessions` (with a `revision` that grows with every step) and
  `/lab/steps?session=ID[&since=N]` give each client's session as trace steps (live), for the
  live view of `mcp-lab serve` (app.web.watch).

Every MCP message that crosses is also reported to `observers` as an `Exchange` with the text of
the HTTP frame that carried it, so a live view or a recorder can show the real bytes.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from app import guard
from app.bounded_json import JsonRefused, read_json
from app.mcp import jsonrpc, versions
from app.mcp.framing import (
    JSON_CONTENT,
    MODERN_SSE_HEADERS,
    SSE_CONTENT,
    encode_json,
    http_status_for,
    read_header_value,
    sse_event,
)
from app.mcp.jsonrpc import Message
from app.mcp.server import MCPServer

from .catalog import Change, ServedServer
from .sessions import SessionLog

__all__ = [
    "Exchange",
    "HttpRequest",
    "HttpResponse",
    "McpEndpoint",
    "Push",
]

REASONS = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
}
LEGACY_SSE_HEADERS = (("Content-Type", SSE_CONTENT), ("Cache-Control", "no-cache"))
# The largest JSON-RPC body read (the shell answers 413 before a larger one reaches us).
MAX_MESSAGE = 4 * 1024 * 1024
REPLAY_KEPT = 64  # events a legacy stream keeps for a reconnect with Last-Event-ID
BACKLOG_KEPT = 256  # events kept for a session whose GET stream is not open


@dataclass(frozen=True)
class HttpRequest:
    """One complete HTTP request; header names are lower-case."""

    method: str
    target: str
    headers: Mapping[str, str]
    body: bytes = b""


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    stream: int | None = None  # keep the connection open as this SSE stream; body comes first

    @property
    def reason(self) -> str:
        return REASONS.get(self.status, "Unknown")

    def head_text(self) -> str:
        lines = [f"HTTP/1.1 {self.status} {self.reason}"]
        lines += [f"{k}: {v}" for k, v in self.headers]
        if self.stream is None:
            lines.append(f"Content-Length: {len(self.body)}")
        return "\r\n".join(lines) + "\r\n\r\n"


@dataclass(frozen=True)
class Push:
    """Bytes for an open stream; `close` ends the stream after them."""

    stream: int
    data: bytes = b""
    close: bool = False


@dataclass(frozen=True)
class Exchange:
    """One MCP message on the wire, as a live view or a recorder wants it."""

    conversation: str  # session id, "sse:<token>", "listen:<n>" or "stateless"
    transport: str  # "streamable-http", "http+sse"
    version: str | None
    client: dict[str, Any]  # clientInfo as the client gave it ({} when it gave none)
    sender: str  # "client" or "server"
    message: Message
    frame: str  # the HTTP text that carried it
    channel: str  # "POST /mcp", "GET /mcp", "GET /sse", ...


@dataclass
class _Conversation:
    key: str
    transport: str
    server: MCPServer
    version: str | None = None
    client: dict[str, Any] = field(default_factory=dict)
    stream: int | None = None
    channel: str = "GET /mcp"
    events: int = 0
    replay: deque[tuple[str, bytes]] = field(default_factory=lambda: deque(maxlen=REPLAY_KEPT))
    backlog: deque[bytes] = field(default_factory=lambda: deque(maxlen=BACKLOG_KEPT))


def _json_response(
    status: int, payload: Any, extra: tuple[tuple[str, str], ...] = ()
) -> HttpResponse:
    body = (encode_json(payload) if payload is not None else "").encode()
    return HttpResponse(status, (("Content-Type", JSON_CONTENT), *extra), body)


def _error(status: int, code: int, text: str, request_id: Any = None) -> HttpResponse:
    return _json_response(status, jsonrpc.error(request_id, code, text))


def refused_body(exc: JsonRefused) -> HttpResponse:
    """The answer to a body the bounded reader refused (the shell's 413 for a body it stopped
    reading too). Text that is not JSON is a plain parse error; a body past the reader's bounds
    says which bound, so a client can tell a refusal from its own malformed message."""
    why = None if exc.reason == "syntax" else str(exc)
    refused = jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error", why)
    return _json_response(413 if exc.reason == "size" else 400, refused)


def _request_text(request: HttpRequest) -> str:
    head = [f"{request.method} {request.target} HTTP/1.1"]
    head += [f"{k}: {v}" for k, v in request.headers.items()]
    return "\r\n".join(head) + "\r\n\r\n" + request.body.decode("utf-8", "replace")


def _request_id(message: Any) -> Any:
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, int | str) and not isinstance(rid, bool) else None


def _looks_modern(message: Any) -> bool:
    """A 2026-07-28 request names its version in _meta (discover and listen exist only there)."""
    if not isinstance(message, dict):
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    in_meta = isinstance(meta, dict) and versions.META_VERSION in meta
    return in_meta or message.get("method") in ("server/discover", "subscriptions/listen")


def _is_request(message: Any) -> bool:
    return isinstance(message, dict) and "method" in message and "id" in message


class McpEndpoint:
    """The HTTP side of one served server; every method returns what to write, nothing more."""

    def __init__(self, served: ServedServer, *, origins: frozenset[str] = frozenset()):
        self.served = served
        self.origins = origins
        self.observers: list[Callable[[Exchange], None]] = []
        self.sessions: dict[str, _Conversation] = {}  # legacy Streamable HTTP, by session id
        self.sse_sessions: dict[str, _Conversation] = {}  # HTTP+SSE, by endpoint token
        self.listens: dict[int, _Conversation] = {}  # modern listen streams, by stream number
        self.stateless = _Conversation("stateless", "streamable-http", served.open())
        self._streams = 0
        # Every session recorded as trace steps for the live view (/lab/sessions, /lab/steps).
        self.live = SessionLog(served)
        self.observers.append(self.live.observe)

    # ----------------------------------------------------------------- helpers
    def _new_stream(self) -> int:
        self._streams += 1
        return self._streams

    def _observe(self, conv: _Conversation, sender: str, message: Any, frame: str, ch: str) -> None:
        if not self.observers or not isinstance(message, dict):
            return
        exchange = Exchange(
            conv.key, conv.transport, conv.version, dict(conv.client), sender, message, frame, ch
        )
        for observer in self.observers:
            # Recording is a side show: a message a recorder cannot take (a client's id that is
            # an object, say) must not cost the client its answer or the server its loop.
            with contextlib.suppress(Exception):
                observer(exchange)

    def _refusal(self, request: HttpRequest) -> str | None:
        """Why app.guard refuses this request, or None. The endpoint serves no pages, so only
        its own origins (and LAB_ALLOWED_ORIGINS, which `mcp-lab mcp-server` adds to them) are
        browsers it takes; a client without Origin and Sec-Fetch-Site (every SDK, curl, the
        lab's own watch client) is no browser and passes, as the MCP spec's Origin rule wants."""
        hosts = [urlsplit(origin).netloc for origin in self.origins]
        if not guard.host_allowed(request.headers.get("host"), hosts):
            return "Host " + request.headers.get("host", "")[:100] + " is not this server"
        refusal = guard.judge(
            request.headers.get("origin"),
            request.headers.get("sec-fetch-site"),
            hosts,
            guard.setting(self.origins),
        )
        return None if refusal is None else refusal.detail

    # ----------------------------------------------------------------- entry points
    def handle(self, request: HttpRequest) -> tuple[HttpResponse, list[Push]]:
        """Answer one HTTP request."""
        refusal = self._refusal(request)
        if refusal is not None:
            # A page on another origin (or a DNS-rebinding one) must not reach a local server.
            return _error(403, jsonrpc.INVALID_REQUEST, f"Forbidden: {refusal}"), []
        parts = urlsplit(request.target)
        route = (request.method, parts.path)
        if parts.path == "/mcp":
            if request.method == "POST":
                return self._post_mcp(request)
            if request.method == "GET":
                return self._get_mcp(request), []
            if request.method == "DELETE":
                return self._delete_mcp(request)
            return HttpResponse(405, (("Allow", "GET, POST, DELETE"),)), []
        if route == ("GET", "/sse"):
            return self._open_sse(), []
        if route == ("POST", "/messages"):
            token = (parse_qs(parts.query).get("session_id") or [""])[0]
            return self._post_sse(request, token)
        if route == ("POST", "/lab/change"):
            change, pushes = self.change()
            return _json_response(200, self._change_json(change)), pushes
        if route == ("GET", "/lab/status"):
            return _json_response(200, self.status()), []
        if route == ("GET", "/lab/sessions"):
            listed = {
                "revision": self.live.revision,
                "server": {"name": self.served.config.name, "version": self.served.config.version},
                "tools": len(self.served.tools),
                "changesApplied": len(self.served.applied),
                "sessions": self.live.summary(),
            }
            return _json_response(200, listed), []
        if route == ("GET", "/lab/steps"):
            query = parse_qs(parts.query)
            key = (query.get("session") or [""])[0]
            since = (query.get("since") or ["0"])[0]
            steps = self.live.steps(key, int(since) if since.isdigit() else 0)
            if steps is None:
                return _error(404, jsonrpc.INVALID_REQUEST, "No such session"), []
            return _json_response(200, steps), []
        if parts.path in ("/sse", "/messages", "/lab/change", "/lab/status", "/lab/sessions"):
            return HttpResponse(405), []
        return HttpResponse(404, (("Content-Type", "text/plain"),), b"Not Found\n"), []

    def change(self) -> tuple[Change, list[Push]]:
        """Apply the next catalog change; list_changed goes to every conversation owed one."""
        change, owed = self.served.change()
        self.live.changed(change)
        pushes: list[Push] = []
        by_server = {id(c.server): c for c in self._conversations()}
        for server, notes in owed:
            conv = by_server.get(id(server))
            if conv is not None:
                for note in notes:
                    pushes += self._send_event(conv, note)
        return change, pushes

    def stream_closed(self, stream: int) -> None:
        """The client went away from a stream (for a modern listen stream: it cancelled it)."""
        listen = self.listens.pop(stream, None)
        if listen is not None:
            self.served.close(listen.server)
            return
        for token, conv in list(self.sse_sessions.items()):
            if conv.stream == stream:  # an HTTP+SSE session lives as long as its stream
                del self.sse_sessions[token]
                self.served.close(conv.server)
        for conv in self.sessions.values():
            if conv.stream == stream:
                conv.stream = None

    def shutdown(self) -> list[Push]:
        """Close every stream; a listen stream ends with its graceful result."""
        pushes: list[Push] = []
        for stream, conv in self.listens.items():
            listen_id = next(iter(conv.server.subscriptions), None)
            if listen_id is not None:
                final = jsonrpc.result(
                    listen_id,
                    {
                        "resultType": "complete",
                        "_meta": {versions.META_SUBSCRIPTION_ID: listen_id},
                    },
                )
                text = sse_event(final)
                self._observe(conv, "server", final, text, conv.channel)
                pushes.append(Push(stream, text.encode()))
            pushes.append(Push(stream, close=True))
        for conv in [*self.sessions.values(), *self.sse_sessions.values()]:
            if conv.stream is not None:
                pushes.append(Push(conv.stream, close=True))
        return pushes

    def status(self) -> dict[str, Any]:
        conversations = [
            {
                "id": c.key,
                "transport": c.transport,
                "protocolVersion": c.version,
                "client": c.client,
                "streamOpen": c.stream is not None,
            }
            for c in self._conversations()
            if c is not self.stateless
        ]
        return {
            "server": {"name": self.served.config.name, "version": self.served.config.version},
            "listChanged": self.served.config.list_changed,
            "tools": [t["name"] for t in self.served.tools],
            "changesApplied": len(self.served.applied),
            "changesPlanned": self.served.planned,
            "conversations": conversations,
        }

    # ----------------------------------------------------------------- internals
    def _conversations(self) -> list[_Conversation]:
        return [
            self.stateless,
            *self.sessions.values(),
            *self.sse_sessions.values(),
            *self.listens.values(),
        ]

    @staticmethod
    def _change_json(change: Change) -> dict[str, Any]:
        return {
            "number": change.number,
            "source": change.source,
            "added": change.added,
            "removed": change.removed,
            "changed": change.changed,
            "notified": change.notified,
            "summary": change.describe(),
        }

    def _send_event(self, conv: _Conversation, message: Message) -> list[Push]:
        """A server-initiated message on the conversation's stream (kept if none is open)."""
        event_id = None
        if (
            conv.transport == "streamable-http"
            and conv.version
            and versions.sse_event_ids(conv.version)
        ):
            conv.events += 1
            event_id = f"{conv.key}-{conv.events}"
        text = sse_event(message, event_id=event_id)
        data = text.encode()
        self._observe(conv, "server", message, text, conv.channel)
        if event_id is not None:
            conv.replay.append((event_id, data))
        if conv.stream is None:
            conv.backlog.append(data)
            return []
        return [Push(conv.stream, data)]

    def _parse(self, request: HttpRequest) -> tuple[Any, HttpResponse | None]:
        content_type = request.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() != JSON_CONTENT:
            text = "Content-Type must be application/json"
            return None, _error(415, jsonrpc.INVALID_REQUEST, text)
        try:
            return read_json(request.body, MAX_MESSAGE), None
        except JsonRefused as exc:
            return None, refused_body(exc)

    def _receive(
        self, conv: _Conversation, message: Any, frame: str, channel: str
    ) -> list[Message]:
        self._observe(conv, "client", message, frame, channel)
        try:
            return conv.server.receive(message)
        except Exception as exc:  # a core bug answers this one request, the server keeps serving
            if not _is_request(message):
                return []
            text = f"Internal error: {type(exc).__name__}"
            return [jsonrpc.error(_request_id(message), jsonrpc.INTERNAL_ERROR, text)]

    def _reply(
        self,
        conv: _Conversation,
        replies: list[Message],
        status: int = 200,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> HttpResponse:
        payload: Any = replies[0] if len(replies) == 1 else replies
        response = _json_response(status, payload, extra)
        text = response.head_text() + response.body.decode()
        for reply in replies:
            self._observe(conv, "server", reply, text, "POST /mcp")
        return response

    # ----------------------------------------------------------------- /mcp
    def _post_mcp(self, request: HttpRequest) -> tuple[HttpResponse, list[Push]]:
        message, refused = self._parse(request)
        if refused is not None:
            return refused, []
        frame = _request_text(request)
        session_id = request.headers.get("mcp-session-id")
        if session_id is not None:
            conv = self.sessions.get(session_id)
            if conv is None:
                # The session ended (or never was): the client must initialize again.
                return _error(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
            header = request.headers.get("mcp-protocol-version")
            if header is not None and header != conv.version:
                text = f"MCP-Protocol-Version {header!r} is not this session's {conv.version}"
                return _error(400, jsonrpc.INVALID_REQUEST, text, _request_id(message)), []
            return self._post_session(conv, message, frame), []
        if isinstance(message, list):
            return _error(400, jsonrpc.INVALID_REQUEST, "A batch needs a 2025-03-26 session"), []
        if isinstance(message, dict) and message.get("method") == "initialize":
            return self._initialize(message, frame), []
        if self.stateless.server.speaks_modern and _looks_modern(message):
            return self._post_modern(request, message, frame)
        # A legacy server refuses anything but initialize before a session exists; the body is
        # no modern error, so a dual-era client falls back to initialize.
        text = "Bad Request: no session (send initialize first)"
        return _error(400, jsonrpc.INVALID_REQUEST, text, _request_id(message)), []

    def _initialize(self, message: Message, frame: str) -> HttpResponse:
        server = self.served.open()
        conv = _Conversation(uuid.uuid4().hex, "streamable-http", server)
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("clientInfo"), dict):
            conv.client = dict(params["clientInfo"])
        replies = self._receive(conv, message, frame, "POST /mcp")
        result = replies[0].get("result") if replies else None
        if not isinstance(result, dict):
            self.served.close(server)
            return self._reply(conv, replies)
        conv.version = str(result.get("protocolVersion"))
        self.sessions[conv.key] = conv
        header = versions.session_header(conv.version) or "Mcp-Session-Id"
        return self._reply(conv, replies, extra=((header, conv.key),))

    def _post_session(self, conv: _Conversation, message: Any, frame: str) -> HttpResponse:
        if isinstance(message, list):
            return self._batch(conv, message, frame)
        replies = self._receive(conv, message, frame, "POST /mcp")
        if not _is_request(message) or not replies:
            return HttpResponse(202)
        return self._reply(conv, replies)

    def _batch(self, conv: _Conversation, batch: list[Any], frame: str) -> HttpResponse:
        if conv.version != "2025-03-26":
            text = f"JSON-RPC batches are a 2025-03-26 feature, not {conv.version}"
            return _error(400, jsonrpc.INVALID_REQUEST, text)
        if not batch:
            return _error(400, jsonrpc.INVALID_REQUEST, "An empty batch is not a request")
        replies: list[Message] = []
        for item in batch:
            if isinstance(item, dict) and item.get("method") == "initialize":
                text = "initialize must not be part of a batch"
                replies.append(jsonrpc.error(_request_id(item), jsonrpc.INVALID_REQUEST, text))
                continue
            replies += self._receive(conv, item, frame, "POST /mcp")
        if not replies:
            return HttpResponse(202)
        response = _json_response(200, replies)
        text = response.head_text() + response.body.decode()
        for reply in replies:
            self._observe(conv, "server", reply, text, "POST /mcp")
        return response

    def _header_mismatch(self, request: HttpRequest, message: Message) -> str | None:
        """2026-07-28 routing headers must mirror the body they travel with."""
        given_params = message.get("params")
        params: dict[str, Any] = given_params if isinstance(given_params, dict) else {}
        given_meta = params.get("_meta")
        meta: dict[str, Any] = given_meta if isinstance(given_meta, dict) else {}
        if versions.META_VERSION not in meta:
            return None  # the core answers the missing _meta key with -32602
        if request.headers.get("mcp-protocol-version") != meta[versions.META_VERSION]:
            return "MCP-Protocol-Version header does not match _meta protocolVersion"
        if request.headers.get("mcp-method") != message.get("method"):
            return "Mcp-Method header does not match the body's method"
        if message.get("method") == "tools/call" and isinstance(params.get("name"), str):
            given = request.headers.get("mcp-name")
            if given is None or read_header_value(given) != params["name"]:
                return "Mcp-Name header does not match params.name"
        return None

    def _post_modern(
        self, request: HttpRequest, message: Any, frame: str
    ) -> tuple[HttpResponse, list[Push]]:
        conv = self.stateless
        if isinstance(message, dict):
            meta = (message.get("params") or {}).get("_meta") or {}
            info = meta.get(versions.META_CLIENT_INFO) if isinstance(meta, dict) else None
            if isinstance(info, dict):
                conv.client = dict(info)
            if isinstance(meta, dict) and isinstance(meta.get(versions.META_VERSION), str):
                conv.version = meta[versions.META_VERSION]
        if not _is_request(message):
            # 2026 HTTP has no client notifications: a request is cancelled by closing its stream.
            self._observe(conv, "client", message, frame, "POST /mcp")
            return HttpResponse(202), []
        mismatch = self._header_mismatch(request, message)
        if mismatch is not None:
            self._observe(conv, "client", message, frame, "POST /mcp")
            reply = jsonrpc.error(_request_id(message), jsonrpc.HEADER_MISMATCH, mismatch)
            return self._reply(conv, [reply], 400), []
        if message.get("method") == "subscriptions/listen":
            return self._listen(conv, message, frame), []
        replies = self._receive(conv, message, frame, "POST /mcp")
        return self._reply(conv, replies, http_status_for(replies[0])), []

    def _listen(self, stateless: _Conversation, message: Message, frame: str) -> HttpResponse:
        stream = self._new_stream()
        conv = _Conversation(
            f"listen:{stream}",
            "streamable-http",
            self.served.open(),
            version=stateless.version,
            client=dict(stateless.client),
            channel="POST /mcp",
        )
        replies = self._receive(conv, message, frame, "POST /mcp")
        if not replies or "method" not in replies[0]:  # refused: an error, not a stream
            self.served.close(conv.server)
            return self._reply(conv, replies, http_status_for(replies[0]) if replies else 400)
        conv.stream = stream
        self.listens[stream] = conv
        response = HttpResponse(200, tuple(MODERN_SSE_HEADERS), stream=stream)
        body = b""
        for index, reply in enumerate(replies):
            text = sse_event(reply)
            head = response.head_text() if index == 0 else ""
            self._observe(conv, "server", reply, head + text, "POST /mcp")
            body += text.encode()
        return HttpResponse(200, response.headers, body, stream)

    def _get_mcp(self, request: HttpRequest) -> HttpResponse:
        if SSE_CONTENT not in request.headers.get("accept", ""):
            return _error(406, jsonrpc.INVALID_REQUEST, "Accept must include text/event-stream")
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            # No standalone stream without a session (2026-07-28 listens with a POST instead).
            return HttpResponse(405, (("Allow", "POST"),))
        conv = self.sessions.get(session_id)
        if conv is None:
            return _error(404, jsonrpc.INVALID_REQUEST, "Session not found")
        conv.stream = self._new_stream()
        last = request.headers.get("last-event-id")
        body = b""
        if last is not None and any(event_id == last for event_id, _ in conv.replay):
            after = False
            for event_id, data in conv.replay:  # resume: what followed the last event seen
                if after:
                    body += data
                after = after or event_id == last
            conv.backlog.clear()
        body += b"".join(conv.backlog)
        conv.backlog.clear()
        return HttpResponse(200, LEGACY_SSE_HEADERS, body, conv.stream)

    def _delete_mcp(self, request: HttpRequest) -> tuple[HttpResponse, list[Push]]:
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            return _error(400, jsonrpc.INVALID_REQUEST, "No session to end"), []
        conv = self.sessions.pop(session_id, None)
        if conv is None:
            return _error(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
        self.served.close(conv.server)
        pushes = [Push(conv.stream, close=True)] if conv.stream is not None else []
        return HttpResponse(200), pushes

    # ----------------------------------------------------------------- /sse (2024-11-05)
    def _open_sse(self) -> HttpResponse:
        token = uuid.uuid4().hex
        conv = _Conversation(
            f"sse:{token}", "http+sse", self.served.open(), stream=self._new_stream()
        )
        conv.channel = "GET /sse"
        self.sse_sessions[token] = conv
        endpoint = sse_event(None, event="endpoint", data=f"/messages?session_id={token}")
        assert conv.stream is not None
        return HttpResponse(200, LEGACY_SSE_HEADERS, endpoint.encode(), conv.stream)

    def _post_sse(self, request: HttpRequest, token: str) -> tuple[HttpResponse, list[Push]]:
        conv = self.sse_sessions.get(token)
        if conv is None:
            return _error(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
        message, refused = self._parse(request)
        if refused is not None:
            return refused, []
        if isinstance(message, dict) and message.get("method") == "initialize":
            params = message.get("params")
            if isinstance(params, dict) and isinstance(params.get("clientInfo"), dict):
                conv.client = dict(params["clientInfo"])
        replies = self._receive(conv, message, _request_text(request), "POST /messages")
        pushes: list[Push] = []
        for reply in replies:
            result = reply.get("result")
            if isinstance(result, dict) and "protocolVersion" in result and conv.version is None:
                conv.version = str(result["protocolVersion"])
            pushes += self._send_event(conv, reply)
        return HttpResponse(202), pushes
