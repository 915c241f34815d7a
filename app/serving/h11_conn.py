"""One HTTP/1.1 connection of the served endpoint as h11 sees it: events in, bytes out.

No sockets here (app.serving.http moves the bytes): bytes read go into `http.receive_data`,
`next` gives the complete requests they finish, with a body bounded by MAX_BODY, and
`respond`, `refuse` and `push` turn the endpoint's answers into the bytes to write, h11
choosing Content-Length or chunked encoding. The selector loop and the HTTP of one connection
are two concerns: each reads on its own here.
"""

from __future__ import annotations

import contextlib
import socket
from dataclasses import dataclass, field

import h11

from app.bounded_json import JsonRefused

from .http_messages import MAX_MESSAGE, HttpRequest, HttpResponse, Push, refused_body

__all__ = ["MAX_BODY", "Connection", "Refusal"]

MAX_BODY = MAX_MESSAGE  # a JSON-RPC message larger than this is refused with 413


@dataclass(frozen=True)
class Refusal:
    """A request h11 could not parse: answered with `status` and no body, then closed."""

    status: int


@dataclass
class Connection:
    sock: socket.socket
    http: h11.Connection = field(default_factory=lambda: h11.Connection(h11.SERVER))
    out: bytearray = field(default_factory=bytearray)
    request: h11.Request | None = None
    body: bytearray = field(default_factory=bytearray)
    stream: int | None = None
    close_after_flush: bool = False
    refused: bool = False  # the body grew too large; the rest of it is ignored
    closed: bool = False  # the client closed its side

    def next(self) -> HttpRequest | HttpResponse | Refusal | None:
        """The next complete request among the bytes received: an `HttpRequest` for the
        endpoint, an `HttpResponse` decided here (a body too large), a `Refusal`; None when
        more bytes are needed or the client closed its side (`closed`). Answer each before
        asking for the next: h11 reads a pipelined request only once the last is answered."""
        while not self.closed:
            try:
                event = self.http.next_event()
            except h11.RemoteProtocolError as exc:
                return Refusal(exc.error_status_hint)
            if event is h11.NEED_DATA:
                return None
            if event is h11.PAUSED:
                if self.http.our_state is h11.DONE and self.http.their_state is h11.DONE:
                    self.http.start_next_cycle()  # keep-alive: the next request may follow
                    continue
                return None
            if isinstance(event, h11.Request):
                self.request, self.body, self.refused = event, bytearray(), False
            elif isinstance(event, h11.Data):
                if not self.refused:
                    self.body += event.data
                    self.refused = len(self.body) > MAX_BODY
            elif isinstance(event, h11.EndOfMessage):
                return self._complete()
            elif isinstance(event, h11.ConnectionClosed):
                self.closed = True
        return None

    def _complete(self) -> HttpRequest | HttpResponse:
        assert self.request is not None
        if self.refused:
            too_large = JsonRefused("size", f"more than {MAX_BODY} bytes", MAX_BODY)
            return refused_body(too_large)  # a JSON-RPC error, as /mcp speaks
        headers: dict[str, str] = {}
        for name, value in self.request.headers:  # h11 lower-cases names
            key = name.decode("latin-1")
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        return HttpRequest(
            self.request.method.decode("latin-1"),
            self.request.target.decode("latin-1"),
            headers,
            bytes(self.body),
        )

    def respond(self, response: HttpResponse) -> bytes:
        """The bytes of `response` (raises h11.LocalProtocolError when h11 cannot send it)."""
        headers = [(k.encode(), v.encode("latin-1")) for k, v in response.headers]
        if response.stream is None:
            headers.append((b"Content-Length", str(len(response.body)).encode()))
        reason = response.reason.encode()
        data = self.http.send(
            h11.Response(status_code=response.status, headers=headers, reason=reason)
        )
        if response.body:
            data = (data or b"") + (self.http.send(h11.Data(data=response.body)) or b"")
        if response.stream is None:
            data = (data or b"") + (self.http.send(h11.EndOfMessage()) or b"")
        if response.stream is not None:
            self.stream = response.stream
        elif self.http.our_state is h11.MUST_CLOSE:
            self.close_after_flush = True
        return data or b""

    def refuse(self, status: int) -> bytes:
        """An empty answer with `status`, after which the connection closes."""
        try:
            data = self.http.send(
                h11.Response(status_code=status, headers=[(b"Content-Length", b"0")])
            )
            data = (data or b"") + (self.http.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:
            data = b""
        self.close_after_flush = True
        return data or b""

    def push(self, push: Push) -> bytes:
        """The bytes of a push onto this connection's stream; a closing push ends the stream."""
        data = b""
        with contextlib.suppress(h11.LocalProtocolError):
            if push.data:
                data += self.http.send(h11.Data(data=push.data)) or b""
            if push.close:
                data += self.http.send(h11.EndOfMessage()) or b""
                self.close_after_flush = True
                self.stream = None
        return data
