"""Streamable HTTP at /mcp: the legacy era's sessions, and the door to the modern era's requests.

Legacy (2025-03-26 ... 2025-11-25): `initialize` without a session header opens a session
(`Mcp-Session-Id` / `MCP-Session-Id` on its response); every later POST carries it (missing:
400, unknown: 404, a different MCP-Protocol-Version: 400), a GET opens the session's stream for
server-initiated messages (list_changed; events carry ids and a reconnect with Last-Event-ID
replays what followed), DELETE ends the session. A 2025-03-26 session also takes JSON-RPC
batches (that version only). A POST without a session that looks modern goes to `ModernHttp`.
"""

from __future__ import annotations

import uuid
from typing import Any

from app.mcp import jsonrpc, versions
from app.mcp.framing import SSE_CONTENT
from app.mcp.jsonrpc import Message

from .conversations import Conversation, Conversations, is_request, request_id
from .http_messages import (
    HttpRequest,
    HttpResponse,
    Push,
    error_response,
    json_body,
    json_response,
    request_text,
)
from .modern_http import ModernHttp, looks_modern

__all__ = ["LEGACY_SSE_HEADERS", "StreamableHttp"]

LEGACY_SSE_HEADERS = (("Content-Type", SSE_CONTENT), ("Cache-Control", "no-cache"))


class StreamableHttp:
    """POST, GET and DELETE at /mcp."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations
        self.modern = ModernHttp(conversations)

    def post(self, request: HttpRequest) -> tuple[HttpResponse, list[Push]]:
        message, refused = json_body(request)
        if refused is not None:
            return refused, []
        frame = request_text(request)
        session_id = request.headers.get("mcp-session-id")
        if session_id is not None:
            conv = self.conversations.sessions.get(session_id)
            if conv is None:
                # The session ended (or never was): the client must initialize again.
                return error_response(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
            header = request.headers.get("mcp-protocol-version")
            if header is not None and header != conv.version:
                text = f"MCP-Protocol-Version {header!r} is not this session's {conv.version}"
                return error_response(400, jsonrpc.INVALID_REQUEST, text, request_id(message)), []
            return self._post_session(conv, message, frame), []
        if isinstance(message, list):
            text = "A batch needs a 2025-03-26 session"
            return error_response(400, jsonrpc.INVALID_REQUEST, text), []
        if isinstance(message, dict) and message.get("method") == "initialize":
            return self._initialize(message, frame), []
        if self.conversations.stateless.server.speaks_modern and looks_modern(message):
            return self.modern.post(request, message, frame)
        # A legacy server refuses anything but initialize before a session exists; the body is
        # no modern error, so a dual-era client falls back to initialize.
        text = "Bad Request: no session (send initialize first)"
        return error_response(400, jsonrpc.INVALID_REQUEST, text, request_id(message)), []

    def _initialize(self, message: Message, frame: str) -> HttpResponse:
        convs = self.conversations
        server = convs.served.open()
        conv = Conversation(uuid.uuid4().hex, "streamable-http", server)
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("clientInfo"), dict):
            conv.client = dict(params["clientInfo"])
        replies = convs.receive(conv, message, frame, "POST /mcp")
        result = replies[0].get("result") if replies else None
        if not isinstance(result, dict):
            convs.served.close(server)
            return convs.reply(conv, replies)
        conv.version = str(result.get("protocolVersion"))
        convs.sessions[conv.key] = conv
        header = versions.session_header(conv.version) or "Mcp-Session-Id"
        return convs.reply(conv, replies, extra=((header, conv.key),))

    def _post_session(self, conv: Conversation, message: Any, frame: str) -> HttpResponse:
        if isinstance(message, list):
            return self._batch(conv, message, frame)
        replies = self.conversations.receive(conv, message, frame, "POST /mcp")
        if not is_request(message) or not replies:
            return HttpResponse(202)
        return self.conversations.reply(conv, replies)

    def _batch(self, conv: Conversation, batch: list[Any], frame: str) -> HttpResponse:
        if conv.version != "2025-03-26":
            text = f"JSON-RPC batches are a 2025-03-26 feature, not {conv.version}"
            return error_response(400, jsonrpc.INVALID_REQUEST, text)
        if not batch:
            return error_response(400, jsonrpc.INVALID_REQUEST, "An empty batch is not a request")
        replies: list[Message] = []
        for item in batch:
            if isinstance(item, dict) and item.get("method") == "initialize":
                text = "initialize must not be part of a batch"
                replies.append(jsonrpc.error(request_id(item), jsonrpc.INVALID_REQUEST, text))
                continue
            replies += self.conversations.receive(conv, item, frame, "POST /mcp")
        if not replies:
            return HttpResponse(202)
        response = json_response(200, replies)
        text = response.head_text() + response.body.decode()
        for reply in replies:
            self.conversations.observe(conv, "server", reply, text, "POST /mcp")
        return response

    def get(self, request: HttpRequest) -> HttpResponse:
        if SSE_CONTENT not in request.headers.get("accept", ""):
            text = "Accept must include text/event-stream"
            return error_response(406, jsonrpc.INVALID_REQUEST, text)
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            # No standalone stream without a session (2026-07-28 listens with a POST instead).
            return HttpResponse(405, (("Allow", "POST"),))
        conv = self.conversations.sessions.get(session_id)
        if conv is None:
            return error_response(404, jsonrpc.INVALID_REQUEST, "Session not found")
        conv.stream = self.conversations.new_stream()
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

    def delete(self, request: HttpRequest) -> tuple[HttpResponse, list[Push]]:
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            return error_response(400, jsonrpc.INVALID_REQUEST, "No session to end"), []
        conv = self.conversations.sessions.pop(session_id, None)
        if conv is None:
            return error_response(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
        self.conversations.served.close(conv.server)
        pushes = [Push(conv.stream, close=True)] if conv.stream is not None else []
        return HttpResponse(200), pushes

    def closed(self, stream: int) -> None:
        """A session's GET stream went away; the session lives on (a GET may reopen it)."""
        for conv in self.conversations.sessions.values():
            if conv.stream == stream:
                conv.stream = None
