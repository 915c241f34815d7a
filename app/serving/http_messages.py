"""HTTP messages as the served server's endpoint sees them: a request in, a response and pushes out.

The socket shell (app.serving.http) parses bytes into an `HttpRequest` and writes an
`HttpResponse` back; a response with `stream` set keeps its connection open as a Server-Sent
Events stream, and later bytes for that stream travel as `Push`es. The helpers here build the
JSON answers every route gives and read a request's JSON body, so the transports and the lab's
API say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.bounded_json import JsonRefused, read_json
from app.mcp import jsonrpc
from app.mcp.framing import JSON_CONTENT, encode_json

__all__ = [
    "MAX_MESSAGE",
    "HttpRequest",
    "HttpResponse",
    "Push",
    "error_response",
    "json_body",
    "json_response",
    "refused_body",
    "request_text",
]

# The largest JSON-RPC body read (the shell answers 413 before a larger one reaches us).
MAX_MESSAGE = 4 * 1024 * 1024
REASONS = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
}


@dataclass(frozen=True)
class HttpRequest:
    """One complete HTTP request; header names are lower-case."""

    method: str
    target: str
    headers: Mapping[str, str]
    body: bytes = b""


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    stream: int | None = None  # keep the connection open as this SSE stream; body comes first

    @property
    def reason(self) -> str:
        return REASONS.get(self.status, "Unknown")

    def head_text(self) -> str:
        lines = [f"HTTP/1.1 {self.status} {self.reason}"]
        lines += [f"{k}: {v}" for k, v in self.headers]
        if self.stream is None:
            lines.append(f"Content-Length: {len(self.body)}")
        return "\r\n".join(lines) + "\r\n\r\n"


@dataclass(frozen=True)
class Push:
    """Bytes for an open stream; `close` ends the stream after them."""

    stream: int
    data: bytes = b""
    close: bool = False


def json_response(
    status: int, payload: Any, extra: tuple[tuple[str, str], ...] = ()
) -> HttpResponse:
    body = (encode_json(payload) if payload is not None else "").encode()
    return HttpResponse(status, (("Content-Type", JSON_CONTENT), *extra), body)


def error_response(status: int, code: int, text: str, request_id: Any = None) -> HttpResponse:
    """A JSON-RPC error object as the body of an HTTP answer with `status`."""
    return json_response(status, jsonrpc.error(request_id, code, text))


def refused_body(exc: JsonRefused) -> HttpResponse:
    """The answer to a body the bounded reader refused (the shell's 413 for a body it stopped
    reading too). Text that is not JSON is a plain parse error; a body past the reader's bounds
    says which bound, so a client can tell a refusal from its own malformed message."""
    why = None if exc.reason == "syntax" else str(exc)
    refused = jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error", why)
    return json_response(413 if exc.reason == "size" else 400, refused)


def request_text(request: HttpRequest) -> str:
    """The request as it crossed the wire, for the frame a trace step shows."""
    head = [f"{request.method} {request.target} HTTP/1.1"]
    head += [f"{k}: {v}" for k, v in request.headers.items()]
    return "\r\n".join(head) + "\r\n\r\n" + request.body.decode("utf-8", "replace")


def json_body(request: HttpRequest) -> tuple[Any, HttpResponse | None]:
    """The request's JSON body, read by the lab's one bounded JSON reader (app.bounded_json),
    or the answer that refuses it (415 not JSON, 400 unreadable or too deep, 413 too large)."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != JSON_CONTENT:
        text = "Content-Type must be application/json"
        return None, error_response(415, jsonrpc.INVALID_REQUEST, text)
    try:
        return read_json(request.body, MAX_MESSAGE), None
    except JsonRefused as exc:
        return None, refused_body(exc)
