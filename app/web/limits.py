"""Bounded request bodies, chunked or not, and a 413 page a browser can read.

Every request may send at most `MAX_CONTENT_LENGTH` bytes (LAB_MAX_CONTENT_LENGTH, 1 MiB by
default: forms, LTI posts and JSON commands are a few kilobytes); a view that takes files raises
its own limit with `allow`. werkzeug enforces it both ways: a Content-Length over the limit is
refused before a byte is read, and a chunked body (no Content-Length) is cut off as it passes the
limit instead of being read whole, since both servers we run under (gunicorn and werkzeug's)
mark their input as terminated. Either way the view sees `RequestEntityTooLarge`, which becomes
the 413 page here.

The page is only readable if the connection survives the client's upload: a browser sends its
whole body before it reads an answer, and a socket closed with unread bytes in it is reset, which
throws the answer away. werkzeug's development server reads what is left after every response.
gunicorn leaves it to its keep-alive loop, which gives up after `keepalive` seconds (5) and
closes, so a slow client got a reset instead of the page. `Linger` therefore reads and drops the
rest of a refused body after the 413 has been written (as nginx's lingering close does), for at
most `LINGER_S` seconds and `LINGER_BYTES` bytes: a client that sends more than that gets the
reset, and the server never holds more than one read's worth of it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from flask import Flask, Request, request
from werkzeug.exceptions import RequestEntityTooLarge

MAX_BODY = 1024 * 1024
LINGER_S = 30.0
LINGER_BYTES = 256 * 1024 * 1024
READ = 65536

StartResponse = Callable[..., Any]


def allow(limit: int) -> None:
    """Let the current request's body be up to `limit` bytes (call before reading it)."""
    request.max_content_length = limit


def size_text(limit: int) -> str:
    """A limit as people read it: 8 MB, 1 MB, 64 KB."""
    if limit >= 1024 * 1024:
        return f"{limit / (1024 * 1024):.0f} MB"
    return f"{max(1, limit // 1024)} KB"


def _too_large(_: RequestEntityTooLarge) -> tuple[str, int]:
    from app.web.security import refused_page

    return refused_page(413, limit=size_text(request.max_content_length or MAX_BODY))


class ClosingUploads(Request):
    """A request that closes every upload file it opened. werkzeug closes the files of a form
    it finished parsing; a body cut off at the limit leaves the file it was writing open until
    the garbage collector finds it (a ResourceWarning per refused upload)."""

    def _get_file_stream(
        self,
        total_content_length: int | None,
        content_type: str | None,
        filename: str | None = None,
        content_length: int | None = None,
    ) -> IO[bytes]:
        stream = super()._get_file_stream(
            total_content_length, content_type, filename, content_length
        )
        self.__dict__.setdefault("_opened", []).append(stream)
        return stream

    def close(self) -> None:
        super().close()
        for stream in self.__dict__.get("_opened", ()):
            stream.close()


class _Drained:
    """The response's body, then (in `close`, after the server wrote it) the drain."""

    def __init__(self, body: Iterable[bytes], environ: dict[str, Any]) -> None:
        self.body = body
        self.environ = environ

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            linger(self.environ)
        finally:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()


def linger(environ: dict[str, Any]) -> int:
    """Read and drop what is left of the request body (bounded); the bytes read."""
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket")
    before = sock.gettimeout() if sock is not None else None
    deadline = time.monotonic() + LINGER_S
    total = 0
    try:
        while total < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
            if sock is not None:
                sock.settimeout(min(left, 5.0))  # a client that stalls does not hold us
            data = stream.read(READ)
            if not data:
                break
            total += len(data)
    except (OSError, ValueError):
        pass  # gone, stalled or broken: the server closes the connection as it would have
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.settimeout(before)
    return total


class Linger:
    """WSGI middleware: after a 413 under gunicorn, drain the request (see the module doc)."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        refused: list[bool] = []

        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            refused.append(status.startswith("413"))
            return start_response(status, headers, *exc_info)

        body = self.app(environ, start)
        # Only gunicorn's input knows where its body ends (Content-Length or the last chunk);
        # werkzeug's server reads the rest itself, and its raw input would block past the end.
        if refused and refused[-1] and "gunicorn.socket" in environ:
            return _Drained(body, environ)
        return body


def init_app(app: Flask) -> None:
    if app.config.get("MAX_CONTENT_LENGTH") is None:  # Flask's default is None: no limit
        app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    # Mixed into the request class the app has (htmx-flask's), so call this after htmx's.
    app.request_class = type("LabRequest", (ClosingUploads, app.request_class), {})
    app.register_error_handler(RequestEntityTooLarge, _too_large)
    app.wsgi_app = Linger(app.wsgi_app)  # type: ignore[method-assign]
