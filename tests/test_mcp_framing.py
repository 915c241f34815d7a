"""The codec: one table of messages framed for each transport, checked in both directions."""

from __future__ import annotations

import pytest

from app.mcp import framing, http
from app.mcp.schemas import check_message
from tests.pair import initialize_request

MESSAGES = [
    initialize_request("2025-06-18"),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": "a-1", "method": "tools/list", "params": {"cursor": ""}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "tools": [
                {
                    "name": "读取文件",
                    "description": "line\nbreak 🙂",
                    "inputSchema": {"type": "object"},
                }
            ],
            "nextCursor": "x",
        },
    },
    {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Invalid cursor"}},
    {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
]


@pytest.mark.parametrize("message", MESSAGES)
@pytest.mark.parametrize("from_client", [True, False])
def test_stdio_frames_are_one_line_and_decode_back(message, from_client):
    frame = framing.stdio_frame(message, from_client=from_client)
    assert frame.text.endswith("\n") and frame.text.count("\n") == 1
    assert frame.channel == ("stdin" if from_client else "stdout")
    assert framing.parse_stdio(frame.text) == [message]
    # and the other way: the literal line encodes to the same bytes
    assert framing.stdio_frame(framing.parse_stdio(frame.text)[0], from_client=from_client) == frame


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("message", [m for m in MESSAGES if "method" in m])
def test_http_posts_decode_back_to_the_message(version, message):
    link = framing.HttpLink("files", version)
    link.negotiated = True
    frame = link.client_message(message)
    start, headers, body = framing.parse_http_request(frame.text)
    assert start == "POST /mcp HTTP/1.1"
    assert body == message
    assert int(headers["Content-Length"]) == len(framing.encode_json(message).encode())
    if version == "2026-07-28" and message["method"] == "initialize":
        # initialize on a modern link is a client falling back to legacy: framed as legacy
        assert "Mcp-Method" not in headers and link.version == message["params"]["protocolVersion"]
    elif version == "2026-07-28":
        assert headers["Mcp-Method"] == message["method"]
        assert headers["MCP-Protocol-Version"] == version
    elif version in ("2025-06-18", "2025-11-25"):
        assert headers["MCP-Protocol-Version"] == version
    else:
        assert "MCP-Protocol-Version" not in headers
    is_request = "id" in message
    assert (frame.reply is None) == is_request


def test_a_session_id_is_issued_with_the_initialize_result_and_echoed_after():
    link = framing.HttpLink("files", "2025-11-25")
    result = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}
    status, headers, messages = framing.parse_http_response(
        link.server_message(result, answers="initialize").text
    )
    assert status == 200 and messages == [result]
    session = headers["MCP-Session-Id"]
    link.negotiated = True
    _, request_headers, _ = framing.parse_http_request(link.client_message(MESSAGES[2]).text)
    assert request_headers["MCP-Session-Id"] == session


def test_modern_http_has_no_session_and_names_the_tool_in_a_header():
    link = framing.HttpLink("files", "2026-07-28")
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "read_file"}}
    _, headers, _ = framing.parse_http_request(link.client_message(call).text)
    assert headers["Mcp-Name"] == "read_file"
    assert not any(h.lower() == "mcp-session-id" for h in headers)
    error = {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32022, "message": "Unsupported protocol version"},
    }
    status, _, _ = framing.parse_http_response(
        link.server_message(error, answers="tools/call").text
    )
    assert status == 400


def test_modern_notifications_travel_on_the_listen_stream_as_sse():
    link = framing.HttpLink("files", "2026-07-28")
    ack = {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 2}, "notifications": {}},
    }
    first = link.server_message(ack, stream=2)
    status, headers, messages = framing.parse_http_response(first.text)
    assert status == 200 and headers["Content-Type"] == "text/event-stream" and messages == [ack]
    assert headers["Transfer-Encoding"] == "chunked"  # a stream has no length: it is chunked
    later = link.server_message(MESSAGES[-1], stream=2)
    size, _, chunk = later.text.partition("\r\n")  # the next chunk of the same response
    assert int(size, 16) == len(chunk.removesuffix("\r\n").encode())
    assert chunk.startswith("event: message\ndata: ")
    assert framing.parse_http_response(first.text + later.text)[2] == [ack, MESSAGES[-1]]


def test_legacy_streamable_http_events_carry_ids_for_resumption():
    link = framing.HttpLink("files", "2025-06-18")
    event = framing.parse_sse(link.server_message(MESSAGES[-1]).text)[0]
    assert event["id"] and event["event"] == "message"


def test_http_sse_2024_opens_the_stream_first_and_answers_on_it():
    link = framing.HttpLink("files", "2024-11-05")
    opened = link.open_legacy_stream()
    assert opened.text.startswith("GET /sse HTTP/1.1")
    endpoint = framing.parse_sse(opened.text.split("\r\n\r\n", 2)[2])[0]
    assert endpoint["event"] == "endpoint" and endpoint["data"].startswith("/messages?session_id=")
    post = link.client_message(MESSAGES[0])
    assert post.text.startswith(f"POST {endpoint['data']} HTTP/1.1")
    assert post.reply is not None and post.reply.startswith("HTTP/1.1 202 Accepted")
    answer = link.server_message(MESSAGES[3], answers="tools/list")
    assert answer.channel == "GET /sse"
    assert framing.json.loads(framing.parse_sse(answer.text)[0]["data"]) == MESSAGES[3]


