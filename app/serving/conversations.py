"""The served server's open conversations over HTTP, and what every transport does with them.

A conversation is one sans-IO `MCPServer` and what its transport knows of the client: a legacy
Streamable HTTP session, an HTTP+SSE session, a modern listen stream, or the one stateless
conversation that answers 2026-07-28 requests without a session. `Conversations` holds them all
and does what the three transports share: hand a message to the core (a core bug answers that
one request with -32603, the server keeps serving), answer with JSON, send a server-initiated
message on the conversation's stream (kept for later when none is open, and kept for a
reconnect with Last-Event-ID), and report every MCP message that crosses to the `observers` as
an `Exchange`, with the HTTP text that carried it.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.mcp import jsonrpc, versions
from app.mcp.framing import sse_event
from app.mcp.jsonrpc import Message
from app.mcp.server import MCPServer

from .catalog import ServedServer
from .http_messages import HttpResponse, Push, json_response

__all__ = ["Conversation", "Conversations", "Exchange", "is_request", "request_id"]

REPLAY_KEPT = 64  # events a legacy stream keeps for a reconnect with Last-Event-ID
BACKLOG_KEPT = 256  # events kept for a session whose GET stream is not open


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
class Conversation:
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


def request_id(message: Any) -> Any:
    """The id of a request, or None when there is none a reply could carry."""
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, int | str) and not isinstance(rid, bool) else None


def is_request(message: Any) -> bool:
    return isinstance(message, dict) and "method" in message and "id" in message


class Conversations:
    """Every open conversation of one served server, by the key its transport finds it with."""

    def __init__(self, served: ServedServer) -> None:
        self.served = served
        self.observers: list[Callable[[Exchange], None]] = []
        self.sessions: dict[str, Conversation] = {}  # legacy Streamable HTTP, by session id
        self.sse_sessions: dict[str, Conversation] = {}  # HTTP+SSE, by endpoint token
        self.listens: dict[int, Conversation] = {}  # modern listen streams, by stream number
        self.stateless = Conversation("stateless", "streamable-http", served.open())
        self._streams = 0

    def all(self) -> list[Conversation]:
        return [
            self.stateless,
            *self.sessions.values(),
            *self.sse_sessions.values(),
            *self.listens.values(),
        ]

    def new_stream(self) -> int:
        self._streams += 1
        return self._streams

    def observe(self, conv: Conversation, sender: str, message: Any, frame: str, ch: str) -> None:
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

    def receive(self, conv: Conversation, message: Any, frame: str, channel: str) -> list[Message]:
        """The core's replies to one client message (observed on its way in)."""
        self.observe(conv, "client", message, frame, channel)
        try:
            return conv.server.receive(message)
        except Exception as exc:  # a core bug answers this one request, the server keeps serving
            if not is_request(message):
                return []
            text = f"Internal error: {type(exc).__name__}"
            return [jsonrpc.error(request_id(message), jsonrpc.INTERNAL_ERROR, text)]

    def reply(
        self,
        conv: Conversation,
        replies: list[Message],
        status: int = 200,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> HttpResponse:
        """Replies as the JSON body of the POST they answer (an array for several)."""
        payload: Any = replies[0] if len(replies) == 1 else replies
        response = json_response(status, payload, extra)
        text = response.head_text() + response.body.decode()
        for reply in replies:
            self.observe(conv, "server", reply, text, "POST /mcp")
        return response

    def send_event(self, conv: Conversation, message: Message) -> list[Push]:
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
        self.observe(conv, "server", message, text, conv.channel)
        if event_id is not None:
            conv.replay.append((event_id, data))
        if conv.stream is None:
            conv.backlog.append(data)
            return []
        return [Push(conv.stream, data)]
