"""Serving the lab to a classroom: gunicorn with threads, started from Python.

`mcp-lab serve` and `make run` call `serve`. Flask's development server is fine for one person
but is not built for a room: every open viewer holds a websocket, and with flask-sock each
socket occupies one server thread for as long as the page is open. Gunicorn's `gthread` worker
gives a bounded, pre-started pool of such threads with proper timeouts and logging. We run a
single worker process on purpose: the rendered-fragment cache (and the live classroom mode that
sends one rendered step to many followers) lives in that process's memory, so all sockets of a
class must share it. Threads, not processes, are what a room of mostly idle sockets needs.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

# Two viewers per student for a class of 100, plus room for page and asset requests. An idle
# thread costs a little memory; a missing one makes a student's page wait.
THREADS = 256


class LabServer(BaseApplication):  # type: ignore[misc]
    """Gunicorn configured in code, serving an already created Flask app."""

    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings and value is not None:
                self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.application


def options(host: str, port: int, threads: int = THREADS) -> dict[str, Any]:
    """Gunicorn settings for a classroom (see the module docstring for why)."""
    return {
        "bind": f"{host}:{port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": threads,
        "worker_connections": threads * 4,
        # A websocket request "lasts" as long as the page is open; the worker itself stays
        # alive by heartbeat, so this timeout only catches a worker that is truly stuck.
        "timeout": 120,
        "graceful_timeout": 5,
        "keepalive": 5,
        "accesslog": "-",
        "errorlog": "-",
        "loglevel": "info",
    }


def serve(host: str, port: int) -> None:
    """Serve the lab on host:port until interrupted."""
    from app.web.factory import create_app

    print(f"MCP Discovery Lab on http://{host}:{port}  (gunicorn gthread, {THREADS} threads)")
    LabServer(create_app(), options(host, port)).run()
