"""What a call's answer means: invalid arguments are -32602 up to 2025-06-18 and an isError
result from 2025-11-25 (SEP-1303), and a -32602 for arguments that break the schema the client
holds is no reason to re-discover; structuredContent is checked against the outputSchema; the
host names tools for people by title, annotations.title, name, accepts only https and data:
icons, and lets annotations skip the user's consent only for a server the user trusts."""

from __future__ import annotations

from typing import Any

import pytest

from app.mcp import events as ev
from app.mcp import versions
from app.mcp.host import Host, HostConfig, approval, display_name, usable_icons
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair

FORECAST: dict[str, Any] = {
    "name": "get_forecast",
    "description": "Forecast",
    "inputSchema": {
        "type": "object",
        "properties": {"date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}},
        "required": ["date"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"high_c": {"type": "integer"}},
        "required": ["high_c"],
    },
}


def calling(version: str, arguments: dict[str, Any]) -> Pair:
    pair = Pair(version, ServerConfig("s", tools=(FORECAST,))).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    pair.send(pair.client.call_tool("get_forecast", arguments))
    pair.settle()
    return pair


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_invalid_arguments_are_a_protocol_error_until_2025_11_25_then_a_tool_error(version):
    pair = calling(version, {"date": "next Sunday"})
    answer = pair.wire[-1][1]
    assert check_message(answer, version, sender="server", request_method="tools/call") == []
    if versions.at_least(version, "2025-11-25"):
        assert (
            answer["result"]["isError"] is True and "date" in answer["result"]["content"][0]["text"]
        )
        assert ev.CallToolError in pair.kinds()
    else:
        assert answer["error"]["code"] == -32602
        assert ev.CallArgumentsInvalid in pair.kinds()
    # Either way the list was not the problem: no re-discovery, no retry of the same call.
    assert pair.methods().count("tools/list") == 1 and pair.methods().count("tools/call") == 1


@pytest.mark.parametrize("version", ["2025-06-18", "2026-07-28"])
def test_structured_content_is_checked_against_the_output_schema(version):
    pair = calling(version, {"date": "2026-08-01"})
    checked = next(e for e in pair.events if isinstance(e, ev.StructuredChecked))
    assert checked.problem is None
    pair.server.catalog.tools[0]["outputSchema"] = {"type": "object", "required": ["sky"]}
    pair.send(pair.client.call_tool("get_forecast", {"date": "2026-08-02"}))
    pair.settle()  # the server now answers what the schema the client holds does not describe
    checked = [e for e in pair.events if isinstance(e, ev.StructuredChecked)][-1]
    assert checked.problem is not None and "high_c" in checked.problem


@pytest.mark.parametrize(
    ("tool", "shown"),
    [
        ({"name": "a", "title": "Title", "annotations": {"title": "Hint"}}, "Title"),
        ({"name": "a", "annotations": {"title": "Hint"}}, "Hint"),
        ({"name": "a", "title": "", "annotations": {}}, "a"),
    ],
)
def test_people_see_the_title_then_annotations_title_then_the_name(tool, shown):
    assert display_name(tool) == shown


def test_only_https_and_data_icons_are_accepted():
    icons = [{"src": s} for s in ("https://x/i.png", "data:image/png;base64,AA", "file:///i.png")]
    icons.append({"src": "javascript:alert(1)"})
    assert usable_icons({"icons": icons}) == ["https://x/i.png", "data:image/png;base64,AA"]


def test_annotations_let_a_call_skip_the_user_only_for_a_trusted_server():
    claims_read_only = {"name": "t", "annotations": {"readOnlyHint": True}}
    assert approval(False, claims_read_only) == ("ask", "untrusted-read-only")
    assert approval(True, claims_read_only) == ("auto", "trusted-read-only")
    assert approval(True, {"name": "t", "annotations": {"destructiveHint": False}}) == (
        "ask",
        "not-read-only",
    )
    assert approval(True, {"name": "t", "annotations": {"idempotentHint": True}})[1] == (
        "destructive"  # destructiveHint defaults to true
    )
    assert approval(True, {"name": "t"}) == ("ask", "no-hints")
    host = Host(["s"], HostConfig(confirm_calls=True, trusted_servers=("s",)))
    [row] = host.table({"s": [claims_read_only]})
    assert row["approval"] == "auto" and row["displayName"] == "t"
    [row] = Host(["s"], HostConfig(confirm_calls=True)).table({"s": [claims_read_only]})
    assert row["approval"] == "ask"