@pytest.mark.parametrize(
    ("value", "header"),
    [
        ("get_weather", "get_weather"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
    ],
)
def test_header_values_use_the_base64_sentinel_when_not_plain_ascii(value, header):
    # the spec's own examples (2026-07-28, Streamable HTTP, Value Encoding)
    assert http.header_value(value) == header
    assert http.read_header_value(header) == value


def test_a_hostile_tool_name_cannot_inject_a_header():
    link = framing.HttpLink("files", "2026-07-28")
    name = "x\r\nX-Evil: 1"
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name}}
    _, headers, body = framing.parse_http_request(link.client_message(call).text)
    assert "X-Evil" not in headers
    assert http.read_header_value(headers["Mcp-Name"]) == name == body["params"]["name"]


def test_the_legacy_get_stream_carries_the_negotiated_version_from_2025_06_18():
    for version, expected in (("2025-03-26", None), ("2025-06-18", "2025-06-18")):
        link = framing.HttpLink("files", version)
        link.negotiated = True
        request = link.open_legacy_stream().text.split("\r\n\r\n")[0]
        _, headers, _ = framing.parse_http_request(request + "\r\n\r\n")
        assert headers.get("MCP-Protocol-Version") == expected


def test_a_legacy_server_refuses_a_sessionless_modern_probe_with_400_not_the_modern_404():
    link = framing.HttpLink("weather", "2026-07-28")
    refusal = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
    legacy = framing.parse_http_response(
        link.server_message(refusal, answers="server/discover", legacy_server=True).text
    )
    modern = framing.parse_http_response(
        link.server_message(refusal, answers="server/discover").text
    )
    assert (legacy[0], modern[0]) == (400, 404)


def test_the_session_header_is_spelled_by_the_version_the_server_negotiated():
    link = framing.HttpLink("weather", "2025-11-25")  # the client asked for 2025-11-25 ...
    result = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"protocolVersion": "2025-03-26"},
    }  # ... got this
    _, headers, _ = framing.parse_http_response(
        link.server_message(result, answers="initialize").text
    )
    assert "Mcp-Session-Id" in list(headers) and "MCP-Session-Id" not in list(headers)


SQL_TOOL = {
    "name": "execute_sql",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
        },
        "required": ["region", "query"],
    },
}


def _sql_call(arguments: dict[str, object]) -> dict[str, object]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "execute_sql", "arguments": arguments, "_meta": meta}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def _header_lines(text: str) -> list[str]:
    return text.split("\r\n\r\n")[0].split("\r\n")[1:]


def test_modern_tools_call_mirrors_annotated_arguments_after_mcp_name():
    # the spec's example: Mcp-Param-Region: us-west1, right after Mcp-Name
    call = _sql_call({"region": "us-west1", "query": "SELECT * FROM users"})
    frame = framing.HttpLink("db", "2026-07-28").client_message(call, SQL_TOOL)
    lines = _header_lines(frame.text)
    at = lines.index("Mcp-Name: execute_sql")
    assert lines[at + 1] == "Mcp-Param-Region: us-west1"
    _, _, body = framing.parse_http_request(frame.text)
    assert body == call
    assert check_message(body, "2026-07-28", sender="client") == []


def test_param_headers_are_encoded_and_omitted_when_absent_or_null():
    link = framing.HttpLink("db", "2026-07-28")
    _, headers, _ = framing.parse_http_request(
        link.client_message(_sql_call({"region": "東京", "query": "q"}), SQL_TOOL).text
    )
    assert http.read_header_value(headers["Mcp-Param-Region"]) == "東京"
    assert headers["Mcp-Param-Region"].startswith("=?base64?")
    for arguments in ({"query": "q"}, {"region": None, "query": "q"}):
        _, headers, _ = framing.parse_http_request(
            link.client_message(_sql_call(arguments), SQL_TOOL).text
        )
        assert not any(h.startswith("Mcp-Param-") for h in headers)


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_legacy_http_sends_no_param_headers(version):
    link = framing.HttpLink("db", version)
    link.negotiated = True
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    call["params"] = {"name": "execute_sql", "arguments": {"region": "us-west1"}}
    _, headers, _ = framing.parse_http_request(link.client_message(call, SQL_TOOL).text)
    assert not any(h.startswith("Mcp-") and h != "Mcp-Session-Id" for h in headers)


def test_a_tool_with_an_invalid_annotation_is_never_framed():
    bad = {
        "name": "execute_sql",
        "inputSchema": {
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "X\r\nEvil"}},
        },
    }
    with pytest.raises(ValueError, match="control characters"):
        framing.HttpLink("db", "2026-07-28").client_message(_sql_call({"region": "a"}), bad)


def test_a_tools_list_result_with_annotations_is_schema_valid():
    result = {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "resultType": "complete",
            "tools": [SQL_TOOL],
            "ttlMs": 0,
            "cacheScope": "public",
        },
    }
    assert check_message(result, "2026-07-28", sender="server", request_method="tools/list") == []


def test_resources_read_names_its_uri_in_mcp_name():
    link = framing.HttpLink("files", "2026-07-28")
    read = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "resources/read",
        "params": {"uri": "file:///projects/myapp/config.json"},
    }
    _, headers, _ = framing.parse_http_request(link.client_message(read).text)
    assert headers["Mcp-Name"] == "file:///projects/myapp/config.json"
