"""What a peer sends on a websocket, sans-IO: bytes in, the peer's messages and signals out.

wsproto parses the frames; this keeps what the lab needs of them and bounds it. A text or
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


class Inbox:
    """One peer's side of a websocket (see the module docstring)."""

    __slots__ = ("_conn", "_parts", "_size", "code", "limit", "messages", "pong", "ponged")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.messages: list[str | bytes | Oversized] = []  # for the handler, oldest first
        self.pong: bytes | None = None  # the answer to the peer's latest ping, not yet sent
        self.ponged = True  # the peer answered a ping since the flag was last cleared
        self.code = 1000  # how to answer the peer's close
        self._conn = Connection(ConnectionType.SERVER)
        self._parts: list[str | bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> bool:
        """Take bytes from the socket; False once the peer closed or broke the protocol."""
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
