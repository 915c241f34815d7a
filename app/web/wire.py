"""A websocket with a bounded send path and a heartbeat that reaps clients that stopped reading.

flask-sock hands each route a simple-websocket `Server`. Its `send` writes with one blocking
`socket.send` and no deadline, so a client that never reads pins the handler (and fills a
kernel send buffer of up to 4 MB) for ever, and its own ping thread blocks on the same full
buffer, so its ping/pong check never fires. `Wire` wraps it, for every route that streams:

- every frame goes out through `_write`: select for writability, write what fits, and give up
  after `send_timeout` seconds; a client that cannot take one frame in that time is gone;
- the handler pings every `ping_interval` seconds of silence (inside `receive`), and a peer
  that answered no ping since the previous one is closed;
- closing a dead or stuck peer aborts the TCP connection (RST, so the kernel frees the unsent
  buffer at once) and wakes simple-websocket's reader; any socket error on the way out becomes
  `ConnectionClosed`, which flask-sock treats as a normal end: no traceback, no 500.

The same code runs under gunicorn's gevent worker (select and send are gevent's cooperative
ones once gevent has patched the standard library) and under werkzeug's threaded server in
tests. Only the handler writes, so no two greenlets ever wait on one socket.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import time
from typing import Any

from simple_websocket import ConnectionClosed
from wsproto.events import Ping, TextMessage

# A frame is written in slices of this size so one slow peer never holds a large copy.
SLICE = 64 * 1024


class Wire:
    """`send`/`receive` over a simple-websocket connection, with deadlines (see module doc)."""

    def __init__(self, ws: Any, ping_interval: float = 25.0, send_timeout: float = 10.0) -> None:
        self.ws = ws
        self.ping_interval = ping_interval
        self.send_timeout = send_timeout
        self._next_ping = time.monotonic() + ping_interval
        self._pinged = False

    def send(self, data: str) -> None:
        if not self.ws.connected:
            raise ConnectionClosed(self.ws.close_reason, self.ws.close_message)
        self._write(self.ws.ws.send(TextMessage(data=data)))

    def receive(self, timeout: float | None = None) -> Any:
        """The next message, or None once `timeout` passes; pings the peer while it waits."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            now = time.monotonic()
            wait = self._next_ping - now
            if deadline is not None:
                wait = min(wait, deadline - now)
            message = self.ws.receive(timeout=max(wait, 0))
            if message is not None:
                return message
            now = time.monotonic()
            if now >= self._next_ping:
                self._heartbeat(now)
            if deadline is not None and now >= deadline:
                return None

    def close(self, reason: int = 1000, message: str = "") -> None:
        with contextlib.suppress(ConnectionClosed, OSError):
            self.ws.close(reason=reason, message=message)

    def _heartbeat(self, now: float) -> None:
        if self._pinged and not self.ws.pong_received:
            self.abort()
            raise ConnectionClosed(1008, "no answer to ping")
        self.ws.pong_received = False
        self._pinged = True
        self._next_ping = now + self.ping_interval
        self._write(self.ws.ws.send(Ping()))

    def _write(self, data: bytes) -> None:
        sock = self.ws.sock
        # Writes go to the OS socket without waiting (gevent's cooperative socket would wait
        # for ever on a full buffer even after select said it had room); select does the
        # waiting, cooperatively under gevent, with the deadline.
        raw = getattr(sock, "_sock", sock)
        deadline = time.monotonic() + self.send_timeout
        view = memoryview(data)
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [sock], [], left)[1]:
                    self.abort()
                    raise ConnectionClosed(1008, "send timed out")
                try:
                    view = view[raw.send(view[:SLICE], socket.MSG_DONTWAIT) :]
                except BlockingIOError:  # select saw room, the kernel wants more: wait a little
                    time.sleep(0.005)
        except OSError as exc:  # the peer went away mid-frame: a normal end for the handler
            self.abort()
            raise ConnectionClosed(1006, str(exc)) from None

    def abort(self) -> None:
        """Drop the connection now: RST frees the unsent buffer; the reader sees EOF and ends."""
        self.ws.connected = False
        sock = self.ws.sock
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        self.ws.event.set()
