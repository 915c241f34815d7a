"""Interop with the official MCP Python SDK, the reference peer: the lab's core against real code.

The lab's sans-IO server and client are driven against `mcp` 2.3.0 from both sides and in both
eras: the SDK's stdio client launches `mcp-lab mcp-server` as a subprocess and pages through its
tools (legacy handshake, and the modern server/discover path with per-request `_meta`); the SDK
client follows list_changed from the lab's server in-process behind memory streams (legacy
message_handler, modern subscriptions/listen); and the lab's MCPClient gathers every page from an
SDK low-level server with a paginated on_list_tools and follows its list_changed, for every
protocol version. Each conversation is recorded from the lab's side, and every message the lab
sent or received is checked against the official schema of the negotiated version with
`app.mcp.schemas.check_message`. A few plain tests cover the stdio shell itself (parse errors,
blank lines, exit codes).
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TextIO

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from app.cli import main as cli_main
from app.mcp import events as ev
from app.mcp import versions
from app.mcp.client import ClientConfig, ClientPhase, MCPClient
from app.mcp.clock import ManualClock
from app.mcp.events import Event, Output
from app.mcp.jsonrpc import Message
from app.mcp.schemas import check_message
from app.mcp.server import MCPServer
from app.serving.stdio_server import UnknownServer, build_server, serve_stdio

Sender = Literal["client", "server"]

REPO = Path(__file__).resolve().parent.parent
# `mcp-lab mcp-server pagination --server files`, run with this interpreter.
LAB_SERVER_ARGS = ["-m", "app.cli", "mcp-server", "pagination", "--server", "files"]
# scenarios/pagination.yaml, server "files": eight tools served three per page.
FILE_TOOLS = [
    "read_file",
    "write_file",
    "list_directory",
    "move_file",
    "delete_file",
    "file_info",
    "search_files",
    "fulltext_search",
]
NEW_TOOL: dict[str, Any] = {
    "name": "zip_files",
    "title": "Zip files",
    "description": "Pack files into a zip archive.",
    "inputSchema": {"type": "object", "properties": {"paths": {"type": "array"}}},
}
TIMEOUT_S = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --------------------------------------------------------------------------- the recorded wire


def to_dict(message: types.JSONRPCMessage, *, exclude_unset: bool = False) -> Message:
    """An SDK message model as the plain JSON object the lab's core speaks."""
    if exclude_unset:  # what the SDK's stdio transport writes
        return message.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return message.model_dump(by_alias=True, exclude_none=True, mode="json")


def to_model(message: Message) -> types.JSONRPCMessage:
    return types.jsonrpc_message_adapter.validate_python(message)


@dataclass
class Wire:
    """Every message exchanged between the lab and the SDK, in order, tagged with its sender."""

    version: str
    messages: list[tuple[Sender, Message]] = field(default_factory=list)

    def record(self, sender: Sender, message: Message) -> None:
        self.messages.append((sender, message))

    def requests(self, method: str) -> list[Message]:
        return [m for s, m in self.messages if s == "client" and m.get("method") == method]

    def from_server(self, method: str) -> list[Message]:
        return [m for s, m in self.messages if s == "server" and m.get("method") == method]

    def count(self, sender: Sender) -> int:
        return sum(1 for s, _ in self.messages if s == sender)

    def problems(self) -> list[str]:
        """check_message for every message under the wire's version; [] when all are valid."""
        asked: dict[Any, str] = {}
        found: list[str] = []
        for index, (sender, message) in enumerate(self.messages):
            if "method" in message and "id" in message:
                asked[message["id"]] = message["method"]
            answered = None if "method" in message else asked.get(message.get("id"))
            for problem in check_message(
                message, self.version, sender=sender, request_method=answered
            ):
                found.append(f"#{index} {sender} {json.dumps(message)[:200]}: {problem}")
        return found


def assert_valid(wire: Wire) -> None:
    assert wire.messages, "nothing was recorded"
    assert wire.problems() == []


