"""Sessions the watch view could not show before: a served server's stdio session and a tap's
sessions, answered on a loopback side port; /watch lists sessions with their start time, marks
the newest and shows it when none is named; and the watch link a served server or a tap prints
names the running lab's real address, not port 5000 whatever the lab's port.

The served server runs as a real process speaking stdio; the web app is driven with Flask's
test client, which asks the side port over loopback as the real page does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app.cli import main as cli_main
from app.serving import lab_address
from app.serving.side_api import SideServer
from app.tap.log import TapLog
from app.tap.report import TapApi
from app.web.factory import create_app
from tests.tap_peers import REPO

WATCH_LINK = re.compile(r"watch it live: (\S+)/watch\?server=(http://127\.0\.0\.1:\d+)")


@pytest.fixture
def web() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LAB_RUNTIME_DIR", str(tmp_path))
    return tmp_path


@contextmanager
def served_stdio(runtime: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, str]]:
    """`mcp-lab mcp-server` on real stdio: the process, the lab its link names, its side port."""
    command = [sys.executable, "-m", "app.cli", "mcp-server", "pagination", "--server", "files"]
    env = {**os.environ, "LAB_RUNTIME_DIR": str(runtime)}
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
        env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    found = WATCH_LINK.search(proc.stderr.readline().decode())  # its first word: the link
    assert found is not None
    try:
        yield proc, found.group(1), found.group(2)
    finally:
        proc.kill()
        proc.wait(10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _ask(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    if "id" not in message:
        return {}
    answer: dict[str, Any] = json.loads(proc.stdout.readline())
    return answer


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "stdio-host", "version": "4.2"}}}  # fmt: skip


def test_a_stdio_session_is_watchable_live_and_takes_a_change(
    web: FlaskClient, runtime: Path
) -> None:
    lab_address.announce("127.0.0.1", 5123)  # a lab "runs" on 5123: this test process
    with served_stdio(runtime) as (proc, lab, side):
        assert lab == "http://127.0.0.1:5123"  # the lab's real address, not :5000
        _ask(proc, INIT)
        _ask(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _ask(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        page = web.get(f"/watch?server={side}&view=transport").get_data(as_text=True)
        assert "stdio-host 4.2" in page
        assert "Step 5 of 5" in page  # initialize and tools/list both ways, initialized
        sessions = json.loads(_get(side + "/lab/sessions"))
        (session,) = sessions["sessions"]
        assert session["transport"] == "stdio" and sessions["transport"] == "stdio"
        steps = json.loads(_get(f"{side}/lab/steps?session={session['id']}"))
        assert steps[0]["transport"] == "stdio" and steps[0]["channel"] == "stdin"
        assert steps[0]["frame"].startswith('{"jsonrpc": "2.0", "id": 1')
        # The change button's route, on the side port: the served server applies it and the
        # client is told on stdout.
        changed = json.loads(_post(side + "/lab/change"))
        assert changed["added"] == ["lab_extra_1"]
        assert proc.stdout is not None
        note = json.loads(proc.stdout.readline())
        assert note["method"] == "notifications/tools/list_changed"


def _get(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=5) as response:
        return str(response.read().decode())


def _post(url: str) -> str:
    import urllib.request

    request = urllib.request.Request(url, data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        return str(response.read().decode())


def _client_session(log: TapLog, key: str, name: str) -> None:
    log.message(key, "stdio", True, {**INIT, "params": {**INIT["params"],  # type: ignore[dict-item]
                "clientInfo": {"name": name, "version": "1"}}}, None)  # fmt: skip
    info = {"name": "real", "version": "9"}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": info}}  # fmt: skip
    log.message(key, "stdio", False, answer, None)


def test_watch_lists_sessions_with_their_start_and_shows_the_newest(web: FlaskClient) -> None:
    log = TapLog("real-server")
    side = SideServer(TapApi(log))
    try:
        _client_session(log, "one", "first-host")
        _client_session(log, "two", "second-host")
        log.sessions["one"].started_ms = 10  # both started within a millisecond
        log.sessions["two"].started_ms = 20
        _client_session(log, "one", "first-host")  # the older session is the busier one
        page = web.get(f"/watch?server={side.base}").get_data(as_text=True)
    finally:
        side.stop()
    assert "Live: second-host 1 with real 9" in page  # the newest, though not the last active
    items = re.findall(r'<li class="watch-item[^"]*">(.*?)</li>', page, re.S)
    assert len(items) == 2
    assert "newest" in items[1] and "newest" not in items[0]
    assert all(re.search(r"started \d\d:\d\d:\d\d UTC", item) for item in items)
    assert "Tapped: real 9." in page


def test_the_printed_link_names_the_running_lab(runtime: Path, capsys: Any) -> None:
    assert lab_address.lab_url() == (lab_address.DEFAULT_LAB, False)
    seen: list[str | None] = []

    def fake_serve(host: str, port: int, workers: int) -> None:
        seen.append(lab_address.running_lab())

    import app.web.server as server

    original = server.serve
    server.serve = fake_serve  # type: ignore[assignment]
    try:
        assert cli_main(["serve", "--port", "5999"]) == 0
    finally:
        server.serve = original  # type: ignore[assignment]
    assert seen == ["http://127.0.0.1:5999"]  # recorded while it served
    assert lab_address.running_lab() is None  # and withdrawn when it stopped
    assert lab_address.lab_url("http://lab.example:8000/") == ("http://lab.example:8000", True)
