"""What a channel (app.web.channel) writes, and how: the half of a websocket that a group
send and the handler share.

- one write path with one deadline: every write first goes straight to the kernel without
  waiting, and only what does not fit waits, cooperatively, for `send_timeout` seconds; a peer
  that cannot take one frame in that time is aborted;
- the fast path of a group send (`offer`), as websockets' broadcast(): the sender writes a
  member's frame into its socket itself when the socket takes it at once and nothing is
  queued, else queues it (bounded, `queue` frames) for the member's own handler to write. A
  full queue means the peer stopped reading: `offer` says so and the group drops it;
- latest values (`latest` messages: counts, a pong): one pending per kind, replaced by newer;
- the goodbye: a close frame after the rest of a frame half written (by a deadline), and an
  abort (RST) for a peer that takes neither.

Only the handler's own greenlet and a group sender ever write, each holding the write turn
(`_writing`): the sender only tries it (never waits for it), so one stuck socket never slows a
group send. Under gevent the channel is its own write turn (concurrency.Turn), and `_queued`
says whether anything may be queued: offer_all reads both for every member, from the member's
own slots (each object more it reads per member costs a group send a cache miss per member).
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from app.web import concurrency
from app.web.inbox import Inbox
from app.web.wsframe import Message

DONTWAIT = socket.MSG_DONTWAIT
_UNSET: Any = object()  # no member's tag seen yet
_INLINE: set[Any] = set()  # Outbound and its subclasses: written to inline by offer_all


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


class Outbound(concurrency.Turn):
    """A websocket's writing side (see the module docstring); `tag` says, for group sends,
    which payload this member takes (the handler sets and changes it)."""

    __slots__ = (
        "__weakref__",
        "_in",
        "_latest",
        "_queue",
        "_queued",
        "_raw",
        "_writing",
        "bell",
        "code",
        "open",
        "settings",
        "sock",
        "tag",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _INLINE.add(cls)

    def __init__(self, sock: Any, settings: Settings, tag: Hashable, inbox: Inbox) -> None:
        self.sock = sock
        # The OS socket under gevent's wrapper: writes to it never wait (gevent's own send
        # would park the greenlet on a full buffer); select does the waiting, with a deadline.
        self._raw = getattr(sock, "_sock", sock)
        self.settings = settings
        self.tag = tag
        self.bell = threading.Event()  # rung by the reader and by group sends
        self.held = False
        self._writing: Any = self if concurrency.cooperative() else threading.Lock()
        self._queue: deque[Any] = deque()
        # Set before anything is queued, cleared by the writer that emptied the queue; read
        # only by offer_all's inline path, which runs under gevent alone.
        self._queued = False
        self._latest: dict[str, Message | bytes] = {}
        self._in = inbox  # the protocol's state: what the peer sent, and this side's close
        self.open = True
        self.code = 1000  # the close code this side will send

    def _goodbye(self, code: int, reason: str, deadline: float = 0.0) -> None:
        """The close frame (the write turn held), after the rest of a frame half written."""
        self.open = False
        with contextlib.suppress(Closed):  # a peer gone, or stuck past the deadline (aborted)
            if self._queue and isinstance(self._queue[0], bytes):
                self._write(self._queue.popleft(), deadline)
            self._write(self._in.close_frame(code, reason), deadline)

    def _hang_up(self) -> None:
        self.open = False
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

    # A group's side (and offer_all, below) ---------------------------------------------------

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
                self._put(frame[sent:])
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
        if len(self._queue) >= self.settings.queue:
            return False
        self._put(message)
        if message.close is not None:
            self._put(_Close(message.close))
        return True

    def _put(self, item: Any) -> None:
        self._queued = True
        self._queue.append(item)
        self.bell.set()

    # Writing -----------------------------------------------------------------------------------

    def _drain(self) -> None:
        """Write the queue, then the latest values (the write lock held)."""
        queue, latest = self._queue, self._latest
        while queue:
            item = queue.popleft()
            if isinstance(item, _Close):
                self._goodbye(1000, item.reason)
                self._hang_up()
                raise Closed()
            frame = item if isinstance(item, bytes) else item.frame(self.tag)
            if frame:
                self._write(frame)
        self._queued = False  # (under gevent, no switch since the queue was seen empty)
        while latest:
            kind = next(iter(latest))
            value = latest.pop(kind)
            frame = value if isinstance(value, bytes) else value.frame(self.tag)
            if frame:
                self._write(frame)

    def _write(self, data: bytes, deadline: float = 0.0) -> None:
        """Write all of `data` by `deadline` (else within the send timeout of its first wait),
        else abort (the write lock held)."""
        view = memoryview(data)
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


def offer_all(members: Iterable[Any], message: Message) -> list[Any]:
    """Offer `message` to every member (a channel, or anything with `offer`); the members
    whose queue was full (they stopped reading). Under gevent a plain frame goes to a channel
    with nothing queued straight in its socket, inline: a class pays this per follower per
    step, and offer()'s call and its turn's acquire and release cost a fifth of the send. No
    turn is taken here: a greenlet that does not wait cannot be interrupted, and a writer
    that waits holds its turn (`held`), so that channel goes the slow way, as does one with
    anything queued (`_queued`). Both are read from the member's own slots."""
    full: list[Any] = []
    fast = message.latest is None and message.close is None and concurrency.cooperative()
    tag: Any = _UNSET
    frame = b""
    for member in members:
        if fast and member.__class__ in _INLINE:
            if member.tag is not tag:
                tag = member.tag
                frame = message.frame(tag) or b""
            if frame and member.open and not member._queued and not member.held:
                try:
                    sent = member._raw.send(frame, DONTWAIT)
                except BlockingIOError:
                    sent = -1
                except OSError:  # the peer is gone: its reader ends the handler
                    member.open = False
                    member.bell.set()
                    continue
                if sent == len(frame):
                    continue
                if sent >= 0:  # the rest goes first, before any later frame
                    member._put(frame[sent:])
                    continue
        if not member.offer(message):
            full.append(member)
    return full


_INLINE.add(Outbound)
