"""The simulated server: handshake answers, pages and cursors, errors, list_changed rules."""

from __future__ import annotations

import pytest

from app.mcp import versions
from app.mcp.server import MCPServer, ServerConfig, ServerPhase, shape_tool
from tests.pair import initialize_request, tools

META = {
    versions.META_VERSION: "2026-07-28",
    versions.META_CLIENT_INFO: {"name": "t", "version": "1"},
    versions.META_CLIENT_CAPABILITIES: {},
}


def initialized(server: MCPServer, version: str = "2025-11-25") -> MCPServer:
    server.receive(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    )
    server.receive({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return server


def list_page(server: MCPServer, cursor: str | None = None, request_id: int = 2) -> dict:
    params = {} if cursor is None else {"cursor": cursor}
    [reply] = server.receive(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}
    )
    return reply


def test_server_echoes_a_supported_version_and_counter_offers_otherwise():
    old = MCPServer(ServerConfig("old", supported_versions=("2024-11-05", "2025-03-26")))
    [echo] = MCPServer(ServerConfig("any")).receive(initialize_request("2025-06-18"))
    [counter] = old.receive(initialize_request("2025-11-25"))
    assert echo["result"]["protocolVersion"] == "2025-06-18"
    assert counter["result"]["protocolVersion"] == "2025-03-26"
    assert "error" not in counter


def test_pages_follow_the_server_page_size_and_end_without_next_cursor():
    server = initialized(MCPServer(ServerConfig("s", tools=tools(*"abcdefg"), page_size=3)))
    names, cursor, pages = [], None, 0
    while True:
        result = list_page(server, cursor)["result"]
        pages += 1
        names += [t["name"] for t in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == list("abcdefg") and pages == 3


@pytest.mark.parametrize("cursor", ["bogus", "", "page-2", "eyJyIjoxLCJvIjo5OX0"])
def test_an_invalid_cursor_is_answered_with_invalid_params(cursor):
    server = initialized(MCPServer(ServerConfig("s", tools=tools("a", "b"), page_size=1)))
    reply = list_page(server, cursor)
    assert reply["error"]["code"] == -32602


def test_unknown_tool_is_invalid_params_not_method_not_found():
    server = initialized(MCPServer(ServerConfig("s", tools=tools("a"))))
    [reply] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "nope", "arguments": {}},
        }
    )
    assert reply["error"]["code"] == -32602
    [unknown_method] = server.receive({"jsonrpc": "2.0", "id": 6, "method": "prompts/list"})
    assert unknown_method["error"]["code"] == -32601


def test_a_failing_tool_is_an_is_error_result():
    server = initialized(
        MCPServer(ServerConfig("s", tools=tools("a"), failing_tools=frozenset({"a"})))
    )
    [reply] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "a", "arguments": {}},
        }
    )
    assert reply["result"]["isError"] is True


def test_list_changed_is_sent_only_when_declared():
    quiet = initialized(MCPServer(ServerConfig("s", tools=tools("a"), list_changed=False)))
    loud = initialized(MCPServer(ServerConfig("s", tools=tools("a"), list_changed=True)))
    assert quiet.add_tool(tools("b")[0]) == []
    assert loud.add_tool(tools("b")[0]) == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    ]
    assert loud.remove_tool("b") and loud.update_tool(
        "a", {"inputSchema": {"type": "object", "required": ["x"]}}
    )


def test_modern_list_changed_goes_only_to_listen_streams_that_asked():
    server = MCPServer(ServerConfig("s", tools=tools("a"), list_changed=True))
    assert server.add_tool(tools("b")[0]) == []  # no stream open yet: nobody to tell
    [ack] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": "listen-1",
            "method": "subscriptions/listen",
            "params": {"_meta": META, "notifications": {"toolsListChanged": True}},
        }
    )
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"toolsListChanged": True}
    [note] = server.add_tool(tools("c")[0])
    assert note["params"]["_meta"][versions.META_SUBSCRIPTION_ID] == "listen-1"


def test_modern_requests_need_meta_and_a_supported_version():
    server = MCPServer(ServerConfig("s", tools=tools("a")))
    [missing] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/list",
            "params": {"_meta": {versions.META_VERSION: "2026-07-28"}},
        }
    )
    [future] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "server/discover",
            "params": {"_meta": {**META, versions.META_VERSION: "2027-01-01"}},
        }
    )
    [ok] = server.receive(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": META}}
    )
    assert missing["error"]["code"] == -32602
    assert future["error"]["code"] == -32022
    assert future["error"]["data"]["requested"] == "2027-01-01"
    assert "2027-01-01" not in future["error"]["data"]["supported"]
    assert ok["result"]["resultType"] == "complete"
    assert {"ttlMs", "cacheScope"} <= set(ok["result"])


def test_a_legacy_only_server_does_not_know_server_discover():
    server = MCPServer(ServerConfig("s", supported_versions=("2024-11-05",)))
    [reply] = server.receive(
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}
    )
    assert reply["error"]["code"] == -32601
    assert server.phase is ServerPhase.AWAITING_INITIALIZE


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_tools_are_shaped_to_the_fields_their_version_has(version):
    rich = {
        "name": "t",
        "title": "T",
        "description": "d",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
        "icons": [{"src": "x"}],
        "execution": {"taskSupport": "optional"},
    }
    assert set(shape_tool(rich, version)) == set(rich) & versions.tool_fields(version)


def test_pages_are_deterministic():
    a = initialized(MCPServer(ServerConfig("s", tools=tools(*"abcde"), page_size=2)))
    b = initialized(MCPServer(ServerConfig("s", tools=tools(*"abcde"), page_size=2)))
    assert list_page(a) == list_page(b)


def test_a_legacy_session_stays_legacy_when_a_modern_request_arrives():
    server = initialized(MCPServer(ServerConfig("s", tools=tools("a"))))
    [reply] = server.receive(
        {"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {"_meta": META}}
    )
    assert reply["error"]["code"] == -32601
    assert server.phase is ServerPhase.OPERATING


def test_structured_content_conforms_to_the_tools_output_schema():
    import jsonschema

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "celsius": {"type": "number"},
            "alerts": {"type": "array", "items": {"type": "string"}},
            "level": {"enum": ["low", "high"]},
        },
        "required": ["city", "celsius"],
    }
    tool = {"name": "get_weather", "inputSchema": {"type": "object"}, "outputSchema": schema}
    server = initialized(MCPServer(ServerConfig("s", tools=(tool,))), "2025-06-18")
    [reply] = server.receive(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_weather"}}
    )
    jsonschema.validate(reply["result"]["structuredContent"], schema)
    old = initialized(MCPServer(ServerConfig("s", tools=(tool,))), "2025-03-26")
    [legacy] = old.receive(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_weather"}}
    )
    assert "structuredContent" not in legacy["result"]


def test_discover_and_minus_32022_name_the_same_supported_versions():
    server = MCPServer(ServerConfig("s", supported_versions=("2025-11-25", "2026-07-28")))
    [found] = server.receive(
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}
    )
    [refused] = server.receive(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "server/discover",
            "params": {"_meta": {**META, versions.META_VERSION: "1900-01-01"}},
        }
    )
    assert found["result"]["supportedVersions"] == refused["error"]["data"]["supported"]
    assert refused["error"]["data"]["supported"] == ["2026-07-28"]
