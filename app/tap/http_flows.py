"""What the HTTP messages of one tapped connection carry: MCP messages, for the session they
belong to.

The relay (app.tap.http_relay) reads each direction with app.tap.http1 and hands the events
here; `HttpFlow` pairs each response with its request (HTTP/1.1 answers in order), reads the
JSON-RPC messages out of request bodies, JSON responses and SSE streams (bounded: a body or an
event larger than MAX_MESSAGE is noted, not held), and tells the tap's log (app.tap.log) which
session each belongs to:

- Streamable HTTP, legacy: the session id header (`Mcp-Session-Id`); an initialize without one
  opens a session that takes the id the response gives it (or none: later requests without an
  id join the last such session);
- HTTP+SSE (2024-11-05): the `session_id` of the POST URL, which the stream's `endpoint` event
  announces;
- 2026-07-28, stateless: the client as its `_meta` names it, as the served server keys them.

A client that closes a response's stream before its answer cancels that request (2026-07-28
HTTP); a DELETE ends a legacy session.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from app.bounded_json import JsonRefused, read_json
from app.mcp import versions
from app.mcp.framing import Frame
from app.mcp.sse import parse_events
from app.probe.peers import MAX_MESSAGE  # as the probe reads a server's message

from .http1 import Head
from .log import TapLog, Unread

__all__ = ["HttpFlow"]

MAX_FRAME_SHOWN = 64 * 1024  # the body text a step's frame keeps
SESSION_HEADER = "mcp-session-id"
_pending = itertools.count(1)


def _head_text(head: Head) -> str:
    return head.start + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.headers) + "\r\n"


def _shown(data: bytes | bytearray) -> str:
    text = data[:MAX_FRAME_SHOWN].decode("utf-8", "replace")
    return text if len(data) <= MAX_FRAME_SHOWN else text + "…"


@dataclass
class _Request:
    head: Head
    body: bytearray = field(default_factory=bytearray)
    too_big: bool = False
    key: str | None = None  # the session it belongs to
    ids: list[Any] = field(default_factory=list)  # the JSON-RPC requests it carried


@dataclass
class _Response:
    request: _Request
    head: Head
    sse: bool
    body: bytearray = field(default_factory=bytearray)
    too_big: bool = False
    events: int = 0
    done: bool = False


class HttpFlow:
    """One tapped connection's requests and responses, read for MCP messages."""

    def __init__(self, log: TapLog) -> None:
        self.log = log
        self.requests: list[_Request] = []  # sent, not yet answered (in order)
        self.answering: _Response | None = None  # the response coming in

    # ----------------------------------------------------------------- client to server
    def request(self, head: Head) -> None:
        self.requests.append(_Request(head))

    def request_body(self, data: bytes) -> None:
        current = self.requests[-1] if self.requests else None
        if current is not None and not current.too_big:
            current.body += data
            if len(current.body) > MAX_MESSAGE:
                current.too_big, current.body = True, bytearray()

    def request_end(self) -> None:
        if not self.requests:
            return
        req = self.requests[-1]
        frame = Frame("http", _channel(req.head), _head_text(req.head) + _shown(req.body))
        if req.too_big:
            req.key = self._key(req.head, None)
            self._unread(req, True, Unread("size", MAX_MESSAGE), frame)
            return
        parsed: Any = None
        if req.head.method == "POST" and req.body.strip():
            parsed = self._read(req, True, bytes(req.body), frame)
        items = parsed if isinstance(parsed, list) else [parsed] if parsed is not None else []
        messages = [item for item in items if isinstance(item, dict)]
        req.key = self._key(req.head, messages[0] if messages else None)
        for item in messages:
            if "method" in item and "id" in item:
                req.ids.append(item["id"])
            self.log.message(req.key, self._transport(req.head), True, item, frame)

    # ----------------------------------------------------------------- server to client
    def response(self, head: Head) -> None:
        if 100 <= head.status < 200 or not self.requests:
            return
        req = self.requests.pop(0)
        sse = (head.header("content-type") or "").startswith("text/event-stream")
        self.answering = _Response(req, head, sse)
        session_id = head.header(SESSION_HEADER)
        if req.key is not None and session_id and req.key.startswith("init:"):
            self.log.alias(f"session:{session_id}", req.key)
        if req.key is None:
            req.key = self._key(req.head, None)

    def response_body(self, data: bytes) -> None:
        r = self.answering
        if r is None or r.too_big:
            return
        r.body += data
        if r.sse:
            self._events(r)
        elif len(r.body) > MAX_MESSAGE:
            r.too_big, r.body = True, bytearray()

    def response_end(self) -> None:
        r = self.answering
        if r is None:
            return
        r.done = True
        self.answering = None
        req = r.request
        frame = Frame("http", _channel(req.head), _head_text(r.head) + _shown(r.body))
        if r.too_big:
            self._unread(req, False, Unread("size", MAX_MESSAGE), frame)
        elif not r.sse and r.body.strip():
            content = (r.head.header("content-type") or "").lower()
            if "json" in content:
                self._server(req, self._read(req, False, bytes(r.body), frame), frame)
        if req.head.method == "DELETE" and req.key is not None and r.head.status < 300:
            self.log.end(req.key)

    def client_gone(self) -> None:
        """The client closed the connection: a response still streaming was abandoned."""
        r = self.answering
        if r is not None and not r.done and r.request.key is not None:
            for rid in r.request.ids:
                self.log.stream_closed(r.request.key, rid)

    # ----------------------------------------------------------------- reading
    def _events(self, r: _Response) -> None:
        """Complete SSE events out of the stream so far; the rest waits (bounded)."""
        text = r.body.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        end = text.rfind("\n\n")
        if end < 0:
            if len(r.body) > MAX_MESSAGE:
                self._unread(r.request, False, Unread("size", MAX_MESSAGE), None)
                r.body = bytearray()
            return
        complete, rest = text[: end + 2], text[end + 2 :]
        r.body = bytearray(rest.encode())
        for block in complete.split("\n\n"):
            if not block.strip():
                continue
            for event in parse_events(block + "\n\n"):
                self._event(r, event.event, event.data, block + "\n\n")

    def _event(self, r: _Response, kind: str, data: str, shown: str) -> None:
        req = r.request
        head = _head_text(r.head) if r.events == 0 else ""
        r.events += 1
        if kind == "endpoint":  # HTTP+SSE: the POST URL names this stream's session
            token = (parse_qs(urlsplit(data).query).get("session_id") or [""])[0]
            req.key = f"sse:{token}"
            return
        frame = Frame("http", _channel(req.head), head + shown)
        self._server(req, self._read(req, False, data.encode(), frame), frame)

    def _server(self, req: _Request, parsed: Any, frame: Frame) -> None:
        items = parsed if isinstance(parsed, list) else [parsed] if parsed is not None else []
        for item in items:
            if isinstance(item, dict):
                key = req.key or self._key(req.head, None)
                self.log.message(key, self._transport(req.head), False, item, frame)

    def _read(self, req: _Request, from_client: bool, data: bytes, frame: Frame | None) -> Any:
        try:
            return read_json(data, MAX_MESSAGE)
        except JsonRefused as exc:
            self._unread(req, from_client, Unread.refused(exc), frame)
            return None

    def _unread(self, req: _Request, from_client: bool, why: Unread, frame: Frame | None) -> None:
        key = req.key or self._key(req.head, None)
        self.log.unread(key, self._transport(req.head), from_client, why, frame)

    # ----------------------------------------------------------------- sessions
    def _transport(self, head: Head) -> str:
        path = urlsplit(head.target).path
        sse = path.endswith("/sse") or "session_id=" in head.target
        return "http+sse" if sse else "streamable-http"

    def _key(self, head: Head, message: dict[str, Any] | None) -> str:
        session_id = head.header(SESSION_HEADER)
        if session_id:
            return f"session:{session_id}"
        token = (parse_qs(urlsplit(head.target).query).get("session_id") or [""])[0]
        if token:
            return f"sse:{token}"
        message = message or {}
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and versions.META_VERSION in meta:
            info = meta.get(versions.META_CLIENT_INFO)
            info = info if isinstance(info, dict) else {}
            base = f"modern:{info.get('name', '?')}/{info.get('version', '?')}"
            return self.log.modern_key(base, message.get("method") == "server/discover")
        if message.get("method") == "initialize":
            return f"init:{next(_pending)}"
        return self.log.last_plain or f"init:{next(_pending)}"


def _channel(head: Head) -> str:
    return f"{head.method} {urlsplit(head.target).path}"
