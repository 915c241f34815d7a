"""Servers built on the official Python SDK for `mcp-lab probe` to grade: one clean, some broken.

`python -m tests.sdk_probe_server MODE` serves MODE over stdio; `sdk_server(MODE)` gives the
low-level `Server` for a test to serve over Streamable HTTP. Modes:

clean   five well-formed tools, two per page, -32602 for a cursor it never issued
broken  the mistakes real servers make: a name with a space (and one with a dot), the same name
        twice, an inputSchema that is not valid JSON Schema, a title a 2024-11-05 client never
        expects (the SDK does not shape tools per version), and a cursor parsed with int(), so
        an invented cursor is an internal error instead of -32602
loop    a nextCursor that never changes, so a client that trusts it never stops
noisy   clean, but prints a banner on stdout before serving (stdout must carry MCP only)
must    clean but for one tool whose inputSchema is no valid JSON Schema (a MUST from 2025-11-25)
should  clean but for a tool named `bad name!` (from 2025-11-25 the spec's SHOULD; before, no rule)
notes   the SDK's high-level MCPServer (FastMCP's new name) with its defaults: 12 tools in one
        page, one named `send.email` (the spec allows dots, model APIs do not: a host's rule),
        each with title and outputSchema, and any cursor ignored
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError

PAGE = 2
OBJECT: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}}


def catalog(mode: str) -> list[types.Tool]:
    if mode == "must":
        tools = catalog("clean")
        odd = {"type": "object", "properties": {"q": {"type": "text"}}}
        tools[3] = types.Tool(name="tool_3", input_schema=odd)
        return tools
    if mode == "should":
        tools = catalog("clean")
        tools[1] = types.Tool(name="bad name!", description="a space and a !", input_schema=OBJECT)
        return tools
    if mode == "broken":
        return [
            types.Tool(name="search docs", description="space in the name", input_schema=OBJECT),
            types.Tool(name="share.link", description="dot in the name", input_schema=OBJECT),
            types.Tool(name="fetch", title="Fetch a page", input_schema=OBJECT),
            types.Tool(name="fetch", description="the same name again", input_schema=OBJECT),
            types.Tool(
                name="count", input_schema={"type": "object", "properties": {"q": {"type": "text"}}}
            ),
        ]
    return [
        types.Tool(name=f"tool_{i}", description=f"Tool number {i}", input_schema=OBJECT)
        for i in range(5)
    ]


def sdk_server(mode: str) -> Server[Any]:
    tools = catalog(mode)

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = None if params is None else params.cursor
        if mode == "loop":
            return types.ListToolsResult(tools=tools[:PAGE], next_cursor="again")
        if mode == "broken":
            start = int(cursor or 0)  # the SDK docs' way: a bad cursor becomes -32603
        else:
            start = 0
            if cursor is not None:
                if not (cursor.startswith("at-") and cursor[3:].isdigit()):
                    raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
                start = int(cursor[3:])
        end = start + PAGE
        following = (f"at-{end}" if mode != "broken" else str(end)) if end < len(tools) else None
        return types.ListToolsResult(tools=tools[start:end], next_cursor=following)

    return Server(
        f"sdk-{mode}",
        version="2.3.0",
        on_list_tools=on_list_tools,
        on_subscriptions_listen=ListenHandler(InMemorySubscriptionBus()),
    )


def notes_server() -> MCPServer:
    """FastMCP as most servers in the wild use it: decorated functions, the SDK's defaults."""
    app = MCPServer("notes")

    @app.tool(name="send.email", title="Send an email")
    def send_email(to: str, body: str) -> str:
        """Send an email."""
        return f"sent to {to}"

    for i in range(11):

        def note(q: str) -> str:
            return q

        app.tool(name=f"note_{i}", title=f"Note {i}", description=f"Note number {i}")(note)
    return app


async def serve_stdio(mode: str) -> None:
    server = sdk_server("clean" if mode == "noisy" else mode)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


if __name__ == "__main__":
    chosen = sys.argv[1] if len(sys.argv) > 1 else "clean"
    if chosen == "notes":
        notes_server().run()
        sys.exit(0)
    if chosen == "noisy":
        print("Starting my server v1.0 ...", flush=True)
    anyio.run(serve_stdio, chosen)
