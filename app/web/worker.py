"""gunicorn's gevent worker, with the lab's security headers on gunicorn's own error answers,
and an idle loop that wakes every 10 seconds rather than every second.

A request head gunicorn cannot parse (a malformed line, a URI over 4094 bytes, too many or too
large headers) never reaches the app: gunicorn answers it itself with a small HTML page (400,
414, 431, ...), written by `gunicorn.util.write_error` straight to the socket, without the
headers app.web.security puts on every answer the app gives. docs/SECURITY.md promises them on every
response, so this worker hands gunicorn's error writer a socket that adds them to the head it
writes; the page and the status stay gunicorn's. A subclass rather than a patch of gunicorn's
module, so nothing else in the process changes, and `mcp-lab serve` names it as its worker.

gunicorn's worker loop tells the arbiter it lives (`notify`), then sleeps a second, for as long
as the worker runs. A wake after a quiet second runs cold: 0.36 ms of CPU a second for a bare
worker on the bench machine, most of an idle lab's (docs/BENCHMARKS.md). Here `notify` waits
up to ALIVE_EVERY seconds before the loop's own second, and a stop signal (SIGTERM) cuts the
wait short, so a stop is as prompt as gunicorn's. The arbiter's timeout (120 s,
app.web.server) is far above it; an arbiter that died is noticed within that wait.

And a stop that says nothing but that it stopped. Ctrl-C reaches the worker twice (SIGINT from
the terminal, SIGQUIT from the arbiter); gunicorn's second exit ran while the interpreter was
already ending and printed a SystemExit traceback; only the first is acted on. And logging's
handlers, dropped while the interpreter ends, call back into gevent's lock after gevent's
module is gone ("Exception ignored in _removeHandlerRef"): the worker flushes and unhooks them
as it leaves.
"""

from __future__ import annotations

import logging
from typing import Any

from gevent.event import Event
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


ALIVE_EVERY = 10.0  # seconds between the worker's word to the arbiter, the loop's second aside


class LabWorker(GeventWorker):  # type: ignore[misc]
    """The gevent worker `mcp-lab serve` runs (see app.web.server)."""

    _stopping: Event | None = None  # made in the worker process, when first needed
    _quitting = False

    def _stop_signal(self) -> Event:
        if self._stopping is None:
            self._stopping = Event()
        return self._stopping

    def notify(self) -> None:
        super().notify()
        if self.alive:  # the running loop; while it winds down, its second is enough
            self._stop_signal().wait(ALIVE_EVERY)

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        self._stop_signal().set()

    def handle_quit(self, sig: int, frame: Any) -> None:
        if not self._quitting:
            self._quitting = True
            super().handle_quit(sig, frame)

    def init_process(self) -> None:
        try:
            super().init_process()  # serves until the worker stops
        finally:
            logging.shutdown()  # flushed and closed now, while gevent can still take a lock
            logging._handlerList.clear()  # type: ignore[attr-defined]  # (see the docstring)

    def _policy(self) -> str:
        config = getattr(getattr(self, "wsgi", None), "config", None) or {}
        return str(config.get("CSP") or content_security_policy())

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers(self._policy()))
        super().handle_error(req, _WithHeaders(client, extra.encode("latin-1")), addr, exc)
