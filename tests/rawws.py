"""A websocket client small enough to misbehave on purpose, for tests against real servers.

Real clients answer pings, read what they are sent and close politely; the tests of the serving
model need clients that do none of that: send half a request head, never read, vanish in the
middle of a frame. `upgrade` sends the handshake by hand (so no library adds or fixes headers)
and returns the socket with the status code; `text_frame` builds a masked client frame.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
from collections.abc import Mapping


def address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def upgrade(
    base: str,
    path: str,
    origin: str | None = None,
    timeout: float = 10,
    rcvbuf: int = 0,
    headers: Mapping[str, str] | None = None,
) -> tuple[socket.socket, int]:
    """Open a websocket to `path`: the connected socket and the status code of the answer.

    `rcvbuf` shrinks the socket's receive buffer (before connecting, so the window stays
    small): a client that never reads then fills up after a few frames. `headers` are sent
    as they are (Sec-Fetch-Site, Cookie, a second Origin...).
    """
    host, port = address(base)
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    sock = socket.socket()
    sock.settimeout(timeout)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect((host, port))
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: what follows the head is the first frame
        if not chunk:
            break
        head += chunk
    return sock, int(head.split(b" ", 2)[1])


def text_frame(text: str | bytes, opcode: int = 1) -> bytes:
    """One masked, final client frame (text by default, opcode 2 for binary)."""
    payload = text.encode() if isinstance(text, str) else text
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    mask = os.urandom(4)
    # XOR as one big integer: a byte at a time took seconds for a 10 MB frame
    key = (mask * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
    return head + mask + masked


def abort(sock: socket.socket) -> None:
    """Vanish: close with RST, as a browser tab that crashes or a phone that loses its network."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def read_message(sock: socket.socket) -> tuple[int, bytes]:
    """The next (unfragmented) server frame as (opcode, payload); pings are answered."""
    while True:
        first, second = _exactly(sock, 2)
        n = second & 0x7F
        if n == 126:
            n = struct.unpack("!H", _exactly(sock, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", _exactly(sock, 8))[0]
        opcode, payload = first & 0x0F, _exactly(sock, n)
        if opcode == 9:
            sock.sendall(text_frame(payload, opcode=10))
            continue
        return opcode, payload


def read_text(sock: socket.socket) -> str:
    opcode, payload = read_message(sock)
    if opcode == 8:
        raise ConnectionError(f"closed by the server: {payload[2:].decode(errors='replace')}")
    return payload.decode()
