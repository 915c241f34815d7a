"""One channel per open websocket, for every socket the lab serves (viewer, classroom, watch).

A `Channel` is the only code that writes to a websocket or reads from it. It owns:

- the frames (app.web.wsframe): a text frame is encoded once, so a group send writes the very
  same bytes to every member; no permessage-deflate is ever negotiated (it would compress the
  same frame again per socket and keep a compressor per socket);
- one write path with one deadline: every write first goes straight to the kernel without
  waiting, and only what does not fit waits, cooperatively, for `send_timeout` seconds; a peer
  that cannot take one frame in that time is aborted;
- the fast path of a group send (`offer`), as websockets' broadcast(): the sender writes a
  member's frame into its socket itself when the socket takes it at once and nothing is
  queued, else queues it (bounded, `queue` frames) for the member's own handler to write. A
  full queue means the peer stopped reading: `offer` says so and the group drops it;
- latest values (`latest` messages: counts, a pong): one pending per kind, replaced by newer;
- one heartbeat: while its handler waits in `receive`, the channel pings every
  `ping_interval` seconds and closes a peer that answered no ping since the previous one;
- one reader (a greenlet under gevent, a thread under werkzeug) that parses the peer's frames
  with wsproto, answers pings, and bounds what it keeps: a message over `max_command` bytes
  is dropped as it arrives and handed on as `Oversized(size)`, so the handler can answer it.

Only the handler's own greenlet and a group sender ever write, each holding the write turn
(`_writing`): the sender only tries it (never waits for it), so one stuck socket never slows a
group send.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, TextMessage

from app.web import concurrency
from app.web.wsframe import PING, Message, Oversized, pong_frame, text_frame

__all__ = ["Channel", "Closed", "Message", "Oversized", "Settings", "text_frame"]

DONTWAIT = socket.MSG_DONTWAIT
RECEIVE = 4096  # bytes per read: commands are small
INBOX = 64  # commands waiting for the handler before the reader stops reading (backpressure)


@dataclass(frozen=True, slots=True)
class Settings:
    """The app's channel settings, shared by every channel (LAB_WS_* in the configuration)."""

    ping_interval: float = 25.0
    send_timeout: float = 10.0
    queue: int = 16
    max_command: int = 4096


class Closed(Exception):
    """The peer is gone, or was closed: the normal end of a socket's handler."""


