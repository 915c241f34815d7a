"""The live view in a real browser under the strict CSP: /watch polls the served server, a
client appears by its clientInfo as soon as it connects, and the change button reaches it."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def served() -> Iterator[tuple[str, McpEndpoint]]:
    endpoint = McpEndpoint(load_served("pagination", "files", announce_changes=True))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{shell.port}", endpoint
    shell.stop()
    thread.join(5)


def initialize(base: str) -> None:
    """A hand-written client: initialize over Streamable HTTP, as curl would."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "classroom-client", "version": "4.2"},
        },
    }
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", "/mcp", json.dumps(body), headers)
    assert conn.getresponse().read()
    conn.close()


def test_watch_page_shows_a_client_as_it_connects(
    live_server: str, served: tuple[str, McpEndpoint]
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    base, endpoint = served
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(f"{live_server}/watch?server={base}")
        sessions = page.locator("#watch-sessions")
        expect(sessions).to_contain_text("No client has connected yet.", timeout=15000)
        initialize(base)
        expect(sessions).to_contain_text("classroom-client 4.2", timeout=15000)
        expect(sessions).to_contain_text("2025-06-18")
        page.get_by_role("button", name="Apply the next change").click()
        expect(sessions).to_contain_text("1 changes applied", timeout=15000)
        browser.close()
    assert len(endpoint.served.applied) == 1
    assert problems == []  # nothing refused by the Content-Security-Policy, no script errors
