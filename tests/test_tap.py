"""`mcp-lab tap` between real clients and real servers: the official SDK client (legacy and
2026-07-28) through the tap to `mcp-lab mcp-server` (changes on demand) and to a server built on
the SDK, over stdio and HTTP. The client sees byte-identical answers with and without the tap;
every message is recorded as steps of both sides; the report card is right for a host that
lists again after list_changed and for one built to ignore list_changed and page 2.

stdio runs the tap as the SDK's stdio client runs any server (a child process, which starts the
real server as its own child); HTTP runs the servers and the tap in threads of this process.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from app.serving.catalog import load_served
from app.tap.report import report_json
from tests.tap_peers import (
    LAB_SERVER,
    REPO,
    card,
    careful_legacy,
    careless_legacy,
    careless_modern,
    http_conversation,
    lab_http,
    said,
    sdk_http,
    stdio_conversation,
    tap_command,
    tapped,
    told,
    walk,
    walk_modern,
)
from tests.test_engine_step import problems as schema_problems

TIMEOUT_S = 20
CATALOG = [t["name"] for t in load_served("pagination", "files").tools]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _cursor(answers: list[dict[str, Any]]) -> dict[str, Any]:
    cursor = answers[-1]["result"]["nextCursor"]
    return {"jsonrpc": "2.0", "id": len(answers) + 1, "method": "tools/list",
            "params": {"cursor": cursor}}  # fmt: skip


LEGACY_SCRIPT: list[Any] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-host", "version": "1.0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    _cursor,
    b"this line is not JSON\n",
    b"[" * 5000 + b"\n",  # within the size bound, beyond the depth bound: refused, not parsed
    {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
     "params": {"name": "read_file", "arguments": {"path": "a.txt"}}},
]  # fmt: skip


def test_stdio_tap_passes_every_byte_and_notes_what_it_cannot_read(tmp_path: Path) -> None:
    report, trace = tmp_path / "card.json", tmp_path / "trace.jsonl"
    direct = stdio_conversation(LAB_SERVER, LEGACY_SCRIPT)
    flags = ("--format", "json", "--report", str(report), "--trace", str(trace))
    through = stdio_conversation(tap_command(*flags) + LAB_SERVER, LEGACY_SCRIPT)
    assert through == direct  # stdout carried the server's bytes and nothing else
    assert b"Parse error" in direct
    result = json.loads(report.read_text())
    (session,) = result["sessions"]
    assert session["client"] == {"name": "raw-host", "version": "1.0"}
    assert session["transport"] == "stdio" and session["protocolVersion"] == "2025-11-25"
    # The host stopped after page 2 of 3 and called a tool: one warning, its sentence quoted.
    assert card(result) == {"handshake": "pass", "early-requests": "pass", "all-pages": "warn",
                            "known-tools": "pass", "cancel": "pass"}  # fmt: skip
    assert "stopped after page 2 with a nextCursor, then called read_file" in said(
        result, "all-pages"
    )
    warning = next(c for c in session["checks"] if c["id"] == "all-pages")
    assert (
        warning["spec"]["text"]
        == "Clients SHOULD: Treat a missing nextCursor as the end of results"
    )
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    assert schema_problems(steps) == []
    wire = [s for s in steps if s["message"] is not None]
    assert [s["from"] for s in wire[:2]] == ["client:upstream", "server:upstream"]
    assert wire[0]["frame"].startswith('{"jsonrpc": "2.0", "id": 1, "method": "initialize"')
    unread = [s for s in steps if s["kind"] == "internal"]
    assert [s["frame"][:25] for s in unread] == ["this line is not JSON\n", "[" * 25]
    assert unread[0]["narration"]["en"].endswith("could not read. It is not JSON.")
    assert unread[1]["narration"]["en"].endswith(
        "It nests deeper than 64 levels, so the tap does not parse it."
    )
    assert "64" in unread[1]["narration"]["zh"] and "64" in unread[1]["narration"]["ru"]
    assert session["unread"] == [
        "from the client: It is not JSON.",
        "from the client: It nests deeper than 64 levels, so the tap does not parse it.",
    ]
    assert result["notes"] == []  # no stream the tap stopped reading


def _tap_pid() -> int:
    """The tap this test process started (the SDK's stdio client's child)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"\0tap\0" in cmdline:
                return int(entry)
    raise AssertionError("no tap running")


