"""gunicorn's gevent worker, with the lab's security headers on gunicorn's own error answers.

A request head gunicorn cannot parse (a malformed line, a URI over 4094 bytes, too many or too
large headers) never reaches the app: gunicorn answers it itself with a small HTML page (400,
414, 431, ...), written by `gunicorn.util.write_error` straight to the socket, without the
headers app.web.security puts on every answer the app gives. docs/SECURITY.md promises them on every
response, so this worker hands gunicorn's error writer a socket that adds them to the head it
writes; the page and the status stay gunicorn's. A subclass rather than a patch of gunicorn's
module, so nothing else in the process changes, and `mcp-lab serve` names it as its worker.
"""

from __future__ import annotations

from typing import Any

from gunicorn.workers.ggevent import GeventWorker

from app.web.security import content_security_policy, headers


class _WithHeaders:
    """A socket whose first write (gunicorn's error answer) gets `extra` after its status line."""

    def __init__(self, sock: Any, extra: bytes) -> None:
        self._sock = sock
        self._extra = extra

    def sendall(self, data: bytes) -> Any:
        if self._extra and data.startswith(b"HTTP/"):
            line, _, rest = data.partition(b"\r\n")
            data, self._extra = line + b"\r\n" + self._extra + rest, b""
        return self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class LabWorker(GeventWorker):  # type: ignore[misc]
    """The gevent worker `mcp-lab serve` runs (see app.web.server)."""

    def _policy(self) -> str:
        config = getattr(getattr(self, "wsgi", None), "config", None) or {}
        return str(config.get("CSP") or content_security_policy())

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers(self._policy()))
        super().handle_error(req, _WithHeaders(client, extra.encode("latin-1")), addr, exc)