class _Close:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class Channel:
    """A websocket after its handshake (see the module docstring); `tag` says, for group
    sends, which payload this member takes (the handler sets and changes it)."""

    __slots__ = (
        "__weakref__",
        "_conn",
        "_inbox",
        "_latest",
        "_next_ping",
        "_parts",
        "_pinged",
        "_ponged",
        "_queue",
        "_raw",
        "_size",
        "_writing",
        "bell",
        "code",
        "open",
        "settings",
        "sock",
        "tag",
    )

    def __init__(self, sock: Any, settings: Settings, tag: Hashable = None) -> None:
        self.sock = sock
        # The OS socket under gevent's wrapper: writes to it never wait (gevent's own send
        # would park the greenlet on a full buffer); select does the waiting, with a deadline.
        self._raw = getattr(sock, "_sock", sock)
        self.settings = settings
        self.tag = tag
        self.bell = threading.Event()  # rung by the reader and by group sends
        self._writing: Any = concurrency.write_turn()
        self._queue: deque[Any] = deque()
        self._latest: dict[str, Message | bytes] = {}
        self._inbox: list[str | bytes | Oversized] = []
        self._conn = Connection(ConnectionType.SERVER)
        self._parts: list[Any] = []
        self._size = 0
        self.open = True
        self.code = 1000  # the close code this side will send
        self._ponged = True
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
        group sends queued and pings the peer; raises Closed when the peer is gone."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._queue or self._latest:
                with self._writing:
                    self._drain()
            if self._inbox:
                return self._inbox.pop(0)
            if not self.open:
                raise Closed()
            now = time.monotonic()
            if now >= self._next_ping:
                self._heartbeat(now)
            if deadline is not None and now >= deadline:
                return None
            until = self._next_ping if deadline is None else min(self._next_ping, deadline)
            if self.bell.wait(max(until - now, 0.0)):
                self.bell.clear()

    def close(self, code: int | None = None, reason: str = "") -> None:
        """Say goodbye (a close frame, best effort) and end the reader."""
        code = self.code if code is None else code
        self.open = False
        with contextlib.suppress(Exception):  # a peer already gone, or a state past closing
            if self._conn.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
                self._raw.send(self._conn.send(CloseConnection(code, reason)), DONTWAIT)
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.bell.set()

    def abort(self) -> None:
        """Drop the connection now: when the server closes it, RST frees its unsent buffer at
        once; the reader sees the end and the handler finds the channel closed."""
        self.open = False
        with contextlib.suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.bell.set()

    # A group's side --------------------------------------------------------------------------

    def offer(self, message: Message) -> bool:
        """Hand this member a group send without waiting on its socket; False when its queue
        is full (it stopped reading: the group drops it). A group send pays this once per
        member, so the common case (nothing queued, the socket takes the frame) is a straight
        line; the frame is rendered before the write turn is tried (rendering may wait on I/O;
        a turn is never held across a wait by a sender)."""
        if message.latest is not None:
            self._latest[message.latest] = message
            self.bell.set()
            return True
        tag = self.tag
        frame = message._frame if tag is message._tag else message.frame(tag)
        if (
            frame is None
            or self._queue
            or message.close is not None
            or not self.open
            or not self._writing.acquire(False)
        ):
            return self._enqueue(message, frame)
        try:
            sent = self._raw.send(frame, DONTWAIT)
            if sent < len(frame):  # the rest goes first, before any later frame
                self._queue.append(frame[sent:])
                self.bell.set()
            return True
        except BlockingIOError:
            pass
        except OSError:  # the peer is gone: its reader ends the handler
            self.open = False
            self.bell.set()
            return True
        finally:
            self._writing.release()
        return self._enqueue(message, frame)

    def _enqueue(self, message: Message, frame: bytes | None) -> bool:
        if not self.open or (frame is None and message.close is None):
            return True
        queue = self._queue
        if len(queue) >= self.settings.queue:
            return False
        queue.append(message)
        if message.close is not None:
            queue.append(_Close(message.close))
        self.bell.set()
        return True

    # Writing -----------------------------------------------------------------------------------

    def _drain(self) -> None:
        """Write the queue, then the latest values (the write lock held)."""
        queue, latest = self._queue, self._latest
        while queue:
            item = queue.popleft()
            if isinstance(item, _Close):
                self.close(1000, item.reason)
                raise Closed()
            frame = item if isinstance(item, bytes) else item.frame(self.tag)
            if frame:
                self._write(frame)
        while latest:
            kind = next(iter(latest))
            value = latest.pop(kind)
            frame = value if isinstance(value, bytes) else value.frame(self.tag)
            if frame:
                self._write(frame)

    def _write(self, data: bytes) -> None:
        """Write all of `data` within the send deadline, else abort (the write lock held)."""
        view = memoryview(data)
        deadline = 0.0
        try:
            while view:
                try:
                    view = view[self._raw.send(view, DONTWAIT) :]
                    continue
                except BlockingIOError:
                    pass
                now = time.monotonic()
                deadline = deadline or now + self.settings.send_timeout
                if now >= deadline or not select.select([], [self.sock], [], deadline - now)[1]:
                    self.abort()
                    raise Closed("send timed out")
        except (OSError, ValueError):  # gone mid-frame (or closed under us): a normal end
            self.abort()
            raise Closed() from None

    def _heartbeat(self, now: float) -> None:
        if self._pinged and not self._ponged:
            self.code = 1008
            self.abort()
            raise Closed("no answer to ping")
        self._ponged, self._pinged = False, True
        self._next_ping = now + self.settings.ping_interval
        self.send_frame(PING)

    # Reading -----------------------------------------------------------------------------------

    def _read(self) -> None:
        try:
            while self.open:
                while len(self._inbox) >= INBOX and self.open:
                    time.sleep(0.05)  # a flood of commands: let TCP hold the rest
                data = self.sock.recv(RECEIVE)
                if not data:
                    break
                self._conn.receive_data(data)
                if not self._events():
                    break
        except Exception:  # closed under us, or a protocol error: the end either way
            pass
        self.open = False
        self.bell.set()

    def _events(self) -> bool:
        for event in self._conn.events():
            if isinstance(event, TextMessage | BytesMessage):
                self._take(event)
            elif isinstance(event, Ping):
                self._latest["pong"] = pong_frame(bytes(event.payload))
                self.bell.set()
            elif isinstance(event, Pong):
                self._ponged = True
            elif isinstance(event, CloseConnection):
                # the peer's close (answered with its code) or a broken frame (1002, 1007)
                self.code = event.code if event.code not in (1005, 1006) else 1000
                return False
        return True

    def _take(self, event: TextMessage | BytesMessage) -> None:
        data = event.data
        self._size += len(data.encode()) if isinstance(data, str) else len(data)
        if self._size <= self.settings.max_command:
            self._parts.append(data)
        elif self._parts:
            self._parts.clear()
        if not event.message_finished:
            return
        item: str | bytes | Oversized
        if self._size > self.settings.max_command:
            item = Oversized(self._size)
        elif isinstance(event, TextMessage):
            item = "".join(self._parts)
        else:
            item = b"".join(self._parts)
        self._parts.clear()
        self._size = 0
        self._inbox.append(item)
        self.bell.set()
