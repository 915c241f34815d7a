"""How each transport frames a JSON-RPC message, both ways: encode to the exact text on the wire
and decode it back.

stdio: one JSON message per line (no embedded newlines), client->server on the server's stdin,
server->client on its stdout. HTTP: `HttpLink` holds what one client-server HTTP connection
remembers (version for the MCP-Protocol-Version header, the session id, which SSE streams are
open, event ids) and turns each message into the POST, the HTTP response or the SSE event that
carries it for the negotiated version: HTTP+SSE for 2024-11-05, Streamable HTTP with sessions for
2025-03-26 to 2025-11-25, stateless POST-only for 2026-07-28. Pure functions and plain state: the
same code frames the simulation and could frame a real connection.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from . import http, jsonrpc, sse, versions
from .http import Headers, header_value
from .jsonrpc import Message
from .params import param_headers

# JSON-RPC errors a modern HTTP server answers with 400 Bad Request (the request was at fault).
_BAD_REQUEST_CODES = frozenset(
    {
        jsonrpc.PARSE_ERROR,
        jsonrpc.INVALID_REQUEST,
        jsonrpc.INVALID_PARAMS,
        jsonrpc.HEADER_MISMATCH,
        jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
        jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
    }
)
JSON_CONTENT = "application/json"
SSE_CONTENT = "text/event-stream"
HTTP_STATUS = http.REASONS


# A long-lived modern stream asks proxies not to buffer it (a SHOULD of 2026-07-28).
MODERN_SSE_HEADERS = [
    ("Content-Type", SSE_CONTENT),
    ("Cache-Control", "no-cache, no-transform"),
    ("X-Accel-Buffering", "no"),
]


def encode_json(message: Message) -> str:
    """Compact UTF-8 JSON; json escapes control characters, so no raw newline can appear."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Frame:
    """The text a transport carries for one message. `reply` is an immediate HTTP answer that
    carries no JSON-RPC message of its own (202 Accepted)."""

    transport: str
    channel: str
    text: str
    reply: str | None = None


def stdio_frame(message: Message, *, from_client: bool) -> Frame:
    return Frame("stdio", "stdin" if from_client else "stdout", encode_json(message) + "\n")


def parse_stdio(text: str) -> list[Message]:
    """Every non-empty line is one message."""
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def sse_event(
    message: Message | None,
    *,
    event: str = "message",
    event_id: str | None = None,
    data: str | None = None,
) -> str:
    """One SSE event carrying a JSON-RPC message (or other `data`), named `event`."""
    text = encode_json(message) if message is not None else (data or "")
    return sse.encode_event(text, event=event, event_id=event_id)


def http_status_for(message: Message) -> int:
    """Modern HTTP maps some JSON-RPC errors onto HTTP statuses; legacy always answers 200."""
    code = message.get("error", {}).get("code") if "error" in message else None
    if code == jsonrpc.METHOD_NOT_FOUND:
        return 404
    return 400 if code in _BAD_REQUEST_CODES else 200


