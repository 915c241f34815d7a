"""The simulated client: negotiation, gathering pages, caching, list_changed, generations, retry."""

from __future__ import annotations

import pytest

from app.mcp import events as ev
from app.mcp import versions
from app.mcp.jsonrpc import ProtocolError
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

LEGACY_AND_MODERN = ["2025-11-25", "2026-07-28"]


def listed(version: str, **server: object) -> Pair:
    config = ServerConfig("s", **{"tools": tools(*"abcdefg"), "page_size": 3, **server})  # type: ignore[arg-type]
    pair = Pair(version, config).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    return pair


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_the_client_gathers_every_page_before_publishing(version):
    pair = Pair(version, ServerConfig("s", tools=tools(*"abcdefg"), page_size=3)).connect()
    pair.send(pair.client.list_tools())
    generations = []
    while pair.queue:
        pair.step()
        generations.append(len(pair.client.cache.tools))
    assert pair.methods().count("tools/list") == 3
    assert [t["name"] for t in pair.client.cache.tools] == list("abcdefg")
    assert set(generations[:-1]) == {0}  # nothing partial was ever published
    assert pair.client.cache.generation == 1


def test_a_repeated_cursor_stops_the_gather_and_keeps_the_old_list():
    pair = listed("2025-11-25")
    server = pair.server
    server.page = lambda cursor: (
        list(server.tools[:1]),
        "same",
    )  # a broken server: the cursor never moves
    pair.send(pair.client.list_tools(force=True))
    pair.settle()
    assert ev.RepeatedCursor in pair.kinds()
    assert pair.methods().count("tools/list") == 3 + 2
    assert len(pair.client.cache.tools) == 7 and pair.client.cache.generation == 1


def test_an_empty_string_cursor_is_a_cursor_not_the_end():
    pair = Pair("2026-07-28", ServerConfig("s", tools=tools("a", "b"))).connect()
    server = pair.server
    pages = {None: (list(server.tools[:1]), ""), "": (list(server.tools[1:]), None)}
    server.page = lambda cursor: pages[cursor]
    pair.send(pair.client.list_tools())
    pair.settle()
    sent = [m for d, m in pair.wire if d == "c2s" and m.get("method") == "tools/list"]
    assert sent[1]["params"]["cursor"] == ""
    assert [t["name"] for t in pair.client.cache.tools] == ["a", "b"]


def test_legacy_cache_uses_the_client_ttl_on_the_injected_clock():
    pair = listed("2025-06-18")
    pair.clock.advance(59_000)
    assert [type(e) for e in pair.client.list_tools().events] == [ev.CacheHit]
    pair.clock.advance(1_000)
    out = pair.client.list_tools()
    assert out.messages and out.messages[0]["method"] == "tools/list"


def test_modern_cache_follows_the_server_ttl_and_scope():
    pair = listed("2026-07-28", ttl_ms=5_000, cache_scope="private")
    assert pair.client.cache.ttl_ms == 5_000 and pair.client.cache.scope == "private"
    pair.clock.advance(4_999)
    assert pair.client.list_tools().messages == []
    pair.clock.advance(1)
    assert pair.client.list_tools().messages


def test_a_zero_ttl_means_no_caching():
    pair = listed("2026-07-28", ttl_ms=0)
    assert pair.client.list_tools().messages


@pytest.mark.parametrize("version", LEGACY_AND_MODERN)
def test_list_changed_invalidates_and_relists_from_page_one(version):
    pair = listed(version, list_changed=True)
    pair.notify(pair.server.add_tool(tools("h")[0]))
    pair.settle()
    relist = [m for d, m in pair.wire if d == "c2s" and m.get("method") == "tools/list"][3]
    assert "cursor" not in (relist.get("params") or {})
    assert [t["name"] for t in pair.client.cache.tools][-1] == "h"
    assert pair.client.cache.generation == 2


def test_a_notification_during_a_refresh_causes_exactly_one_more():
    pair = listed("2025-11-25", list_changed=True)
    pair.notify(pair.server.add_tool(tools("h")[0]))
    pair.step()  # the notification: a gather starts
    pair.step()  # page 1 request reaches the server
    pair.notify(pair.server.add_tool(tools("i")[0]))
    pair.notify(pair.server.add_tool(tools("j")[0]))
    pair.settle()
    assert pair.kinds().count(ev.RefreshQueued) == 2
    assert pair.client.cache.generation == 3  # the first refresh, then one more for both notes
    # generation 2 straddled the changes: gathered, but never published
    assert ev.GatherDiscarded in pair.kinds()
    assert [e.generation for e in pair.events if isinstance(e, ev.Published)] == [1, 3]
    assert [t["name"] for t in pair.client.cache.tools][-3:] == ["h", "i", "j"]


