"""Protocol behaviour a review found off, now as the spec has it.

Invalid tool arguments are a protocol error (-32602) up to 2025-06-18 and an `isError` result
from 2025-11-25 (SEP-1303), whatever the transport; JSON-RPC batches are taken by a 2025-03-26
session (stdio and HTTP) and by no other version. Every answer is checked against the official
schema of its version.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from app.mcp import versions
from app.mcp.jsonrpc import Message
from app.mcp.schemas import check_message
from app.mcp.server import MCPServer
from app.serving.stdio_server import build_server, serve_stdio
from tests.pair import initialize_request


def opened(version: str) -> MCPServer:
    server = build_server("pagination", "files")
    if versions.era_of(version) is versions.Era.LEGACY:
        server.receive(initialize_request(version))
        server.receive({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return server


def call(server: MCPServer, version: str, arguments: dict[str, Any]) -> Message:
    params: dict[str, Any] = {"name": "read_file", "arguments": arguments}
    if versions.era_of(version) is versions.Era.MODERN:
        params["_meta"] = {
            versions.META_VERSION: version,
            versions.META_CLIENT_CAPABILITIES: {},
        }
    (reply,) = server.receive({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    assert check_message(reply, version, sender="server", request_method="tools/call") == []
    return reply


@pytest.mark.parametrize("version", versions.VERSIONS)
@pytest.mark.parametrize("arguments", [{}, {"path": 5}], ids=["missing", "wrong-type"])
def test_invalid_arguments_by_version(version: str, arguments: dict[str, Any]) -> None:
    server = opened(version)
    reply = call(server, version, arguments)
    if versions.at_least(version, "2025-11-25"):
        assert reply["result"]["isError"] is True
        assert reply["result"]["content"][0]["text"].startswith("Invalid arguments for read_file")
    else:
        assert reply["error"]["code"] == -32602
        assert "read_file" in reply["error"]["message"]
    good = call(server, version, {"path": "notes.txt"})
    assert good["result"]["isError"] is False


def shell(*lines: str) -> list[Any]:
    out = io.StringIO()
    serve_stdio(build_server("pagination", "files"), io.StringIO("".join(lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def init_line(version: str) -> str:
    return json.dumps(initialize_request(version)) + "\n"


INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
BATCH = (
    '[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"},'
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]\n'
)


def test_a_2025_03_26_stdio_session_answers_a_batch_with_one_array() -> None:
    _, batch_reply = shell(init_line("2025-03-26"), INITIALIZED, BATCH)
    assert isinstance(batch_reply, list)
    assert [r["id"] for r in batch_reply] == [2, 3]
    assert len(batch_reply[0]["result"]["tools"]) == 3
    for reply, method in zip(batch_reply, ["tools/list", "ping"], strict=True):
        assert check_message(reply, "2025-03-26", sender="server", request_method=method) == []


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_other_versions_refuse_batches(version: str) -> None:
    _, refused = shell(init_line(version), INITIALIZED, BATCH)
    assert refused["error"]["code"] == -32600
    assert "2025-03-26" in refused["error"]["message"]


def test_initialize_is_never_part_of_a_batch() -> None:
    _, replies = shell(
        init_line("2025-03-26"), INITIALIZED, "[" + init_line("2025-03-26")[:-1] + "]\n"
    )
    assert replies[0]["error"]["code"] == -32600
