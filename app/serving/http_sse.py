"""HTTP+SSE, the 2024-11-05 transport: a GET stream at /sse and POSTs to the URL it names.

The stream's first event, `endpoint`, names `/messages?session_id=<token>`; each POST there is
answered 202 and its reply travels on the stream. The session lives as long as its stream.
"""

from __future__ import annotations

import uuid

from app.mcp import jsonrpc
from app.mcp.framing import sse_event

from .conversations import Conversation, Conversations
from .http_messages import HttpRequest, HttpResponse, Push, error_response, json_body, request_text
from .streamable import LEGACY_SSE_HEADERS

__all__ = ["HttpSse"]


class HttpSse:
    """GET /sse and POST /messages."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations

    def open(self) -> HttpResponse:
        convs = self.conversations
        token = uuid.uuid4().hex
        stream = convs.new_stream()
        conv = Conversation(f"sse:{token}", "http+sse", convs.served.open(), stream=stream)
        conv.channel = "GET /sse"
        convs.sse_sessions[token] = conv
        endpoint = sse_event(None, event="endpoint", data=f"/messages?session_id={token}")
        return HttpResponse(200, LEGACY_SSE_HEADERS, endpoint.encode(), stream)

    def post(self, request: HttpRequest, token: str) -> tuple[HttpResponse, list[Push]]:
        convs = self.conversations
        conv = convs.sse_sessions.get(token)
        if conv is None:
            return error_response(404, jsonrpc.INVALID_REQUEST, "Session not found"), []
        message, refused = json_body(request)
        if refused is not None:
            return refused, []
        if isinstance(message, dict) and message.get("method") == "initialize":
            params = message.get("params")
            if isinstance(params, dict) and isinstance(params.get("clientInfo"), dict):
                conv.client = dict(params["clientInfo"])
        replies = convs.receive(conv, message, request_text(request), "POST /messages")
        pushes: list[Push] = []
        for reply in replies:
            result = reply.get("result")
            if isinstance(result, dict) and "protocolVersion" in result and conv.version is None:
                conv.version = str(result["protocolVersion"])
            pushes += convs.send_event(conv, reply)
        return HttpResponse(202), pushes

    def closed(self, stream: int) -> None:
        """The client left the stream: the session ends with it."""
        convs = self.conversations
        for token, conv in list(convs.sse_sessions.items()):
            if conv.stream == stream:
                del convs.sse_sessions[token]
                convs.served.close(conv.server)