class _RecordingRead:
    """The SDK client's read stream: what arrives is what the lab's server sent."""

    def __init__(self, inner: Any, wire: Wire):
        self.inner, self.wire = inner, wire

    async def receive(self) -> SessionMessage | Exception:
        item = await self.inner.receive()
        if isinstance(item, SessionMessage):
            self.wire.record("server", to_dict(item.message, exclude_unset=True))
        return item  # type: ignore[no-any-return]

    def __aiter__(self) -> _RecordingRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _RecordingRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _RecordingWrite:
    """The SDK client's write stream: what leaves is what the lab's server receives."""

    def __init__(self, inner: Any, wire: Wire):
        self.inner, self.wire = inner, wire

    async def send(self, item: SessionMessage, /) -> None:
        self.wire.record("client", to_dict(item.message, exclude_unset=True))
        await self.inner.send(item)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _RecordingWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class RecordingTransport:
    """An SDK `Transport` that wraps another one and records every message on a Wire."""

    def __init__(self, inner: AbstractAsyncContextManager[Any], wire: Wire):
        self.inner, self.wire = inner, wire

    async def __aenter__(self) -> tuple[_RecordingRead, _RecordingWrite]:
        read, write = await self.inner.__aenter__()
        return _RecordingRead(read, self.wire), _RecordingWrite(write, self.wire)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self.inner.__aexit__(exc_type, exc, tb)


class StreamsTransport:
    """An SDK `Transport` over streams that already exist (the client half of a memory pair)."""

    def __init__(self, read: Any, write: Any):
        self.read, self.write = read, write

    async def __aenter__(self) -> tuple[Any, Any]:
        return self.read, self.write

    async def __aexit__(self, *exc: object) -> None:
        return None


# --------------------------------------------------------------------------- 1-2: real stdio


@pytest.fixture
def errlog() -> Iterator[TextIO]:
    """The lab server's stderr; a healthy shell writes nothing there."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as f:
        yield f


def stderr_of(errlog: TextIO) -> str:
    """What the server wrote on stderr besides its one watch link (stderr is MCP's log channel,
    and the link is how a stdio session is found in the lab's /watch)."""
    errlog.seek(0)
    lines = errlog.read().splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("mcp-lab: watch it live: "))


def lab_server_process(errlog: TextIO) -> AbstractAsyncContextManager[Any]:
    params = StdioServerParameters(command=sys.executable, args=LAB_SERVER_ARGS, cwd=REPO)
    return stdio_client(params, errlog=errlog)


@pytest.mark.anyio
async def test_sdk_stdio_client_pages_through_the_lab_server_legacy(errlog: TextIO) -> None:
    """The SDK's stdio client, initialize handshake, cursor loop: 8 tools in 3 pages, -32602."""
    wire = Wire(versions.LATEST_LEGACY)
    async with (
        RecordingTransport(lab_server_process(errlog), wire) as (read, write),
        ClientSession(read, write) as session,
    ):
        with anyio.fail_after(TIMEOUT_S):
            init = await session.initialize()
            assert init.protocol_version == versions.LATEST_LEGACY
            assert init.server_info.name == "file-server"
            assert init.capabilities.tools is not None
            assert init.capabilities.tools.list_changed is True

            pages: list[list[str]] = []
            cursor: str | None = None
            while True:
                page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                pages.append([t.name for t in page.tools])
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert [name for page in pages for name in page] == FILE_TOOLS
            assert [len(p) for p in pages] == [3, 3, 2]

            with pytest.raises(MCPError) as refused:
                await session.list_tools(params=types.PaginatedRequestParams(cursor="page-2"))
            assert refused.value.code == types.INVALID_PARAMS == -32602

    assert [m["method"] for m in wire.requests("initialize")] == ["initialize"]
    assert len(wire.requests("tools/list")) == 4
    assert wire.count("server") == 5  # initialize result, three pages, one error
    assert "params" not in wire.requests("tools/list")[0]  # the SDK's first page: no params
    assert stderr_of(errlog) == ""
    assert_valid(wire)


