"""Streamable HTTP in the modern era (2026-07-28): stateless requests and listen streams.

No session exists: every POST names its version in `_meta`, and its MCP-Protocol-Version,
Mcp-Method and Mcp-Name headers must mirror the body (else -32020 with 400). JSON-RPC errors
map to HTTP statuses. `subscriptions/listen` answers with an SSE stream (the acknowledgement
first, then the events it asked for) that lives until the client closes it, which is how
2026 HTTP cancels it; there are no client notifications on this transport (a request is
cancelled by closing its stream), so one is acknowledged with 202 and changes nothing.
"""

from __future__ import annotations

from typing import Any

from app.mcp import jsonrpc, versions
from app.mcp.framing import MODERN_SSE_HEADERS, http_status_for, sse_event
from app.mcp.http import read_header_value
from app.mcp.jsonrpc import Message

from .conversations import Conversation, Conversations, is_request, request_id
from .http_messages import HttpRequest, HttpResponse, Push

__all__ = ["ModernHttp", "looks_modern"]


def looks_modern(message: Any) -> bool:
    """A 2026-07-28 request names its version in _meta (discover and listen exist only there)."""
    if not isinstance(message, dict):
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    in_meta = isinstance(meta, dict) and versions.META_VERSION in meta
    return in_meta or message.get("method") in ("server/discover", "subscriptions/listen")


def header_mismatch(request: HttpRequest, message: Message) -> str | None:
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


class ModernHttp:
    """The stateless 2026-07-28 requests at POST /mcp, and their listen streams."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations

    def post(
        self, request: HttpRequest, message: Any, frame: str
    ) -> tuple[HttpResponse, list[Push]]:
        convs = self.conversations
        conv = convs.stateless
        if isinstance(message, dict):
            meta = (message.get("params") or {}).get("_meta") or {}
            info = meta.get(versions.META_CLIENT_INFO) if isinstance(meta, dict) else None
            if isinstance(info, dict):
                conv.client = dict(info)
            if isinstance(meta, dict) and isinstance(meta.get(versions.META_VERSION), str):
                conv.version = meta[versions.META_VERSION]
        if not is_request(message):
            convs.observe(conv, "client", message, frame, "POST /mcp")
            return HttpResponse(202), []
        mismatch = header_mismatch(request, message)
        if mismatch is not None:
            convs.observe(conv, "client", message, frame, "POST /mcp")
            reply = jsonrpc.error(request_id(message), jsonrpc.HEADER_MISMATCH, mismatch)
            return convs.reply(conv, [reply], 400), []
        if message.get("method") == "subscriptions/listen":
            return self._listen(conv, message, frame), []
        replies = convs.receive(conv, message, frame, "POST /mcp")
        return convs.reply(conv, replies, http_status_for(replies[0])), []

    def _listen(self, stateless: Conversation, message: Message, frame: str) -> HttpResponse:
        convs = self.conversations
        stream = convs.new_stream()
        conv = Conversation(
            f"listen:{stream}",
            "streamable-http",
            convs.served.open(),
            version=stateless.version,
            client=dict(stateless.client),
            channel="POST /mcp",
        )
        replies = convs.receive(conv, message, frame, "POST /mcp")
        if not replies or "method" not in replies[0]:  # refused: an error, not a stream
            convs.served.close(conv.server)
            return convs.reply(conv, replies, http_status_for(replies[0]) if replies else 400)
        conv.stream = stream
        convs.listens[stream] = conv
        response = HttpResponse(200, tuple(MODERN_SSE_HEADERS), stream=stream)
        body = b""
        for index, reply in enumerate(replies):
            text = sse_event(reply)
            head = response.head_text() if index == 0 else ""
            convs.observe(conv, "server", reply, head + text, "POST /mcp")
            body += text.encode()
        return HttpResponse(200, response.headers, body, stream)

    def closed(self, stream: int) -> bool:
        """The client closed a listen stream: that cancels its subscription."""
        listen = self.conversations.listens.pop(stream, None)
        if listen is None:
            return False
        self.conversations.served.close(listen.server)
        return True

    def shutdown(self) -> list[Push]:
        """Every listen stream ends with its graceful result, then closes."""
        convs = self.conversations
        pushes: list[Push] = []
        for stream, conv in convs.listens.items():
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
                convs.observe(conv, "server", final, text, conv.channel)
                pushes.append(Push(stream, text.encode()))
            pushes.append(Push(stream, close=True))
        return pushes
