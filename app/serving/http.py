"""The socket shell that serves an `McpEndpoint` over HTTP/1.1, on h11, in one selector loop.

Like uvicorn's h11 protocol and h11's own example server, h11 parses and frames HTTP while this
module only moves bytes: each accepted connection gets an `h11.Connection` (in
app.serving.h11_conn); bytes read go into it, complete requests go to the endpoint, and its
response (or the start of an SSE stream) goes back out through h11. Why one thread and a
selector rather than a thread per connection: the endpoint and the sans-IO servers behind it are
plain objects touched only from this loop, so they need no locks; a long-lived SSE stream (a GET
stream, a listen stream) costs a socket and a buffer, not a thread; and the `--change-every`
timer is just the select timeout. Writes never block: each connection has an outgoing buffer,
drained when the socket is writable and bounded, so a stream that stops reading is dropped.
`request_change` and `stop` may be called from another thread or a signal handler; they wake the
loop through a socket pair.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable

import h11

from .endpoint import McpEndpoint
from .h11_conn import Connection, Refusal
from .http_messages import HttpResponse, Push

__all__ = ["HttpShell", "loopback_origins"]

MAX_BUFFERED = 1024 * 1024  # a reader this far behind loses its connection
READ_CHUNK = 65536


def loopback_origins(host: str, port: int) -> frozenset[str]:
    """The Origins a page served by this very server could send (nothing else may call it)."""
    names = {host, "127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"http://{name}:{port}" for name in names)


class HttpShell:
    """Serve one endpoint on one listening socket until `stop()`."""

    def __init__(
        self,
        endpoint: McpEndpoint,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        change_every: float | None = None,
        on_change: Callable[[str], None] | None = None,
    ):
        self.endpoint = endpoint
        self.change_every = change_every
        self.on_change = on_change
        self.listener = socket.create_server((host, port))
        self.listener.setblocking(False)
        self.host = host
        self.port: int = self.listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.listener, selectors.EVENT_READ, "accept")
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        self._selector.register(self._wake_reader, selectors.EVENT_READ, "wake")
        self._commands: deque[str] = deque()
        self._streams: dict[int, Connection] = {}
        self._connections: set[int] = set()
        self._running = False
        self.ready = threading.Event()

    # ----------------------------------------------------------------- control (any thread)
    def _command(self, name: str) -> None:
        self._commands.append(name)
        with contextlib.suppress(OSError):  # a full pipe already means "wake up"
            self._wake_writer.send(b"\0")

    def request_change(self) -> None:
        """Apply the next catalog change soon (safe from a signal handler or another thread)."""
        self._command("change")

    def stop(self) -> None:
        self._command("stop")

    # ----------------------------------------------------------------- the loop
    def serve_forever(self) -> None:
        self._running = True
        due = time.monotonic() + self.change_every if self.change_every else None
        self.ready.set()
        try:
            while self._running:
                timeout = None if due is None else max(0.0, due - time.monotonic())
                for key, mask in self._selector.select(timeout):
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wake":
                        self._drain_commands()
                    else:
                        self._ready(key.data, mask)
                if due is not None and time.monotonic() >= due:
                    self._change()
                    due = time.monotonic() + (self.change_every or 0)
        finally:
            self._close_all()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            sock.setblocking(False)
            conn = Connection(sock)
            self._connections.add(id(conn))
            self._selector.register(sock, selectors.EVENT_READ, conn)

    def _drain_commands(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while self._wake_reader.recv(4096):
                pass
        while self._commands:
            command = self._commands.popleft()
            if command == "change":
                self._change()
            elif command == "stop":
                self._running = False

    def _change(self) -> None:
        change, pushes = self.endpoint.change()
        self._apply(pushes)
        if self.on_change is not None:
            self.on_change(change.describe() + f", {change.notified} notified")

    def _close_all(self) -> None:
        self._apply(self.endpoint.shutdown())
        for key in list(self._selector.get_map().values()):
            if isinstance(key.data, Connection):
                self._flush(key.data)
                self._close(key.data, notify=False)
        self._selector.close()
        self.listener.close()
        self._wake_reader.close()
        self._wake_writer.close()

    # ----------------------------------------------------------------- one connection
    def _ready(self, conn: Connection, mask: int) -> None:
        if mask & selectors.EVENT_WRITE:
            self._flush(conn)
        if mask & selectors.EVENT_READ and id(conn) in self._connections:
            self._read(conn)

    def _read(self, conn: Connection) -> None:
        try:
            data = conn.sock.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data or conn.stream is not None:
            # A stream's client says nothing more after its request: anything read is its
            # goodbye (EOF), which for a listen stream is how 2026 HTTP cancels it.
            if not data:
                self._close(conn)
            return
        conn.http.receive_data(data)
        while id(conn) in self._connections and conn.stream is None:
            item = conn.next()
            if item is None:
                if conn.closed:
                    self._close(conn)
                return
            if isinstance(item, Refusal):
                self._write(conn, conn.refuse(item.status))
                if not conn.out:
                    self._close(conn)
                return
            if isinstance(item, HttpResponse):  # refused before the endpoint saw it
                self._respond(conn, item)
                continue
            try:
                response, pushes = self.endpoint.handle(item)
            except Exception:  # a bug answers this request with 500; the server keeps serving
                response, pushes = HttpResponse(500), []
            self._respond(conn, response)
            self._apply(pushes)

    def _respond(self, conn: Connection, response: HttpResponse) -> None:
        try:
            data = conn.respond(response)
        except h11.LocalProtocolError:
            self._close(conn)
            return
        if conn.stream is not None:
            self._streams[conn.stream] = conn
        self._write(conn, data)

    def _apply(self, pushes: list[Push]) -> None:
        for push in pushes:
            conn = self._streams.get(push.stream)
            if conn is None or id(conn) not in self._connections:
                continue
            data = conn.push(push)
            if conn.stream is None:
                del self._streams[push.stream]
            self._write(conn, data)

    def _write(self, conn: Connection, data: bytes) -> None:
        conn.out += data
        self._flush(conn)
        if id(conn) in self._connections and len(conn.out) > MAX_BUFFERED:
            self._close(conn)  # a reader this slow would hold memory without bound

    def _flush(self, conn: Connection) -> None:
        if id(conn) not in self._connections:
            return
        while conn.out:
            try:
                sent = conn.sock.send(conn.out)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._close(conn)
                return
            del conn.out[:sent]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.out else 0)
        self._selector.modify(conn.sock, events, conn)
        if not conn.out and conn.close_after_flush:
            self._close(conn)

    def _close(self, conn: Connection, *, notify: bool = True) -> None:
        if id(conn) not in self._connections:
            return
        self._connections.discard(id(conn))
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn.sock)
        with contextlib.suppress(OSError):
            conn.sock.close()
        if conn.stream is not None:
            self._streams.pop(conn.stream, None)
            if notify:
                self.endpoint.stream_closed(conn.stream)
            conn.stream = None