def test_a_response_from_an_abandoned_gather_never_overwrites_a_newer_one():
    pair = listed("2025-11-25")
    pair.send(pair.client.refresh(reason="one"))
    old_request = pair.queue.pop(0)
    pair.send(pair.client.refresh(reason="two", restart=True))
    pair.settle()
    generation = pair.client.cache.generation
    pair.queue.append(old_request)
    pair.settle()
    assert ev.StaleResponse in pair.kinds()
    assert pair.client.cache.generation == generation == 3


def test_a_page_of_an_abandoned_gather_arriving_during_the_newer_one_is_dropped():
    pair = listed("2025-11-25")  # seven tools, three per page: generation 1 is published
    pair.send(pair.client.refresh(reason="one"))  # generation 2 asks for page 1
    pair.step()  # ... and the server answers it; that answer is now in flight
    [(direction, old_page)] = pair.queue
    assert direction == "s2c" and "nextCursor" in old_page["result"]
    pair.queue.clear()
    pair.send(pair.client.refresh(reason="two", restart=True))  # generation 3 abandons it
    pair.step()  # the client cancels generation 2's request (its answer is already out)
    assert pair.wire[-1][1]["method"] == "notifications/cancelled"
    pair.step()  # generation 3's page 1 request reaches the server
    pair.step()  # ... its page 1 arrives, and page 2 is asked for
    assert pair.client.gathering is not None and pair.client.gathering.generation == 3
    pair.queue.insert(0, ("s2c", old_page))  # generation 2's page 1 arrives mid-gather
    pair.step()
    assert isinstance(pair.events[-1], ev.StaleResponse)
    assert pair.events[-1].generation == 2 and pair.events[-1].current == 3
    assert pair.client.gathering.pages == [list(tools(*"abc"))]  # not appended to gen 3
    pair.settle()
    published = [e for e in pair.events if isinstance(e, ev.Published)]
    assert [(e.generation, e.count, e.pages) for e in published] == [(1, 7, 3), (3, 7, 3)]
    assert [t["name"] for t in pair.client.cache.tools] == list("abcdefg")


@pytest.mark.parametrize("version", LEGACY_AND_MODERN)
def test_no_tools_list_or_call_leaves_while_the_opening_exchange_is_unanswered(version):
    pair = Pair(version, ServerConfig("s", tools=tools("a")))
    pair.send(pair.client.start())  # initialize (or server/discover) is sent, not answered
    for ask in (pair.client.list_tools, lambda: pair.client.call_tool("a", {})):
        with pytest.raises(ProtocolError) as error:
            ask()
        assert error.value.side == "local"
    assert [m["method"] for _, m in pair.queue] == [
        "initialize" if version == "2025-11-25" else "server/discover"
    ]
    pair.settle()
    pair.send(pair.client.list_tools())  # once the server has answered, listing is fine
    pair.settle()
    assert pair.client.cache.tools == list(tools("a"))


def test_unknown_tool_rediscovers_once_then_retries_if_it_came_back():
    pair = listed("2025-11-25")
    pair.server.remove_tool("a")
    pair.send(pair.client.call_tool("a", {}))
    pair.step()  # the call reaches the server, which no longer has "a"
    pair.server.add_tool(tools("a")[0])  # back before the re-discovery is answered
    pair.settle()
    assert pair.kinds().count(ev.CallRejected) == 1
    assert ev.CallRetry in pair.kinds() and ev.CallOk in pair.kinds()


def test_unknown_tool_that_is_really_gone_is_reported_not_retried():
    pair = listed("2026-07-28")
    pair.server.remove_tool("a")
    pair.send(pair.client.call_tool("a", {}))
    pair.settle()
    assert pair.methods().count("tools/call") == 1
    assert ev.CallAbandoned in pair.kinds()


def test_modern_client_falls_back_to_initialize_for_a_legacy_server():
    pair = Pair("2026-07-28", ServerConfig("old", supported_versions=("2024-11-05", "2025-03-26")))
    pair.connect()
    assert pair.methods()[:2] == ["server/discover", "initialize"]
    assert pair.client.version == "2025-03-26" and pair.client.era is versions.Era.LEGACY


