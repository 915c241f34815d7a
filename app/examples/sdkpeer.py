"""The client side of the scripts `mcp-lab example` prints: the official MCP Python SDK driving
`mcp-lab mcp-server`, printing what it sees.

This file is not imported by the lab (the SDK is a test dependency): app.examples.script copies
the definitions a script needs out of it by name, so each must stand alone on the standard
library, anyio and mcp. Keeping them in a real module means ruff and strict mypy check the code
students read, and the tests run it. Every line a script prints starts with a tag in brackets
(`[tools/list]`, `[tools/call]`, ...), which is how CI compares a run with the lesson's trace.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import sys
import urllib.request
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import mcp.types as types
from mcp.client import Client, ClientSession, IncomingMessage, Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import Subscription
from mcp.shared.exceptions import MCPError

WAIT_S = 20.0  # a local server answers in milliseconds: past this, fail instead of hanging
CLIENT_INFO = types.Implementation(name="lab-example", version="1.0.0")
MAX_PAGES = 100  # a walk never takes more pages than this, whatever cursors a server sends


def say(line: str) -> None:
    print(line, flush=True)


def tool_names(tools: list[types.Tool]) -> str:
    return ", ".join(tool.name for tool in tools) or "(none)"


def first_text(result: types.CallToolResult) -> str:
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    return texts[0] if texts else "(no text content)"


class Peer:
    """One server of the lesson as this client sees it: the session, the tools it listed, and a
    way to make the lab's server change its catalog."""

    session: ClientSession
    subscription: Subscription | None = None

    def __init__(self, sid: str, change: Callable[[], Awaitable[str]]) -> None:
        self.sid = sid
        self.known: list[types.Tool] = []
        self.pages: list[tuple[str | None, list[types.Tool]]] = []  # the cursor that fetched it
        self._change = change
        self._list_changed = anyio.Event()

    async def on_message(self, message: IncomingMessage) -> None:
        # Before 2026-07-28 a list_changed arrives on the session itself, with no subscription.
        if isinstance(message, types.ToolListChangedNotification):
            self._list_changed.set()

    async def list_all_tools(self) -> None:
        """tools/list from the first page through every nextCursor; the last page has none."""
        pages: list[tuple[str | None, list[types.Tool]]] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            result = await self._page(cursor, len(pages) + 1)
            pages.append((cursor, result.tools))
            cursor = result.next_cursor
            if cursor is None:
                break
            if cursor in seen or len(pages) >= MAX_PAGES:  # a server that would loop forever
                say(
                    f"[tools/list] {self.sid}: nextCursor {cursor!r} again: the walk stops and "
                    "the client keeps its previous list"
                )
                return
            seen.add(cursor)
        self.pages = pages  # a walk is a full snapshot: it replaces the last one, never merges
        self._settle()

    async def refresh_pages(self, *numbers: int) -> None:
        """2026-07-28: each page has its own ttlMs. Fetch again only the pages whose time ran
        out, each with the very cursor that fetched it before; keep the fresh ones."""
        for number in numbers:
            cursor = self.pages[number - 1][0]
            result = await self._page(cursor, number)
            self.pages[number - 1] = (cursor, result.tools)
        self._settle()

    async def _page(self, cursor: str | None, number: int) -> types.ListToolsResult:
        params = types.PaginatedRequestParams(cursor=cursor)
        result = await self.session.list_tools(params=params)
        more = "" if result.next_cursor is None else " (nextCursor: more to come)"
        say(f"[tools/list] {self.sid} page {number}: {tool_names(result.tools)}{more}")
        return result

    def _settle(self) -> None:
        self.known = [tool for _, tools in self.pages for tool in tools]
        say(f"[tools] {self.sid}: {len(self.known)} tools: {tool_names(self.known)}")

    def show_cached(self) -> None:
        say(
            f"[cache] {self.sid}: nothing sent, still {len(self.known)} tools: "
            f"{tool_names(self.known)}"
        )

    async def call(self, name: str, arguments: dict[str, object]) -> None:
        try:
            result = await self.session.call_tool(name, arguments)
        except MCPError as error:  # a protocol error: -32602 for a tool the server lacks
            say(
                f"[tools/call] {self.sid} {name} -> error {error.error.code}: {error.error.message}"
            )
            return
        outcome = "isError" if result.is_error else "ok"
        say(f"[tools/call] {self.sid} {name} -> {outcome}: {first_text(result)}")

    async def change_server(self) -> None:
        say(f"[change] {self.sid}: {await self._change()}")

    async def wait_list_changed(self) -> None:
        with anyio.fail_after(WAIT_S):
            if self.subscription is not None:  # 2026-07-28: the event comes on the listen stream
                event = await anext(self.subscription)
                say(f"[list_changed] {self.sid}: {type(event).__name__} on the listen stream")
                return
            await self._list_changed.wait()
        self._list_changed = anyio.Event()
        say(f"[list_changed] {self.sid}: notifications/tools/list_changed")

    async def list_with_cursor(self, cursor: str) -> None:
        params = types.PaginatedRequestParams(cursor=cursor)
        try:
            result = await self.session.list_tools(params=params)
        except MCPError as error:
            say(
                f"[tools/list] {self.sid} cursor {cursor!r} -> error {error.error.code}: "
                f"{error.error.message}"
            )
            return
        say(f"[tools/list] {self.sid} cursor {cursor!r} -> {tool_names(result.tools)}")

    async def discover_with(self, version: str) -> None:
        try:
            await self.session.send_discover(version)
        except MCPError as error:
            say(
                f"[server/discover] {self.sid} {version} -> error {error.error.code}: "
                f"{error.error.message}"
            )
            return
        say(f"[server/discover] {self.sid} {version} -> accepted")


