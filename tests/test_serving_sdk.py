"""The official Python SDK client against `mcp-lab mcp-server` over real HTTP and real stdio.

For the pagination, list-changed-add and collisions servers, in both eras: the SDK gathers every
page, calls a tool, is told of a catalog change the served server applies (legacy: a
list_changed on the session's GET stream or on stdout; modern: the event on its
subscriptions/listen stream), follows it and finds the new catalog. HTTP runs the real shell
(h11, one selector loop) on a loopback port in a thread; stdio launches the CLI as the SDK's
stdio client does and triggers the change with SIGUSR1. Every message is checked against the
official schema of its version.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from app.mcp import versions
from app.mcp.server import demo_value
from app.serving.catalog import ServedServer, load_served
from app.serving.conversations import Exchange
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from tests.test_mcp_interop import RecordingTransport, Wire, assert_valid

REPO = Path(__file__).resolve().parent.parent
TIMEOUT_S = 15
SERVERS = [("pagination", "files"), ("list-changed-add", "orders"), ("collisions", "files")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Expected:
    """The served catalog before and after the first change, and the page counts."""

    before: list[str]
    after: list[str]
    pages: int
    call: tuple[str, dict[str, Any]]


def expected(scenario: str, server: str) -> Expected:
    served = load_served(scenario, server, announce_changes=True)
    before = [t["name"] for t in served.tools]
    tool = served.tools[0]
    call = (tool["name"], demo_value(tool.get("inputSchema") or {}, 1))
    size = served.config.page_size
    served.change()
    after = [t["name"] for t in served.tools]
    assert after != before
    return Expected(before, after, -(-len(before) // size), call)


@dataclass
class Running:
    url: str
    shell: HttpShell
    endpoint: McpEndpoint
    served: ServedServer
    wire: Wire


@contextmanager
def serve_http(scenario: str, server: str, version: str) -> Iterator[Running]:
    """The HTTP shell on a free loopback port, in a thread, recording every message."""
    served = load_served(scenario, server, announce_changes=True)
    endpoint = McpEndpoint(served)
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    wire = Wire(version)

    def record(exchange: Exchange) -> None:
        wire.record("client" if exchange.sender == "client" else "server", exchange.message)

    endpoint.observers.append(record)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    assert shell.ready.wait(5)
    try:
        yield Running(f"http://127.0.0.1:{shell.port}", shell, endpoint, served, wire)
    finally:
        shell.stop()
        thread.join(5)
        assert not thread.is_alive()


async def gather_session(session: ClientSession) -> tuple[list[str], int]:
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        pages += 1
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names, pages


async def gather_client(client: Client) -> tuple[list[str], int]:
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await client.list_tools(cursor=cursor)
        pages += 1
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names, pages


async def legacy_walk(
    session: ClientSession, changed: anyio.Event, want: Expected, trigger: Any
) -> None:
    init = await session.initialize()
    assert init.protocol_version == versions.LATEST_LEGACY
    assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
    assert await gather_session(session) == (want.before, want.pages)
    result = await session.call_tool(*want.call)
    assert result.is_error is False
    assert want.call[0] in result.content[0].text  # type: ignore[union-attr]
    trigger()
    await changed.wait()
    names, _ = await gather_session(session)
    assert names == want.after


def on_list_changed(changed: anyio.Event) -> Any:
    async def handler(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    return handler


# --------------------------------------------------------------------------- HTTP


@pytest.mark.anyio
@pytest.mark.parametrize(("scenario", "server"), SERVERS)
async def test_sdk_legacy_session_over_streamable_http(scenario: str, server: str) -> None:
    want = expected(scenario, server)
    with serve_http(scenario, server, versions.LATEST_LEGACY) as running:
        changed = anyio.Event()
        async with (
            streamable_http_client(running.url + "/mcp") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await legacy_walk(session, changed, want, running.shell.request_change)
        status = running.endpoint.status()
    assert status["changesApplied"] == 1
    assert running.served.applied[0].notified == 1
    (note,) = running.wire.from_server("notifications/tools/list_changed")
    assert "params" not in note  # legacy: no subscription id, nothing but the method
    assert_valid(running.wire)


@pytest.mark.anyio
@pytest.mark.parametrize(("scenario", "server"), SERVERS)
async def test_sdk_modern_client_over_streamable_http(scenario: str, server: str) -> None:
    want = expected(scenario, server)
    with serve_http(scenario, server, versions.LATEST) as running:
        events: list[Any] = []
        async with Client(running.url + "/mcp") as client:
            with anyio.fail_after(TIMEOUT_S):
                assert client.protocol_version == "2026-07-28"
                assert await gather_client(client) == (want.before, want.pages)
                result = await client.call_tool(*want.call)
                assert result.is_error is False
                async with client.listen(tools_list_changed=True) as subscription:
                    assert subscription.honored.tools_list_changed is True
                    assert len(running.endpoint.listens) == 1
                    running.shell.request_change()
                    async for event in subscription:
                        events.append(event)
                        break
                # The event evicted the SDK's cached first page: this walk reaches the server.
                names, _ = await gather_client(client)
                assert names == want.after
                # Leaving the listen block closed its stream; the server let it go.
                with anyio.fail_after(5):
                    while running.endpoint.listens:
                        await anyio.sleep(0.02)
    assert [type(e).__name__ for e in events] == ["ToolsListChanged"]
    assert running.wire.requests("initialize") == []
    (listen,) = running.wire.requests("subscriptions/listen")
    (note,) = running.wire.from_server("notifications/tools/list_changed")
    assert note["params"]["_meta"][versions.META_SUBSCRIPTION_ID] == listen["id"]
    assert_valid(running.wire)


@pytest.mark.anyio
async def test_sdk_client_over_http_sse_transport() -> None:
    """The 2024-11-05 transport: GET /sse names the POST endpoint; replies come on the stream."""
    want = expected("pagination", "files")
    with serve_http("pagination", "files", versions.LATEST_LEGACY) as running:
        changed = anyio.Event()
        async with (
            sse_client(running.url + "/sse") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await legacy_walk(session, changed, want, running.shell.request_change)
        assert_valid(running.wire)
        with anyio.fail_after(5):  # the stream closed with the client: the session is gone
            while running.endpoint.sse_sessions:
                await anyio.sleep(0.02)


# --------------------------------------------------------------------------- stdio


def lab_children() -> list[int]:
    """Pids of `mcp-lab mcp-server` processes this test process started."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"mcp-server" in cmdline:
            found.append(int(entry))
    return found