def test_modern_client_retries_discover_after_minus_32022_with_a_mutual_version():
    pair = Pair("2026-07-28", ServerConfig("s"))
    pair.client.version = "2027-01-01"  # a client built against a newer draft
    pair.connect()
    assert pair.methods()[:2] == ["server/discover", "server/discover"]
    assert pair.client.version == "2026-07-28" and ev.VersionRetry in pair.kinds()


def test_the_client_refuses_a_version_it_does_not_support():
    pair = Pair(
        "2025-11-25",
        ServerConfig("s", supported_versions=("2024-11-05",)),
        supported_versions=("2025-06-18", "2025-11-25"),
    )
    pair.connect()
    assert pair.client.phase.value == "failed"
    assert "notifications/initialized" not in pair.methods()


def test_listing_before_the_session_is_ready_is_a_local_protocol_error():
    pair = Pair("2025-11-25", ServerConfig("s"))
    with pytest.raises(ProtocolError) as error:
        pair.client.list_tools()
    assert error.value.side == "local"


def test_hostile_tool_text_passes_through_as_data():
    hostile = [
        {
            "name": "<script>alert(1)</script>",
            "description": "\x00\x1b[31m\u202e",
            "inputSchema": {"type": "object"},
        },
        {"name": "x" * 10_000, "description": "y" * 10_240, "inputSchema": {"type": "object"}},
        {"name": "😀𝔘", "description": "𓀀" * 50, "inputSchema": {"type": "object"}},
    ]
    pair = Pair("2025-11-25", ServerConfig("s", tools=tuple(hostile), page_size=2)).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    assert pair.client.cache.tools == hostile


def test_a_rejected_stale_cursor_makes_the_client_restart_from_page_one_once():
    pair = listed("2025-11-25", stale_cursors="reject", list_changed=True)
    pair.send(pair.client.refresh(reason="test"))
    pair.step()  # page 1 request
    pair.step()  # page 1 answer; the page 2 request is in flight
    pair.server.add_tool(tools("h")[0])  # the catalog moves on: that cursor is now stale
    pair.settle()
    assert ev.ListError in pair.kinds()
    restart = [e for e in pair.events if isinstance(e, ev.GatherStarted)][-1]
    assert restart.detail["reason"] == "cursor rejected"
    assert [t["name"] for t in pair.client.cache.tools] == [*"abcdefg", "h"]


HEADER_TOOLS = (
    {
        "name": "execute_sql",
        "description": "Execute SQL",
        "inputSchema": {
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        },
    },
    {
        "name": "average",
        "description": "A number cannot be mirrored",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "number", "x-mcp-header": "X"}},
        },
    },
    {
        "name": "tag",
        "description": "An annotation inside items is not statically reachable",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}
            },
        },
    },
)


def header_pair(version: str, *, http: bool) -> Pair:
    config = ServerConfig("s", tools=HEADER_TOOLS, page_size=2)
    pair = Pair(version, config, http=http).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    return pair


def test_on_modern_http_tools_with_invalid_annotations_are_left_out_with_a_warning():
    pair = header_pair("2026-07-28", http=True)
    assert [t["name"] for t in pair.client.cache.tools] == ["execute_sql"]
    dropped = [e.detail for e in pair.events if isinstance(e, ev.ToolDropped)]
    assert [d["name"] for d in dropped] == ["average", "tag"]
    assert "number" in dropped[0]["reason"] and "/items: " in dropped[1]["reason"]
    published = next(e.detail for e in pair.events if isinstance(e, ev.Published))
    assert published["count"] == 1 and published["added"] == ["execute_sql"]


@pytest.mark.parametrize(
    ("version", "http"), [("2026-07-28", False), ("2025-11-25", True), ("2025-06-18", True)]
)
def test_stdio_and_legacy_versions_ignore_the_annotations(version, http):
    pair = header_pair(version, http=http)
    assert [t["name"] for t in pair.client.cache.tools] == ["execute_sql", "average", "tag"]
    assert ev.ToolDropped not in pair.kinds()


def test_a_modern_client_that_fell_back_to_legacy_keeps_every_tool():
    config = ServerConfig("s", tools=HEADER_TOOLS, supported_versions=("2025-11-25",))
    pair = Pair("2026-07-28", config, http=True).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    assert pair.client.era is versions.Era.LEGACY and len(pair.client.cache.tools) == 3