def _stdio(report: Path) -> StdioServerParameters:
    command = [*tap_command("--format", "json", "--report", str(report)), *LAB_SERVER]
    return StdioServerParameters(
        command=command[0], args=[*command[1:], "--change-every", "3600"], cwd=REPO
    )


def _change_through_tap() -> None:
    os.kill(_tap_pid(), signal.SIGUSR1)  # the tap hands it to the served server: change now


def _report(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.read_text())
    return result


@pytest.mark.anyio
async def test_sdk_legacy_client_over_stdio_lists_again_and_passes(tmp_path: Path) -> None:
    report = tmp_path / "card.json"
    changed = anyio.Event()
    async with (
        stdio_client(_stdio(report)) as (read, write),
        ClientSession(read, write, message_handler=told(changed)) as session,
    ):
        with anyio.fail_after(TIMEOUT_S):
            before, after = await careful_legacy(session, changed, _change_through_tap)
    assert before == CATALOG and after == [*CATALOG, "lab_extra_1"]
    result = _report(report)
    assert card(result) == {"handshake": "pass", "early-requests": "pass", "all-pages": "pass",
                            "relist": "pass", "cancel": "pass"}  # fmt: skip
    assert said(result, "relist").startswith("listed again ")
    assert said(result, "relist").endswith(" ms after 1 list_changed")


@pytest.mark.anyio
async def test_sdk_modern_client_that_ignores_page_2_and_list_changed_over_stdio(
    tmp_path: Path,
) -> None:
    report = tmp_path / "card.json"
    async with Client(stdio_client(_stdio(report))) as client:
        with anyio.fail_after(TIMEOUT_S):
            assert client.protocol_version == "2026-07-28"
            text = await careless_modern(client, _change_through_tap)
    assert "read_file" in text
    result = _report(report)
    assert result["sessions"][0]["protocolVersion"] == "2026-07-28"
    assert card(result) == {"handshake": "pass", "request-meta": "pass", "all-pages": "warn",
                            "relist": "note", "known-tools": "pass", "cancel": "pass"}  # fmt: skip
    assert "called read_file on the old list" in said(result, "relist")
    relist = next(c for c in result["sessions"][0]["checks"] if c["id"] == "relist")
    assert relist["spec"]["version"] == "2026-07-28"
    assert relist["spec"]["page"].endswith("/2026-07-28/server/utilities/caching")


# --------------------------------------------------------------------------- HTTP

HTTP_SCRIPT = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-host", "version": "1.0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
     "params": {"name": "read_file", "arguments": {"path": "a.txt"}}},
]  # fmt: skip


def test_http_tap_answers_are_byte_identical() -> None:
    with lab_http() as shell:
        upstream = f"http://127.0.0.1:{shell.port}"
        direct = http_conversation(upstream, HTTP_SCRIPT)
        with tapped(upstream + "/mcp") as (base, log):
            through = http_conversation(base, HTTP_SCRIPT)
    assert through == direct
    assert [answer[0] for answer in direct] == [200, 202, 200, 200]
    assert ("Content-Type", "application/json") in direct[2][1]
    (session,) = log.sessions.values()
    assert [s["method"] for s in session.steps] == [
        "initialize", "initialize", "notifications/initialized", "tools/list", "tools/list",
        "tools/call", "tools/call",
    ]  # fmt: skip
    assert session.steps[1]["frame"].startswith("HTTP/1.1 200")
    assert schema_problems(session.steps) == []


