"""HTTP/1.1 messages as a tap reads them beside forwarding them: sans-IO, bounded, exact.

`MessageReader.feed(data)` returns `Piece`s whose raw bytes, joined, are exactly the bytes fed
(a head is held until it is complete, so it comes out as one piece). Each piece says what it is:
a message `Head`, decoded `Body` bytes (chunked framing taken off), the `End` of a message, or
nothing (bytes between messages). The relay writes the raw bytes on unchanged, except that it
may rewrite a request head (the Host a reverse proxy must send upstream), and gives the events
to whoever records the session. Framing follows RFC 9112: a response to HEAD, a 1xx, 204 or
304 has no body; chunked, else Content-Length, else (responses only) until the connection
closes. Heads are bounded (MAX_HEAD): anything this reader cannot make sense of turns it into a
pass-through (`broken` says why) that keeps returning the bytes unread, so a tap never stands
between two peers because of what it failed to parse. The model is h11 (one protocol object
per direction, bytes in and events out), which cannot give back the raw bytes of a head.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Literal

__all__ = ["Body", "End", "Head", "MessageReader", "Piece"]

MAX_HEAD = 64 * 1024
MAX_CHUNK_LINE = 4096
_HEAD_END = re.compile(rb"\r?\n\r?\n")


@dataclass(frozen=True)
class Head:
    start: str  # "POST /mcp HTTP/1.1", "HTTP/1.1 200 OK"
    headers: list[tuple[str, str]]

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)

    @property
    def method(self) -> str:
        return self.start.split(" ", 1)[0]

    @property
    def target(self) -> str:
        parts = self.start.split(" ")
        return parts[1] if len(parts) > 1 else ""

    @property
    def status(self) -> int:
        parts = self.start.split(" ")
        return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


@dataclass(frozen=True)
class Body:
    data: bytes


@dataclass(frozen=True)
class End:
    pass


@dataclass(frozen=True)
class Piece:
    raw: bytes
    event: Head | Body | End | None = None


_State = Literal["head", "length", "chunk-size", "chunk-data", "chunk-end", "trailer", "close"]


class MessageReader:
    """One direction of one connection: requests (client to server) or responses."""

    def __init__(self, kind: Literal["request", "response"]) -> None:
        self.kind = kind
        self.broken: str | None = None
        self._state: _State = "head"
        self._buffer = b""
        self._left = 0  # bytes of body (or of a chunk) still to come
        self._methods: deque[str] = deque()  # responses: the methods of the requests they answer

    def expect(self, method: str) -> None:
        """A request went the other way: its response will come here (for HEAD: no body)."""
        self._methods.append(method)

    def feed(self, data: bytes) -> list[Piece]:
        if self.broken is not None:
            return [Piece(data)] if data else []
        self._buffer += data
        out: list[Piece] = []
        try:
            while self._buffer and self._step(out):
                pass
        except ValueError as exc:
            self.broken = str(exc)
            out.append(Piece(self._buffer))
            self._buffer = b""
        return out

    def close(self) -> list[Piece]:
        """The connection ended: a body read until close is complete; anything held goes out."""
        out = [Piece(b"", End())] if self._state == "close" else []
        if self._buffer:
            out.append(Piece(self._buffer))
            self._buffer = b""
        self._state = "head"
        return out

    # ----------------------------------------------------------------- framing
    def _take(self, n: int) -> bytes:
        taken, self._buffer = self._buffer[:n], self._buffer[n:]
        return taken

    def _step(self, out: list[Piece]) -> bool:
        """Read what the state allows from the buffer; False when more bytes are needed."""
        if self._state == "head":
            return self._head(out)
        if self._state == "close":
            out.append(Piece(self._buffer, Body(self._buffer)))
            self._buffer = b""
            return False
        if self._state in ("length", "chunk-data"):
            raw = self._take(min(self._left, len(self._buffer)))
            self._left -= len(raw)
            out.append(Piece(raw, Body(raw)))
            if self._left == 0:
                if self._state == "length":
                    self._finish(out)
                else:
                    self._state = "chunk-end"
            return True
        return self._chunk_line(out)

    def _head(self, out: list[Piece]) -> bool:
        stripped = self._buffer.lstrip(b"\r\n")  # blank lines between messages are allowed
        if len(stripped) < len(self._buffer):
            out.append(Piece(self._take(len(self._buffer) - len(stripped))))
        found = _HEAD_END.search(self._buffer)
        if found is None:
            if len(self._buffer) > MAX_HEAD:
                raise ValueError(f"a head longer than {MAX_HEAD} bytes")
            return False
        head = _parse_head(self._buffer[: found.end()], self.kind)  # raises before taking
        out.append(Piece(self._take(found.end()), head))
        self._begin_body(head, out)
        return True

    def _begin_body(self, head: Head, out: list[Piece]) -> None:
        if self.kind == "response":
            if 100 <= head.status < 200:
                return  # an interim answer: the real one follows for the same request
            method = self._methods.popleft() if self._methods else "GET"
            if method == "HEAD" or head.status in (204, 304):
                self._finish(out)
                return
        encoding = (head.header("transfer-encoding") or "").lower()
        length = head.header("content-length")
        if "chunked" in encoding:
            self._state = "chunk-size"
        elif length is not None:
            if not length.strip().isdigit():
                raise ValueError(f"Content-Length {length!r}")
            self._left = int(length)
            self._state = "length"
            if self._left == 0:
                self._finish(out)
        elif self.kind == "response":
            self._state = "close"
        else:
            self._finish(out)

    def _chunk_line(self, out: list[Piece]) -> bool:
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > MAX_CHUNK_LINE:
                raise ValueError("a chunk line that does not end")
            return False
        line = self._buffer[: end + 1].strip()  # read before taking: a fault keeps the bytes
        if self._state == "chunk-end":
            if line:
                raise ValueError("a chunk not followed by CRLF")
            self._state = "chunk-size"
            out.append(Piece(self._take(end + 1)))
            return True
        if self._state == "chunk-size":
            size = line.split(b";", 1)[0].strip()
            try:
                self._left = int(size, 16)
            except ValueError:
                raise ValueError(f"a chunk size {size[:20]!r}") from None
            self._state = "chunk-data" if self._left else "trailer"
            out.append(Piece(self._take(end + 1)))
            return True
        raw = self._take(end + 1)
        if line:  # a trailer field
            out.append(Piece(raw))
        else:
            out.append(Piece(raw))
            self._finish(out)
        return True

    def _finish(self, out: list[Piece]) -> None:
        out.append(Piece(b"", End()))
        self._state = "head"


_REQUEST_LINE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP/\d\.\d")
_STATUS_LINE = re.compile(r"HTTP/\d\.\d \d{3}( .*)?")


def _parse_head(raw: bytes, kind: str) -> Head:
    text = raw.decode("iso-8859-1")
    lines = text.replace("\r\n", "\n").split("\n")
    start = lines[0].strip()
    shape = _REQUEST_LINE if kind == "request" else _STATUS_LINE
    if not shape.fullmatch(start):
        raise ValueError(f"no HTTP {kind} line: {start[:40]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise ValueError(f"a header line without a name: {line[:40]!r}")
        headers.append((name, value.strip()))
    return Head(start, headers)


def rewrite_host(raw: bytes, authority: str) -> bytes:
    """A request head with its Host value replaced (the one change a reverse proxy makes)."""
    return re.sub(
        rb"(?im)^(host:[ \t]*)[^\r\n]*", lambda m: m.group(1) + authority.encode(), raw, count=1
    )
