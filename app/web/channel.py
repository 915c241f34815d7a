"""One channel per open websocket, for every socket the lab serves (viewer, classroom, watch).

A `Channel` is the only code that writes to a websocket or reads from it. It owns:

- the frames (app.web.wsframe): a text frame is encoded once, so a group send writes the very
  same bytes to every member; no permessage-deflate is ever negotiated (it would compress the
  same frame again per socket and keep a compressor per socket);
- its writing side (app.web.outbound): one write path with one deadline, the group send's fast
  path (`offer`), a bounded queue, latest values, the goodbye;
- one heartbeat (`beat`, called by the process's loop in app.web.heartbeat): a ping every
  `ping_interval` seconds, and a peer that answered no ping since the previous one is closed;
- one reader (a greenlet under gevent, a thread under werkzeug) that feeds the peer's bytes to
  its `Inbox` (app.web.inbox: parsed, bounded, pings answered) and wakes the handler.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

from app.web import concurrency
from app.web.inbox import Inbox
from app.web.outbound import DONTWAIT, Closed, Outbound, Settings
from app.web.wsframe import PING, Message, Oversized, text_frame

__all__ = ["Channel", "Closed", "Message", "Oversized", "Settings", "text_frame"]

RECEIVE = 4096  # bytes per read: commands are small
INBOX = 64  # commands waiting for the handler before the reader stops reading (backpressure)
CLOSING = 1.0  # seconds a close waits for a frame mid-write, so its close frame follows it


class Channel(Outbound):
    """A websocket after its handshake (see the module docstring); `tag` says, for group
    sends, which payload this member takes (the handler sets and changes it)."""

    __slots__ = ("_next_ping", "_pinged")

    def __init__(self, sock: Any, settings: Settings, tag: Hashable = None) -> None:
        super().__init__(sock, settings, tag, Inbox(settings.max_command))
        self._pinged = False
        self._next_ping = time.monotonic() + settings.ping_interval
        concurrency.spawn(self._read)

    # The handler's side ----------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Send `text` as one text frame, after anything queued; raises Closed."""
        self.send_frame(text_frame(text))

    def send_frame(self, frame: bytes) -> None:
        """Send an encoded frame (shared by many sockets), after anything queued."""
        if not self.open:
            raise Closed()
        with self._writing:
            self._drain()
            self._write(frame)

    def receive(self, timeout: float | None = None) -> str | bytes | Oversized | None:
        """The next message, or None once `timeout` passes. While it waits it writes what
        group sends and the heartbeat left for it; raises Closed when the peer is gone."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._queue or self._latest:
                with self._writing:
                    self._drain()
            if self._in.messages:
                return self._in.messages.pop(0)
            if not self.open:
                raise Closed()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            if self.bell.wait(left):
                self.bell.clear()

    def beat(self, now: float) -> float | None:
        """One heartbeat, from the process's heartbeat loop (app.web.heartbeat): a peer that
        answered no ping since the previous one is closed; else it is pinged, straight into
        its socket when nothing is queued (as a group send writes), so no handler wakes.
        Returns when the next beat is due, None once the channel is closed."""
        if not self.open:
            return None
        if now < self._next_ping:
            return self._next_ping
        if self._pinged and not self._in.ponged:
            self.code = 1008
            self.abort()
            return None
        self._in.ponged, self._pinged = False, True
        self._next_ping = now + self.settings.ping_interval
        if not self._queue and self._writing.acquire(False):
            try:
                if self._raw.send(PING, DONTWAIT) == len(PING):
                    return self._next_ping
            except OSError:  # busy (the handler writes it below) or gone (its reader ends it)
                pass
            finally:
                self._writing.release()
        self._latest["ping"] = PING
        self.bell.set()
        return self._next_ping

    def close(self, code: int | None = None, reason: str = "") -> None:
        """Say goodbye and end the reader: the close frame goes after whatever is mid-write (a
        group sender's or the heartbeat's frame, the rest of one half written), for which it
        waits up to CLOSING seconds; a peer that takes nothing in that time gets no close frame."""
        deadline = time.monotonic() + CLOSING
        while not self._writing.acquire(False):  # a sender's turn lasts one non-blocking send
            if time.monotonic() >= deadline:
                self._hang_up()
                return
            time.sleep(0.005)
        try:
            self._goodbye(self.code if code is None else code, reason, deadline)
        finally:
            self._writing.release()
        self._hang_up()

    # Reading -----------------------------------------------------------------------------------

    def _read(self) -> None:
        inbox = self._in
        try:
            while self.open:
                while len(inbox.messages) >= INBOX and self.open:
                    time.sleep(0.05)  # a flood of commands: let TCP hold the rest
                data = self.sock.recv(RECEIVE)
                if not data:
                    break
                more = inbox.feed(data)
                if inbox.pong is not None:
                    self._latest["pong"], inbox.pong = inbox.pong, None
                    self.bell.set()
                elif inbox.messages:  # (a pong alone is for the heartbeat: nobody wakes)
                    self.bell.set()
                if not more:  # the peer's close (answered with its code) or a broken frame
                    self.code = inbox.code
                    break
        except Exception:  # closed under us, or a protocol error: the end either way
            pass
        self.open = False
        self.bell.set()
