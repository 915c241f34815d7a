"""MCP over HTTP as a sans-IO endpoint: an HTTP request in, an HTTP response and stream pushes out.

`McpEndpoint.handle(request)` answers one complete HTTP request with an `HttpResponse`; a
response with `stream` set keeps its connection open as a Server-Sent Events stream, and later
bytes for it come back as `Push`es (from `handle`, from `change`, or from `shutdown`). The
socket shell (app.serving.http) owns sockets and parsing; this module is the door: every request
passes the lab's one guard (app.guard) first (a Host that does not name this server, or a
browser's request from another origin, another port of 127.0.0.1 included, gets 403: DNS
rebinding, cross-site requests; clients that send no Origin, SDKs and curl, pass), the rest is
routed by path to the transport or API that owns it, and catalog changes reach every open
conversation. The transports and the lab's API are
modules of their own:

- Streamable HTTP at `/mcp`: legacy sessions (app.serving.streamable) and the stateless
  2026-07-28 requests and listen streams (app.serving.modern_http);
- HTTP+SSE at `/sse` and `/messages` (app.serving.http_sse), the 2024-11-05 transport;
- the lab's JSON API at `/lab/*` (app.serving.lab_api).

Every MCP message that crosses is reported to `observers` as an `Exchange` with the text of the
HTTP frame that carried it (app.serving.conversations); one of them is the `SessionLog` that
records each client's session as trace steps for the watch view.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from app import guard
from app.mcp import jsonrpc

from . import lab_api
from .catalog import Change, ServedServer
from .conversations import Conversation, Conversations, Exchange
from .http_messages import HttpRequest, HttpResponse, Push, error_response
from .http_sse import HttpSse
from .lab_api import LabApi
from .sessions import SessionLog
from .streamable import StreamableHttp

__all__ = ["McpEndpoint"]


class McpEndpoint:
    """The HTTP side of one served server; every method returns what to write, nothing more."""

    def __init__(self, served: ServedServer, *, origins: frozenset[str] = frozenset()):
        self.served = served
        self.origins = origins
        self.conversations = Conversations(served)
        self.streamable = StreamableHttp(self.conversations)
        self.sse = HttpSse(self.conversations)
        # Every session recorded as trace steps for the watch view (/lab/sessions, /lab/steps).
        self.live = SessionLog(served)
        self.observers.append(self.live.observe)
        self.lab = LabApi(self.conversations, self.live, self.change)

    @property
    def observers(self) -> list[Callable[[Exchange], None]]:
        return self.conversations.observers

    @property
    def sessions(self) -> dict[str, Conversation]:
        return self.conversations.sessions

    @property
    def sse_sessions(self) -> dict[str, Conversation]:
        return self.conversations.sse_sessions

    @property
    def listens(self) -> dict[int, Conversation]:
        return self.conversations.listens

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
            return error_response(403, jsonrpc.INVALID_REQUEST, f"Forbidden: {refusal}"), []
        parts = urlsplit(request.target)
        if parts.path == "/mcp":
            if request.method == "POST":
                return self.streamable.post(request)
            if request.method == "GET":
                return self.streamable.get(request), []
            if request.method == "DELETE":
                return self.streamable.delete(request)
            return HttpResponse(405, (("Allow", "GET, POST, DELETE"),)), []
        route = (request.method, parts.path)
        if route == ("GET", "/sse"):
            return self.sse.open(), []
        if route == ("POST", "/messages"):
            token = (parse_qs(parts.query).get("session_id") or [""])[0]
            return self.sse.post(request, token)
        answered = self.lab.handle(request.method, parts)
        if answered is not None:
            return answered
        if parts.path in ("/sse", "/messages", *lab_api.PATHS):
            return HttpResponse(405), []
        return HttpResponse(404, (("Content-Type", "text/plain"),), b"Not Found\n"), []

    def change(self) -> tuple[Change, list[Push]]:
        """Apply the next catalog change; list_changed goes to every conversation owed one."""
        change, owed = self.served.change()
        self.live.changed(change)
        pushes: list[Push] = []
        by_server = {id(c.server): c for c in self.conversations.all()}
        for server, notes in owed:
            conv = by_server.get(id(server))
            if conv is not None:
                for note in notes:
                    pushes += self.conversations.send_event(conv, note)
        return change, pushes

    def stream_closed(self, stream: int) -> None:
        """The client went away from a stream (for a modern listen stream: it cancelled it)."""
        if self.streamable.modern.closed(stream):
            return
        self.sse.closed(stream)
        self.streamable.closed(stream)

    def shutdown(self) -> list[Push]:
        """Close every stream; a listen stream ends with its graceful result."""
        pushes = self.streamable.modern.shutdown()
        for conv in [*self.sessions.values(), *self.sse_sessions.values()]:
            if conv.stream is not None:
                pushes.append(Push(conv.stream, close=True))
        return pushes

    def status(self) -> dict[str, object]:
        return self.lab.status()
