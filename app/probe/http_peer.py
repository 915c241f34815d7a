"""The probe's Streamable HTTP link to a real server (see app.probe.peers for what peers share).

One connection per POST: a JSON answer is one message; an SSE answer is read event by event
until the response to that request; a `subscriptions/listen` answer is read up to its
acknowledgement and the stream is kept open until `close()`, because closing it is how a 2026
client cancels it. The legacy session header and MCP-Protocol-Version are sent as the
negotiated version wants; modern requests mirror their version, method and tool name into
MCP-Protocol-Version, Mcp-Method and Mcp-Name. A body, an SSE line or an event is read up to
MAX_MESSAGE bytes, so a server cannot fill the probe's memory.
"""

from __future__ import annotations

import contextlib
import http.client
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from app.mcp import jsonrpc, versions
from app.mcp.framing import JSON_CONTENT, SSE_CONTENT, encode_json
from app.mcp.http import header_value
from app.mcp.jsonrpc import Message

from .peers import MAX_MESSAGE, PeerGone, Received, Sent, Unreachable, read

__all__ = ["HttpPeer"]


def _head(start: str, headers: list[tuple[str, str]]) -> str:
    return start + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"


class HttpPeer:
    transport = "http"

    def __init__(self, url: str, *, timeout: float = 10.0):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise Unreachable(f"{url} is not an http:// URL")
        self.url = url
        self.host = parts.hostname
        self.port = parts.port or 80
        self.path = parts.path or "/"
        if parts.query:
            self.path += "?" + parts.query
        self.authority = parts.netloc
        self.timeout = timeout
        self.noise: list[str] = []
        self.session_id: str | None = None
        self.session_header = "Mcp-Session-Id"
        self.version: str | None = None  # negotiated (legacy), for MCP-Protocol-Version
        self.inbox: deque[Received] = deque()
        self.streams: list[http.client.HTTPConnection] = []
        self.contacted = False

    def _headers(self, message: Message) -> list[tuple[str, str]]:
        headers = [
            ("Host", self.authority),
            ("Content-Type", JSON_CONTENT),
            ("Accept", f"{JSON_CONTENT}, {SSE_CONTENT}"),
        ]
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        meta = (params or {}).get("_meta") or {}
        if isinstance(meta, dict) and versions.META_VERSION in meta:
            headers.append(("MCP-Protocol-Version", str(meta[versions.META_VERSION])))
            if "method" in message:
                headers.append(("Mcp-Method", str(message["method"])))
            name = (params or {}).get("name")
            if message.get("method") == "tools/call" and isinstance(name, str):
                headers.append(("Mcp-Name", header_value(name)))
            return headers
        if self.version and versions.sends_version_header(self.version):
            headers.append(("MCP-Protocol-Version", self.version))
        if self.session_id:
            headers.append((self.session_header, self.session_id))
        return headers

    def send(self, message: Message) -> Sent:
        body = encode_json(message).encode()
        headers = self._headers(message)
        request_text = _head(f"POST {self.path} HTTP/1.1", headers) + body.decode()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request("POST", self.path, body, dict(headers[1:]))
            response = conn.getresponse()
        except OSError as exc:
            conn.close()
            text = f"cannot reach {self.url}: {exc.strerror or exc}"
            raise (PeerGone(text) if self.contacted else Unreachable(text)) from None
        self.contacted = True
        response_head = _head(
            f"HTTP/1.1 {response.status} {response.reason}", list(response.getheaders())
        )
        for name, value in response.getheaders():
            if name.lower() == "mcp-session-id":
                self.session_id, self.session_header = value, name
        content_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        is_request = "method" in message and "id" in message
        channel = f"POST {self.path.split('?')[0]}"
        if content_type == SSE_CONTENT:
            listen = message.get("method") == "subscriptions/listen"
            self._read_sse(conn, response, response_head, message.get("id"), listen, channel)
            if not listen:
                conn.close()
            return Sent(request_text, channel)
        data = response.read(MAX_MESSAGE + 1)  # a server's answer cannot fill our memory
        conn.close()
        text = response_head + data.decode("utf-8", "replace")
        if not data.strip():
            if is_request:  # a request must be answered: tell the client what HTTP said instead
                code = (
                    jsonrpc.METHOD_NOT_FOUND if response.status == 404 else jsonrpc.INVALID_REQUEST
                )
                failed = jsonrpc.error(message["id"], code, f"HTTP {response.status} with no body")
                self.inbox.append(Received(failed, text, channel, synthesized=True))
                return Sent(request_text, channel)
            return Sent(request_text, channel, reply=text)
        payload: Any = read(data, self.noise)
        if payload is None:
            if is_request:
                failed = jsonrpc.error(message["id"], jsonrpc.PARSE_ERROR, "body is not JSON")
                self.inbox.append(Received(failed, text, channel, synthesized=True))
            return Sent(request_text, channel)
        for item in payload if isinstance(payload, list) else [payload]:
            if isinstance(item, dict):
                self.inbox.append(Received(item, text, channel))
                text = ""  # the frame is shown once, with the first message it carried
            else:  # JSON, but no message: the report says so
                self.noise.append(repr(item)[:200])
        return Sent(request_text, channel)

    def _read_sse(
        self,
        conn: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        head: str,
        request_id: Any,
        listen: bool,
        channel: str,
    ) -> None:
        prefix = head
        block: list[str] = []
        size = 0
        while True:
            try:
                raw = response.readline(MAX_MESSAGE + 1)
            except OSError:
                return
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line:
                block.append(line)
                size += len(line)
                if size > MAX_MESSAGE:  # an event that does not end is not read any further
                    self.noise.append(f"an SSE event longer than {MAX_MESSAGE} bytes (not read)")
                    return
                continue
            if not block:
                continue
            data = "\n".join(
                part.split(":", 1)[1].removeprefix(" ")
                for part in block
                if part.startswith("data:")
            )
            text = "\n".join(block) + "\n\n"
            block, size = [], 0
            if not data:
                continue
            message = read(data, self.noise)
            if not isinstance(message, dict):
                if message is not None:
                    self.noise.append(data[:200])
                continue
            self.inbox.append(Received(message, prefix + text, channel))
            prefix = ""
            if listen:
                self.streams.append(conn)  # kept open: closing it cancels the subscription
                return
            if "method" not in message and message.get("id") == request_id:
                return

    def receive(self, timeout: float) -> Received | None:
        return self.inbox.popleft() if self.inbox else None

    def close(self) -> None:
        for conn in self.streams:
            conn.close()
        self.streams.clear()
        if self.session_id:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            with contextlib.suppress(OSError):
                conn.request("DELETE", self.path, headers={self.session_header: self.session_id})
                conn.getresponse().read()
            conn.close()