class HttpLink:
    """One client's HTTP connection to one server, as far as framing needs to remember it."""

    def __init__(self, server_id: str, version: str, *, authority: str = "127.0.0.1:3000"):
        self.server_id = server_id
        self.version = version
        self.negotiated = False
        self.authority = authority
        self.session_id: str | None = None
        self.streams: dict[str, str] = {}  # stream key -> channel label
        # The open SSE responses, by stream key: each later event is one chunk of its stream.
        self._open: dict[str, http.Stream] = {}
        self._event_counter = 0
        digest = hashlib.sha256(server_id.encode()).hexdigest()
        self._session_token = (
            f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        )

    @property
    def flavour(self) -> str:
        return versions.http_flavour(self.version)

    @property
    def post_path(self) -> str:
        if self.flavour == "http+sse":
            return f"/messages?session_id={self._session_token.replace('-', '')}"
        return "/mcp"

    def _next_event_id(self) -> str:
        self._event_counter += 1
        return f"{self.server_id}-{self._event_counter}"

    def open_legacy_stream(self) -> Frame:
        """The GET that opens the server-to-client SSE stream (legacy HTTP only)."""
        stream_headers = [("Content-Type", SSE_CONTENT), ("Cache-Control", "no-cache")]
        if self.flavour == "http+sse":
            request = http.request_text(
                "GET", "/sse", [("Host", self.authority), ("Accept", SSE_CONTENT)]
            )
            head = self._open_stream("server", "GET /sse", stream_headers, "GET")
            endpoint = self._on_stream(
                "server", sse_event(None, event="endpoint", data=self.post_path)
            )
            return Frame("http", "GET /sse", request + head + endpoint)
        headers = [("Host", self.authority), ("Accept", SSE_CONTENT)]
        if self.negotiated and versions.sends_version_header(self.version):
            headers.append(("MCP-Protocol-Version", self.version))  # on every later request
        headers += self._session_headers()
        request = http.request_text("GET", "/mcp", headers)
        head = self._open_stream("server", "GET /mcp", stream_headers, "GET")
        return Frame("http", "GET /mcp", request + head)

    def _open_stream(
        self, key: str, channel: str, headers: list[tuple[str, str]], method: str
    ) -> str:
        """Open an SSE response of unknown length (sent chunked); returns its head."""
        self._open[key], head = http.Stream.open(200, headers, method)
        self.streams[key] = channel
        return head

    def _on_stream(self, key: str, event: str) -> str:
        """An event as the next chunk of an open stream (bare, if the stream was never seen)."""
        stream = self._open.get(key)
        return event if stream is None else stream.chunk(event)

    def _learn_version(self, message: Message) -> None:
        """The link reads the version off the wire, as a real one would: a modern request names
        its version in _meta, and an initialize after one is a client falling back to legacy."""
        if versions.era_of(self.version) is not versions.Era.MODERN:
            return  # legacy: the initialize result says what was negotiated (server_message)
        params = message.get("params") or {}
        if message.get("method") == "initialize":
            asked = params.get("protocolVersion")
        else:
            asked = (params.get("_meta") or {}).get(versions.META_VERSION)
        if asked in versions.VERSIONS:
            self.version = str(asked)

    def _session_headers(self) -> list[tuple[str, str]]:
        header = versions.session_header(self.version)
        if header and self.session_id:
            return [(header, self.session_id)]
        return []

    def client_message(
        self, message: Message, tool: dict[str, Any] | None = None, token: str | None = None
    ) -> Frame:
        """A client's POST. Notifications and responses are answered 202 with no body.

        `tool` is the client's definition of the tool a tools/call names: in the modern era its
        `x-mcp-header` annotations add Mcp-Param-* headers after Mcp-Name (see params).
        """
        body = encode_json(message)
        method = message.get("method")
        self._learn_version(message)
        headers = [
            ("Host", self.authority),
            ("Content-Type", JSON_CONTENT),
            ("Accept", f"{JSON_CONTENT}, {SSE_CONTENT}"),
        ]
        modern = versions.era_of(self.version) is versions.Era.MODERN
        if modern:
            # Headers mirror the body: the version the request itself names in _meta.
            meta = (message.get("params") or {}).get("_meta") or {}
            headers.append(
                ("MCP-Protocol-Version", str(meta.get(versions.META_VERSION, self.version)))
            )
            headers.append(("Mcp-Method", str(method)))
            params = message.get("params") or {}
            # Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read).
            name = params.get("uri") if method == "resources/read" else params.get("name")
            if method in ("tools/call", "prompts/get", "resources/read") and isinstance(name, str):
                headers.append(("Mcp-Name", header_value(name)))
            if method == "tools/call" and tool is not None:
                arguments = (message.get("params") or {}).get("arguments") or {}
                headers += param_headers(tool.get("inputSchema"), arguments)
        elif self.negotiated and versions.sends_version_header(self.version):
            headers.append(("MCP-Protocol-Version", self.version))
        headers += self._session_headers()
        if token is not None:  # MUST be on every HTTP request to a protected server
            headers.append(("Authorization", f"Bearer {token}"))
        headers.append(("Content-Length", str(len(body.encode()))))
        text = http.request_text("POST", self.post_path, headers, body)
        channel = f"POST {self.post_path.split('?')[0]}"
        is_request = "method" in message and "id" in message
        reply = None
        if not is_request or self.flavour == "http+sse":
            reply = http.response_text(202, [])
        return Frame("http", channel, text, reply)

    def server_message(
        self,
        message: Message,
        *,
        answers: str | None = None,
        stream: str | None = None,
        legacy_server: bool = False,
    ) -> Frame:
        """A server's message: the response to a POST, or an event on an open SSE stream.

        `answers` is the method of the request a response belongs to; `stream` names the listen
        request (modern) whose SSE response stream carries a notification; `legacy_server` says
        the server speaks only legacy versions, whatever the client's request assumed.
        """
        if answers == "initialize" and "result" in message:
            offered = message["result"].get("protocolVersion")
            if offered in versions.VERSIONS:
                self.version = offered  # headers are spelled as the negotiated version spells them
                self.negotiated = True
        if self.flavour == "http+sse":
            return Frame("http", "GET /sse", self._on_stream("server", sse_event(message)))
        modern = versions.era_of(self.version) is versions.Era.MODERN and not legacy_server
        if "method" in message:  # a notification travels on a stream
            if modern and stream is not None:
                key = f"listen:{stream}"
                head = ""
                if key not in self.streams:  # the listen POST's answer becomes its stream
                    head = self._open_stream(key, "POST /mcp", MODERN_SSE_HEADERS, "POST")
                return Frame("http", "POST /mcp", head + self._on_stream(key, sse_event(message)))
            event_id = self._next_event_id() if versions.sse_event_ids(self.version) else None
            channel = self.streams.get("server", "GET /mcp")
            event = sse_event(message, event_id=event_id)
            return Frame("http", channel, self._on_stream("server", event))
        body = encode_json(message)
        headers = [("Content-Type", JSON_CONTENT)]
        if (
            answers == "initialize"
            and "result" in message
            and versions.session_header(self.version)
        ):
            self.session_id = self._session_token
            headers += self._session_headers()
        if modern:
            status = http_status_for(message)
        else:
            # A legacy Streamable HTTP server refuses anything but initialize before its session
            # exists with 400 (and a body no modern client mistakes for a modern error).
            refused = "error" in message and self.session_id is None and answers != "initialize"
            status = 400 if refused else 200
        return Frame("http", "POST /mcp", http.response_text(status, headers, body))


def parse_http_request(text: str) -> tuple[str, Headers, Message | None]:
    """A framed HTTP request: its request line, headers (case-insensitive) and JSON body."""
    start, headers, body = http.parse_request(text)
    return start, headers, (json.loads(body) if body.strip() else None)


def parse_sse(text: str) -> list[dict[str, str]]:
    """The events of an SSE stream as dicts of their fields (event, data, and id if set)."""
    return [event.as_fields() for event in sse.parse_events(text)]


def parse_http_response(text: str) -> tuple[int, Headers, list[Message]]:
    """Status, headers and the JSON-RPC messages of a framed response (JSON body or SSE events)."""
    status, headers, body = http.parse_response(text)
    media = headers.get("Content-Type", "").split(";")[0].strip().lower()
    if media == SSE_CONTENT:
        events = sse.parse_events(body)
        messages = [json.loads(e.data) for e in events if e.event == "message"]
    else:
        messages = [json.loads(body)] if body.strip() else []
    return status, headers, messages
