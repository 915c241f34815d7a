"""How the scripts `mcp-lab example` prints reach the lab's servers with the official MCP Python
SDK: `mcp-lab mcp-server` launched over stdio or found at a URL over HTTP, a session opened in
each era (the legacy handshake, 2026-07-28's `Client`) on each transport, and a way to make the
lab's server change its catalog (SIGUSR1 over stdio, POST /lab/change over HTTP).

Kept apart from the client's own behaviour (app.examples.sdkpeer: the walk, the cache, calls)
because a lesson's story never depends on it: it is the plumbing a script needs before the
first act. Like sdkpeer, this file is not imported by the lab: app.examples.extract copies the
definitions a script needs out of both, and drops the import of sdkpeer below (in a script,
its definitions sit in the same file).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import urllib.request
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import mcp.types as types
from mcp.client import Client, ClientSession, Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from app.examples.sdkpeer import CLIENT_INFO, WAIT_S, Peer, say


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