def poke_lab_server() -> None:
    (pid,) = lab_children()
    os.kill(pid, signal.SIGUSR1)


def stdio_params(scenario: str, server: str) -> StdioServerParameters:
    args = ["-m", "app.cli", "mcp-server", scenario, "--server", server, "--change-every", "3600"]
    return StdioServerParameters(command=sys.executable, args=args, cwd=REPO)


@pytest.mark.anyio
@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="on-demand changes use SIGUSR1")
@pytest.mark.parametrize(("scenario", "server"), SERVERS)
async def test_sdk_legacy_over_stdio_follows_a_change(scenario: str, server: str) -> None:
    want = expected(scenario, server)
    wire = Wire(versions.LATEST_LEGACY)
    changed = anyio.Event()
    async with (
        RecordingTransport(stdio_client(stdio_params(scenario, server)), wire) as (read, write),
        ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
    ):
        with anyio.fail_after(TIMEOUT_S):
            await legacy_walk(session, changed, want, poke_lab_server)
    assert len(wire.from_server("notifications/tools/list_changed")) == 1
    assert_valid(wire)


@pytest.mark.anyio
@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="on-demand changes use SIGUSR1")
@pytest.mark.parametrize(("scenario", "server"), SERVERS)
async def test_sdk_modern_over_stdio_follows_a_change(scenario: str, server: str) -> None:
    want = expected(scenario, server)
    wire = Wire(versions.LATEST)
    events: list[Any] = []
    async with Client(RecordingTransport(stdio_client(stdio_params(scenario, server)), wire)) as c:
        with anyio.fail_after(TIMEOUT_S):
            assert c.protocol_version == "2026-07-28"
            assert await gather_client(c) == (want.before, want.pages)
            assert (await c.call_tool(*want.call)).is_error is False
            async with c.listen(tools_list_changed=True) as subscription:
                poke_lab_server()
                async for event in subscription:
                    events.append(event)
                    break
            names, _ = await gather_client(c)
            assert names == want.after
    assert [type(e).__name__ for e in events] == ["ToolsListChanged"]
    assert_valid(wire)
