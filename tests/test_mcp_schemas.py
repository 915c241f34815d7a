"""app.mcp.schemas: messages checked against the official schema of their protocol version."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from app.mcp.schemas import check_message, is_valid, tool_name_problems

LEGACY = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
EXAMPLES = Path(__file__).parent / "data" / "mcp-examples" / MODERN

# sha256 of schema/<v>/schema.json at modelcontextprotocol/modelcontextprotocol b0f60ba5.
PINNED_SHA256 = {
    "2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
    "2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
    "2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
    "2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
    "2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "lab-client", "version": "0.1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
SEARCH_TOOL = {
    "name": "search",
    "description": "Search the catalog",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}


def legacy_table(version: str) -> list[tuple[str, dict[str, Any], str, str | None]]:
    """(what, message, sender, request_method) valid in every legacy version."""
    return [
        (
            "initialize",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {"roots": {"listChanged": True}},
                    "clientInfo": {"name": "lab-client", "version": "0.1.0"},
                },
            },
            "client",
            None,
        ),
        (
            "initialize result",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": True}},
                    "serverInfo": {"name": "lab-server", "version": "1.0.0"},
                    "instructions": "Call search first.",
                },
            },
            "server",
            "initialize",
        ),
        ("initialized", {"jsonrpc": "2.0", "method": "notifications/initialized"}, "client", None),
        ("tools/list", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, "client", None),
        (
            "tools/list with cursor",
            {"jsonrpc": "2.0", "id": "3", "method": "tools/list", "params": {"cursor": "p2"}},
            "client",
            None,
        ),
        (
            "paginated tools/list result",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {
                    "tools": [
                        SEARCH_TOOL,
                        {"name": "fs.read-file_2", "inputSchema": {"type": "object"}},
                    ],
                    "nextCursor": "p2",
                },
            },
            "server",
            "tools/list",
        ),
        (
            "last page",
            {"jsonrpc": "2.0", "id": "3", "result": {"tools": []}},
            "server",
            "tools/list",
        ),
        (
            "list_changed",
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
            "server",
            None,
        ),
        (
            "tools/call",
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"q": "mcp"}},
            },
            "client",
            None,
        ),
        (
            "tools/call result",
            {
                "jsonrpc": "2.0",
                "id": 4,
                "result": {"content": [{"type": "text", "text": "3 hits"}], "isError": False},
            },
            "server",
            "tools/call",
        ),
        (
            "unknown tool error",
            {
                "jsonrpc": "2.0",
                "id": 5,
                "error": {"code": -32602, "message": "Unknown tool: nope"},
            },
            "server",
            "tools/call",
        ),
        ("ping from the server", {"jsonrpc": "2.0", "id": 6, "method": "ping"}, "server", None),
        ("ping result", {"jsonrpc": "2.0", "id": 6, "result": {}}, "client", "ping"),
    ]


MODERN_TABLE: list[tuple[str, dict[str, Any], str, str | None]] = [
    (
        "server/discover",
        {"jsonrpc": "2.0", "id": "d1", "method": "server/discover", "params": {"_meta": META}},
        "client",
        None,
    ),
    (
        "discover result",
        {
            "jsonrpc": "2.0",
            "id": "d1",
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": True}},
                "instructions": "Call search first.",
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {"name": "lab-server", "version": "1.0.0"}
                },
                "ttlMs": 3600000,
                "cacheScope": "public",
            },
        },
        "server",
        "server/discover",
    ),
    (
        "tools/list with _meta and cursor",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/list",
            "params": {"_meta": META, "cursor": ""},
        },
        "client",
        None,
    ),
    (
        "tools/list result with resultType, ttlMs, cacheScope",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "resultType": "complete",
                "tools": [
                    {**SEARCH_TOOL, "title": "Search", "annotations": {"readOnlyHint": True}},
                    {
                        "name": "lookup",
                        "inputSchema": {
                            "type": "object",
                            "oneOf": [{"required": ["id"]}, {"required": ["slug"]}],
                        },
                    },
                ],
                "nextCursor": "p2",
                "ttlMs": 60000,
                "cacheScope": "private",
            },
        },
        "server",
        "tools/list",
    ),
    (
        "subscriptions/listen",
        {
            "jsonrpc": "2.0",
            "id": "listen-1",
            "method": "subscriptions/listen",
            "params": {"_meta": META, "notifications": {"toolsListChanged": True}},
        },
        "client",
        None,
    ),
    (
        "acknowledged",
        {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
                "notifications": {"toolsListChanged": True},
            },
        },
        "server",
        None,
    ),
    (
        "list_changed with subscriptionId",
        {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}},
        },
        "server",
        None,
    ),
    (
        "listen stream closed",
        {
            "jsonrpc": "2.0",
            "id": "listen-1",
            "result": {
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
            },
        },
        "server",
        "subscriptions/listen",
    ),
    (
        "tools/call result",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {"resultType": "complete", "content": [{"type": "text", "text": "3 hits"}]},
        },
        "server",
        "tools/call",
    ),
    (
        "tools/call answered with input_required",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {"resultType": "input_required", "requestState": "eyJzdGVwIjoxfQ"},
        },
        "server",
        "tools/call",
    ),
    (
        "unsupported version -32022",
        {
            "jsonrpc": "2.0",
            "id": "d1",
            "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"},
            },
        },
        "server",
        "server/discover",
    ),
    (
        "initialize refused by a modern server",
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}},
        "server",
        "initialize",
    ),
]


@pytest.mark.parametrize(
    ("version", "message", "sender", "request_method"),
    [
        pytest.param(version, *row[1:], id=f"{version}-{row[0]}")
        for version in LEGACY
        for row in legacy_table(version)
    ],
)
def test_valid_legacy_messages_pass_in_every_legacy_version(
    version: str, message: dict[str, Any], sender: str, request_method: str | None
) -> None:
    assert check_message(message, version, sender=sender, request_method=request_method) == []


@pytest.mark.parametrize(
    ("message", "sender", "request_method"),
    [pytest.param(*row[1:], id=row[0]) for row in MODERN_TABLE],
)
def test_valid_modern_messages_pass_in_2026(
    message: dict[str, Any], sender: str, request_method: str | None
) -> None:
    assert check_message(message, MODERN, sender=sender, request_method=request_method) == []


def _tools_result(*tools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "result": {"tools": list(tools), **extra}}


INVALID: list[tuple[str, dict[str, Any], str, str, str | None, str]] = [
    # (what, message, version, sender, request_method, a fragment the problem must contain)
    (
        "missing jsonrpc",
        {"id": 2, "method": "tools/list"},
        "2024-11-05",
        "client",
        None,
        '"jsonrpc": "2.0"',
    ),
    (
        "wrong jsonrpc",
        {"jsonrpc": "1.0", "id": 2, "method": "tools/list"},
        "2025-06-18",
        "client",
        None,
        '"jsonrpc" must be "2.0"',
    ),
    (
        "null id",
        {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
        "2025-03-26",
        "client",
        None,
        "id must not be null",
    ),
    (
        "request without id",
        {"jsonrpc": "2.0", "method": "tools/list"},
        "2024-11-05",
        "client",
        None,
        "a request must carry an id",
    ),
    (
        "response without id",
        {"jsonrpc": "2.0", "result": {"tools": []}},
        "2025-06-18",
        "server",
        "tools/list",
        "a response must carry an id",
    ),
    (
        "Tool without inputSchema",
        _tools_result({"name": "search"}),
        "2025-11-25",
        "server",
        "tools/list",
        "'inputSchema' is a required property",
    ),
    (
        "numeric nextCursor",
        _tools_result(SEARCH_TOOL, nextCursor=2),
        "2024-11-05",
        "server",
        "tools/list",
        "result.nextCursor: 2 is not of type 'string'",
    ),
    (
        "legacy-shaped tools/list under 2026",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        MODERN,
        "client",
        None,
        "'params' is a required property",
    ),
    (
        "legacy-shaped tools/list result under 2026",
        _tools_result(SEARCH_TOOL),
        MODERN,
        "server",
        "tools/list",
        "'ttlMs' is a required property",
    ),
    (
        "tools/list without protocolVersion in _meta",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
        },
        MODERN,
        "client",
        None,
        "'io.modelcontextprotocol/protocolVersion' is a required property",
    ),
    (
        "initialize under 2026",
        legacy_table(MODERN)[0][1],
        MODERN,
        "client",
        None,
        "method initialize does not exist in protocol version 2026-07-28",
    ),
    (
        "initialize result under 2026",
        legacy_table(MODERN)[1][1],
        MODERN,
        "server",
        "initialize",
        "method initialize does not exist in protocol version 2026-07-28",
    ),
    (
        "server/discover under 2025-11-25",
        {"jsonrpc": "2.0", "id": "d1", "method": "server/discover", "params": {"_meta": META}},
        "2025-11-25",
        "client",
        None,
        "method server/discover does not exist in protocol version 2025-11-25",
    ),
    (
        "list_changed sent by a client",
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        "2025-06-18",
        "client",
        None,
        "not a notification the client sends",
    ),
    (
        "notification with an id",
        {"jsonrpc": "2.0", "id": 9, "method": "notifications/initialized"},
        "2025-03-26",
        "client",
        None,
        "is a notification in protocol version 2025-03-26: it takes no id",
    ),
    (
        "Tool with title in 2024-11-05",
        _tools_result({**SEARCH_TOOL, "title": "Search"}),
        "2024-11-05",
        "server",
        "tools/list",
        "result.tools[0] (tool 'search'): field 'title' is not part of Tool",
    ),
    (
        "Tool with annotations in 2024-11-05",
        _tools_result({**SEARCH_TOOL, "annotations": {"readOnlyHint": True}}),
        "2024-11-05",
        "server",
        "tools/list",
        "field 'annotations' is not part of Tool in protocol version 2024-11-05",
    ),
    (
        "Tool with execution in 2026-07-28",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "resultType": "complete",
                "tools": [{**SEARCH_TOOL, "execution": {"taskSupport": "optional"}}],
                "ttlMs": 0,
                "cacheScope": "private",
            },
        },
        MODERN,
        "server",
        "tools/list",
        "field 'execution' is not part of Tool in protocol version 2026-07-28",
    ),
    (
        "ttlMs on a legacy tools/list result",
        _tools_result(SEARCH_TOOL, ttlMs=1000),
        "2025-11-25",
        "server",
        "tools/list",
        "result: field 'ttlMs' is not part of ListToolsResult in protocol version 2025-11-25",
    ),
    (
        "resultType on a legacy result",
        _tools_result(SEARCH_TOOL, resultType="complete"),
        "2025-06-18",
        "server",
        "tools/list",
        "field 'resultType' is not part of ListToolsResult",
    ),
    (
        "nextCursor on an initialize result",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "lab-server", "version": "1.0.0"},
                "nextCursor": "p2",
            },
        },
        "2025-06-18",
        "server",
        "initialize",
        "result: field 'nextCursor' is not part of InitializeResult",
    ),
    (
        "clientInfo title before 2025-06-18",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "lab-client", "version": "0.1.0", "title": "Lab"},
            },
        },
        "2025-03-26",
        "client",
        None,
        "params.clientInfo: field 'title' is not part of Implementation",
    ),
    (
        "server capability the version lacks",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}, "completions": {}},
                "serverInfo": {"name": "lab-server", "version": "1.0.0"},
            },
        },
        "2024-11-05",
        "server",
        "initialize",
        "field 'completions' is not part of ServerCapabilities in protocol version 2024-11-05",
    ),
    (
        "roots.listChanged in 2026 clientCapabilities",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/list",
            "params": {
                "_meta": {
                    **META,
                    "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}},
                }
            },
        },
        MODERN,
        "client",
        None,
        "field 'listChanged' is not part of ClientCapabilities.roots",
    ),
    (
        "serverInfo field the version lacks in 2026 _meta",
        {
            "jsonrpc": "2.0",
            "id": "d1",
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {},
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {
                        "name": "lab-server",
                        "version": "1.0.0",
                        "vendor": "x",
                    }
                },
                "ttlMs": 0,
                "cacheScope": "public",
            },
        },
        MODERN,
        "server",
        "server/discover",
        "field 'vendor' is not part of Implementation",
    ),
    (
        "params key the version lacks",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"page": 2}},
        "2024-11-05",
        "client",
        None,
        "params: field 'page' is not part of ListToolsRequest.params",
    ),
    (
        "tool name with a space in tools/list",
        _tools_result({**SEARCH_TOOL, "name": "web search"}),
        "2025-11-25",
        "server",
        "tools/list",
        "tool name 'web search' contains ' ' (U+0020)",
    ),
    (
        "tool name of 129 characters in tools/list",
        _tools_result({**SEARCH_TOOL, "name": "t" * 129}),
        "2025-06-18",
        "server",
        "tools/list",
        "(129 characters) is longer than the 128 characters the spec allows",
    ),
    (
        "tool name with a space in tools/call",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"_meta": META, "name": "web search", "arguments": {}},
        },
        MODERN,
        "client",
        None,
        "params.name: tool name 'web search'",
    ),
    (
        "-32022 without data",
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported"}},
        MODERN,
        "server",
        None,
        "UnsupportedProtocolVersionError: error: 'data' is a required property",
    ),
    (
        "resultType that is neither complete nor input_required",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {"resultType": "completed", "content": []},
        },
        MODERN,
        "server",
        "tools/call",
        "result.resultType: 'completed' is neither",
    ),
    (
        "input_required on tools/list",
        {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required"}},
        MODERN,
        "server",
        "tools/list",
        "tools/list cannot answer with resultType 'input_required'",
    ),
    (
        "input_required with neither inputRequests nor requestState",
        {"jsonrpc": "2.0", "id": 4, "result": {"resultType": "input_required"}},
        MODERN,
        "server",
        "tools/call",
        "an InputRequiredResult needs inputRequests or requestState",
    ),
    (
        "tools/call result without content",
        {"jsonrpc": "2.0", "id": 4, "result": {"resultType": "complete", "isError": False}},
        MODERN,
        "server",
        "tools/call",
        "CallToolResult: result: 'content' is a required property",
    ),
    (
        "neither method, result nor error",
        {"jsonrpc": "2.0", "id": 1},
        "2025-06-18",
        "server",
        None,
        "no method, result or error",
    ),
]


@pytest.mark.parametrize(
    ("message", "version", "sender", "request_method", "fragment"),
    [pytest.param(*row[1:], id=row[0]) for row in INVALID],
)
def test_invalid_messages_are_reported_with_a_problem_naming_the_cause(
    message: dict[str, Any], version: str, sender: str, request_method: str | None, fragment: str
) -> None:
    problems = check_message(message, version, sender=sender, request_method=request_method)
    assert any(fragment in problem for problem in problems), problems
    assert not is_valid(message, version, sender=sender, request_method=request_method)


def test_fields_a_version_added_pass_from_that_version_on() -> None:
    titled = _tools_result({**SEARCH_TOOL, "title": "Search", "outputSchema": {"type": "object"}})
    annotated = _tools_result({**SEARCH_TOOL, "annotations": {"title": "Search"}})
    assert check_message(titled, "2025-06-18", sender="server", request_method="tools/list") == []
    assert (
        check_message(annotated, "2025-03-26", sender="server", request_method="tools/list") == []
    )
    executing = _tools_result({**SEARCH_TOOL, "execution": {"taskSupport": "optional"}})
    assert (
        check_message(executing, "2025-11-25", sender="server", request_method="tools/list") == []
    )


# --------------------------------------------------------------------------- official examples

# Which side sends each official example, and for results the method of the request answered.
EXAMPLE_SENDERS: dict[str, tuple[str, str | None]] = {
    "CallToolResultResponse": ("server", "tools/call"),
    "CompleteResultResponse": ("server", "completion/complete"),
    "DiscoverResultResponse": ("server", "server/discover"),
    "GetPromptResultResponse": ("server", "prompts/get"),
    "ListPromptsResultResponse": ("server", "prompts/list"),
    "ListResourceTemplatesResultResponse": ("server", "resources/templates/list"),
    "ListResourcesResultResponse": ("server", "resources/list"),
    "ListToolsResultResponse": ("server", "tools/list"),
    "ReadResourceResultResponse": ("server", "resources/read"),
    "SubscriptionsListenResultResponse": ("server", "subscriptions/listen"),
    "CancelledNotification": ("client", None),
}
# The one official example that omits fields its own result type requires (see the test below).
READ_RESOURCE_WITHOUT_TTL = "ReadResourceResultResponse/read-resource-result-response.json"


def _example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*/*.json"))


def _sender_of(folder: str) -> tuple[str, str | None]:
    if folder in EXAMPLE_SENDERS:
        return EXAMPLE_SENDERS[folder]
    return ("client", None) if folder.endswith("Request") else ("server", None)


@pytest.mark.parametrize(
    "path",
    [
        path
        for path in _example_files()
        if f"{path.parent.name}/{path.name}" != READ_RESOURCE_WITHOUT_TTL
    ],
    ids=lambda path: f"{path.parent.name}/{path.name}",
)
def test_every_official_2026_envelope_example_passes(path: Path) -> None:
    sender, request_method = _sender_of(path.parent.name)
    message = json.loads(path.read_text("utf-8"))
    assert check_message(message, MODERN, sender=sender, request_method=request_method) == []


def test_the_discovery_examples_are_all_present() -> None:
    folders = {path.parent.name for path in _example_files()}
    assert {
        "DiscoverRequest",
        "DiscoverResultResponse",
        "ListToolsRequest",
        "ListToolsResultResponse",
        "ToolListChangedNotification",
        "SubscriptionsListenRequest",
        "SubscriptionsAcknowledgedNotification",
        "SubscriptionsListenResultResponse",
        "CallToolRequest",
        "CallToolResultResponse",
        "UnsupportedProtocolVersionError",
    } <= folders


def test_official_read_resource_example_without_ttl_is_reported_as_missing_cache_fields() -> None:
    # ReadResourceResult requires ttlMs and cacheScope. The official ReadResourceResultResponse is
    # anyOf[InputRequiredResult, ReadResourceResult], and InputRequiredResult accepts any object
    # with a string resultType, so the spec's own example passes the raw schema. The lab picks the
    # result type from resultType ("complete" here) and so reports what the example lacks.
    message = json.loads((EXAMPLES / READ_RESOURCE_WITHOUT_TTL).read_text("utf-8"))
    problems = check_message(message, MODERN, sender="server", request_method="resources/read")
    assert problems == [
        "ReadResourceResult: result: 'cacheScope' is a required property",
        "ReadResourceResult: result: 'ttlMs' is a required property",
    ]


def test_examples_copied_into_tests_are_the_specifications_bytes() -> None:
    # sha256 of each original at the pinned spec commit (tests/data/mcp-examples/README.md).
    sums = dict(
        reversed(line.split("  ", 1)) for line in (EXAMPLES / "SHA256SUMS").read_text().splitlines()
    )
    copies = {f"{p.parent.name}/{p.name}": p for p in _example_files()}
    assert set(copies) == set(sums)
    for name, path in copies.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sums[name], name


# --------------------------------------------------------------------------- tool names


@pytest.mark.parametrize("name", ["search", "fs.read_file", "get-weather", "A9._-", "t" * 128, "x"])
def test_tool_names_within_the_spec_guidance_have_no_problems(name: str) -> None:
    assert tool_name_problems(name) == []


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "tool name is empty"),
        ("t" * 129, "(129 characters) is longer than the 128"),
        ("web search", "' ' (U+0020)"),
        ("a,b", "',' (U+002C)"),
        ("server/tool", "'/' (U+002F)"),
        ("search\n", "'\\n' (U+000A)"),
        ("se\u200barch", "'\\u200b' (U+200B)"),
        ("\u0430dd", "'\\u0430' (U+0430)"),
        ("evil\u202etxt.exe", "'\\u202e' (U+202E)"),
        ("tool;rm -rf", "';' (U+003B)"),
    ],
)
def test_hostile_tool_names_are_reported_with_the_offending_characters(
    name: str, fragment: str
) -> None:
    problems = tool_name_problems(name)
    assert any(fragment in problem for problem in problems), problems


def test_tool_name_problems_never_echo_invisible_or_control_characters() -> None:
    hostile = "a\u202eb\u200bc\nd\x1b[31m" + "x" * 200
    for problem in tool_name_problems(hostile):
        assert problem.isascii() and problem.isprintable(), problem
        assert len(problem) < 400


def test_a_long_name_with_bad_characters_gets_both_problems() -> None:
    problems = tool_name_problems("a b" * 50)
    assert len(problems) == 2


# --------------------------------------------------------------------------- API edges


def test_unknown_protocol_version_is_a_problem_not_a_crash() -> None:
    problems = check_message(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "2099-01-01", sender="client"
    )
    assert problems and "unknown protocol version '2099-01-01'" in problems[0]


def test_sender_must_be_client_or_server() -> None:
    with pytest.raises(ValueError, match="sender"):
        check_message({"jsonrpc": "2.0", "method": "ping", "id": 1}, MODERN, sender="host")


def test_a_result_without_request_method_is_checked_as_an_envelope_only() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": {"anything": True}}
    assert check_message(message, "2024-11-05", sender="server") == []
    assert check_message(message, MODERN, sender="server") == [
        "JSONRPCResultResponse: result: 'resultType' is a required property"
    ]


def test_problems_are_not_repeated() -> None:
    problems = check_message({"id": None, "method": "tools/list"}, "2024-11-05", sender="client")
    assert len(problems) == len(set(problems))


# --------------------------------------------------------------------------- packaging


@pytest.mark.parametrize("version", sorted(PINNED_SHA256))
def test_packaged_schemas_are_the_pinned_official_files(version: str) -> None:
    package = resources.files("app.mcp").joinpath("schema", version, "schema.json")
    assert hashlib.sha256(package.read_bytes()).hexdigest() == PINNED_SHA256[version]
