"""Helpers for tests/test_hostile.py: the app's entries from its url_map, raw handshakes with any
headers, reading a socket until an alert, uploads written by hand (chunked or not, at any pace),
and the lab served by gunicorn's gevent worker as `mcp-lab serve` runs it.

Requests are written byte by byte on purpose: a library would fix the very headers (Origin,
Host, Transfer-Encoding) these tests need to get wrong.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask
from werkzeug.routing import Rule

from tests.conftest import free_port
from tests.rawws import address, read_message, upgrade

ROOT = Path(__file__).resolve().parent.parent
ALERT = re.compile(r'id="alert"[^>]*>\s*<p>(.*?)</p>', re.S)
STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
SAMPLE = {"sid": "pagination", "code": "ABCDEF"}  # a value for each converter in a rule


def entries(app: Flask) -> tuple[list[Rule], list[Rule]]:
    """(state-changing routes, websocket routes) of the app, as its url_map has them."""
    rules = sorted(app.url_map.iter_rules(), key=lambda r: r.rule)
    posts = [r for r in rules if not r.websocket and (r.methods or set()) & STATE_CHANGING]
    sockets = [r for r in rules if r.websocket]
    return posts, sockets


def method_of(rule: Rule) -> str:
    """The state-changing method a rule takes (POST for every route so far)."""
    return sorted((rule.methods or set()) & STATE_CHANGING)[0]


def path_of(rule: Rule) -> str:
    """A concrete path for a rule (converters filled from SAMPLE)."""
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: SAMPLE[m.group(1)], rule.rule)


def handshake(base: str, path: str, headers: dict[str, str]) -> tuple[socket.socket, int]:
    """A websocket handshake with exactly these extra headers: (socket, status)."""
    return upgrade(base, path, timeout=15, headers=headers)


def until(sock: socket.socket, pattern: re.Pattern[str] | str, within: float = 15) -> str:
    """Read text frames until one matches; the matching frame. A close frame fails the wait."""
    deadline = time.monotonic() + within
    needle = re.compile(re.escape(pattern)) if isinstance(pattern, str) else pattern
    while time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        opcode, payload = read_message(sock)
        if opcode == 8:
            raise ConnectionError(f"closed: {int.from_bytes(payload[:2], 'big')}")
        text = payload.decode("utf-8", "replace")
        if needle.search(text):
            return text
    raise TimeoutError(f"{needle.pattern!r} never arrived")


def multipart(data: bytes, boundary: str = "hostile") -> tuple[bytes, bytes, str]:
    """(before, after, content type) of a one-file form around `data` (field `trace`)."""
    before = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="trace"; '
        'filename="t.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()
    return before, f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def upload(
    base: str, size: int, *, chunked: bool, pause_after: int = 0, pause: float = 0.0
) -> tuple[int, str]:
    """POST /recorded a file of `size` bytes as a browser does: the whole body first, then read
    the answer; optionally pausing once after `pause_after` bytes (a slow network). Returns
    (status, page) or raises ConnectionError when the connection is reset."""
    before, after, kind = multipart(b"")
    host, port = address(base)
    framing = (
        "Transfer-Encoding: chunked"
        if chunked
        else f"Content-Length: {len(before) + size + len(after)}"
    )

    def frame(data: bytes) -> bytes:
        return f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data

    answer = b""
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(
            f"POST /recorded HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {kind}\r\n"
            f"{framing}\r\nSec-Fetch-Site: same-origin\r\n\r\n".encode()
        )
        block, sent = b"x" * 65536, 0
        sock.sendall(frame(before))
        while sent < size:
            part = block[: size - sent]
            sock.sendall(frame(part))
            sent += len(part)
            if pause and sent >= pause_after:
                time.sleep(pause)
                pause = 0.0
        sock.sendall(frame(after) + (b"0\r\n\r\n" if chunked else b""))
        while b"</html>" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    text = answer.decode("utf-8", "replace")
    return int(text.split(" ", 2)[1]), text


@contextmanager
def gunicorn(**options: object) -> Iterator[tuple[str, Path]]:
    """The lab under gunicorn's gevent worker exactly as `mcp-lab serve` configures it (plus
    `options`): its base URL and its log."""
    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"hostile-gunicorn-{port}.log"
    code = (
        "from app.web.server import LabServer, options\n"
        f"LabServer(None, options('127.0.0.1', {port}) | {options!r}).run()\n"
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", code], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert process.poll() is None, log.read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        yield base, log
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.unlink(missing_ok=True)


def raw_request(base: str, data: bytes) -> str:
    """Send `data` as it is and read the answer until the server closes."""
    answer = b""
    with socket.create_connection(address(base), timeout=15) as sock:
        sock.sendall(data)
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.decode("latin-1")
