"""The client side of the scripts `mcp-lab example` prints: the official MCP Python SDK driving
`mcp-lab mcp-server`, printing what it sees (how it reaches the server is app.examples.sdkconnect).

This file is not imported by the lab (the SDK is a test dependency): app.examples.script copies
the definitions a script needs out of it by name, so each must stand alone on the standard
library, anyio and mcp. Keeping them in a real module means ruff and strict mypy check the code
students read, and the tests run it. Every line a script prints starts with a tag in brackets
(`[tools/list]`, `[tools/call]`, ...), which is how CI compares a run with the lesson's trace.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable

import anyio
import mcp.types as types
from mcp.client import ClientSession, IncomingMessage
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
