"""Servers as found in the wild (app.mcp.server, app.mcp.leniency): one that ignores cursors,
one built for 2025-11-25 that sends that version's tool fields whatever was negotiated, and a
client written for its version that keeps only the fields it knows."""

from __future__ import annotations

import pytest

from app.mcp import events as ev
from app.mcp import leniency, versions
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

WIKI = {
    "name": "wiki_search",
    "title": "Search the wiki",
    "description": "Search wiki pages.",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True},
    "icons": [{"src": "https://wiki.example.com/s.png"}],
    "execution": {"taskSupport": "forbidden"},
}


def test_a_server_that_ignores_cursors_answers_any_cursor_with_page_one():
    pair = Pair("2025-11-25", ServerConfig("s", tools=tools("a", "b", "c"), ignores_cursor=True))
    pair.connect()
    ask = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"cursor": "made-up"}}
    [reply] = pair.server.receive(ask)
    assert [t["name"] for t in reply["result"]["tools"]] == ["a", "b", "c"]  # not -32602


def test_a_cursor_that_comes_back_stops_the_client_instead_of_looping():
    config = ServerConfig("s", tools=tools("a", "b", "c"), page_size=2, ignores_cursor=True)
    pair = Pair("2026-07-28", config).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    assert pair.methods().count("tools/list") == 2
    assert ev.RepeatedCursor in pair.kinds() and ev.Published not in pair.kinds()
    assert pair.client.cache.tools == []


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_a_server_built_for_2025_11_25_sends_its_fields_and_an_old_client_keeps_what_it_knows(
    version,
):
    config = ServerConfig("wiki", tools=(WIKI,), built_for="2025-11-25")
    pair = Pair(version, config, known_fields_only=True).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    [(_, reply)] = [(d, m) for d, m in pair.wire if "result" in m and "tools" in m["result"]]
    sent = set(reply["result"]["tools"][0])
    unknown = sorted(sent - versions.tool_fields(version))
    ignored = [e for e in pair.events if isinstance(e, leniency.UnknownFieldsIgnored)]
    assert [e.fields for e in ignored] == ([unknown] if unknown else [])
    assert set(pair.client.cache.tools[0]) <= versions.tool_fields(version)
    # the official schema leaves objects open; only the lab's closed check names the extras
    open_check = check_message(
        reply, version, sender="server", request_method="tools/list", closed=False
    )
    closed_check = check_message(reply, version, sender="server", request_method="tools/list")
    assert open_check == []
    assert bool(closed_check) == bool(unknown)


def test_a_client_that_is_not_told_to_drop_fields_keeps_them():
    config = ServerConfig("wiki", tools=(WIKI,), built_for="2025-11-25")
    pair = Pair("2024-11-05", config).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    assert "title" in pair.client.cache.tools[0]