@pytest.mark.anyio
async def test_sdk_client_modern_era_over_stdio(errlog: TextIO) -> None:
    """mcp.Client probes server/discover, adopts 2026-07-28 and honours the lab's ttlMs."""
    wire = Wire(versions.LATEST)
    async with Client(RecordingTransport(lab_server_process(errlog), wire)) as client:
        with anyio.fail_after(TIMEOUT_S):
            assert client.protocol_version == "2026-07-28"
            assert client.server_info is not None
            assert client.server_info.name == "file-server"
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True

            pages: list[types.ListToolsResult] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                pages.append(page)
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert [t.name for p in pages for t in p.tools] == FILE_TOOLS
            assert len(pages) == 3
            for page in pages:  # the SDK parses the 2026 cache hints the lab sends on each page
                assert page.result_type == "complete"
                assert page.ttl_ms == 300_000
                assert page.cache_scope == "public"
                assert page.meta is not None
                assert page.meta[versions.META_SERVER_INFO]["name"] == "file-server"

            # ttlMs is honoured: page 1 again comes from the SDK's cache, not the wire.
            again = await client.list_tools()
            assert [t.name for t in again.tools] == FILE_TOOLS[:3]
            assert len(wire.requests("tools/list")) == 3

            with pytest.raises(MCPError) as refused:
                await client.list_tools(cursor="page-2")
            assert refused.value.code == -32602

    assert wire.requests("initialize") == []
    assert wire.count("server") == 5  # discover result, three pages, one error
    first = wire.messages[0][1]
    assert first["method"] == "server/discover"
    for request in wire.requests("tools/list"):
        meta = request["params"]["_meta"]
        assert meta[versions.META_VERSION] == "2026-07-28"
        assert versions.META_CLIENT_CAPABILITIES in meta
    assert stderr_of(errlog) == ""
    assert_valid(wire)


# --------------------------------------------------------------------------- 3: list_changed


async def lab_server_pump(server: MCPServer, read: Any, write: Any, wire: Wire) -> None:
    """The lab's MCPServer behind the server half of a memory pair: each SDK message becomes a
    dict for MCPServer.receive, and each reply goes back as an SDK message."""
    async for item in read:
        if isinstance(item, Exception):
            raise item
        message = to_dict(item.message)
        wire.record("client", message)
        await push(server.receive(message), write, wire)


async def push(messages: list[Message], write: Any, wire: Wire) -> None:
    """Send what the lab's server produced (replies, or list_changed from a catalog change)."""
    for message in messages:
        wire.record("server", message)
        await write.send(SessionMessage(to_model(message)))


async def gather_pages(
    list_page: Callable[[str | None], Awaitable[types.ListToolsResult]],
) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        page = await list_page(cursor)
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names


