"""Blocking links from the lab's sans-IO client to a real server: stdio and Streamable HTTP.

Both do the same two things: `send(message)` puts one client message on the wire and returns the
text it was framed as; `receive(timeout)` returns the next message the server sent, with the
text that carried it, or None when nothing came in time. `Unreachable` means the server could
not be started or connected to at all (the probe's exit 2); `PeerGone` means it went away in the
middle (a failed check, not an unreachable server).

stdio starts the command as a child process and speaks newline-delimited JSON-RPC on its stdin
and stdout (stderr is kept apart; any stdout line that is not JSON is noted, since stdout must
carry MCP messages only). HTTP opens one connection per POST: a JSON answer is one message; an
SSE answer is read event by event until the response to that request; a `subscriptions/listen`
answer is read up to its acknowledgement and the stream is kept open until `close()`, because
closing it is how a 2026 client cancels it. The legacy session header and MCP-Protocol-Version
are sent as the negotiated version wants; modern requests mirror their version, method and
tool name into MCP-Protocol-Version, Mcp-Method and Mcp-Name.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import select
import subprocess
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from typing import IO, Any, Protocol
from urllib.parse import urlsplit

from app.bounded_json import JsonRefused, read_json
from app.mcp import jsonrpc, versions
from app.mcp.framing import JSON_CONTENT, SSE_CONTENT, encode_json, header_value, stdio_frame
from app.mcp.jsonrpc import Message

__all__ = ["HttpPeer", "Peer", "PeerGone", "Received", "Sent", "StdioPeer", "Unreachable"]


# The largest message read from a server (a line, a body, an SSE event): as the lab's own
# served endpoint takes, and far beyond any real tools/list page.
MAX_MESSAGE = 4 * 1024 * 1024


def _read(data: str | bytes, noise: list[str]) -> Any:
    """A server's message through the bounded JSON reader, or None after noting why not."""
    try:
        return read_json(data, MAX_MESSAGE)
    except JsonRefused as exc:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        why = "" if exc.reason == "syntax" else f" ({exc})"
        noise.append(text[:200] + why)
        return None


class Unreachable(Exception):
    """The server could not be started or reached."""


class PeerGone(Exception):
    """The server closed the conversation (exited, or dropped the connection)."""


@dataclass(frozen=True)
class Sent:
    frame: str
    channel: str
    reply: str | None = None  # the bare HTTP answer to a message that gets none (202)


@dataclass(frozen=True)
class Received:
    message: Message
    frame: str
    channel: str
    synthesized: bool = False  # an HTTP status with no JSON-RPC body, told to the client as one


class Peer(Protocol):
    transport: str
    noise: list[str]

    def send(self, message: Message) -> Sent: ...

    def receive(self, timeout: float) -> Received | None: ...

    def close(self) -> None: ...


class StdioPeer:
    transport = "stdio"

    def __init__(self, command: list[str]):
        self.noise: list[str] = []
        self._errlog: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog
            )
        except OSError as exc:
            self._errlog.close()
            raise Unreachable(f"cannot start {command[0]}: {exc.strerror or exc}") from None
        self._buffer = b""
        self._skipping = False

    @property
    def stderr(self) -> str:
        self._errlog.seek(0)
        return self._errlog.read().decode("utf-8", "replace")

    def send(self, message: Message) -> Sent:
        frame = stdio_frame(message, from_client=True)
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(frame.text.encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise PeerGone(self._exit_text()) from None
        return Sent(frame.text, frame.channel)

    def _exit_text(self) -> str:
        code = self.process.poll()
        tail = self.stderr.strip().splitlines()[-1:] or [""]
        status = f"exited with status {code}" if code is not None else "closed its stdout"
        return f"the server {status}" + (f": {tail[0][:200]}" if tail[0] else "")

    def receive(self, timeout: float) -> Received | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while True:
            if self._skipping:  # the rest of a line already noted as too long goes unread
                end = self._buffer.find(b"\n")
                self._buffer = b"" if end < 0 else self._buffer[end + 1 :]
                self._skipping = end < 0
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                text = line.decode("utf-8", "replace")
                if not text.strip():
                    continue
                message = _read(line, self.noise)
                if isinstance(message, dict):
                    return Received(message, text + "\n", "stdout")
                if message is not None:
                    self.noise.append(text[:200])
            if len(self._buffer) > MAX_MESSAGE:  # a line that does not end: noted, then skipped
                self.noise.append(f"a stdout line longer than {MAX_MESSAGE} bytes (not read)")
                self._buffer, self._skipping = b"", True
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise PeerGone(self._exit_text())
            self._buffer += chunk

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._errlog.close()


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
        payload: Any = _read(data, self.noise)
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
            message = _read(data, self.noise)
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