def offer_to_model(peers: list[Peer]) -> None:
    """What a host hands the model: every tool under `<server id>__<tool name>`, since names are
    unique only per server, kept to what model APIs accept ([a-zA-Z0-9_-], 64 at most). A name
    cut to 64 gets a short hash of the original, so two long names cannot end up the same."""
    offered: list[str] = []
    for peer in peers:
        for tool in peer.known:
            name = re.sub(r"[^a-zA-Z0-9_-]", "_", f"{peer.sid}__{tool.name}")
            if len(name) > 64 or name in offered:
                digest = hashlib.sha256(f"{peer.sid}\0{tool.name}".encode()).hexdigest()[:8]
                name = f"{name[:55]}_{digest}"
            offered.append(name)
    say(f"[model] the host offers the model {len(offered)} tools: {', '.join(offered)}")


def mcp_lab() -> str:
    """The lab's command: beside this Python (a venv's bin), else on PATH."""
    beside = Path(sys.executable).with_name("mcp-lab")
    return str(beside) if beside.exists() else "mcp-lab"


class StdioLab:
    """`mcp-lab mcp-server` launched on our stdin/stdout. Its stderr, which MCP leaves free for
    logs, tells its pid and reports every change it applies; SIGUSR1 asks for the next one."""

    def __init__(self, scenario: str, sid: str) -> None:
        read_fd, write_fd = os.pipe()
        self.errlog = os.fdopen(write_fd, "w")
        self._reports = anyio.wrap_file(os.fdopen(read_fd, encoding="utf-8"))
        args = ["mcp-server", scenario, "--server", sid, "--report-pid"]
        self.params = StdioServerParameters(command=mcp_lab(), args=args)
        self._pid: int | None = None

    async def _report(self, pattern: str) -> re.Match[str]:
        with anyio.fail_after(WAIT_S):
            while True:
                line = await self._reports.readline()
                if not line:
                    raise RuntimeError("the lab's server has exited")
                if found := re.search(pattern, line):
                    return found

    async def change(self) -> str:
        if self._pid is None:
            self._pid = int((await self._report(r"pid (\d+)")).group(1))
        os.kill(self._pid, signal.SIGUSR1)
        return (await self._report(r"(change \d+ .*)")).group(1)


