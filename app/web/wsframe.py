"""What a websocket of the lab sends: frames encoded once, and a group send's message.

A server's frame is a header (FIN + opcode, then the payload length in 7, 16 or 64 bits) and
the payload, unmasked (RFC 6455 §5.2). Encoding a text frame here once lets a group send write
the very same bytes to thousands of sockets, where a websocket library would frame (and, with
permessage-deflate, compress) the message again for each; the lab's sockets negotiate no
extension, so these bytes are exactly what each peer expects. A `Message` is one group send:
its payload per kind of member, rendered and encoded once per kind, on first need.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["PING", "Message", "Oversized", "pong_frame", "text_frame"]

PING = b"\x89\x00"


def pong_frame(payload: bytes) -> bytes:
    """The answer to a peer's ping (its payload is at most 125 bytes, RFC 6455 §5.5)."""
    return bytes((0x8A, len(payload))) + payload


def text_frame(payload: str) -> bytes:
    """One unfragmented, unmasked server text frame carrying `payload` (RFC 6455 §5.2)."""
    data = payload.encode()
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 1 << 16:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + data


@dataclass(frozen=True)
class Oversized:
    """A message larger than the command limit: its bytes were dropped, `size` counts them."""

    size: int


_NONE: Any = object()  # no tag asked yet; no frame rendered yet


class Message:
    """One group send as each kind of member gets it: `render(tag)` gives the payload for a
    member whose channel has that tag (text, an encoded frame, or None: nothing for it),
    encoded once per tag, on first need. `latest` names a kind of which only the newest is
    worth sending (a count); `close`, when set, closes each member's channel after the frame,
    with that reason."""

    __slots__ = ("_frame", "_frames", "_render", "_tag", "close", "latest")

    def __init__(
        self,
        render: Callable[[Hashable], str | bytes | None],
        latest: str | None = None,
        close: str | None = None,
    ) -> None:
        self._render = render
        self._frames: dict[Hashable, bytes | None] = {}
        self._tag: Hashable = _NONE
        self._frame: bytes | None = None
        self.latest = latest
        self.close = close

    def frame(self, tag: Hashable) -> bytes | None:
        # A group send asks once per member: members of one kind share one tag object, so
        # the last answer is checked by identity before any hashing.
        if tag is self._tag:
            return self._frame
        if tag in self._frames:
            frame = self._frames[tag]
        else:
            payload = self._render(tag)
            frame = self._frames[tag] = text_frame(payload) if isinstance(payload, str) else payload
        self._tag, self._frame = tag, frame
        return frame