@pytest.mark.anyio
async def test_sdk_client_follows_lab_list_changed_legacy() -> None:
    """message_handler gets ToolListChangedNotification; a fresh walk shows the new tool."""
    server = build_server("pagination", "files")
    wire = Wire(versions.LATEST_LEGACY)
    changed = anyio.Event()
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        seen.append(message)
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def list_page(cursor: str | None) -> types.ListToolsResult:
        return await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))

    async with (
        create_client_server_memory_streams() as ((c_read, c_write), (s_read, s_write)),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(lab_server_pump, server, s_read, s_write, wire)
        async with ClientSession(c_read, c_write, message_handler=on_message) as session:
            with anyio.fail_after(TIMEOUT_S):
                await session.initialize()
                assert await gather_pages(list_page) == FILE_TOOLS

                notifications = server.add_tool(NEW_TOOL)
                assert [n["method"] for n in notifications] == ["notifications/tools/list_changed"]
                await push(notifications, s_write, wire)
                await changed.wait()

                assert await gather_pages(list_page) == [*FILE_TOOLS, "zip_files"]
        tg.cancel_scope.cancel()

    assert [type(m) for m in seen] == [types.ToolListChangedNotification]
    assert len(wire.requests("tools/list")) == 6  # 3 pages, then 3 pages again from the start
    assert_valid(wire)


@pytest.mark.anyio
async def test_sdk_client_follows_lab_list_changed_modern() -> None:
    """subscriptions/listen is acknowledged, list_changed arrives on it, the SDK re-lists."""
    server = build_server("pagination", "files")
    wire = Wire(versions.LATEST)
    events: list[Any] = []

    async with (
        create_client_server_memory_streams() as ((c_read, c_write), (s_read, s_write)),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(lab_server_pump, server, s_read, s_write, wire)
        async with Client(StreamsTransport(c_read, c_write)) as client:
            with anyio.fail_after(TIMEOUT_S):
                assert client.protocol_version == "2026-07-28"

                async def list_page(cursor: str | None) -> types.ListToolsResult:
                    return await client.list_tools(cursor=cursor)

                assert await gather_pages(list_page) == FILE_TOOLS

                async with client.listen(tools_list_changed=True) as subscription:
                    assert subscription.honored.tools_list_changed is True
                    assert len(server.subscriptions) == 1
                    await push(server.add_tool(NEW_TOOL), s_write, wire)
                    async for event in subscription:
                        events.append(event)
                        break

                # The notification evicted the SDK's cached page 1: this walk goes to the wire.
                assert await gather_pages(list_page) == [*FILE_TOOLS, "zip_files"]
        tg.cancel_scope.cancel()

    assert events == [ToolsListChanged()]
    (listen,) = wire.requests("subscriptions/listen")
    assert listen["params"]["notifications"] == {"toolsListChanged": True}
    (ack,) = wire.from_server("notifications/subscriptions/acknowledged")
    (note,) = wire.from_server("notifications/tools/list_changed")
    for stamped in (ack, note):
        assert stamped["params"]["_meta"][versions.META_SUBSCRIPTION_ID] == listen["id"]
    assert len(wire.requests("tools/list")) == 6
    # Leaving the listen block cancelled the stream, and the lab's server dropped it.
    assert wire.requests("notifications/cancelled")[0]["params"]["requestId"] == listen["id"]
    assert server.subscriptions == {}
    assert_valid(wire)


# --------------------------------------------------------------------------- 4: SDK server


SDK_PAGE_SIZE = 2


def sdk_tools(count: int) -> list[types.Tool]:
    return [
        types.Tool(
            name=f"tool_{i}", description=f"Tool number {i}", input_schema={"type": "object"}
        )
        for i in range(count)
    ]


def sdk_server(tools: list[types.Tool], bus: InMemorySubscriptionBus) -> Server[Any]:
    """An SDK low-level server: paginated tools/list, and a `grow` tool that adds a tool and
    announces it the way its era wants (legacy session notification, or the listen bus)."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = None if params is None else params.cursor
        start = 0
        if cursor is not None:
            if not (cursor.startswith("at-") and cursor[3:].isdigit()):
                raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
            start = int(cursor[3:])
            if not 0 < start < len(tools):
                raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
        end = start + SDK_PAGE_SIZE
        following = f"at-{end}" if end < len(tools) else None
        return types.ListToolsResult(tools=tools[start:end], next_cursor=following)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tools.append(types.Tool(name="tool_new", input_schema={"type": "object"}))
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            await ctx.session.send_tool_list_changed()
        else:
            await bus.publish(ToolsListChanged())
        return types.CallToolResult(content=[types.TextContent(text="one more tool")])

    return Server(
        "sdk-server",
        version="2.3.0",
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=ListenHandler(bus),
    )


@dataclass
class LabClientLink:
    """The lab's sans-IO MCPClient on the client half of a memory pair, recorded on a Wire."""

    client: MCPClient
    read: Any
    write: Any
    wire: Wire
    events: list[Event] = field(default_factory=list)

    async def send(self, out: Output) -> None:
        self.events += out.events
        for message in out.messages:
            self.wire.record("client", message)
            await self.write.send(SessionMessage(to_model(message)))

    async def until(self, done: Callable[[], bool]) -> None:
        """Deliver what the server sends, and send what the client answers, until `done()`."""
        while not done():
            item = await self.read.receive()
            assert isinstance(item, SessionMessage), item
            message = to_dict(item.message)
            self.wire.record("server", message)
            await self.send(self.client.receive(message))

    def kinds(self) -> list[str]:
        return [type(e) for e in self.events]


@asynccontextmanager
async def lab_client_against_sdk_server(
    version: str, tools: list[types.Tool]
) -> AsyncIterator[LabClientLink]:
    bus = InMemorySubscriptionBus()
    server = sdk_server(tools, bus)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    client = MCPClient(ClientConfig(server_id="sdk", protocol_version=version), ManualClock())
    async with (
        create_client_server_memory_streams() as ((c_read, c_write), (s_read, s_write)),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(server.run, s_read, s_write, options)
        link = LabClientLink(client, c_read, c_write, Wire(version))
        with anyio.fail_after(TIMEOUT_S):
            await link.send(client.start())
            # Ready, and in the modern era also listening (the SDK server offers listChanged).
            await link.until(
                lambda: (
                    client.phase is ClientPhase.READY
                    and (client.era is versions.Era.LEGACY or client.listening)
                )
            )
            yield link
        tg.cancel_scope.cancel()


@pytest.mark.anyio
@pytest.mark.parametrize("version", versions.VERSIONS)
async def test_lab_client_gathers_every_page_from_sdk_server(version: str) -> None:
    """7 tools, 2 per page: 4 tools/list, one published list (generation 1), -32602 on a bad
    cursor; under every protocol version the SDK server serves."""
    async with lab_client_against_sdk_server(version, sdk_tools(7)) as link:
        client = link.client
        assert client.version == version
        assert client.server_info["name"] == "sdk-server"

        await link.send(client.list_tools())
        await link.until(lambda: client.cache.generation == 1 and client.gathering is None)
        assert [t["name"] for t in client.cache.tools] == [f"tool_{i}" for i in range(7)]
        assert len(link.wire.requests("tools/list")) == 4
        assert link.kinds().count(ev.PageReceived) == 4
        assert link.kinds().count(ev.Published) == 1

        await link.send(client.raw_request("tools/list", {"cursor": "page-2"}))
        await link.until(lambda: ev.ManualError in link.kinds())
        assert link.events[-1].detail == {"method": "tools/list", "code": -32602}
        assert client.cache.generation == 1  # a refused hand-made cursor changes nothing

    if versions.era_of(version) is versions.Era.MODERN:
        assert link.wire.messages[0][1]["method"] == "server/discover"
        assert link.wire.requests("initialize") == []
    else:
        assert link.wire.messages[0][1]["method"] == "initialize"
    assert_valid(link.wire)


@pytest.mark.anyio
@pytest.mark.parametrize("version", versions.VERSIONS)
async def test_lab_client_follows_sdk_server_list_changed(version: str) -> None:
    """The SDK server announces a new tool (legacy: on the session; modern: on the listen
    stream the lab opened); the lab re-lists from page 1 and publishes generation 2."""
    async with lab_client_against_sdk_server(version, sdk_tools(7)) as link:
        client = link.client
        await link.send(client.list_tools())
        await link.until(lambda: client.cache.generation == 1)

        await link.send(client.call_tool("grow", {}))
        await link.until(
            lambda: (
                client.cache.generation == 2
                and client.gathering is None
                and ev.CallOk in link.kinds()
            )
        )
        assert [t["name"] for t in client.cache.tools] == [
            *(f"tool_{i}" for i in range(7)),
            "tool_new",
        ]
        assert link.kinds().count(ev.ListChanged) == 1

    requests = link.wire.requests("tools/list")
    assert len(requests) == 8
    assert "cursor" not in (requests[4].get("params") or {})  # the refresh restarts at page 1
    (note,) = link.wire.from_server("notifications/tools/list_changed")
    if versions.era_of(version) is versions.Era.MODERN:
        (listen,) = link.wire.requests("subscriptions/listen")
        assert note["params"]["_meta"][versions.META_SUBSCRIPTION_ID] == listen["id"]
    assert_valid(link.wire)


# --------------------------------------------------------------------------- the stdio shell


PARSE_ERROR = {"code": -32700, "message": "Parse error"}


def run_shell(*lines: str) -> list[Message]:
    out = io.StringIO()
    serve_stdio(build_server("pagination", "files"), io.StringIO("".join(lines)), out)
    text = out.getvalue()
    assert text.endswith("\n") or text == ""
    return [json.loads(line) for line in text.splitlines()]


INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)


def test_stdio_shell_answers_parse_errors_and_keeps_going() -> None:
    replies = run_shell(
        "{not json\n",
        "\n",
        INITIALIZE,
        "NaN\n",
        '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',  # the last line may lack its newline
    )
    parse_error = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    assert replies[0] == parse_error
    assert replies[1]["id"] == 1 and replies[1]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[2] == parse_error
    assert replies[3]["id"] == 2 and len(replies[3]["result"]["tools"]) == 3
    assert len(replies) == 4  # a blank line and a notification get no answer


def test_build_server_uses_the_scenario_config() -> None:
    by_id = build_server("pagination", "files")
    by_path = build_server(str(REPO / "scenarios" / "pagination.yaml"), "files")
    for server in (by_id, by_path):
        assert server.config.name == "file-server"
        assert server.config.page_size == 3
        assert [t["name"] for t in server.tools] == FILE_TOOLS
    with pytest.raises(UnknownServer):
        build_server("pagination", "nope")
    with pytest.raises(FileNotFoundError):
        build_server("no-such-scenario", "files")


def test_cli_mcp_server_refuses_unknown_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["mcp-server", "pagination", "--server", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout belongs to MCP messages only
    assert "has no server 'nope'" in captured.err
