"""Peers for the tap's tests: servers in threads, a tap in a thread, raw stdio and HTTP
conversations whose bytes can be compared, and SDK clients that list as a careful host does
(every page, again after list_changed) or as a careless one does (page 1 only, list_changed
ignored, a tool called from the old list)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import uvicorn
from mcp import Client, ClientSession

from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.tap.http_relay import HttpTap
from app.tap.log import TapLog
from tests.sdk_probe_server import sdk_server

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
LAB_SERVER = [PY, "-m", "app.cli", "mcp-server", "pagination", "--server", "files"]


def tap_command(*flags: str) -> list[str]:
    return [PY, "-m", "app.cli", "tap", *flags, "--"]


@contextmanager
def lab_http(scenario: str = "pagination", server: str = "files") -> Iterator[HttpShell]:
    """The lab's served server over HTTP in a thread; its changes come by request_change."""
    endpoint = McpEndpoint(load_served(scenario, server, announce_changes=True))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    assert shell.ready.wait(5)
    try:
        yield shell
    finally:
        shell.stop()
        thread.join(5)


@contextmanager
def sdk_http(mode: str = "clean") -> Iterator[str]:
    """An official-SDK server's Streamable HTTP app on uvicorn in a thread: its /mcp URL."""
    with asgi_http(sdk_server(mode).streamable_http_app()) as url:
        yield url


@contextmanager
def asgi_http(app: Any) -> Iterator[str]:
    """An ASGI app (an SDK server's Streamable HTTP app) on uvicorn in a thread: its /mcp URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started and thread.is_alive():
            threading.Event().wait(0.02)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def tapped(upstream: str) -> Iterator[tuple[str, TapLog]]:
    """An HTTP tap in a thread in front of `upstream`: the tap's base URL and its log."""
    log = TapLog(upstream)
    tap = HttpTap(upstream, "127.0.0.1", 0, log)
    thread = threading.Thread(target=tap.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{tap.port}", log
    finally:
        tap.stop()
        thread.join(5)


# --------------------------------------------------------------------------- raw conversations


def stdio_conversation(command: list[str], script: list[Any]) -> bytes:
    """Every byte a server's stdout carried for a fixed script: each item is a line to send
    (a message, or raw bytes), or a function of the answers so far giving one; a request
    waits for its answer before the next item goes."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO)
    assert proc.stdin is not None and proc.stdout is not None
    out = bytearray()
    answers: list[dict[str, Any]] = []
    for item in script:
        item = item(answers) if callable(item) else item
        line = item if isinstance(item, bytes) else json.dumps(item).encode() + b"\n"
        proc.stdin.write(line)
        proc.stdin.flush()
        if isinstance(item, bytes) or "id" in item:
            got = proc.stdout.readline()
            out += got
            answers.append(json.loads(got))
    proc.stdin.close()
    out += proc.stdout.read()
    proc.stdout.close()
    assert proc.wait(20) == 0
    return bytes(out)


VARYING = {"date", "mcp-session-id"}  # what differs between two runs of the same server


def http_conversation(base: str, script: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Status, headers (but for the date and session id) and body of each POST of a fixed
    legacy script over Streamable HTTP (the session id of the first answer on the rest)."""
    host, port = base.removeprefix("http://").split(":")
    session: str | None = None
    got: list[tuple[Any, ...]] = []
    for message in script:
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if session:
            headers["Mcp-Session-Id"] = session
            headers["MCP-Protocol-Version"] = "2025-11-25"
        conn.request("POST", "/mcp", json.dumps(message).encode(), headers)
        response = conn.getresponse()
        session = response.getheader("Mcp-Session-Id") or session
        headers_seen = [(k, v) for k, v in response.getheaders() if k.lower() not in VARYING]
        got.append((response.status, headers_seen, response.read()))
        conn.close()
    return got


# --------------------------------------------------------------------------- SDK clients


async def walk(session: ClientSession) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names


async def walk_modern(client: Client) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names


def told(changed: anyio.Event) -> Any:
    async def handler(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    return handler


async def careful_legacy(
    session: ClientSession, changed: anyio.Event, change: Callable[[], None]
) -> tuple[list[str], list[str]]:
    """Every page, a change, every page again: the two lists."""
    await session.initialize()
    before = await walk(session)
    change()
    await changed.wait()
    return before, await walk(session)


async def careless_legacy(
    session: ClientSession, changed: anyio.Event, change: Callable[[], None]
) -> str:
    """Page 1 only, a change it does not follow, a tool of page 1 called: the call's text."""
    await session.initialize()
    page = await session.list_tools()
    assert page.next_cursor is not None  # a host that stops here has not seen every tool
    change()
    await changed.wait()
    tool = page.tools[0]
    result = await session.call_tool(tool.name, {"path": "notes.txt"})
    return str(result.content[0].text)  # type: ignore[union-attr]


async def careless_modern(client: Client, change: Callable[[], None]) -> str:
    """The same careless host in 2026-07-28: page 1, the listen event ignored, a call."""
    page = await client.list_tools()
    assert page.next_cursor is not None
    async with client.listen(tools_list_changed=True) as subscription:
        change()
        async for _ in subscription:
            break
    result = await client.call_tool(page.tools[0].name, {"path": "notes.txt"})
    return str(result.content[0].text)  # type: ignore[union-attr]


def card(report: dict[str, Any], session: int = -1) -> dict[str, str]:
    """A session's report card from a tap's JSON report: check id -> level."""
    return {c["id"]: c["level"] for c in report["sessions"][session]["checks"]}


def said(report: dict[str, Any], check: str, session: int = -1) -> str:
    checks = report["sessions"][session]["checks"]
    return str(next(c["detail"] for c in checks if c["id"] == check))