@pytest.mark.anyio
async def test_sdk_modern_client_over_http_lists_again_and_passes() -> None:
    with lab_http() as shell, tapped(f"http://127.0.0.1:{shell.port}/mcp") as (base, log):
        async with Client(base + "/mcp") as client:
            with anyio.fail_after(TIMEOUT_S):
                before = await walk_modern(client)
                async with client.listen(tools_list_changed=True) as subscription:
                    shell.request_change()
                    async for _ in subscription:
                        break
                after = await walk_modern(client)
        result = report_json(log)
    assert before == CATALOG and after == [*CATALOG, "lab_extra_1"]
    assert card(result) == {"handshake": "pass", "request-meta": "pass", "all-pages": "pass",
                            "relist": "pass", "cancel": "pass"}  # fmt: skip
    (session,) = log.sessions.values()
    assert schema_problems(session.steps) == []


@pytest.mark.anyio
async def test_sdk_legacy_client_that_ignores_page_2_and_list_changed_over_http() -> None:
    with lab_http() as shell, tapped(f"http://127.0.0.1:{shell.port}/mcp") as (base, log):
        changed = anyio.Event()
        async with (
            streamable_http_client(base + "/mcp") as (read, write, *_),
            ClientSession(read, write, message_handler=told(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await careless_legacy(session, changed, shell.request_change)
        result = report_json(log)
    assert card(result) == {"handshake": "pass", "early-requests": "pass", "all-pages": "warn",
                            "relist": "note", "known-tools": "pass", "cancel": "pass"}  # fmt: skip
    # Legacy versions have no rule for it: a note, with the sentence of that version.
    relist = next(c for c in result["sessions"][0]["checks"] if c["id"] == "relist")
    assert relist["spec"]["version"] == "2025-11-25" and "listChanged" in relist["spec"]["text"]


@pytest.mark.anyio
async def test_sdk_client_through_http_tap_to_an_sdk_server() -> None:
    with sdk_http("clean") as url:
        async with (
            streamable_http_client(url) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            direct = await walk(session)
        with tapped(url) as (base, log):
            async with (
                streamable_http_client(base + "/mcp") as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(TIMEOUT_S):
                    await session.initialize()
                    through = await walk(session)
            result = report_json(log)
    assert through == direct == [f"tool_{i}" for i in range(5)]
    assert set(card(result).values()) == {"pass"}


@pytest.mark.anyio
async def test_sdk_modern_client_over_stdio_to_an_sdk_server(tmp_path: Path) -> None:
    server = [sys.executable, "-m", "tests.sdk_probe_server", "clean"]
    async with Client(stdio_client(StdioServerParameters(command=server[0], args=server[1:],
                                                         cwd=REPO))) as client:  # fmt: skip
        direct = await walk_modern(client)
    report = tmp_path / "card.json"
    command = [*tap_command("--format", "json", "--report", str(report)), *server]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=REPO)
    async with Client(stdio_client(params)) as client:
        with anyio.fail_after(TIMEOUT_S):
            through = await walk_modern(client)
    assert through == direct == [f"tool_{i}" for i in range(5)]
    result = _report(report)
    assert result["sessions"][0]["protocolVersion"] == "2026-07-28"
    assert set(card(result).values()) == {"pass"}


@pytest.mark.anyio
async def test_sdk_client_over_http_sse_through_the_tap() -> None:
    with lab_http() as shell, tapped(f"http://127.0.0.1:{shell.port}/mcp") as (base, log):
        changed = anyio.Event()
        async with (
            sse_client(base + "/sse") as (read, write),
            ClientSession(read, write, message_handler=told(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                before, after = await careful_legacy(session, changed, shell.request_change)
        result = report_json(log)
    assert before == CATALOG and after == [*CATALOG, "lab_extra_1"]
    assert result["sessions"][0]["transport"] == "http+sse"
    assert card(result)["relist"] == "pass" and card(result)["all-pages"] == "pass"
