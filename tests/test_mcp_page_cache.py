"""2026-07-28 caches each tools/list page on its own (caching.mdx, Interaction with Pagination):
every page carries its own ttlMs, its freshness starts when that page arrived, and an expired
page is fetched again with its own cursor while fresh pages stay. A legacy client has no hints
and one policy for the list, so it re-lists from page 1; a list_changed or a rejected cursor
throws every page away."""

from __future__ import annotations

from typing import Any

from app.mcp import events as ev
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

MODERN = "2026-07-28"


def paged(version: str, **server: Any) -> Pair:
    """Seven tools, three to a page (a, b, c | d, e, f | g), page TTLs 100 s, 30 s, 60 s."""
    config: dict[str, Any] = {
        "tools": tools(*"abcdefg"),
        "page_size": 3,
        "ttl_ms": 60_000,
        "page_ttl_ms": (100_000, 30_000),
        **server,
    }
    pair = Pair(version, ServerConfig("s", **config)).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    return pair


def list_requests(pair: Pair, since: int = 0) -> list[dict[str, Any]]:
    sent = [m for d, m in pair.wire if d == "c2s" and m.get("method") == "tools/list"]
    return sent[since:]


def test_each_page_carries_its_own_ttl_and_is_cached_with_it():
    pair = paged(MODERN)
    pages = [m["result"] for d, m in pair.wire if d == "s2c" and "tools" in m.get("result", {})]
    assert [p["ttlMs"] for p in pages] == [100_000, 30_000, 60_000]
    assert {p["cacheScope"] for p in pages} == {"public"}  # one scope for the whole list
    answers = [m for d, m in pair.wire if d == "s2c" and "tools" in m.get("result", {})]
    for message in answers:  # each page, with its own hint, valid against the 2026 schema
        assert check_message(message, MODERN, sender="server", request_method="tools/list") == []
    cached = pair.client.snapshot()["cache"]["pages"]
    expiry = [(p["page"], p["expiresAtMs"]) for p in cached]
    assert expiry == [(1, 100_000), (2, 30_000), (3, 60_000)]
    assert cached[0]["cursor"] is None
    assert cached[1]["cursor"] == list_requests(pair)[1]["params"]["cursor"]
    assert pair.client.cache.expires_at_ms == 30_000  # the list needs a fetch once page 2 goes


def test_only_the_expired_page_is_fetched_again_with_its_own_cursor():
    pair = paged(MODERN)
    page_two_cursor = list_requests(pair)[1]["params"]["cursor"]
    pair.clock.advance(40_000)  # page 2 (30 s) has expired; pages 1 and 3 are fresh
    out = pair.client.list_tools()
    assert [m["params"].get("cursor") for m in out.messages] == [page_two_cursor]
    expired = next(e for e in out.events if isinstance(e, ev.CacheExpired))
    assert expired.expired == [2] and expired.pages == 3
    assert [e.page for e in out.events if isinstance(e, ev.PageReused)] == [1]
    pair.send(out)
    pair.settle()
    assert len(list_requests(pair)) == 3 + 1  # page 3 came from the cache too
    published = [e for e in pair.events if isinstance(e, ev.Published)][-1]
    assert published.reused == 2 and published.pages == 3
    assert [t["name"] for t in pair.client.cache.tools] == list("abcdefg")
    fetched = [p["fetchedAtMs"] for p in pair.client.snapshot()["cache"]["pages"]]
    assert fetched == [0, 40_000, 0]


def test_an_expired_first_page_is_fetched_without_a_cursor_and_later_pages_stay():
    pair = paged(MODERN, page_ttl_ms=(10_000, 90_000, 90_000))
    pair.clock.advance(20_000)
    pair.send(pair.client.list_tools())
    pair.settle()
    again = list_requests(pair, since=3)
    assert len(again) == 1 and "cursor" not in again[0]["params"]
    assert [e.page for e in pair.events if isinstance(e, ev.PageReused)] == [2, 3]


def test_a_page_whose_chain_moved_is_fetched_again():
    """The refetched page names a different next cursor (the catalog changed): the cached page
    under the old cursor is not that page, so the client follows the new cursor."""
    pair = paged(MODERN, page_ttl_ms=(10_000, 90_000, 90_000))
    pair.server.catalog.replace([*pair.server.tools, *tools("h")])  # a silent change, new cursors
    pair.clock.advance(20_000)
    pair.send(pair.client.list_tools())
    pair.settle()
    assert len(list_requests(pair, since=3)) == 3
    assert not [e for e in pair.events if isinstance(e, ev.PageReused)]
    assert [t["name"] for t in pair.client.cache.tools] == list("abcdefgh")


def test_a_legacy_client_relists_the_whole_list_from_page_one():
    pair = paged("2025-11-25", page_ttl_ms=(1, 1))  # hints a legacy server never sends
    assert "ttlMs" not in [m for d, m in pair.wire if d == "s2c"][-1]["result"]
    pair.clock.advance(60_000)  # the client's own policy, 60 s, for every page
    out = pair.client.list_tools()
    assert [(m.get("params") or {}).get("cursor") for m in out.messages] == [None]
    pair.send(out)
    pair.settle()
    assert len(list_requests(pair, since=3)) == 3
    assert ev.PageReused not in pair.kinds()


def test_list_changed_invalidates_every_page_even_fresh_ones():
    pair = paged(MODERN, list_changed=True)
    pair.clock.advance(1_000)
    pair.notify(pair.server.add_tool(tools("h")[0]))
    pair.settle()
    assert len(list_requests(pair, since=3)) == 3
    assert ev.PageReused not in pair.kinds()


def test_a_forced_refresh_fetches_every_page():
    pair = paged(MODERN)
    pair.send(pair.client.list_tools(force=True))
    pair.settle()
    assert len(list_requests(pair, since=3)) == 3 and ev.PageReused not in pair.kinds()


def test_a_rejected_cursor_discards_every_cached_page_and_restarts_from_page_one():
    pair = paged(MODERN, stale_cursors="reject")
    pair.server.catalog.replace([*pair.server.tools, *tools("h")])  # old cursors now refused
    pair.clock.advance(40_000)  # page 2 expired: its old cursor goes out and is refused
    pair.send(pair.client.list_tools())
    pair.settle()
    again = list_requests(pair, since=3)
    assert "cursor" in again[0]["params"]
    assert "cursor" not in again[1]["params"]  # the restart: page 1, then every page fetched
    assert len(again) == 1 + 3
    assert [t["name"] for t in pair.client.cache.tools] == list("abcdefgh")


def test_a_missing_ttl_on_a_modern_page_counts_as_zero():
    client = paged(MODERN).client  # the client alone: feed it a hint-less page by hand
    request = client.list_tools(force=True).messages[0]
    bare = {"tools": [], "resultType": "complete"}
    client.receive({"jsonrpc": "2.0", "id": request["id"], "result": bare})
    assert client.cache.ttl_ms == 0 and not client.cache_fresh()
