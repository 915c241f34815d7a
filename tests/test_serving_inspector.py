"""The MCP Inspector CLI (npm @modelcontextprotocol/inspector 2.x) as a second real client of
`mcp-lab mcp-server`: every page over stdio, Streamable HTTP and HTTP+SSE, and a tool call.

The Inspector needs Node >= 22.19; `make test` installs it with the npm `node` package beside it
in tests/inspector (the machine's Node is 20). Its CLI makes one request per run, so it cannot
wait for a list_changed: that part is covered by the SDK tests. Over HTTP the lab's shell runs
in this process and records what the Inspector sent, which is checked against the schema.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.serving.catalog import load_served
from app.serving.conversations import Exchange
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from tests.test_mcp_interop import Wire

REPO = Path(__file__).resolve().parent.parent
HERE = REPO / "tests" / "inspector"
NODE = HERE / "node_modules" / ".bin" / "node"
LAUNCHER = (
    HERE / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher"
    / "build" / "index.js"
)  # fmt: skip

pytestmark = pytest.mark.skipif(
    not (NODE.exists() and LAUNCHER.exists()), reason="run `make inspector` first"
)


def inspector(tmp_path: Path, *args: str, tool_error: bool = False) -> dict[str, Any]:
    """Run the Inspector's CLI mode; its JSON answer (it exits non-zero on an isError result)."""
    done = subprocess.run(
        [str(NODE), str(LAUNCHER), "--cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "MCP_CATALOG_PATH": str(tmp_path / "c.json"),
        },
    )
    assert (done.returncode != 0) is tool_error, done.stderr + done.stdout
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@contextmanager
def served(scenario: str, server: str) -> Iterator[tuple[str, list[Exchange]]]:
    endpoint = McpEndpoint(load_served(scenario, server))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    seen: list[Exchange] = []
    endpoint.observers.append(seen.append)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{shell.port}", seen
    finally:
        shell.stop()
        thread.join(5)


def assert_server_valid(wire: Wire) -> None:
    """Everything the lab's server sent is valid for the version; the Inspector's own messages
    are its business (2.x sends capabilities.extensions, which 2025-11-25 does not have)."""
    assert wire.messages
    assert [p for p in wire.problems() if p.split(" ", 2)[1] == "server"] == []


def names(result: dict[str, Any]) -> list[str]:
    return [t["name"] for t in result["tools"]]


def wire_of(seen: list[Exchange]) -> Wire:
    versions = {e.version for e in seen if e.version}
    assert len(versions) == 1, versions
    wire = Wire(versions.pop())
    for exchange in seen:
        wire.record("client" if exchange.sender == "client" else "server", exchange.message)
    return wire


def test_inspector_lists_every_page_over_stdio(tmp_path: Path) -> None:
    result = inspector(
        tmp_path,
        "--method", "tools/list", "--",
        sys.executable, "-m", "app.cli", "mcp-server", "pagination", "--server", "files",
    )  # fmt: skip
    assert names(result) == [
        "read_file",
        "write_file",
        "list_directory",
        "move_file",
        "delete_file",
        "file_info",
        "search_files",
        "fulltext_search",
    ]  # eight tools, three per page: the Inspector followed both cursors
    assert "nextCursor" not in result


def test_inspector_over_streamable_http_lists_and_calls(tmp_path: Path) -> None:
    with served("list-changed-add", "orders") as (base, seen):
        listed = inspector(tmp_path, f"{base}/mcp", "--method", "tools/list")
        called = inspector(
            tmp_path,
            f"{base}/mcp",
            "--method", "tools/call", "--tool-name", "read_order", "--tool-arg", "order_id=517",
            tool_error=True,
        )  # fmt: skip
    assert names(listed) == ["read_order", "list_orders"]
    # The Inspector sends 517 as a number although the schema says string: from 2025-11-25 an
    # argument that does not fit the inputSchema is a tool error the model can read and correct.
    (version,) = {e.version for e in seen if e.version}
    assert version == "2025-11-25"
    assert called["isError"] is True
    assert "order_id" in called["content"][0]["text"]
    assert "string" in called["content"][0]["text"]
    clients = {json.dumps(e.client, sort_keys=True) for e in seen if e.client}
    assert clients and all("name" in json.loads(c) for c in clients)  # it named itself
    assert_server_valid(wire_of([e for e in seen if e.conversation == seen[-1].conversation]))


def test_inspector_over_http_sse(tmp_path: Path) -> None:
    with served("collisions", "drive") as (base, seen):
        listed = inspector(tmp_path, f"{base}/sse", "--method", "tools/list")
    assert names(listed) == ["upload", "search", "share.link"]
    assert any(e.transport == "http+sse" for e in seen)
    assert_server_valid(wire_of(seen))
