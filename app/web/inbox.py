"""What a peer sends on a websocket, sans-IO: bytes in, the peer's messages and signals out.

The common frames (a whole text message within the limit in one frame, a ping, a pong:
all a browser sends while a lesson runs) are read here directly; from the first frame of any
other kind on, wsproto parses the frames. An instructor's command comes a second after the
last, to cold caches: wsproto's 55 Python calls then cost about four times what reading it
here does (bench/cold_paths.py: 190 against 50 µs; a classroom step is 1-2 ms). A text or
binary message is kept whole up to `limit` bytes; past that its bytes are dropped as they
arrive and it is handed on as `Oversized(size)`, so a 10 MB frame costs no more memory than a
small one and its sender can be told why it was refused. A ping is answered (only the newest
answer is kept: a peer that pings in a burst gets one pong); a pong is noted for the heartbeat;
a close, or a frame that breaks the protocol (1002, or 1007 for text that is not UTF-8), ends
the conversation with the code to answer it with. No socket, no thread, no clock here: the
channel (app.web.channel) reads the socket and feeds the bytes in.
"""

from __future__ import annotations

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, TextMessage

from app.web.wsframe import Oversized, pong_frame

_COMMON = (0x81, 0x89, 0x8A)  # the first byte of a whole text frame, a ping, a pong


def _unmask(payload: bytes, key: bytes) -> bytes:
    """A client frame's payload, unmasked (RFC 6455 §5.3): XOR with the 4-byte key, repeated."""
    size = len(payload)
    mask = (key * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(mask, "little")).to_bytes(
        size, "little"
    )


class Inbox:
    """One peer's side of a websocket (see the module docstring)."""

    __slots__ = (
        "_common",
        "_conn",
        "_parts",
        "_rest",
        "_size",
        "code",
        "limit",
        "messages",
        "pong",
        "ponged",
    )

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.messages: list[str | bytes | Oversized] = []  # for the handler, oldest first
        self.pong: bytes | None = None  # the answer to the peer's latest ping, not yet sent
        self.ponged = True  # the peer answered a ping since the flag was last cleared
        self.code = 1000  # how to answer the peer's close
        self._conn = Connection(ConnectionType.SERVER)
        self._parts: list[str | bytes] = []
        self._size = 0
        self._common = True  # every frame so far was a common one: wsproto has seen no byte
        self._rest = b""  # the start of a common frame, until the rest of it comes

    def feed(self, data: bytes) -> bool:
        """Take bytes from the socket; False once the peer closed or broke the protocol."""
        if self._common:
            other = self._take_common(self._rest + data if self._rest else data)
            if other is None:
                return True
            # wsproto parses from this frame on, and every frame after
            self._common, self._rest = False, b""
            data = other
        self._conn.receive_data(data)
        for event in self._conn.events():
            if isinstance(event, TextMessage | BytesMessage):
                self._take(event)
            elif isinstance(event, Ping):
                self.pong = pong_frame(bytes(event.payload))
            elif isinstance(event, Pong):
                self.ponged = True
            elif isinstance(event, CloseConnection):
                self.code = event.code if event.code not in (1005, 1006) else 1000
                return False
        return True

    def _take_common(self, data: bytes) -> bytes | None:
        """Take the common frames from the start of `data`: the bytes from the first frame of
        another kind on (for wsproto), or None when all were taken or kept for the next feed
        (the start of a common frame: at most `limit` and a header)."""
        at, end = 0, len(data)
        while end - at >= 2:
            first, second = data[at], data[at + 1]
            size, head = second & 0x7F, at + 6
            # FIN, no RSV bit, text/ping/pong; masked, as a client's frames must be (RFC 6455 §5.1)
            if first not in _COMMON or second < 0x80 or size == 127:
                return data[at:]
            if size == 126:
                if first != 0x81:  # a control frame's payload is at most 125 bytes
                    return data[at:]
                if end - at < 4:
                    break
                size, head = int.from_bytes(data[at + 2 : at + 4], "big"), at + 8
                if size < 126:  # not the shortest encoding: a protocol error, wsproto's to answer
                    return data[at:]
            if size > self.limit:
                return data[at:]
            if head + size > end:
                break
            payload = _unmask(data[head : head + size], data[head - 4 : head])
            if first == 0x81:
                try:
                    self.messages.append(payload.decode())
                except UnicodeDecodeError:  # answered 1007 by wsproto
                    return data[at:]
            elif first == 0x89:
                self.pong = pong_frame(payload)
            else:
                self.ponged = True
            at = head + size
        self._rest = data[at:]
        return None

    def close_frame(self, code: int, reason: str) -> bytes:
        """This side's close frame, or nothing once one was sent (or the protocol is done)."""
        if self._conn.state not in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
            return b""
        return self._conn.send(CloseConnection(code, reason))

    def _take(self, event: TextMessage | BytesMessage) -> None:
        data = event.data
        self._size += len(data.encode()) if isinstance(data, str) else len(data)
        if self._size <= self.limit:
            self._parts.append(data if isinstance(data, str) else bytes(data))
        elif self._parts:
            self._parts.clear()
        if not event.message_finished:
            return
        if self._size > self.limit:
            self.messages.append(Oversized(self._size))
        elif isinstance(event, TextMessage):
            self.messages.append("".join(p for p in self._parts if isinstance(p, str)))
        else:
            self.messages.append(b"".join(p for p in self._parts if isinstance(p, bytes)))
        self._parts.clear()
        self._size = 0
