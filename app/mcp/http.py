"""HTTP/1.1 messages as h11 writes and reads them: the bytes a real peer would put on the wire.

h11 does the framing: a request or response with a body says how long it is (Content-Length),
a response whose length is unknown (an SSE stream) is sent with `Transfer-Encoding: chunked`
and each piece of it as one chunk, and headers are read case-insensitively. `Stream` is one open
response (an SSE stream) to which events are added as chunks. Texts are str: HTTP heads are
ASCII, bodies UTF-8. `header_value` is how 2026-07-28 puts text that is not plain ASCII into a
header (Mcp-Name, Mcp-Param-*), here so that framing and params both build on it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import h11

Header = tuple[str, str]
REASONS = {
    200: "OK",
    202: "Accepted",
    302: "Found",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
}
_SENTINEL = ("=?base64?", "?=")


def header_value(value: str) -> str:
    """A value as an HTTP header may carry it: plain visible ASCII as is, anything else (non-
    ASCII, control characters, edge spaces, or text that looks like the sentinel) as
    `=?base64?...?=` of its UTF-8 bytes, the encoding 2026-07-28 defines for Mcp-Name."""
    plain = all(" " <= ch <= "~" or ch == "\t" for ch in value) and value == value.strip()
    looks_encoded = value.startswith(_SENTINEL[0]) and value.endswith(_SENTINEL[1])
    if plain and value and not looks_encoded:
        return value
    return _SENTINEL[0] + base64.b64encode(value.encode()).decode() + _SENTINEL[1]


def read_header_value(value: str) -> str:
    """The inverse of header_value."""
    if value.startswith(_SENTINEL[0]) and value.endswith(_SENTINEL[1]):
        return base64.b64decode(value[len(_SENTINEL[0]) : -len(_SENTINEL[1])]).decode()
    return value


class Headers(Mapping[str, str]):
    """Header fields looked up case-insensitively; iteration gives the names as sent."""

    def __init__(self, fields: list[Header]):
        self._fields = fields
        self._by_name = {name.lower(): value for name, value in fields}

    def __getitem__(self, name: str) -> str:
        return self._by_name[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_name

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._fields)

    def __len__(self) -> int:
        return len(self._fields)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8")


def request_text(method: str, target: str, headers: list[Header], body: str = "") -> str:
    """A complete request (the caller gives Content-Length when there is a body)."""
    conn = h11.Connection(h11.CLIENT)
    out = conn.send(h11.Request(method=method, target=target, headers=headers))
    if body:
        out = (out or b"") + (conn.send(h11.Data(data=body.encode())) or b"")
    out = (out or b"") + (conn.send(h11.EndOfMessage()) or b"")
    return _text(out)


def _answering(method: str) -> h11.Connection:
    """A server side that has read a request of this method, ready to answer it."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(f"{method} / HTTP/1.1\r\nHost: peer\r\nContent-Length: 0\r\n\r\n".encode())
    while not isinstance(conn.next_event(), h11.EndOfMessage):
        pass
    return conn


def _response(conn: h11.Connection, status: int, headers: list[Header]) -> str:
    reason = REASONS.get(status, "Unknown").encode()
    return _text(conn.send(h11.Response(status_code=status, headers=headers, reason=reason)))


def response_text(status: int, headers: list[Header], body: str = "", method: str = "POST") -> str:
    """A complete response with a body of known length (Content-Length is added)."""
    conn = _answering(method)
    payload = body.encode()
    head = _response(conn, status, [*headers, ("Content-Length", str(len(payload)))])
    tail = (conn.send(h11.Data(data=payload)) if payload else b"") or b""
    return head + _text(tail) + _text(conn.send(h11.EndOfMessage()))


@dataclass
class Stream:
    """One response of unknown length, open for as long as the server has events for it."""

    conn: h11.Connection

    @classmethod
    def open(cls, status: int, headers: list[Header], method: str) -> tuple[Stream, str]:
        """The stream and its head (h11 adds Transfer-Encoding: chunked)."""
        conn = _answering(method)
        return cls(conn), _response(conn, status, headers)

    def chunk(self, text: str) -> str:
        """`text` as the next chunk of the stream."""
        return _text(self.conn.send(h11.Data(data=text.encode())))


def parse_request(text: str) -> tuple[str, Headers, str]:
    """Request line, headers and body of one complete request."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(text.encode())
    head = conn.next_event()
    if not isinstance(head, h11.Request):
        raise ValueError(f"not an HTTP request: {head!r}")
    body = _body(conn)
    line = f"{_text(head.method)} {_text(head.target)} HTTP/{_text(head.http_version)}"
    return line, _headers(head.headers.raw_items()), body


def parse_response(text: str, method: str = "POST") -> tuple[int, Headers, str]:
    """Status, headers and body of a response (chunks joined; a stream read up to its end)."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method=method, target="/", headers=[("Host", "peer")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(text.encode())
    head = conn.next_event()
    while isinstance(head, h11.InformationalResponse):
        head = conn.next_event()
    if not isinstance(head, h11.Response):
        raise ValueError(f"not an HTTP response: {head!r}")
    return head.status_code, _headers(head.headers.raw_items()), _body(conn)


def _headers(raw: list[tuple[bytes, bytes]]) -> Headers:
    return Headers([(_text(name), _text(value)) for name, value in raw])


def _body(conn: h11.Connection) -> str:
    data = b""
    closed = False
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError:  # a stream cut off where the capture ends
            return data.decode()
        if isinstance(event, h11.Data):
            data += event.data
        elif event is h11.NEED_DATA and not closed:
            conn.receive_data(b"")  # what was captured is all there is
            closed = True
        else:
            return data.decode()
