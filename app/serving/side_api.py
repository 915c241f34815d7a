"""The lab's JSON API on a port of its own, for sessions whose own channel cannot carry it.

A served server over HTTP answers `/lab/*` beside `/mcp` (app.serving.lab_api). Over stdio
there is no such door (stdout belongs to the client), and a tap forwards every path of its port
to the real server unchanged, so both open this small loopback server instead: the watch view of
`mcp-lab serve` asks it the same questions (`GET /lab/sessions`, `GET /lab/steps?session=ID
[&since=N]`, `POST /lab/change` where changes exist) and shows the sessions live.

It is stdlib's threading HTTP server on 127.0.0.1 and an ephemeral port unless told otherwise;
every request passes the lab's one guard (app.guard): a Host that is not its own loopback name,
or a browser's request from another origin, gets 403. `SideApi` is the protocol a provider
fills; `SideServer` runs it on a daemon thread until `stop`.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from app import guard

from .http import loopback_origins

__all__ = ["SideApi", "SideServer"]


class SideApi(Protocol):
    def sessions(self) -> dict[str, Any]:
        """What GET /lab/sessions answers: revision, server, sessions."""
        ...

    def steps(self, key: str, since: int) -> list[Any] | None:
        """A session's steps from `since` on; None when there is no such session."""
        ...

    def change(self) -> dict[str, Any] | None:
        """Apply the next change (POST /lab/change); None when this server has none."""
        ...

    def extra(self, path: str, query: dict[str, list[str]]) -> Any | None:
        """Any other GET path this provider answers (a tap's report card), else None."""
        ...


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: stderr is the served server's or the tap's report, not an access log."""

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _refused(self) -> bool:
        hosts = [urlsplit(o).netloc for o in self.server.origins]
        refusal = guard.judge(self.headers.get("Origin"), self.headers.get("Sec-Fetch-Site"), hosts)
        if refusal is not None or not guard.host_allowed(self.headers.get("Host"), hosts):
            self._answer(403, {"error": "refused: not this machine's lab"})
            return True
        return False

    def do_GET(self) -> None:
        if self._refused():
            return
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        api = self.server.api
        if parts.path == "/lab/sessions":
            self._answer(200, api.sessions())
            return
        if parts.path == "/lab/steps":
            key = (query.get("session") or [""])[0]
            since = (query.get("since") or ["0"])[0]
            steps = api.steps(key, int(since) if since.isdigit() else 0)
            self._answer(200, steps) if steps is not None else self._answer(404, {"error": key})
            return
        found = api.extra(parts.path, query)
        self._answer(200, found) if found is not None else self._answer(404, {"error": "no"})

    def do_POST(self) -> None:
        if self._refused():
            return
        if urlsplit(self.path).path != "/lab/change":
            self._answer(404, {"error": "no such route"})
            return
        changed = self.server.api.change()
        self._answer(200, changed) if changed is not None else self._answer(405, {"error": "no"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: SideApi
    origins: frozenset[str]


class SideServer:
    """The side API on host:port (0: any free port), served from a daemon thread."""

    def __init__(self, api: SideApi, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _Server((host, port), _Handler)
        self._server.api = api
        self.port = int(self._server.server_address[1])
        self._server.origins = loopback_origins(host, self.port)
        self.base = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
