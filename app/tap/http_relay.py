"""`mcp-lab tap --upstream URL --port P`: a transparent reverse proxy for Streamable HTTP and
HTTP+SSE, recording what crosses.

Each connection a host opens to the tap gets one connection to the real server, and two pumps
(one thread each way) copy bytes as they come, at most CHUNK at a time: a slow reader on one side
holds back its writer on the other through the sockets' own buffers, so the tap's memory stays
bounded. Bytes pass unchanged, with one exception any reverse proxy makes: a request's Host
names the real server (whose DNS-rebinding guard would refuse the tap's name), which is why the
tap applies the lab's guard itself first (`refused`). Beside the copy,
each direction is read by app.tap.http1 and its messages recorded by app.tap.http_flows into the
tap's log; what a pump reads is recorded before it is written on, so the session's steps are in
the order the peers saw them. Whatever the reading or the recording fails at is noted and the
copy goes on: the tap is never the reason a session breaks.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from urllib.parse import urlsplit

from app import guard
from app.serving.http import loopback_origins

from .http1 import Body, End, Head, MessageReader, Piece, rewrite_host
from .http_flows import HttpFlow
from .log import TapLog

__all__ = ["BadUpstream", "HttpTap"]

CHUNK = 64 * 1024
LINGER_SECONDS = 5  # how long a refused host may go on sending
BAD_GATEWAY = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class BadUpstream(ValueError):
    """The --upstream value is not an http:// URL."""


class _Link:
    """One client connection and its upstream twin, with the reading and recording of both."""

    def __init__(self, tap: HttpTap, client: socket.socket, upstream: socket.socket) -> None:
        self.tap = tap
        self.client = client
        self.upstream = upstream
        self.flow = HttpFlow(tap.log)
        self.lock = threading.Lock()  # the flow is fed from both pumps
        self.requests = MessageReader("request")
        self.responses = MessageReader("response")
        self.watching = True  # False once recording failed: the copy goes on unread

    def _record(self, pieces: list[Piece], from_client: bool) -> None:
        if not self.watching:
            return
        try:
            with self.lock:
                for piece in pieces:
                    self._event(piece.event, from_client)
        except Exception as exc:
            self.watching = False
            self.tap.log.broken(f"the tap stopped reading this connection: {exc!r}")

    def _event(self, event: Head | Body | End | None, from_client: bool) -> None:
        flow = self.flow
        if isinstance(event, Head):
            flow.request(event) if from_client else flow.response(event)
        elif isinstance(event, Body):
            flow.request_body(event.data) if from_client else flow.response_body(event.data)
        elif isinstance(event, End):
            flow.request_end() if from_client else flow.response_end()

    def _outgoing(self, pieces: list[Piece]) -> bytes:
        """The request bytes to send upstream: unchanged but for each head's Host."""
        out = bytearray()
        for piece in pieces:
            if isinstance(piece.event, Head):
                self.responses.expect(piece.event.method)
                out += rewrite_host(piece.raw, self.tap.authority)
            else:
                out += piece.raw
        return bytes(out)

    def requests_pump(self) -> None:
        while True:
            try:
                data = self.client.recv(CHUNK)
            except OSError:
                data = b""
            pieces = self.requests.feed(data) if data else self.requests.close()
            if any(isinstance(p.event, Head) and self.tap.refused(p.event) for p in pieces):
                with contextlib.suppress(OSError):
                    self.client.sendall(FORBIDDEN)
                    self.client.shutdown(socket.SHUT_RDWR)
                break
            self._record(pieces, True)
            try:
                self.upstream.sendall(self._outgoing(pieces))
            except OSError:
                break
            if not data:
                break
        with self.lock, contextlib.suppress(Exception):
            self.flow.client_gone()
        with contextlib.suppress(OSError):
            self.upstream.shutdown(socket.SHUT_WR)

    def responses_pump(self) -> None:
        while True:
            try:
                data = self.upstream.recv(CHUNK)
            except OSError:
                data = b""
            pieces = self.responses.feed(data) if data else self.responses.close()
            self._record(pieces, False)
            try:
                self.client.sendall(b"".join(p.raw for p in pieces))
            except OSError:  # the client went away: so does its upstream connection
                with contextlib.suppress(OSError):
                    self.upstream.shutdown(socket.SHUT_RDWR)
                break
            if not data:
                break
        with contextlib.suppress(OSError):
            self.client.shutdown(socket.SHUT_WR)


class HttpTap:
    """The listening side: accepts hosts' connections and links each to the real server."""

    def __init__(self, upstream: str, host: str, port: int, log: TapLog) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise BadUpstream(f"{upstream} is not an http:// URL")
        self.upstream_address = (parts.hostname, parts.port or 80)
        self.authority = parts.netloc
        self.log = log
        self.listener = socket.create_server((host, port))
        self.port = int(self.listener.getsockname()[1])
        origins = loopback_origins(host, self.port)
        self.hosts = [urlsplit(o).netloc for o in origins]
        self.allowed = guard.setting(os.environ.get("LAB_ALLOWED_ORIGINS", ""))
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._stopping = threading.Event()

    def refused(self, head: Head) -> bool:
        """The lab's one guard (app.guard), as the served endpoint applies it: a Host that is
        not the tap's own loopback name (DNS rebinding), or a browser's request from another
        origin, is answered 403 by the tap and never reaches the real server, whose own Host
        check the tap's rewriting would otherwise get around. SDKs and curl send no Origin."""
        if not guard.host_allowed(head.header("host"), self.hosts):
            return True
        origin, site = head.header("origin"), head.header("sec-fetch-site")
        return guard.judge(origin, site, self.hosts, self.allowed) is not None

    def serve_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                break
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.upstream_address, timeout=10)
        except OSError:
            _answer_and_linger(client, BAD_GATEWAY)
            return
        upstream.settimeout(None)
        with self._lock:
            self._open |= {client, upstream}
        link = _Link(self, client, upstream)
        back = threading.Thread(target=link.responses_pump, daemon=True)
        back.start()
        link.requests_pump()
        back.join()
        for sock in (client, upstream):
            with self._lock:
                self._open.discard(sock)
            sock.close()

    def stop(self) -> None:
        self._stopping.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        with self._lock:
            still_open = list(self._open)
        for sock in still_open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _answer_and_linger(client: socket.socket, answer: bytes) -> None:
    """Answer, then read what the host still sends until it closes (a few seconds at most):
    closing on a request not yet read would reset the connection, and the host would see a
    broken pipe instead of the answer."""
    with contextlib.suppress(OSError):
        client.sendall(answer)
        client.shutdown(socket.SHUT_WR)
        client.settimeout(LINGER_SECONDS)
        while client.recv(65536):
            pass
    client.close()
