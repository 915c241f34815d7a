"""Serving the lab to a classroom: gunicorn with the gevent worker, started from Python.

`mcp-lab serve` and `make run` call `serve`. Every open viewer holds a websocket for as long as
its page is open, and a classroom is thousands of them, mostly idle. Gunicorn's gthread worker
gave each one an OS thread from a fixed pool of 256: socket 257 hung, and 256 half-sent request
heads (a slow-loris) froze every page. The gevent worker gives each connection a greenlet
instead (gevent patches the standard library, so each socket's reader, app.web.channel, is a
greenlet too): an idle socket costs a few tens of kilobytes, not a thread,
and the number of sockets is bounded by `worker_connections`, not by a pool a few clients can
use up. bench/serving.py measures both models side by side.

Deadlines keep the cheap connections from piling up: `keepalive` bounds how long gunicorn waits
for a request head (a connection that sends half a head is closed after it), and
app.web.channel bounds every websocket send and reaps peers that stop answering pings.

One worker process by default: the rendered-step cache and the classroom rooms live in its
memory. `--workers N` runs N processes, which only makes sense with a shared room store
(LAB_REDIS_URL); without one, `serve` refuses with a message that says so.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping
from typing import Any

from gunicorn.app.base import BaseApplication

# Greenlets per worker process: sockets plus page and asset requests. Each is cheap; the cap
# keeps a flood of connections from exhausting memory or file descriptors.
CONNECTIONS = 10000
# Seconds a connection may take to send a request head (and an idle keep-alive may wait).
HEAD_TIMEOUT = 5


class LabServer(BaseApplication):  # type: ignore[misc]
    """Gunicorn configured in code; the Flask app is built in the worker, after gevent's patch."""

    def __init__(self, app: Any, options: dict[str, Any]) -> None:
        """`app` is a Flask app, or None to build one in each worker process."""
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings and value is not None:
                self.cfg.set(key, value)

    def load(self) -> Any:
        if self.application is None:
            from app.web.factory import create_app

            self.application = create_app()
            # Validate the library while the worker boots, not on the first student's request.
            _ = self.application.extensions["lab"].library
        return self.application


def freeze_loaded(worker: Any) -> None:
    """gunicorn's post_worker_init: keep the collector's full passes off a class's sockets.

    A full garbage collection walks every tracked object while every socket waits. The library,
    its verdicts, the app and its modules (~100k objects) live as long as the process: frozen,
    no pass walks them again (objects among them that die are still freed by reference
    counting; only a frozen cycle waits for the process to end). A class joining adds ~100
    objects a follower that live as long as it stays: at the default thresholds a full pass
    came every 70k allocations, 6 or 7 of up to 230 ms of CPU while 5,000 joined. Ten times
    rarer, none came then; the young passes keep their size (docs/BENCHMARKS.md).
    """
    _ = worker.wsgi.extensions["lab"].library  # loaded by LabServer.load; here for a given app
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 100)  # a full pass after 100 middle ones, not 10


def options(host: str, port: int, workers: int = 1) -> dict[str, Any]:
    """Gunicorn settings for a classroom (see the module docstring for why)."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        # gunicorn's gevent worker, whose own error answers carry our headers (app.web.worker)
        "worker_class": "app.web.worker.LabWorker",
        "worker_connections": CONNECTIONS,
        # A websocket request "lasts" as long as the page is open; the worker itself stays
        # alive by heartbeat, so this timeout only catches a worker that is truly stuck.
        "timeout": 120,
        "graceful_timeout": 5,
        "keepalive": HEAD_TIMEOUT,
        # Links carry data (whatif=, /author?scenario=): gunicorn's most, not its 4,094 default.
        "limit_request_line": 8190,
        "accesslog": "-",
        "errorlog": "-",
        "loglevel": "info",
        # gunicorn's control socket lives at one path per user: two labs would fight over it.
        "control_socket_disable": True,
        "post_worker_init": freeze_loaded,
    }


class ServeError(Exception):
    """A serving configuration that cannot work; the message says what to change."""


def check(workers: int, environ: Mapping[str, str] | None = None) -> None:
    """Refuse several worker processes without a shared room store."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    if workers < 1:
        raise ServeError("--workers must be 1 or more")
    if workers > 1 and not env.get("LAB_REDIS_URL"):
        raise ServeError(
            f"--workers {workers} needs LAB_REDIS_URL (e.g. redis://127.0.0.1:6379/0): each "
            "process has its own memory, so live rooms must live in Redis to be shared. "
            "One process (the default) holds thousands of sockets on its own."
        )


def banner(host: str, port: int, workers: int) -> str:
    """The line `serve` prints first: where the lab is, and who can reach it."""
    procs = "1 process" if workers == 1 else f"{workers} processes"
    where = (
        "only this machine can reach it; --host 0.0.0.0 opens it to the network"
        if host in ("127.0.0.1", "localhost", "::1")
        else f"listening on {host}: every machine that can reach this address can open it"
    )
    return f"MCP Discovery Lab on http://{host}:{port}  (gunicorn gevent, {procs}; {where})"


def serve(host: str, port: int, workers: int = 1) -> None:
    """Serve the lab on host:port until interrupted."""
    check(workers)
    print(banner(host, port, workers), flush=True)
    LabServer(None, options(host, port, workers)).run()
