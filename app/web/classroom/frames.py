"""Websocket frames built once and written as bytes to every follower.

A server's text frame is a header (FIN + opcode, then the payload length in 7, 16 or 64 bits)
and the UTF-8 payload, unmasked (RFC 6455 §5.2). Building it here once per message lets the
fan-out write the very same bytes to thousands of sockets, where `ws.send` would frame (and,
with permessage-deflate, compress) the message again for each. Followers' sockets are opened
without permessage-deflate, so these frames are exactly what each of them expects.

Every room message starts with a marker element, `<div id="live-seq" data-seq=N
data-mode=...>`, that the page reads before htmx swaps anything: "full" sets the page to the
room's state at seq N, "delta" and "notice" must follow N - 1 (else the page asks for the state
again), "local" is this connection's own answer and carries no seq.
"""

from __future__ import annotations

PING = b"\x89\x00"


def text_frame(payload: str) -> bytes:
    """One unfragmented, unmasked text frame carrying `payload`."""
    data = payload.encode()
    n = len(data)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 1 << 16:
        header = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return header + data


def marker(seq: int | None, mode: str, room_step: int | None = None) -> str:
    """The element that opens a room message (see the module docstring)."""
    seq_attr = "" if seq is None else f' data-seq="{seq}"'
    step_attr = "" if room_step is None else f' data-room-step="{room_step}"'
    return f'<div id="live-seq" hidden data-mode="{mode}"{seq_attr}{step_attr}></div>'