class HttpLab:
    """`mcp-lab mcp-server --transport http` at a base URL; POST /lab/change applies a change."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    async def change(self) -> str:
        def post() -> str:
            request = urllib.request.Request(self.base + "/lab/change", method="POST")
            with urllib.request.urlopen(request, timeout=WAIT_S) as reply:
                body: bytes = reply.read()
            return body.decode()

        # The reply says what changed: {"summary": "change 1 (scenario): +x", "notified": 1}
        reply = json.loads(await anyio.to_thread.run_sync(post))
        return f"{reply['summary']}, {reply['notified']} notified"


def describe_open(peer: Peer, session: ClientSession) -> None:
    info = session.server_info
    caps = session.server_capabilities
    listed = caps.tools.list_changed if caps is not None and caps.tools is not None else None
    who = f"{info.name} {info.version}, " if info is not None else ""
    say(
        f"[open] {peer.sid}: {who}protocol {session.protocol_version}, "
        f"tools.listChanged {bool(listed)}"
    )


async def start_legacy(
    stack: AsyncExitStack, peer: Peer, transport: Transport, version: str
) -> Peer:
    """The legacy opening: initialize with the lesson's version, then notifications/initialized.
    (session.initialize() does the same, always asking for the SDK's newest, 2025-11-25.)"""
    read, write = await stack.enter_async_context(transport)
    session = ClientSession(read, write, message_handler=peer.on_message)
    peer.session = await stack.enter_async_context(session)
    params = types.InitializeRequestParams(
        protocol_version=version, capabilities=types.ClientCapabilities(), client_info=CLIENT_INFO
    )
    request = types.InitializeRequest(params=params)
    result = await peer.session.send_request(request, types.InitializeResult)
    peer.session.adopt(result)
    await peer.session.send_notification(types.InitializedNotification())
    describe_open(peer, peer.session)
    return peer


async def start_modern(
    stack: AsyncExitStack, peer: Peer, server: Transport | str, probe: bool, listen: bool
) -> Peer:
    """2026-07-28 has no handshake: every request carries the version in _meta. mode="auto"
    asks server/discover first (and falls back to initialize for an older server); a pinned
    version sends nothing until the first real request. cache=None: every walk you see
    reaches the server (Client would otherwise answer repeats from its ttlMs cache)."""
    mode = "auto" if probe else "2026-07-28"
    client = Client(
        server, mode=mode, cache=None, client_info=CLIENT_INFO, message_handler=peer.on_message
    )
    await stack.enter_async_context(client)
    peer.session = client.session
    describe_open(peer, peer.session)
    if listen and client.protocol_version == "2026-07-28":
        peer.subscription = await stack.enter_async_context(client.listen(tools_list_changed=True))
        honored = peer.subscription.honored.tools_list_changed
        say(f"[listen] {peer.sid}: subscriptions/listen acknowledged, toolsListChanged {honored}")
    return peer


async def open_legacy_stdio(stack: AsyncExitStack, scenario: str, sid: str, version: str) -> Peer:
    lab = StdioLab(scenario, sid)
    transport = stdio_client(lab.params, errlog=lab.errlog)
    peer = await start_legacy(stack, Peer(sid, lab.change), transport, version)
    lab.errlog.close()  # the server has its own copy; ours would keep the pipe from ever ending
    return peer


async def open_modern_stdio(
    stack: AsyncExitStack, scenario: str, sid: str, probe: bool, listen: bool
) -> Peer:
    lab = StdioLab(scenario, sid)
    transport = stdio_client(lab.params, errlog=lab.errlog)
    peer = await start_modern(stack, Peer(sid, lab.change), transport, probe, listen)
    lab.errlog.close()
    return peer


async def open_legacy_http(stack: AsyncExitStack, base: str, sid: str, version: str) -> Peer:
    """Streamable HTTP (2025-03-26 on): one endpoint, /mcp, for POSTs and the GET stream."""
    transport = streamable_http_client(base + "/mcp")
    return await start_legacy(stack, Peer(sid, HttpLab(base).change), transport, version)


async def open_legacy_sse(stack: AsyncExitStack, base: str, sid: str, version: str) -> Peer:
    """HTTP+SSE (2024-11-05): GET /sse names the URL to POST to; answers come on the stream."""
    transport = sse_client(base + "/sse")
    return await start_legacy(stack, Peer(sid, HttpLab(base).change), transport, version)


async def open_modern_http(
    stack: AsyncExitStack, base: str, sid: str, probe: bool, listen: bool
) -> Peer:
    peer = Peer(sid, HttpLab(base).change)
    return await start_modern(stack, peer, base + "/mcp", probe, listen)


def read_urls(urls: dict[str, str]) -> None:
    """--url SERVER=URL, for a lab's server that is not at the default address."""
    parser = argparse.ArgumentParser(description="A lesson of the MCP Discovery Lab, for real.")
    parser.add_argument("--url", action="append", default=[], metavar="SERVER=URL")
    for item in parser.parse_args().url:
        sid, _, url = item.partition("=")
        if sid not in urls or not url:
            parser.error(f"--url wants SERVER=URL with SERVER one of {', '.join(urls)}")
        urls[sid] = url
