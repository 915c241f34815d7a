"""Helpers for live-room tests: start a room over HTTP and talk to its socket like a page.

`start_room(base)` does what the library's "Teach this live" form does (POST /live) and keeps
the instructor's cookie; `join(base, code)` opens the student's page and keeps its cookie (the
identity a vote needs); `LiveSocket` is a simple-websocket client that reads each message's
marker (seq and mode) the way static/js/classroom.js does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from simple_websocket import Client, ConnectionClosed

MARK = re.compile(r'^<div id="live-seq" hidden data-mode="(\w+)"(?: data-seq="(\d+)")?')


ROOT = Path(__file__).resolve().parent.parent


def gevent_server(
    port: int, redis_url: str | None = None, **config: str
) -> subprocess.Popen[bytes]:
    """The lab as a classroom runs it (gunicorn, one gevent worker), on 127.0.0.1:port;
    `config` are LAB_ settings (LIVE_CAPACITY="5" sets LAB_LIVE_CAPACITY)."""
    env = {k: v for k, v in os.environ.items() if k != "LAB_REDIS_URL"}
    if redis_url:
        env["LAB_REDIS_URL"] = redis_url
    env |= {f"LAB_{key}": value for key, value in config.items()}
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1"),
            *("-b", f"127.0.0.1:{port}", "--log-level", "warning"),
            # As `mcp-lab serve` (app.web.server): a worker busy loading the library on a
            # loaded machine is not killed as stuck after gunicorn's default 30 s.
            *("--timeout", "120", "app.web.factory:create_app()"),
        ],
        cwd=ROOT,
        env=env,
    )
    # Wait for the library page, not just the port: gunicorn run this way loads and validates
    # the scenario library on its first request, seconds on a busy machine, and a socket test
    # that met a cold worker timed out waiting for its first frame.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
                if answer.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gunicorn did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server from gevent_server; kill it if open sockets hold its graceful shutdown."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def start_room(
    base: str, scenario: str = "pagination", version: str = "2025-06-18", transport: str = "stdio"
) -> tuple[str, str]:
    """(code, instructor cookie "name=value") of a new room."""
    opener = urllib.request.build_opener(_NoRedirect)
    data = f"scenario={scenario}&version={version}&transport={transport}".encode()
    try:
        opener.open(urllib.request.Request(base + "/live", data=data))
    except urllib.error.HTTPError as answer:
        assert answer.code == 303
        code = answer.headers["Location"].split("/")[2]
        cookie = next(c for c in answer.headers.get_all("Set-Cookie") if "mcp-lab-teach-" in c)
        return code, cookie.split(";")[0]
    raise AssertionError("POST /live did not redirect")


def join(base: str, code: str) -> str:
    """The student cookie ("name=value") a browser gets by opening room `code`'s page: the
    identity a student's socket votes with."""
    with urllib.request.urlopen(f"{base}/live/{code}", timeout=30) as answer:
        cookie = next(c for c in answer.headers.get_all("Set-Cookie") if "mcp-lab-student" in c)
    return cookie.split(";")[0]


def _daemon_thread(target: Any) -> threading.Thread:
    return threading.Thread(target=target, daemon=True)


class _Client(Client):  # type: ignore[misc]  # (simple-websocket ships no types)
    """simple-websocket's client, reading what came with the server's 101 first: its handshake
    reads once and keeps only the 101, so a frame in the same read (the first state, or the
    close of a room that ended, which a loaded machine delivers together) waited in wsproto's
    buffer for bytes that never came, and a close read as 1005 "no status" (a browser reads it)."""

    def _thread(self) -> None:
        self.connected = self._handle_events()
        super()._thread()


class LiveSocket:
    def __init__(self, base: str, code: str, cookie: str = "", query: str = "") -> None:
        url = base.replace("http", "ws") + f"/live/{code}/ws{query}"
        origin = base.rsplit(":", 1)[0]  # simple-websocket sends Host without the port
        headers = {"Origin": origin} | ({"Cookie": cookie} if cookie else {})
        # A daemon reader: a test that fails before closing its socket must not keep pytest
        # from exiting (the server keeps the socket open, and a plain thread would wait on it).
        self.ws = _Client.connect(url, headers=headers, thread_class=_daemon_thread)
        self.seen: list[tuple[str, int | None, str]] = []

    def send(self, command: str, **params: Any) -> None:
        self.ws.send(json.dumps({"command": command, **params}))

    def receive(self, timeout: float = 30) -> tuple[str, int | None, str]:
        message = self.ws.receive(timeout=timeout)
        assert message is not None, "nothing arrived"
        match = MARK.match(message)
        assert match, message[:200]
        got = (match.group(1), int(match.group(2)) if match.group(2) else None, message)
        self.seen.append(got)
        return got

    def opening(self, timeout: float = 30) -> tuple[str, int | None, str]:
        """The room's state, the first frame with a seq: an instructor's socket may see a count
        (a `local` frame, which carries no seq and moves no step) before it, since it joins the
        room's groups before its state is sent, so that no step falls between the two."""
        for _ in range(50):
            got = self.receive(timeout)
            if got[1] is not None:
                return got
        raise AssertionError("the room's state never arrived")

    def until(self, needle: str, timeout: float = 30) -> str:
        """The first message containing `needle` (earlier ones are kept in `seen`)."""
        for _ in range(50):
            _mode, _seq, message = self.receive(timeout)
            if needle in message:
                return message
        raise AssertionError(f"{needle!r} never arrived")

    def quiet(self, timeout: float = 0.3) -> bool:
        """True when nothing arrives for `timeout` seconds."""
        return self.ws.receive(timeout=timeout) is None

    def closed(self, timeout: float = 10) -> tuple[int, str]:
        """(code, reason) of the server's close, reading (and keeping) what comes before it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.ws.receive(timeout=max(0.01, deadline - time.monotonic()))
            except ConnectionClosed as closed:
                return int(closed.reason), str(closed.message or "")
            if message is not None:
                self.seen.append(("", None, str(message)))
        raise AssertionError("the server did not close the socket")

    def close(self) -> None:
        self.ws.close()
